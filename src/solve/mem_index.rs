//! An in-memory [`IndexSource`]: projects, files and metadata held in maps.
//!
//! In: releases described in code ([`MemRelease`]). Out: the same [`Project`] and
//! [`CoreMetadata`] values an HTTP index yields (metadata goes through the real parser). Used by
//! unit tests, the solver oracle and anyone who needs an index without IO.

use std::collections::{BTreeMap, HashMap};
use std::str::FromStr;
use std::sync::Arc;

use pep508_rs::PackageName;

use crate::index::{DistFile, DistFilename, FilenameError, IndexError, IndexSource, Project};
use crate::metadata::CoreMetadata;

/// Why a release cannot be added to a [`MemIndex`]: no file name can carry its name or version.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MemIndexError {
    /// The file name made from the release does not parse.
    #[error("`{filename}` is not a wheel file name: {source}")]
    FileName {
        /// The file name.
        filename: String,
        /// What the file name parser said.
        source: FilenameError,
    },
    /// The file name does not make a URL.
    #[error("`{filename}`: {source}")]
    Url {
        /// The file name.
        filename: String,
        /// What the URL parser said.
        source: url::ParseError,
    },
}

/// One release to add to a [`MemIndex`].
#[derive(Debug, Clone, Default)]
pub(crate) struct MemRelease {
    /// Project name.
    pub name: String,
    /// Version.
    pub version: String,
    /// `Requires-Dist` lines.
    pub requires_dist: Vec<String>,
    /// `Requires-Python` (in the metadata and on every file).
    pub requires_python: Option<String>,
    /// `Provides-Extra`.
    pub provides_extra: Vec<String>,
    /// PEP 592 yank reason for every file.
    pub yanked: Option<String>,
    /// Wheel tags (`py3-none-any` when empty); `None` for no wheel.
    pub wheel_tags: Option<Vec<String>>,
    /// Whether an sdist exists.
    pub sdist: bool,
}

impl MemRelease {
    /// A release with one `py3-none-any` wheel.
    pub(crate) fn new(name: &str, version: &str, requires_dist: &[&str]) -> Self {
        MemRelease {
            name: name.to_string(),
            version: version.to_string(),
            requires_dist: requires_dist.iter().map(ToString::to_string).collect(),
            wheel_tags: Some(Vec::new()),
            ..MemRelease::default()
        }
    }
}

/// An index held in memory.
#[derive(Debug, Default, Clone)]
pub struct MemIndex {
    projects: BTreeMap<PackageName, Arc<Project>>,
    metadata: HashMap<String, Arc<CoreMetadata>>,
}

impl MemIndex {
    /// An empty index.
    pub fn new() -> Self {
        MemIndex::default()
    }

    /// Add `name==version` with one universal wheel and these requirements.
    ///
    /// # Panics
    /// On an invalid name, version or requirement (this is for code-written fixtures).
    pub fn add(&mut self, name: &str, version: &str, requires_dist: &[&str]) -> &mut Self {
        self.add_release(MemRelease::new(name, version, requires_dist))
    }

    /// Add a release.
    ///
    /// # Panics
    /// On an invalid name, version or requirement (this is for code-written fixtures).
    pub(crate) fn add_release(&mut self, release: MemRelease) -> &mut Self {
        let mut text = format!(
            "Metadata-Version: 2.4\nName: {}\nVersion: {}\n",
            release.name, release.version
        );
        if let Some(rp) = &release.requires_python {
            text.push_str(&format!("Requires-Python: {rp}\n"));
        }
        for extra in &release.provides_extra {
            text.push_str(&format!("Provides-Extra: {extra}\n"));
        }
        for r in &release.requires_dist {
            text.push_str(&format!("Requires-Dist: {r}\n"));
        }
        let metadata = Arc::new(CoreMetadata::parse_str(&text).expect("valid fixture metadata"));
        let name = metadata.name.clone();
        let stem = format!("{}-{}", name.as_ref().replace('-', "_"), release.version);
        let mut filenames = Vec::new();
        if let Some(tags) = &release.wheel_tags {
            let tags = if tags.is_empty() {
                vec!["py3-none-any".to_string()]
            } else {
                tags.clone()
            };
            for tag in tags {
                filenames.push(format!("{stem}-{tag}.whl"));
            }
        }
        if release.sdist {
            filenames.push(format!("{stem}.tar.gz"));
        }
        let requires_python = release
            .requires_python
            .as_deref()
            .map(|rp| pep440_rs::VersionSpecifiers::from_str(rp).expect("valid requires-python"));
        for filename in filenames {
            self.push_file(
                &metadata,
                &filename,
                requires_python.clone(),
                release.yanked.clone(),
            )
            .expect("valid fixture file name");
        }
        // A release with no files still makes its project known.
        self.projects.entry(name.clone()).or_insert_with(|| {
            Arc::new(Project {
                name,
                index: "memory".to_string(),
                files: Vec::new().into(),
            })
        });
        self
    }

    /// Add the release `metadata` describes, with one universal wheel (`py3-none-any`); its
    /// `Requires-Python` is left off the file. For releases read from somewhere else (an
    /// installed environment, a snapshot), so a name or version no wheel file name can carry is
    /// an error, not a panic.
    pub(crate) fn add_metadata(
        &mut self,
        metadata: CoreMetadata,
    ) -> Result<&mut Self, MemIndexError> {
        let filename = format!(
            "{}-{}-py3-none-any.whl",
            metadata.name.as_ref().replace('-', "_"),
            metadata.version
        );
        self.push_file(&Arc::new(metadata), &filename, None, None)?;
        Ok(self)
    }

    /// Add one file of `metadata`'s release, named `filename`, to its project (made when
    /// absent). A name no wheel or sdist file name can carry is an error.
    fn push_file(
        &mut self,
        metadata: &Arc<CoreMetadata>,
        filename: &str,
        requires_python: Option<pep440_rs::VersionSpecifiers>,
        yanked: Option<String>,
    ) -> Result<(), MemIndexError> {
        let parsed =
            DistFilename::from_str(filename).map_err(|source| MemIndexError::FileName {
                filename: filename.to_string(),
                source,
            })?;
        let url = url::Url::parse(&format!("https://index.invalid/files/{filename}")).map_err(
            |source| MemIndexError::Url {
                filename: filename.to_string(),
                source,
            },
        )?;
        self.metadata.insert(url.to_string(), metadata.clone());
        let name = metadata.name.clone();
        let mut files: Vec<DistFile> = self
            .projects
            .get(&name)
            .map(|p| p.files.iter().cloned().collect())
            .unwrap_or_default();
        files.push(DistFile {
            filename: parsed,
            url: url.into(),
            hashes: Default::default(),
            requires_python,
            yanked,
            upload_time: None,
            size: None,
            core_metadata: None,
        });
        self.projects.insert(
            name.clone(),
            Arc::new(Project {
                name,
                index: "memory".to_string(),
                files: files.into(),
            }),
        );
        Ok(())
    }
}

impl IndexSource for MemIndex {
    fn waits_on_network(&self) -> bool {
        false
    }

    fn project(&self, name: &PackageName) -> Result<Option<Arc<Project>>, IndexError> {
        Ok(self.projects.get(name).cloned())
    }

    fn metadata(
        &self,
        _project: &Project,
        file: &DistFile,
    ) -> Result<Arc<CoreMetadata>, IndexError> {
        Ok(self
            .metadata
            .get(file.url.as_str())
            .cloned()
            .expect("every file of a MemIndex has metadata"))
    }

    fn project_names(&self) -> Option<Vec<PackageName>> {
        Some(self.projects.keys().cloned().collect())
    }
}
