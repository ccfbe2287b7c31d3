//! Stage 2: what the package index offers.
//!
//! In: index URLs (PEP 691 JSON, PEP 503 HTML, or a local folder laid out as a simple index),
//! credentials, a cache folder. Out: [`Project`] listings (files per version, yanked,
//! requires-python, hashes) and [`CoreMetadata`] per release, fetched without downloading wheels
//! where the index allows. The solver sees only the [`IndexSource`] trait.

use std::sync::Arc;

use pep508_rs::PackageName;

use crate::metadata::CoreMetadata;

/// A source of project listings and release metadata. Implementations do all IO; callers (the
/// solver, `outdated`) are synchronous.
pub trait IndexSource: Send + Sync {
    /// The files of a project, or `None` when no configured index has it.
    fn project(&self, name: &PackageName) -> Result<Option<Arc<Project>>, IndexError>;

    /// The core metadata of one release file.
    fn metadata(&self, project: &Project, file: &DistFile)
    -> Result<Arc<CoreMetadata>, IndexError>;

    /// A hint that these projects will be asked for soon; fetch them in the background.
    fn prefetch(&self, names: &[PackageName]) {
        let _ = names;
    }

    /// The project names the index can list cheaply (a local folder, an in-memory index), for
    /// "did you mean" hints; `None` where listing would be costly (an HTTP index).
    fn project_names(&self) -> Option<Vec<PackageName>> {
        None
    }
}

pub mod auth;
pub mod cache;
pub mod candidates;
pub mod client;
pub mod config;
mod error;
mod filename;
pub mod local;
pub mod metadata_fetch;
pub mod parse;

pub use candidates::{BinaryPolicy, Candidate, Unusable, candidates};
pub use config::IndexLocation;
pub use error::IndexError;
pub use filename::{DistFilename, FilenameError, SdistFilename, WheelFilename};

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pep440_rs::VersionSpecifiers;
use tokio::sync::OnceCell;

use self::auth::{AuthStore, Netrc, SecretUrl};
use self::cache::{Bucket, Cache, EntryMeta};
use self::client::{Client, ClientSettings, RequestOptions};
use self::parse::ProjectPage;
use crate::printer::Printer;

/// Everything an index says about one project.
#[derive(Debug, Clone)]
pub struct Project {
    /// The normalized name.
    pub name: PackageName,
    /// The index it came from, credentials redacted (for messages).
    pub index: String,
    /// Its files, each parsed; files whose names do not parse are skipped with a warning.
    pub files: Vec<DistFile>,
}

/// One release file.
#[derive(Debug, Clone)]
pub struct DistFile {
    /// The parsed file name (name, version, tags).
    pub filename: DistFilename,
    /// Where to fetch it (absolute, fragment removed).
    pub url: url::Url,
    /// Hashes by algorithm (`sha256` -> hex).
    pub hashes: BTreeMap<String, String>,
    /// `requires-python` / `data-requires-python`.
    pub requires_python: Option<VersionSpecifiers>,
    /// PEP 592: `Some(reason)` when yanked (the reason may be empty).
    pub yanked: Option<String>,
    /// Upload time, when the index says.
    pub upload_time: Option<jiff::Timestamp>,
    /// Size in bytes, when the index says.
    pub size: Option<u64>,
    /// PEP 658/714: the index advertises a `.metadata` file (with these hashes, maybe empty).
    pub core_metadata: Option<BTreeMap<String, String>>,
}

/// What to build an [`Index`] from, once the configuration is resolved.
#[derive(Debug, Clone)]
pub struct IndexSettings {
    /// Indexes in search order (first-index-wins).
    pub indexes: Vec<IndexLocation>,
    /// The cache folder (`None`: uncached).
    pub cache_dir: Option<PathBuf>,
    /// Answer from the cache only.
    pub offline: bool,
    /// Ignore cached pages (and metadata) and fetch again.
    pub refresh: bool,
    /// HTTP tunables.
    pub client: ClientSettings,
    /// Credentials from netrc.
    pub netrc: Netrc,
    /// `--only-binary` / `--no-binary`.
    pub binary: BinaryPolicy,
    /// How long a page stays fresh when the server sends no `Cache-Control` (seconds).
    pub page_max_age: u64,
    /// Read pages for this target only: wheels whose tags it does not support are dropped,
    /// except one per version (so every version is still listed, with a reason). `None` keeps
    /// every file (what the solver and tests use by default).
    pub target_tags: Option<crate::tags::Tags>,
}

