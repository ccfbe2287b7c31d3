//! A layer that plans a release which raises on import beside the layer, through a test of
//! another dist's version in its own shipped sources (pyarrow 26.0.1's `pyarrow/lib.pyx` line 41
//! beside numpy 1.26.4), solved again with what the test implies, as a targeted request is
//! ([`crate::plan::alternatives::version_implied`]). Every layer goes through here: the safe
//! layer ([`Proposer::safe_tested`]), the group and major layers (`solve`), and the unlayered
//! `--all` asked as the `everything` layer ([`Proposer::everything_tested`]).
//!
//! In: a layer's spec, its first solve and plan. Out: the layer solved again for every failing
//! test: (a) the tested dist moved to what the test needs (`numpy>=2`; a group or major layer
//! frees it of its line bound, the safe layer never does), where the environment allows it and
//! the moved layer breaks no installed dependent (after taking the breaking ones along); else
//! (b) the tested release held below the releases whose test fails (`pyarrow<26.0.0`). Each answer says why, citing the file and line: (a) as the tested dist's
//! reason (`needed-on-import`) and in the title, (b) in the title and the held-back line. A test
//! neither answers leaves the layer as it was (its `planned-import-missing` factor says it
//! fails) with a warning saying why.
//!
//! Bounded: at most [`ROUNDS`] rounds of tests (a solve that answers one may plan another release
//! whose test fails), each test answered once.

use std::collections::{BTreeMap, BTreeSet};

use pep508_rs::{PackageName, Requirement};

use super::solve::finish_layer;
use super::{Bounds, LayerSpec, Stacks, managed};
use crate::plan::alternatives::version_implied::{held_below, needed_on_import, raise};
use crate::plan::alternatives::{ProposeError, Proposer};
use crate::plan::planned::PlannedEnvironment;
use crate::plan::proposal::{LayerKind, Plan};
use crate::plan::version_checks::FailingCheck;

/// At most this many rounds of failing tests are answered per layer.
const ROUNDS: usize = 3;

/// How one failing test was answered.
#[derive(Clone)]
enum Answer {
    /// (a) The tested dist moved to what the test needs.
    Moved(FailingCheck),
    /// (b) The release held below the releases that raise (the releases read that raise).
    Below(FailingCheck, String),
    /// Neither: why.
    Unmet(String),
}

/// A layer solved again with what its planned releases' own import tests imply.
pub(super) struct Tested {
    /// What the layer frees (the tested dists moved by (a) added).
    pub spec: LayerSpec,
    /// What the tests add to the layer's bounds (`numpy>=2`, `pyarrow<26.0.0`).
    pub extra: Vec<Requirement>,
    pub plan: Plan,
    answers: Vec<Answer>,
}

impl Tested {
    /// `plan` (the layer's, taken along) saying why it moves or holds what the tests imply.
    pub(super) fn explain(&self, mut plan: Plan) -> Plan {
        for answer in &self.answers {
            match answer {
                Answer::Moved(check) => {
                    needed_on_import(&mut plan, check);
                    plan.title = format!(
                        "{}, moving {} to what {} {} needs on import ({}: its own {}, line {})",
                        plan.title,
                        check.provider.0,
                        check.release.0,
                        check.release.1,
                        check.needs,
                        check.file,
                        check.line
                    );
                }
                Answer::Below(check, read) => {
                    held_below(&mut plan, check, read);
                    let (name, _) = &check.release;
                    let (provider, at) = &check.provider;
                    plan.title = format!(
                        "{}: the newest {name} that imports beside {provider} {at} ({name} {read} \
                         {} on import: {}, line {}, needs {})",
                        plan.title,
                        raise(read),
                        check.file,
                        check.line,
                        check.needs
                    );
                }
                Answer::Unmet(note) => plan.warnings.push(note.clone()),
            }
        }
        plan
    }

    /// Whether `check` was answered already (the same release, the same tested dist).
    fn answered(&self, check: &FailingCheck) -> bool {
        self.answers.iter().any(|a| match a {
            Answer::Moved(c) | Answer::Below(c, _) => {
                c.release == check.release && c.provider.0 == check.provider.0
            }
            Answer::Unmet(_) => false,
        })
    }
}

