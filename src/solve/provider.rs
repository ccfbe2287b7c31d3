//! The pubgrub [`DependencyProvider`] over an [`IndexSource`] and the installed set.
//!
//! In: the index, the target environment and a [`SolveRequest`]. Out: pubgrub's answers
//! (versions to try, dependencies or why a version is unusable), and after `resolve` either a
//! [`Resolution`] or the derivation tree handed to [`super::explain`].
//!
//! pubgrub is single-threaded and calls the provider through `&self`, so the caches are
//! `RefCell`s. Every answer depends only on the request and the index's data, never on timing
//! (prefetch only warms the index's cache), so a resolution is deterministic.

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pep440_rs::Version;
use pep508_rs::{ExtraName, PackageName, Requirement, VersionOrUrl};
use pubgrub::{
    Dependencies, DependencyProvider, PackageResolutionStatistics, PubGrubError, Ranges,
};

use crate::index::{IndexError, IndexSource};
use crate::inventory::Environment;
use crate::metadata::CoreMetadata;

use super::candidates::{Candidate, VersionEntry, VersionTable};
use super::error::{SolveError, Unavailable};
use super::package::Pkg;
use super::ranges::{
    is_exact_pin, names_prerelease, render, requires_python_to_ranges, specifiers_to_ranges,
};
use super::{
    Dependent, OverriddenEdge, Override, PrereleaseMode, Resolution, Resolved, ResolvedSource,
    SolveRequest, Via, explain,
};

/// A dependency edge as pubgrub takes it.
pub(crate) type Edge = (Pkg, Ranges<Version>);

/// The dependency edges computed per decided (package, version).
type EdgeCache = HashMap<(Pkg, Version), Arc<Vec<Edge>>>;

/// The provider. See the module docs.
pub(crate) struct Provider<'a> {
    pub(crate) index: &'a dyn IndexSource,
    pub(crate) env: &'a Environment,
    pub(crate) request: &'a SolveRequest,
    /// The target Python, release only (`3.12.0`).
    pub(crate) python: Version,
    overrides: HashMap<PackageName, Vec<&'a Override>>,
    /// Constraint ranges per name (markers already evaluated).
    constraints: HashMap<PackageName, Ranges<Version>>,
    /// Names whose root requirements, constraints or overrides name a pre-release.
    explicit_prerelease: HashSet<PackageName>,
    /// Exact pins (`==`, `===`) among root requirements, constraints and overrides.
    pins: HashMap<PackageName, Vec<Ranges<Version>>>,
    installed: HashMap<PackageName, Arc<CoreMetadata>>,
    tables: RefCell<HashMap<PackageName, Arc<VersionTable>>>,
    metadata: RefCell<HashMap<(PackageName, Version), Arc<CoreMetadata>>>,
    edges: RefCell<EdgeCache>,
    overridden: RefCell<Vec<OverriddenEdge>>,
    seen: RefCell<HashMap<Pkg, usize>>,
    prefetched: RefCell<HashSet<PackageName>>,
    /// Where to send likely-next releases for their metadata to be fetched in the background.
    prefetch: Option<Sender<PrefetchJob>>,
    conflicts: RefCell<HashMap<Pkg, u32>>,
    steps: Cell<u64>,
    start: Instant,
}

