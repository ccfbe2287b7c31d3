//! The catalog: what the index offers, read once per solve; the only code here that asks the
//! [`IndexSource`].
//!
//! In: the index, the target [`Environment`], the [`BinaryPolicy`] and the installed metadata
//! (authoritative for the installed versions). Out: per project a [`VersionTable`] (what the
//! target would install for each version), per release its [`CoreMetadata`], the names seen so
//! far (for "did you mean"), upload dates ([`Catalog::first_upload`]), and one query, [`Catalog::accepting_releases`]: which releases of a
//! dependent accept some versions of a package. The explainer's blocker hints and the risk
//! model's "upstream accepts" fact are both that query.
//!
//! The provider calls in through `&self` from pubgrub's single thread, so the caches are
//! `RefCell`s. Prefetch ([`PrefetchJob`], run by [`prefetch_worker`] threads) only warms the
//! index's own cache: no answer here depends on whether a job ran.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};

use pep440_rs::Version;
use pep508_rs::{ExtraName, PackageName, VersionOrUrl};
use pubgrub::Ranges;

use crate::index::{self, BinaryPolicy, DistFile, IndexError, IndexSource, Project};
use crate::inventory::Environment;
use crate::metadata::{CoreMetadata, requirement};

use super::candidates::{InstallChoice, Target, VersionTable};
use super::error::{SolveError, Unavailable};
use super::ranges::{is_pin, specifiers_to_ranges};

/// What the index offers for one target, binary policy and installed set, read once and kept:
/// the version tables, the parsed release metadata and the usable versions per project.
///
/// One core serves every solve of a proposal (each solve's [`Catalog`] borrows it) and the
/// prefetch threads, which build tables and parse metadata into it while pubgrub works, so the
/// solver finds them done. It holds only what the index says; what one solve has seen (its
/// "did you mean" names, the tables its explanation may use) stays in that solve's [`Catalog`],
/// so no answer depends on which solves ran before or what was prefetched.
pub(crate) struct CatalogCore<'a> {
    index: &'a dyn IndexSource,
    env: &'a Environment,
    binary: &'a BinaryPolicy,
    /// The target's tags and Python, as the tables choose files for them.
    target: Arc<Target>,
    installed: HashMap<PackageName, Arc<CoreMetadata>>,
    /// Per project, its table once built (the inner lock is held while it is built, so a
    /// second reader waits for it instead of building it again).
    tables: Mutex<HashMap<PackageName, TableSlot>>,
    metadata: Mutex<HashMap<(PackageName, Version), Arc<CoreMetadata>>>,
    /// The metadata of the published releases [`Catalog::accepting_releases`] read (any
    /// format, one file per version), `None` where the index has none.
    published: Mutex<HashMap<(PackageName, Version), PublishedMetadata>>,
    usable: Mutex<HashMap<PackageName, Arc<[Version]>>>,
    /// The names prefetch jobs were sent for because a prefetched release depends on them
    /// ([`PrefetchJob::spread`]), each once.
    spread: Mutex<HashSet<PackageName>>,
}

/// The most projects one catalog (one resolution, or one proposal's solves) reads: a hostile
/// index's release can name a hundred thousand, each a request.
pub(crate) const MAX_PROJECTS: usize = 10_000;

/// A published release's metadata (`None`: the index has none to read).
type PublishedMetadata = Option<Arc<CoreMetadata>>;

/// One project's table, once built.
type TableSlot = Arc<Mutex<Option<Arc<VersionTable>>>>;

/// The index as one solve (or one proposal) reads it, over a [`CatalogCore`]. See the module
/// docs.
pub(crate) struct Catalog<'a> {
    core: &'a CatalogCore<'a>,
    /// The projects whose tables this catalog read (what its explanations may look at).
    read: Mutex<HashSet<PackageName>>,
    /// Names asked for (prefetched) before their table was read.
    requested: Mutex<HashSet<PackageName>>,
    /// Where to send likely-next releases for their metadata to be fetched in the background.
    prefetch: Option<Sender<PrefetchJob>>,
}

