//! Stage 5: what to verify after a plan (or any change), and running the check.
//!
//! In: an [`Inventory`] (the environment before the plan, or as it is now), optionally a
//! [`Plan`], the [`Policy`]'s smoke tests, and `--all`. Out: a [`VerifySpec`], the data
//! `verify.py` embeds ([`script`] writes the script): the versions the plan must
//! have landed, the overrides `pip check` accepts, every dist whose modules are imported (each
//! changed dist, each dependent whose requirement the plan overrides, every installed dist that
//! depends on a changed dist directly or transitively, every installed dist whose files import a
//! changed dist's module at import time though it does not require it; with `--all`, every
//! installed dist) and
//! the smoke tests the changes trigger. [`run`] runs a script with the environment's interpreter
//! and reads back its [`report`].

pub(crate) mod caches;
pub(crate) mod call_time;
pub(crate) mod deep;
pub(crate) mod report;
pub(crate) mod run;
pub(crate) mod script;

use std::collections::BTreeMap;
use std::str::FromStr as _;

use pep440_rs::Version;
use pep508_rs::PackageName;
use serde::Serialize;

use crate::inventory::graph::DependencyGraph;
use crate::inventory::hashing::in_parallel;
use crate::inventory::importers::ImportIndex;
use crate::inventory::{InstalledDist, Inventory};
use crate::plan::{Override, Plan, PlanKind};
use crate::risk::Policy;
use crate::risk::smoke::{Hardware, SmokeTest, Trigger};

pub(crate) use deep::{CitedName, DeepModule};

pub(crate) use report::{VerifyMode, VerifyReport};

/// `schema` of the embedded spec.
pub(crate) const SPEC_SCHEMA: &str = "planner-verify-spec/1";

/// Seconds one import may take before it is killed and failed.
pub(crate) const IMPORT_TIMEOUT: u32 = 180;

/// `--all`: seconds the whole check may take: the imports below the top level (run after every
/// top-level and first-level import) start only while they last; what is left when they are
/// spent is listed, not run. `planner verify` counts them from its own start, verify.py alone
/// from the script's.
pub(crate) const ALL_DEEP_BUDGET: u32 = 30;

/// What `verify.py` checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct VerifySpec {
    /// Always [`SPEC_SCHEMA`].
    pub schema: &'static str,
    /// The plan verified, if any.
    pub plan: Option<PlanRef>,
    /// `--all`: every installed dist and every smoke test whose package is installed.
    pub all: bool,
    /// Versions the plan must have landed (`None`: removed).
    pub expect: Vec<Expect>,
    /// The overrides `pip check` accepts.
    pub overrides: Vec<Override>,
    /// The dists whose modules are imported, sorted by name.
    pub dists: Vec<DistTarget>,
    /// Run `pip check`.
    pub pip_check: bool,
    /// Seconds per import.
    pub import_timeout: u32,
    /// `--all`: seconds for the imports below the top level ([`ALL_DEEP_BUDGET`]).
    pub budget: Option<u32>,
    /// The smoke tests selected, in policy order.
    pub smoke: Vec<SmokeRef>,
    /// The plan's call-time claims ([`call_time::claims`]): what a kept dist's function needs
    /// from a changed dist, checked without running the function (`call-time:` checks).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub call_time: Vec<call_time::CallTimeClaim>,
}

/// The plan a spec verifies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct PlanRef {
    /// Which alternative.
    pub kind: PlanKind,
    /// Its title.
    pub title: String,
}

/// A version the plan must have landed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Expect {
    /// The dist.
    pub name: PackageName,
    /// The planned version (`None`: removed).
    pub version: Option<Version>,
    /// The version before the plan (`None`: added): a run that finds every change still at it
    /// runs before the change and records the baseline.
    pub from: Option<Version>,
}

/// Why a dist's modules are imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Why {
    /// The plan changes it.
    Changed,
    /// The plan overrides its declared requirement.
    OverriddenDependent,
    /// It depends on a changed dist, directly or transitively.
    Dependent,
    /// Its files import a changed dist's module when they are imported, though it does not
    /// require that dist (an undeclared import, or one declared only under an extra).
    Importer,
    /// `--all`.
    Installed,
}

/// One dist to import.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct DistTarget {
    /// The dist.
    pub name: PackageName,
    /// Why.
    pub why: Why,
    /// The changed dist that put it here (dependents and overridden dependents).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<PackageName>,
    /// For an importer: the import that makes it one (`transformers imports jinja2
    /// (transformers/utils/chat_template_utils.py, line 36)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// Also import its first-level public subpackages (changed and overridden-dependent dists).
    pub subpackages: bool,
    /// Modules below the top level that import a changed dist (or, for a changed dist, its
    /// modules that such files import), found by the static import analysis ([`deep`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deep: Vec<DeepModule>,
    /// Names its files import from a changed dist that a risk factor cites as missing and that
    /// are no module ([`deep::cited_names`]): each module imported, then the name looked up.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<CitedName>,
}