impl<'a> Provider<'a> {
    pub(crate) fn new(
        index: &'a dyn IndexSource,
        env: &'a Environment,
        request: &'a SolveRequest,
        prefetch: Option<Sender<PrefetchJob>>,
    ) -> Self {
        let no_extras: &[ExtraName] = &[];
        let mut overrides: HashMap<PackageName, Vec<&Override>> = HashMap::new();
        for o in &request.overrides {
            overrides
                .entry(o.requirement.name.clone())
                .or_default()
                .push(o);
        }
        let mut constraints: HashMap<PackageName, Ranges<Version>> = HashMap::new();
        for c in &request.constraints {
            if !c.evaluate_markers(&env.markers, no_extras) {
                continue;
            }
            if let Some(VersionOrUrl::VersionSpecifier(specs)) = &c.version_or_url {
                let range = specifiers_to_ranges(specs);
                let entry = constraints
                    .entry(c.name.clone())
                    .or_insert_with(Ranges::full);
                *entry = entry.intersection(&range);
            }
        }
        let mut explicit_prerelease = HashSet::new();
        let mut pins: HashMap<PackageName, Vec<Ranges<Version>>> = HashMap::new();
        let explicit = request
            .requirements
            .iter()
            .chain(&request.constraints)
            .chain(request.overrides.iter().map(|o| &o.requirement));
        for r in explicit {
            if let Some(VersionOrUrl::VersionSpecifier(specs)) = &r.version_or_url {
                if names_prerelease(specs) {
                    explicit_prerelease.insert(r.name.clone());
                }
                if is_exact_pin(specs) {
                    pins.entry(r.name.clone())
                        .or_default()
                        .push(specifiers_to_ranges(specs));
                }
            }
        }
        let installed = request
            .preferences
            .iter()
            .map(|(name, c)| (name.clone(), c.metadata.clone()))
            .collect();
        Provider {
            index,
            env,
            request,
            python: env.python_version.only_release(),
            overrides,
            constraints,
            explicit_prerelease,
            pins,
            installed,
            tables: RefCell::default(),
            metadata: RefCell::default(),
            edges: RefCell::default(),
            overridden: RefCell::default(),
            seen: RefCell::default(),
            prefetched: RefCell::default(),
            prefetch,
            conflicts: RefCell::default(),
            steps: Cell::new(0),
            start: Instant::now(),
        }
    }

    /// The version table of a project (fetched once).
    pub(crate) fn table(&self, name: &PackageName) -> Result<Arc<VersionTable>, SolveError> {
        if let Some(table) = self.tables.borrow().get(name) {
            return Ok(table.clone());
        }
        let project = self
            .index
            .project(name)
            .map_err(|source| SolveError::Index {
                package: name.clone(),
                source: Box::new(source),
            })?;
        let table = Arc::new(VersionTable::build(
            project,
            self.env,
            &self.request.binary,
            self.installed.get(name),
        ));
        self.tables.borrow_mut().insert(name.clone(), table.clone());
        Ok(table)
    }

    /// The table if it was already fetched (for explanations).
    pub(crate) fn cached_table(&self, name: &PackageName) -> Option<Arc<VersionTable>> {
        self.tables.borrow().get(name).cloned()
    }

    /// The names known at this point, for "did you mean": projects the index answered for, the
    /// requirements, constraints and overrides, what the releases read so far require, the
    /// installed distributions and what they require (less the names the index is known not to have); and the installed import names
    /// (lowercase) with their distributions.
    pub(crate) fn known_names(
        &self,
    ) -> (
        BTreeSet<PackageName>,
        BTreeMap<String, BTreeSet<PackageName>>,
    ) {
        let tables = self.tables.borrow();
        let mut known: BTreeSet<PackageName> = tables
            .iter()
            .filter(|(_, t)| t.project.is_some() || !t.versions.is_empty())
            .map(|(n, _)| n.clone())
            .collect();
        let request = self.request;
        let mut named: Vec<&PackageName> = request
            .requirements
            .iter()
            .chain(&request.constraints)
            .chain(request.overrides.iter().map(|o| &o.requirement))
            .map(|r| &r.name)
            .collect();
        named.extend(request.preferences.keys());
        // What the releases read so far require.
        let seen = self.seen.borrow();
        named.extend(seen.keys().filter_map(Pkg::name));
        for c in request.preferences.values() {
            named.extend(c.metadata.requires_dist.iter().map(|r| &r.name));
        }
        for name in named {
            let missing = tables
                .get(name)
                .is_some_and(|t| t.project.is_none() && t.versions.is_empty());
            if !missing {
                known.insert(name.clone());
            }
        }
        let mut imports: BTreeMap<String, BTreeSet<PackageName>> = BTreeMap::new();
        for (name, c) in &request.preferences {
            for import in &c.import_names {
                imports
                    .entry(import.to_lowercase())
                    .or_default()
                    .insert(name.clone());
            }
        }
        (known, imports)
    }

