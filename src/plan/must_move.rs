//! Move what must move with it: the installed dependents a plan's own evidence says break (its
//! [`Break`]s: compiled against an older ABI, `abi-break`; importing what a planned release no
//! longer has, `import-target-missing`; using, in a function, what it no longer has,
//! `call-time-target-missing`, [`Plan::call_time_breaks`]) move to releases made for the planned version.
//!
//! In: a plan and its breaks. Out: per breaking dependent, its *fixing release* (the first
//! release above the installed one that was uploaded once the planned line existed: for an ABI
//! break the planned version's major line, as the `abi-break` rule dates it; for an import the
//! planned version's minor line, where names are removed; else its newest release; for a use in a
//! function, the first release whose own files no longer make the cited uses, read as
//! [`still_uses`] reads them, and none when that cannot be told), and the alternative plan that
//! moves them ([`PlanKind::MoveDependents`]): the request, each breaking
//! dependent inside its fixing release's line and at or above it, nothing installed going back,
//! re-checked until its own evidence names no new break (a few rounds at most); a dependent
//! moved for a use in a function must land on a release that no longer makes it (read again),
//! else no plan. The layered
//! `--all` uses the same fixing releases to take a dependent along in a layer
//! ([`super::layers`]).

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use pep440_rs::{Operator, Version, VersionSpecifier};
use pep508_rs::{PackageName, Requirement};

use super::alternatives::{ProposeError, Proposer};
use super::call_time::still_uses;
use super::oracle::Oracle;
use super::planned::PlannedEnvironment;
use super::proposal::{Break, BreakKind, Plan, PlanKind, Reason};
use crate::metadata::requirement::bounded;
use crate::metadata::version_line::{line_floor, next_line};
use crate::risk::Citation;

/// How many times a plan is re-checked for breaks its moved dependents bring.
const ROUNDS: usize = 3;

/// The first version of `version`'s minor line (`2.3.8` -> `2.3`).
fn minor_floor(version: &Version) -> Version {
    let release = version.release();
    Version::new(release.iter().copied().take(2)).with_epoch(version.epoch())
}

/// `name>=fix` and, when `in_line`, below the next line of `fix`.
pub(super) fn fixing_requirement(name: &PackageName, fix: &Version, in_line: bool) -> Requirement {
    let mut specs = vec![
        VersionSpecifier::from_version(Operator::GreaterThanEqual, fix.clone())
            .expect(">= accepts any version"),
    ];
    if in_line {
        specs.push(
            VersionSpecifier::from_version(Operator::LessThan, next_line(fix))
                .expect("< accepts a version without a local label"),
        );
    }
    bounded(name, specs)
}