/// Which releases of a dependent [`Catalog::accepting_releases`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Among {
    /// The releases the target could move the dependent to: usable under the catalog's binary
    /// policy and Python, the installed version included, pre-releases only when `prereleases`.
    /// A release that does not require the package under the target's markers, or names it
    /// without a version, is listed apart ([`AcceptingReleases::silent`]): it does not "accept"
    /// the version, it says nothing about it.
    Installable {
        /// Whether pre-releases of the dependent count.
        prereleases: bool,
    },
    /// Every release on the index that has a file, whatever the target could install (any
    /// format, any Python): evidence that upstream declared the combination. Only a declared
    /// requirement accepts.
    Published,
}

/// Which releases of `dependent` accept `package` in `wanted`.
#[derive(Debug, Clone)]
pub(crate) struct AcceptingQuery<'q> {
    /// The dependent (torch).
    pub dependent: &'q PackageName,
    /// The dependent's active extras (their requirements apply too).
    pub extras: &'q [ExtraName],
    /// The package it requires (triton).
    pub package: &'q PackageName,
    /// The versions of `package` asked about (accepting means admitting one of them).
    pub wanted: &'q Ranges<Version>,
    /// Which releases are read.
    pub among: Among,
    /// At most this many releases are read, newest first.
    pub read_at_most: usize,
    /// Stop once this many accept.
    pub enough: usize,
}

