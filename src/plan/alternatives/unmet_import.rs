//! A request that solves as asked, but whose planned release imports a name only older
//! releases of a dependency have, and no solution has such a release with the request
//! ([`Implied::Unmet`](super::wheel_only::Implied)): `propose flask-login==0.6.2` beside an
//! application installed from a file that requires `flask>=3` (Flask-Login 0.6.2's
//! `flask_login/utils.py` line 14 imports `url_decode`, gone in Werkzeug 3.0.0; every Flask 3
//! requires `Werkzeug>=3`), or `propose 'jinja2<3'` on CPython 3.12 (MarkupSafe 2.0.1, the
//! newest that has `soft_unicode`, has no wheel there).
//!
//! In: the request, its resolution as asked, the imports and the solver's derivation of why
//! the requirements they imply (`werkzeug<3.0.0`) cannot be had with it. Out: the conflict, with
//! the installed dists whose requirements exclude what the imports imply (its blockers:
//! Flask 3.1.2's `Werkzeug>=3.1`), and the alternatives the request that cannot be had gets:
//! the blockers moved with the implied requirements, the newest (or closest) release of the
//! targets that fits with the blockers kept (Flask-Login 0.6.3 works with Werkzeug 3), and under
//! `--allow-override` the request planned past what its import needs. When none is found and
//! what the imports need has no wheel here, a hint says the request cannot be met with wheels
//! on this Python, naming the release a build would make and the flag.

use std::collections::BTreeSet;

use pep508_rs::{PackageName, Requirement};

use super::wheel_only::{ImportNeeds, UnmetImports};
use super::{ProposeError, Proposer, keep_searched};
use crate::metadata::requirement::specifiers;
use crate::plan::planned::applies_with;
use crate::plan::proposal::{Blocker, Conflict, Plan};
use crate::solve::Resolution;

