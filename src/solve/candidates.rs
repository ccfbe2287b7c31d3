//! Per project: which versions exist and what the target would install for each.
//!
//! In: a [`Project`] listing, the target [`Environment`], the [`BinaryPolicy`] and the installed
//! version (if any). Out: [`VersionTable`], every version sorted ascending, each with its
//! [`InstallChoice`]. The file choice itself is the index's ([`crate::index::candidates`]: the best
//! compatible wheel, else the sdist; files whose `requires-python` admits the target first). Here
//! its verdicts become solver terms: requires-python stays a dependency on Python (so a failure
//! names it), yanked stays a file (PEP 592 allows it for an exact pin), the rest are reasons.

use std::sync::Arc;

use pep440_rs::{Version, VersionSpecifiers};

use crate::index::candidates::{Choice, VersionGroups, choose};
use crate::index::{BinaryPolicy, DistFile, DistFilename, Project, Unusable};
use crate::inventory::Environment;
use crate::metadata::CoreMetadata;

use super::error::Unavailable;

/// What the target would install for one version. Files are named by their index in the
/// table's [`Project`] listing ([`VersionTable::file`] reads them), so a table copies no file.
#[derive(Debug, Clone)]
pub enum InstallChoice {
    /// The installed dist (its metadata is authoritative).
    Installed {
        /// Its metadata.
        metadata: Arc<CoreMetadata>,
        /// The index file of the same version, when the index has one that fits.
        file: Option<usize>,
    },
    /// A file from the index.
    File {
        /// The file.
        file: usize,
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
    choice: InstallChoice,
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

impl VersionTable {
    /// The entry for `version`.
    pub fn get(&self, version: &Version) -> Option<&VersionEntry> {
        self.versions
            .binary_search_by(|e| e.version.cmp(version))
            .ok()
            .map(|i| &self.versions[i])
    }

    /// What the target would install for an entry of this table.
    pub fn choice<'t>(&'t self, entry: &'t VersionEntry) -> &'t InstallChoice {
        &entry.choice
    }

    /// Whether the binary policy alone rules an entry out (only an sdist under
    /// `--only-binary`, only wheels under `--no-binary`): known from the listing, so the solver
    /// never tries it, and a failure names the policy once instead of once per release.
    pub fn excluded_by_binary_policy(&self, entry: &VersionEntry) -> bool {
        matches!(
            self.choice(entry),
            InstallChoice::Unusable(Unavailable::OnlyBinary | Unavailable::NoBinary)
        )
    }

    /// The chosen index file of an entry, if any.
    pub fn file(&self, entry: &VersionEntry) -> Option<&DistFile> {
        match self.choice(entry) {
            InstallChoice::File { file, .. }
            | InstallChoice::Installed {
                file: Some(file), ..
            } => Some(self.listed_file(*file)),
            _ => None,
        }
    }

    /// A file of the listing, by index.
    pub fn listed_file(&self, index: usize) -> &DistFile {
        let project = self.project.as_ref().expect("a file implies a project");
        &project.files[index]
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
        let mut versions: Vec<VersionEntry> = Vec::new();
        if let Some(project) = &project {
            let groups = VersionGroups::new(project);
            let allowed = binary.allowed(&project.name);
            versions.reserve(groups.len() + 1);
            for group in 0..groups.len() {
                let choice = choose(
                    project,
                    groups.files(group),
                    &env.tags,
                    &env.python_version,
                    allowed,
                );
                versions.push(VersionEntry {
                    version: groups.version(project, group).clone(),
                    choice: install_choice(choice),
                });
            }
        }
        if let Some(metadata) = installed {
            let at = versions.binary_search_by(|e| e.version.cmp(&metadata.version));
            let file = match at.map(|i| &versions[i].choice) {
                Ok(InstallChoice::File { file, yanked: None }) => Some(*file),
                _ => None,
            };
            let entry = VersionEntry {
                version: metadata.version.clone(),
                choice: InstallChoice::Installed {
                    metadata: metadata.clone(),
                    file,
                },
            };
            match at {
                Ok(i) => versions[i] = entry,
                Err(i) => versions.insert(i, entry),
            }
        }
        let has_final = versions.iter().any(|e| !e.version.any_prerelease());
        VersionTable {
            project,
            versions,
            has_final,
        }
    }
}

/// The index's verdict on a version as a solver term.
fn install_choice(choice: Choice) -> InstallChoice {
    match (choice.file, choice.unusable) {
        (Some(file), None) => InstallChoice::File { file, yanked: None },
        (Some(file), Some(Unusable::Yanked { reason })) => InstallChoice::File {
            file,
            yanked: Some(reason),
        },
        (_, Some(Unusable::RequiresPython(spec))) => InstallChoice::RequiresPython(spec),
        (_, Some(Unusable::NoCompatibleWheel { tags })) => {
            InstallChoice::Unusable(Unavailable::NoCompatibleWheel { offered: tags })
        }
        (_, Some(Unusable::OnlySdist)) => InstallChoice::Unusable(Unavailable::OnlyBinary),
        (_, Some(Unusable::NoBinaryWithoutSdist)) => InstallChoice::Unusable(Unavailable::NoBinary),
        (None, _) => InstallChoice::Unusable(Unavailable::NoCompatibleWheel {
            offered: Vec::new(),
        }),
    }
}
