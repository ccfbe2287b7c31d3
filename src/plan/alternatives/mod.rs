//! The search for plans: the request as asked, and when it cannot be had, the alternatives.
//!
//! Every solve is a whole-environment solve: the root requires every installed dist (preferred
//! at its installed version), so each installed `Requires-Dist` stays in force and a plan never
//! silently breaks a dist the user did not mention. Dists installed from outside the index
//! (direct URL, VCS, editable, egg-info) are pinned to their installed version: never replaced.
//! A bare target (a name without a version) leaves the coupled groups it is not in where they
//! are (`propose setuptools` never moves torch); one held back by installed dists also gets a
//! forward move of them (its own coupled stack included, newest release line first).
//!
//! When a target cannot be had, the alternatives are, each a complete plan:
//! 1. **move the blockers** forward: the dists whose requirements exclude the target are
//!    upgraded too, nothing installed goes back (when that fails, the dists the failure involves
//!    join them, a few rounds at most); only when no forward move exists, **downgrade the
//!    blockers**, scored with its real costs;
//! 2. **the newest target that fits**: the target's name without its specifier (for an exact
//!    pin, the closest release to it that fits);
//! 3. **a forced override** (only with `--allow-override`): the target overrides the
//!    requirements on its name only on the edges from the blockers (edge-scoped), and each
//!    violated `Requires-Dist` is recorded with its dependent. A request that cannot be met
//!    because of what its release imports (`wheel_only`) is forced as planned without that.
//!
//! When the request as asked installs a release whose own files raise on import beside the plan
//! (a test of another dist's version: pyarrow 26.0.1 beside numpy 1), the request is solved again
//! with what the test implies (`version_implied`): the tested dist moved to what the release
//! needs, and the newest release below those whose test fails; the failing plan itself only
//! forced, under `--allow-override`.
//!
//! Beside them, when every plan that moves a target leaves the installed accelerator line
//! (CUDA 12 -> 13, or 12 -> 11 for `torch<2.9`), **stay on the line**: the target's newest
//! release that keeps it and meets its specifier, older than the installed one when the
//! specifier asks so ([`same_line`]), ranked before the switch; for a target with no line of its own (triton),
//! moved with the installed dists that carry the line, up to their newest release on it.
//!
//! Beside them, when the lowest-risk plan that delivers the request breaks installed dependents
//! by its own evidence, **move what must move with it** ([`super::must_move`]).
//!
//! Plans that deliver the targets are ranked by risk (lowest first; one whose own factors
//! predict a break after every one whose factors do not), then the newest that fits;
//! a plan that leaves the accelerator line (CUDA 13 -> 12) comes after all of them. For bare
//! targets held back, a plan that moves one forward with no predicted break comes before "no
//! change". The first plan is the recommendation. What the plans' evidence reads from the index and the installed
//! files is [`super::oracle::IndexAndFiles`].
//!
//! The search's parts, each an `impl` of [`Proposer`]: the whole-environment solves every
//! alternative runs (`whole`), the request as asked and the forward move of what holds a bare
//! target back (`as_asked`), the environment broken before the plan (`broken`), the blockers
//! moved or forced over (`blockers`), the closest / newest that fits (`fitting`), the newest
//! release on the installed accelerator line (`same_line`), a request whose plan imports what
//! only releases without a wheel here have (`wheel_only`), the blockers and the fitting release
//! of a request whose import need no solution with it has (`unmet_import`), a request whose
//! planned release raises on import beside the plan (`version_implied`), and one plan
//! built and scored with what holds its targets back (`held_back`).

mod as_asked;
mod blockers;
mod broken;
mod fitting;
mod held_back;
mod same_line;
mod unmet_import;
pub(in crate::plan) mod version_implied;
pub(crate) use same_line::line_names;
mod wheel_only;
mod whole;

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use jiff::Timestamp;
use pep508_rs::{PackageName, Requirement};

use super::builder::PlanBuilder;
use super::installed_imports::InstalledImports;
use super::oracle::IndexAndFiles;
use super::proposal::{
    Blocker, Conflict, EnvironmentSummary, Layer, LayerChoice, LayerKind, PROPOSAL_SCHEMA, Plan,
    PlanKind, Proposal, Request,
};
use crate::index::{BinaryPolicy, IndexError, IndexSource};
use crate::inventory::Inventory;
use crate::metadata::CoreMetadata;
use crate::metadata::requirement::pin;
use crate::risk::Policy;
use crate::solve::{self, Catalog, CatalogCore, HintKind, PrereleaseMode, Resolution, SolveError};

