//! The narrowing: which changes, applied to the good state, make the check fail.
//!
//! In: the number of changes and an oracle that runs the check with a set of them applied (the
//! rest reverted) and says whether it failed, with the set it really applied (the solver may
//! have had to revert more), or that the set could not be built. Out: a [`Found`].
//!
//! The search is a binary split that handles interacting changes (delta debugging's
//! minimizing, in the order QuickXplain uses): with the changes split in halves C1, C2 and a
//! background B already applied,
//! - if B + C1 fails, the culprits are in C1 (the rest of C2 is not needed);
//! - else the culprits M2 in C2 are found with B + C1 as the background, and then, unless B +
//!   M2 fails alone, the part M1 of C1 that M2 needs, with B + M2 as the background.
//!
//! One culprit among n costs about log2(n) + 1 runs; k interacting ones about 2k log2(n/k).
//! Every answer is remembered, and the check is taken to be monotone (a state with more of the
//! changes applied fails when a state with fewer did): a set that holds a failing set, or is
//! held by a passing one, is not run again. Before climbing back up, the culprits found deep
//! down are tried on the smallest background known to pass (the floor), so a single culprit
//! is confirmed by one run of it alone.

use std::collections::BTreeSet;

/// A set of changes (indices), applied to the good state.
pub(crate) type Set = BTreeSet<usize>;

/// What one run of the check answered.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    /// The changes really applied (those asked, less what the solver had to revert too).
    pub applied: Set,
    /// `Some(true)`: the check failed; `Some(false)`: it passed; `None`: the set could not be
    /// built or run (skipped).
    pub fails: Option<bool>,
}

/// The end of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// The check fails with nothing applied: the good state fails too.
    GoodFails,
    /// The good state could not be built or checked.
    GoodUnknown,
    /// These changes, applied alone, make it fail. `minimal`: every smaller set is known (run
    /// or implied by a run) to pass.
    Culprits {
        /// The culprits, ascending.
        set: Vec<usize>,
        /// 1-minimal.
        minimal: bool,
    },
    /// The check passes with every change applied: nothing to bisect.
    CurrentPasses,
    /// No set was found that fails (skipped sets in the way); the current state's answer.
    Inconclusive {
        /// What the current state answered.
        current: Option<bool>,
    },
}

/// A search with its memory of answers.
pub(crate) struct Search<F> {
    oracle: F,
    known: Vec<(Set, Option<bool>)>,
}

impl<E, F: FnMut(&Set) -> Result<Answer, E>> Search<F> {
    /// A search that asks `oracle`.
    pub(crate) fn new(oracle: F) -> Self {
        Search {
            oracle,
            known: Vec::new(),
        }
    }

    /// Narrow `n` changes down to the culprits.
    pub(crate) fn run(&mut self, n: usize) -> Result<Found, E> {
        let none = Set::new();
        match self.fails(&none)? {
            Some(true) => return Ok(Found::GoodFails),
            None => return Ok(Found::GoodUnknown),
            Some(false) => {}
        }
        let all: Vec<usize> = (0..n).collect();
        let culprits = self.minimize(&none, &none, &all)?.unwrap_or_default();
        let set: Set = culprits.iter().copied().collect();
        if !set.is_empty() && self.fails(&set)? == Some(true) {
            let minimal = set.iter().all(|e| {
                let mut less = set.clone();
                less.remove(e);
                self.inferred(&less) == Some(false)
            });
            return Ok(Found::Culprits {
                set: culprits,
                minimal,
            });
        }
        let current = self.fails(&all.iter().copied().collect())?;
        Ok(if current == Some(false) {
            Found::CurrentPasses
        } else {
            Found::Inconclusive { current }
        })
    }

    /// Whether the check fails with `set` applied: implied by an earlier answer, else run.
    fn fails(&mut self, set: &Set) -> Result<Option<bool>, E> {
        if let Some(known) = self.inferred(set) {
            return Ok(Some(known));
        }
        if let Some((_, answer)) = self.known.iter().find(|(s, _)| s == set) {
            return Ok(*answer);
        }
        let answer = (self.oracle)(set)?;
        if answer.applied != *set {
            self.known.push((answer.applied.clone(), answer.fails));
        }
        self.known.push((set.clone(), answer.fails));
        Ok(answer.fails)
    }

    /// What earlier answers imply for `set`: a failing subset fails it, a passing superset
    /// passes it.
    fn inferred(&self, set: &Set) -> Option<bool> {
        self.known.iter().find_map(|(s, answer)| match answer {
            Some(true) if s.is_subset(set) => Some(true),
            Some(false) if set.is_subset(s) => Some(false),
            _ => None,
        })
    }

