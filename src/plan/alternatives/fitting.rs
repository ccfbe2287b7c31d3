//! The newest target that fits.
//!
//! In: the targets and their blockers (kept where they are). Out: the plan with the newest
//! release of each target that fits, or for one exact pin the release closest to it that fits
//! (a few tried at most); `None` when nothing would change. Its imports are checked as the
//! request's are (`wheel_only`): a fitting release that imports a name its planned dependency
//! lacks is planned with the older release that has it, or not offered (the note says why).

use std::collections::BTreeSet;

use pep440_rs::{Operator, Version};
use pep508_rs::{PackageName, Requirement};

use super::wheel_only::{Cited, ImportsMet};
use super::{ProposeError, Proposer, join};
use crate::metadata::requirement::{self, bare, pin, specifiers};
use crate::plan::proposal::{Blocker, Plan, PlanKind, Reason};
use crate::solve::{Resolution, SolveError};

impl Proposer<'_> {
    pub(super) fn newest_fitting(
        &self,
        targets: &[Requirement],
        blockers: &[Blocker],
        notes: &mut Vec<String>,
    ) -> Result<Option<Plan>, ProposeError> {
        // The target's name without its specifier; the blockers stay where they are. One
        // target with a version asked gets the release closest to it that fits, when there is
        // one other than the installed (`sympy==1.13.1` under torch's `sympy>=1.13.3`: 1.13.3).
        let kept: Vec<Requirement> = blockers
            .iter()
            .map(|b| pin(&b.dependent, &b.dependent_version))
            .collect();
        let names: BTreeSet<PackageName> = targets.iter().map(|t| t.name.clone()).collect();
        let (mut passed, mut unread) = (Vec::new(), Vec::new());
        let closest = self.closest_fitting(targets, &kept, &names, &mut passed, &mut unread)?;
        passed_over_notes(&targets[0].name, &passed, &unread, notes);
        let word = if closest.is_some() {
            "Closest"
        } else {
            "Newest"
        };
        let (resolution, asked) = match closest {
            Some(found) => found,
            None => {
                let mut relaxed: Vec<Requirement> = targets.iter().map(|t| bare(&t.name)).collect();
                relaxed.extend(kept);
                match self.solve(&relaxed, &names, vec![]) {
                    Ok(resolution) => (resolution, relaxed),
                    Err(SolveError::NoSolution(_)) => return Ok(None),
                    Err(err) => return Err(err.into()),
                }
            }
        };
        let title = |fitted: &[Requirement]| {
            format!(
                "{word} that fits: {} (asked: {})",
                join(fitted),
                join(targets)
            )
        };
        self.fitted_plan(targets, &names, (resolution, asked), word, &title, notes)
    }

    /// For a request of several targets whose imports cannot be met because one target's own
    /// release requires what excludes them (`flask-login==0.6.2 flask==3.1.2`: Flask 3.1.2
    /// requires `werkzeug>=3.1.0`, Flask-Login 0.6.2's import `werkzeug<3.0.0`): the newest
    /// release of that target that fits, every other target kept as asked and the blockers
    /// where they are, titled with which target moved off what was asked and why (`relaxed`:
    /// the target and the requirement of its asked release that blocks; `why`: what it
    /// blocks). `None` when nothing fits so.
    pub(super) fn fitting_relaxing(
        &self,
        targets: &[Requirement],
        relaxed: &(Requirement, Requirement),
        blockers: &[Blocker],
        why: &str,
        notes: &mut Vec<String>,
    ) -> Result<Option<Plan>, ProposeError> {
        let (target, blocking) = relaxed;
        let names: BTreeSet<PackageName> = targets.iter().map(|t| t.name.clone()).collect();
        let mut asked: Vec<Requirement> = targets
            .iter()
            .map(|t| {
                if t.name == target.name {
                    bare(&t.name)
                } else {
                    t.clone()
                }
            })
            .collect();
        asked.extend(
            blockers
                .iter()
                .map(|b| pin(&b.dependent, &b.dependent_version)),
        );
        let resolution = match self.solve(&asked, &names, vec![]) {
            Ok(resolution) => resolution,
            Err(SolveError::NoSolution(_)) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let kept: Vec<&Requirement> = targets.iter().filter(|t| t.name != target.name).collect();
        let title = |fitted: &[Requirement]| {
            let moved = fitted.iter().find(|f| f.name == target.name);
            format!(
                "Newest that fits: {} in place of {target}, whose {blocking} blocks {why}; {} \
                 as asked",
                moved.map_or_else(|| target.name.to_string(), ToString::to_string),
                kept.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        self.fitted_plan(
            targets,
            &names,
            (resolution, asked),
            "Newest",
            &title,
            notes,
        )
    }

    /// The plan of a fitting search's solve (`found`: the resolution and what it was solved
    /// from), solved again with what its imports need; each target pinned to its planned
    /// release, the one not as asked labelled so. `None` when nothing would change, or its
    /// imports cannot be met (`notes` says why).
    fn fitted_plan(
        &self,
        targets: &[Requirement],
        names: &BTreeSet<PackageName>,
        found: (Resolution, Vec<Requirement>),
        word: &str,
        title: &dyn Fn(&[Requirement]) -> String,
        notes: &mut Vec<String>,
    ) -> Result<Option<Plan>, ProposeError> {
        let (resolution, asked) = found;
        let fitting = format!("the {} that fits", word.to_lowercase());
        let Some((resolution, cited)) =
            self.fitting_imports(&asked, names, resolution, &fitting, notes)?
        else {
            return Ok(None);
        };
        let planned = self.planned(&resolution);
        let mut fitted = Vec::new();
        let mut changed = false;
        for target in targets.iter() {
            let Some(dist) = planned.dists.get(&target.name) else {
                continue;
            };
            let installed = self.inventory.get(&target.name).map(|d| d.version());
            if installed != Some(&dist.version) {
                changed = true;
            } else if !requirement::accepts(target, &dist.version) {
                notes.push(format!(
                    "the newest {} that fits without moving anything else is {}, already installed",
                    target.name, dist.version
                ));
            }
            fitted.push(pin(&target.name, &dist.version));
        }
        if !changed {
            return Ok(None);
        }
        let title = title(&fitted);
        let mut plan = self.plan(PlanKind::NewestFitting, title, &fitted, &planned, &[])?;
        if let Some(cited) = cited {
            cited.cite(&mut plan);
        }
        // A fitted version that is not what was asked is never labelled "requested"; one that
        // meets its target (the other targets of a request that cannot be had whole) is.
        for change in &mut plan.changes {
            let to = change.to.clone();
            for reason in &mut change.reasons {
                if let Reason::Requested { requirement } = reason
                    && let Some(asked) = targets.iter().find(|t| t.name == requirement.name)
                    && !to.as_ref().is_some_and(|v| requirement::accepts(asked, v))
                {
                    *reason = Reason::NewestFitting {
                        asked: asked.clone(),
                        closest: word == "Closest",
                    };
                }
            }
        }
        Ok(Some(plan))
    }

    /// `resolution` (solved from `asked`) with what its plan's imports need
    /// ([`Proposer::imports_met`]): the resolution to plan, with the reasons the providers'
    /// changes cite; `None` when no solution has what they need (`notes` says why).
    fn fitting_imports(
        &self,
        asked: &[Requirement],
        names: &BTreeSet<PackageName>,
        resolution: Resolution,
        fitting: &str,
        notes: &mut Vec<String>,
    ) -> Result<Option<(Resolution, Option<Cited>)>, ProposeError> {
        Ok(match self.imports_met(asked, names, &[], resolution)? {
            ImportsMet::AsIs(resolution) => Some((resolution, None)),
            ImportsMet::Met(resolution, needs) => {
                notes.push(format!("{}; {fitting} is planned with it", needs.why()));
                Some((resolution, Some(needs.cited())))
            }
            ImportsMet::Unmet(needs, ..) => {
                let lack = self
                    .wheel_lack(&needs.requirements())
                    .map_or_else(String::new, |l| format!(": {l}"));
                notes.push(format!(
                    "{}; {fitting} has no solution with it, and is not offered{lack}",
                    needs.why()
                ));
                None
            }
        })
    }

    /// For one target pinned to one version (`==X`), the solve of the release nearest to it (in release
    /// order) that fits with the blockers kept, other than the installed one (with what it was
    /// solved from); a few tried at most. A release whose imports need what no solution with it
    /// has (Flask-Login 0.6.1 beside Flask 3.1.2 kept: `url_decode`, gone in Werkzeug 3) does
    /// not fit: it goes into `passed` and the next is tried; one whose data cannot be read goes
    /// into `unread` (with the error).
    fn closest_fitting(
        &self,
        targets: &[Requirement],
        kept: &[Requirement],
        names: &BTreeSet<PackageName>,
        passed: &mut Vec<String>,
        unread: &mut Vec<String>,
    ) -> Result<Option<(Resolution, Vec<Requirement>)>, ProposeError> {
        let [target] = targets else {
            return Ok(None);
        };
        // Only an exact version asked has a "closest": a range that no fitting release meets
        // has no point to measure from.
        let Some(spec) = specifiers(target).filter(|s| {
            s.len() == 1
                && matches!(
                    s.iter().next().map(|s| *s.operator()),
                    Some(Operator::Equal)
                )
        }) else {
            return Ok(None);
        };
        let Some(project) = self.evidence.catalog.project(&target.name)? else {
            return Ok(None);
        };
        let installed = self.inventory.get(&target.name).map(|d| d.version());
        let mut versions: Vec<Version> = self.evidence.catalog.usable_versions(&project).to_vec();
        versions.sort();
        // Where the request sits in release order: its matching version, or where the version
        // asked would go (`flask==2.2.6`, no such release: between 2.2.5 and 2.3.0).
        let asked = spec.iter().next().map(|s| s.version());
        let at = versions
            .iter()
            .position(|v| spec.contains(v))
            .unwrap_or_else(|| versions.partition_point(|v| asked.is_some_and(|a| v < a)));
        // A pre-release is closest only to a pre-release asked (never 3.0.0a1 for 2.11.3).
        let pre = asked.is_some_and(Version::any_prerelease);
        let mut order: Vec<(usize, &Version)> = versions
            .iter()
            .enumerate()
            .filter(|(_, v)| Some(*v) != installed && !spec.contains(v))
            .filter(|(_, v)| pre || !v.any_prerelease())
            .map(|(i, v)| (i.abs_diff(at), v))
            .collect();
        order.sort();
        for (_, version) in order.into_iter().take(CLOSEST_TRIED) {
            let mut asked = vec![pin(&target.name, version)];
            asked.extend(kept.iter().cloned());
            match self.solve(&asked, names, vec![]) {
                Ok(resolution) => {
                    let met = self.imports_met(&asked, names, &[], resolution.clone())?;
                    if matches!(met, ImportsMet::Unmet(..)) {
                        passed.push(version.to_string());
                        continue;
                    }
                    return Ok(Some((resolution, asked)));
                }
                Err(SolveError::NoSolution(_)) => continue,
                // One release near the request that cannot be read is one alternative fewer,
                // not a failed plan: it is passed over, and said so.
                Err(err) => unread.push(format!("{version} ({err})")),
            }
        }
        Ok(None)
    }
}

/// How many releases near a request are tried for the closest that fits.
const CLOSEST_TRIED: usize = 6;

/// The notes of the closest-fitting search: the releases it passed over because what they
/// import is missing beside the kept blockers (`passed`), and those it could not read (`unread`).
fn passed_over_notes(
    name: &PackageName,
    passed: &[String],
    unread: &[String],
    notes: &mut Vec<String>,
) {
    if !unread.is_empty() {
        let list = unread.join(", ");
        notes.push(format!(
            "{name} {list}: could not be read, so not tried as closer fits"
        ));
    }
    if !passed.is_empty() {
        notes.push(format!(
            "{} {}, closer to what was asked, fit{} only beside releases that lack what {} \
                 import{}, and {} passed over",
            name,
            passed.join(", "),
            if passed.len() == 1 { "s" } else { "" },
            if passed.len() == 1 { "it" } else { "they" },
            if passed.len() == 1 { "s" } else { "" },
            if passed.len() == 1 { "is" } else { "are" },
        ));
    }
}