impl Proposer<'_> {
    /// Per dependent that `breaks` names (and the plan keeps installed; not one that fails only
    /// through a dist it imports), its fixing release:
    /// the first final release above the installed one uploaded at or after the planned line of
    /// what it breaks under began, else its newest final release above the installed one. A
    /// dependent with no release above the installed one is left out.
    pub(super) fn fixing_releases(
        &self,
        breaks: &[Break],
    ) -> Result<BTreeMap<PackageName, Version>, ProposeError> {
        let mut since: BTreeMap<&PackageName, Option<Timestamp>> = BTreeMap::new();
        let mut in_functions: BTreeMap<&PackageName, Vec<&Citation>> = BTreeMap::new();
        for b in breaks {
            let line = match b.how {
                BreakKind::Abi => line_floor(&b.to),
                BreakKind::Import => minor_floor(&b.to),
                // It fails through a dist it imports: its own newer release fixes nothing.
                BreakKind::ImportChain => continue,
                // Fixed by the first release that no longer makes the cited uses (below).
                BreakKind::CallTime => {
                    let uses = in_functions.entry(&b.dependent).or_default();
                    uses.extend(b.cited.as_ref());
                    continue;
                }
            };
            let began = self.evidence.first_release_from(&b.package, &line);
            let entry = since.entry(&b.dependent).or_insert(began);
            *entry = (*entry).max(began);
        }
        let mut fixes = BTreeMap::new();
        for (dependent, began) in since {
            let Some(installed) = self.inventory.get(dependent).map(|d| d.version().clone()) else {
                continue;
            };
            let Some(project) = self.evidence.catalog.project(dependent)? else {
                continue;
            };
            let newer: Vec<Version> = self
                .evidence
                .catalog
                .usable_versions(&project)
                .iter()
                .filter(|v| **v > installed && !v.any_prerelease())
                .cloned()
                .collect();
            let made_for = newer.iter().rev().find(|v| {
                began.is_some_and(|began| {
                    self.evidence
                        .released(dependent, v)
                        .is_some_and(|at| at >= began)
                })
            });
            if let Some(fix) = made_for.or(newer.first()) {
                fixes.insert(dependent.clone(), fix.clone());
            }
        }
        for (dependent, cited) in in_functions {
            let Some(fix) = self.first_not_using(dependent, &cited)? else {
                continue;
            };
            let entry = fixes.entry(dependent.clone()).or_insert(fix.clone());
            *entry = entry.clone().max(fix);
        }
        Ok(fixes)
    }

    /// The first final release of the installed `dependent` above the installed one whose own
    /// files surely no longer make the `cited` uses ([`still_uses`]), searched by halving over
    /// the releases (a use once dropped is taken to stay dropped; the release a plan lands on is
    /// read again in [`Self::move_dependents`]); `None` when no release is one, or one read
    /// cannot tell.
    fn first_not_using(
        &self,
        dependent: &PackageName,
        cited: &[&Citation],
    ) -> Result<Option<Version>, ProposeError> {
        let Some(installed) = self.inventory.get(dependent).map(|d| d.version().clone()) else {
            return Ok(None);
        };
        let Some(project) = self.evidence.catalog.project(dependent)? else {
            return Ok(None);
        };
        if cited.is_empty() {
            return Ok(None);
        }
        let mut newer: Vec<Version> = (self.evidence.catalog.usable_versions(&project).iter())
            .filter(|v| **v > installed && !v.any_prerelease())
            .cloned()
            .collect();
        newer.sort();
        // `hi` is always a release read as no longer using them, or past the last
        let (mut lo, mut hi) = (0, newer.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match still_uses(&self.evidence, dependent, &newer[mid], cited) {
                Some(true) => lo = mid + 1,
                Some(false) => hi = mid,
                None => return Ok(None),
            }
        }
        Ok(newer.get(hi).cloned())
    }

    /// Whether every dependent `plan` moves for a use in a function (`seen`; those with a fixing
    /// release in `fixes`) lands on a release whose files surely no longer make the cited uses.
    /// One with no such release stays as installed, its break scored where it is (accelerate
    /// 1.11.0's `ReplicateParallel`, used in `Accelerator._prepare_tp`, beside peft moved for
    /// transformers 5.25.0).
    fn lands_clear(
        &self,
        plan: &Plan,
        seen: &[Break],
        fixes: &BTreeMap<PackageName, Version>,
    ) -> bool {
        let mut cited: BTreeMap<&PackageName, Vec<&Citation>> = BTreeMap::new();
        let moved = |b: &&Break| b.how == BreakKind::CallTime && fixes.contains_key(&b.dependent);
        for b in seen.iter().filter(moved) {
            cited
                .entry(&b.dependent)
                .or_default()
                .extend(b.cited.as_ref());
        }
        cited.into_iter().all(|(dependent, cited)| {
            let installed = self.inventory.get(dependent).map(|d| d.version());
            match plan.pins.get(dependent) {
                Some(to) if Some(to) != installed => {
                    still_uses(&self.evidence, dependent, to, &cited) == Some(false)
                }
                _ => false,
            }
        })
    }

    /// The alternative that moves what must move with `base`: `None` when its evidence names no
    /// break, no breaking dependent has a newer release, no plan moving them solves, or the plan
    /// that does no longer moves up a target `base` moves up.
    pub(super) fn move_dependents(
        &self,
        base: &Plan,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
    ) -> Result<Option<Plan>, ProposeError> {
        let mut breaks = all_breaks(base);
        let mut seen: Vec<Break> = Vec::new();
        let mut fixes: BTreeMap<PackageName, Version> = BTreeMap::new();
        let mut best: Option<Plan> = None;
        for _round in 0..ROUNDS {
            let before = fixes.len();
            for (dependent, fix) in self.fixing_releases(&breaks)? {
                fixes.entry(dependent).or_insert(fix);
            }
            if fixes.len() == before {
                break;
            }
            seen.extend(breaks.iter().cloned());
            let mut moving = upgrade.clone();
            moving.extend(base.changes.iter().map(|c| c.name.clone()));
            // A dependent that breaks only when a function runs stays in its fixing release's
            // line: a later line may drop what its users call (langchain 1.5.2 ships no
            // `langchain.llms`, which langchain 0.0.300's users import).
            let in_functions: BTreeSet<&PackageName> = (seen.iter())
                .filter(|b| b.how == BreakKind::CallTime)
                .map(|b| &b.dependent)
                .filter(|d| {
                    seen.iter()
                        .all(|b| &b.dependent != *d || b.how == BreakKind::CallTime)
                })
                .collect();
            let Some(planned) = self.solve_fixed(targets, moving, &fixes, &in_functions)? else {
                break;
            };
            let mut plan =
                self.plan_moving(PlanKind::MoveDependents, targets, &planned, &fixes, &seen)?;
            breaks = all_breaks(&plan);
            // A dependent moved for a use in a function is read again where it lands.
            if !self.lands_clear(&plan, &seen, &fixes) {
                break;
            }
            // Moving the dependents along must not take the request back: a plan that leaves
            // the targets the base moved up where they are (tokenizers, when peft's fixing
            // release needs the transformers that holds it back) answers nothing asked.
            if self.moves_a_target_up(base) && !self.moves_a_target_up(&plan) {
                break;
            }
            // The builder's title is empty but for what the plan also repairs.
            plan.title = format!("{}{}", move_title(&plan, &fixes, &seen), plan.title);
            let done = breaks.is_empty();
            best = Some(plan);
            if done {
                break;
            }
        }
        Ok(best)
    }

    /// The request with each fixing release's dependent inside the fixing release's line and at
    /// or above it (else only at or above it, but for those of `in_line_only`), nothing
    /// installed going back; the dists each failure involves join `moving`, a few rounds at most.
    fn solve_fixed(
        &self,
        targets: &[Requirement],
        mut moving: BTreeSet<PackageName>,
        fixes: &BTreeMap<PackageName, Version>,
        in_line_only: &BTreeSet<&PackageName>,
    ) -> Result<Option<PlannedEnvironment>, ProposeError> {
        moving.extend(fixes.keys().cloned());
        for in_line in [true, false] {
            let mut requirements = targets.to_vec();
            requirements.extend(fixes.iter().map(|(name, fix)| {
                fixing_requirement(name, fix, in_line || in_line_only.contains(name))
            }));
            let floors = self.floors(targets);
            if let Some(resolution) = self.solve_widening(&requirements, moving.clone(), &floors)? {
                return Ok(Some(self.planned(&resolution)));
            }
        }
        Ok(None)
    }

    /// Build the plan of `planned`: the moved dependents' reason is what they move with.
    fn plan_moving(
        &self,
        kind: PlanKind,
        targets: &[Requirement],
        planned: &PlannedEnvironment,
        fixes: &BTreeMap<PackageName, Version>,
        breaks: &[Break],
    ) -> Result<Plan, ProposeError> {
        let mut plan = self.plan_on(kind, String::new(), targets, planned, &[], None)?;
        moves_with_reasons(&mut plan, fixes, breaks);
        Ok(plan)
    }
}

