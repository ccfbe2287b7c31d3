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
use crate::metadata::requirement::specifiers;
use crate::plan::imports_check::module_file;
use crate::plan::planned::PlannedEnvironment;
use crate::plan::planned_imports::UnmetName;
use crate::plan::proposal::{Blocker, Change, Conflict, Plan, PlanKind, Reason};
use crate::solve::{NoSolution, Resolution, SolveError};

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
    /// The names came later: no release below the planned one has them, and this is the
    /// oldest above it that does (Banks 2.5.1's `banks/config.py` imports `user_data_path`
    /// from `platformdirs`, which Platformdirs 2.0.2 lacks and 2.1.0 has: `platformdirs>=2.1.0`,
    /// a lower bound its metadata does not state).
    later: bool,
}

impl Binding {
    /// The requirement this binding implies for `provider`: `provider<above`, or for names that
    /// came later `provider>=version`.
    fn implied(&self, provider: &PackageName) -> Requirement {
        let text = if self.later {
            format!("{provider}>={}", self.version)
        } else {
            format!("{provider}<{}", self.above)
        };
        Requirement::from_str(&text).expect("a name and a version make a requirement")
    }
}

/// At most this many solves per request: a plan solved with what its imports need may plan
/// another release whose import needs more.
const ROUNDS: usize = 3;

/// What the import implies for the request.
pub(super) enum Implied {
    /// The request with the implied requirements has a solution: the plan to offer, the
    /// sentence that says why the providers move, and the reasons their changes cite.
    Met(Box<Resolution>, String, Box<Cited>),
    /// It has none: why the request cannot be met, with the imports and the solver's facts
    /// (see [`UnmetImports`]).
    Unmet(Box<UnmetImports>),
}

/// A request that solves as asked but whose imports need what no solution with it has: the
/// conflict to report, the imports (the requirements they imply, `markupsafe<2.1.0`, are what
/// a forced plan goes past and whose blockers are searched), and the solver's derivation of why
/// (`None` when the rounds ran out).
pub(super) struct UnmetImports {
    pub conflict: Conflict,
    pub needs: ImportNeeds,
    pub no_solution: Option<Box<NoSolution>>,
}

/// One import of a plan that needs an older release of its provider, the newest release that
/// binds its names, and the requirement that implies.
#[derive(Debug, Clone)]
pub(super) struct ImportNeed {
    pub(super) unmet: UnmetName,
    binding: Binding,
    pub(super) implied: Requirement,
}

/// Every import of a plan (and of the plans solved with them) that needs an older release of
/// its provider: each is searched and cited, and the request is solved with all of them.
#[derive(Debug, Clone, Default)]
pub(super) struct ImportNeeds {
    pub(super) needs: Vec<ImportNeed>,
}

impl ImportNeeds {
    /// Per provider, the tightest of its needs' bounds (`markupsafe<2.1.0`), with the need that
    /// sets it.
    fn bounds(&self) -> Vec<(Requirement, &ImportNeed)> {
        let mut tightest: Vec<&ImportNeed> = Vec::new();
        for need in &self.needs {
            let provider = &need.unmet.provider.0;
            let later = need.binding.later;
            match tightest
                .iter_mut()
                .find(|n| &n.unmet.provider.0 == provider && n.binding.later == later)
            {
                Some(held) if !later && need.binding.above < held.binding.above => *held = need,
                Some(held) if later && need.binding.version > held.binding.version => *held = need,
                Some(_) => {}
                None => tightest.push(need),
            }
        }
        tightest
            .into_iter()
            .map(|n| (n.implied.clone(), n))
            .collect()
    }

    /// The requirements the imports imply, one per provider.
    pub(super) fn requirements(&self) -> Vec<Requirement> {
        self.bounds().into_iter().map(|(r, _)| r).collect()
    }