    /// Whether the user wrote a requirement, constraint or override on `name`.
    pub(crate) fn user_named(&self, name: &PackageName) -> bool {
        let request = self.request;
        request
            .requirements
            .iter()
            .chain(&request.constraints)
            .chain(request.overrides.iter().map(|o| &o.requirement))
            .any(|r| &r.name == name)
    }

    /// Whether pre-releases of `name` are candidates.
    pub(crate) fn prereleases_allowed(&self, name: &PackageName, table: &VersionTable) -> bool {
        match self.request.prerelease {
            PrereleaseMode::Allow => true,
            PrereleaseMode::Disallow => false,
            PrereleaseMode::IfNecessary => {
                self.explicit_prerelease.contains(name) || !table.has_final
            }
        }
    }

    /// Whether a yanked `name==version` may be used (PEP 592: an exact pin asks for it).
    pub(crate) fn yank_allowed(&self, name: &PackageName, version: &Version) -> bool {
        self.pins
            .get(name)
            .is_some_and(|ranges| ranges.iter().any(|r| r.contains(version)))
    }

    fn preferred(&self, name: &PackageName) -> Option<&Version> {
        if self.request.upgrade.contains(name) {
            return None;
        }
        self.installed.get(name).map(|m| &m.version)
    }

    /// The metadata of one release: the installed copy, or the index's for the chosen file.
    pub(crate) fn release_metadata(
        &self,
        name: &PackageName,
        table: &VersionTable,
        version: &Version,
    ) -> Result<Result<Arc<CoreMetadata>, Unavailable>, SolveError> {
        let Some(entry) = table.get(version) else {
            return Ok(Err(Unavailable::Metadata {
                message: format!("the index lists no {name}=={version}"),
            }));
        };
        let file = match &entry.candidate {
            Candidate::Installed { metadata, .. } => return Ok(Ok(metadata.clone())),
            Candidate::Unusable(reason) => return Ok(Err(reason.clone())),
            Candidate::RequiresPython(spec) => {
                return Ok(Err(Unavailable::RequiresPython {
                    specifier: spec.to_string(),
                }));
            }
            Candidate::File { file, .. } => file,
        };
        let key = (name.clone(), version.clone());
        if let Some(m) = self.metadata.borrow().get(&key) {
            return Ok(Ok(m.clone()));
        }
        let project = table.project.as_ref().expect("a file implies a project");
        let metadata = match self.index.metadata(project, file) {
            Ok(metadata) => metadata,
            // Version-level problems make that version unusable; the rest is fatal.
            Err(
                err @ (IndexError::MetadataUnavailable { .. }
                | IndexError::MetadataMismatch { .. }
                | IndexError::Metadata { .. }),
            ) => {
                return Ok(Err(Unavailable::Metadata {
                    message: err.to_string(),
                }));
            }
            Err(source) => {
                return Err(SolveError::Index {
                    package: name.clone(),
                    source: Box::new(source),
                });
            }
        };
        self.metadata.borrow_mut().insert(key, metadata.clone());
        Ok(Ok(metadata))
    }

    /// The Python range a release needs (file-level and metadata `Requires-Python`).
    fn python_range(
        &self,
        table: &VersionTable,
        version: &Version,
        metadata: Option<&CoreMetadata>,
    ) -> Ranges<Version> {
        let mut range = Ranges::full();
        match table.get(version).map(|e| &e.candidate) {
            Some(Candidate::File { file, .. }) => {
                if let Some(rp) = &file.requires_python {
                    range = range.intersection(&requires_python_to_ranges(rp));
                }
            }
            Some(Candidate::RequiresPython(rp)) => {
                range = range.intersection(&requires_python_to_ranges(rp));
            }
            _ => {}
        }
        if let Some(rp) = metadata.and_then(|m| m.requires_python.as_ref()) {
            range = range.intersection(&requires_python_to_ranges(rp));
        }
        range
    }