use wheel_only::Implied;
use whole::WholeEnvironment;

/// What `propose` was asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProposeRequest {
    /// Targets (PEP 508).
    pub targets: Vec<Requirement>,
    /// Upgrade everything that can move.
    pub all: bool,
    /// With `all` and no targets: which layers (`None`: safe, group and major; see
    /// [`super::layers`]).
    pub layer: Option<LayerChoice>,
    /// Offer a forced override when a target cannot be had otherwise.
    pub allow_override: bool,
    /// Pre-release policy.
    pub prerelease: PrereleaseMode,
    /// `--only-binary` / `--no-binary` (`--only-binary :all:` unless builds are allowed).
    pub binary: BinaryPolicy,
    /// `--allow-build`: sdists may be planned (and built by the commands).
    pub allow_build: bool,
    /// When the plan is made (release ages); `None` skips the age factor.
    pub now: Option<Timestamp>,
    /// Where the environment was read from (for the summary).
    pub source: String,
}

/// Why no proposal could be made (a "no" is not an error: it is a proposal without plans).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum ProposeError {
    /// The solver failed for another reason than "no solution".
    #[error(transparent)]
    #[diagnostic(transparent)]
    Solve(Box<SolveError>),
    /// The index failed.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Index(#[from] IndexError),
}

/// Whether an alternative failed because the index did (never a release's own metadata: the
/// solver takes such a release as unusable and goes on).
fn index_failed(err: &ProposeError) -> bool {
    match err {
        ProposeError::Solve(solve) => matches!(**solve, SolveError::Index { .. }),
        ProposeError::Index(_) => true,
    }
}

/// One searched alternative kept: its plans added; an index failure remembered in `failed`
/// (the tool failing: the caller returns it, exit 2); any other failure a warning, the other
/// alternatives still standing.
fn keep_searched(
    kind: &str,
    found: Result<Vec<Plan>, ProposeError>,
    plans: &mut Vec<Plan>,
    warnings: &mut Vec<String>,
    failed: &mut Option<ProposeError>,
) {
    match found {
        Ok(found) => plans.extend(found),
        Err(err) if index_failed(&err) => {
            failed.get_or_insert(err);
        }
        Err(err) => warnings.push(format!(
            "the {kind} alternative could not be searched: {}",
            error_chain(&err)
        )),
    }
}

impl From<SolveError> for ProposeError {
    fn from(err: SolveError) -> Self {
        ProposeError::Solve(Box::new(err))
    }
}

/// Make a proposal.
pub(crate) fn propose(
    index: &dyn IndexSource,
    inventory: &Inventory,
    policy: &Policy,
    request: &ProposeRequest,
) -> Result<Proposal, ProposeError> {
    propose_sharing(index, inventory, policy, request, &Arc::default())
}

/// [`propose`] over the imports already read of the same inventory (`outdated` proposes once
/// per dist on an accelerator line: [`InstalledImports`]).
pub(crate) fn propose_sharing(
    index: &dyn IndexSource,
    inventory: &Inventory,
    policy: &Policy,
    request: &ProposeRequest,
    imports: &Arc<InstalledImports>,
) -> Result<Proposal, ProposeError> {
    let _stage = crate::logging::Stage::start("plan");
    let whole = WholeEnvironment::new(inventory, request.all);
    // Every solve of the proposal prefers the same installed set under the same policy, so
    // they share one core: each project's table and each release's metadata are read once.
    let installed: HashMap<PackageName, Arc<CoreMetadata>> = whole
        .preferences
        .iter()
        .map(|(name, c)| (name.clone(), c.metadata.clone()))
        .collect();
    let core = CatalogCore::new(index, &inventory.environment, &request.binary, installed);
    Proposer {
        core: &core,
        evidence: IndexAndFiles::new(index, Catalog::new(&core, None), inventory).sharing(imports),
        inventory,
        request,
        builder: PlanBuilder::new(inventory, policy, request.now).sharing(imports),
        correspondences: policy
            .coupled
            .iter()
            .flat_map(|group| group.correspondences(&policy.name, bound_names(inventory, request)))
            .collect(),
        whole,
    }
    .run(policy)
}