    /// How the solver words each implied requirement: "jinja2 2.11.3 needs markupsafe<2.1.0 on
    /// import (its own jinja2/filters.py, line 13, imports `soft_unicode` from `markupsafe`;
    /// neither the request nor its index metadata states it)".
    fn clauses(&self) -> Vec<(Requirement, String)> {
        self.bounds()
            .into_iter()
            .map(|(requirement, need)| {
                let unmet = &need.unmet;
                let clause = format!(
                    "{} {} needs {requirement} on import (its own {}, line {}, imports {} from \
                     `{}`; neither the request nor its index metadata states it)",
                    unmet.importer.0,
                    unmet.importer.1,
                    unmet.file,
                    unmet.line,
                    listed(&unmet.names),
                    unmet.module
                );
                (requirement, clause)
            })
            .collect()
    }

    /// Every clause of [`Self::clauses`], in one sentence.
    pub(super) fn needed_on_import(&self) -> String {
        let clauses: Vec<String> = self.clauses().into_iter().map(|(_, c)| c).collect();
        clauses.join("; ")
    }

    /// "jinja2 2.11.3 imports `soft_unicode` from `markupsafe` (jinja2/filters.py, line 13),
    /// which markupsafe 3.0.4 does not have; the newest markupsafe that has `soft_unicode` is
    /// 2.0.1 (markupsafe/__init__.py, read from ...), so the request needs markupsafe<2.1.0":
    /// every import, each with its file and line.
    pub(super) fn why(&self) -> String {
        let each: Vec<String> = self
            .needs
            .iter()
            .map(|need| {
                let (unmet, binding) = (&need.unmet, &need.binding);
                let which = if binding.later {
                    format!("oldest {} above {}", unmet.provider.0, unmet.provider.1)
                } else {
                    format!("newest {}", unmet.provider.0)
                };
                format!(
                    "{}; the {which} that has {} is {} ({}, read from {})",
                    unmet.sentence(),
                    listed(&unmet.names),
                    binding.version,
                    binding.path,
                    binding.wheel,
                )
            })
            .collect();
        format!(
            "{}, so the request needs {}",
            each.join("; "),
            super::join(&self.requirements())
        )
    }

    /// Each provider's change cites every import that needs it older (file and line); a dist
    /// that moves only because its installed requirement excluded what the tightest of them
    /// needs says so.
    pub(super) fn cited(&self) -> Cited {
        let reason = |need: &ImportNeed| {
            let unmet = &need.unmet;
            Reason::ImportsName {
                dependent: unmet.importer.0.clone(),
                dependent_version: unmet.importer.1.clone(),
                requirement: need.implied.clone(),
                module: unmet.module.clone(),
                names: unmet.names.clone(),
                file: unmet.file.clone(),
                line: unmet.line,
            }
        };
        let reasons = (self.needs.iter())
            .map(|need| (need.unmet.provider.0.clone(), reason(need)))
            .collect();
        let tightest = (self.bounds().into_iter())
            .map(|(_, need)| (need.unmet.provider.0.clone(), reason(need)))
            .collect();
        Cited { reasons, tightest }
    }

    /// Whether `unmet` is one of these already (a later round met it anew).
    pub(super) fn has(&self, unmet: &UnmetName) -> bool {
        self.needs.iter().any(|n| {
            n.unmet.importer == unmet.importer
                && n.unmet.module == unmet.module
                && n.unmet.names == unmet.names
        })
    }
}

/// The providers the imports move, and why ([`Reason::ImportsName`], one per import).
pub(super) struct Cited {
    reasons: Vec<(PackageName, Reason)>,
    /// Per provider, the import that sets its bound (`werkzeug<3.0.0`).
    tightest: Vec<(PackageName, Reason)>,
}

