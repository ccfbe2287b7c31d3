//! A request whose plan imports a name no release of the planned dependency with a wheel for
//! this environment has: `propose 'jinja2<3'` on Python 3.12 plans Jinja2 2.11.3, whose
//! `jinja2/filters.py` imports `soft_unicode` from `markupsafe`; MarkupSafe dropped it in 2.1.0,
//! and 2.0.1, the newest that has it, has no wheel for CPython 3.12. No declared requirement
//! says so (Jinja2 2.11.3 requires `MarkupSafe>=0.23`), so the solver pairs it with MarkupSafe 3.
//!
//! In: the request as asked and its resolution; the plan's [`UnmetName`]s (the planned-import
//! check); the provider's releases below the planned one, newest first, each read by range
//! requests from a wheel of that release (one for this environment when it has one, else one
//! of another interpreter's tags: a pure-Python module is the same file in each). Out: the
//! requirement the import implies (`markupsafe<2.1.0`: the releases from the newest one whose
//! module binds the names down), solved again with the request: its solution, or the solver's
//! derivation of why it has none (the releases that match have only source distributions
//! here), said as the reason the request cannot be met.
//!
//! Bounded: at most [`SCANNED`] releases read per name; a release whose module cannot be read,
//! or may hand out names it does not bind (a star import, a module `__getattr__`), ends the
//! search with nothing claimed.

use std::collections::BTreeSet;
use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::{ProposeError, Proposer};
use crate::index::DistFile;
use crate::inventory::imports::MAX_FILE_BYTES;
use crate::inventory::module_names::module_names;
use crate::plan::imports_check::module_file;
use crate::plan::planned::PlannedEnvironment;
use crate::plan::planned_imports::UnmetName;
use crate::plan::proposal::{Blocker, Change, Conflict, Plan, PlanKind, Reason};
use crate::solve::{Resolution, SolveError};

/// At most this many releases of a provider are read for the names: two years of monthly
/// releases (Werkzeug's `url_quote`, gone in 3.0.0, is in 2.3.8, the 17th release below 3.1.9).
const SCANNED: usize = 32;

/// The newest release of a provider whose module binds the unmet names.
#[derive(Debug, Clone)]
struct Binding {
    /// The release.
    version: Version,
    /// The module file read (`markupsafe/__init__.py`) and the wheel it was read from.
    path: String,
    wheel: String,
    /// The oldest release above it that was read and lacks the names (the requirement's bound).
    above: Version,
}

/// What the import implies for the request.
pub(super) enum Implied {
    /// The request with the implied requirement has a solution: the plan to offer, the
    /// sentence that says why the provider moves, and the reason its change cites.
    Met(Box<Resolution>, String, Box<Cited>),
    /// It has none: why the request cannot be met, and the requirement the import implies
    /// (`markupsafe<2.1.0`), which a forced plan goes past.
    Unmet(Conflict, Box<Requirement>),
}

/// A plan's import that needs an older release of its provider, and the requirement that
/// implies.
struct ImportNeed {
    unmet: UnmetName,
    implied: Requirement,
    /// "jinja2 2.11.3 imports ...; the newest markupsafe that has `soft_unicode` is 2.0.1
    /// (markupsafe/__init__.py, read from ...), so the request needs markupsafe<2.1.0".
    why: String,
}

impl ImportNeed {
    /// The provider's change cites the importing file and line.
    fn cited(&self) -> Cited {
        let unmet = &self.unmet;
        Cited {
            provider: unmet.provider.0.clone(),
            reason: Reason::ImportsName {
                dependent: unmet.importer.0.clone(),
                dependent_version: unmet.importer.1.clone(),
                requirement: self.implied.clone(),
                module: unmet.module.clone(),
                names: unmet.names.clone(),
                file: unmet.file.clone(),
                line: unmet.line,
            },
        }
    }
}

/// The provider an import moves, and why ([`Reason::ImportsName`]).
pub(super) struct Cited {
    provider: PackageName,
    reason: Reason,
}

impl Cited {
    /// The provider's change in `plan` gives the import as its reason (not "moved by the
    /// resolution", nor the index metadata).
    pub(super) fn cite(&self, plan: &mut Plan) {
        for change in plan.changes.iter_mut().filter(|c| c.name == self.provider) {
            change.reasons = vec![self.reason.clone()];
        }
    }
}

