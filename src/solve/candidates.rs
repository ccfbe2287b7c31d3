//! Per project: which versions exist and which file of each the target would install.
//!
//! In: a [`Project`] listing, the target [`Environment`], the [`BinaryPolicy`] and the installed
//! version (if any). Out: [`VersionTable`], every version sorted ascending, each with its
//! [`Candidate`]: the best file (a compatible wheel before an sdist; unyanked before yanked;
//! files whose `requires-python` admits the target before those that do not), the installed
//! dist, or why none fits. `requires-python` and yanked are kept on the candidate rather than
//! made reasons here: the provider turns the first into a dependency on Python (so the failure
//! names it) and applies PEP 592 to the second (yanked is fine for an exact pin).

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;
use std::sync::Arc;

use pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::PackageName;

use crate::index::{DistFile, DistFilename, Project};
use crate::inventory::Environment;
use crate::metadata::CoreMetadata;

use super::error::Unavailable;

/// A set of package names, or all of them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PackageSet {
    /// No package.
    #[default]
    None,
    /// Every package (`:all:`).
    All,
    /// These packages.
    Some(BTreeSet<PackageName>),
}

impl PackageSet {
    /// Whether `name` is in the set.
    pub fn contains(&self, name: &PackageName) -> bool {
        match self {
            PackageSet::None => false,
            PackageSet::All => true,
            PackageSet::Some(names) => names.contains(name),
        }
    }

    /// pip's syntax: names (comma-separated allowed), `:all:`, `:none:` (resets), in order.
    pub fn from_pip_args(values: &[String]) -> Result<Self, String> {
        let mut set = PackageSet::None;
        for value in values {
            for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                match item {
                    ":all:" => set = PackageSet::All,
                    ":none:" => set = PackageSet::None,
                    name => {
                        let name = PackageName::from_str(name)
                            .map_err(|e| format!("`{name}` is not a package name: {e}"))?;
                        match &mut set {
                            PackageSet::All => {}
                            PackageSet::None => set = PackageSet::Some(BTreeSet::from([name])),
                            PackageSet::Some(names) => {
                                names.insert(name);
                            }
                        }
                    }
                }
            }
        }
        Ok(set)
    }
}

/// `--only-binary` / `--no-binary`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BinaryPolicy {
    /// Wheels only (no sdist) for these.
    pub only_binary: PackageSet,
    /// Sdists only (no wheel) for these.
    pub no_binary: PackageSet,
}

impl BinaryPolicy {
    /// From pip-style `--only-binary` and `--no-binary` values.
    pub fn from_pip_args(only_binary: &[String], no_binary: &[String]) -> Result<Self, String> {
        Ok(BinaryPolicy {
            only_binary: PackageSet::from_pip_args(only_binary)?,
            no_binary: PackageSet::from_pip_args(no_binary)?,
        })
    }

    fn wheels_allowed(&self, name: &PackageName) -> bool {
        // A name listed explicitly wins over `:all:` on the other side.
        match (&self.no_binary, &self.only_binary) {
            (PackageSet::All, PackageSet::Some(names)) if names.contains(name) => true,
            (no, _) => !no.contains(name),
        }
    }

    fn sdists_allowed(&self, name: &PackageName) -> bool {
        match (&self.only_binary, &self.no_binary) {
            (PackageSet::All, PackageSet::Some(names)) if names.contains(name) => true,
            (only, _) => !only.contains(name),
        }
    }
}

/// What the target would install for one version.
#[derive(Debug, Clone)]
pub enum Candidate {
    /// The installed dist (its metadata is authoritative).
    Installed {
        /// Its metadata.
        metadata: Arc<CoreMetadata>,
        /// The index file of the same version, when the index has one that fits.
        file: Option<usize>,
    },
    /// A file from the index.
    File {
        /// Index into [`Project::files`].
        file: usize,
    },
    /// Nothing fits.
    Unusable(Unavailable),
}