    /// The smallest part of `changes` that fails on top of `background`, given that
    /// `background + changes` fails and `floor` (a part of `background`) passes. `None` when
    /// that given turns out false (the check passes with every change: nothing to narrow), or
    /// cannot be told (a state that could not be built).
    fn minimize(
        &mut self,
        floor: &Set,
        background: &Set,
        changes: &[usize],
    ) -> Result<Option<Vec<usize>>, E> {
        if changes.len() <= 1 {
            return Ok(Some(changes.to_vec()));
        }
        let (c1, c2) = changes.split_at(changes.len() / 2);
        if self.fails(&union(background, c1))? == Some(true) {
            return self.minimize(floor, background, c1);
        }
        let Some(m2) = self.minimize(floor, &union(background, c1), c2)? else {
            return Ok(None);
        };
        if self.fails(&union(floor, &m2))? == Some(true) {
            return Ok(Some(m2));
        }
        // The given, run when it was only assumed (the state as it is now): if it passes,
        // there is nothing to narrow.
        if self.fails(&union(background, changes))? != Some(true) {
            return Ok(None);
        }
        let with_m2 = union(background, &m2);
        if floor != background && self.fails(&with_m2)? == Some(true) {
            return Ok(Some(m2));
        }
        let Some(mut m1) = self.minimize(&with_m2, &with_m2, c1)? else {
            return Ok(None);
        };
        m1.extend(m2);
        m1.sort_unstable();
        Ok(Some(m1))
    }
}

fn union(set: &Set, more: &[usize]) -> Set {
    set.iter().chain(more).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search over `n` changes where the check fails when every set in `breaks` is applied
    /// in full for some set; `skipped`: sets that cannot be built. Returns what it found and
    /// the sets it ran.
    fn search(n: usize, breaks: &[&[usize]], skipped: &[&[usize]]) -> (Found, Vec<Set>) {
        let mut ran = Vec::new();
        let found = Search::new(|set: &Set| -> Result<Answer, ()> {
            ran.push(set.clone());
            let skip = skipped
                .iter()
                .any(|s| s.iter().copied().collect::<Set>() == *set);
            let fails = breaks.iter().any(|b| b.iter().all(|i| set.contains(i)));
            Ok(Answer {
                applied: set.clone(),
                fails: (!skip).then_some(fails),
            })
        })
        .run(n)
        .unwrap();
        (found, ran)
    }

    #[test]
    fn one_culprit_among_eight_takes_at_most_five_runs_wherever_it_is() {
        for culprit in 0..8 {
            let (found, ran) = search(8, &[&[culprit]], &[]);
            assert_eq!(
                found,
                Found::Culprits {
                    set: vec![culprit],
                    minimal: true
                }
            );
            assert!(
                ran.len() <= 5,
                "culprit {culprit}: {} runs: {ran:?}",
                ran.len()
            );
        }
    }

    #[test]
    fn two_changes_that_break_only_together_are_found_as_a_pair() {
        for (a, b) in [(0, 7), (1, 5), (2, 3), (6, 7)] {
            let (found, ran) = search(8, &[&[a, b]], &[]);
            assert_eq!(
                found,
                Found::Culprits {
                    set: vec![a, b],
                    minimal: true
                },
                "{a},{b}: {ran:?}"
            );
            assert!(ran.len() < 12, "{a},{b}: {} runs", ran.len());
        }
    }

    #[test]
    fn a_good_state_that_fails_stops_at_once() {
        let (found, ran) = search(8, &[&[]], &[]);
        assert_eq!(found, Found::GoodFails);
        assert_eq!(ran.len(), 1);
    }

    #[test]
    fn a_current_state_that_passes_is_said_without_searching_every_set() {
        let (found, ran) = search(8, &[], &[]);
        assert_eq!(found, Found::CurrentPasses);
        assert!(ran.contains(&(0..8).collect()));
        assert!(ran.len() <= 6, "{} runs: {ran:?}", ran.len());
    }

    #[test]
    fn a_skipped_set_is_stepped_around() {
        // {0..4} cannot be built: the search goes on in the other half and still finds 6.
        let (found, _) = search(8, &[&[6]], &[&[0, 1, 2, 3]]);
        assert_eq!(
            found,
            Found::Culprits {
                set: vec![6],
                minimal: true
            }
        );
    }
}