/// The move-the-blockers plans with what their import implies (see
/// [`Proposer::move_blockers_importing`]).
pub(super) struct BlockersImporting {
    pub plans: Vec<Plan>,
    /// Why the blockers were moved again (or why no plan that moves them imports).
    pub note: Option<String>,
}

impl Proposer<'_> {
    /// The import of `planned` (as `changes` change it) that needs an older release of its
    /// provider, the newest release that binds its names, and the requirement that implies.
    fn import_need(&self, planned: &PlannedEnvironment, changes: &[Change]) -> Option<ImportNeed> {
        let unmet = self.builder.unmet_names(planned, changes, &self.evidence);
        let (unmet, binding) = unmet
            .into_iter()
            .find_map(|u| self.newest_binding(&u).map(|b| (u, b)))?;
        let provider = &unmet.provider.0;
        let implied = Requirement::from_str(&format!("{provider}<{}", binding.above))
            .expect("a name and a version make a requirement");
        let why = format!(
            "{}; the newest {provider} that has {} is {} ({}, read from {}), so the request \
             needs {implied}",
            unmet.sentence(),
            listed(&unmet.names),
            binding.version,
            binding.path,
            binding.wheel,
        );
        Some(ImportNeed {
            unmet,
            implied,
            why,
        })
    }

    /// Move the blockers ([`Proposer::move_blockers_planned`]); when that plan imports a name its
    /// planned dependency lacks and an older release has it, the blockers are moved again with
    /// the requirement that implies (`propose 'jinja2<3'` beside jinja2-cli 1.0.1: jinja2-cli
    /// 0.8.2 with Jinja2 2.11.3 and MarkupSafe 2.0.1, never MarkupSafe 3.0.4, which Jinja2
    /// 2.11.3 fails to import beside). The plan that keeps the missing name is offered only
    /// forced, under `--allow-override`, as the request as asked is.
    pub(super) fn move_blockers_importing(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        blockers: &[Blocker],
    ) -> Result<BlockersImporting, ProposeError> {
        let Some((plan, planned)) = self.move_blockers_planned(targets, upgrade, blockers)? else {
            return Ok(BlockersImporting {
                plans: Vec::new(),
                note: None,
            });
        };
        let need = (!self.request.all)
            .then(|| self.import_need(&planned, &plan.changes))
            .flatten();
        let Some(need) = need else {
            return Ok(BlockersImporting {
                plans: vec![plan],
                note: None,
            });
        };
        let provider = &need.unmet.provider.0;
        let mut with = targets.to_vec();
        with.push(need.implied.clone());
        let mut moving = upgrade.clone();
        moving.insert(provider.clone());
        let mut plans = Vec::new();
        let note = match self.move_blockers_planned(&with, &moving, blockers)? {
            Some((mut moved, _)) => {
                moved.targets = targets.to_vec();
                need.cited().cite(&mut moved);
                plans.push(moved);
                format!("{}; the blockers are moved with it", need.why)
            }
            None => format!(
                "{}; no move of the blockers ({}) has a solution with it",
                need.why,
                blockers
                    .iter()
                    .map(|b| format!("{} {}", b.dependent, b.dependent_version))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        if self.request.allow_override {
            let mut forced = plan;
            let kept = planned
                .dists
                .get(provider)
                .map_or_else(String::new, |d| format!(" with {provider} {}", d.version));
            forced.title = format!(
                "Force {}{kept}, past what its imports need ({}): {}",
                super::join(targets),
                need.implied,
                forced.title
            );
            forced.kind = PlanKind::ForcedOverride;
            plans.push(forced);
        }
        Ok(BlockersImporting {
            plans,
            note: Some(note),
        })
    }

    /// When the plan for `resolution` imports a name its planned dependency lacks and an older
    /// release of that dependency has it: the request solved again with the requirement that
    /// implies ([`Implied`]). `None` when no such name, or no release that binds it is known.
    pub(super) fn import_implied(
        &self,
        as_asked: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        bounds: &[Requirement],
        resolution: &Resolution,
    ) -> Result<Option<Implied>, ProposeError> {
        let planned = self.planned(resolution);
        let goes_back_or_adds = planned.dists.iter().any(|(name, dist)| {
            self.inventory
                .get(name)
                .is_none_or(|installed| &dist.version < installed.version())
        });
        if self.request.all || !goes_back_or_adds {
            return Ok(None);
        }
        let targets = &self.request.targets;
        let plan = self.plan(PlanKind::Upgrade, String::new(), targets, &planned, &[])?;
        let Some(need) = self.import_need(&planned, &plan.changes) else {
            return Ok(None);
        };
        let provider = &need.unmet.provider.0;
        let (implied, why) = (need.implied.clone(), need.why.clone());
        let mut needs = as_asked.to_vec();
        needs.push(implied.clone());
        let mut upgrade = upgrade.clone();
        upgrade.insert(provider.clone());
        let needed = (Some(provider), &BTreeSet::new());
        match self.solve_needing(&needs, &upgrade, vec![], bounds.to_vec(), needed) {
            Ok(found) => Ok(Some(Implied::Met(
                Box::new(found),
                why,
                Box::new(need.cited()),
            ))),
            Err(SolveError::NoSolution(no_solution)) => Ok(Some(Implied::Unmet(
                Conflict {
                    explanation: format!("{why}.\n{}", no_solution.report),
                    blockers: Vec::new(),
                    hints: self.conflict_hints(&no_solution.hints, &[]),
                },
                Box::new(implied),
            ))),
            Err(err) => Err(err.into()),
        }
    }

    /// Under `--allow-override`, the request that cannot be met with the requirement its import
    /// implies, planned without it: `resolution` (the solve as asked) as a
    /// [`PlanKind::ForcedOverride`] plan, titled with what it goes past. Its risk is the plan's
    /// own evidence: the planned-import-missing factor names the line that fails to import.
    pub(super) fn forced_past_import(
        &self,
        resolution: &Resolution,
        implied: &Requirement,
    ) -> Result<Plan, ProposeError> {
        let targets = &self.request.targets;
        let planned = self.planned(resolution);
        let kept = planned
            .dists
            .get(&implied.name)
            .map_or_else(String::new, |d| {
                format!(" with {} {}", implied.name, d.version)
            });
        let title = format!(
            "Force {}{kept}, past what its imports need ({implied}: no release this \
             environment can install)",
            super::join(targets)
        );
        self.plan(PlanKind::ForcedOverride, title, targets, &planned, &[])
    }

    /// The newest release of `unmet`'s provider below the planned one whose module binds every
    /// unmet name, read from one of its wheels; `None` when none of the [`SCANNED`] newest
    /// does, or one cannot be read or may hand out names it does not bind.
    fn newest_binding(&self, unmet: &UnmetName) -> Option<Binding> {
        let (name, planned) = &unmet.provider;
        let project = self.evidence.catalog.project(name).ok()??;
        let files = &project.files;
        let versions: BTreeSet<&Version> = files
            .heads()
            .filter(|h| !h.yanked && !h.version.any_prerelease() && h.version < planned)
            .map(|h| h.version)
            .collect();
        let asked: BTreeSet<String> = unmet.names.iter().cloned().collect();
        let mut above = planned.clone();
        for version in versions.into_iter().rev().take(SCANNED) {
            let wheels: Vec<DistFile> = (0..files.len())
                .filter(|&i| files.head(i).version == version && files.head(i).tags.is_some())
                .map(|i| files[i].clone())
                .collect();
            if wheels.is_empty() {
                continue; // only a source distribution: not read, not claimed either way
            }
            let chosen = self.evidence.catalog.chosen_file(name, version);
            let wheel = chosen
                .filter(|f| wheels.iter().any(|w| w.url == f.url))
                .unwrap_or_else(|| wheels[0].clone());
            let index = self.evidence.index;
            let members = index.wheel_members(&wheel)?;
            if let Some(path) = module_file(&members, &unmet.module) {
                let text = index.wheel_member(&wheel, &path, MAX_FILE_BYTES)?;
                let bound = module_names(&String::from_utf8_lossy(&text), &asked);
                if bound.open {
                    return None;
                }
                if bound.defined == asked {
                    return Some(Binding {
                        version: version.clone(),
                        path,
                        wheel: wheel.filename_str(),
                        above,
                    });
                }
            }
            above = version.clone();
        }
        None
    }
}

/// `` `a`, `b` ``.
fn listed(names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    names.join(", ")
}