impl Proposer<'_> {
    /// The safe layer (solved as `planned`, its plan `safe`) solved again for each test of its
    /// planned releases that raises on import beside it: it holds the release below the ones
    /// that raise (it moves no dist across its line, so what the test needs is another layer's).
    /// What the first plan said of the dists it kept out, held or took along stays.
    pub(super) fn safe_tested(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        (planned, safe): (PlannedEnvironment, Plan),
    ) -> Result<Plan, ProposeError> {
        if self.failing_checks(&planned).is_empty() {
            return Ok(safe);
        }
        let tested = self.import_tested(spec, bounds, upgrade, None, (planned, safe.clone()))?;
        let mut plan = self.tested_plan(&tested, bounds, upgrade, None)?;
        carry_decorations(&safe, &mut plan, bounds);
        Ok(finish_layer(&tested.spec, plan, None).unwrap_or(safe))
    }

    /// The unlayered `--all` (the `everything` layer: every dist free, every line), solved as
    /// `planned` with its plan `plan`, solved again for each test of its planned releases that
    /// raises on import beside it, as every layer is. Its dependents move in a plan of their own
    /// (`move_dependents`), not taken along here.
    pub(in crate::plan) fn everything_tested(
        &self,
        upgrade: &BTreeSet<PackageName>,
        planned: PlannedEnvironment,
        plan: Plan,
    ) -> Result<Plan, ProposeError> {
        if self.failing_checks(&planned).is_empty() {
            return Ok(plan);
        }
        let installed = managed(self.inventory);
        let spec = LayerSpec {
            kind: LayerKind::Everything,
            name: "everything".into(),
            free: installed.keys().cloned().collect(),
        };
        // Every dist free: the layer's bounds are only what its tests add.
        let bounds = Bounds {
            installed,
            stacks: Stacks::default(),
            young: Default::default(),
            young_days: 0,
            kept_out: Vec::new(),
            along: Default::default(),
            held: BTreeMap::new(),
        };
        let tested = self.import_tested(&spec, &bounds, upgrade, None, (planned, plan))?;
        self.tested_plan(&tested, &bounds, upgrade, None)
    }

    /// The plan of a layer solved again around its import tests, saying why it moves or holds
    /// what the tests imply.
    pub(super) fn tested_plan(
        &self,
        tested: &Tested,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: Option<&Plan>,
    ) -> Result<Plan, ProposeError> {
        let (spec, extra) = (&tested.spec, &tested.extra);
        let plan = self.along(spec, bounds, upgrade, base, tested.plan.clone(), extra)?;
        Ok(tested.explain(plan))
    }

    /// [`Self::take_along`], but for the `everything` layer, whose broken dependents move in a
    /// plan of their own (`move_dependents`).
    fn along(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: Option<&Plan>,
        plan: Plan,
        extra: &[Requirement],
    ) -> Result<Plan, ProposeError> {
        if spec.kind == LayerKind::Everything {
            return Ok(plan);
        }
        self.take_along(spec, bounds, upgrade, base, plan, extra)
    }

    /// The layer of `spec` (first solved as `planned`, `plan`) solved again for each test of
    /// its planned releases that raises on import beside it ([`Tested`]).
    pub(super) fn import_tested(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: Option<&Plan>,
        (mut planned, plan): (PlannedEnvironment, Plan),
    ) -> Result<Tested, ProposeError> {
        let mut tested = Tested {
            spec: spec.clone(),
            extra: Vec::new(),
            plan,
            answers: Vec::new(),
        };
        let mut unmet = BTreeSet::new();
        for _round in 0..ROUNDS {
            let fresh: Vec<FailingCheck> = self
                .failing_checks(&planned)
                .into_iter()
                .filter(|c| !tested.answered(c) && !unmet.contains(&c.release))
                .collect();
            if fresh.is_empty() {
                break;
            }
            for check in fresh {
                if let Some(found) = self.provider_moved(&tested, &check, bounds, upgrade, base)? {
                    (planned, tested) = found;
                    tested.answers.push(Answer::Moved(check));
                    continue;
                }
                let below = match self.importing_below(&check, &planned)? {
                    Ok(below) => below,
                    Err(note) => {
                        unmet.insert(check.release.clone());
                        tested.answers.push(Answer::Unmet(note));
                        continue;
                    }
                };
                let mut extra = tested.extra.clone();
                extra.push(below.0.clone());
                match self.layer_solved(&tested.spec, bounds, upgrade, base, &extra)? {
                    Some((now, plan)) => {
                        planned = now;
                        tested.plan = plan;
                        tested.extra = extra;
                        tested.answers.push(Answer::Below(check, below.1));
                    }
                    None => {
                        unmet.insert(check.release.clone());
                        tested.answers.push(Answer::Unmet(format!(
                            "{}: neither {} nor {} can be had in this layer",
                            check.sentence(),
                            check.needs,
                            below.0
                        )));
                    }
                }
            }
        }
        Ok(tested)
    }

    /// (a) The layer with `check`'s tested dist held to what the test needs (a group or major
    /// layer frees it of its line bound), when it solves and (with the dependents it breaks
    /// taken along) breaks nothing; `None` otherwise, and for a heavy dist the layer does not
    /// free (a coupled stack moves in its own layer).
    fn provider_moved(
        &self,
        tested: &Tested,
        check: &FailingCheck,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: Option<&Plan>,
    ) -> Result<Option<(PlannedEnvironment, Tested)>, ProposeError> {
        let provider = &check.provider.0;
        let mut spec = tested.spec.clone();
        if !spec.free.contains(provider) {
            if bounds.stacks.heavy.contains(provider) {
                return Ok(None);
            }
            if spec.kind != LayerKind::Safe {
                spec.free.insert(provider.clone());
            }
        }
        let mut extra = tested.extra.clone();
        extra.push(check.needs.clone());
        let Some((planned, plan)) = self.layer_solved(&spec, bounds, upgrade, base, &extra)? else {
            return Ok(None);
        };
        let plan = self.along(&spec, bounds, upgrade, base, plan, &extra)?;
        if !plan.breaks.is_empty() {
            return Ok(None);
        }
        let answers = tested.answers.clone();
        Ok(Some((
            planned,
            Tested {
                spec,
                extra,
                plan,
                answers,
            },
        )))
    }

    /// One solve of the layer of `spec` with `extra` added to its bounds, and its plan.
    fn layer_solved(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: Option<&Plan>,
        extra: &[Requirement],
    ) -> Result<Option<(PlannedEnvironment, Plan)>, ProposeError> {
        let mut constraints = Self::layer_bounds(spec, bounds);
        constraints.extend(extra.iter().cloned());
        self.layer_build(spec, bounds, upgrade, base, constraints)
    }
}

/// What the safe layer's first plan said that its solve alone does not: its warnings (the dists
/// it keeps out or holds), the blockers of its held-back lines, and the reasons of the
/// dependents it takes along to their fixing releases (where the new plan moves them the same).
fn carry_decorations(first: &Plan, plan: &mut Plan, bounds: &Bounds) {
    for warning in &first.warnings {
        if !plan.warnings.contains(warning) {
            plan.warnings.push(warning.clone());
        }
    }
    for held in &mut plan.held_back {
        let Some(before) = first
            .held_back
            .iter()
            .find(|h| h.name == held.name && h.newest == held.newest)
        else {
            continue;
        };
        for blocker in &before.blockers {
            if !held.blockers.contains(blocker) {
                held.blockers.push(blocker.clone());
            }
        }
    }
    for change in &mut plan.changes {
        if !bounds.along.contains_key(&change.name) {
            continue;
        }
        if let Some(before) = first
            .changes
            .iter()
            .find(|c| c.name == change.name && c.from == change.from && c.to == change.to)
        {
            change.reasons = before.reasons.clone();
        }
    }
}