    /// Turn requirements into pubgrub edges: overrides, constraints, extras, URLs.
    fn edges(
        &self,
        dependent: &Pkg,
        dependent_version: &Version,
        requirements: &[&Requirement],
        extras: &[ExtraName],
    ) -> Result<Result<Vec<Edge>, Unavailable>, SolveError> {
        let mut out: Vec<Edge> = Vec::new();
        for &original in requirements {
            let replaced: Vec<&Requirement> = match self.overrides.get(&original.name) {
                Some(list) => {
                    let applicable: Vec<&Override> = list
                        .iter()
                        .copied()
                        .filter(|o| match (&o.only_from, dependent.name()) {
                            (None, _) => true,
                            (Some(from), Some(name)) => from.contains(name),
                            (Some(_), None) => false,
                        })
                        .collect();
                    if applicable.is_empty() {
                        vec![original]
                    } else {
                        let active: Vec<&Requirement> = applicable
                            .iter()
                            .map(|o| &o.requirement)
                            .filter(|r| r.evaluate_markers(&self.env.markers, extras))
                            .collect();
                        let who = match dependent {
                            Pkg::Root => Some(Dependent::Root),
                            Pkg::Dist(name) | Pkg::Extra(name, _) => Some(Dependent::Dist {
                                name: name.clone(),
                                version: dependent_version.clone(),
                            }),
                            Pkg::Python => None,
                        };
                        if let Some(who) = who {
                            for replacement in &applicable {
                                if replacement.requirement != *original {
                                    self.overridden.borrow_mut().push(OverriddenEdge {
                                        dependent: who.clone(),
                                        original: original.clone(),
                                        replacement: replacement.requirement.clone(),
                                    });
                                }
                            }
                        }
                        active
                    }
                }
                None => vec![original],
            };
            for requirement in replaced {
                let mut range = match &requirement.version_or_url {
                    None => Ranges::full(),
                    Some(VersionOrUrl::VersionSpecifier(specs)) => specifiers_to_ranges(specs),
                    Some(VersionOrUrl::Url(_)) => {
                        if *dependent == Pkg::Root {
                            return Err(SolveError::DirectUrl {
                                requirement: requirement.to_string(),
                                name: requirement.name.clone(),
                            });
                        }
                        return Ok(Err(Unavailable::DirectUrl {
                            requirement: requirement.to_string(),
                        }));
                    }
                };
                if let Some(constraint) = self.constraints.get(&requirement.name) {
                    range = range.intersection(constraint);
                }
                let name = &requirement.name;
                let is_self = matches!(dependent, Pkg::Dist(n) if n == name);
                if is_self {
                    if !range.contains(dependent_version) {
                        return Ok(Err(Unavailable::SelfConflict));
                    }
                } else {
                    out.push((Pkg::Dist(name.clone()), range.clone()));
                }
                for extra in &requirement.extras {
                    out.push((Pkg::Extra(name.clone(), extra.clone()), range.clone()));
                }
            }
        }
        Ok(Ok(out))
    }

    fn remember(&self, pkg: &Pkg, version: &Version, edges: Vec<Edge>) -> Vec<Edge> {
        {
            let mut seen = self.seen.borrow_mut();
            for (dep, _) in &edges {
                let next = seen.len();
                seen.entry(dep.clone()).or_insert(next);
            }
        }
        let fresh: Vec<(PackageName, Ranges<Version>)> = {
            let mut prefetched = self.prefetched.borrow_mut();
            let tables = self.tables.borrow();
            edges
                .iter()
                .filter_map(|(dep, range)| Some((dep.name()?, range)))
                .filter(|(name, _)| {
                    !tables.contains_key(*name) && prefetched.insert((*name).clone())
                })
                .map(|(name, range)| (name.clone(), range.clone()))
                .collect()
        };
        if !fresh.is_empty() {
            let names: Vec<PackageName> = fresh.iter().map(|(n, _)| n.clone()).collect();
            self.index.prefetch(&names);
            if let Some(tx) = &self.prefetch {
                for (name, range) in fresh {
                    let preferred = self.preferred(&name).cloned();
                    let _ = tx.send(PrefetchJob {
                        name,
                        range,
                        preferred,
                    });
                }
            }
        }
        self.edges
            .borrow_mut()
            .insert((pkg.clone(), version.clone()), Arc::new(edges.clone()));
        edges
    }