impl Cited {
    /// Each provider's change in `plan` gives the imports as its reasons (not "moved by the
    /// resolution", nor the index metadata). A change that follows a provider (Flask 3.1.2's
    /// `werkzeug>=3.1.0` excludes Werkzeug 2.3.8) moves to unblock the import
    /// ([`Reason::UnblocksImport`]), not for werkzeug's own sake.
    pub(super) fn cite(&self, plan: &mut Plan) {
        for change in &mut plan.changes {
            let reasons: Vec<Reason> = self
                .reasons
                .iter()
                .filter(|(provider, _)| provider == &change.name)
                .map(|(_, reason)| reason.clone())
                .collect();
            if !reasons.is_empty() {
                change.reasons = reasons;
                continue;
            }
            for reason in &mut change.reasons {
                if let Some(unblocks) = self.unblocks(reason) {
                    *reason = unblocks;
                }
            }
        }
    }

    /// `reason`, a [`Reason::Follows`] of a provider whose move the imports need, said as what
    /// it unblocks; `None` for any other reason.
    fn unblocks(&self, reason: &Reason) -> Option<Reason> {
        let Reason::Follows {
            package,
            requirement: blocking,
            ..
        } = reason
        else {
            return None;
        };
        let (_, cited) = self.tightest.iter().find(|(p, _)| p == package)?;
        let Reason::ImportsName {
            dependent,
            dependent_version,
            requirement,
            module,
            names,
            file,
            line,
        } = cited.clone()
        else {
            return None;
        };
        Some(Reason::UnblocksImport {
            dependent,
            dependent_version,
            requirement,
            module,
            names,
            file,
            line,
            blocking: blocking.clone(),
        })
    }
}

/// A request solved again with what its plan's imports need ([`Proposer::imports_met`]).
pub(super) enum ImportsMet {
    /// The plan imports nothing its planned dependencies lack (or no older release is known to
    /// have it).
    AsIs(Resolution),
    /// Solved with every requirement the imports imply.
    Met(Resolution, ImportNeeds),
    /// No solution with them: the imports and the solver's derivation (`None` when the rounds
    /// ran out).
    Unmet(ImportNeeds, Option<Box<NoSolution>>),
}

/// The move-the-blockers plans with what their import implies (see
/// [`Proposer::move_blockers_importing`]).
pub(super) struct BlockersImporting {
    pub plans: Vec<Plan>,
    /// Why the blockers were moved again (or why no plan that moves them imports).
    pub note: Option<String>,
}