/// The answer to an [`AcceptingQuery`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AcceptingReleases {
    /// The accepting releases (a declared requirement admits the version), newest first.
    pub versions: Vec<Version>,
    /// Under [`Among::Installable`], the releases read that do not require the package at all
    /// under the target's markers (torch 2.3.1 on CPython 3.12 and triton), newest first.
    pub silent: Vec<Version>,
    /// How many releases were read.
    pub read: usize,
    /// Every candidate release was read (no limit reached, no metadata missing, the index lists
    /// the dependent): an empty answer means none accepts.
    pub complete: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl<'a> CatalogCore<'a> {
    /// A core over `index` for the target `env`; `installed` metadata stands in for the index's
    /// at the installed versions.
    pub(crate) fn new(
        index: &'a dyn IndexSource,
        env: &'a Environment,
        binary: &'a BinaryPolicy,
        installed: HashMap<PackageName, Arc<CoreMetadata>>,
    ) -> Self {
        CatalogCore {
            index,
            env,
            binary,
            target: Target::new(env),
            installed,
            tables: Mutex::default(),
            metadata: Mutex::default(),
            published: Mutex::default(),
            usable: Mutex::default(),
            spread: Mutex::default(),
        }
    }

    /// Whether a solve of `binary` with these installed versions preferred reads the index as
    /// this core does (same policy, same installed metadata).
    pub(crate) fn serves(
        &self,
        binary: &BinaryPolicy,
        installed: &HashMap<PackageName, Arc<CoreMetadata>>,
    ) -> bool {
        self.binary == binary
            && self.installed.len() == installed.len()
            && installed.iter().all(|(name, theirs)| {
                self.installed
                    .get(name)
                    .is_some_and(|ours| Arc::ptr_eq(ours, theirs) || ours == theirs)
            })
    }

    /// The index this core reads.
    pub(crate) fn index(&self) -> &'a dyn IndexSource {
        self.index
    }

    /// The target environment.
    pub(crate) fn env(&self) -> &'a Environment {
        self.env
    }

    /// The version table of a project (built once, whoever asks first).
    pub(crate) fn table(&self, name: &PackageName) -> Result<Arc<VersionTable>, SolveError> {
        let slot = {
            let mut tables = lock(&self.tables);
            if !tables.contains_key(name) && tables.len() >= MAX_PROJECTS {
                return Err(SolveError::TooManyProjects {
                    limit: MAX_PROJECTS,
                });
            }
            tables.entry(name.clone()).or_default().clone()
        };
        let mut slot = lock(&slot);
        if let Some(table) = slot.as_ref() {
            return Ok(table.clone());
        }
        let project = self
            .index
            .project(name)
            .map_err(|source| index_error(name, source))?;
        let table = Arc::new(VersionTable::build(
            project,
            &self.target,
            self.binary,
            self.installed.get(name),
        ));
        *slot = Some(table.clone());
        Ok(table)
    }

    /// The table if it was already built (no IO).
    fn built_table(&self, name: &PackageName) -> Option<Arc<VersionTable>> {
        let slot = lock(&self.tables).get(name)?.clone();
        lock(&slot).clone()
    }

    /// Whether the index's metadata of `name==version` was read already.
    fn has_metadata(&self, name: &PackageName, version: &Version) -> bool {
        lock(&self.metadata).contains_key(&(name.clone(), version.clone()))
    }

    /// The usable versions of a project for the target under the core's binary policy (not
    /// yanked, Python admitted), newest first; worked out once per project.
    pub(crate) fn usable_versions(&self, project: &Project) -> Arc<[Version]> {
        if let Some(versions) = lock(&self.usable).get(&project.name) {
            return versions.clone();
        }
        // The project's table when it lists this very page (its choices are shared with the
        // solver), else the index's candidates: the same answer.
        let versions: Arc<[Version]> = match self.table(&project.name) {
            Ok(table)
                if table
                    .project
                    .as_deref()
                    .is_some_and(|p| std::ptr::eq(p, project)) =>
            {
                table.listed_usable().cloned().collect()
            }
            _ => index::candidates(project, self.env, self.binary)
                .into_iter()
                .filter(|c| c.is_usable())
                .map(|c| c.version)
                .collect(),
        };
        lock(&self.usable)
            .entry(project.name.clone())
            .or_insert(versions)
            .clone()
    }

    /// The metadata of one release: the installed copy, or the index's for the chosen file
    /// (parsed once, whoever asks first).
    pub(crate) fn release_metadata(
        &self,
        name: &PackageName,
        table: &VersionTable,
        version: &Version,
    ) -> Result<Result<Arc<CoreMetadata>, Unavailable>, SolveError> {
        self.read_release(name, table, version, false)
    }

    /// [`CatalogCore::release_metadata`] as the solver asks for it: under `--allow-build`, an
    /// sdist without static metadata is built for it ([`IndexSource::built_metadata`]).
    pub(crate) fn solver_release_metadata(
        &self,
        name: &PackageName,
        table: &VersionTable,
        version: &Version,
    ) -> Result<Result<Arc<CoreMetadata>, Unavailable>, SolveError> {
        self.read_release(name, table, version, true)
    }

    fn read_release(
        &self,
        name: &PackageName,
        table: &VersionTable,
        version: &Version,
        build: bool,
    ) -> Result<Result<Arc<CoreMetadata>, Unavailable>, SolveError> {
        let Some(entry) = table.get(version) else {
            return Ok(Err(Unavailable::Metadata {
                message: format!("the index lists no {name}=={version}"),
            }));
        };
        let file = match table.choice(entry) {
            InstallChoice::Installed { metadata, .. } => return Ok(Ok(metadata.clone())),
            InstallChoice::Unusable(reason) => return Ok(Err(reason.clone())),
            InstallChoice::RequiresPython(spec) => {
                return Ok(Err(Unavailable::RequiresPython {
                    specifier: spec.to_string(),
                }));
            }
            InstallChoice::File { file, .. } => table.listed_file(*file),
        };
        let key = (name.clone(), version.clone());
        if let Some(m) = lock(&self.metadata).get(&key) {
            return Ok(Ok(m.clone()));
        }
        let project = table.project.as_ref().expect("a file implies a project");
        let read = if build {
            self.index.built_metadata(project, file)
        } else {
            self.index.metadata(project, file)
        };
        let metadata = match read {
            Ok(metadata) => metadata,
            // Version-level problems make that version unusable (a suspect one is also named
            // by the command, which then exits 1); the rest is fatal.
            Err(err) if err.is_release_level() => {
                return Ok(Err(Unavailable::Metadata {
                    message: err.to_string(),
                }));
            }
            Err(source) => return Err(index_error(name, source)),
        };
        lock(&self.metadata).insert(key, metadata.clone());
        Ok(Ok(metadata))
    }
}