/// What a coupled group's correspondences may bind: the installed, index-managed names, and the
/// targets not installed (a member being added is held to the installed anchor's release as a
/// member being moved is: `propose jax-cuda12-plugin` under jax 0.11.2 adds plugin 0.11.2).
fn bound_names<'i>(inventory: &'i Inventory, request: &'i ProposeRequest) -> Vec<&'i PackageName> {
    let mut names: Vec<&PackageName> = inventory
        .dists
        .iter()
        .filter(|d| !d.is_unmanaged())
        .map(|d| d.name())
        .collect();
    names.extend(
        request
            .targets
            .iter()
            .map(|t| &t.name)
            .filter(|name| inventory.get(name).is_none()),
    );
    names
}

/// The search. Its index reads go through the evidence's catalog; the solver gets the core.
pub(super) struct Proposer<'a> {
    /// What the index offers, shared by every solve (see [`CatalogCore`]).
    core: &'a CatalogCore<'a>,
    /// The index (through the catalog) and the installed files, as the plan builder asks.
    pub(super) evidence: IndexAndFiles<'a>,
    pub(super) inventory: &'a Inventory,
    pub(super) request: &'a ProposeRequest,
    builder: PlanBuilder<'a>,
    /// The policy's version correspondences among installed coupled members.
    correspondences: Vec<solve::Correspondence>,
    /// What every solve starts from.
    whole: WholeEnvironment,
}

