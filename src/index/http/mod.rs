//! The [`Index`]: the configured indexes behind one cache, as an [`IndexSource`].
//!
//! In: [`IndexSettings`] (index locations in search order, cache folder, offline/refresh, HTTP
//! tunables, credentials, an optional target to filter pages by) and a [`Printer`]. Out: shared
//! [`Project`] listings and [`CoreMetadata`], each fetched at most once per run however many
//! callers ask, with the first index that has a name answering for it (first-index-wins).
//!
//! The index owns a small tokio runtime: its synchronous methods block on it, and
//! [`IndexSource::prefetch`] spawns fetches on it so that IO overlaps a synchronous caller's work.
//! How a page is fetched and cached (freshness, revalidation, remembered 404s, the filtered-page
//! cache) is in `pages`; the order of metadata sources is in `super::metadata_fetch`.

mod building;
mod pages;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

use pep508_rs::PackageName;
use tokio::sync::OnceCell;

use super::auth::{self, AuthStore, SecretUrl};
use super::build::{self, BuildSettings, Builds, BuiltSdist};
use super::cache::{Body, Bucket, Cache, EntryMeta};
use super::client::Client;
use super::parse::{self, ProjectPage};
use super::progress::Progress;
use super::{
    BinaryPolicy, DistFile, DistFilename, IndexError, IndexLocation, IndexSettings, IndexSource,
    Project, WheelUnread, local, metadata_fetch,
};
use crate::metadata::CoreMetadata;
use crate::printer::Printer;

/// The newest minor version of the simple repository API (PEP 629) this client knows.
const SUPPORTED_API_MINOR: u32 = 1;

type ProjectResult = Result<Option<Arc<Project>>, IndexError>;
type MetadataResult = Result<Arc<CoreMetadata>, IndexError>;

/// The configured indexes behind one cache: the [`IndexSource`] the solver and `outdated` use.
///
/// It owns a small tokio runtime; its synchronous methods block on it, and [`IndexSource::prefetch`]
/// spawns fetches on it so that IO overlaps a synchronous caller's work.
pub struct Index {
    runtime: tokio::runtime::Runtime,
    inner: Arc<Inner>,
}

struct Inner {
    indexes: Vec<IndexLocation>,
    client: Client,
    cache: Cache,
    offline: bool,
    refresh: bool,
    binary: BinaryPolicy,
    printer: Printer,
    projects: Mutex<HashMap<PackageName, Arc<OnceCell<ProjectResult>>>>,
    metadata: Mutex<HashMap<String, Arc<OnceCell<MetadataResult>>>>,
    progress: Progress,
    warned: Mutex<HashSet<String>>,
    /// What the index served that failed an integrity check ([`IndexError::is_suspect`]).
    suspect: Mutex<Vec<String>>,
    default_max_age: u64,
    target_tags: Option<crate::tags::Tags>,
    tail_hints: metadata_fetch::TailHints,
    /// `--allow-build`: how sdists without static metadata are built for it.
    build: BuildSettings,
    builds: Builds,
    /// Per wheel URL, why its last wheel read failed ([`IndexSource::wheel_unread`]).
    unread: Mutex<HashMap<String, WheelUnread>>,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("indexes", &self.inner.indexes)
            .field("cache", &self.inner.cache.root())
            .finish_non_exhaustive()
    }
}