    /// The edges recorded for a decided package (for `via`).
    fn recorded_edges(&self, pkg: &Pkg, version: &Version) -> Option<Arc<Vec<Edge>>> {
        self.edges
            .borrow()
            .get(&(pkg.clone(), version.clone()))
            .cloned()
    }

    fn dist_dependencies(
        &self,
        pkg: &Pkg,
        name: &PackageName,
        version: &Version,
        extra: Option<&ExtraName>,
    ) -> Result<Dependencies<Pkg, Ranges<Version>, Unavailable>, SolveError> {
        let table = self.table(name)?;
        let pin: Vec<Edge> = match extra {
            Some(_) => vec![(Pkg::Dist(name.clone()), Ranges::singleton(version.clone()))],
            None => Vec::new(),
        };
        let Some(entry) = table.get(version) else {
            return Ok(Dependencies::Available(pin.into_iter().collect()));
        };
        match &entry.candidate {
            Candidate::Unusable(reason) if extra.is_none() => {
                return Ok(Dependencies::Unavailable(reason.clone()));
            }
            Candidate::File {
                yanked: Some(reason),
                ..
            } if extra.is_none() && !self.yank_allowed(name, version) => {
                return Ok(Dependencies::Unavailable(Unavailable::Yanked {
                    reason: reason.clone(),
                }));
            }
            Candidate::Unusable(_) => {
                return Ok(Dependencies::Available(pin.into_iter().collect()));
            }
            _ => {}
        }
        // A file-level requires-python that excludes the target: say so without fetching
        // metadata.
        let file_python = self.python_range(&table, version, None);
        if !file_python.contains(&self.python)
            || matches!(entry.candidate, Candidate::RequiresPython(_))
        {
            if file_python.contains(&self.python) {
                // The index's PEP 440 check and the release-only range disagree (a pre-release
                // target Python); the version has no file either way.
                return Ok(Dependencies::Unavailable(Unavailable::RequiresPython {
                    specifier: render(&file_python).unwrap_or_default(),
                }));
            }
            let mut edges = pin;
            if extra.is_none() {
                edges.push((Pkg::Python, file_python));
            }
            let edges = self.remember(pkg, version, edges);
            return Ok(Dependencies::Available(edges.into_iter().collect()));
        }
        let metadata = match self.release_metadata(name, &table, version)? {
            Ok(m) => m,
            Err(reason) if extra.is_none() => return Ok(Dependencies::Unavailable(reason)),
            Err(_) => return Ok(Dependencies::Available(pin.into_iter().collect())),
        };
        let mut edges = pin;
        let requirements: Vec<&Requirement> = match extra {
            None => {
                let python = self.python_range(&table, version, Some(&metadata));
                if python != Ranges::full() {
                    edges.push((Pkg::Python, python));
                }
                metadata
                    .requires_dist
                    .iter()
                    .filter(|r| r.evaluate_markers(&self.env.markers, &[]))
                    .collect()
            }
            Some(extra) => {
                let with = std::slice::from_ref(extra);
                metadata
                    .requires_dist
                    .iter()
                    .filter(|r| {
                        r.evaluate_markers(&self.env.markers, with)
                            && !r.evaluate_markers(&self.env.markers, &[])
                    })
                    .collect()
            }
        };
        let extras: Vec<ExtraName> = extra.into_iter().cloned().collect();
        match self.edges(pkg, version, &requirements, &extras)? {
            Ok(more) => edges.extend(more),
            Err(reason) => return Ok(Dependencies::Unavailable(reason)),
        }
        let edges = self.remember(pkg, version, edges);
        Ok(Dependencies::Available(edges.into_iter().collect()))
    }

    /// What the solver was fighting over (for the budget error).
    fn contested(&self) -> String {
        let conflicts = self.conflicts.borrow();
        let mut top: Vec<(&Pkg, &u32)> = conflicts.iter().filter(|(_, c)| **c > 0).collect();
        top.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        if top.is_empty() {
            return "no package had conflicts yet (the index may be slow)".to_string();
        }
        let names: Vec<String> = top
            .iter()
            .take(5)
            .map(|(p, c)| format!("{p} ({c} conflicts)"))
            .collect();
        format!("most contested: {}", names.join(", "))
    }
}