impl Proposer<'_> {
    /// What the inventory itself warns of: a name installed twice, an unmanaged dist kept as
    /// it is, a dist that could not be read.
    fn inventory_warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        let mut seen = BTreeSet::new();
        for dist in &self.inventory.dists {
            if !seen.insert(dist.name().clone()) {
                warnings.push(format!(
                    "{} is installed twice; the plan keeps the first copy ({})",
                    dist.name(),
                    dist.path.display()
                ));
            } else if dist.is_unmanaged() {
                warnings.push(format!(
                    "{} {} was installed from {} and is kept as it is (never replaced from the index)",
                    dist.name(),
                    dist.version(),
                    dist.source_label()
                ));
            }
        }
        for unreadable in &self.inventory.unreadable {
            warnings.push(format!(
                "{} could not be read ({}); its requirements are not planned for",
                unreadable.path.display(),
                unreadable.reason
            ));
        }
        warnings
    }

    /// The search, in the order of the module's top comment: the request as asked and, when it
    /// has no solution, the alternatives; then the plan that moves what must move with the
    /// lowest-risk plan that breaks installed dependents; then the ranking.
    fn run(&self, policy: &Policy) -> Result<Proposal, ProposeError> {
        let mut warnings = self.inventory_warnings();
        let upgrade = self.upgrade_names();
        // A layered `--all` (no targets): safe, group and major plans, or one layer of them.
        let layered = self.request.all && self.request.targets.is_empty();
        if layered && self.request.layer != Some(LayerKind::Everything) {
            let plans = self.layered(policy, &upgrade, &mut warnings)?;
            return Ok(self.proposal(policy, None, plans, warnings));
        }
        let mut plans = Vec::new();
        let (conflict, own_stack) = self.search(policy, &upgrade, &mut plans, &mut warnings)?;
        self.add_move_dependents(&mut plans, &upgrade, &mut warnings)?;
        self.rank(policy, &mut plans, own_stack);
        if layered {
            label_everything(&mut plans);
        }
        Ok(self.proposal(policy, conflict, plans, warnings))
    }

    /// The names the solver may move: the targets, and under `--all` every index-managed dist.
    fn upgrade_names(&self) -> BTreeSet<PackageName> {
        let mut upgrade: BTreeSet<PackageName> = self
            .request
            .targets
            .iter()
            .map(|t| t.name.clone())
            .collect();
        if self.request.all {
            upgrade.extend(
                self.inventory
                    .dists
                    .iter()
                    .filter(|d| !d.is_unmanaged())
                    .map(|d| d.name().clone()),
            );
        }
        upgrade
    }

    /// The request as asked, into `plans` with what is offered beside it; when it has no
    /// solution, the conflict and the alternatives. Also whether a bare target is held back by
    /// its own coupled stack, which a plan moves forward (that plan then ranks first).
    fn search(
        &self,
        policy: &Policy,
        upgrade: &BTreeSet<PackageName>,
        plans: &mut Vec<Plan>,
        warnings: &mut Vec<String>,
    ) -> Result<(Option<Conflict>, bool), ProposeError> {
        let targets = &self.request.targets;
        let target_names: BTreeSet<PackageName> = targets.iter().map(|t| t.name.clone()).collect();
        // Installed requirements that exclude every acceptable version of a target. The request
        // "as asked" keeps them where they are (pinned), so that moving them is an alternative
        // the user sees and chooses, not a side effect.
        let scanned = self.blockers(targets, None)?;
        let mut as_asked = targets.clone();
        as_asked.extend(
            scanned
                .iter()
                .filter(|b| !target_names.contains(&b.dependent))
                .map(|b| pin(&b.dependent, &b.dependent_version)),
        );
        let bounds = self.as_asked_bounds(policy, targets);
        let found = match self.solve_with(&as_asked, upgrade, vec![], bounds.clone()) {
            // The plan imports a name that only older releases of a dependency have: the
            // request needs them (see `wheel_only`).
            Ok(resolution) => {
                match self.import_implied(&as_asked, upgrade, &bounds, &resolution)? {
                    // The blockers of what the import needs, and the plans around them.
                    Some(Implied::Unmet(unmet)) => (
                        Some(self.unmet_import(upgrade, &resolution, *unmet, plans, warnings)?),
                        false,
                    ),
                    Some(Implied::Met(resolution, why, cited)) => {
                        warnings.push(why);
                        let start = plans.len();
                        let own_stack =
                            self.as_asked_plans(policy, &as_asked, upgrade, &resolution, plans)?;
                        plans[start..].iter_mut().for_each(|p| cited.cite(p));
                        (None, own_stack)
                    }
                    None => {
                        // A planned release raises on import through a test of another dist's
                        // version in its own files: the request needs what the test implies
                        // (see `version_implied`).
                        match self.version_implied(&as_asked, upgrade, &bounds, &resolution)? {
                            Some(found) => {
                                let stay = self.stay_beside_implied(policy, &as_asked, &found);
                                plans.extend(stay?);
                                plans.extend(found.plans);
                                // What is offered beside the request as asked, but a plan where
                                // a failing test holds (the release beside a version the test
                                // rejects).
                                let plan = self.as_asked_plan(upgrade, &resolution)?;
                                let (before, after, own_stack) =
                                    self.beside_as_asked(policy, &as_asked, upgrade, &plan)?;
                                let imports =
                                    |p: &Plan| !found.failing.iter().any(|c| c.holds_for(&p.pins));
                                // Whether the plan that moves the target's own stack stays.
                                let own_stack = own_stack && after.iter().all(imports);
                                plans.extend(before.into_iter().chain(after).filter(imports));
                                if found.conflict.is_none() {
                                    warnings.extend(found.notes);
                                }
                                (found.conflict, own_stack)
                            }
                            None => {
                                let own_stack = self.as_asked_plans(
                                    policy,
                                    &as_asked,
                                    upgrade,
                                    &resolution,
                                    plans,
                                )?;
                                (None, own_stack)
                            }
                        }
                    }
                }
            }
            Err(SolveError::NoSolution(no_solution)) => {
                let conflict = self.alternatives(upgrade, &no_solution, plans, warnings)?;
                (Some(conflict), false)
            }
            Err(err) => return Err(err.into()),
        };
        // Every plan that moves a target leaves the accelerator line: the newest release that
        // stays on it (and meets the target's specifier) is offered too (and ranks first).
        match self.same_line(&bounds, upgrade, plans) {
            Ok(Some(plan)) => plans.push(plan),
            Ok(None) => {}
            Err(err) if index_failed(&err) => return Err(err),
            Err(err) => warnings.push(format!(
                "the same-accelerator-line alternative could not be searched: {}",
                error_chain(&err)
            )),
        }
        Ok(found)
    }

    /// The plan as asked, and beside it ([`Self::beside_as_asked`]) what else is offered.
    /// Returns whether a plan beside it moves the target's own coupled stack.
    fn as_asked_plans(
        &self,
        policy: &Policy,
        as_asked: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        resolution: &Resolution,
        plans: &mut Vec<Plan>,
    ) -> Result<bool, ProposeError> {
        let plan = self.as_asked_plan(upgrade, resolution)?;
        let (before, after, own_stack) = self.beside_as_asked(policy, as_asked, upgrade, &plan)?;
        plans.extend(before);
        plans.extend(self.stay_beside(policy, as_asked, upgrade, &plan)?);
        plans.push(plan);
        plans.extend(after);
        Ok(own_stack)
    }

    /// [`Self::stay_beside`] where the request was solved again with what a version test
    /// implies (`version_implied`): beside the first plan it found that takes a dist far back
    /// (moving numpy to 2 takes transfo 4.5.0, which requires `numpy<2`, back to 1.0.0).
    fn stay_beside_implied(
        &self,
        policy: &Policy,
        as_asked: &[Requirement],
        found: &version_implied::VersionImplied,
    ) -> Result<Option<Plan>, ProposeError> {
        let upgrade = &self.upgrade_names();
        let far =
            (found.plans.iter()).find(|p| p.kind != PlanKind::ForcedOverride && goes_far_back(p));
        let Some(far) = far else {
            return Ok(None);
        };
        let stay = self.stay_beside(policy, as_asked, upgrade, far)?;
        let Some(mut stay) = stay.filter(|p| !found.failing.iter().any(|c| c.holds_for(&p.pins)))
        else {
            return Ok(None);
        };
        // Its held-back line says what holds the target: the test, not a requirement.
        for check in &found.failing {
            version_implied::held_below(&mut stay, check, &check.release.1.to_string());
        }
        Ok(Some(stay))
    }

    /// A bare request whose plan as asked moves a target up only by taking a dist not asked
    /// about back across a major line or by years, its own evidence predicting a break
    /// (`propose tokenizers` taking transformers 4.57.6 back to 4.17.0, which breaks peft's
    /// imports): the plan that keeps the targets where they are, titled with what the move would
    /// take back; its held-back lines say why no newer release is planned. It ranks before the
    /// far downgrade, which is still offered. A far downgrade predicting no break stays the
    /// answer (`propose celery` taking python-dateutil 4.0.0 back to 2.9.0.post0).
    fn stay_beside(
        &self,
        policy: &Policy,
        as_asked: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        plan: &Plan,
    ) -> Result<Option<Plan>, ProposeError> {
        let targets = &self.request.targets;
        if self.request.all
            || targets.iter().any(|t| t.version_or_url.is_some())
            || !goes_far_back(plan)
            || !plan.predicts_break()
            || !self.moves_a_target_up(plan)
        {
            return Ok(None);
        }
        let mut stays = Vec::new();
        let mut kept: Vec<Requirement> = as_asked.to_vec();
        for target in targets {
            let Some(dist) = self.inventory.get(&target.name) else {
                return Ok(None);
            };
            stays.push(format!("{} stays at {}", target.name, dist.version()));
            kept.retain(|r| r.name != target.name);
            kept.push(pin(&target.name, dist.version()));
        }
        let bounds = self.as_asked_bounds(policy, targets);
        let resolution = match self.solve_with(&kept, upgrade, vec![], bounds) {
            Ok(resolution) => resolution,
            Err(SolveError::NoSolution(_)) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let back: Vec<String> = plan
            .changes
            .iter()
            .filter(|c| !targets.iter().any(|t| t.name == c.name))
            .filter_map(|c| match (&c.from, &c.to) {
                (Some(from), Some(to)) if to < from => Some(format!("{} {from} -> {to}", c.name)),
                _ => None,
            })
            .collect();
        let title = format!(
            "No change: {}; a newer release is planned only by taking back {}",
            stays.join(", "),
            back.join(", ")
        );
        let planned = self.planned(&resolution);
        self.plan(PlanKind::NoChange, title, targets, &planned, &[])
            .map(Some)
    }

    /// The plan of the request as asked, solved as `resolution`. The unlayered `--all` is solved
    /// again around its planned releases' own import tests, as every layer is.
    fn as_asked_plan(
        &self,
        upgrade: &BTreeSet<PackageName>,
        resolution: &Resolution,
    ) -> Result<Plan, ProposeError> {
        let targets = &self.request.targets;
        let planned = self.planned(resolution);
        if self.request.all {
            let title = "Upgrade everything that can move".to_string();
            let plan = self.plan(PlanKind::Upgrade, title, targets, &planned, &[])?;
            return self.everything_tested(upgrade, planned, plan);
        }
        let title = format!("As asked: {}", join(targets));
        self.plan(PlanKind::Upgrade, title, targets, &planned, &[])
    }

    /// Beside the request as asked (`plan`): before it, the same request leaving the
    /// environment as broken as it was (when the plan repairs it); after it, the forward repair
    /// or the forward move of the installed dists that hold a bare target back; and whether
    /// that plan moves the target's own coupled stack.
    fn beside_as_asked(
        &self,
        policy: &Policy,
        as_asked: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        plan: &Plan,
    ) -> Result<(Vec<Plan>, Vec<Plan>, bool), ProposeError> {
        let mut before = Vec::new();
        let targets = &self.request.targets;
        let repairs = plan.changes.iter().any(|c| c.repair);
        let held: Vec<Blocker> = self.held_by_installed(targets, plan);
        if !self.request.all {
            let already_broken = self.already_broken();
            if repairs {
                before.extend(self.keep_broken(as_asked, targets, upgrade, &already_broken)?);
            }
            // A bare target that an edge broken before the plan requires newer: the plan that
            // repairs it forward does what was asked, and ranks before those leaving the
            // target.
            if let Some(forward) = self.repair_forward(upgrade, plan, &already_broken)? {
                return Ok((before, vec![forward], true));
            }
        }
        // A bare target held back by installed dists: moving them forward is offered beside it
        // (recommended only when they are the target's own coupled stack).
        if !held.is_empty()
            && let Some(moved) = self.move_held_back(policy, targets, upgrade, &held)?
        {
            let own_stack = self.moves_a_target(&moved)
                && held
                    .iter()
                    .all(|b| same_group(policy, &b.dependent, targets));
            return Ok((before, vec![moved], own_stack));
        }
        Ok((before, Vec::new(), false))
    }

    /// When the request as asked has no solution: the conflict (the solver's explanation, the
    /// blockers, the hints) and the alternatives, into `plans`.
    fn alternatives(
        &self,
        upgrade: &BTreeSet<PackageName>,
        no_solution: &solve::NoSolution,
        plans: &mut Vec<Plan>,
        warnings: &mut Vec<String>,
    ) -> Result<Conflict, ProposeError> {
        let targets = &self.request.targets;
        // A target no release matches has no blockers (see `no_release`).
        let unmatched = self.targets_without_release(targets)?;
        let nothing = |name: &PackageName| unmatched.iter().any(|(n, _)| n == name);
        let (blockers, moot): (Vec<Blocker>, Vec<Blocker>) = self
            .blockers(targets, Some(no_solution))?
            .into_iter()
            .partition(|b| !nothing(&b.requirement.name));
        let mut hints: Vec<String> = unmatched.iter().map(|(_, h)| h.clone()).collect();
        hints.extend(self.conflict_hints(&no_solution.hints, &moot));
        let conflict = Conflict {
            explanation: no_solution.report.clone(),
            blockers: blockers.clone(),
            hints,
        };
        // An alternative that cannot be searched is reported and skipped; the others still
        // stand. But the index failing (`--offline` without an entry, a cache entry cut short,
        // the network, a cap or a deadline) is the tool failing, exit 2 as the docs say, not
        // "no plan found".
        // Moved with what the moved plan's import implies (see `wheel_only`).
        let moved = self.move_blockers_importing(targets, upgrade, &blockers);
        let mut notes = Vec::new();
        let mut failed = None;
        let mut keep = |kind: &str, found: Result<Vec<Plan>, ProposeError>| {
            keep_searched(kind, found, plans, warnings, &mut failed)
        };
        let moved = moved.map(|found| {
            notes.extend(found.note);
            found.plans
        });
        keep("move-the-blockers", moved);
        let fitting = self.newest_fitting(targets, &blockers, &mut notes);
        keep("newest-fitting", fitting.map(Vec::from_iter));
        if self.request.allow_override {
            let forced = self.forced(targets, upgrade, &blockers);
            keep("forced-override", forced.map(Vec::from_iter));
        }
        if let Some(err) = failed {
            return Err(err);
        }
        warnings.extend(notes);
        Ok(conflict)
    }

    /// The lowest-risk plan that delivers the request but breaks installed dependents, as its
    /// own evidence says (on import or when a function runs, [`Plan::call_time_breaks`]): the alternative that moves them along, into `plans` (the same
    /// environment as a plan already offered is not offered twice).
    fn add_move_dependents(
        &self,
        plans: &mut Vec<Plan>,
        upgrade: &BTreeSet<PackageName>,
        warnings: &mut Vec<String>,
    ) -> Result<(), ProposeError> {
        let breaking = plans
            .iter()
            .filter(|p| {
                p.kind != PlanKind::NewestFitting
                    && !(p.breaks.is_empty() && p.call_time_breaks().is_empty())
            })
            .min_by_key(|p| p.risk.score);
        let Some(base) = breaking else {
            return Ok(());
        };
        match self.move_dependents(base, &self.request.targets, upgrade) {
            Ok(Some(found)) if plans.iter().all(|p| p.pins != found.pins) => plans.push(found),
            Ok(_) => {}
            Err(err) if index_failed(&err) => return Err(err),
            Err(err) => warnings.push(format!(
                "the move-dependents alternative could not be searched: {}",
                error_chain(&err)
            )),
        }
        Ok(())
    }

    /// Plans that deliver the targets first, lowest risk first; the compromise (the newest that
    /// fits) after them, whatever its risk: the recommendation answers the request. A plan whose
    /// own evidence predicts a break (on import, or when a function of a kept dist runs: scrapy
    /// 2.8.0's `_handleSignals` under twisted 23.8.0) comes after every delivering plan whose
    /// evidence does not.
    /// A plan that leaves the accelerator line comes after every plan that stays on it (the
    /// forced override and the newest that fits included). A plan that takes a dist not asked
    /// about back across a major line or by years comes after every other plan (offered, never
    /// recommended beside one); a nearer one after every plan that delivers the targets moving
    /// nothing back. A plan that moves no target while
    /// another moves the target's own coupled stack (`own_stack`) comes after that one. For bare
    /// targets, when a plan moves a target forward with nothing its evidence says breaks (on the
    /// line, nothing taken far back), it comes before the plans that move no target ("no
    /// change": tensorflow held by tf-keras 2.20.1 is recommended with tf-keras moved), and
    /// those before the plans that move a target predicting a break; a plan that drags a
    /// coupled stack no target belongs to (setuptools moving torch) is never promoted so.
    fn rank(&self, policy: &Policy, plans: &mut [Plan], own_stack: bool) {
        let targets = &self.request.targets;
        let bare = !self.request.all
            && !targets.is_empty()
            && targets.iter().all(|t| t.version_or_url.is_none());
        let forward = |plan: &Plan| {
            self.moves_a_target_up(plan)
                && !plan.predicts_break()
                && !switches_accelerator(plan)
                && !goes_far_back(plan)
                && !drags_a_stack(policy, plan)
        };
        let held = bare && plans.iter().any(forward);
        let tier = |plan: &Plan| match () {
            _ if !held || forward(plan) => 0,
            _ if !self.moves_a_target(plan) => 1,
            _ => 2,
        };
        plans.sort_by_key(|plan| {
            (
                own_stack && !self.moves_a_target(plan),
                switches_accelerator(plan),
                goes_far_back(plan),
                tier(plan),
                plan.kind == PlanKind::NewestFitting,
                takes_back_unasked(plan),
                plan.predicts_break() || !plan.call_time_breaks().is_empty(),
                plan.risk.score,
            )
        });
    }

    /// The proposal document around the plans found.
    fn proposal(
        &self,
        policy: &Policy,
        conflict: Option<Conflict>,
        plans: Vec<Plan>,
        warnings: Vec<String>,
    ) -> Proposal {
        Proposal {
            schema: PROPOSAL_SCHEMA.to_string(),
            planner_version: env!("CARGO_PKG_VERSION").to_string(),
            environment: self.summary(),
            request: Request {
                targets: self.request.targets.clone(),
                all: self.request.all,
                allow_override: self.request.allow_override,
                allow_build: self.request.allow_build,
                policy: policy.name.clone(),
                layer: self.request.layer.filter(|_| self.request.all),
            },
            already_broken: self.already_broken(),
            conflict,
            plans,
            warnings,
        }
    }

    /// The solver's hints, in words for `propose`: a release ruled out only because it needs a
    /// build says how to allow one.
    /// A blocker-versions hint about a `moot` blocker (of a target no release matches) is left
    /// out.
    fn conflict_hints(&self, hints: &[solve::Hint], moot: &[Blocker]) -> Vec<String> {
        hints
            .iter()
            .filter(|h| {
                h.kind != HintKind::BlockerVersions || moot.iter().all(|b| b.dependent != h.package)
            })
            .map(|h| match h.kind {
                HintKind::BinaryPolicy if !self.request.allow_build => {
                    match self.build_would_not_help(&h.package) {
                        Some(why) => format!("{}; {why}", h.message),
                        None => format!(
                            "{}; planner plans with wheels only, as the commands it prints \
                             install (`--only-binary :all:`, `uv --no-build`): `--allow-build` \
                             plans with source distributions, built at install",
                            h.message
                        ),
                    }
                }
                _ => h.message.clone(),
            })
            .collect()
    }

    /// The environment the proposal is for.
    fn summary(&self) -> EnvironmentSummary {
        let env = &self.inventory.environment;
        EnvironmentSummary {
            source: self.request.source.clone(),
            python_version: env.python_version.to_string(),
            platform: format!(
                "{} {}",
                env.markers.sys_platform(),
                env.markers.platform_machine()
            ),
            dists: self.inventory.dists.len(),
        }
    }
}