impl Drop for CatalogCore<'_> {
    /// When the process ends after this run ([`crate::end_process_after_run`]), the tables
    /// and metadata are left to the system: dropping them took every listing they hold apart
    /// file by file once the index let go of it too (~5% of a warm `resolve`).
    fn drop(&mut self) {
        if crate::process_ends_after_run() {
            std::mem::forget(std::mem::take(
                self.tables.get_mut().unwrap_or_else(|e| e.into_inner()),
            ));
            std::mem::forget(std::mem::take(
                self.metadata.get_mut().unwrap_or_else(|e| e.into_inner()),
            ));
        }
    }
}

impl<'a> Catalog<'a> {
    /// A catalog over `core`; `prefetch` receives likely-next releases.
    pub(crate) fn new(core: &'a CatalogCore<'a>, prefetch: Option<Sender<PrefetchJob>>) -> Self {
        Catalog {
            core,
            read: Mutex::default(),
            requested: Mutex::default(),
            prefetch,
        }
    }

    /// The target environment.
    pub(crate) fn env(&self) -> &'a Environment {
        self.core.env
    }

    /// The listing of a project (`None` when no configured index has it).
    pub(crate) fn project(&self, name: &PackageName) -> Result<Option<Arc<Project>>, IndexError> {
        self.core.index.project(name)
    }

    /// The usable versions of a project for the target under the catalog's binary policy
    /// (not yanked, Python admitted), newest first.
    pub(crate) fn usable_versions(&self, project: &Project) -> Arc<[Version]> {
        self.core.usable_versions(project)
    }

    /// The earliest upload time of the files of `name` whose version passes `wanted` (`None`:
    /// the index does not have it, or gives no upload times).
    pub(crate) fn first_upload(
        &self,
        name: &PackageName,
        wanted: impl Fn(&Version) -> bool,
    ) -> Option<jiff::Timestamp> {
        let project = self.core.index.project(name).ok()??;
        project
            .files
            .heads()
            .filter(|f| wanted(f.version))
            .filter_map(|f| f.upload_time)
            .min()
    }

    /// The version table of a project (fetched once).
    pub(crate) fn table(&self, name: &PackageName) -> Result<Arc<VersionTable>, SolveError> {
        let table = self.core.table(name)?;
        let mut read = lock(&self.read);
        if !read.contains(name) {
            read.insert(name.clone());
        }
        Ok(table)
    }

    /// The table if this catalog already read it (no IO).
    pub(crate) fn cached_table(&self, name: &PackageName) -> Option<Arc<VersionTable>> {
        if !lock(&self.read).contains(name) {
            return None;
        }
        self.core.built_table(name)
    }

    /// Whether the index is known not to have `name` (its table was read and is empty).
    pub(crate) fn is_missing(&self, name: &PackageName) -> bool {
        self.cached_table(name)
            .is_some_and(|t| t.project.is_none() && t.versions.is_empty())
    }

    /// The projects the index answered for, and the names asked for so far that it is not
    /// known to lack.
    pub(crate) fn known_names(&self) -> BTreeSet<PackageName> {
        let read: Vec<PackageName> = lock(&self.read).iter().cloned().collect();
        let mut known: BTreeSet<PackageName> = read
            .into_iter()
            .filter(|n| {
                self.core
                    .built_table(n)
                    .is_some_and(|t| t.project.is_some() || !t.versions.is_empty())
            })
            .collect();
        let requested: Vec<PackageName> = lock(&self.requested).iter().cloned().collect();
        for name in &requested {
            if !self.is_missing(name) {
                known.insert(name.clone());
            }
        }
        known
    }

    /// The project names the index can list cheaply (see [`IndexSource::project_names`]).
    pub(crate) fn index_project_names(&self) -> Option<Vec<PackageName>> {
        self.core.index.project_names()
    }

    /// The index file the solver would install for `name==version` (`None`: not on the index,
    /// or no file fits).
    pub(crate) fn chosen_file(&self, name: &PackageName, version: &Version) -> Option<DistFile> {
        let table = self.table(name).ok()?;
        let entry = table.get(version)?;
        table.file(entry).cloned()
    }

    /// Whether the index lists `name==version` with only files the binary policy rules out (an
    /// sdist under `--only-binary`): [`VersionTable::listed_source_only`].
    pub(crate) fn listed_source_only(&self, name: &PackageName, version: &Version) -> bool {
        self.table(name)
            .is_ok_and(|table| table.listed_source_only(version))
    }

    /// The metadata of one release: the installed copy, or the index's for the chosen file.
    pub(crate) fn release_metadata(
        &self,
        name: &PackageName,
        table: &VersionTable,
        version: &Version,
    ) -> Result<Result<Arc<CoreMetadata>, Unavailable>, SolveError> {
        self.core.release_metadata(name, table, version)
    }

    /// The metadata of one release the solver decides on: [`CatalogCore::solver_release_metadata`].
    pub(crate) fn solver_release_metadata(
        &self,
        name: &PackageName,
        table: &VersionTable,
        version: &Version,
    ) -> Result<Result<Arc<CoreMetadata>, Unavailable>, SolveError> {
        self.core.solver_release_metadata(name, table, version)
    }

    /// Ask for the projects of these edges (name and range) whose tables were not read yet:
    /// their listings and, for the release `preferred` does not cover, its metadata, in the
    /// background. Each name is asked for once.
    pub(crate) fn prefetch<'e>(
        &self,
        edges: impl Iterator<Item = (&'e PackageName, &'e Ranges<Version>)>,
        preferred: impl Fn(&PackageName) -> Option<Version>,
    ) {
        let fresh: Vec<(PackageName, Ranges<Version>)> = {
            let mut requested = lock(&self.requested);
            let read = lock(&self.read);
            edges
                .filter(|(name, _)| {
                    !read.contains(*name)
                        && requested.len() < MAX_PROJECTS
                        && requested.insert((*name).clone())
                })
                .map(|(name, range)| (name.clone(), range.clone()))
                .collect()
        };
        if fresh.is_empty() {
            return;
        }
        // Pages another solve on the same core already read need no fetch.
        let names: Vec<PackageName> = fresh
            .iter()
            .filter(|(n, _)| self.core.built_table(n).is_none())
            .map(|(n, _)| n.clone())
            .collect();
        if !names.is_empty() {
            self.core.index.prefetch(&names);
        }
        if let Some(tx) = &self.prefetch {
            for (name, range) in fresh {
                let preferred = preferred(&name);
                let job = PrefetchJob {
                    name,
                    range,
                    preferred,
                    spread: tx.clone(),
                };
                if !job.settled(self.core) {
                    let _ = tx.send(job);
                }
            }
        }
    }

    /// Which releases of a dependent accept some versions of a package (see [`AcceptingQuery`]).
    /// Metadata a release lacks leaves it out (and the answer incomplete); other index failures
    /// are errors.
    pub(crate) fn accepting_releases(
        &self,
        query: &AcceptingQuery<'_>,
    ) -> Result<AcceptingReleases, SolveError> {
        let mut found = AcceptingReleases {
            complete: true,
            ..AcceptingReleases::default()
        };
        let releases = match query.among {
            Among::Installable { prereleases } => self.installable(query.dependent, prereleases)?,
            Among::Published => match self.published(query.dependent)? {
                Some(releases) => releases,
                None => return Ok(AcceptingReleases::default()),
            },
        };
        let ahead = query.read_at_most.min(releases.len());
        // Reading ahead hides network waits; with none to hide, it only costs.
        let window = if self.core.index().waits_on_network() {
            READ_AHEAD
        } else {
            0
        };
        // The metadata of the next `window` releases not at hand is fetched in the background
        // by the index (an unsatisfiable request's hint reads up to 30 torch releases) while
        // the query reads them in order, as it would have fetched them one by one. Nothing
        // waits for a release the query stops short of. Failures are left for the query to
        // meet in order.
        let mut sent = 0;
        for (i, release) in releases.iter().enumerate() {
            if found.read >= query.read_at_most {
                found.complete = false;
                break;
            }
            while sent < ahead.min(i + window) {
                if sent > i {
                    releases[sent].prefetch(self);
                }
                sent += 1;
            }
            found.read += 1;
            let metadata = match release.metadata(self)? {
                Some(metadata) => metadata,
                None => {
                    found.complete = false;
                    continue;
                }
            };
            let installable = matches!(query.among, Among::Installable { .. });
            // Under `Installable`, a bare name (no version) says nothing about which release it
            // takes: listed with the silent ones, never as accepting.
            let declared = self
                .declared_range(&metadata, query)
                .filter(|range| !(installable && *range == Ranges::full()));
            let accepts = match declared {
                Some(range) => !range.is_disjoint(query.wanted),
                None => {
                    if matches!(query.among, Among::Installable { .. }) {
                        found.silent.push(release.version.clone());
                    }
                    false
                }
            };
            if accepts {
                found.versions.push(release.version.clone());
                if found.versions.len() >= query.enough {
                    break;
                }
            }
        }
        Ok(found)
    }

    /// What `metadata` declares on the query's package: the intersection of its requirements
    /// that apply (`None` when none does).
    fn declared_range(
        &self,
        metadata: &CoreMetadata,
        query: &AcceptingQuery<'_>,
    ) -> Option<Ranges<Version>> {
        let mut declared: Option<Ranges<Version>> = None;
        for r in &metadata.requires_dist {
            if &r.name != query.package || !r.evaluate_markers(&self.core.env.markers, query.extras)
            {
                continue;
            }
            let range = declared.get_or_insert_with(Ranges::full);
            if let Some(specs) = requirement::specifiers(r) {
                *range = range.intersection(&specifiers_to_ranges(specs));
            }
        }
        declared
    }

    /// The releases of `name` the target could install, newest first.
    fn installable(
        &self,
        name: &PackageName,
        prereleases: bool,
    ) -> Result<Vec<Release>, SolveError> {
        let table = self.table(name)?;
        Ok(table
            .versions
            .iter()
            .rev()
            .filter(|entry| {
                !matches!(
                    table.choice(entry),
                    InstallChoice::Unusable(_) | InstallChoice::RequiresPython(_)
                ) && (prereleases || !entry.version.any_prerelease())
            })
            .map(|entry| Release {
                version: entry.version.clone(),
                from: ReleaseFrom::Table(name.clone(), table.clone()),
            })
            .collect())
    }

    /// Every release of `name` on the index with a file, newest first (`None`: not listed).
    fn published(&self, name: &PackageName) -> Result<Option<Vec<Release>>, SolveError> {
        let Some(project) = self
            .core
            .index
            .project(name)
            .map_err(|e| index_error(name, e))?
        else {
            return Ok(None);
        };
        let any_format = BinaryPolicy::default();
        let env = self.core.env;
        Ok(Some(
            index::candidates::choices(&project, &env.tags, &env.python_version, &any_format)
                .filter_map(|(version, choice)| {
                    Some(Release {
                        version: version.clone(),
                        from: ReleaseFrom::File(project.clone(), choice.file?),
                    })
                })
                .collect(),
        ))
    }
}