impl Index {
    /// Build from resolved settings.
    pub fn new(settings: IndexSettings, printer: &Printer) -> Result<Index, IndexError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("planner-index")
            .enable_all()
            .build()
            .map_err(|e| IndexError::Io {
                path: "(tokio runtime)".to_string(),
                message: e.to_string(),
            })?;
        let secret_urls: Vec<SecretUrl> = settings
            .indexes
            .iter()
            .filter_map(|i| match i {
                IndexLocation::Http(u) => Some(u.clone()),
                IndexLocation::Local(_) => None,
            })
            .collect();
        let auth = AuthStore::new(&secret_urls, &settings.netrc, settings.keyring);
        for (i, index) in settings.indexes.iter().enumerate() {
            log::debug!("index {}: {index}", i + 1);
        }
        match &settings.cache_dir {
            Some(dir) => log::debug!(
                "cache {}{}{}",
                dir.display(),
                if settings.offline { " (--offline)" } else { "" },
                if settings.refresh { " (--refresh)" } else { "" }
            ),
            None => log::debug!("no cache folder: nothing is cached"),
        }
        log::debug!("credentials looked for in: {}", auth.sources());
        let client = Client::new(auth, settings.client)?;
        Ok(Index {
            runtime,
            inner: Arc::new(Inner {
                indexes: settings.indexes,
                client,
                cache: Cache::new(settings.cache_dir, *printer),
                offline: settings.offline,
                refresh: settings.refresh,
                binary: settings.binary,
                printer: *printer,
                projects: Mutex::new(HashMap::new()),
                metadata: Mutex::new(HashMap::new()),
                progress: Progress::new(printer),
                warned: Mutex::new(HashSet::new()),
                suspect: Mutex::new(Vec::new()),
                default_max_age: settings.page_max_age,
                target_tags: settings.target_tags,
                tail_hints: metadata_fetch::TailHints::default(),
                build: settings.build,
                builds: Builds::default(),
                unread: Mutex::default(),
            }),
        })
    }

    /// The indexes, in search order.
    pub(crate) fn indexes(&self) -> &[IndexLocation] {
        &self.inner.indexes
    }

    /// The `--only-binary` / `--no-binary` policy.
    pub(crate) fn binary_policy(&self) -> &BinaryPolicy {
        &self.inner.binary
    }

    /// Fetch many projects at once (concurrently, bounded), in the given order.
    pub fn projects(&self, names: &[PackageName]) -> Vec<ProjectResult> {
        let inner = self.inner.clone();
        let names = names.to_vec();
        self.runtime.block_on(async move {
            let tasks: Vec<_> = names
                .into_iter()
                .map(|name| {
                    let inner = inner.clone();
                    tokio::spawn(async move { inner.project(name).await })
                })
                .collect();
            let mut out = Vec::with_capacity(tasks.len());
            for task in tasks {
                out.push(task.await.unwrap_or_else(|e| {
                    Err(IndexError::Network {
                        url: String::new(),
                        message: format!("fetch task failed: {e}"),
                    })
                }));
            }
            out
        })
    }

    /// What the index served this run that failed an integrity check or a cap no real release
    /// reaches, one line each: the releases were skipped, and the user should know why.
    pub(crate) fn suspect_replies(&self) -> Vec<String> {
        let suspect = self.inner.suspect.lock().unwrap_or_else(|e| e.into_inner());
        suspect.clone()
    }

    /// Hide the progress bar (before printing results).
    pub(crate) fn finish_progress(&self) {
        self.inner.progress.clear();
    }
}

impl Drop for Index {
    fn drop(&mut self) {
        self.finish_progress();
    }
}

impl IndexSource for Index {
    fn waits_on_network(&self) -> bool {
        !self.inner.offline
            && self
                .inner
                .indexes
                .iter()
                .any(|index| matches!(index, IndexLocation::Http(_)))
    }

    fn project(&self, name: &PackageName) -> Result<Option<Arc<Project>>, IndexError> {
        let inner = self.inner.clone();
        let name = name.clone();
        self.runtime
            .block_on(async move { inner.project(name).await })
    }

    fn metadata(
        &self,
        project: &Project,
        file: &DistFile,
    ) -> Result<Arc<CoreMetadata>, IndexError> {
        let inner = self.inner.clone();
        let project = project.name.clone();
        let file = file.clone();
        self.runtime
            .block_on(async move { inner.metadata(project, file).await })
    }

