//! Stage 2: what the package index offers.
//!
//! In: index URLs (PEP 691 JSON, PEP 503 HTML, or a local folder laid out as a simple index),
//! credentials, a cache folder. Out: [`Project`] listings (files per version, yanked,
//! requires-python, hashes) and [`CoreMetadata`] per release, fetched without downloading wheels
//! where the index allows. The solver sees only the [`IndexSource`] trait.
//!
//! This file holds the trait, the data it hands out and the settings an [`Index`] is built from.
//! The rest, by concern: `http` (the [`Index`]: its runtime, first-index-wins, the page and
//! metadata cache policy), `client` (HTTP requests), `auth` (credentials), `cache` (the on-disk
//! cache), `local` (a folder as an index), `parse` (pages read and written), `metadata_fetch` (the
//! order of metadata sources) with `zip` and `sdist` (the archive readers), `filename` and `urls`
//! (file names), `candidates` (which files a target can install), `progress` (the spinner),
//! `build` (`--allow-build`: an sdist's requirements from a metadata build).

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

    /// The metadata of one release as the solver asks for it: [`IndexSource::metadata`], and
    /// under `--allow-build`, for an sdist whose requirements cannot be read without a build,
    /// its metadata from a build (`build`). Never asked by prefetch.
    fn built_metadata(
        &self,
        project: &Project,
        file: &DistFile,
    ) -> Result<Arc<CoreMetadata>, IndexError> {
        self.metadata(project, file)
    }

    /// The sdists whose built metadata [`IndexSource::built_metadata`] gave in this run.
    fn built_sdists(&self) -> Vec<BuiltSdist> {
        Vec::new()
    }

    /// A hint that these projects will be asked for soon; fetch them in the background.
    fn prefetch(&self, names: &[PackageName]) {
        let _ = names;
    }

    /// A hint that the metadata of this file will be asked for soon; fetch it in the
    /// background, where nothing waits for it (a later [`IndexSource::metadata`] of the same
    /// file shares the fetch).
    fn prefetch_metadata(&self, project: &Project, file: &DistFile) {
        let _ = (project, file);
    }

    /// The paths a wheel installs (its zip's file list, read by range requests), or `None` when
    /// they cannot be had cheaply: not a wheel, `--offline` with nothing cached, an index that
    /// serves no wheel files (a recorded folder of metadata only), or a source that does not
    /// implement it.
    fn wheel_members(&self, file: &DistFile) -> Option<Vec<String>> {
        let _ = file;
        None
    }

    /// One file of a wheel (`jinja2/__init__.py`), read by range requests like its file list,
    /// or `None` when it cannot be had cheaply (as for [`IndexSource::wheel_members`]), the
    /// wheel has no such member, or it is larger than `cap` bytes.
    fn wheel_member(&self, file: &DistFile, path: &str, cap: u64) -> Option<Vec<u8>> {
        let _ = (file, path, cap);
        None
    }

    /// Every `.py` member of a wheel under the folder `prefix` (`transformers/models/`), with
    /// its bytes, read by one range request spanning them; `None` as for
    /// [`IndexSource::wheel_member`], or when they span more than `cap` bytes of the wheel.
    fn wheel_members_under(
        &self,
        file: &DistFile,
        prefix: &str,
        cap: u64,
    ) -> Option<Vec<(String, Vec<u8>)>> {
        let _ = (file, prefix, cap);
        None
    }

    /// Why the last read of `file`'s wheel ([`IndexSource::wheel_members`],
    /// [`IndexSource::wheel_member`], [`IndexSource::wheel_members_under`]) gave `None`, where it
    /// failed to read (not where the wheel has no such member or it is over the cap); `None`
    /// when the last read did not fail or the source does not say.
    fn wheel_unread(&self, file: &DistFile) -> Option<WheelUnread> {
        let _ = file;
        None
    }

    /// Whether reading from this source may wait on the network: `false` for `--offline`, local
    /// folders and in-memory indexes, whose reads are work for the CPU alone. The solver sizes
    /// its background readers by it (threads beyond the cores only cost when nothing waits).
    fn waits_on_network(&self) -> bool {
        true
    }

    /// The project names the index can list cheaply (a local folder, an in-memory index), for
    /// "did you mean" hints; `None` where listing would be costly (an HTTP index).
    fn project_names(&self) -> Option<Vec<PackageName>> {
        None
    }
}

pub(crate) mod auth;
pub(crate) mod build;
pub(crate) mod cache;
pub mod candidates;
pub mod client;
mod compact;
pub mod config;
mod error;
mod files;
mod http;
pub(crate) mod keyring;
pub mod local;
pub(crate) mod metadata_fetch;
pub mod parse;
mod progress;

pub use planner_pypi::{filename, hashes, sdist, urls, zip};

pub use build::{BuildSettings, BuiltSdist};
pub use candidates::{BinaryPolicy, Unusable, candidates};
pub use config::IndexLocation;
pub use error::IndexError;
pub use filename::DistFilename;
pub(crate) use filename::{FilenameError, SdistFilename, WheelFilename};
pub(crate) use files::Files;
pub(crate) use hashes::Hashes;
pub use http::Index;
pub(crate) use urls::{FileUrl, url_filename};

use std::path::PathBuf;

use pep440_rs::VersionSpecifiers;

use self::auth::Netrc;
use self::client::ClientSettings;