impl Proposer<'_> {
    /// Every import of `planned` (as `changes` change it) that needs an older release of its
    /// provider, each with the newest release that binds its names (an import no read release
    /// binds is left out: nothing is claimed of it).
    pub(super) fn import_needs(
        &self,
        planned: &PlannedEnvironment,
        changes: &[Change],
    ) -> ImportNeeds {
        let needs = self
            .builder
            .unmet_names(planned, changes, &self.evidence)
            .into_iter()
            .filter_map(|unmet| {
                // A release the plan moves up beside its dependency's older release imports
                // what came later; one moved back, what went away.
                let up = self
                    .inventory
                    .get(&unmet.importer.0)
                    .is_some_and(|installed| installed.version() < &unmet.importer.1);
                let binding = if up {
                    self.binding_scan(&unmet, true)
                        .or_else(|| self.binding_scan(&unmet, false))
                } else {
                    self.binding_scan(&unmet, false)
                }?;
                let implied = binding.implied(&unmet.provider.0);
                Some(ImportNeed {
                    unmet,
                    binding,
                    implied,
                })
            })
            .collect();
        ImportNeeds { needs }
    }

    /// The import needs of the plan `resolution` makes for the request.
    fn needs_of(&self, resolution: &Resolution) -> Result<ImportNeeds, ProposeError> {
        let planned = self.planned(resolution);
        let targets = &self.request.targets;
        let plan = self.plan(PlanKind::Upgrade, String::new(), targets, &planned, &[])?;
        Ok(self.import_needs(&planned, &plan.changes))
    }

    /// `resolution`, solved from `asked` with `upgrade` moving and `bounds` kept: when its plan
    /// imports names its planned dependencies lack and older releases have them, solved again
    /// with every requirement that implies, the providers free to move ([`ROUNDS`] solves at
    /// most: a release the solve plans anew may need more). The one rule for every plan solved
    /// so: the implied requirements are not the request's (the plan is built and scored with
    /// the request's targets; the providers' changes cite the imports).
    pub(super) fn imports_met(
        &self,
        asked: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        bounds: &[Requirement],
        resolution: Resolution,
    ) -> Result<ImportsMet, ProposeError> {
        // Only a release that moves (the planned-import check picks which: back, added, capped
        // by the request, or moved up beside a dependency kept as installed) is read for its
        // imports.
        let moves = resolution.packages.iter().any(|(name, resolved)| {
            self.inventory
                .get(name)
                .is_none_or(|installed| &resolved.version != installed.version())
        }) || self
            .request
            .targets
            .iter()
            .any(crate::plan::planned_imports::capped);
        if self.request.all || !moves {
            return Ok(ImportsMet::AsIs(resolution));
        }
        let mut needs = self.needs_of(&resolution)?;
        if needs.needs.is_empty() {
            return Ok(ImportsMet::AsIs(resolution));
        }
        let mut upgrade = upgrade.clone();
        for _round in 0..ROUNDS {
            upgrade.extend(needs.needs.iter().map(|n| n.unmet.provider.0.clone()));
            let clauses = needs.clauses();
            let found = match self.solve_implied(asked, &upgrade, bounds.to_vec(), &clauses) {
                Ok(found) => found,
                Err(SolveError::NoSolution(no_solution)) => {
                    return Ok(ImportsMet::Unmet(needs, Some(no_solution)));
                }
                Err(err) => return Err(err.into()),
            };
            let fresh: Vec<ImportNeed> = self
                .needs_of(&found)?
                .needs
                .into_iter()
                .filter(|n| !needs.has(&n.unmet))
                .collect();
            if fresh.is_empty() {
                return Ok(ImportsMet::Met(found, needs));
            }
            needs.needs.extend(fresh);
        }
        Ok(ImportsMet::Unmet(needs, None))
    }

    /// Why no release that meets `implied` can be installed here, when that is a wheel this
    /// interpreter and platform lack (only without `--allow-build`): "markupsafe 2.0.1, the
    /// newest release that meets markupsafe<2.1.0, has no wheel for CPython 3.12.1 on linux
    /// x86_64 (...), only a source distribution (MarkupSafe-2.0.1.tar.gz) ...: `--allow-build`
    /// plans with source distributions". `None` when a release that meets it has such a wheel.
    pub(super) fn wheel_lack(&self, implied: &[Requirement]) -> Option<String> {
        self.wheel_lack_built(implied).map(|(said, _)| said)
    }

    /// [`Self::wheel_lack`], with the releases a build would make (`markupsafe 2.0.1`).
    pub(super) fn wheel_lack_built(&self, implied: &[Requirement]) -> Option<(String, String)> {
        if self.request.allow_build {
            return None;
        }
        let env = &self.inventory.environment;
        let tags = &env.tags;
        let said = implied
            .iter()
            .map(|requirement| {
                let name = &requirement.name;
                let project = self.evidence.catalog.project(name).ok()??;
                let files = &project.files;
                let spec = specifiers(requirement)?;
                let meets = |i: usize| {
                    let head = files.head(i);
                    !head.yanked && !head.version.any_prerelease() && spec.contains(head.version)
                };
                let fits = |i: usize| {
                    files
                        .head(i)
                        .tags
                        .is_some_and(|t| tags.best_rank(t.iter()).is_some())
                };
                let meeting: Vec<usize> = (0..files.len()).filter(|&i| meets(i)).collect();
                if meeting.iter().any(|&i| fits(i)) {
                    return None;
                }
                let newest = meeting.iter().map(|&i| files.head(i).version).max()?;
                let of_newest = || meeting.iter().filter(|&&i| files.head(i).version == newest);
                let sdist = of_newest().find(|&&i| files.head(i).tags.is_none())?;
                let other = of_newest()
                    .find(|&&i| files.head(i).tags.is_some())
                    .map_or_else(String::new, |&i| {
                        format!("; its wheels are for other tags, such as {}", files[i].filename_str())
                    });
                let needed = tags.as_slice().first().map_or_else(String::new, |t| {
                    format!(": a wheel tagged {t}, or another tag it accepts, was needed")
                });
                let older = meeting.iter().any(|&i| files.head(i).version < newest);
                Some((format!("{name} {newest}"), format!(
                    "{name} {newest}, the newest release that meets {requirement}, has no wheel \
                     for this interpreter and platform (CPython {} on {} {}{needed}{other}), \
                     only a source distribution ({}){}",
                    env.python_version,
                    env.markers.sys_platform(),
                    env.markers.platform_machine(),
                    files[*sdist].filename_str(),
                    if older {
                        format!(", and no older release that meets {requirement} has one either")
                    } else {
                        String::new()
                    }
                )))
            })
            .collect::<Option<Vec<(String, String)>>>()?;
        let (built, said): (Vec<String>, Vec<String>) = said.into_iter().unzip();
        let built = built.join(", ");
        Some((
            format!(
                "{}; `--allow-build` plans with source distributions (it would build {built} \
                 from its sdist at install)",
                said.join("; "),
            ),
            built,
        ))
    }

    /// Move the blockers ([`Proposer::move_blockers_planned`]); when that plan imports names
    /// its planned dependencies lack and older releases have them, the blockers are moved again
    /// with the requirements that implies (`propose 'jinja2<3'` beside jinja2-cli 1.0.1:
    /// jinja2-cli 0.8.2 with Jinja2 2.11.3 and MarkupSafe 2.0.1, never MarkupSafe 3.0.4, which
    /// Jinja2 2.11.3 fails to import beside), built and scored with the request's targets as
    /// [`Proposer::imports_met`] says. The plan that keeps the missing names is offered only
    /// forced, under `--allow-override`, as the request as asked is.
    pub(super) fn move_blockers_importing(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        blockers: &[Blocker],
    ) -> Result<BlockersImporting, ProposeError> {
        let Some((plan, planned)) = self.move_blockers_planned(targets, &[], upgrade, blockers)?
        else {
            return Ok(BlockersImporting {
                plans: Vec::new(),
                note: None,
            });
        };
        let needs = if self.request.all {
            ImportNeeds::default()
        } else {
            self.import_needs(&planned, &plan.changes)
        };
        if needs.needs.is_empty() {
            return Ok(BlockersImporting {
                plans: vec![plan],
                note: None,
            });
        }
        let implied = needs.requirements();
        let mut moving = upgrade.clone();
        moving.extend(needs.needs.iter().map(|n| n.unmet.provider.0.clone()));
        let mut plans = Vec::new();
        let why = needs.why();
        let note = match self.move_blockers_planned(targets, &implied, &moving, blockers)? {
            Some((mut moved, _)) => {
                needs.cited().cite(&mut moved);
                plans.push(moved);
                format!("{why}; the blockers are moved with it")
            }
            None => {
                let lack = self
                    .wheel_lack(&implied)
                    .map_or_else(String::new, |l| format!(": {l}"));
                format!(
                    "{why}; no move of the blockers ({}) has a solution with it{lack}",
                    blockers
                        .iter()
                        .map(|b| format!("{} {}", b.dependent, b.dependent_version))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        };
        if self.request.allow_override {
            let mut forced = plan;
            forced.title = format!(
                "Force {}{}, past what its imports need ({}): {}",
                super::join(targets),
                kept(&planned, &implied),
                super::join(&implied),
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

    /// When the plan for `resolution` imports names its planned dependencies lack and older
    /// releases of them have them: the request solved again with the requirements that implies
    /// ([`Implied`], by [`Proposer::imports_met`]). `None` when no such name, or no release
    /// that binds it is known.
    pub(super) fn import_implied(
        &self,
        as_asked: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        bounds: &[Requirement],
        resolution: &Resolution,
    ) -> Result<Option<Implied>, ProposeError> {
        if self.request.all {
            return Ok(None);
        }
        match self.imports_met(as_asked, upgrade, bounds, resolution.clone())? {
            ImportsMet::AsIs(_) => Ok(None),
            ImportsMet::Met(found, needs) => Ok(Some(Implied::Met(
                Box::new(found),
                needs.why(),
                Box::new(needs.cited()),
            ))),
            ImportsMet::Unmet(needs, no_solution) => {
                let implied = needs.requirements();
                let lack = self
                    .wheel_lack(&implied)
                    .map_or_else(String::new, |l| format!("\n{l}."));
                let (report, hints) = match &no_solution {
                    Some(found) => (found.report.clone(), found.hints.as_slice()),
                    None => (
                        format!(
                            "still importing a name its dependency lacks after {ROUNDS} solves"
                        ),
                        &[][..],
                    ),
                };
                Ok(Some(Implied::Unmet(Box::new(UnmetImports {
                    conflict: Conflict {
                        explanation: format!("{}.{lack}\n{report}", needs.why()),
                        blockers: Vec::new(),
                        hints: self.conflict_hints(hints, &[]),
                    },
                    needs,
                    no_solution,
                }))))
            }
        }
    }

    /// Under `--allow-override`, the request that cannot be met with the requirement its import
    /// implies, planned without it: `resolution` (the solve as asked) as a
    /// [`PlanKind::ForcedOverride`] plan, titled with what it goes past. Its risk is the plan's
    /// own evidence: the planned-import-missing factor names the line that fails to import.
    pub(super) fn forced_past_import(
        &self,
        resolution: &Resolution,
        implied: &[Requirement],
    ) -> Result<Plan, ProposeError> {
        let targets = &self.request.targets;
        let planned = self.planned(resolution);
        let title = format!(
            "Force {}{}, past what its imports need ({}: no release this environment can \
             install)",
            super::join(targets),
            kept(&planned, implied),
            super::join(implied)
        );
        self.plan(PlanKind::ForcedOverride, title, targets, &planned, &[])
    }

    /// The newest release of `unmet`'s provider below the planned one whose module binds every
    /// unmet name (`later`: the oldest above it), read from one of its wheels; `None` when none
    /// of the [`SCANNED`] nearest does, or one cannot be read or may hand out names it does not
    /// bind.
    fn binding_scan(&self, unmet: &UnmetName, later: bool) -> Option<Binding> {
        let (name, planned) = &unmet.provider;
        let project = self.evidence.catalog.project(name).ok()??;
        let files = &project.files;
        let versions: BTreeSet<&Version> = files
            .heads()
            .filter(|h| !h.yanked && !h.version.any_prerelease())
            .filter(|h| {
                if later {
                    h.version > planned
                } else {
                    h.version < planned
                }
            })
            .map(|h| h.version)
            .collect();
        let asked: BTreeSet<String> = unmet.names.iter().cloned().collect();
        let mut above = planned.clone();
        let nearest: Vec<&Version> = if later {
            versions.into_iter().take(SCANNED).collect()
        } else {
            versions.into_iter().rev().take(SCANNED).collect()
        };
        for version in nearest {
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
                        later,
                    });
                }
            }
            above = version.clone();
        }
        None
    }
}

/// " with markupsafe 3.0.4": the planned releases of the providers `implied` names.
fn kept(planned: &PlannedEnvironment, implied: &[Requirement]) -> String {
    let kept: Vec<String> = implied
        .iter()
        .filter_map(|r| {
            planned
                .dists
                .get(&r.name)
                .map(|d| format!("{} {}", r.name, d.version))
        })
        .collect();
    if kept.is_empty() {
        String::new()
    } else {
        format!(" with {}", kept.join(", "))
    }
}

/// `` `a`, `b` ``.
fn listed(names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    names.join(", ")
}