    fn built_metadata(
        &self,
        project: &Project,
        file: &DistFile,
    ) -> Result<Arc<CoreMetadata>, IndexError> {
        let read = self.metadata(project, file);
        let Some(python) = self.inner.build.python.clone() else {
            return read;
        };
        match read {
            Err(IndexError::MetadataUnavailable { .. }) if build::is_sdist(file) => {}
            read => return read,
        }
        let key = build::cache_key(file);
        self.inner
            .builds
            .once(&key, || self.build_metadata(&python, project, file, &key))
    }

    fn built_sdists(&self) -> Vec<BuiltSdist> {
        let used = self.inner.builds.used.lock();
        used.unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn prefetch_metadata(&self, project: &Project, file: &DistFile) {
        let inner = self.inner.clone();
        let project = project.name.clone();
        let file = file.clone();
        self.runtime.spawn(async move {
            let _ = inner.metadata(project, file).await;
        });
    }

    fn wheel_members(&self, file: &DistFile) -> Option<Vec<String>> {
        if !self.inner.is_wheel(file) {
            return None;
        }
        let inner = self.inner.clone();
        let file = file.clone();
        self.runtime
            .block_on(async move { inner.wheel_members(file).await })
    }

    fn wheel_member(&self, file: &DistFile, path: &str, cap: u64) -> Option<Vec<u8>> {
        if !self.inner.is_wheel(file) {
            return None;
        }
        let inner = self.inner.clone();
        let file = file.clone();
        let path = path.to_string();
        self.runtime
            .block_on(async move { inner.wheel_member(file, &path, cap).await })
    }

    fn wheel_members_under(
        &self,
        file: &DistFile,
        prefix: &str,
        cap: u64,
    ) -> Option<Vec<(String, Vec<u8>)>> {
        if !self.inner.is_wheel(file) {
            return None;
        }
        let inner = self.inner.clone();
        let file = file.clone();
        let prefix = prefix.to_string();
        self.runtime
            .block_on(async move { inner.wheel_members_under(file, &prefix, cap).await })
    }

    fn wheel_unread(&self, file: &DistFile) -> Option<WheelUnread> {
        let unread = self.inner.unread.lock().unwrap_or_else(|e| e.into_inner());
        unread.get(file.url.as_str()).cloned()
    }

    fn project_names(&self) -> Option<Vec<PackageName>> {
        let mut names = Vec::new();
        let mut listed = false;
        for index in &self.inner.indexes {
            if let IndexLocation::Local(root) = index {
                listed |= local::list_projects(root, &mut names);
            }
        }
        listed.then_some(names)
    }

    fn prefetch(&self, names: &[PackageName]) {
        for name in names {
            let inner = self.inner.clone();
            let name = name.clone();
            self.runtime.spawn(async move {
                let _ = inner.project(name).await;
            });
        }
    }
}

/// A parse error on one line: caret markers dropped, lines joined, no "file skipped" tail.
fn one_line(text: &str) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.chars().all(|c| matches!(c, '^' | '~' | ' ')))
        .collect::<Vec<_>>()
        .join(" ");
    joined.trim_end_matches("; file skipped").replace(" )", ")")
}

impl Inner {
    /// PEP 629: a newer minor API version is read anyway, with one warning per index.
    fn warn_api_version(&self, index: &IndexLocation, version: Option<&str>) {
        let minor = version
            .and_then(|v| v.split('.').nth(1))
            .and_then(|m| m.parse::<u32>().ok());
        if minor.is_some_and(|m| m > SUPPORTED_API_MINOR) {
            let mut warned = self.warned.lock().unwrap_or_else(|e| e.into_inner());
            if warned.insert(index.to_string()) {
                let warning = format!(
                    "{index} speaks repository API {}, newer than the 1.{SUPPORTED_API_MINOR} \
                     planner knows; reading it anyway",
                    crate::terminal::field(version.unwrap_or_default())
                );
                self.progress.suspend(|| self.printer.warn(&warning));
            }
        }
    }

