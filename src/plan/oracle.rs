//! [`Oracle`]: what the plan builder asks beyond the plan itself (the index: upstream releases,
//! upload dates, wheel file lists; the installed files: extensions, imports, RECORD).
//!
//! In: a dist name and version per question. Out: the answer, or `None` / empty where it cannot
//! be had (offline with nothing cached, a snapshot without files). Implemented by
//! [`IndexAndFiles`] over the index and the venv (the proposer's evidence, with what it has read
//! so far), and by the risk corpus test over recorded answers.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use jiff::Timestamp;
use pep440_rs::Version;
use pep508_rs::PackageName;

use pubgrub::Ranges;

use super::installed_imports::InstalledImports;
use super::modules::top_level_of;
use super::proposal::UncheckedEvidence;
use crate::index::{DistFile, IndexSource, WheelUnread};
use crate::inventory::extensions::AbiLink;
use crate::inventory::imports::{self, ImportUse};
use crate::inventory::module_names::{self, ModuleNames};
use crate::inventory::{Inventory, extensions};
use crate::risk::Upstream;
use crate::solve::{AcceptingQuery, Among, Catalog};

/// What the builder asks beyond the plan itself: the index and the installed files.
pub trait Oracle {
    /// Whether any release of `dependent` accepts `package` at `version`.
    fn upstream(
        &self,
        dependent: &PackageName,
        package: &PackageName,
        version: &Version,
    ) -> Upstream;
    /// The mechanism through which the installed `dependent`'s compiled extensions use
    /// `package`'s C API, and the extension module that shows it, when the move `from` -> `to`
    /// changes it (see [`crate::inventory::extensions`]); `None`: no ABI evidence.
    fn abi_link(
        &self,
        dependent: &PackageName,
        package: &PackageName,
        from: &Version,
        to: &Version,
    ) -> Option<AbiLink>;
    /// When `name` `version` was first uploaded (`None`: not known).
    fn released(&self, name: &PackageName, version: &Version) -> Option<Timestamp>;
    /// When the first final release of `name` at or above `version` was uploaded.
    fn first_release_from(&self, name: &PackageName, version: &Version) -> Option<Timestamp>;
    /// How many final releases of `name` lie above `to` up to `from` (`from` counted), from the
    /// project's release list; `None`: not known.
    fn releases_back(&self, name: &PackageName, to: &Version, from: &Version) -> Option<usize> {
        let _ = (name, to, from);
        None
    }
    /// Whether the index lists `name==version` with no file the plan's binary rule installs
    /// (only an sdist under the wheel-only rule): putting the installed release back from the
    /// index would run its build. `false` when not known.
    fn source_only(&self, name: &PackageName, version: &Version) -> bool {
        let _ = (name, version);
        false
    }
    /// The top-level modules the planned release `name==version` installs (its wheel's file
    /// list, read by [`super::modules::top_level_of`]), when they can be had; `None` otherwise.
    fn installs(&self, name: &PackageName, version: &Version) -> Option<Arc<BTreeSet<String>>> {
        let _ = (name, version);
        None
    }
    /// Every path the planned release `name==version`'s wheel holds (its file list), when it
    /// can be had; `None` otherwise.
    fn wheel_files(&self, name: &PackageName, version: &Version) -> Option<Vec<String>> {
        let _ = (name, version);
        None
    }
    /// The import statements of `package`'s top-level modules in the other installed dists'
    /// files (empty when the files cannot be read: a snapshot).
    fn import_uses(&self, package: &PackageName) -> Vec<ImportUse> {
        let _ = package;
        Vec::new()
    }
    /// The paths the installed `name` holds (its `RECORD`), when known.
    fn installed_files(&self, name: &PackageName) -> Option<Vec<String>> {
        let _ = name;
        None
    }
    /// The text of the file `path` in the planned release `name==version`'s wheel (read by range
    /// requests, at most [`crate::inventory::imports::MAX_FILE_BYTES`]), when it can be had.
    fn wheel_text(&self, name: &PackageName, version: &Version, path: &str) -> Option<String> {
        let _ = (name, version, path);
        None
    }
    /// Which of `asked` the module file `path` of `name` `version` binds (defines, imports or
    /// lists in `__all__`): the installed copy when `version` is installed and its files are on
    /// disk, else the release's wheel member.
    fn module_names(
        &self,
        name: &PackageName,
        version: &Version,
        path: &str,
        asked: &BTreeSet<String>,
    ) -> Option<ModuleNames> {
        let _ = (name, version, path, asked);
        None
    }
    /// Why a read of the planned release `name==version`'s wheel (its file list, a file, a
    /// folder) failed in this run, where one did: what a plan says it could not check.
    fn unread(&self, name: &PackageName, version: &Version) -> Option<WheelUnread> {
        let _ = (name, version);
        None
    }
    /// The check `evidence` went without the planned release `name==version`'s wheel files
    /// (a read returned nothing): a plan's [`super::builder::Gaps`] keeps it where the read
    /// failed ([`Oracle::unread`]); elsewhere nothing is kept.
    fn note_unchecked(&self, name: &PackageName, version: &Version, evidence: UncheckedEvidence) {
        let _ = (name, version, evidence);
    }
    /// The `.py` files under the folder `prefix` (`transformers/models/`) of `name` `version`,
    /// each with its text: the installed copy when `version` is installed with its files, else
    /// the release's wheel (one range read over them); `None` when they cannot all be had.
    fn folder_sources(
        &self,
        name: &PackageName,
        version: &Version,
        prefix: &str,
    ) -> Option<Arc<Vec<(String, String)>>> {
        let _ = (name, version, prefix);
        None
    }
    /// [`Self::folder_sources`]' files whose text holds `word` anywhere (an installed release's
    /// files that may define a private attribute, asked once per planned release `outdated`
    /// reads: kept, not searched again).
    fn folder_sources_naming(
        &self,
        name: &PackageName,
        version: &Version,
        prefix: &str,
        word: &str,
    ) -> Option<Arc<Vec<(String, String)>>> {
        let sources = self.folder_sources(name, version, prefix)?;
        let naming = sources.iter().filter(|(_, text)| text.contains(word));
        Some(Arc::new(naming.cloned().collect()))
    }
}

