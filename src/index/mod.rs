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
}

mod error;
mod filename;

pub use error::IndexError;
pub use filename::{DistFilename, FilenameError, SdistFilename, WheelFilename};

use std::collections::BTreeMap;

use pep440_rs::VersionSpecifiers;

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