    /// One project, fetched once per run (concurrent callers share the fetch).
    async fn project(self: Arc<Self>, name: PackageName) -> ProjectResult {
        let cell = {
            let mut map = self.projects.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(name.clone()).or_default().clone()
        };
        cell.get_or_init(|| async {
            self.progress.started();
            let result = self.fetch_project(&name).await;
            self.progress.finished();
            result
        })
        .await
        .clone()
    }

    /// First-index-wins: the first index that has the name answers. When more indexes are
    /// configured, the later ones are asked too, to warn when the name is on several.
    async fn fetch_project(&self, name: &PackageName) -> ProjectResult {
        for (i, index) in self.indexes.iter().enumerate() {
            if let Some(page) = self.page(index, name).await? {
                self.warn_api_version(index, page.api_version.as_deref());
                self.note_skipped(name, index, &page.skipped);
                self.warn_shadowed(name, index, &self.indexes[i + 1..])
                    .await;
                let mut files = page.files;
                // Credentials never ride along in file URLs; the realm supplies them.
                files.strip_userinfo();
                return Ok(Some(Arc::new(Project {
                    name: name.clone(),
                    index: index.to_string(),
                    files,
                })));
            }
        }
        Ok(None)
    }

    /// The project page of `name` on one index (`None`: not there).
    async fn page(
        &self,
        index: &IndexLocation,
        name: &PackageName,
    ) -> Result<Option<ProjectPage>, IndexError> {
        match index {
            IndexLocation::Http(base) => self.http_page(base, name).await,
            IndexLocation::Local(root) => self.local_page(root, name),
        }
    }

    /// Dependency confusion: warn when `name`, answered by `used`, is also on one of `later`
    /// (whose copy is ignored). A later index that cannot be asked is logged, not an error.
    async fn warn_shadowed(
        &self,
        name: &PackageName,
        used: &IndexLocation,
        later: &[IndexLocation],
    ) {
        let mut also = Vec::new();
        for other in later {
            match self.page(other, name).await {
                Ok(Some(_)) => also.push(other.to_string()),
                Ok(None) => {}
                Err(e) => log::debug!("{name}: could not check {other} for the same name: {e}"),
            }
        }
        if !also.is_empty() {
            let warning = format!(
                "{name} is on more than one configured index: {used} answers for it (the first \
                 index that has it) and the copy on {} is ignored. Check that {used} is the one \
                 you mean: a same-named project on another index is how dependency confusion \
                 attacks work",
                also.join(", ")
            );
            self.progress.suspend(|| self.printer.warn(&warning));
        }
    }

    /// One line per project, however many files, at debug level only (`-v`): live pages carry
    /// decades of odd names (`sympy-0.7.2-py3.2.tar.gz`) and requires-python (`>= '2.7'`), which
    /// pip and uv skip without a word; links outside the trust boundary (`parse`) are noted
    /// here too.
    fn note_skipped(&self, name: &PackageName, index: &IndexLocation, skipped: &[String]) {
        if let Some(first) = skipped.first() {
            let count = skipped.len();
            log::debug!(
                "{name}: ignored {count} file{} on {index} whose name, link or requires-python \
                 cannot be used (e.g. {})",
                if count == 1 { "" } else { "s" },
                one_line(first)
            );
        }
    }

