//! What the risk model weighs of a plan: one change (or the plan's overridden edges) with the
//! planned environment and the [`Oracle`] in, [`ChangeFacts`] (dependents, broken imports, a
//! major line crossed before dependents were built for it), the dependents it breaks, the
//! recorded [`Override`]s and their [`BrokenEdgeFacts`] out.

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::{PlanBuilder, PlanSpec, Step};
use crate::inventory::InstalledDist;
use crate::inventory::imports::ImportUse;
use crate::metadata::requirement::{is_upper_bound, specifiers};
use crate::metadata::version_line::line_floor;
use crate::plan::call_time::call_time_missing;
use crate::plan::chain::{ChainWorld, Chained, Failing, chained_breaks, cited_import};
use crate::plan::imports_check;
use crate::plan::oracle::Oracle;
use crate::plan::planned::{PlannedEnvironment, applies_with};
use crate::plan::planned_imports::missing_planned_imports;
use crate::plan::proposal::{Break, BreakKind, Change, Override, UncheckedEvidence};
use crate::plan::version_checks::FailingCheck;
use crate::risk::{BrokenEdgeFacts, ChangeFacts, Citation};

impl PlanBuilder<'_> {
    /// What the risk model needs of one change, and the installed dists whose imports of it
    /// the planned release breaks.
    pub(in crate::plan) fn change_facts(
        &self,
        change: &Change,
        planned: &PlannedEnvironment,
        oracle: &dyn Oracle,
    ) -> (ChangeFacts, Importers) {
        let name = &change.name;
        let to = planned.dists.get(name);
        let mut facts = ChangeFacts {
            name: name.clone(),
            from: change.from.clone(),
            to: change.to.clone(),
            forced: change.forced,
            requested: false,
            unmanaged_source: self.unmanaged_source(name),
            released: to.and_then(|t| t.upload_time),
            installed_released: None,
            releases_back: None,
            yanked: to.and_then(|t| t.yanked.clone()),
            dependents: self.staying_dependents(name, planned),
            abi_dependents: Vec::new(),
            abi_mechanism: None,
            abi_carriers: Vec::new(),
            predating_dependents: Vec::new(),
            missing_imports: Vec::new(),
            missing_citations: Vec::new(),
            module_clashes: Vec::new(),
            planned_imports_missing: Vec::new(),
            planned_citations: Vec::new(),
            call_time_missing: Vec::new(),
            call_time_citations: Vec::new(),
        };
        let mut importers = Importers::default();
        if let (Some(from), Some(to)) = (&change.from, &change.to) {
            importers = self.missing_imports(&mut facts, (from, to), planned, oracle);
            if to < from {
                facts.installed_released = oracle.released(name, from);
                facts.releases_back = oracle.releases_back(name, to, from);
            }
        }
        self.line_crossing(&mut facts, planned, oracle);
        (facts, importers)
    }

    /// The imports of a changed dist in the installed files that the planned release breaks.
    /// An importer the plan moves too is left out (its planned files are not known). Importers
    /// that do not declare the dist are not counted as its dependents: on the corpus's training
    /// part that lowered the AUC (docs/risk-model.md). The kept dists that import a broken
    /// importer and fail with it follow ([`chained_breaks`]). Returns the importers it breaks.
    fn missing_imports(
        &self,
        facts: &mut ChangeFacts,
        (from, to): (&Version, &Version),
        planned: &PlannedEnvironment,
        oracle: &dyn Oracle,
    ) -> Importers {
        let uses = oracle.import_uses(&facts.name);
        let kept: Vec<&ImportUse> = uses
            .iter()
            .filter(|u| {
                u.dist != facts.name
                    && self.inventory.get(&u.dist).is_some_and(|d| {
                        planned
                            .dists
                            .get(&u.dist)
                            .is_some_and(|p| &p.version == d.version())
                    })
                    && self.fallback_may_run(u, planned)
            })
            .collect();
        let step = Step::new(oracle, UncheckedEvidence::CallTime);
        let call_time = call_time_missing(&facts.name, (from, to), &kept, &step);
        facts.call_time_missing = call_time.sentences;
        facts.call_time_citations = call_time.citations;
        let mut missing = imports_check::missing_imports(&facts.name, from, to, &kept, oracle);
        let removed = Step::new(oracle, UncheckedEvidence::RemovedModules);
        let (sentences, citations, refused) =
            self.gencode_refused_by(&facts.name, (from, to), &kept);
        missing.sentences.extend(sentences);
        missing.citations.extend(citations);
        missing.importers.extend(refused);
        missing.importers.sort();
        missing.importers.dedup();
        let failing: Vec<Failing> = missing
            .citations
            .iter()
            .filter(|c| !c.attribute)
            .filter_map(|c| failing_of(c, &facts.name, to))
            .collect();
        let chained = self.chained(failing, planned, oracle);
        let (sentences, citations, built) =
            self.built_modules_gone(&facts.name, (from, to), planned, &removed);
        missing.importers.extend(built);
        missing.importers.sort();
        missing.importers.dedup();
        facts.missing_imports = missing.sentences;
        facts.missing_imports.extend(sentences);
        facts.missing_imports.extend(chained.sentences);
        facts.missing_citations = missing.citations;
        facts.missing_citations.extend(citations);
        facts.missing_citations.extend(chained.citations);
        Importers {
            direct: missing.importers,
            chained: chained.dependents,
        }
    }

    /// The kept dists that fail with `failing` through their imports ([`chained_breaks`]).
    pub(in crate::plan) fn chained(
        &self,
        failing: Vec<Failing>,
        planned: &PlannedEnvironment,
        oracle: &dyn Oracle,
    ) -> Chained {
        if failing.is_empty() {
            return Chained::default();
        }
        let world = ChainWorld {
            inventory: self.inventory,
            planned,
            oracle: &Step::new(oracle, UncheckedEvidence::ImportChains),
            index: self.imports.index(),
        };
        chained_breaks(failing, &world)
    }

    /// The `planned-import-missing` sentences of each change, and the kept dists that fail with
    /// the planned releases through their imports (their sentences and citations added to the
    /// change's facts); the breaks those are.
    pub(in crate::plan) fn planned_import_facts(
        &self,
        change_facts: &mut [ChangeFacts],
        changes: &[Change],
        planned: &PlannedEnvironment,
        oracle: &dyn Oracle,
    ) -> Vec<Break> {
        let missing = missing_planned_imports(
            self.inventory,
            planned,
            changes,
            oracle,
            &self.planned_imports,
        );
        let mut breaks = Vec::new();
        for facts in change_facts.iter_mut() {
            let Some(to) = facts.to.clone() else { continue };
            let (sentences, mut chained) = self.fails_on_import(&facts.name, &to, planned, oracle);
            breaks.extend(chained.take_breaks(&facts.name, &to));
            facts.planned_imports_missing.extend(sentences);
            facts.planned_imports_missing.extend(chained.sentences);
            facts.planned_citations.extend(chained.citations);
        }
        for facts in change_facts {
            let (Some(found), Some(to)) = (missing.get(&facts.name), &facts.to) else {
                continue;
            };
            let mut chained = self.chained(found.failing.clone(), planned, oracle);
            breaks.extend(chained.take_breaks(&facts.name, to));
            let checks = std::mem::take(&mut facts.planned_imports_missing);
            facts.planned_imports_missing = found.sentences.clone();
            facts.planned_imports_missing.extend(checks);
            facts.planned_imports_missing.extend(chained.sentences);
            facts.planned_citations.extend(chained.citations);
        }
        breaks
    }

    /// Why `name==to` fails on import itself beside `planned` (a test of another dist's version
    /// in its own sources that holds there: [`Self::failing_version_checks`]; generated modules
    /// the planned protobuf refuses: [`Self::refused_gencode`]), one sentence each, and the kept dists that import it at import time and fail with it: pyarrow 26.0.1
    /// beside numpy 1.26.4 (`pyarrow/lib.pyx` line 41) takes down a dist whose module-level
    /// `import pyarrow` runs when it is imported.
    pub(in crate::plan) fn fails_on_import(
        &self,
        name: &PackageName,
        to: &Version,
        planned: &PlannedEnvironment,
        oracle: &dyn Oracle,
    ) -> (Vec<String>, Chained) {
        let checks = self.failing_version_checks(
            name,
            to,
            planned,
            &Step::new(oracle, UncheckedEvidence::VersionChecks),
        );
        let failing = checks.iter().map(failing_of_check).collect();
        let mut sentences: Vec<String> = checks.iter().map(FailingCheck::sentence).collect();
        let gencode = Step::new(oracle, UncheckedEvidence::GeneratedCode);
        sentences.extend(self.refused_gencode(name, to, planned, &gencode));
        (sentences, self.chained(failing, planned, oracle))
    }

    /// A change that crosses into a newer major line: which direct dependents were released
    /// before that line began, and which of those, or of the dists that import it without
    /// requiring it, link against it from compiled extensions.
    /// A dependent the plan moves too is judged by the release it moves to (jax moving with
    /// jaxlib is a jax released for the new line), not by the installed one.
    fn line_crossing(
        &self,
        change: &mut ChangeFacts,
        planned: &PlannedEnvironment,
        oracle: &dyn Oracle,
    ) {
        let (Some(from), Some(to)) = (change.from.clone(), change.to.clone()) else {
            return;
        };
        let floor = line_floor(&to);
        if line_floor(&from) >= floor {
            return;
        }
        let Some(line_start) = oracle.first_release_from(&change.name, &floor) else {
            return;
        };
        // A dist that imports it without requiring it (duckdb 0.8.1's extension names
        // `numpy.core.multiarray` and `_ARRAY_API`) is judged for the ABI only: it declared no
        // range to predate the line with.
        let requiring = change.dependents.direct.iter().map(|d| (d.clone(), true));
        let importing = change
            .dependents
            .importing
            .iter()
            .filter(|(d, _)| !change.dependents.direct.contains(d))
            .map(|(d, _)| (d.clone(), false));
        let judged: Vec<(PackageName, bool)> = requiring.chain(importing).collect();
        for (dependent, requires) in &judged {
            let Some(dist) = self.inventory.get(dependent) else {
                continue;
            };
            let version = planned
                .dists
                .get(dependent)
                .map_or(dist.version(), |d| &d.version);
            if oracle
                .released(dependent, version)
                .is_none_or(|released| released >= line_start)
                || self.declares_line(dist, &change.name, &floor)
            {
                continue;
            }
            if let Some(link) = oracle.abi_link(dependent, &change.name, &from, &to) {
                change.abi_dependents.push(dependent.clone());
                change.abi_mechanism = Some(link.mechanism.to_string());
                if let Some(carrier) = link.carrier {
                    change
                        .abi_carriers
                        .push((dependent.clone(), carrier.to_string()));
                }
            }
            if !change.forced && *requires {
                change.predating_dependents.push(dependent.clone());
            }
        }
        // One order for the dists that require it and those that only import it: by name
        // (each claim says which it is).
        change.abi_dependents.sort();
    }

    /// Whether `dist` declares an upper bound on `package` above the floor of a major line
    /// (scipy 1.13.1's `numpy<2.3` reaches into numpy's 2 line): it was built knowing that line,
    /// even though released before the line's first final release.
    fn declares_line(&self, dist: &InstalledDist, package: &PackageName, floor: &Version) -> bool {
        let markers = &self.inventory.environment.markers;
        dist.metadata.requires_dist.iter().any(|requirement| {
            &requirement.name == package
                && applies_with(requirement, markers, &[])
                && specifiers(requirement).is_some_and(|specifiers| {
                    specifiers
                        .iter()
                        .any(|c| is_upper_bound(c) && c.version() > floor)
                })
        })
    }

    /// Whether the clause `forced_version` violates is an upper bound declared before any
    /// release it excludes existed.
    fn defensive_bound(
        &self,
        dependent: &PackageName,
        dependent_version: &Version,
        requirement: &Requirement,
        forced_version: &Version,
        oracle: &dyn Oracle,
    ) -> bool {
        let Some(specifiers) = specifiers(requirement) else {
            return false;
        };
        let Some(bound) = specifiers
            .iter()
            .find(|clause| is_upper_bound(clause) && !clause.contains(forced_version))
        else {
            return false;
        };
        let excluded_since = oracle.first_release_from(&requirement.name, bound.version());
        let released = oracle.released(dependent, dependent_version);
        matches!((released, excluded_since), (Some(r), Some(e)) if r < e)
    }

    /// The overrides a plan records (sorted) and the broken edges the risk model weighs.
    pub(super) fn overrides(
        &self,
        spec: &PlanSpec<'_>,
        oracle: &dyn Oracle,
    ) -> (Vec<Override>, Vec<BrokenEdgeFacts>) {
        let planned = spec.planned;
        let reason = format!(
            "forced by `planner propose --allow-override` for {}",
            spec.targets
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let platform_specific =
            |name: &PackageName| planned.dists.get(name).is_some_and(|d| d.platform_specific);
        let mut overrides = Vec::new();
        let mut broken_edges = Vec::new();
        for edge in &planned.overridden {
            let Some((dependent, dependent_version)) = edge.dependent.dist() else {
                continue;
            };
            let package = &edge.original.name;
            let Some(forced_version) = planned.dists.get(package).map(|d| d.version.clone()) else {
                continue;
            };
            // An edge broken before the plan, which the plan keeps as installed.
            let kept = self
                .inventory
                .get(package)
                .is_some_and(|d| d.version() == &forced_version)
                && self
                    .inventory
                    .get(dependent)
                    .is_some_and(|d| d.version() == dependent_version);
            overrides.push(Override {
                dependent: dependent.clone(),
                dependent_version: dependent_version.clone(),
                requirement: edge.original.clone(),
                package: package.clone(),
                version: forced_version.clone(),
                replacement: edge.replacement.clone(),
                reason: if kept {
                    "broken before the plan; kept as installed".to_string()
                } else {
                    reason.clone()
                },
            });
            broken_edges.push(BrokenEdgeFacts {
                dependent: dependent.clone(),
                dependent_version: dependent_version.clone(),
                requirement: edge.original.clone(),
                forced_version: forced_version.clone(),
                dependent_platform_specific: platform_specific(dependent),
                forced_platform_specific: platform_specific(package),
                upstream: oracle.upstream(dependent, package, &forced_version),
                defensive_bound: self.defensive_bound(
                    dependent,
                    dependent_version,
                    &edge.original,
                    &forced_version,
                    oracle,
                ),
                kept,
            });
        }
        overrides.sort();
        (overrides, broken_edges)
    }
}

