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
//!    violated `Requires-Dist` is recorded with its dependent.
//!
//! Beside them, when the lowest-risk plan that delivers the request breaks installed dependents
//! by its own evidence, **move what must move with it** ([`super::must_move`]).
//!
//! Plans that deliver the targets are ranked by risk (lowest first; one whose own factors
//! predict a break after every one whose factors do not), then the newest that fits;
//! a plan that leaves the accelerator line (CUDA 13 -> 12) comes after all of them. The first
//! plan is the recommendation. What the plans' evidence reads from the index and the installed
//! files is [`super::oracle::IndexAndFiles`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use jiff::Timestamp;
use pep440_rs::{Operator, Version, VersionSpecifier, VersionSpecifiers};
use pep508_rs::{PackageName, Requirement, VersionOrUrl};
use pubgrub::Ranges;

use super::builder::{PlanBuilder, PlanSpec};
use super::oracle::IndexAndFiles;
use super::planned::{PlanDist, PlannedEnvironment, applies_with};
use super::proposal::{
    Blocker, BrokenEdge, Conflict, EnvironmentSummary, HeldBack, Layer, LayerChoice, LayerKind,
    PROPOSAL_SCHEMA, Plan, PlanKind, Proposal, Reason, Request, UnmatchedMember,
};
use crate::index::{BinaryPolicy, IndexError, IndexSource};
use crate::inventory::Inventory;
use crate::inventory::check::{self, Finding};
use crate::metadata::CoreMetadata;
use crate::risk::{DeclaredCoupling, Policy, requirement_text};
use crate::solve::{
    self, AcceptingQuery, Among, Catalog, CatalogCore, FactPackage, HintKind, InstalledCandidate,
    Override, PrereleaseMode, Resolution, ResolvedSource, SolveError, SolveRequest,
};

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
        evidence: IndexAndFiles::new(index, Catalog::new(&core, None), inventory),
        inventory,
        request,
        builder: PlanBuilder::new(inventory, policy, request.now),
        correspondences: policy
            .coupled
            .iter()
            .flat_map(|group| group.correspondences(&policy.name, installed_names(inventory)))
            .collect(),
        whole,
    }
    .run(policy)
}

/// What every whole-environment solve of a proposal starts from, built once: the root
/// requirements (every installed dist: index-managed ones by name, the others pinned), the
/// installed versions as preferences, and under `--all` the floors (each dist at or above its
/// installed version).
struct WholeEnvironment {
    requirements: Vec<Requirement>,
    preferences: BTreeMap<PackageName, InstalledCandidate>,
    floors: Vec<Requirement>,
}

impl WholeEnvironment {
    fn new(inventory: &Inventory, all: bool) -> Self {
        let mut requirements = Vec::new();
        let mut preferences = BTreeMap::new();
        let mut floors = Vec::new();
        for dist in &inventory.dists {
            if preferences.contains_key(dist.name()) {
                continue; // the first copy of a name wins
            }
            let requirement = if dist.is_unmanaged() {
                pin(dist.name(), dist.version())
            } else {
                bare(dist.name())
            };
            requirements.push(requirement);
            preferences.insert(dist.name().clone(), InstalledCandidate::from(dist));
        }
        // `--all` moves every dist up, never down: each stays at or above its installed
        // version (the installed set itself satisfies that, so the constraint never makes a
        // solvable request unsolvable; it stops the solver from trading a torch downgrade for
        // a newer nvidia-* wheel).
        if all {
            floors = preferences
                .keys()
                .filter_map(|name| inventory.get(name))
                .filter(|dist| !dist.is_unmanaged())
                .map(|dist| at_least(dist.name(), dist.version()))
                .collect();
        }
        WholeEnvironment {
            requirements,
            preferences,
            floors,
        }
    }
}