/// Per release, the top-level modules its wheel installs (`None`: cannot be had cheaply).
type WheelMembers = HashMap<(PackageName, Version), Option<Arc<BTreeSet<String>>>>;

/// Per release, module file and names asked, which of them the file binds.
type BoundNames = HashMap<(PackageName, Version, String, BTreeSet<String>), Option<ModuleNames>>;

/// Per release and folder, its `.py` files with their texts.
type FolderSources = HashMap<(PackageName, Version, String), Option<Arc<Vec<(String, String)>>>>;

/// Per release, folder and word, those of its `.py` files whose text holds the word.
type NamingSources =
    HashMap<(PackageName, Version, String, String), Option<Arc<Vec<(String, String)>>>>;

/// The most a folder's `.py` files may weigh in a wheel (compressed, in one range read): the
/// models of transformers 5 take 11 MB.
const FOLDER_BYTES: u64 = 48 << 20;

/// What the index and the installed files say, as the plan builder asks ([`Oracle`]): the
/// proposal's catalog (release dates, other releases' requirements, chosen files), the index
/// (wheel members, range reads) and the inventory (compiled extensions, `.py` imports, RECORD),
/// with what has been read from wheels and installed files so far, each read once.
pub(super) struct IndexAndFiles<'a> {
    /// The index, for wheel members (the catalog chooses the file).
    pub(super) index: &'a dyn IndexSource,
    /// What the index offers, read through the proposal's shared core.
    pub(super) catalog: Catalog<'a>,
    inventory: &'a Inventory,
    /// The modules each planned release's wheel installs, read once (every plan asks again).
    installs: Mutex<WheelMembers>,
    /// What the installed files import, read once (shared: [`Self::sharing`]).
    imports: Arc<InstalledImports>,
    /// The import statements of each changed dist's modules read so far.
    import_uses: Mutex<BTreeMap<PackageName, Vec<ImportUse>>>,
    /// Which names each module file read so far binds: every release the import check
    /// compares is read against the same installed files (`outdated` asks one per release).
    bound_names: Mutex<BoundNames>,
    /// The folders read so far ([`Oracle::folder_sources`]).
    folders: Mutex<FolderSources>,
    /// Their files naming a word, by folder and word ([`Oracle::folder_sources_naming`]).
    naming: Mutex<NamingSources>,
    /// Per release, why a read of its wheel failed ([`Oracle::unread`]).
    unread: Mutex<BTreeMap<(PackageName, Version), WheelUnread>>,
}

impl<'a> IndexAndFiles<'a> {
    /// Evidence over `index` (through `catalog`) and `inventory`, nothing read yet.
    pub(super) fn new(
        index: &'a dyn IndexSource,
        catalog: Catalog<'a>,
        inventory: &'a Inventory,
    ) -> Self {
        IndexAndFiles {
            index,
            catalog,
            inventory,
            installs: Mutex::default(),
            imports: Arc::default(),
            import_uses: Mutex::default(),
            bound_names: Mutex::default(),
            folders: Mutex::default(),
            naming: Mutex::default(),
            unread: Mutex::default(),
        }
    }

