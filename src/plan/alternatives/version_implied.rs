//! A request whose plan installs a release that raises on import beside the planned
//! environment, through a test of another dist's version in its own shipped sources:
//! `propose pyarrow` beside numpy 1.26.4 plans pyarrow 26.0.1, whose `pyarrow/lib.pyx` line 41
//! (`if int(np.__version__.partition('.')[0]) < 2:`) raises `ImportError`. Its index metadata
//! states no numpy requirement, so the solver pairs it with numpy 1; the test implies one
//! (`numpy>=2`), and the request is solved again with it, as the missing-name search
//! (`wheel_only`) does for a name an older release has.
//!
//! In: the request as asked, its resolution, and the release's [`FailingCheck`] (read by
//! [`super::super::version_checks`]). Out: the plans that do not fail on import, each solved
//! with a requirement the test implies: (a) the release with the tested dist moved to what it
//! needs (`numpy>=2`; with the installed dependents its own evidence says break moved along,
//! as [`super::super::must_move`] does), where the environment's requirements allow it, else
//! the solver's reason why not; (b) the newest release below the ones whose test fails
//! (`pyarrow<26.0.0`: 25.0.1); the known-failing plan only under `--allow-override`, as a
//! forced plan. Every sentence says the requirement came from the release's own file and line,
//! not from its index metadata.
//!
//! Bounded: the first failing check of the plan; at most [`SCANNED`] releases below the failing
//! one read for the test (a release whose files cannot be read is taken as not failing: no
//! claim either way).

use std::collections::BTreeSet;
use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::{ProposeError, Proposer, join};
use crate::plan::planned::PlannedEnvironment;
use crate::plan::proposal::{Conflict, Plan, PlanKind, Reason};
use crate::plan::version_checks::FailingCheck;
use crate::solve::{Resolution, SolveError};

/// At most this many releases below the failing one are read for the test.
const SCANNED: usize = 8;

/// At most this many solves per alternative (a solve that meets one test may plan another
/// release whose test fails).
const ROUNDS: usize = 3;

/// What the test implies for the request.
pub(super) struct VersionImplied {
    /// The plans that do not fail on import (and, under `--allow-override`, the forced one that
    /// does).
    pub plans: Vec<Plan>,
    /// Why the request was solved again, and why an alternative was not found (the conflict's
    /// explanation when there is one).
    pub notes: Vec<String>,
    /// When no plan avoids the failing test: why.
    pub conflict: Option<Conflict>,
    /// The failing tests (a plan offered beside the request where one holds is dropped).
    pub failing: Vec<FailingCheck>,
}