/// Pages without `Cache-Control` stay fresh this long: the public index's own `max-age`.
/// Mirrors and private indexes often send no caching headers at all; `--refresh` bypasses it.
pub const DEFAULT_PAGE_MAX_AGE: u64 = 600;

impl Default for IndexSettings {
    fn default() -> Self {
        IndexSettings {
            indexes: Vec::new(),
            cache_dir: None,
            offline: false,
            refresh: false,
            client: ClientSettings::default(),
            netrc: Netrc::default(),
            binary: BinaryPolicy::default(),
            page_max_age: DEFAULT_PAGE_MAX_AGE,
            target_tags: None,
        }
    }
}

/// The newest minor version of the simple repository API (PEP 629) this client knows.
const SUPPORTED_API_MINOR: u32 = 1;

/// The content type a cached "404: no such project" is stored under.
const NOT_FOUND: &str = "x-planner/not-found";

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
    progress: Option<indicatif::ProgressBar>,
    warned: Mutex<std::collections::HashSet<String>>,
    default_max_age: u64,
    target_tags: Option<crate::tags::Tags>,
    /// A digest of `target_tags`, for the cache keys of filtered pages.
    target_key: Option<String>,
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
        let auth = AuthStore::new(&secret_urls, &settings.netrc);
        let client = Client::new(auth, settings.client)?;
        let progress = printer.progress().then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(0),
                indicatif::ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} reading the index {pos}/{len}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        });
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
                progress,
                warned: Mutex::new(std::collections::HashSet::new()),
                default_max_age: settings.page_max_age,
                target_key: settings.target_tags.as_ref().map(|tags| {
                    let text: Vec<String> =
                        tags.as_slice().iter().map(ToString::to_string).collect();
                    cache::sha256_hex(text.join(" ").as_bytes())[..16].to_string()
                }),
                target_tags: settings.target_tags,
            }),
        })
    }

    /// The indexes, in search order.
    pub fn indexes(&self) -> &[IndexLocation] {
        &self.inner.indexes
    }

    /// The `--only-binary` / `--no-binary` policy.
    pub fn binary_policy(&self) -> &BinaryPolicy {
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

    /// Hide the progress bar (before printing results).
    pub fn finish_progress(&self) {
        if let Some(bar) = &self.inner.progress {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Index {
    fn drop(&mut self) {
        self.finish_progress();
    }
}

impl IndexSource for Index {
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
                self.printer.warn(&format!(
                    "{index} speaks repository API {}, newer than the 1.{SUPPORTED_API_MINOR} \
                     planner knows; reading it anyway",
                    version.unwrap_or_default()
                ));
            }
        }
    }

    fn started(&self) {
        if let Some(bar) = &self.progress {
            bar.inc_length(1);
        }
    }

    fn finished(&self) {
        if let Some(bar) = &self.progress {
            bar.inc(1);
        }
    }

    async fn project(self: Arc<Self>, name: PackageName) -> ProjectResult {
        let cell = {
            let mut map = self.projects.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(name.clone()).or_default().clone()
        };
        cell.get_or_init(|| async {
            self.started();
            let result = self.fetch_project(&name).await;
            self.finished();
            result
        })
        .await
        .clone()
    }

    /// First-index-wins: the first index that has the name answers.
    async fn fetch_project(&self, name: &PackageName) -> ProjectResult {
        for index in &self.indexes {
            let page = match index {
                IndexLocation::Http(base) => self.http_page(base, name).await?,
                IndexLocation::Local(root) => self.local_page(root, name)?,
            };
            if let Some(page) = page {
                self.warn_api_version(index, page.api_version.as_deref());
                if let Some(first) = page.skipped.first() {
                    // One line per project, however many files: live pages carry decades of
                    // odd names (`sympy-0.7.2-py3.2.tar.gz`) and requires-python (`>= '2.7'`).
                    let count = page.skipped.len();
                    self.printer.warn(&format!(
                        "{name}: ignored {count} file{} on {index} whose name or requires-python \
                         cannot be read (e.g. {})",
                        if count == 1 { "" } else { "s" },
                        one_line(first)
                    ));
                }
                let mut files = page.files;
                for file in &mut files {
                    // Credentials never ride along in file URLs; the realm supplies them.
                    if file.url.has_authority()
                        && (!file.url.username().is_empty() || file.url.password().is_some())
                    {
                        let _ = file.url.set_username("");
                        let _ = file.url.set_password(None);
                    }
                }
                return Ok(Some(Arc::new(Project {
                    name: name.clone(),
                    index: index.to_string(),
                    files,
                })));
            }
        }
        Ok(None)
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
        let Some(page) = local::read_page(root, name)? else {
            return Ok(None);
        };
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
        check_page_name(&parsed, name, page.base.as_ref())?;
        Ok(Some(parsed))
    }

    /// A page from an http(s) index. With a target filter, the filtered page is cached beside
    /// the whole one (keyed by the target's tags, fresh as long as the whole page is), so a
    /// warm run reads a few kilobytes per project instead of re-parsing megabytes.
    async fn http_page(
        &self,
        base: &SecretUrl,
        name: &PackageName,
    ) -> Result<Option<ProjectPage>, IndexError> {
        let Some(target) = &self.target_key else {
            return self.http_page_whole(base, name, &mut None).await;
        };
        let url = base
            .expose()
            .join(&format!("{name}/"))
            .map_err(|e| IndexError::InvalidUrl {
                url: base.to_string(),
                message: e.to_string(),
            })?;
        let secret = SecretUrl::new(url);
        let key = format!("{}#target={target}", secret.cache_key());
        let now = crate::clock::now().as_second();
        if !self.refresh
            && let Some((meta, body)) = self.cache.read(Bucket::Pages, &key)
            && (self.offline || meta.is_fresh(now))
            && let Ok(page) = parse_page(&body, Some(PEP691_JSON), &secret, name, None)
        {
            return Ok(Some(page));
        }
        let mut freshness = None;
        let page = self.http_page_whole(base, name, &mut freshness).await?;
        if let (Some(page), Some((fetched_at, max_age))) = (&page, freshness) {
            let body = page_json(name, &page.files);
            self.cache.write(
                Bucket::Pages,
                EntryMeta {
                    key,
                    etag: None,
                    last_modified: None,
                    content_type: Some(PEP691_JSON.to_string()),
                    fetched_at,
                    max_age,
                    len: 0,
                    crc32: 0,
                },
                &body,
            );
        }
        Ok(page)
    }

    /// The whole page (filtered when parsed, if a target is set); `freshness` receives the
    /// page's fetch time and max-age when it was found.
    async fn http_page_whole(
        &self,
        base: &SecretUrl,
        name: &PackageName,
        freshness: &mut Option<(i64, u64)>,
    ) -> Result<Option<ProjectPage>, IndexError> {
        let url = base
            .expose()
            .join(&format!("{name}/"))
            .map_err(|e| IndexError::InvalidUrl {
                url: base.to_string(),
                message: e.to_string(),
            })?;
        let secret = SecretUrl::new(url.clone());
        let shown = secret.to_string();
        let key = secret.cache_key();
        let cached = if self.refresh {
            None
        } else {
            self.cache.read(Bucket::Pages, &key)
        };
        let now = crate::clock::now().as_second();
        if self.offline {
            let Some((meta, body)) = cached else {
                return Err(IndexError::Offline {
                    what: format!("the project page of {name}"),
                    url: shown,
                });
            };
            if meta.content_type.as_deref() == Some(NOT_FOUND) {
                return Ok(None);
            }
            *freshness = Some((meta.fetched_at, meta.max_age));
            return parse_page(
                &body,
                meta.content_type.as_deref(),
                &secret,
                name,
                self.filter(),
            )
            .map(Some);
        }
        if let Some((meta, body)) = &cached
            && meta.is_fresh(now)
        {
            if meta.content_type.as_deref() == Some(NOT_FOUND) {
                return Ok(None);
            }
            if let Ok(page) = parse_page(
                body,
                meta.content_type.as_deref(),
                &secret,
                name,
                self.filter(),
            ) {
                *freshness = Some((meta.fetched_at, meta.max_age));
                return Ok(Some(page));
            }
        }
        let options = RequestOptions {
            accept: Some(client::ACCEPT_SIMPLE),
            etag: cached.as_ref().and_then(|(m, _)| m.etag.clone()),
            last_modified: cached.as_ref().and_then(|(m, _)| m.last_modified.clone()),
            range: None,
        };
        let reply = self.client.get(&url, &options).await?;
        match reply.status {
            304 => {
                if let Some((mut meta, body)) =
                    cached.filter(|(m, _)| m.content_type.as_deref() != Some(NOT_FOUND))
                {
                    meta.fetched_at = now;
                    meta.max_age = reply.max_age.unwrap_or(meta.max_age);
                    let page = parse_page(
                        &body,
                        meta.content_type.as_deref(),
                        &secret,
                        name,
                        self.filter(),
                    )?;
                    *freshness = Some((meta.fetched_at, meta.max_age));
                    self.cache.write(Bucket::Pages, meta, &body);
                    return Ok(Some(page));
                }
                Err(IndexError::Status {
                    url: shown,
                    status: 304,
                    context: " to an unconditional request".to_string(),
                })
            }
            200 => {
                // The page must parse before it is cached.
                let page_secret = SecretUrl::new(reply.url.clone());
                let page = parse_page(
                    &reply.body,
                    reply.content_type.as_deref(),
                    &page_secret,
                    name,
                    self.filter(),
                )?;
                self.cache.write(
                    Bucket::Pages,
                    EntryMeta {
                        key,
                        etag: reply.etag.clone(),
                        last_modified: reply.last_modified.clone(),
                        content_type: reply.content_type.clone(),
                        fetched_at: now,
                        max_age: reply.max_age.unwrap_or(self.default_max_age),
                        len: 0,
                        crc32: 0,
                    },
                    &reply.body,
                );
                *freshness = Some((now, reply.max_age.unwrap_or(self.default_max_age)));
                Ok(Some(page))
            }
            404 | 410 => {
                // Remembered so that `--offline` can say "not on the index" too.
                self.cache.write(
                    Bucket::Pages,
                    EntryMeta {
                        key,
                        etag: None,
                        last_modified: None,
                        content_type: Some(NOT_FOUND.to_string()),
                        fetched_at: now,
                        max_age: reply.max_age.unwrap_or(self.default_max_age),
                        len: 0,
                        crc32: 0,
                    },
                    b"",
                );
                Ok(None)
            }
            401 | 403 => Err(IndexError::Unauthorized {
                index: base.to_string(),
                package: name.to_string(),
                url: shown,
                status: reply.status,
                auth_sources: self.client.auth_sources(),
            }),
            status => Err(IndexError::Status {
                url: shown,
                status,
                context: format!(" while fetching the project page of {name}"),
            }),
        }
    }

    async fn metadata(self: Arc<Self>, project: PackageName, file: DistFile) -> MetadataResult {
        let key = format!(
            "{}#{}",
            auth::redact(&file.url),
            file.hashes.get("sha256").map(String::as_str).unwrap_or("")
        );
        let cell = {
            let mut map = self.metadata.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(key.clone()).or_default().clone()
        };
        let _ = project;
        cell.get_or_init(|| async {
            self.started();
            let result = self.fetch_metadata(&key, &file).await;
            self.finished();
            result
        })
        .await
        .clone()
    }

    async fn fetch_metadata(&self, key: &str, file: &DistFile) -> MetadataResult {
        let local = file.url.scheme() == "file";
        if !self.refresh
            && !local
            && let Some((_, body)) = self.cache.read(Bucket::Metadata, key)
            && let Ok(metadata) = metadata_fetch::check(file, &file.url, &body)
        {
            return Ok(Arc::new(metadata));
        }
        if self.offline && !local {
            return Err(IndexError::Offline {
                what: format!("the metadata of {}", file.filename_str()),
                url: auth::redact(&file.url),
            });
        }
        let (bytes, metadata, _source) = metadata_fetch::fetch(&self.client, file).await?;
        if !local {
            self.cache.write(
                Bucket::Metadata,
                EntryMeta {
                    key: key.to_string(),
                    etag: None,
                    last_modified: None,
                    content_type: None,
                    fetched_at: crate::clock::now().as_second(),
                    max_age: u64::MAX / 4,
                    len: 0,
                    crc32: 0,
                },
                &bytes,
            );
        }
        Ok(Arc::new(metadata))
    }
}