/// How many releases [`Catalog::accepting_releases`] fetches at once, ahead of reading them:
/// enough for every usable torch release on cp312 (23), whose hint on an unsatisfiable
/// request reads 22 of them; with 16 the last six started only when the first reads were in
/// (~0.1 s later, cold).
const READ_AHEAD: usize = 24;

/// One release [`Catalog::accepting_releases`] reads, and where its metadata comes from.
struct Release {
    version: Version,
    from: ReleaseFrom,
}

enum ReleaseFrom {
    /// The solve's table (the installed copy, or the chosen file, cached).
    Table(PackageName, Arc<VersionTable>),
    /// This file on the index (an index into the listing's files).
    File(Arc<Project>, usize),
}

impl Release {
    /// Its metadata; `None` when the release has none to read.
    fn metadata(&self, catalog: &Catalog<'_>) -> Result<Option<Arc<CoreMetadata>>, SolveError> {
        match &self.from {
            ReleaseFrom::Table(name, table) => {
                Ok(catalog.release_metadata(name, table, &self.version)?.ok())
            }
            ReleaseFrom::File(project, file) => {
                let key = (project.name.clone(), self.version.clone());
                if let Some(known) = lock(&catalog.core.published).get(&key) {
                    return Ok(known.clone());
                }
                let metadata = catalog
                    .core
                    .index
                    .metadata(project, &project.files[*file])
                    .ok();
                lock(&catalog.core.published).insert(key, metadata.clone());
                Ok(metadata)
            }
        }
    }