impl DependencyProvider for Provider<'_> {
    type P = Pkg;
    type V = Version;
    type VS = Ranges<Version>;
    type M = Unavailable;
    type Err = SolveError;
    type Priority = (u8, u32, Reverse<usize>);

    fn prioritize(
        &self,
        package: &Pkg,
        range: &Ranges<Version>,
        stats: &PackageResolutionStatistics,
    ) -> Self::Priority {
        let conflicts = stats.conflict_count();
        if conflicts > 0 {
            self.conflicts
                .borrow_mut()
                .insert(package.clone(), conflicts);
        }
        let class = match package {
            Pkg::Root => 9,
            Pkg::Python => 8,
            Pkg::Extra(..) => 3,
            Pkg::Dist(_) => {
                let exact = range.as_singleton().is_some()
                    || matches!(range.iter().collect::<Vec<_>>().as_slice(),
                        [(std::ops::Bound::Included(a), std::ops::Bound::Excluded(b))]
                            if super::ranges::hull_upper(a) == *b);
                if exact { 2 } else { 1 }
            }
        };
        let seen = {
            let mut seen = self.seen.borrow_mut();
            let next = seen.len();
            *seen.entry(package.clone()).or_insert(next)
        };
        (class, conflicts, Reverse(seen))
    }

    fn choose_version(
        &self,
        package: &Pkg,
        range: &Ranges<Version>,
    ) -> Result<Option<Version>, SolveError> {
        self.steps.set(self.steps.get() + 1);
        match package {
            Pkg::Root => {
                let root = Version::new([0]);
                Ok(range.contains(&root).then_some(root))
            }
            Pkg::Python => Ok(range.contains(&self.python).then(|| self.python.clone())),
            Pkg::Dist(name) | Pkg::Extra(name, _) => {
                let table = self.table(name)?;
                if let Some(preferred) = self.preferred(name)
                    && range.contains(preferred)
                {
                    return Ok(Some(preferred.clone()));
                }
                let prereleases = self.prereleases_allowed(name, &table);
                let installed = self.installed.get(name).map(|m| &m.version);
                Ok(table
                    .versions
                    .iter()
                    .rev()
                    .find(|entry| {
                        range.contains(&entry.version)
                            && (prereleases
                                || !entry.version.any_prerelease()
                                || Some(&entry.version) == installed)
                    })
                    .map(|entry| entry.version.clone()))
            }
        }
    }

    fn get_dependencies(
        &self,
        package: &Pkg,
        version: &Version,
    ) -> Result<Dependencies<Pkg, Ranges<Version>, Unavailable>, SolveError> {
        match package {
            Pkg::Root => {
                let requirements: Vec<&Requirement> = self
                    .request
                    .requirements
                    .iter()
                    .filter(|r| r.evaluate_markers(&self.env.markers, &[]))
                    .collect();
                match self.edges(package, version, &requirements, &[])? {
                    Ok(edges) => {
                        let edges = self.remember(package, version, edges);
                        Ok(Dependencies::Available(edges.into_iter().collect()))
                    }
                    Err(reason) => Ok(Dependencies::Unavailable(reason)),
                }
            }
            Pkg::Python => Ok(Dependencies::Available(Default::default())),
            Pkg::Dist(name) => self.dist_dependencies(package, name, version, None),
            Pkg::Extra(name, extra) => self.dist_dependencies(package, name, version, Some(extra)),
        }
    }

    fn should_cancel(&self) -> Result<(), SolveError> {
        let limits = self.request.limits;
        let elapsed = self.start.elapsed();
        if self.steps.get() > limits.max_steps || elapsed > limits.max_time {
            return Err(SolveError::Budget {
                steps: self.steps.get(),
                seconds: elapsed.as_secs_f64(),
                max_steps: limits.max_steps,
                max_seconds: limits.max_time.as_secs(),
                partial: self.contested(),
            });
        }
        Ok(())
    }
}