impl DistFile {
    /// The file name: the URL's last path segment, percent-decoded (`+` of local versions).
    pub fn filename_str(&self) -> String {
        self.url
            .path_segments()
            .and_then(|mut s| s.next_back().map(parse::percent_decode))
            .unwrap_or_default()
    }
}

/// A JSON page must name the project asked for.
fn check_page_name(page: &ProjectPage, name: &PackageName, url: &str) -> Result<(), IndexError> {
    if let Some(stated) = &page.name
        && stated != name
    {
        return Err(IndexError::InvalidPage {
            url: url.to_string(),
            message: format!("the page is for `{stated}`, not `{name}`"),
        });
    }
    Ok(())
}

/// The PEP 691 JSON content type.
const PEP691_JSON: &str = "application/vnd.pypi.simple.v1+json";

/// A PEP 691 JSON page of these files (what the filtered-page cache stores).
fn page_json(name: &PackageName, files: &[DistFile]) -> Vec<u8> {
    let files: Vec<serde_json::Value> = files
        .iter()
        .map(|f| {
            let mut o = serde_json::Map::new();
            o.insert("filename".into(), f.filename_str().into());
            o.insert("url".into(), f.url.as_str().into());
            o.insert("hashes".into(), serde_json::json!(f.hashes));
            if let Some(rp) = &f.requires_python {
                o.insert("requires-python".into(), rp.to_string().into());
            }
            o.insert(
                "yanked".into(),
                match &f.yanked {
                    None => false.into(),
                    Some(reason) => reason.as_str().into(),
                },
            );
            if let Some(size) = f.size {
                o.insert("size".into(), size.into());
            }
            if let Some(t) = f.upload_time {
                o.insert("upload-time".into(), t.to_string().into());
            }
            if let Some(h) = &f.core_metadata {
                o.insert("core-metadata".into(), serde_json::json!(h));
            }
            serde_json::Value::Object(o)
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "meta": {"api-version": "1.1"},
        "name": name.to_string(),
        "files": files,
    }))
    .unwrap_or_default()
}

/// Parse a page by its reply's `Content-Type` (PEP 691 negotiation).
fn parse_page(
    body: &[u8],
    content_type: Option<&str>,
    url: &SecretUrl,
    name: &PackageName,
    filter: Option<parse::FileFilter<'_>>,
) -> Result<ProjectPage, IndexError> {
    let shown = url.to_string();
    let base = url.without_credentials();
    let json = match content_type {
        Some("application/vnd.pypi.simple.v1+json") | Some("application/json") => true,
        Some("application/vnd.pypi.simple.v1+html")
        | Some("text/html")
        | Some("application/xhtml+xml") => false,
        None => body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'),
        Some(other) => {
            return Err(IndexError::ContentType {
                url: shown,
                content_type: other.to_string(),
            });
        }
    };
    let parsed = if json {
        parse::simple_json_filtered(body, &base, filter)
    } else {
        parse::simple_html_filtered(body, &base, Some(name), filter)
    }
    .map_err(|e| IndexError::InvalidPage {
        url: shown.clone(),
        message: e.0,
    })?;
    check_page_name(&parsed, name, &shown)?;
    Ok(parsed)
}
