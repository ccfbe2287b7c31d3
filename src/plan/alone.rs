//! What moving one installed dist alone breaks, by the evidence a plan weighs: the question
//! `planner outdated` asks of each release it would offer as "Can move to".
//!
//! In: the inventory, the index and its binary policy; per question, an installed dist and a
//! release of it. Out: the [`Break`]s the plan builder finds in a plan that moves only that
//! dist ([`PlanBuilder`]'s own change facts, through the [`IndexAndFiles`] evidence `propose`
//! uses): installed dependents whose compiled extensions link against it and were released before
//! the release's major line (`abi-break`), installed files importing a module or a name the
//! release no longer has (`import-target-missing`, with the sentences naming each import).
//! Both come from planner's analysis of the installed files and of the index's release dates
//! and wheels, not from any dist's declared requirements.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use pep440_rs::Version;
use pep508_rs::PackageName;

use super::builder::{Gaps, PlanBuilder, plan_breaks};
use super::installed_imports::InstalledImports;
use super::oracle::IndexAndFiles;
use super::planned::{PlanDist, PlannedEnvironment};
use super::proposal::{Break, BreakKind, Change, Unchecked};
use crate::index::{BinaryPolicy, IndexSource};
use crate::inventory::Inventory;
use crate::risk::{Citation, Policy};
use crate::solve::{Catalog, CatalogCore};

/// What moving one dist alone breaks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AloneBreaks {
    /// Each installed dependent it breaks, and how.
    pub breaks: Vec<Break>,
    /// The failing imports, one sentence each (the first few, then how many more).
    pub imports: Vec<String>,
    /// The uses in function bodies that fail when they run, one sentence each (propose's
    /// `call-time-target-missing` sentences), each dist among `breaks` as a
    /// [`BreakKind::CallTime`].
    pub call_time: Vec<String>,
    /// The evidence of each `abi-break`, by dependent: the sentence `propose`'s factor cites
    /// ([`crate::risk::abi_citations`]).
    pub abi: Vec<(PackageName, String)>,
    /// The release fails on import itself: a test of another dist's version in its own sources
    /// that holds for the installed one, one sentence each (pyarrow 26.0.1's `pyarrow/lib.pyx`
    /// line 42 beside numpy 1.26.4).
    pub fails: Vec<String>,
    /// The checks that went without the release's wheel files (a read failed: `--offline` and
    /// not cached, not served): its "nothing breaks" is not a clean answer.
    pub unchecked: Vec<Unchecked>,
}

/// The evidence over one inventory and index; ask it through [`with_alone_evidence`].
pub(crate) struct AloneEvidence<'a> {
    inventory: &'a Inventory,
    builder: PlanBuilder<'a>,
    evidence: IndexAndFiles<'a>,
    /// The installed set as a planned environment: nothing else moves.
    installed: PlannedEnvironment,
}

/// Run `ask` with the evidence over `inventory` and `index` (what it reads is read once; the
/// installed files' imports in `imports`, which other questions over the inventory share).
pub(crate) fn with_alone_evidence<R>(
    index: &dyn IndexSource,
    inventory: &Inventory,
    binary: &BinaryPolicy,
    imports: &Arc<InstalledImports>,
    ask: impl FnOnce(&AloneEvidence<'_>) -> R,
) -> R {
    // The evidence reads release dates, file lists and module files, never an installed
    // version's metadata through the catalog: no installed metadata stands in.
    let core = CatalogCore::new(index, &inventory.environment, binary, HashMap::new());
    // The policy weighs factors; the facts asked here do not depend on it.
    let policy = Policy::builtin();
    let evidence = AloneEvidence {
        inventory,
        builder: PlanBuilder::new(inventory, &policy, None).sharing(imports),
        evidence: IndexAndFiles::new(index, Catalog::new(&core, None), inventory).sharing(imports),
        installed: installed_environment(inventory),
    };
    ask(&evidence)
}

impl AloneEvidence<'_> {
    /// What moving the installed `name` alone to `to` breaks (nothing when `name` is not
    /// installed).
    pub(crate) fn breaks(&self, name: &PackageName, to: &Version) -> AloneBreaks {
        let Some(dist) = self.inventory.get(name) else {
            return AloneBreaks::default();
        };
        let change = Change::asked(
            name,
            Some(dist.version().clone()),
            to,
            dist.top_level.clone(),
        );
        let gaps = Gaps::new(&self.evidence);
        let (facts, importers) = self.builder.change_facts(&change, &self.installed, &gaps);
        let (fails, mut chained) = self
            .builder
            .fails_on_import(name, to, &self.installed, &gaps);
        let unchecked = gaps.unchecked(std::slice::from_ref(&change), None);
        let mut breaks = plan_breaks(&facts, &importers);
        breaks.extend(chained.take_breaks(name, to));
        breaks.extend(call_time_breaks(&facts.call_time_citations, name, to));
        let abi = crate::risk::abi_citations(&facts);
        let mut imports = facts.missing_imports;
        imports.extend(chained.sentences);
        AloneBreaks {
            breaks,
            imports,
            call_time: facts.call_time_missing,
            abi,
            fails,
            unchecked,
        }
    }
}

/// One [`BreakKind::CallTime`] per dist a call-time citation names (its first use cited).
fn call_time_breaks(citations: &[Citation], name: &PackageName, to: &Version) -> Vec<Break> {
    let mut breaks: Vec<Break> = Vec::new();
    for cited in citations {
        let Ok(dependent) = cited.dist.parse::<PackageName>() else {
            continue;
        };
        if breaks.iter().any(|b| b.dependent == dependent) {
            continue;
        }
        breaks.push(Break {
            package: name.clone(),
            to: to.clone(),
            dependent,
            how: BreakKind::CallTime,
            cited: Some(cited.clone()),
        });
    }
    breaks
}

/// The installed set as the plan builder reads a planned environment.
fn installed_environment(inventory: &Inventory) -> PlannedEnvironment {
    let dists: BTreeMap<PackageName, PlanDist> = inventory
        .dists
        .iter()
        .map(|dist| {
            let planned = PlanDist {
                version: dist.version().clone(),
                requires_dist: dist.metadata.requires_dist.clone(),
                yanked: None,
                upload_time: None,
                platform_specific: false,
                extras: Vec::new(),
            };
            (dist.name().clone(), planned)
        })
        .collect();
    PlannedEnvironment {
        dists,
        overridden: Vec::new(),
    }
}