/// One version of a project.
#[derive(Debug, Clone)]
pub struct VersionEntry {
    /// The version.
    pub version: Version,
    /// What would be installed.
    pub candidate: Candidate,
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

    /// The chosen index file of an entry, if any.
    pub fn file(&self, entry: &VersionEntry) -> Option<&DistFile> {
        let index = match entry.candidate {
            Candidate::File { file } => file,
            Candidate::Installed {
                file: Some(file), ..
            } => file,
            _ => return None,
        };
        self.project.as_ref().and_then(|p| p.files.get(index))
    }

    /// Build the table.
    pub fn build(
        name: &PackageName,
        project: Option<Arc<Project>>,
        env: &Environment,
        binary: &BinaryPolicy,
        installed: Option<&Arc<CoreMetadata>>,
    ) -> VersionTable {
        let mut by_version: BTreeMap<Version, Vec<usize>> = BTreeMap::new();
        if let Some(project) = &project {
            for (i, file) in project.files.iter().enumerate() {
                by_version
                    .entry(file.filename.version().clone())
                    .or_default()
                    .push(i);
            }
        }
        let mut versions: BTreeMap<Version, Candidate> = BTreeMap::new();
        for (version, files) in &by_version {
            let project = project.as_ref().expect("files imply a project");
            versions.insert(
                version.clone(),
                choose_file(name, project, files, env, binary),
            );
        }
        if let Some(metadata) = installed {
            let file = match versions.get(&metadata.version) {
                Some(Candidate::File { file }) => Some(*file),
                _ => None,
            };
            versions.insert(
                metadata.version.clone(),
                Candidate::Installed {
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
                .map(|(version, candidate)| VersionEntry { version, candidate })
                .collect(),
            has_final,
        }
    }
}

/// The best file of one version, or why none fits.
fn choose_file(
    name: &PackageName,
    project: &Project,
    files: &[usize],
    env: &Environment,
    binary: &BinaryPolicy,
) -> Candidate {
    let wheels_ok = binary.wheels_allowed(name);
    let sdists_ok = binary.sdists_allowed(name);
    let python = &env.python_version;
    let mut best: Option<((bool, bool, usize), usize)> = None;
    let (mut saw_wheel, mut saw_sdist) = (false, false);
    let mut offered = BTreeSet::new();
    for &i in files {
        let file = &project.files[i];
        let rank = match &file.filename {
            DistFilename::Wheel(wheel) => {
                saw_wheel = true;
                if !wheels_ok {
                    continue;
                }
                match env.tags.best_rank(&wheel.tags) {
                    Some(rank) => rank,
                    None => {
                        for tag in wheel.tags.iter().take(3) {
                            offered.insert(tag.to_string());
                        }
                        continue;
                    }
                }
            }
            DistFilename::Sdist(_) => {
                saw_sdist = true;
                if !sdists_ok {
                    continue;
                }
                usize::MAX
            }
        };
        let python_ok = file
            .requires_python
            .as_ref()
            .is_none_or(|rp| requires_python_admits(rp, python));
        // Smaller is better: unyanked, Python admitted, best tag rank.
        let key = (file.yanked.is_some(), !python_ok, rank);
        if best.as_ref().is_none_or(|(k, _)| key < *k) {
            best = Some((key, i));
        }
    }
    match best {
        Some((_, file)) => Candidate::File { file },
        None => Candidate::Unusable(if saw_sdist && !sdists_ok && !saw_wheel {
            Unavailable::OnlyBinary
        } else if saw_wheel && !wheels_ok && !saw_sdist {
            Unavailable::NoBinary
        } else if saw_sdist && !sdists_ok {
            Unavailable::OnlyBinary
        } else {
            Unavailable::NoCompatibleWheel {
                offered: offered.into_iter().take(4).collect(),
            }
        }),
    }
}

/// Whether a `Requires-Python` admits the target (release-only semantics).
pub fn requires_python_admits(specifiers: &VersionSpecifiers, python: &Version) -> bool {
    super::ranges::requires_python_to_ranges(specifiers).contains(&python.only_release())
}