/// An error and its sources, on one line.
pub(crate) fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Whether `name` is in a coupled group with one of the targets.
fn same_group(policy: &Policy, name: &PackageName, targets: &[Requirement]) -> bool {
    policy
        .coupled
        .iter()
        .any(|g| g.contains(name) && targets.iter().any(|t| g.contains(&t.name)))
}

/// Whether `plan` moves an installed dist of a coupled stack (a group of two or more, not
/// numpy's compiled dependents) that none of its targets belongs to.
fn drags_a_stack(policy: &Policy, plan: &Plan) -> bool {
    plan.changes
        .iter()
        .filter(|c| c.from.is_some() && c.from != c.to)
        .filter(|c| !plan.targets.iter().any(|t| t.name == c.name))
        .any(|c| {
            policy.coupled.iter().any(|g| {
                g.members.len() >= 2
                    && !g.compiled_dependents
                    && g.contains(&c.name)
                    && !plan.targets.iter().any(|t| g.contains(&t.name))
            })
        })
}

/// The plans of an unlayered `--all` asked as the `everything` layer, labelled as that layer.
fn label_everything(plans: &mut [Plan]) {
    for plan in plans {
        plan.layer = Some(Layer {
            kind: LayerKind::Everything,
            name: "everything".into(),
            base: None,
            own: plan.changes.iter().map(|c| c.name.clone()).collect(),
            moves: vec![],
        });
    }
}

/// Whether a plan takes a dist it was not asked about back across a major line or by years
/// (the `downgrade-distance` factor): offered, ranked after every other plan.
fn goes_far_back(plan: &Plan) -> bool {
    plan.risk
        .factors
        .iter()
        .any(|f| f.kind == crate::risk::FactorKind::DowngradeDistance)
}

/// Whether a plan moves a dist its targets do not name back while no target goes back: it
/// ranks after every plan that delivers the targets moving nothing back.
fn takes_back_unasked(plan: &Plan) -> bool {
    let back =
        |c: &&super::proposal::Change| matches!((&c.from, &c.to), (Some(f), Some(t)) if t < f);
    let targeted = |c: &&super::proposal::Change| plan.targets.iter().any(|t| t.name == c.name);
    let changes = || plan.changes.iter().filter(back);
    changes().any(|c| !targeted(&c)) && !changes().any(|c| targeted(&c))
}

/// Whether a plan carries the accelerator-line-switch factor.
pub(crate) fn switches_accelerator(plan: &Plan) -> bool {
    plan.risk
        .factors
        .iter()
        .any(|f| f.kind == crate::risk::FactorKind::AcceleratorLineSwitch)
}

fn join(requirements: &[Requirement]) -> String {
    requirements
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