/// The breaks `plan`'s evidence names: its import-time [`Break`]s and its call-time ones.
pub(super) fn all_breaks(plan: &Plan) -> Vec<Break> {
    let mut breaks = plan.breaks.clone();
    breaks.extend(plan.call_time_breaks());
    breaks
}

/// The changes of `plan` that move a dependent of `fixes` say what they move with: the first
/// break naming it, at the release it breaks under (not this plan's version of that dist, which
/// moving the dependent may have changed) and the import that fails, with its line.
pub(super) fn moves_with_reasons(
    plan: &mut Plan,
    fixes: &BTreeMap<PackageName, Version>,
    breaks: &[Break],
) {
    for change in plan
        .changes
        .iter_mut()
        .filter(|c| fixes.contains_key(&c.name))
    {
        let Some(b) = breaks.iter().find(|b| b.dependent == change.name) else {
            continue;
        };
        change
            .reasons
            .retain(|r| matches!(r, Reason::Requested { .. } | Reason::Unblocks { .. }));
        let cited = b.cited.as_ref();
        change.reasons.push(Reason::MovesWith {
            package: b.package.clone(),
            version: b.to.clone(),
            how: b.how,
            file: cited.map(|c| c.file.clone()),
            line: cited.map(|c| c.line),
            module: cited.map(|c| c.module.clone()),
            name: cited.and_then(|c| c.name.clone()),
        });
    }
}

/// `Move what must move with it: pandas 1.5.3 -> 2.2.3, scikit-learn 1.2.2 -> 1.5.1`; a
/// dependent moved for a use in a function says which (`scrapy 2.8.0 -> 2.11.2 (its
/// scrapy/utils/ossignal.py line 19 uses `_handleSignals`, which twisted 23.8.0 does not have)`).
fn move_title(plan: &Plan, fixes: &BTreeMap<PackageName, Version>, breaks: &[Break]) -> String {
    let moved: Vec<String> = plan
        .changes
        .iter()
        .filter(|c| fixes.contains_key(&c.name))
        .filter_map(|c| {
            let why = breaks
                .iter()
                .find(|b| b.dependent == c.name)
                .filter(|b| b.how == BreakKind::CallTime)
                .and_then(|b| Some((b, b.cited.as_ref()?)))
                .map(|(b, cited)| {
                    let used = cited.name.as_ref().unwrap_or(&cited.module);
                    format!(
                        " (its {} line {} uses `{used}`, which {} {} does not have)",
                        cited.file, cited.line, b.package, b.to
                    )
                })
                .unwrap_or_default();
            Some(format!(
                "{} {} -> {}{why}",
                c.name,
                c.from.as_ref()?,
                c.to.as_ref()?
            ))
        })
        .collect();
    format!("Move what must move with it: {}", moved.join(", "))
}