/// Why a wheel's files could not be read: what a plan says of the evidence it could not check.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WheelUnread {
    /// `--offline`, and no earlier run left the read in the cache.
    Offline,
    /// The index serves no such file: a local folder that holds its metadata but not the wheel
    /// (`local`), or a server that answers 404 (an index that serves metadata only).
    NotServed {
        /// A local folder's index.
        local: bool,
    },
    /// The release is installed from its source distribution: there is no wheel to read.
    NotAWheel,
    /// The read failed: the error, in words.
    Failed(String),
}

impl WheelUnread {
    /// The kebab-case kind (`offline-not-cached`, `no-wheel-file`, `not-a-wheel`, `read-failed`).
    pub fn kind(&self) -> &'static str {
        match self {
            WheelUnread::Offline => "offline-not-cached",
            WheelUnread::NotServed { .. } => "no-wheel-file",
            WheelUnread::NotAWheel => "not-a-wheel",
            WheelUnread::Failed(_) => "read-failed",
        }
    }

    /// Why, in words: `--offline and not in the cache`.
    pub fn sentence(&self) -> String {
        match self {
            WheelUnread::Offline => "--offline and not in the cache".to_string(),
            WheelUnread::NotServed { local: true } => {
                "the local index holds no wheel file for it, only its metadata".to_string()
            }
            WheelUnread::NotServed { local: false } => {
                "the index serves no wheel file for it (not found)".to_string()
            }
            WheelUnread::NotAWheel => "it installs from its source distribution".to_string(),
            WheelUnread::Failed(error) => format!("the read failed: {error}"),
        }
    }

    /// What the user can do about it, where something helps: run once online (`Offline`).
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            WheelUnread::Offline => Some("run once without --offline to fill the cache"),
            _ => None,
        }
    }

    /// The reason for a failed read: a missing file (404, 410; a local index answers 404 for a
    /// file that is not there) is [`WheelUnread::NotServed`], anything else its error.
    pub(crate) fn of_error(file: &DistFile, error: &IndexError) -> WheelUnread {
        match error {
            IndexError::Status {
                status: 404 | 410, ..
            } => WheelUnread::NotServed {
                local: file.url.scheme() == "file",
            },
            // The status alone: the error's context names the metadata, which this read is not.
            IndexError::Status { url, status, .. } => {
                WheelUnread::Failed(format!("{url} answered {status}"))
            }
            error => WheelUnread::Failed(error.to_string()),
        }
    }
}

/// Everything an index says about one project.
#[derive(Debug, Clone)]
pub struct Project {
    /// The normalized name.
    pub name: PackageName,
    /// The index it came from, credentials redacted (for messages).
    pub index: String,
    /// Its files, each parsed (built on first access when read from the page cache); files
    /// whose names do not parse are skipped.
    pub files: Files,
}

/// One release file.
#[derive(Debug, Clone)]
pub struct DistFile {
    /// The parsed file name (name, version, tags).
    pub filename: DistFilename,
    /// Where to fetch it (absolute, fragment removed), parsed when first used.
    pub url: FileUrl,
    /// Hashes by algorithm (`sha256` -> hex).
    pub hashes: Hashes,
    /// `requires-python` / `data-requires-python`.
    pub requires_python: Option<VersionSpecifiers>,
    /// PEP 592: `Some(reason)` when yanked (the reason may be empty).
    pub yanked: Option<String>,
    /// Upload time, when the index says.
    pub upload_time: Option<jiff::Timestamp>,
    /// Size in bytes, when the index says.
    pub size: Option<u64>,
    /// PEP 658/714: the index advertises a `.metadata` file (with these hashes, maybe empty).
    pub core_metadata: Option<Hashes>,
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
    /// `--keyring-provider`: where credentials not in the URL or netrc are looked for.
    pub keyring: keyring::KeyringProvider,
    /// `--only-binary` / `--no-binary`.
    pub binary: BinaryPolicy,
    /// How long a page stays fresh when the server sends no `Cache-Control` (seconds).
    pub page_max_age: u64,
    /// Read pages for this target only: files that cannot change an answer for it are dropped
    /// on reading (`parse::FileFilter` says which are kept; every version stays listed). `None`
    /// keeps every file.
    pub target_tags: Option<crate::tags::Tags>,
    /// `--allow-build`: how sdists without static metadata are built for their requirements.
    pub build: BuildSettings,
}

/// Pages without `Cache-Control` stay fresh this long: the public index's own `max-age`.
/// Mirrors and private indexes often send no caching headers at all; `--refresh` bypasses it.
pub(crate) const DEFAULT_PAGE_MAX_AGE: u64 = 600;

impl Default for IndexSettings {
    fn default() -> Self {
        IndexSettings {
            indexes: Vec::new(),
            cache_dir: None,
            offline: false,
            refresh: false,
            client: ClientSettings::default(),
            netrc: Netrc::default(),
            keyring: keyring::KeyringProvider::default(),
            binary: BinaryPolicy::default(),
            page_max_age: DEFAULT_PAGE_MAX_AGE,
            target_tags: None,
            build: BuildSettings::default(),
        }
    }
}

impl DistFile {
    /// The file name: the URL's last path segment, percent-decoded (`+` of local versions).
    pub fn filename_str(&self) -> String {
        url_filename(&self.url)
    }
}