    /// Ask the index to fetch its metadata in the background (nothing waits for it), unless it
    /// is at hand.
    fn prefetch(&self, catalog: &Catalog<'_>) {
        if self.at_hand(catalog) {
            return;
        }
        let index = catalog.core.index;
        match &self.from {
            ReleaseFrom::Table(_, table) => {
                if let Some(entry) = table.get(&self.version)
                    && let InstallChoice::File { file, .. } = table.choice(entry)
                    && let Some(project) = table.project.as_deref()
                {
                    index.prefetch_metadata(project, table.listed_file(*file));
                }
            }
            ReleaseFrom::File(project, file) => {
                index.prefetch_metadata(project, &project.files[*file]);
            }
        }
    }

    /// Whether its metadata (or the lack of it) is known without asking the index.
    fn at_hand(&self, catalog: &Catalog<'_>) -> bool {
        match &self.from {
            ReleaseFrom::Table(name, table) => {
                !table
                    .get(&self.version)
                    .is_some_and(|entry| matches!(table.choice(entry), InstallChoice::File { .. }))
                    || catalog.core.has_metadata(name, &self.version)
            }
            ReleaseFrom::File(project, _) => lock(&catalog.core.published)
                .contains_key(&(project.name.clone(), self.version.clone())),
        }
    }
}