impl Proposer<'_> {
    /// The conflict of a request whose imports cannot be met, with its blockers, and the
    /// alternatives into `plans` (the module's top comment); what an alternative could not do,
    /// into `warnings`.
    pub(super) fn unmet_import(
        &self,
        upgrade: &BTreeSet<PackageName>,
        resolution: &Resolution,
        unmet: UnmetImports,
        plans: &mut Vec<Plan>,
        warnings: &mut Vec<String>,
    ) -> Result<Conflict, ProposeError> {
        let UnmetImports {
            mut conflict,
            needs,
            no_solution,
        } = unmet;
        let targets = &self.request.targets;
        let implied = needs.requirements();
        let blockers = self.implied_blockers(&implied, no_solution.as_deref())?;
        conflict.blockers.extend(blockers.iter().cloned());
        let start = plans.len();
        let mut notes = Vec::new();
        let mut failed = None;
        let mut keep = |kind: &str, found: Result<Option<Plan>, ProposeError>| {
            let found = found.map(Vec::from_iter);
            keep_searched(kind, found, plans, warnings, &mut failed)
        };
        keep(
            "move-the-blockers",
            self.move_implied_blockers(upgrade, &blockers, &needs, &mut notes),
        );
        // A target whose own release blocks what another's imports need is the one relaxed
        // (the others stay as asked); else each target is.
        let relaxing = self.blocking_targets(resolution, &needs)?;
        let mut fitted = None;
        for (relaxed, why) in &relaxing {
            fitted = self.fitting_relaxing(targets, relaxed, &blockers, why, &mut notes)?;
            if fitted.is_some() {
                break;
            }
        }
        match fitted {
            Some(plan) => keep("newest-fitting", Ok(Some(plan))),
            None => keep(
                "newest-fitting",
                self.newest_fitting(targets, &blockers, &mut notes),
            ),
        }
        if let Some(err) = failed {
            return Err(err);
        }
        let found = plans.len() > start;
        // Forced, the request is the plan as asked, past what its import needs.
        if self.request.allow_override {
            plans.push(self.forced_past_import(resolution, &implied)?);
        }
        if !found && let Some((_, built)) = self.wheel_lack_built(&implied) {
            conflict.hints.push(format!(
                "as asked, the request cannot be met with wheels on CPython {}: {}, and no \
                 release that meets it has a wheel for this interpreter and platform; \
                 `--allow-build` plans it by building {built} from its sdist at install",
                self.inventory.environment.python_version,
                needs.needed_on_import(),
            ));
        }
        warnings.extend(notes);
        Ok(conflict)
    }

    /// The installed dists whose requirements exclude every release of a provider that meets
    /// what the imports imply (`werkzeug<3.0.0`: Flask 3.1.2's `Werkzeug>=3.1`). None for a
    /// requirement no release meets here (`markupsafe<2.1.0` on CPython 3.12: only source
    /// distributions), which no installed requirement is to blame for; and no target (what the
    /// user asked is not moved for them).
    fn implied_blockers(
        &self,
        implied: &[Requirement],
        no_solution: Option<&crate::solve::NoSolution>,
    ) -> Result<Vec<Blocker>, ProposeError> {
        let mut met = Vec::new();
        for requirement in implied {
            if !self.acceptable_versions(requirement)?.is_empty() {
                met.push(requirement.clone());
            }
        }
        let targets = &self.request.targets;
        Ok(self
            .blockers(&met, no_solution)?
            .into_iter()
            .filter(|b| !targets.iter().any(|t| t.name == b.dependent))
            .collect())
    }

    /// In a request of several targets, those asked by version whose planned release
    /// requires what excludes every release an import of the plan needs (`flask==3.1.2` beside
    /// `flask-login==0.6.2`: Flask 3.1.2 requires `werkzeug>=3.1.0`, and Flask-Login 0.6.2's
    /// `flask_login/utils.py` line 14 needs `werkzeug<3.0.0`): each with that requirement and
    /// what it blocks ("what flask-login 0.6.2 imports (werkzeug<3.0.0)").
    #[allow(clippy::type_complexity)]
    fn blocking_targets(
        &self,
        resolution: &Resolution,
        needs: &ImportNeeds,
    ) -> Result<Vec<((Requirement, Requirement), String)>, ProposeError> {
        let targets = &self.request.targets;
        if targets.len() < 2 {
            return Ok(Vec::new());
        }
        let markers = &self.inventory.environment.markers;
        let planned = self.planned(resolution);
        let mut found = Vec::new();
        for need in &needs.needs {
            let implied = &need.implied;
            let acceptable = self.acceptable_versions(implied)?;
            if acceptable.is_empty() {
                continue; // no release meets it here: no target is to blame
            }
            let (importer, version) = &need.unmet.importer;
            for target in targets.iter().filter(|t| specifiers(t).is_some()) {
                let Some(dist) = planned.dists.get(&target.name) else {
                    continue;
                };
                let blocking = dist.requires_dist.iter().find(|r| {
                    r.name == implied.name
                        && applies_with(r, markers, &dist.extras)
                        && specifiers(r).is_some_and(|s| !acceptable.iter().any(|v| s.contains(v)))
                });
                let seen = found
                    .iter()
                    .any(|((t, _), _): &((Requirement, _), _)| t == target);
                if let Some(blocking) = blocking
                    && !seen
                    && &target.name != importer
                {
                    let why = format!("what {importer} {version} imports ({implied})");
                    found.push(((target.clone(), blocking.clone()), why));
                }
            }
        }
        Ok(found)
    }

    /// The blockers of the implied requirements moved (forward first, back only when no
    /// forward move exists) with those requirements, the plan built and scored with the
    /// request's targets and the providers' changes citing the imports. `None` (a note says
    /// why) when no move has a solution, or the plan found imports more than it was solved
    /// for.
    fn move_implied_blockers(
        &self,
        upgrade: &BTreeSet<PackageName>,
        blockers: &[Blocker],
        needs: &ImportNeeds,
        notes: &mut Vec<String>,
    ) -> Result<Option<Plan>, ProposeError> {
        if blockers.is_empty() {
            return Ok(None);
        }
        let targets = &self.request.targets;
        let implied = needs.requirements();
        let mut moving = upgrade.clone();
        moving.extend(needs.needs.iter().map(|n| n.unmet.provider.0.clone()));
        let named = blockers
            .iter()
            .map(|b| format!("{} {}", b.dependent, b.dependent_version))
            .collect::<Vec<_>>()
            .join(", ");
        let Some((mut plan, planned)) =
            self.move_blockers_planned(targets, &implied, &moving, blockers)?
        else {
            let lack = self
                .wheel_lack(&implied)
                .map_or_else(String::new, |l| format!(": {l}"));
            notes.push(format!(
                "no move of the blockers of {} ({named}) has a solution with it{lack}",
                super::join(&implied)
            ));
            return Ok(None);
        };
        let fresh = self
            .import_needs(&planned, &plan.changes)
            .needs
            .into_iter()
            .filter(|n| !needs.has(&n.unmet))
            .count();
        if fresh > 0 {
            notes.push(format!(
                "the plan that moves the blockers of {} ({named}) imports names its planned \
                 dependencies lack, and is not offered",
                super::join(&implied)
            ));
            return Ok(None);
        }
        needs.cited().cite(&mut plan);
        notes.push(format!(
            "{}; the blockers ({named}) are moved with it",
            needs.why()
        ));
        Ok(Some(plan))
    }
}