impl Proposer<'_> {
    /// When a release the plan for `resolution` installs raises on import beside it: the
    /// request solved again with what the test implies ([`VersionImplied`]). `None` when no
    /// planned release's test holds.
    pub(super) fn version_implied(
        &self,
        as_asked: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        bounds: &[Requirement],
        resolution: &Resolution,
    ) -> Result<Option<VersionImplied>, ProposeError> {
        if self.request.all {
            return Ok(None);
        }
        let planned = self.planned(resolution);
        let checks = self.failing_checks(&planned);
        let Some(check) = checks.first().cloned() else {
            return Ok(None);
        };
        let mut notes: Vec<String> = checks.iter().map(|c| self.why(c, &planned)).collect();
        let mut plans = Vec::new();
        match self.tested_moved(as_asked, upgrade, bounds, &checks)? {
            Ok(found) => plans.extend(found),
            Err(note) => notes.push(note),
        }
        match self.below_failing(as_asked, upgrade, bounds, &checks, &planned)? {
            Ok(found) => plans.push(found),
            Err(note) => notes.push(note),
        }
        let conflict = plans.is_empty().then(|| Conflict {
            explanation: notes
                .iter()
                .map(|n| n.strip_suffix('.').unwrap_or(n))
                .collect::<Vec<_>>()
                .join(".\n")
                + ".",
            blockers: Vec::new(),
            hints: Vec::new(),
        });
        if self.request.allow_override {
            let (name, version) = &check.release;
            let targets = &self.request.targets;
            let what = if targets.iter().any(|t| &t.name == name) {
                format!("{name} {version}")
            } else {
                format!("{} with {name} {version}", join(targets))
            };
            let title = format!(
                "Force {what} beside {} {}, past what its own {}, line {}, needs on import ({})",
                check.provider.0, check.provider.1, check.file, check.line, check.needs
            );
            plans.push(self.plan(PlanKind::ForcedOverride, title, targets, &planned, &[])?);
        }
        Ok(Some(VersionImplied {
            plans,
            notes,
            conflict,
            failing: checks,
        }))
    }

    /// Every test of another dist's version, in the planned releases of `planned`'s changed
    /// dists, that raises on import beside it (by dist name, then the release's file order).
    pub(in crate::plan) fn failing_checks(
        &self,
        planned: &PlannedEnvironment,
    ) -> Vec<FailingCheck> {
        planned
            .changed(self.inventory)
            .flat_map(|(name, dist)| {
                self.builder
                    .failing_version_checks(name, &dist.version, planned, &self.evidence)
            })
            .collect()
    }

    /// "pyarrow 26.0.1 (pyarrow/lib.pyx, line 41) raises on import when ..., which holds for
    /// numpy 1.26.4: it needs numpy>=2, read from that file; its index metadata states no numpy
    /// requirement".
    fn why(&self, check: &FailingCheck, planned: &PlannedEnvironment) -> String {
        let (name, _) = &check.release;
        let provider = &check.provider.0;
        let declared: Vec<String> = planned
            .dists
            .get(name)
            .map(|d| {
                d.requires_dist
                    .iter()
                    .filter(|r| &r.name == provider)
                    .map(ToString::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let metadata = if declared.is_empty() {
            format!("its index metadata states no {provider} requirement")
        } else {
            format!("its index metadata requires only {}", declared.join(", "))
        };
        format!(
            "{}: it needs {}, a requirement read from that file, not from the index; {metadata}",
            check.sentence(),
            check.needs
        )
    }

    /// (a) The request with what the tests need (`numpy>=2`), the tested dists free to move
    /// (a test the solve meets anew is added, [`ROUNDS`] solves at most); the installed
    /// dependents that plan breaks by its own evidence moved along. `Err`: why the environment
    /// does not allow it.
    fn tested_moved(
        &self,
        as_asked: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        bounds: &[Requirement],
        checks: &[FailingCheck],
    ) -> Result<Result<Vec<Plan>, String>, ProposeError> {
        let mut checks = checks.to_vec();
        let mut upgrade = upgrade.clone();
        let mut found = None;
        for _round in 0..ROUNDS {
            upgrade.extend(checks.iter().map(|c| c.provider.0.clone()));
            let implied: Vec<(Requirement, String)> = checks
                .iter()
                .map(|c| (c.needs.clone(), needs_clause(c)))
                .collect();
            let resolution = match self.solve_implied(as_asked, &upgrade, bounds.to_vec(), &implied)
            {
                Ok(found) => found,
                Err(SolveError::NoSolution(no_solution)) => {
                    return Ok(Err(format!(
                        "{} with {}, what {} on import, cannot be had here:\n{}",
                        join(&self.request.targets),
                        join(&implied.iter().map(|i| i.0.clone()).collect::<Vec<_>>()),
                        needing(&checks),
                        no_solution.report
                    )));
                }
                Err(err) => return Err(err.into()),
            };
            let planned = self.planned(&resolution);
            let fresh: Vec<FailingCheck> = self
                .failing_checks(&planned)
                .into_iter()
                .filter(|c| {
                    !checks
                        .iter()
                        .any(|k| k.needs == c.needs && k.release == c.release)
                })
                .collect();
            if fresh.is_empty() {
                found = Some(planned);
                break;
            }
            checks.extend(fresh);
        }
        let Some(planned) = found else {
            return Ok(Err(format!(
                "{} with what {} on import still plans a release that raises on import after \
                 {ROUNDS} solves",
                join(&self.request.targets),
                needing(&checks)
            )));
        };
        let targets = &self.request.targets;
        let mut plan = self.plan(PlanKind::Upgrade, String::new(), targets, &planned, &[])?;
        let why: Vec<String> = checks
            .iter()
            .map(|c| {
                format!(
                    "moving {} to what {} needs on import ({}: its own {}, line {})",
                    c.provider.0, c.release.0, c.needs, c.file, c.line
                )
            })
            .collect();
        plan.title = format!("{}, {}", moves(&plan, targets), why.join("; "));
        for check in &checks {
            needed_on_import(&mut plan, check);
        }
        super::as_asked::as_requested(&mut plan, targets);
        let mut found = vec![plan];
        if !found[0].breaks.is_empty() {
            let mut with = targets.clone();
            with.extend(checks.iter().map(|c| c.needs.clone()));
            if let Some(mut moved) = self.move_dependents(&found[0], &with, &upgrade)? {
                moved.targets = targets.clone();
                for check in &checks {
                    needed_on_import(&mut moved, check);
                }
                super::as_asked::as_requested(&mut moved, targets);
                found.push(moved);
            }
        }
        Ok(Ok(found))
    }

    /// (b) The request below the releases whose test fails (`pyarrow<26.0.0`), the tested dists
    /// where the plan has them (a test the solve meets anew bounds its release too, [`ROUNDS`]
    /// solves at most). `Err`: why there is none.
    fn below_failing(
        &self,
        as_asked: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        bounds: &[Requirement],
        checks: &[FailingCheck],
        planned: &PlannedEnvironment,
    ) -> Result<Result<Plan, String>, ProposeError> {
        // Per failing release's dist, its first check, the bound below it and the releases read.
        let mut held: Vec<(FailingCheck, Requirement, String)> = Vec::new();
        let mut fresh = checks.to_vec();
        let mut planned = planned.clone();
        for _round in 0..ROUNDS {
            for check in fresh {
                if held.iter().any(|(c, ..)| c.release.0 == check.release.0) {
                    continue;
                }
                match self.importing_below(&check, &planned)? {
                    Ok((below, read)) => held.push((check, below, read)),
                    Err(note) => return Ok(Err(note)),
                }
            }
            let implied: Vec<(Requirement, String)> = held
                .iter()
                .map(|(c, below, read)| (below.clone(), below_clause(c, below, read)))
                .collect();
            planned = match self.solve_implied(as_asked, upgrade, bounds.to_vec(), &implied) {
                Ok(found) => self.planned(&found),
                Err(SolveError::NoSolution(no_solution)) => {
                    let (check, below, read) = held.last().expect("a check is held");
                    let (name, (provider, at)) = (&check.release.0, &check.provider);
                    return Ok(Err(format!(
                        "{} with {below} (below {name} {read}, which {} on import beside \
                         {provider} {at}) cannot be had:\n{}",
                        join(&self.request.targets),
                        raise(read),
                        no_solution.report
                    )));
                }
                Err(err) => return Err(err.into()),
            };
            fresh = self.failing_checks(&planned);
            if fresh.is_empty() {
                break;
            }
        }
        if !fresh.is_empty() {
            return Ok(Err(format!(
                "{} below the releases that raise on import still plans one that does after \
                 {ROUNDS} solves ({})",
                join(&self.request.targets),
                fresh[0].sentence()
            )));
        }
        let targets = &self.request.targets;
        let mut plan = self.plan(PlanKind::Upgrade, String::new(), targets, &planned, &[])?;
        let mut why = Vec::new();
        for (check, _, read) in &held {
            let (name, (provider, at)) = (&check.release.0, &check.provider);
            if !plan.changes.iter().any(|c| &c.name == name) {
                return Ok(Err(format!(
                    "below {name} {read}, which {} on import beside {provider} {at}, {name} \
                     stays as installed",
                    raise(read)
                )));
            }
            why.push(format!(
                "the newest {name} that imports beside {provider} {at} ({name} {read} {} on \
                 import: {}, line {}, needs {})",
                raise(read),
                check.file,
                check.line,
                check.needs
            ));
            held_below(&mut plan, check, read);
        }
        plan.title = format!("{}: {}", moves(&plan, targets), why.join("; "));
        super::as_asked::as_requested(&mut plan, targets);
        Ok(Ok(plan))
    }

    /// Below which release `check`'s dist imports beside `planned` (`pyarrow<26.0.0`), read in
    /// at most [`SCANNED`] releases below the failing one and above the installed one, and the
    /// releases read that raise ("26.0.0, 26.0.1"; an older one whose test is at another line
    /// than the failing one's cites its own: "1.9 (arrowkit/__init__.py, line 3), 2.0"). `Err`:
    /// why there is none.
    pub(in crate::plan) fn importing_below(
        &self,
        check: &FailingCheck,
        planned: &PlannedEnvironment,
    ) -> Result<Result<(Requirement, String), String>, ProposeError> {
        let (name, failing) = &check.release;
        let (provider, at) = &check.provider;
        let installed = self.inventory.get(name).map(|d| d.version().clone());
        let Some(project) = self.evidence.catalog.project(name)? else {
            return Ok(Err(format!("{name}'s releases could not be read")));
        };
        let mut versions: Vec<Version> = self
            .evidence
            .catalog
            .usable_versions(&project)
            .iter()
            .filter(|v| *v < failing && !v.any_prerelease())
            .filter(|v| installed.as_ref().is_none_or(|i| *v > i))
            .cloned()
            .collect();
        versions.sort();
        // Each release read that raises, with its own file and line where they are not
        // `check`'s (the newest's, which every sentence cites after the list).
        let mut failing_read = vec![(failing.clone(), String::new())];
        let mut passes = false;
        for version in versions.iter().rev().take(SCANNED) {
            let checks =
                self.builder
                    .failing_version_checks(name, version, planned, &self.evidence);
            let Some(own) = checks
                .iter()
                .find(|c| c.provider.0 == *provider)
                .or(checks.first())
            else {
                passes = true;
                break;
            };
            let cited = if (&own.file, own.line) == (&check.file, check.line) {
                String::new()
            } else {
                format!(" ({}, line {})", own.file, own.line)
            };
            failing_read.push((version.clone(), cited));
        }
        let oldest = &failing_read.last().expect("the failing release is read").0;
        let read = failing_read
            .iter()
            .rev()
            .map(|(version, cited)| format!("{version}{cited}"))
            .collect::<Vec<_>>()
            .join(", ");
        if !passes {
            let kept =
                installed.map_or_else(String::new, |i| format!(" (above the installed {i})"));
            let each = if several(&read) {
                "each raise"
            } else {
                "raises"
            };
            return Ok(Err(format!(
                "no {name} release below {oldest}{kept} was found that imports beside {provider} \
                 {at}: {name} {read} {each} on import"
            )));
        }
        let below = Requirement::from_str(&format!("{name}<{oldest}"))
            .expect("a name and a version make a requirement");
        Ok(Ok((below, read)))
    }
}

/// `pyarrow 15.0.2 -> 26.0.1`: the targets' changes in `plan`.
fn moves(plan: &Plan, targets: &[Requirement]) -> String {
    let moved: Vec<String> = plan
        .changes
        .iter()
        .filter(|c| targets.iter().any(|t| t.name == c.name))
        .map(|c| {
            let from = c
                .from
                .as_ref()
                .map_or("(new)".to_string(), |v| v.to_string());
            let to =
                c.to.as_ref()
                    .map_or("(removed)".to_string(), |v| v.to_string());
            format!("{} {from} -> {to}", c.name)
        })
        .collect();
    if moved.is_empty() {
        join(targets)
    } else {
        moved.join(", ")
    }
}

/// `check`'s dist, held below the releases `read` that raise on import by their own file (not
/// by a requirement): its held-back line in `plan` says so.
pub(in crate::plan) fn held_below(plan: &mut Plan, check: &FailingCheck, read: &str) {
    let (name, _) = &check.release;
    let (provider, at) = &check.provider;
    for held in plan.held_back.iter_mut().filter(|h| &h.name == name) {
        if held.blockers.is_empty() && held.unavailable.is_none() {
            held.unavailable = Some(format!(
                "{name} {read} {} on import beside {provider} {at} ({}, line {}: it needs {}, \
                 read from that file, not from the index metadata)",
                raise(read),
                check.file,
                check.line,
                check.needs
            ));
        }
    }
}

/// The tested dist's change in `plan` gives the test as its reason (not a request, nor the
/// release's metadata).
pub(in crate::plan) fn needed_on_import(plan: &mut Plan, check: &FailingCheck) {
    let (name, version) = &check.release;
    for change in plan
        .changes
        .iter_mut()
        .filter(|c| c.name == check.provider.0)
    {
        change.reasons = vec![Reason::NeededOnImport {
            dependent: name.clone(),
            dependent_version: version.clone(),
            requirement: check.needs.clone(),
            file: check.file.clone(),
            line: check.line,
        }];
    }
}

/// How the solver words what `check`'s test needs: "pyarrow 26.0.1 needs numpy>=2 on import (its
/// own pyarrow/lib.pyx, line 41; neither the request nor its index metadata states it)".
fn needs_clause(check: &FailingCheck) -> String {
    format!(
        "{} {} needs {} on import (its own {}, line {}; neither the request nor its index \
         metadata states it)",
        check.release.0, check.release.1, check.needs, check.file, check.line
    )
}

/// How the solver words the bound below the releases whose test fails: "pyarrow<26.0.0 is
/// needed: pyarrow 26.0.0, 26.0.1 raise on import beside numpy 1.26.4 (their own
/// pyarrow/lib.pyx, line 41; not a requirement of the request nor of the index metadata)".
fn below_clause(check: &FailingCheck, below: &Requirement, read: &str) -> String {
    let (name, (provider, at)) = (&check.release.0, &check.provider);
    let (verb, own) = if several(read) {
        ("raise", "their")
    } else {
        ("raises", "its")
    };
    format!(
        "{below} is needed: {name} {read} {verb} on import beside {provider} {at} ({own} own {}, \
         line {}; not a requirement of the request nor of the index metadata)",
        check.file, check.line
    )
}

/// Whether `read` ("26.0.0, 26.0.1", the releases read that raise) names several releases.
fn several(read: &str) -> bool {
    read.contains(", ")
}

/// The verb for the releases `read` that raise on import: "2.0 raises", "26.0.0, 26.0.1 raise".
pub(in crate::plan) fn raise(read: &str) -> &'static str {
    if several(read) { "raise" } else { "raises" }
}

/// "pyarrow 26.0.1 needs", "pyarrow 26.0.1 and foo 2.0 need".
fn needing(checks: &[FailingCheck]) -> String {
    let mut releases: Vec<String> = checks
        .iter()
        .map(|c| format!("{} {}", c.release.0, c.release.1))
        .collect();
    releases.dedup();
    match releases.len() {
        1 => format!("{} needs", releases[0]),
        _ => format!("{} need", releases.join(" and ")),
    }
}