fn index_error(name: &PackageName, source: IndexError) -> SolveError {
    let help = match &source {
        IndexError::Offline { .. } => {
            "run once without `--offline` to fill the cache (same --cache-dir)".to_string()
        }
        // A cap or a deadline: the error's own hint names the setting that moves it.
        IndexError::TooLarge { .. } | IndexError::TimedOut { .. } => {
            miette::Diagnostic::help(&source).map_or_else(String::new, |h| h.to_string())
        }
        // A local index (a folder, a file:// URL) involves neither the network nor the cache:
        // --offline would change nothing, and may be what was given already.
        IndexError::Io { .. } => {
            "check --index-url: a local index is a folder (or file:// URL) laid out as a simple \
             index, one subfolder per project"
                .to_string()
        }
        // Only these come from the network, which --offline never touches.
        IndexError::Network { .. } | IndexError::Status { .. } => {
            "check the index URL and the network, or retry with --offline to use the cache"
                .to_string()
        }
        _ => miette::Diagnostic::help(&source).map_or_else(
            || "check the index URL; `-v` shows what was read from where".to_string(),
            |h| h.to_string(),
        ),
    };
    SolveError::Index {
        package: name.clone(),
        source: Box::new(source),
        help,
    }
}

/// "This package will probably be decided soon, in this range": fetch the metadata of the
/// release the solver would likely pick, so that the solver finds it cached. Only the index's
/// cache is warmed; the solver's answers never depend on whether a job ran.
pub(crate) struct PrefetchJob {
    name: PackageName,
    range: Ranges<Version>,
    preferred: Option<Version>,
    /// Where jobs for the release's own dependencies go ([`PrefetchJob::spread`]).
    spread: Sender<PrefetchJob>,
}