    /// The same evidence over imports already read of the same inventory.
    pub(super) fn sharing(mut self, imports: &Arc<InstalledImports>) -> Self {
        self.imports = imports.clone();
        self
    }

    /// One read of the planned release `name==version`'s wheel (the file the catalog chose),
    /// its failure noted for [`Oracle::unread`].
    fn wheel_read<T>(
        &self,
        name: &PackageName,
        version: &Version,
        read: impl FnOnce(&DistFile) -> Option<T>,
    ) -> Option<T> {
        let file = self.catalog.chosen_file(name, version)?;
        let got = read(&file);
        if got.is_none()
            && let Some(why) = self.index.wheel_unread(&file)
        {
            let mut unread = self.unread.lock().unwrap_or_else(|e| e.into_inner());
            unread.insert((name.clone(), version.clone()), why);
        }
        got
    }

    fn lock_installs(&self) -> std::sync::MutexGuard<'_, WheelMembers> {
        self.installs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether any release of `dependent` on the index declares that it accepts `package` at
    /// `version` (the catalog's [`Catalog::accepting_releases`] over every published release).
    pub(super) fn upstream_releases(
        &self,
        dependent: &PackageName,
        package: &PackageName,
        version: &Version,
    ) -> Upstream {
        let found = self.catalog.accepting_releases(&AcceptingQuery {
            dependent,
            extras: &[],
            package,
            wanted: &Ranges::singleton(version.clone()),
            among: Among::Published,
            read_at_most: UPSTREAM_SCAN,
            enough: UPSTREAM_LISTED,
        });
        match found {
            Ok(found) if !found.versions.is_empty() => Upstream::Accepts {
                versions: found.versions,
            },
            Ok(found) if found.complete => Upstream::Never,
            // The index could not be asked (or not fully): no upstream fact either way.
            _ => Upstream::Unknown,
        }
    }
}

/// How many releases of a dependent are read for the "upstream accepts" fact, newest first.
const UPSTREAM_SCAN: usize = 40;

/// How many accepting releases are enough for it.
const UPSTREAM_LISTED: usize = 3;

impl Oracle for IndexAndFiles<'_> {
    fn upstream(
        &self,
        dependent: &PackageName,
        package: &PackageName,
        version: &Version,
    ) -> Upstream {
        self.upstream_releases(dependent, package, version)
    }

    fn abi_link(
        &self,
        dependent: &PackageName,
        package: &PackageName,
        from: &Version,
        to: &Version,
    ) -> Option<AbiLink> {
        let dist = self.inventory.get(dependent)?;
        extensions::abi_link(dist, package.as_ref(), from, to)
    }

    fn released(&self, name: &PackageName, version: &Version) -> Option<Timestamp> {
        self.catalog.first_upload(name, |v| v == version)
    }

    fn source_only(&self, name: &PackageName, version: &Version) -> bool {
        self.catalog.listed_source_only(name, version)
    }

    fn installs(&self, name: &PackageName, version: &Version) -> Option<Arc<BTreeSet<String>>> {
        let key = (name.clone(), version.clone());
        if let Some(known) = self.lock_installs().get(&key) {
            return known.clone();
        }
        let modules = self
            .wheel_read(name, version, |file| self.index.wheel_members(file))
            .map(|members| {
                let mut modules = top_level_of(&members);
                let environment = &self.inventory.environment;
                modules.extend(crate::inventory::pth::wheel_modules(&members, environment));
                Arc::new(modules)
            });
        self.lock_installs().insert(key, modules.clone());
        modules
    }

    fn first_release_from(&self, name: &PackageName, version: &Version) -> Option<Timestamp> {
        self.catalog
            .first_upload(name, |v| v >= version && !v.any_prerelease())
    }

    fn releases_back(&self, name: &PackageName, to: &Version, from: &Version) -> Option<usize> {
        let project = self.catalog.project(name).ok()??;
        let between: BTreeSet<&Version> = project
            .files
            .heads()
            .map(|f| f.version)
            .filter(|v| *v > to && *v <= from && !v.any_prerelease())
            .collect();
        Some(between.len())
    }

    fn import_uses(&self, package: &PackageName) -> Vec<ImportUse> {
        if let Some(uses) = self
            .import_uses
            .lock()
            .ok()
            .and_then(|m| m.get(package).cloned())
        {
            return uses;
        }
        let modules: BTreeSet<String> = match self.inventory.get(package) {
            Some(dist) if !dist.top_level.is_empty() => dist.top_level.iter().cloned().collect(),
            _ => BTreeSet::from([package.as_ref().replace('-', "_")]),
        };
        // One cheap pass over every installed file, the first time anything asks (shared with
        // the plan builder and, in `outdated`, with every proposal); then only the files that
        // import the changed dist's modules are parsed, once per dist and modules.
        let uses = self.imports.uses(self.inventory, package, &modules);
        if let Ok(mut memo) = self.import_uses.lock() {
            memo.insert(package.clone(), uses.clone());
        }
        uses
    }

    fn wheel_files(&self, name: &PackageName, version: &Version) -> Option<Vec<String>> {
        self.wheel_read(name, version, |file| self.index.wheel_members(file))
    }

    fn installed_files(&self, name: &PackageName) -> Option<Vec<String>> {
        imports::record_paths(self.inventory.get(name)?)
    }

    fn wheel_text(&self, name: &PackageName, version: &Version, path: &str) -> Option<String> {
        let bytes = self.wheel_read(name, version, |file| {
            self.index.wheel_member(file, path, imports::MAX_FILE_BYTES)
        })?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn module_names(
        &self,
        name: &PackageName,
        version: &Version,
        path: &str,
        asked: &BTreeSet<String>,
    ) -> Option<ModuleNames> {
        let key = (
            name.clone(),
            version.clone(),
            path.to_string(),
            asked.clone(),
        );
        let lock = || self.bound_names.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = lock().get(&key) {
            return known.clone();
        }
        let names = self.read_module_names(name, version, path, asked);
        lock().insert(key, names.clone());
        names
    }

    fn unread(&self, name: &PackageName, version: &Version) -> Option<WheelUnread> {
        let unread = self.unread.lock().unwrap_or_else(|e| e.into_inner());
        unread.get(&(name.clone(), version.clone())).cloned()
    }

    fn folder_sources(
        &self,
        name: &PackageName,
        version: &Version,
        prefix: &str,
    ) -> Option<Arc<Vec<(String, String)>>> {
        let key = (name.clone(), version.clone(), prefix.to_string());
        let lock = || self.folders.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = lock().get(&key) {
            return known.clone();
        }
        let sources = self.read_folder(name, version, prefix).map(Arc::new);
        lock().insert(key, sources.clone());
        sources
    }

    fn folder_sources_naming(
        &self,
        name: &PackageName,
        version: &Version,
        prefix: &str,
        word: &str,
    ) -> Option<Arc<Vec<(String, String)>>> {
        let key = (
            name.clone(),
            version.clone(),
            prefix.to_string(),
            word.to_string(),
        );
        let lock = || self.naming.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = lock().get(&key) {
            return known.clone();
        }
        let sources = self.folder_sources(name, version, prefix)?;
        let naming = sources.iter().filter(|(_, text)| text.contains(word));
        let found = Some(Arc::new(naming.cloned().collect::<Vec<_>>()));
        lock().insert(key, found.clone());
        found
    }
}