    fn filter(&self) -> Option<parse::FileFilter<'_>> {
        self.target_tags
            .as_ref()
            .map(|tags| parse::FileFilter { tags })
    }

    fn local_page(
        &self,
        root: &Path,
        name: &PackageName,
    ) -> Result<Option<ProjectPage>, IndexError> {
        let Some(page) = local::read_page(root, name, self.client.max_page_bytes())? else {
            log::debug!("{name}: not in the local index {}", root.display());
            return Ok(None);
        };
        log::debug!("{name}: read {}", page.base);
        let parsed = match page.format {
            local::PageFormat::Json => {
                parse::simple_json_filtered(&page.body, &page.base, self.filter())
            }
            local::PageFormat::Html => {
                parse::simple_html_filtered(&page.body, &page.base, Some(name), self.filter())
            }
        };
        let parsed = parsed.map_err(|e| IndexError::InvalidPage {
            url: page.base.to_string(),
            message: e.0,
        })?;
        pages::check_page_name(&parsed, name, page.base.as_ref())?;
        Ok(Some(parsed))
    }

    /// One release's metadata, fetched once per run (keyed by URL and sha256).
    async fn metadata(self: Arc<Self>, project: PackageName, file: DistFile) -> MetadataResult {
        let key = immutable_key(&file, "");
        let cell = {
            let mut map = self.metadata.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(key.clone()).or_default().clone()
        };
        let _ = project;
        cell.get_or_init(|| async {
            self.progress.started();
            let result = self.fetch_metadata(&key, &file).await;
            self.progress.finished();
            if let Err(e) = &result
                && e.is_suspect()
            {
                let mut suspect = self.suspect.lock().unwrap_or_else(|e| e.into_inner());
                suspect.push(e.to_string());
            }
            result
        })
        .await
        .clone()
    }

    /// Whether `file` is a wheel; an sdist's reads are noted as [`WheelUnread::NotAWheel`].
    fn is_wheel(&self, file: &DistFile) -> bool {
        let wheel = matches!(file.filename, DistFilename::Wheel(_));
        if !wheel {
            self.note_unread::<()>(file, Some(WheelUnread::NotAWheel));
        }
        wheel
    }

    /// Notes why the read of `file`'s wheel now made failed (`None`: it did not, or not yet);
    /// always `None`, for the caller to return.
    fn note_unread<T>(&self, file: &DistFile, why: Option<WheelUnread>) -> Option<T> {
        let mut unread = self.unread.lock().unwrap_or_else(|e| e.into_inner());
        match why {
            Some(why) => unread.insert(file.url.to_string(), why),
            None => unread.remove(file.url.as_str()),
        };
        None
    }

    /// The value of a wheel read, or `None` with its failure noted. A wheel the index does not
    /// serve (404, 410) is remembered beside it in the cache (`#not-served`), so that an
    /// `--offline` run says what the online run that filled the cache found ([`Self::offline_unread`]);
    /// an online run asks again (a mirror may not have the file yet).
    fn read_or_note<T>(&self, file: &DistFile, read: Result<T, IndexError>) -> Option<T> {
        match read {
            Ok(value) => Some(value),
            Err(error) => {
                let why = WheelUnread::of_error(file, &error);
                if matches!(why, WheelUnread::NotServed { .. }) {
                    self.store_immutable(file, immutable_key(file, "#not-served"), b"not served");
                }
                self.note_unread(file, Some(why))
            }
        }
    }

    /// Why an `--offline` run cannot read a wheel the cache does not hold: the index did not
    /// serve it when last asked, or it was never read.
    fn offline_unread<T>(&self, file: &DistFile) -> Option<T> {
        let not_served = self
            .cached_immutable(file, &immutable_key(file, "#not-served"))
            .is_some();
        let why = match not_served {
            true => WheelUnread::NotServed { local: false },
            false => WheelUnread::Offline,
        };
        self.note_unread(file, Some(why))
    }

    /// A wheel's file list: from the cache (immutable per URL and hash), else by range reads
    /// (never `--offline`). A failure is `None`: the list only adds a warning to a plan.
    async fn wheel_members(&self, file: DistFile) -> Option<Vec<String>> {
        log::debug!("{}: wheel file list", file.filename_str());
        self.note_unread::<()>(&file, None);
        let key = immutable_key(&file, "#members");
        if let Some(body) = self.cached_immutable(&file, &key) {
            let text = String::from_utf8_lossy(&body);
            return Some(text.lines().map(str::to_string).collect());
        }
        if self.offline && !is_local(&file) {
            return self.offline_unread(&file);
        }
        let read = metadata_fetch::wheel_members(&self.client, &file).await;
        let members = self.read_or_note(&file, read)?;
        self.store_immutable(&file, key, members.join("\n").as_bytes());
        Some(members)
    }

    /// One member of a wheel: from the cache (immutable per URL, hash and path), else by range
    /// reads (never `--offline`). A failure is `None`: the member only informs a risk factor.
    async fn wheel_member(&self, file: DistFile, path: &str, cap: u64) -> Option<Vec<u8>> {
        log::debug!("{}: wheel member {path}", file.filename_str());
        self.note_unread::<()>(&file, None);
        let key = immutable_key(&file, &format!("#member#{path}"));
        if let Some(body) = self.cached_immutable(&file, &key) {
            return Some(body.to_vec());
        }
        if self.offline && !is_local(&file) {
            return self.offline_unread(&file);
        }
        let read = metadata_fetch::wheel_member(&self.client, &file, path, cap).await;
        let bytes = self.read_or_note(&file, read)??;
        self.store_immutable(&file, key, &bytes);
        Some(bytes)
    }

    /// The `.py` members of a wheel under a folder (a lazy module's): from the cache (immutable
    /// per URL, hash and folder), else by one range read (never `--offline`), so that an
    /// `--offline` run answers as the online run that filled the cache did. A failure is `None`.
    async fn wheel_members_under(
        &self,
        file: DistFile,
        prefix: &str,
        cap: u64,
    ) -> Option<Vec<(String, Vec<u8>)>> {
        log::debug!("{}: wheel members under {prefix}", file.filename_str());
        self.note_unread::<()>(&file, None);
        let key = immutable_key(&file, &format!("#under#{prefix}"));
        if let Some(body) = self.cached_immutable(&file, &key)
            && let Some(members) = decode_members(&body)
        {
            return Some(members);
        }
        if self.offline && !is_local(&file) {
            return self.offline_unread(&file);
        }
        let read = metadata_fetch::wheel_members_under(&self.client, &file, prefix, cap).await;
        let members = self.read_or_note(&file, read)?;
        self.store_immutable(&file, key, &encode_members(&members));
        Some(members)
    }

    /// Metadata from the cache (immutable once fetched; files of a local index are read
    /// directly), else from the index in the order `metadata_fetch` documents; an sdist's
    /// untrusted PKG-INFO ([`metadata_fetch::trusted`]) is an error either way. A failure that
    /// is the file's own and the same on every read ([`IndexError::to_cached`]: metadata
    /// that does not parse or names another release, a refused shape, no PKG-INFO) is cached
    /// beside it (`KEY#unusable`), so that the next run, `--offline` too, answers as this one
    /// did; a failure a retry may cure (the network, a status, a hash mismatch) is not.
    async fn fetch_metadata(&self, key: &str, file: &DistFile) -> MetadataResult {
        if let Some(body) = self.cached_immutable(file, key)
            && let Ok(metadata) = metadata_fetch::check(file, &file.url, &body)
        {
            log::debug!("{}: metadata from the cache", file.filename_str());
            metadata_fetch::trusted(file, &metadata)?;
            return Ok(Arc::new(metadata));
        }
        let unusable_key = format!("{key}#unusable");
        if let Some(body) = self.cached_immutable(file, &unusable_key)
            && let Some(err) = IndexError::from_cached(&body)
        {
            log::debug!("{}: unusable, from the cache: {err}", file.filename_str());
            return Err(err);
        }
        if self.offline && !is_local(file) {
            return Err(IndexError::Offline {
                what: format!("the metadata of {}", file.filename_str()),
                url: auth::redact(&file.url),
            });
        }
        let fetched = metadata_fetch::fetch(&self.client, file, &self.tail_hints).await;
        let (bytes, metadata, source) = match fetched {
            Ok(fetched) => fetched,
            Err(err) => {
                if let Some(body) = err.to_cached() {
                    self.store_immutable(file, unusable_key, &body);
                }
                return Err(err);
            }
        };
        log::debug!("{}: metadata from {source}", file.filename_str());
        // The headers only: the description is never read (`metadata::header_block`).
        self.store_immutable(file, key.to_string(), crate::metadata::header_block(&bytes));
        // After the write: an sdist's PKG-INFO that cannot be trusted is cached too (the file
        // never changes), so the next run gives the same answer without fetching the sdist.
        metadata_fetch::trusted(file, &metadata)?;
        Ok(Arc::new(metadata))
    }

    /// The cache entry `key` of a read of `file` that never changes (its metadata, members,
    /// ...: [`immutable_key`]); `None` under `--refresh` and for a local index's file (read
    /// directly, never cached).
    fn cached_immutable(&self, file: &DistFile, key: &str) -> Option<Body> {
        if self.refresh || is_local(file) {
            return None;
        }
        self.cache.read(Bucket::Metadata, key).map(|(_, body)| body)
    }

    /// Cache `body` as the entry `key` of a read of `file` that never changes (it never
    /// expires); nothing for a local index's file.
    fn store_immutable(&self, file: &DistFile, key: String, body: &[u8]) {
        if is_local(file) {
            return;
        }
        let meta = entry(key, None, crate::clock::now().as_second(), u64::MAX / 4);
        off_runtime(|| self.cache.write(Bucket::Metadata, meta, body));
    }
}