/// The installed dists a change breaks through their imports.
#[derive(Debug, Default)]
pub(in crate::plan) struct Importers {
    /// Those importing what the planned release no longer has.
    pub direct: Vec<PackageName>,
    /// Those importing one of `direct` (or one of these), which fails with it.
    pub chained: Vec<PackageName>,
}

/// The statement a citation of `import-target-missing` names, as a [`Failing`] one.
fn failing_of(citation: &Citation, changed: &PackageName, to: &Version) -> Option<Failing> {
    let module = &citation.module;
    let what = match &citation.name {
        Some(name) => format!("imports `{name}` from `{module}`"),
        None => format!("imports the module `{module}`"),
    };
    Some(Failing {
        dist: citation.dist.parse().ok()?,
        version: citation.version.parse().ok()?,
        planned: false,
        file: citation.file.clone(),
        line: citation.line,
        what: format!("{what}, which {changed} {to} does not have"),
        top_level: false,
        reached_only: false,
    })
}

/// A raising version test as the first link of an import chain: it sits outside every function
/// in a file its release's top-level package imports at module level
/// ([`crate::plan::version_checks`]), so it runs whenever that package is imported.
fn failing_of_check(check: &FailingCheck) -> Failing {
    Failing {
        dist: check.release.0.clone(),
        version: check.release.1.clone(),
        planned: true,
        file: check.file.clone(),
        line: check.line,
        what: check.what(),
        top_level: true,
        reached_only: true,
    }
}

/// The dependents one change breaks, as its facts say: the compiled dependents across its ABI
/// boundary, the importers of what its planned release no longer has, and the dists that
/// import those and fail with them.
pub(in crate::plan) fn plan_breaks(facts: &ChangeFacts, importers: &Importers) -> Vec<Break> {
    let Some(to) = &facts.to else {
        return Vec::new();
    };
    let abi = facts.abi_dependents.iter().map(|d| (d, BreakKind::Abi));
    let import = importers.direct.iter().map(|d| (d, BreakKind::Import));
    let chained = importers
        .chained
        .iter()
        .map(|d| (d, BreakKind::ImportChain));
    abi.chain(import)
        .chain(chained)
        .map(|(dependent, how)| Break {
            package: facts.name.clone(),
            to: to.clone(),
            dependent: dependent.clone(),
            how,
            cited: (how != BreakKind::Abi)
                .then(|| cited_import(&facts.missing_citations, dependent))
                .flatten(),
        })
        .collect()
}