/// One selected smoke test, with its check's source as data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SmokeRef {
    /// The test's name.
    pub name: String,
    /// The package it exercises (may hold one `*`).
    pub package: String,
    /// What it needs.
    pub hardware: Hardware,
    /// Seconds before it is killed.
    pub timeout: u32,
    /// Why it was selected.
    pub why: String,
    /// The check's Python source.
    pub code: String,
}

/// Select what to verify. `plan` is checked against `inventory` as it was before the plan (or
/// as it is, for `planner verify`); with `all`, every installed dist and smoke test joins.
pub(crate) fn select(
    plan: Option<&Plan>,
    inventory: &Inventory,
    policy: &Policy,
    all: bool,
) -> VerifySpec {
    let graph = DependencyGraph::build(inventory);
    let mut dists: BTreeMap<PackageName, DistTarget> = BTreeMap::new();
    let mut add = |name: &PackageName, why: Why, via: Option<&PackageName>| {
        dists.entry(name.clone()).or_insert_with(|| DistTarget {
            name: name.clone(),
            why,
            via: via.cloned(),
            evidence: None,
            subpackages: matches!(why, Why::Changed | Why::OverriddenDependent),
            deep: Vec::new(),
            names: Vec::new(),
        });
    };
    if let Some(plan) = plan {
        for change in plan.changes.iter().filter(|c| c.to.is_some()) {
            add(&change.name, Why::Changed, None);
        }
        for edge in &plan.overrides {
            add(
                &edge.dependent,
                Why::OverriddenDependent,
                Some(&edge.package),
            );
        }
        for change in &plan.changes {
            for dependent in graph.transitive_dependents(&change.name) {
                let removed = plan
                    .change(dependent.name())
                    .is_some_and(|c| c.to.is_none());
                if !removed {
                    add(dependent.name(), Why::Dependent, Some(&change.name));
                }
            }
        }
    }
    if all {
        for dist in &inventory.dists {
            add(dist.name(), Why::Installed, None);
        }
    }
    // One read of every dist's import lines and extension modules (for the changed dists' names)
    // serves the importers and then the deep modules of the dists selected.
    let index = plan.map_or_else(ImportIndex::default, |p| {
        let changed = tops_of(inventory, &mut p.changes.iter().map(|c| &c.name));
        ImportIndex::of_modules(changed.into_keys().collect())
    });
    if let Some(plan) = plan {
        add_importers(plan, inventory, &index, &mut dists);
    }
    add_deep_modules(plan, &graph, all, &index, &mut dists);
    VerifySpec {
        schema: SPEC_SCHEMA,
        plan: plan.map(|p| PlanRef {
            kind: p.kind,
            title: p.title.clone(),
        }),
        all,
        expect: plan
            .map(|p| {
                p.changes
                    .iter()
                    .map(|c| Expect {
                        name: c.name.clone(),
                        version: c.to.clone(),
                        from: c.from.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        overrides: plan.map(|p| p.overrides.clone()).unwrap_or_default(),
        dists: dists.into_values().collect(),
        pip_check: true,
        import_timeout: IMPORT_TIMEOUT,
        budget: all.then_some(ALL_DEEP_BUDGET),
        smoke: select_smoke(plan, &graph, policy, all),
        call_time: plan
            .map(|p| call_time::claims(p, inventory))
            .unwrap_or_default(),
    }
}

/// The installed dists not selected yet whose files import a changed (or removed) dist's module
/// at import time ([`ImportIndex::importers`]), each with the import that makes it one; not
/// one the plan removes. Then the other dists the plan's import factors cite (those that fail
/// through a dist they import: transformers importing a Jinja2 that fails beside MarkupSafe 3),
/// each with its cited import.
fn add_importers(
    plan: &Plan,
    inventory: &Inventory,
    index: &ImportIndex,
    dists: &mut BTreeMap<PackageName, DistTarget>,
) {
    let tops: BTreeMap<String, PackageName> = plan
        .changes
        .iter()
        .filter_map(|c| inventory.get(&c.name))
        .flat_map(|d| {
            d.top_level
                .iter()
                .map(move |t| (t.clone(), d.name().clone()))
        })
        .collect();
    for found in index.importers(inventory, &tops) {
        let removed = plan.change(&found.dist).is_some_and(|c| c.to.is_none());
        if removed || dists.contains_key(&found.dist) {
            continue;
        }
        let evidence = format!("{} imports {} ({})", found.dist, found.module, found.cite());
        dists.insert(
            found.dist.clone(),
            DistTarget {
                name: found.dist.clone(),
                why: Why::Importer,
                via: Some(found.provider.clone()),
                evidence: Some(evidence),
                subpackages: false,
                deep: Vec::new(),
                names: Vec::new(),
            },
        );
    }
    for (provider, c) in deep::citations(&plan.risk) {
        let (Ok(dist), Ok(via)) = (
            PackageName::from_str(&c.dist),
            PackageName::from_str(&provider),
        ) else {
            continue;
        };
        let removed = plan.change(&dist).is_some_and(|c| c.to.is_none());
        if removed || dists.contains_key(&dist) || inventory.get(&dist).is_none() {
            continue;
        }
        let evidence = format!(
            "{} imports {} ({}, line {}), which fails on import after the plan",
            c.dist, c.module, c.file, c.line
        );
        dists.insert(
            dist.clone(),
            DistTarget {
                name: dist,
                why: Why::Importer,
                via: Some(via),
                evidence: Some(evidence),
                subpackages: false,
                deep: Vec::new(),
                names: Vec::new(),
            },
        );
    }
}

/// Every dist's modules that import a changed dist (with `all`, a dist it requires), and the
/// changed dists' modules those files import; the files the plan's `import-target-missing`
/// factors cite are always among them, and so are the changed dists' submodules those factors
/// name as missing ([`deep::cited_submodules`]), under their importer; the names they cite that
/// are no module, imported where importing the file does not run the import (in a function), go
/// to the importer's [`DistTarget::names`].
fn add_deep_modules(
    plan: Option<&Plan>,
    graph: &DependencyGraph<'_>,
    all: bool,
    index: &ImportIndex,
    dists: &mut BTreeMap<PackageName, DistTarget>,
) {
    let inventory = graph.inventory();
    let changed = plan
        .map(|p| tops_of(inventory, &mut p.changes.iter().map(|c| &c.name)))
        .unwrap_or_default();
    let mut found = read_deep_modules(graph, all, &changed, index, dists);
    for (dist_name, file, provider) in plan.map(|p| deep::cited_files(&p.risk)).unwrap_or_default()
    {
        let Some(dist) = PackageName::from_str(&dist_name)
            .ok()
            .and_then(|name| inventory.get(&name))
        else {
            continue;
        };
        if let Some(module) = deep::module_of_path(&file, &deep::own_tops(dist)) {
            found
                .entry(dist.name().clone())
                .or_default()
                .push(DeepModule {
                    imports: PackageName::from_str(&provider)
                        .unwrap_or_else(|_| dist.name().clone()),
                    module,
                    file,
                    cited: true,
                    fan_in: 0,
                });
        }
    }
    let shipped = |name: &PackageName| {
        inventory
            .get(name)
            .and_then(|d| crate::inventory::record::inside_paths(&d.path))
    };
    for (importer, module) in plan
        .map(|p| deep::cited_submodules(&p.risk, shipped))
        .unwrap_or_default()
    {
        found.entry(importer).or_default().push(module);
    }
    for (importer, name) in plan
        .map(|p| deep::cited_names(&p.risk, shipped))
        .unwrap_or_default()
    {
        let checked = inventory
            .get(&importer)
            .is_some_and(|d| deep::imported_at_module_level(d, &name));
        if let Some(target) = dists.get_mut(&importer).filter(|_| !checked) {
            target.names.push(name);
        }
    }
    let mut ranked: Vec<(PackageName, Vec<DeepModule>)> = Vec::new();
    for (name, mut modules) in found {
        if let Some(target) = dists.get_mut(&name) {
            target.deep.append(&mut modules);
            deep::dedup(&mut target.deep);
            ranked.push((target.name.clone(), std::mem::take(&mut target.deep)));
        }
    }
    let ranked = in_parallel(&ranked, |(name, modules)| {
        let mut modules = modules.clone();
        if let Some(dist) = inventory.get(name) {
            deep::rank_by_fan_in(dist, &mut modules);
        }
        (name.clone(), modules)
    });
    for (name, modules) in ranked {
        if let Some(target) = dists.get_mut(&name) {
            target.deep = modules;
        }
    }
}

/// The top-level module names of the installed dists among `names`, each with its dist.
fn tops_of(
    inventory: &Inventory,
    names: &mut dyn Iterator<Item = &PackageName>,
) -> deep::ChangedTops {
    names
        .filter_map(|name| inventory.get(name))
        .flat_map(|d| {
            d.top_level
                .iter()
                .map(move |t| (t.clone(), d.name().clone()))
        })
        .collect()
}

/// The deep modules of each selected dist (its own files importing a changed dist or, with
/// `all`, one it requires) and of the changed dists (their modules that dependents import),
/// keyed by dist. Each dist's files are read and parsed on every core (with `--all`, every file
/// of the venv), but where `index` has read them already (the importers of a plan's changes):
/// then only the files that import a wanted module are parsed.
fn read_deep_modules(
    graph: &DependencyGraph<'_>,
    all: bool,
    changed: &deep::ChangedTops,
    index: &ImportIndex,
    dists: &BTreeMap<PackageName, DistTarget>,
) -> BTreeMap<PackageName, Vec<DeepModule>> {
    let inventory = graph.inventory();
    let mut found: BTreeMap<PackageName, Vec<DeepModule>> = BTreeMap::new();
    let work: Vec<(&InstalledDist, deep::ChangedTops, bool)> = dists
        .values()
        .filter_map(|target| {
            let dist = inventory.get(&target.name)?;
            let mut tops = changed.clone();
            if all {
                let requires = graph.dependencies(dist.name());
                tops.extend(tops_of(
                    inventory,
                    &mut requires.iter().filter_map(|(_, d)| d.map(|d| d.name())),
                ));
            }
            Some((dist, tops, target.why != Why::Installed))
        })
        .collect();
    let portions = deep::namespace_portions(&inventory.dists);
    let read = in_parallel(&work, |(dist, tops, theirs_too)| {
        let (own, theirs, compiled) = match index.read_dist(inventory, dist) {
            Some(_) if tops.is_empty() => Default::default(),
            Some((imported, named)) => {
                let (own, theirs) = deep::importing_modules_in(dist, imported, tops, &portions);
                let compiled = if *theirs_too {
                    deep::compiled_importing_in(dist, named, changed)
                } else {
                    BTreeMap::new()
                };
                (own, theirs, compiled)
            }
            None => {
                let (own, theirs) = deep::importing_modules(dist, tops, &portions);
                let compiled = if *theirs_too {
                    deep::compiled_importing(dist, changed, inventory)
                } else {
                    BTreeMap::new()
                };
                (own, theirs, compiled)
            }
        };
        (own, (*theirs_too).then_some(theirs), compiled)
    });
    for ((dist, _, _), (own, theirs, compiled)) in work.iter().zip(read) {
        found.entry(dist.name().clone()).or_default().extend(own);
        for (name, modules) in theirs.into_iter().flatten().chain(compiled) {
            found.entry(name).or_default().extend(modules);
        }
    }
    found
}

fn select_smoke(
    plan: Option<&Plan>,
    graph: &DependencyGraph<'_>,
    policy: &Policy,
    all: bool,
) -> Vec<SmokeRef> {
    let installed: Vec<&PackageName> = graph
        .inventory()
        .dists
        .iter()
        .map(|d| d.name())
        .chain(
            plan.into_iter()
                .flat_map(|p| p.changes.iter().map(|c| &c.name)),
        )
        .collect();
    let mut out = Vec::new();
    for smoke in &policy.smoke {
        let targets: Vec<&PackageName> = installed
            .iter()
            .copied()
            .filter(|name| smoke.matches(name.as_ref()))
            .collect();
        let why = plan
            .and_then(|plan| trigger(plan, graph, policy, smoke, &targets))
            .or_else(|| {
                (all && !targets.is_empty()).then(|| format!("--all: {} is installed", targets[0]))
            });
        if let Some(why) = why {
            out.push(SmokeRef {
                name: smoke.name.clone(),
                package: smoke.package.clone(),
                hardware: smoke.hardware,
                timeout: smoke.timeout,
                why,
                code: smoke.code.clone(),
            });
        }
    }
    out
}

/// The first change that triggers `smoke`, as a reason.
fn trigger(
    plan: &Plan,
    graph: &DependencyGraph<'_>,
    policy: &Policy,
    smoke: &SmokeTest,
    targets: &[&PackageName],
) -> Option<String> {
    for change in &plan.changes {
        let name = &change.name;
        for kind in &smoke.triggers {
            let hit = match kind {
                Trigger::Package => targets.contains(&name),
                Trigger::Dependents => graph
                    .dependencies(name)
                    .iter()
                    .any(|(req, _)| smoke.matches(req.name.as_ref())),
                Trigger::Dependencies => graph
                    .transitive_dependents(name)
                    .iter()
                    .any(|d| smoke.matches(d.name().as_ref())),
                Trigger::Coupled => targets
                    .iter()
                    .any(|t| policy.coupled_pair(name, t).is_some()),
            };
            if hit {
                let how = match kind {
                    Trigger::Package => String::new(),
                    Trigger::Dependents => format!(" (it requires {})", smoke.package),
                    Trigger::Dependencies => format!(" (a dependency of {})", smoke.package),
                    Trigger::Coupled => format!(" (coupled with {})", smoke.package),
                };
                return Some(format!("{name} changes{how}"));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