/// The cache key of a read of `file` that never changes: its redacted URL and sha256 (the file
/// is immutable by both), then what was read (`""` for its metadata, `#members`, ...).
fn immutable_key(file: &DistFile, what: &str) -> String {
    format!(
        "{}#{}{what}",
        auth::redact(&file.url),
        file.hashes.get("sha256").unwrap_or("")
    )
}

/// Whether `file` is a local index's (read directly, never cached).
fn is_local(file: &DistFile) -> bool {
    file.url.scheme() == "file"
}

/// Blocking work on a runtime worker (parsing a fresh page, writing and syncing a cache
/// entry: a few ms each, 200 of them in a cold resolve) run so that it does not hold up the
/// runtime's two workers: their other requests keep flowing meanwhile (`block_in_place` hands
/// the worker's queue to another thread for the duration).
pub(super) fn off_runtime<T>(work: impl FnOnce() -> T) -> T {
    tokio::task::block_in_place(work)
}

/// Wheel members as one cache body: per member its path, a newline, its length in bytes, a
/// newline, then its bytes.
fn encode_members(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut body = Vec::new();
    for (path, bytes) in members {
        body.extend_from_slice(format!("{path}\n{}\n", bytes.len()).as_bytes());
        body.extend_from_slice(bytes);
    }
    body
}