impl PrefetchJob {
    /// The installed version is in range: its metadata is at hand.
    fn takes_installed(&self) -> bool {
        self.preferred
            .as_ref()
            .is_some_and(|v| self.range.contains(v))
    }

    /// The newest usable final release in range, as the solver would likely pick it.
    fn best<'t>(&self, table: &'t VersionTable) -> Option<&'t Version> {
        table
            .versions
            .iter()
            .rev()
            .find(|entry| {
                matches!(
                    table.choice(entry),
                    InstallChoice::File { yanked: None, .. }
                ) && !entry.version.any_prerelease()
                    && self.range.contains(&entry.version)
            })
            .map(|entry| &entry.version)
    }

    /// Whether the core already has what the job would fetch (another solve on it did), so
    /// that it need not be sent.
    fn settled(&self, core: &CatalogCore<'_>) -> bool {
        if self.takes_installed() {
            return true;
        }
        let Some(table) = core.built_table(&self.name) else {
            return false;
        };
        self.best(&table)
            .is_none_or(|version| core.has_metadata(&self.name, version))
    }

    fn run(&self, core: &CatalogCore<'_>, done: &AtomicBool) {
        if self.takes_installed() {
            return;
        }
        let Ok(table) = core.table(&self.name) else {
            return;
        };
        let Some(version) = self.best(&table) else {
            return;
        };
        if let Ok(Ok(metadata)) = core.release_metadata(&self.name, &table, version)
            && !done.load(Ordering::Relaxed)
            && !is_pin(&self.range)
        {
            self.spread(core, &metadata);
        }
    }

    /// The release this job fetched will likely be picked, so its dependencies will likely be
    /// asked for next: fetch their listings now and send a job for each (once per name; not
    /// the installed ones, whose metadata is at hand). Not for a pin (`torch==2.11.0`): the
    /// solver reads a pinned release at once and prefetches its dependencies itself, unless
    /// they end the solve in a conflict. Without this, a dependency's page waits
    /// until pubgrub reaches the release, which on a cold run it may do only after waiting
    /// for other pages. Requirements under an extra are left to the solver.
    fn spread(&self, core: &CatalogCore<'_>, metadata: &CoreMetadata) {
        let fresh: Vec<(PackageName, Ranges<Version>)> = {
            let mut spread = lock(&core.spread);
            metadata
                .requires_dist
                .iter()
                .filter(|r| {
                    r.evaluate_markers(&core.env.markers, &[])
                        && !core.installed.contains_key(&r.name)
                })
                .filter_map(|r| {
                    let range = match &r.version_or_url {
                        None => Ranges::full(),
                        Some(VersionOrUrl::VersionSpecifier(specs)) => specifiers_to_ranges(specs),
                        Some(VersionOrUrl::Url(_)) => return None,
                    };
                    spread
                        .insert(r.name.clone())
                        .then(|| (r.name.clone(), range))
                })
                .collect()
        };
        let names: Vec<PackageName> = fresh
            .iter()
            .filter(|(n, _)| core.built_table(n).is_none())
            .map(|(n, _)| n.clone())
            .collect();
        if !names.is_empty() {
            core.index.prefetch(&names);
        }
        for (name, range) in fresh {
            let job = PrefetchJob {
                name,
                range,
                preferred: None,
                spread: self.spread.clone(),
            };
            if !job.settled(core) {
                let _ = self.spread.send(job);
            }
        }
    }
}

/// One prefetch thread: runs jobs from `jobs` until the channel closes or `done` is set.
pub(crate) fn prefetch_worker(
    core: &CatalogCore<'_>,
    jobs: &Mutex<Receiver<PrefetchJob>>,
    done: &AtomicBool,
) {
    loop {
        // The lock is held only while waiting for the next job.
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        match job {
            Ok(_) if done.load(Ordering::Relaxed) => return,
            Ok(job) => job.run(core, done),
            Err(_) => return,
        }
    }
}