/// The installed, index-managed names (what a coupled group's correspondences may bind).
fn installed_names(inventory: &Inventory) -> Vec<&PackageName> {
    inventory
        .dists
        .iter()
        .filter(|d| !d.is_unmanaged())
        .map(|d| d.name())
        .collect()
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

    fn run(&self, policy: &Policy) -> Result<Proposal, ProposeError> {
        let mut warnings = self.inventory_warnings();
        let already_broken = self.already_broken();
        let targets = &self.request.targets;
        let target_names: BTreeSet<PackageName> = targets.iter().map(|t| t.name.clone()).collect();
        let mut upgrade = target_names.clone();
        if self.request.all {
            upgrade.extend(
                self.inventory
                    .dists
                    .iter()
                    .filter(|d| !d.is_unmanaged())
                    .map(|d| d.name().clone()),
            );
        }

        // A layered `--all` (no targets): safe, group and major plans, or one layer of them.
        let layered = self.request.all && targets.is_empty();
        if layered && self.request.layer != Some(LayerKind::Everything) {
            let plans = self.layered(policy, &upgrade, &mut warnings)?;
            return Ok(self.proposal(policy, None, plans, warnings));
        }
        let mut plans = Vec::new();
        let mut conflict = None;
        // A bare target held back by its own coupled stack, which a plan moves forward.
        let mut own_stack = false;
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
        match self.solve_with(&as_asked, &upgrade, vec![], bounds) {
            Ok(resolution) => {
                let planned = self.planned(&resolution);
                let title = if self.request.all {
                    "Upgrade everything that can move".to_string()
                } else {
                    format!("As asked: {}", join(targets))
                };
                let plan = self.plan(PlanKind::Upgrade, title, targets, &planned, &[])?;
                let repairs = plan.changes.iter().any(|c| c.repair);
                let held: Vec<Blocker> = self.held_by_installed(targets, &plan);
                plans.push(plan);
                if repairs && !self.request.all {
                    plans.extend(self.keep_broken(
                        &as_asked,
                        targets,
                        &upgrade,
                        &already_broken,
                    )?);
                }
                // A bare target held back by installed dists: moving them forward is offered
                // beside it (recommended only when they are the target's own coupled stack).
                if !held.is_empty()
                    && let Some(moved) = self.move_held_back(policy, targets, &upgrade, &held)?
                {
                    own_stack = self.moves_a_target(&moved)
                        && held
                            .iter()
                            .all(|b| same_group(policy, &b.dependent, targets));
                    plans.push(moved);
                }
            }
            Err(SolveError::NoSolution(no_solution)) => {
                // A target no release matches has no blockers (see `no_release`).
                let unmatched = self.targets_without_release(targets)?;
                let nothing = |name: &PackageName| unmatched.iter().any(|(n, _)| n == name);
                let (blockers, moot): (Vec<Blocker>, Vec<Blocker>) = self
                    .blockers(targets, Some(&no_solution))?
                    .into_iter()
                    .partition(|b| !nothing(&b.requirement.name));
                let mut hints: Vec<String> = unmatched.iter().map(|(_, h)| h.clone()).collect();
                hints.extend(self.conflict_hints(&no_solution.hints, &moot));
                conflict = Some(Conflict {
                    explanation: no_solution.report.clone(),
                    blockers: blockers.clone(),
                    hints,
                });
                // An alternative that cannot be searched is reported and skipped; the others
                // still stand. But the index failing (`--offline` without an entry, a cache entry
                // cut short, the network, a cap or a deadline) is the tool failing, exit 2 as the
                // docs say, not "no plan found" (issue 25).
                let mut failed = None;
                let mut keep = |kind: &str, found: Result<Option<Plan>, ProposeError>| match found {
                    Ok(Some(plan)) => plans.push(plan),
                    Ok(None) => {}
                    Err(err) if index_failed(&err) => {
                        failed.get_or_insert(err);
                    }
                    Err(err) => warnings.push(format!(
                        "the {kind} alternative could not be searched: {}",
                        error_chain(&err)
                    )),
                };
                keep(
                    "move-the-blockers",
                    self.move_blockers(targets, &upgrade, &blockers),
                );
                let mut notes = Vec::new();
                keep(
                    "newest-fitting",
                    self.newest_fitting(targets, &blockers, &mut notes),
                );
                if self.request.allow_override {
                    keep("forced-override", self.forced(targets, &upgrade, &blockers));
                }
                if let Some(err) = failed {
                    return Err(err);
                }
                warnings.extend(notes);
            }
            Err(err) => return Err(err.into()),
        }
        // The lowest-risk plan that delivers the request but breaks installed dependents, as its
        // own evidence says: the alternative that moves them along.
        let breaking = plans
            .iter()
            .filter(|p| p.kind != PlanKind::NewestFitting && !p.breaks.is_empty())
            .min_by_key(|p| p.risk.score);
        if let Some(base) = breaking {
            match self.move_dependents(base, targets, &upgrade) {
                // The same environment as a plan already offered is not offered twice.
                Ok(Some(found)) if plans.iter().all(|p| p.pins != found.pins) => plans.push(found),
                Ok(_) => {}
                Err(err) if index_failed(&err) => return Err(err),
                Err(err) => warnings.push(format!(
                    "the move-dependents alternative could not be searched: {}",
                    error_chain(&err)
                )),
            }
        }
        // Plans that deliver the targets first, lowest risk first; the compromise (the newest
        // that fits) after them, whatever its risk: the recommendation answers the request. A
        // plan whose own evidence predicts a break comes after every delivering plan whose
        // evidence does not. A
        // plan that leaves the accelerator line comes after every plan that stays on it (the
        // forced override and the newest that fits included); a plan that moves no target
        // while another moves the target's own coupled stack comes after that one.
        plans.sort_by_key(|plan| {
            (
                own_stack && !self.moves_a_target(plan),
                switches_accelerator(plan),
                plan.kind == PlanKind::NewestFitting,
                plan.predicts_break(),
                plan.risk.score,
            )
        });
        if layered {
            for plan in &mut plans {
                plan.layer = Some(Layer {
                    kind: LayerKind::Everything,
                    name: "everything".into(),
                    base: None,
                    own: plan.changes.iter().map(|c| c.name.clone()).collect(),
                    moves: vec![],
                });
            }
        }
        Ok(self.proposal(policy, conflict, plans, warnings))
    }

    /// What the request as asked is solved within, beside the whole environment: for bare
    /// targets (names without a version, "the newest that fits"), the installed members of
    /// coupled groups no target is in stay where they are (`propose setuptools` never moves the
    /// torch stack; `propose torch` may). Other dists may still move either way, as the request
    /// needs (`propose celery` takes python-dateutil back to the version celery pins).
    fn as_asked_bounds(&self, policy: &Policy, targets: &[Requirement]) -> Vec<Requirement> {
        if self.request.all || targets.iter().any(|t| t.version_or_url.is_some()) {
            return Vec::new();
        }
        self.stack_members(policy, targets, false)
            .map(|d| pin(d.name(), d.version()))
            .collect()
    }

    /// The installed, index-managed members of the coupled groups (not `compiled-dependents`
    /// ones) that contain a target (`with_target`) or contain none.
    fn stack_members<'s>(
        &'s self,
        policy: &'s Policy,
        targets: &'s [Requirement],
        with_target: bool,
    ) -> impl Iterator<Item = &'s crate::inventory::InstalledDist> + 's {
        policy
            .coupled
            .iter()
            .filter(move |g| {
                !g.compiled_dependents && targets.iter().any(|t| g.contains(&t.name)) == with_target
            })
            .flat_map(move |group| {
                self.inventory
                    .dists
                    .iter()
                    .filter(move |d| !d.is_unmanaged() && group.contains(d.name()))
            })
    }

    /// The installed dists that hold a bare target of `plan` below its newest release (what a
    /// move-the-blockers search can move forward).
    fn held_by_installed(&self, targets: &[Requirement], plan: &Plan) -> Vec<Blocker> {
        if self.request.all {
            return Vec::new();
        }
        plan.held_back
            .iter()
            .filter(|h| {
                targets
                    .iter()
                    .any(|t| t.name == h.name && t.version_or_url.is_none())
            })
            .flat_map(|h| h.blockers.iter().cloned())
            .filter(|b| {
                self.inventory
                    .get(&b.dependent)
                    .is_some_and(|d| !d.is_unmanaged())
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// Move forward what holds bare targets back: each bare target above its installed version
    /// (its newest release line first, then older lines, a few at most), the blockers and the
    /// installed members of the target's coupled groups free to move (`propose torch` moves
    /// torch, torchvision and torchaudio together).
    fn move_held_back(
        &self,
        policy: &Policy,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        held: &[Blocker],
    ) -> Result<Option<Plan>, ProposeError> {
        let mut moving = upgrade.clone();
        moving.extend(
            self.stack_members(policy, targets, true)
                .map(|d| d.name().clone()),
        );
        for floors in self.forward_floors(targets)? {
            if let Some(mut plan) = self.move_blockers_within(&floors, &moving, held, true)? {
                plan.targets = targets.to_vec();
                as_requested(&mut plan, targets);
                return Ok(Some(plan));
            }
        }
        Ok(None)
    }

    /// The requirements a held-back search tries, most ambitious first: each bare target at or
    /// above the first release of one of its newer lines (newest line first, three at most),
    /// then only above its installed version.
    fn forward_floors(
        &self,
        targets: &[Requirement],
    ) -> Result<Vec<Vec<Requirement>>, ProposeError> {
        let mut tiers: Vec<Vec<Requirement>> = vec![Vec::new(); LINES_TRIED + 1];
        for target in targets {
            let installed = match (&target.version_or_url, self.inventory.get(&target.name)) {
                (None, Some(dist)) if !dist.is_unmanaged() => {
                    dist.version().clone().without_local()
                }
                _ => {
                    tiers.iter_mut().for_each(|t| t.push(target.clone()));
                    continue;
                }
            };
            let lines = self.newer_lines(&target.name, &installed)?;
            for (i, tier) in tiers.iter_mut().enumerate() {
                tier.push(match lines.get(i) {
                    Some(first) if i < LINES_TRIED => at_least(&target.name, first),
                    _ => above(&target.name, &installed),
                });
            }
        }
        tiers.dedup();
        Ok(tiers)
    }

    /// The first release of each `major.minor` line newer than `installed`, newest line first.
    fn newer_lines(
        &self,
        name: &PackageName,
        installed: &Version,
    ) -> Result<Vec<Version>, ProposeError> {
        let Some(project) = self.evidence.catalog.project(name)? else {
            return Ok(Vec::new());
        };
        let mut lines: BTreeMap<(u64, u64), Version> = BTreeMap::new();
        for v in self
            .evidence
            .catalog
            .usable_versions(&project)
            .iter()
            .filter(|v| *v > installed)
        {
            let key = (
                v.release().first().copied().unwrap_or(0),
                v.release().get(1).copied().unwrap_or(0),
            );
            lines
                .entry(key)
                .and_modify(|first| {
                    if v < first {
                        *first = v.clone();
                    }
                })
                .or_insert_with(|| v.clone());
        }
        Ok(lines.into_values().rev().collect())
    }

    /// Whether `plan` changes the version of a target.
    fn moves_a_target(&self, plan: &Plan) -> bool {
        plan.changes
            .iter()
            .any(|c| self.request.targets.iter().any(|t| t.name == c.name) && c.from != c.to)
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

    /// The request as asked, leaving the edges broken before the plan as they are (what pip
    /// does): each broken requirement is overridden, on its dependent's edge only, by the
    /// installed version. Offered beside an as-asked plan that repairs them. `None` when no edge
    /// is broken by a version (a missing dependency cannot be kept missing by an override) or
    /// there is no such plan.
    fn keep_broken(
        &self,
        as_asked: &[Requirement],
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        broken: &[BrokenEdge],
    ) -> Result<Option<Plan>, ProposeError> {
        let mut kept: BTreeMap<PackageName, (Version, BTreeSet<PackageName>)> = BTreeMap::new();
        for edge in broken {
            if let Some(installed) = &edge.installed {
                kept.entry(edge.requirement.name.clone())
                    .or_insert_with(|| (installed.clone(), BTreeSet::new()))
                    .1
                    .insert(edge.dependent.clone());
            }
        }
        if kept.is_empty() {
            return Ok(None);
        }
        let overrides = kept
            .iter()
            .map(|(name, (version, from))| Override {
                requirement: pin(name, version),
                only_from: Some(from.clone()),
            })
            .collect();
        let resolution = match self.solve(as_asked, upgrade, overrides) {
            Ok(resolution) => resolution,
            Err(SolveError::NoSolution(_)) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let planned = self.planned(&resolution);
        let title = format!(
            "As asked: {}, leaving the environment as broken as it was",
            join(targets)
        );
        self.plan(PlanKind::Upgrade, title, targets, &planned, &[])
            .map(Some)
    }

    /// The installed requirements the installed set does not meet (what `pip check` reports),
    /// each once: the plans repair them.
    fn already_broken(&self) -> Vec<BrokenEdge> {
        let report = check::check(self.inventory);
        let mut edges: Vec<BrokenEdge> = report
            .findings
            .iter()
            .filter(|finding| finding.pip_reports())
            .filter_map(|finding| {
                let (dependent, requirement, installed) = match finding {
                    Finding::MissingDependency {
                        dependent,
                        requirement,
                        ..
                    } => (dependent, requirement, None),
                    Finding::VersionMismatch {
                        dependent,
                        requirement,
                        installed,
                        ..
                    } => (dependent, requirement, Some(installed.version.clone())),
                    _ => return None,
                };
                Some(BrokenEdge {
                    dependent: dependent.name.clone(),
                    dependent_version: dependent.version.clone(),
                    requirement: crate::metadata::parse_requirement(requirement).ok()?,
                    installed,
                })
            })
            .collect();
        edges.dedup();
        edges
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

    /// One whole-environment solve.
    fn solve(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        overrides: Vec<Override>,
    ) -> Result<Resolution, SolveError> {
        self.solve_with(targets, upgrade, overrides, vec![])
    }

    /// One whole-environment solve with `extra` constraints (a layer's bounds).
    pub(super) fn solve_with(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        overrides: Vec<Override>,
        extra: Vec<Requirement>,
    ) -> Result<Resolution, SolveError> {
        let mut requirements = self.whole.requirements.clone();
        requirements.extend(targets.iter().cloned());
        let mut constraints = self.whole.floors.clone();
        constraints.extend(extra);
        let asked: BTreeSet<&PackageName> = self.request.targets.iter().map(|t| &t.name).collect();
        let installed_roots = requirements
            .iter()
            .map(|r| &r.name)
            .filter(|name| !asked.contains(name))
            .cloned()
            .collect();
        solve::solve_on(
            self.core,
            &SolveRequest {
                requirements,
                constraints,
                overrides,
                preferences: self.whole.preferences.clone(),
                upgrade: upgrade.clone(),
                prerelease: self.request.prerelease,
                binary: self.request.binary.clone(),
                limits: Default::default(),
                correspondences: self.correspondences.clone(),
                installed_roots,
            },
        )
    }

    /// Installed requirements that exclude every acceptable version of a target.
    fn blockers(
        &self,
        targets: &[Requirement],
        no_solution: Option<&solve::NoSolution>,
    ) -> Result<Vec<Blocker>, ProposeError> {
        let markers = &self.inventory.environment.markers;
        let from_facts: BTreeSet<(PackageName, PackageName)> = no_solution
            .map(|n| n.facts.as_slice())
            .unwrap_or_default()
            .iter()
            .filter_map(|fact| match fact {
                solve::Fact::Requires {
                    dependent: FactPackage::Dist { name, .. },
                    dependency: FactPackage::Dist { name: dep, .. },
                    ..
                } => Some((name.clone(), dep.clone())),
                _ => None,
            })
            .collect();
        let mut blockers = BTreeSet::new();
        for target in targets {
            let acceptable = self.acceptable_versions(target)?;
            for dist in &self.inventory.dists {
                for requirement in &dist.metadata.requires_dist {
                    if requirement.name != target.name || !applies_with(requirement, markers, &[]) {
                        continue;
                    }
                    let spec = match &requirement.version_or_url {
                        Some(VersionOrUrl::VersionSpecifier(spec)) => spec,
                        _ => continue,
                    };
                    let excludes_all = !acceptable.iter().any(|v| spec.contains(v));
                    let named = from_facts.contains(&(dist.name().clone(), target.name.clone()));
                    if excludes_all && (named || !acceptable.is_empty()) {
                        blockers.insert(Blocker {
                            dependent: dist.name().clone(),
                            dependent_version: dist.version().clone(),
                            requirement: requirement.clone(),
                        });
                    }
                }
            }
        }
        Ok(blockers.into_iter().collect())
    }

    /// Versions on the index (usable for this environment) that satisfy a target.
    fn acceptable_versions(&self, target: &Requirement) -> Result<Vec<Version>, ProposeError> {
        let Some(project) = self.evidence.catalog.project(&target.name)? else {
            return Ok(vec![]);
        };
        let spec = specifiers(target);
        Ok(self
            .evidence
            .catalog
            .usable_versions(&project)
            .iter()
            .filter(|v| spec.is_none_or(|s| s.contains(v)))
            .cloned()
            .collect())
    }

    /// Move the blockers forward: every index-managed installed dist stays at or above its
    /// installed version. Only when no forward move exists, the blockers may go back (a
    /// [`PlanKind::DowngradeBlockers`] plan, scored with its real costs).
    fn move_blockers(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        blockers: &[Blocker],
    ) -> Result<Option<Plan>, ProposeError> {
        if blockers.is_empty() {
            return Ok(None);
        }
        let forward = self.move_blockers_within(targets, upgrade, blockers, true)?;
        if forward.is_some() {
            return Ok(forward);
        }
        self.move_blockers_within(targets, upgrade, blockers, false)
    }

    /// One move-the-blockers search: the blockers (and, a few rounds at most, the dists each
    /// failure involves) are upgraded; `forward` keeps everything installed at or above its
    /// installed version.
    fn move_blockers_within(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        blockers: &[Blocker],
        forward: bool,
    ) -> Result<Option<Plan>, ProposeError> {
        let floors = if forward {
            self.floors(targets)
        } else {
            Vec::new()
        };
        let mut moving = upgrade.clone();
        moving.extend(blockers.iter().map(|b| b.dependent.clone()));
        for _round in 0..4 {
            match self.solve_with(targets, &moving, vec![], floors.clone()) {
                Ok(resolution) => {
                    let planned = self.planned(&resolution);
                    let kind = if forward {
                        PlanKind::MoveBlockers
                    } else {
                        PlanKind::DowngradeBlockers
                    };
                    return self.blockers_plan(kind, targets, blockers, &planned);
                }
                Err(SolveError::NoSolution(no_solution)) => {
                    let before = moving.len();
                    moving.extend(
                        no_solution
                            .involved
                            .iter()
                            .filter(|name| {
                                self.inventory
                                    .get(name)
                                    .is_some_and(|dist| !dist.is_unmanaged())
                            })
                            .cloned(),
                    );
                    if moving.len() == before {
                        return Ok(None);
                    }
                }
                Err(err) => return Err(err.into()),
            }
        }
        Ok(None)
    }

    /// Every index-managed installed dist at or above its installed version, but the targets
    /// (a target may ask for less).
    pub(super) fn floors(&self, targets: &[Requirement]) -> Vec<Requirement> {
        let asked: BTreeSet<&PackageName> = targets.iter().map(|t| &t.name).collect();
        self.whole
            .preferences
            .keys()
            .filter(|name| !asked.contains(name))
            .filter_map(|name| self.inventory.get(name))
            .filter(|dist| !dist.is_unmanaged())
            .map(|dist| at_least(dist.name(), dist.version()))
            .collect()
    }

    /// The plan of a blockers search that solved: `None` when no blocker moved.
    fn blockers_plan(
        &self,
        kind: PlanKind,
        targets: &[Requirement],
        blockers: &[Blocker],
        planned: &PlannedEnvironment,
    ) -> Result<Option<Plan>, ProposeError> {
        let moved: Vec<String> = blockers
            .iter()
            .filter_map(|b| {
                let to = planned.dists.get(&b.dependent)?;
                (to.version != b.dependent_version)
                    .then(|| format!("{} {} -> {}", b.dependent, b.dependent_version, to.version))
            })
            .collect();
        if moved.is_empty() {
            return Ok(None);
        }
        let unblocked: Vec<(Blocker, Requirement)> = blockers
            .iter()
            .filter_map(|b| {
                targets
                    .iter()
                    .find(|t| t.name == b.requirement.name)
                    .map(|t| (b.clone(), t.clone()))
            })
            .collect();
        let verb = match kind {
            PlanKind::DowngradeBlockers => "Downgrade",
            _ => "Move",
        };
        let title = format!(
            "{verb} the blocker{}: {}",
            if moved.len() == 1 { "" } else { "s" },
            moved.join(", ")
        );
        self.plan(kind, title, targets, planned, &unblocked)
            .map(Some)
    }

    fn newest_fitting(
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
        let closest = self.closest_fitting(targets, &kept, &names)?;
        let word = if closest.is_some() {
            "Closest"
        } else {
            "Newest"
        };
        let resolution = match closest {
            Some(resolution) => resolution,
            None => {
                let mut relaxed: Vec<Requirement> = targets.iter().map(|t| bare(&t.name)).collect();
                relaxed.extend(kept);
                match self.solve(&relaxed, &names, vec![]) {
                    Ok(resolution) => resolution,
                    Err(SolveError::NoSolution(_)) => return Ok(None),
                    Err(err) => return Err(err.into()),
                }
            }
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
            } else {
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
        let title = format!(
            "{word} that fits: {} (asked: {})",
            join(&fitted),
            join(targets)
        );
        let mut plan = self.plan(PlanKind::NewestFitting, title, &fitted, &planned, &[])?;
        // A fitted version that is not what was asked is never labelled "requested"; one that
        // meets its target (the other targets of a request that cannot be had whole) is.
        for change in &mut plan.changes {
            let to = change.to.clone();
            for reason in &mut change.reasons {
                if let Reason::Requested { requirement } = reason
                    && let Some(asked) = targets.iter().find(|t| t.name == requirement.name)
                    && !to
                        .as_ref()
                        .is_some_and(|v| specifiers(asked).is_none_or(|spec| spec.contains(v)))
                {
                    *reason = Reason::NewestFitting {
                        asked: asked.clone(),
                    };
                }
            }
        }
        Ok(Some(plan))
    }

    /// For one target pinned to one version (`==X`), the solve of the release nearest to it (in release
    /// order) that fits with the blockers kept, other than the installed one; a few tried at most.
    fn closest_fitting(
        &self,
        targets: &[Requirement],
        kept: &[Requirement],
        names: &BTreeSet<PackageName>,
    ) -> Result<Option<Resolution>, ProposeError> {
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
        // Where the request sits in release order: its first matching version, or where its
        // lower bound would go.
        let at = versions
            .iter()
            .position(|v| spec.contains(v))
            .unwrap_or_else(|| versions.partition_point(|v| !spec.iter().all(|s| s.contains(v))));
        let mut order: Vec<(usize, &Version)> = versions
            .iter()
            .enumerate()
            .filter(|(_, v)| Some(*v) != installed && !spec.contains(v))
            .map(|(i, v)| (i.abs_diff(at), v))
            .collect();
        order.sort();
        for (_, version) in order.into_iter().take(CLOSEST_TRIED) {
            let mut asked = vec![pin(&target.name, version)];
            asked.extend(kept.iter().cloned());
            match self.solve(&asked, names, vec![]) {
                Ok(resolution) => return Ok(Some(resolution)),
                Err(SolveError::NoSolution(_)) => continue,
                Err(err) => return Err(err.into()),
            }
        }
        Ok(None)
    }

    fn forced(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        blockers: &[Blocker],
    ) -> Result<Option<Plan>, ProposeError> {
        let overrides: Vec<Override> = targets
            .iter()
            .filter_map(|target| {
                let from: BTreeSet<PackageName> = blockers
                    .iter()
                    .filter(|b| b.requirement.name == target.name)
                    .map(|b| b.dependent.clone())
                    .collect();
                (!from.is_empty()).then(|| Override {
                    requirement: target.clone(),
                    only_from: Some(from),
                })
            })
            .collect();
        if overrides.is_empty() {
            return Ok(None);
        }
        let resolution = match self.solve(targets, upgrade, overrides) {
            Ok(resolution) => resolution,
            Err(SolveError::NoSolution(_)) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let planned = self.planned(&resolution);
        if planned.overridden.is_empty() {
            // Nothing had to be forced: an honest plan says the same without the override.
            return Ok(None);
        }
        let title = format!(
            "Force {} over {}",
            join(targets),
            planned
                .overridden
                .iter()
                .filter_map(|edge| {
                    let (dependent, version) = edge.dependent.dist()?;
                    Some(format!(
                        "{dependent} {version}'s `{}`",
                        requirement_text(&edge.original)
                    ))
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
        self.plan(PlanKind::ForcedOverride, title, targets, &planned, &[])
            .map(Some)
    }

    /// The installed coupled members that have no usable release corresponding to `anchor` at
    /// `newest` (the policy's `versions`): the reason the group stays where it is.
    fn unmatched_members(
        &self,
        anchor: &PackageName,
        newest: &Version,
    ) -> Result<Vec<UnmatchedMember>, ProposeError> {
        let mut out = Vec::new();
        for c in self.correspondences.iter().filter(|c| &c.anchor == anchor) {
            let range = c.template.range(newest);
            let available = match self.evidence.catalog.project(&c.member)? {
                Some(project) => self
                    .evidence
                    .catalog
                    .usable_versions(&project)
                    .iter()
                    .any(|v| range.contains(v)),
                None => false,
            };
            if !available {
                out.push(UnmatchedMember {
                    member: c.member.clone(),
                    needs: c.template.specifier(newest).unwrap_or_default(),
                });
            }
        }
        Ok(out)
    }

    /// Whether a usable release of `member` declares its own range on `anchor` that accepts
    /// `version` and is CPython-independent, so that its metadata, not the coupled-group rule,
    /// decides (torchaudio 2.11.1, `torch>=2.11`, next to torch 2.15.0).
    fn member_speaks_for(
        &self,
        member: &PackageName,
        anchor: &PackageName,
        version: &Version,
    ) -> Result<bool, ProposeError> {
        let found = self
            .evidence
            .catalog
            .accepting_releases(&AcceptingQuery {
                dependent: member,
                extras: &[],
                package: anchor,
                wanted: &Ranges::singleton(version.clone()),
                among: Among::Installable { prereleases: false },
                read_at_most: 10,
                enough: 3,
            })
            .map_err(|err| ProposeError::Solve(Box::new(err)))?;
        let table = self
            .evidence
            .catalog
            .table(member)
            .map_err(|err| ProposeError::Solve(Box::new(err)))?;
        Ok(found.versions.iter().any(|v| !table.cpython_bound(v)))
    }

    /// Build and score one plan, with what holds its targets back.
    fn plan(
        &self,
        kind: PlanKind,
        title: String,
        targets: &[Requirement],
        planned: &PlannedEnvironment,
        unblocked: &[(Blocker, Requirement)],
    ) -> Result<Plan, ProposeError> {
        self.plan_on(kind, title, targets, planned, unblocked, None)
    }

    /// [`Self::plan`] on top of a base layer's pins (changes to the base's versions are not
    /// scored here).
    pub(super) fn plan_on(
        &self,
        kind: PlanKind,
        title: String,
        targets: &[Requirement],
        planned: &PlannedEnvironment,
        unblocked: &[(Blocker, Requirement)],
        base: Option<&BTreeMap<PackageName, Version>>,
    ) -> Result<Plan, ProposeError> {
        let mut held_back = Vec::new();
        let names: Vec<(PackageName, Option<&VersionSpecifiers>)> = if self.request.all {
            planned.dists.keys().map(|n| (n.clone(), None)).collect()
        } else {
            targets
                .iter()
                .map(|t| (t.name.clone(), specifiers(t)))
                .collect()
        };
        for (name, spec) in names {
            let Some(project) = self.evidence.catalog.project(&name)? else {
                continue;
            };
            let planned_version = planned.dists.get(&name).map(|d| d.version.clone());
            // Cheap pre-check: no file newer than the planned version, nothing holds it back.
            if let Some(planned) = &planned_version {
                let public = planned.clone().without_local();
                if project.files.heads().all(|f| f.version <= &public) {
                    continue;
                }
            }
            let Some(newest) = self
                .evidence
                .catalog
                .usable_versions(&project)
                .first()
                .cloned()
            else {
                continue;
            };
            // A target that excludes the newest release is not held back: it asked for less.
            if spec.is_some_and(|s| !s.contains(&newest)) {
                continue;
            }
            let planned_version = planned.dists.get(&name).map(|d| d.version.clone());
            if planned_version
                .as_ref()
                .is_some_and(|v| v.clone().without_local() >= newest)
            {
                continue;
            }
            let mut blockers = self.builder.blockers(&name, &newest, planned);
            if blockers.is_empty() {
                blockers = self.own_requirements_unmet(&name, &newest, planned)?;
            }
            let mut unmatched = self.unmatched_members(&name, &newest)?;
            // A member whose own release accepts the newest anchor does not hold it back.
            let mut speaks = Vec::new();
            for u in &unmatched {
                speaks.push(self.member_speaks_for(&u.member, &name, &newest)?);
            }
            let mut speaks = speaks.into_iter();
            unmatched.retain(|_| !speaks.next().unwrap_or(false));
            let unavailable = if blockers.is_empty() && unmatched.is_empty() {
                self.why_unavailable(&name, &newest)?
            } else {
                None
            };
            held_back.push(HeldBack {
                name,
                newest,
                planned: planned_version,
                blockers,
                unmatched,
                needs: vec![],
                see: None,
                waiting: None,
                unavailable,
            });
        }
        Ok(self.builder.build(
            PlanSpec {
                kind,
                title,
                targets,
                planned,
                unblocked,
                all: self.request.all,
                held_back,
                base,
                declared_couplings: self.declared_couplings(planned)?,
            },
            &self.evidence,
        ))
    }

    /// Coupled members whose planned release is not what the group's rule pairs with the planned
    /// anchor (torchaudio 2.11.1 next to torch 2.12.0): their own metadata decided, as the solver
    /// applies the rule everywhere else. Only where the plan moves one of the two.
    fn declared_couplings(
        &self,
        planned: &PlannedEnvironment,
    ) -> Result<Vec<DeclaredCoupling>, ProposeError> {
        let markers = &self.inventory.environment.markers;
        let unchanged = |name: &PackageName, version: &Version| {
            self.inventory
                .get(name)
                .is_some_and(|d| d.version() == version)
        };
        let mut out = Vec::new();
        for c in &self.correspondences {
            let (Some(anchor), Some(member)) =
                (planned.dists.get(&c.anchor), planned.dists.get(&c.member))
            else {
                continue;
            };
            if c.template.range(&anchor.version).contains(&member.version)
                || unchanged(&c.anchor, &anchor.version) && unchanged(&c.member, &member.version)
            {
                continue;
            }
            let declared: Vec<String> = member
                .requires_dist
                .iter()
                .filter(|r| r.name == c.anchor && applies_with(r, markers, &member.extras))
                .map(requirement_text)
                .collect();
            if declared.is_empty() {
                continue;
            }
            let unmatched = self.unmatched_members(&c.anchor, &anchor.version)?;
            out.push(DeclaredCoupling {
                member: c.member.clone(),
                version: member.version.clone(),
                anchor: c.anchor.clone(),
                anchor_version: anchor.version.clone(),
                declared: declared.join(", "),
                rule_wants: c.template.specifier(&anchor.version).unwrap_or_default(),
                rule_release_exists: !unmatched.iter().any(|u| u.member == c.member),
            });
        }
        Ok(out)
    }

    /// The requirements of `name==newest` itself that the plan's versions do not meet (celery
    /// 5.7.0 requires python-dateutil<4 where the plan keeps 4.0.0): why it is held back when
    /// no planned dist excludes it. Unreadable metadata gives none.
    fn own_requirements_unmet(
        &self,
        name: &PackageName,
        newest: &Version,
        planned: &PlannedEnvironment,
    ) -> Result<Vec<Blocker>, ProposeError> {
        let table = self.evidence.catalog.table(name)?;
        let Ok(metadata) = self
            .evidence
            .catalog
            .release_metadata(name, &table, newest)?
        else {
            return Ok(vec![]);
        };
        let markers = &self.inventory.environment.markers;
        let extras = planned
            .dists
            .get(name)
            .map(|d| d.extras.clone())
            .unwrap_or_default();
        Ok(metadata
            .requires_dist
            .iter()
            .filter(|r| applies_with(r, markers, &extras))
            .filter(|r| {
                let Some(dist) = planned.dists.get(&r.name) else {
                    return false;
                };
                specifiers(r).is_some_and(|spec| !spec.contains(&dist.version))
            })
            .map(|r| Blocker {
                dependent: name.clone(),
                dependent_version: newest.clone(),
                requirement: r.clone(),
            })
            .collect())
    }

    /// Why `name`'s newest release cannot be had when no requirement of the environment
    /// excludes it: its metadata cannot be read (the reason the solver skipped it), or,
    /// for named targets, the solver's explanation of `name==newest` on this environment (one
    /// solve, only for a target held back with no other reason). `None`: nothing to add (a
    /// pre-release, or a preference).
    fn why_unavailable(
        &self,
        name: &PackageName,
        newest: &Version,
    ) -> Result<Option<String>, ProposeError> {
        let table = self.evidence.catalog.table(name)?;
        if let Err(reason) = self
            .evidence
            .catalog
            .release_metadata(name, &table, newest)?
        {
            return Ok(Some(format!("{name} {newest} {reason}")));
        }
        if self.request.all || newest.any_prerelease() {
            return Ok(None);
        }
        let upgrade = BTreeSet::from([name.clone()]);
        match self.solve(&[pin(name, newest)], &upgrade, vec![]) {
            Err(SolveError::NoSolution(no)) => Ok(Some(format!(
                "{name} {newest} cannot be installed here: {}",
                no.report
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ")
            ))),
            Err(err @ SolveError::Index { .. }) => Err(err.into()),
            _ => Ok(None),
        }
    }

    /// A resolution as a planned environment: each release's requirements, file facts and wheel
    /// kind come with the resolution (no index reads here).
    pub(super) fn planned(&self, resolution: &Resolution) -> PlannedEnvironment {
        let dists: BTreeMap<PackageName, PlanDist> = resolution
            .packages
            .iter()
            .map(|(name, resolved)| {
                let file = match &resolved.source {
                    ResolvedSource::Index { file } => file.as_deref(),
                    ResolvedSource::Installed => None,
                };
                let dist = PlanDist {
                    version: resolved.version.clone(),
                    requires_dist: resolved.metadata.requires_dist.clone(),
                    yanked: file.and_then(|f| f.yanked.clone()),
                    upload_time: file.and_then(|f| f.upload_time),
                    platform_specific: resolved.platform_specific,
                    extras: resolved.extras.iter().cloned().collect(),
                };
                (name.clone(), dist)
            })
            .collect();
        // Only edges between dists break an installed dist's requirement; a replaced root
        // requirement (the plan's own target) is not a broken edge, and neither is an edge the
        // chosen version satisfies anyway (forcing urllib3 2.2.3 over `urllib3>=1.26,<3`).
        let overridden = resolution
            .overridden
            .iter()
            .filter(|edge| {
                let chosen = dists
                    .get(&edge.original.name)
                    .map(|d: &PlanDist| &d.version);
                let satisfied = match (&edge.original.version_or_url, chosen) {
                    (_, None) => false,
                    (None, Some(_)) => true,
                    (Some(VersionOrUrl::VersionSpecifier(spec)), Some(v)) => spec.contains(v),
                    (Some(VersionOrUrl::Url(_)), Some(_)) => false,
                };
                edge.dependent.dist().is_some() && !satisfied
            })
            .cloned()
            .collect();
        PlannedEnvironment { dists, overridden }
    }
}

/// An error and its sources, on one line.
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn specifiers(requirement: &Requirement) -> Option<&VersionSpecifiers> {
    match &requirement.version_or_url {
        Some(VersionOrUrl::VersionSpecifier(spec)) => Some(spec),
        _ => None,
    }
}

/// Word a plan's reasons with the targets as the user wrote them (a search that asked the
/// solver for more, `torch>=2.15.0` for `torch`, never shows its own words as the request).
fn as_requested(plan: &mut Plan, targets: &[Requirement]) {
    for reason in plan.changes.iter_mut().flat_map(|c| c.reasons.iter_mut()) {
        let (Reason::Requested { requirement }
        | Reason::Unblocks {
            target: requirement,
            ..
        }) = reason
        else {
            continue;
        };
        if let Some(asked) = targets.iter().find(|t| t.name == requirement.name) {
            *requirement = asked.clone();
        }
    }
}

/// How many releases near a request are tried for the closest that fits.
const CLOSEST_TRIED: usize = 6;

/// How many newer release lines of a held-back bare target are tried, newest first.
const LINES_TRIED: usize = 3;

/// `name>version` (its public version): a bare target that must move forward.
fn above(name: &PackageName, version: &Version) -> Requirement {
    Requirement {
        name: name.clone(),
        extras: vec![],
        version_or_url: Some(VersionOrUrl::VersionSpecifier(VersionSpecifiers::from(
            VersionSpecifier::from_version(Operator::GreaterThan, version.clone().without_local())
                .expect("> accepts a version without a local label"),
        ))),
        marker: Default::default(),
        origin: None,
    }
}

/// Whether `name` is in a coupled group with one of the targets.
fn same_group(policy: &Policy, name: &PackageName, targets: &[Requirement]) -> bool {
    policy
        .coupled
        .iter()
        .any(|g| g.contains(name) && targets.iter().any(|t| g.contains(&t.name)))
}

/// Whether a plan carries the accelerator-line-switch factor.
fn switches_accelerator(plan: &Plan) -> bool {
    plan.risk
        .factors
        .iter()
        .any(|f| f.kind == crate::risk::FactorKind::AcceleratorLineSwitch)
}

fn bare(name: &PackageName) -> Requirement {
    Requirement {
        name: name.clone(),
        extras: vec![],
        version_or_url: None,
        marker: Default::default(),
        origin: None,
    }
}

/// `name` with `specs` as one requirement.
pub(super) fn bounded(name: &PackageName, specs: Vec<VersionSpecifier>) -> Requirement {
    Requirement {
        name: name.clone(),
        extras: vec![],
        version_or_url: Some(VersionOrUrl::VersionSpecifier(specs.into_iter().collect())),
        marker: Default::default(),
        origin: None,
    }
}

pub(super) fn pin(name: &PackageName, version: &Version) -> Requirement {
    Requirement {
        name: name.clone(),
        extras: vec![],
        version_or_url: Some(VersionOrUrl::VersionSpecifier(VersionSpecifiers::from(
            VersionSpecifier::from_version(Operator::Equal, version.clone())
                .expect("== accepts every version"),
        ))),
        marker: Default::default(),
        origin: None,
    }
}

/// `name>=version` (the local label dropped: PEP 440 allows it only with `==`).
fn at_least(name: &PackageName, version: &Version) -> Requirement {
    Requirement {
        name: name.clone(),
        extras: vec![],
        version_or_url: Some(VersionOrUrl::VersionSpecifier(VersionSpecifiers::from(
            VersionSpecifier::from_version(
                Operator::GreaterThanEqual,
                version.clone().without_local(),
            )
            .expect(">= accepts a version without a local label"),
        ))),
        marker: Default::default(),
        origin: None,
    }
}

fn join(requirements: &[Requirement]) -> String {
    requirements
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