/// The members of an [`encode_members`] body; `None` when it does not parse (then read again).
fn decode_members(mut body: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut members = Vec::new();
    while !body.is_empty() {
        let mut line = || {
            let end = body.iter().position(|b| *b == b'\n')?;
            let text = std::str::from_utf8(&body[..end]).ok()?.to_string();
            body = &body[end + 1..];
            Some(text)
        };
        let path = line()?;
        let len: usize = line()?.parse().ok()?;
        let bytes = body.get(..len)?.to_vec();
        body = &body[len..];
        members.push((path, bytes));
    }
    Some(members)
}

/// A cache header with no validators (`len` and `crc32` are filled in by the cache on write).
fn entry(key: String, content_type: Option<String>, fetched_at: i64, max_age: u64) -> EntryMeta {
    EntryMeta {
        key,
        etag: None,
        last_modified: None,
        content_type,
        fetched_at,
        max_age,
        len: 0,
        crc32: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{decode_members, encode_members};

    #[test]
    fn wheel_members_round_trip_through_one_cache_body() {
        let members = vec![
            ("pkg/a.py".to_string(), b"import os\n\nx = 1\n".to_vec()),
            ("pkg/empty.py".to_string(), Vec::new()),
            ("pkg/bin.py".to_string(), vec![0, 10, 255, 10]),
        ];
        let body = encode_members(&members);
        assert_eq!(decode_members(&body), Some(members));
        assert_eq!(decode_members(&[]), Some(Vec::new()));
        assert_eq!(decode_members(b"pkg/a.py\n99\nshort"), None);
    }
}
