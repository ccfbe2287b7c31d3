//! The resolve loop: runs pubgrub over the provider, with prefetch threads beside it, and turns
//! its answer into a [`Resolution`] or a [`SolveError`].
//!
//! In: the index, the target environment and a [`SolveRequest`]. Out: a [`Resolution`] (each
//! chosen release with its metadata, its file and whether it is platform-specific, who requires
//! it, its extras, and the edges overrides replaced), or the failure worded by
//! [`super::explain`] from the catalog and the request.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use pep440_rs::Version;
use pep508_rs::PackageName;
use pubgrub::PubGrubError;

use crate::index::IndexSource;
use crate::inventory::Environment;

use super::candidates::InstallChoice;
use super::catalog::{Catalog, CatalogCore, PrefetchJob, prefetch_worker};
use super::error::{SolveError, Unavailable};
use super::explain;
use super::package::Pkg;
use super::provider::{Order, Provider};
use super::rules::{self, Rules};
use super::{Dependent, OverriddenEdge, Resolution, Resolved, ResolvedSource, SolveRequest, Via};

/// How many threads fetch likely-next metadata while pubgrub works, when reads wait on the
/// network; otherwise one per core (reading a warm cache is work for the CPU: more threads
/// than cores only add their stacks and allocator heaps, about a tenth of a warm resolve).
const PREFETCH_WORKERS: usize = 8;

/// The background readers for `index` (see [`PREFETCH_WORKERS`]).
fn prefetch_workers(index: &dyn IndexSource) -> usize {
    if index.waits_on_network() {
        PREFETCH_WORKERS
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(PREFETCH_WORKERS))
    }
}

/// Solve `request` for the target `env` against `index`.
pub(crate) fn solve(
    index: &dyn IndexSource,
    env: &Environment,
    request: &SolveRequest,
) -> Result<Resolution, SolveError> {
    let core = CatalogCore::new(index, env, &request.binary, rules::installed(request));
    solve_on(&core, request)
}

/// Solve `request` over `core` (its tables and metadata, and what this solve adds to them).
/// The core must read the index as the request does (see [`CatalogCore::serves`]); when it does
/// not, a core of the request's own is used.
pub(crate) fn solve_on(
    core: &CatalogCore<'_>,
    request: &SolveRequest,
) -> Result<Resolution, SolveError> {
    let rules = Rules::new(request, core.env());
    if !core.serves(&request.binary, &rules.installed) {
        let own = CatalogCore::new(
            core.index(),
            core.env(),
            &request.binary,
            rules.installed.clone(),
        );
        return solve_on(&own, request);
    }
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<PrefetchJob>();
        let rx = Arc::new(Mutex::new(rx));
        let done = Arc::new(AtomicBool::new(false));
        for _ in 0..prefetch_workers(core.index()) {
            let rx = rx.clone();
            let done = done.clone();
            scope.spawn(move || prefetch_worker(core, &rx, &done));
        }
        // Dropping the catalog (and its sender) at the end stops the workers.
        let catalog = Catalog::new(core, Some(tx));
        let result = run(&catalog, &rules, &done);
        done.store(true, Ordering::Relaxed);
        result
    })
}

/// Solve, then explain a failure; `done` stops the prefetch workers once pubgrub has ended
/// (what they would fetch next no solve uses; an explanation's reads go first).
///
/// A request that asks version ranges beside the installed dists it keeps (`propose
/// 'torch<2.9'`: every installed dist a bare root requirement, named first) is first solved with
/// those ranges decided first ([`Order::AskedFirst`]): the installed `nvidia-nccl-cu12 2.27.5`,
/// decided before torch, ruled out each CUDA 12 torch below 2.9 in turn down to 2.0.1 on CUDA
/// 11, where torch decided first takes 2.8.0 and the nccl it pins (as uv does). That attempt's
/// answer is kept only when it solves without a walk through an asked range's releases; when
/// it gives up, or finds no solution (the order changes how a failure is derived, never
/// whether there is one), the request is solved in the order met ([`Order::Met`]), on the same
/// catalog (nothing read twice), and that answer or failure is the one returned.
fn run(
    catalog: &Catalog<'_>,
    rules: &Rules<'_>,
    done: &AtomicBool,
) -> Result<Resolution, SolveError> {
    if rules.asked_ranges() > 0 {
        let provider = Provider::new(catalog, rules, Order::AskedFirst);
        let solved = pubgrub::resolve(&provider, Pkg::Root, Version::new([0]));
        match (solved, provider.gave_up()) {
            (Ok(selected), None) => {
                done.store(true, Ordering::Relaxed);
                return resolution(catalog, &provider, selected);
            }
            (_, Some(why)) => log::debug!("solve: the asked ranges first gave up ({why})"),
            (Err(_), None) => log::debug!("solve: the asked ranges first found no solution"),
        }
    }
    let provider = Provider::new(catalog, rules, Order::Met);
    let solved = pubgrub::resolve(&provider, Pkg::Root, Version::new([0]));
    done.store(true, Ordering::Relaxed);
    let selected = match solved {
        Ok(selected) => selected,
        Err(PubGrubError::NoSolution(tree)) => {
            return Err(SolveError::NoSolution(Box::new(explain::explain(
                tree,
                catalog,
                rules,
                &provider.coupled(),
            )?)));
        }
        Err(PubGrubError::ErrorRetrievingDependencies { source, .. })
        | Err(PubGrubError::ErrorChoosingVersion { source, .. })
        | Err(PubGrubError::ErrorInShouldCancel(source)) => return Err(source),
    };
    resolution(catalog, &provider, selected)
}