impl IndexAndFiles<'_> {
    /// Which of `asked` the module file `path` of `name` `version` binds, read from the
    /// installed copy or the planned release's wheel (see [`Oracle::module_names`]).
    fn read_module_names(
        &self,
        name: &PackageName,
        version: &Version,
        path: &str,
        asked: &BTreeSet<String>,
    ) -> Option<ModuleNames> {
        let installed = self
            .inventory
            .get(name)
            .filter(|dist| dist.version() == version)
            .and_then(|dist| imports::read_installed(dist, path));
        let bytes = match installed {
            Some(bytes) => bytes,
            // Not installed, or installed without its files (a snapshot, a metadata-only copy):
            // the release's wheel holds the same file.
            None => self.wheel_read(name, version, |file| {
                self.index.wheel_member(file, path, imports::MAX_FILE_BYTES)
            })?,
        };
        Some(module_names::module_names(
            &String::from_utf8_lossy(&bytes),
            asked,
        ))
    }

    /// The `.py` files under `prefix` of `name` `version` (see [`Oracle::folder_sources`]).
    fn read_folder(
        &self,
        name: &PackageName,
        version: &Version,
        prefix: &str,
    ) -> Option<Vec<(String, String)>> {
        let wanted = |path: &str| path.starts_with(prefix) && path.ends_with(".py");
        let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
        if let Some(dist) = self.inventory.get(name).filter(|d| d.version() == version)
            && let Some(paths) = imports::record_paths(dist)
        {
            let read: Option<Vec<_>> = paths
                .into_iter()
                .filter(|p| wanted(p))
                .map(|p| Some((p.clone(), text(imports::read_installed(dist, &p)?))))
                .collect();
            if read.is_some() {
                return read;
            }
        }
        let members = self.wheel_read(name, version, |file| {
            self.index.wheel_members_under(file, prefix, FOLDER_BYTES)
        })?;
        Some(
            members
                .into_iter()
                .filter(|(path, _)| wanted(path))
                .map(|(path, bytes)| (path, text(bytes)))
                .collect(),
        )
    }
}
