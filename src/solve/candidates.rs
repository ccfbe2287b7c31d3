//! Per project: which versions exist and what the target would install for each.
//!
//! In: a [`Project`] listing, the target [`Environment`], the [`BinaryPolicy`] and the installed
//! version (if any). Out: [`VersionTable`], every version sorted ascending, each with its
//! [`InstallChoice`]. The file choice itself is the index's ([`crate::index::candidates`]: the best
//! compatible wheel, else the sdist; files whose `requires-python` admits the target first). Here
//! its verdicts become solver terms: requires-python stays a dependency on Python (so a failure
//! names it), yanked stays a file (PEP 592 allows it for an exact pin), the rest are reasons.

use std::collections::BTreeMap;
use std::sync::Arc;

use pep440_rs::{Version, VersionSpecifiers};

use crate::index::{BinaryPolicy, DistFile, DistFilename, Project, Unusable, candidates};
use crate::inventory::Environment;
use crate::metadata::CoreMetadata;

use super::error::Unavailable;

/// What the target would install for one version.
#[derive(Debug, Clone)]
pub enum InstallChoice {
    /// The installed dist (its metadata is authoritative).
    Installed {
        /// Its metadata.
        metadata: Arc<CoreMetadata>,
        /// The index file of the same version, when the index has one that fits.
        file: Option<Box<DistFile>>,
    },
    /// A file from the index.
    File {
        /// The file.
        file: Box<DistFile>,
        /// PEP 592: every fitting file is yanked, with this reason.
        yanked: Option<String>,
    },
    /// Every fitting file's `requires-python` excludes the target.
    RequiresPython(VersionSpecifiers),
    /// Nothing fits.
    Unusable(Unavailable),
}

/// One version of a project.
#[derive(Debug, Clone)]
pub struct VersionEntry {
    /// The version.
    pub version: Version,
    /// What would be installed.
    pub choice: InstallChoice,
}

/// Every version of one project.
#[derive(Debug, Clone, Default)]
pub struct VersionTable {
    /// The listing (`None` when the index does not have the project).
    pub project: Option<Arc<Project>>,
    /// Versions, ascending.
    pub versions: Vec<VersionEntry>,
    /// Whether any version is a final release (not a pre-release or dev release).
    pub has_final: bool,
}

impl VersionEntry {
    /// Whether the binary policy alone rules this release out (only an sdist under
    /// `--only-binary`, only wheels under `--no-binary`): known from the listing, so the solver
    /// never tries it, and a failure names the policy once instead of once per release.
    pub fn excluded_by_binary_policy(&self) -> bool {
        matches!(
            self.choice,
            InstallChoice::Unusable(Unavailable::OnlyBinary | Unavailable::NoBinary)
        )
    }
}

impl VersionTable {
    /// The entry for `version`.
    pub fn get(&self, version: &Version) -> Option<&VersionEntry> {
        self.versions
            .binary_search_by(|e| e.version.cmp(version))
            .ok()
            .map(|i| &self.versions[i])
    }

    /// The chosen index file of an entry, if any.
    pub fn file(entry: &VersionEntry) -> Option<&DistFile> {
        match &entry.choice {
            InstallChoice::File { file, .. } => Some(file),
            InstallChoice::Installed {
                file: Some(file), ..
            } => Some(file),
            _ => None,
        }
    }

    /// Whether the release `version` ships platform-specific wheels (compiled code): a wheel
    /// of its public version (or of a local variant of it) with a platform tag other than `any`.
    pub fn platform_specific(&self, version: &Version) -> bool {
        let public = version.clone().without_local();
        self.project.as_ref().is_some_and(|p| {
            p.files.iter().any(|f| {
                matches!(&f.filename, DistFilename::Wheel(w)
                    if w.tags.iter().any(|t| t.platform != "any")
                        && (w.version == public
                            || w.version.is_local()
                                && w.version.clone().without_local() == public))
            })
        })
    }

    /// Build the table.
    pub fn build(
        project: Option<Arc<Project>>,
        env: &Environment,
        binary: &BinaryPolicy,
        installed: Option<&Arc<CoreMetadata>>,
    ) -> VersionTable {
        let mut versions: BTreeMap<Version, InstallChoice> = BTreeMap::new();
        if let Some(project) = &project {
            for c in candidates(project, env, binary) {
                let choice = match (c.file, c.unusable) {
                    (Some(file), None) => InstallChoice::File {
                        file: Box::new(file),
                        yanked: None,
                    },
                    (Some(file), Some(Unusable::Yanked { reason })) => InstallChoice::File {
                        file: Box::new(file),
                        yanked: Some(reason),
                    },
                    (_, Some(Unusable::RequiresPython(spec))) => {
                        InstallChoice::RequiresPython(spec)
                    }
                    (_, Some(Unusable::NoCompatibleWheel { tags })) => {
                        InstallChoice::Unusable(Unavailable::NoCompatibleWheel { offered: tags })
                    }
                    (_, Some(Unusable::OnlySdist)) => {
                        InstallChoice::Unusable(Unavailable::OnlyBinary)
                    }
                    (_, Some(Unusable::NoBinaryWithoutSdist)) => {
                        InstallChoice::Unusable(Unavailable::NoBinary)
                    }
                    (None, _) => InstallChoice::Unusable(Unavailable::NoCompatibleWheel {
                        offered: Vec::new(),
                    }),
                };
                versions.insert(c.version, choice);
            }
        }
        if let Some(metadata) = installed {
            let file = match versions.remove(&metadata.version) {
                Some(InstallChoice::File { file, yanked: None }) => Some(file),
                _ => None,
            };
            versions.insert(
                metadata.version.clone(),
                InstallChoice::Installed {
                    metadata: metadata.clone(),
                    file,
                },
            );
        }
        let has_final = versions.keys().any(|v| !v.any_prerelease());
        VersionTable {
            project,
            versions: versions
                .into_iter()
                .map(|(version, choice)| VersionEntry { version, choice })
                .collect(),
            has_final,
        }
    }
}