/// The resolution of what pubgrub selected.
fn resolution(
    catalog: &Catalog<'_>,
    provider: &Provider<'_, '_>,
    selected: pubgrub::SelectedDependencies<Pkg, Version>,
) -> Result<Resolution, SolveError> {
    let chosen: HashMap<Pkg, Version> = selected.into_iter().collect();
    let mut packages = BTreeMap::new();
    for (pkg, version) in &chosen {
        if let Pkg::Dist(name) = pkg {
            packages.insert(name.clone(), resolved(catalog, name, version)?);
        }
    }
    record_via(provider, &chosen, &mut packages);
    let overridden = kept_overrides(provider.overridden(), &packages);
    Ok(Resolution {
        packages,
        overridden,
    })
}

/// One chosen release, with what later stages need of it (read from the catalog's caches: the
/// solver read its metadata to decide it).
fn resolved(
    catalog: &Catalog<'_>,
    name: &PackageName,
    version: &Version,
) -> Result<Resolved, SolveError> {
    let table = catalog.table(name)?;
    let source = match table.get(version) {
        Some(entry) if matches!(table.choice(entry), InstallChoice::Installed { .. }) => {
            ResolvedSource::Installed
        }
        Some(entry) => ResolvedSource::Index {
            file: table.file(entry).map(|f| Box::new(f.clone())),
        },
        None => ResolvedSource::Index { file: None },
    };
    let metadata = catalog
        .solver_release_metadata(name, &table, version)?
        .map_err(|reason| chosen_without_metadata(name, version, reason))?;
    Ok(Resolved {
        version: version.clone(),
        source,
        metadata,
        platform_specific: table.platform_specific(version),
        via: BTreeSet::new(),
        extras: BTreeSet::new(),
    })
}

/// A chosen release always had its metadata read (its dependencies come from it); this is the
/// error should that ever not hold.
fn chosen_without_metadata(
    name: &PackageName,
    version: &Version,
    reason: Unavailable,
) -> SolveError {
    SolveError::Internal {
        message: format!("{name}=={version} was chosen but its metadata is unavailable: {reason}"),
    }
}

/// Who requires each package (`via`) and the extras asked of it, from the recorded edges.
fn record_via(
    provider: &Provider<'_, '_>,
    chosen: &HashMap<Pkg, Version>,
    packages: &mut BTreeMap<PackageName, Resolved>,
) {
    for (pkg, version) in chosen {
        if let Pkg::Extra(name, extra) = pkg
            && let Some(resolved) = packages.get_mut(name)
        {
            resolved.extras.insert(extra.clone());
        }
        let Some(edges) = provider.recorded_edges(pkg, version) else {
            continue;
        };
        let via = match pkg {
            Pkg::Root => Via::Root,
            Pkg::Dist(name) | Pkg::Extra(name, _) => Via::Package(name.clone()),
            Pkg::Python => continue,
        };
        for (dep, _) in edges.iter() {
            if let Some(dep_name) = dep.name()
                && pkg.name() != Some(dep_name)
                && let Some(resolved) = packages.get_mut(dep_name)
            {
                resolved.via.insert(via.clone());
            }
        }
    }
}

/// The overridden edges of the root and of the resolved versions, sorted, without duplicates.
fn kept_overrides(
    overridden: Vec<OverriddenEdge>,
    packages: &BTreeMap<PackageName, Resolved>,
) -> Vec<OverriddenEdge> {
    let mut kept: Vec<OverriddenEdge> = overridden
        .into_iter()
        .filter(|edge| match &edge.dependent {
            Dependent::Root => true,
            Dependent::Dist { name, version } => {
                packages.get(name).is_some_and(|r| &r.version == version)
            }
        })
        .collect();
    kept.sort_by(|a, b| {
        (
            &a.dependent,
            a.original.to_string(),
            a.replacement.to_string(),
        )
            .cmp(&(
                &b.dependent,
                b.original.to_string(),
                b.replacement.to_string(),
            ))
    });
    kept.dedup();
    kept
}