/// Run pubgrub and turn its answer into a [`Resolution`] or a [`SolveError`].
pub(crate) fn solve(
    index: &dyn IndexSource,
    env: &Environment,
    request: &SolveRequest,
) -> Result<Resolution, SolveError> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<PrefetchJob>();
        let rx = Arc::new(Mutex::new(rx));
        let done = Arc::new(AtomicBool::new(false));
        for _ in 0..PREFETCH_WORKERS {
            let rx = rx.clone();
            let done = done.clone();
            scope.spawn(move || {
                loop {
                    // The lock is held only while waiting for the next job.
                    let job = match rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    match job {
                        Ok(_) if done.load(Ordering::Relaxed) => return,
                        Ok(job) => job.run(index, env, &request.binary),
                        Err(_) => return,
                    }
                }
            });
        }
        // Dropping the provider (and its sender) at the end stops the workers.
        let provider = Provider::new(index, env, request, Some(tx));
        let result = run(&provider);
        done.store(true, Ordering::Relaxed);
        result
    })
}

/// How many threads fetch likely-next metadata while pubgrub works.
const PREFETCH_WORKERS: usize = 8;

/// "This package will probably be decided soon, in this range": fetch the metadata of the
/// release the solver would likely pick, so that `get_dependencies` finds it cached. Only the
/// index's cache is warmed; the solver's answers never depend on whether a job ran.
pub(crate) struct PrefetchJob {
    name: PackageName,
    range: Ranges<Version>,
    preferred: Option<Version>,
}

impl PrefetchJob {
    fn run(&self, index: &dyn IndexSource, env: &Environment, binary: &crate::index::BinaryPolicy) {
        if self
            .preferred
            .as_ref()
            .is_some_and(|v| self.range.contains(v))
        {
            return; // the installed metadata is used
        }
        let Ok(Some(project)) = index.project(&self.name) else {
            return;
        };
        let best = crate::index::candidates(&project, env, binary)
            .into_iter()
            .find(|c| {
                c.is_usable() && !c.version.any_prerelease() && self.range.contains(&c.version)
            });
        if let Some(file) = best.and_then(|c| c.file) {
            let _ = index.metadata(&project, &file);
        }
    }
}

fn run(provider: &Provider<'_>) -> Result<Resolution, SolveError> {
    let selected = match pubgrub::resolve(provider, Pkg::Root, Version::new([0])) {
        Ok(selected) => selected,
        Err(PubGrubError::NoSolution(tree)) => {
            return Err(SolveError::NoSolution(Box::new(explain::explain(
                tree, provider,
            )?)));
        }
        Err(PubGrubError::ErrorRetrievingDependencies { source, .. })
        | Err(PubGrubError::ErrorChoosingVersion { source, .. })
        | Err(PubGrubError::ErrorInShouldCancel(source)) => return Err(source),
    };
    let chosen: HashMap<Pkg, Version> = selected.into_iter().collect();
    let mut packages: BTreeMap<PackageName, Resolved> = BTreeMap::new();
    for (pkg, version) in &chosen {
        if let Pkg::Dist(name) = pkg {
            let table = provider.table(name)?;
            let source = match table.get(version) {
                Some(VersionEntry {
                    candidate: Candidate::Installed { .. },
                    ..
                }) => ResolvedSource::Installed,
                Some(entry) => ResolvedSource::Index {
                    file: VersionTable::file(entry).map(|f| Box::new(f.clone())),
                },
                None => ResolvedSource::Index { file: None },
            };
            packages.insert(
                name.clone(),
                Resolved {
                    version: version.clone(),
                    source,
                    via: BTreeSet::new(),
                    extras: BTreeSet::new(),
                },
            );
        }
    }
    for (pkg, version) in &chosen {
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
    let mut overridden: Vec<OverriddenEdge> = provider
        .overridden
        .borrow()
        .iter()
        .filter(|edge| match &edge.dependent {
            Dependent::Root => true,
            Dependent::Dist { name, version } => {
                packages.get(name).is_some_and(|r| &r.version == version)
            }
        })
        .cloned()
        .collect();
    overridden.sort_by(|a, b| {
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
    overridden.dedup();
    Ok(Resolution {
        packages,
        overridden,
    })
}
