//! Per project: which versions exist and what the target would install for each.
//!
//! In: a [`Project`] listing, the target [`Environment`], the [`BinaryPolicy`] and the installed
//! version (if any). Out: [`VersionTable`], every version sorted ascending, each with its
//! [`InstallChoice`], worked out when first asked ([`VersionTable::choice`]). The file choice
//! itself is the index's ([`crate::index::candidates`]: the best compatible wheel, else the sdist;
//! files whose `requires-python` admits the target first). Here its verdicts become solver terms: requires-python stays a dependency on Python (so a failure
//! names it), yanked stays a file (PEP 592 allows it for an exact pin), the rest are reasons.

use std::sync::{Arc, OnceLock};

use pep440_rs::{Version, VersionSpecifiers};

use crate::index::candidates::{AllowedFormats, Choice, VersionGroups, choose};
use crate::index::{BinaryPolicy, DistFile, Project, Unusable};
use crate::inventory::Environment;
use crate::metadata::CoreMetadata;
use crate::tags::Tags;

use super::error::Unavailable;

/// What the target would install for one version. Files are named by their index in the
/// table's [`Project`] listing ([`VersionTable::file`] reads them), so a table copies no file.
#[derive(Debug, Clone)]
pub(crate) enum InstallChoice {
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

/// What version tables choose files for: the target's wheel tags and Python version (one copy
/// shared by the tables of a [`super::catalog::CatalogCore`]).
#[derive(Debug)]
pub(crate) struct Target {
    tags: Tags,
    python: Version,
}

impl Target {
    /// The target of `env`.
    pub(crate) fn new(env: &Environment) -> Arc<Target> {
        Arc::new(Target {
            tags: env.tags.clone(),
            python: env.python_version.clone(),
        })
    }
}

/// One version of a project.
#[derive(Debug, Clone)]
pub(crate) struct VersionEntry {
    /// The version.
    pub version: Version,
    /// Where its files are.
    origin: Origin,
    /// What would be installed, worked out when first asked ([`VersionTable::choice`]).
    choice: OnceLock<InstallChoice>,
}

/// Where a version's files are.
#[derive(Debug, Clone)]
enum Origin {
    /// This group of the table's [`VersionGroups`].
    Listed(u32),
    /// The installed version, with its group when the index lists it too.
    Installed {
        metadata: Arc<CoreMetadata>,
        group: Option<u32>,
    },
}

/// Every version of one project. The versions are sorted when the table is built; which file
/// each would install (a walk of its files, their tags and requires-python) is worked out for
/// the versions asked about, once each: the solver reads a few per project, newest first.
#[derive(Debug, Clone)]
pub(crate) struct VersionTable {
    /// The listing (`None` when the index does not have the project).
    pub project: Option<Arc<Project>>,
    /// Versions, ascending.
    pub versions: Vec<VersionEntry>,
    /// Whether any version is a final release (not a pre-release or dev release).
    pub has_final: bool,
    /// The listing's files by version.
    groups: VersionGroups,
    /// The target the files are chosen for.
    target: Arc<Target>,
    /// The formats the binary policy allows for this project.
    allowed: AllowedFormats,
}

impl VersionTable {
    /// The entry for `version`.
    pub(crate) fn get(&self, version: &Version) -> Option<&VersionEntry> {
        self.versions
            .binary_search_by(|e| e.version.cmp(version))
            .ok()
            .map(|i| &self.versions[i])
    }

    /// What the target would install for an entry of this table.
    pub(crate) fn choice<'t>(&'t self, entry: &'t VersionEntry) -> &'t InstallChoice {
        entry.choice.get_or_init(|| match &entry.origin {
            Origin::Listed(group) => self.listed_choice(*group),
            Origin::Installed { metadata, group } => InstallChoice::Installed {
                metadata: metadata.clone(),
                file: match group.map(|g| self.listed_choice(g)) {
                    Some(InstallChoice::File { file, yanked: None }) => Some(file),
                    _ => None,
                },
            },
        })
    }

    /// The listed versions the target can use as the index offers them (a file that fits, not
    /// yanked, Python admitted: [`crate::index::candidates::Candidate::is_usable`]), newest first, spelled
    /// as the listing spells them, whatever is installed.
    pub(crate) fn listed_usable(&self) -> impl Iterator<Item = &Version> {
        self.versions.iter().rev().filter_map(|entry| {
            let usable = matches!(
                self.choice(entry),
                InstallChoice::File { yanked: None, .. }
                    | InstallChoice::Installed { file: Some(_), .. }
            );
            match &entry.origin {
                Origin::Listed(_) if usable => Some(&entry.version),
                Origin::Installed {
                    group: Some(group), ..
                } if usable => {
                    let project = self.project.as_ref()?;
                    Some(self.groups.version(project, *group as usize))
                }
                _ => None,
            }
        })
    }

    /// The index's verdict on one group of files.
    fn listed_choice(&self, group: u32) -> InstallChoice {
        let project = self.project.as_ref().expect("a group implies a project");
        let files = self.groups.files(group as usize);
        let (tags, python) = (&self.target.tags, &self.target.python);
        install_choice(choose(project, files, tags, python, self.allowed))
    }

    /// Whether the binary policy alone rules an entry out (only an sdist under
    /// `--only-binary`, only wheels under `--no-binary`): known from the listing, so the solver
    /// never tries it, and a failure names the policy once instead of once per release.
    pub(crate) fn excluded_by_binary_policy(&self, entry: &VersionEntry) -> bool {
        matches!(
            self.choice(entry),
            InstallChoice::Unusable(Unavailable::OnlyBinary | Unavailable::NoBinary)
        )
    }

    /// Whether the index lists `version` and the binary policy rules out every file it has of
    /// it (only an sdist under `--only-binary`): putting that release back from the index runs
    /// its build. `false` when the index does not list it (nothing is known of its files).
    pub(crate) fn listed_source_only(&self, version: &Version) -> bool {
        let group = match self.get(version).map(|entry| &entry.origin) {
            Some(Origin::Listed(group)) => Some(*group),
            Some(Origin::Installed { group, .. }) => *group,
            None => None,
        };
        group.is_some_and(|group| {
            matches!(
                self.listed_choice(group),
                InstallChoice::Unusable(Unavailable::OnlyBinary)
            )
        })
    }

    /// The chosen index file of an entry, if any.
    pub(crate) fn file(&self, entry: &VersionEntry) -> Option<&DistFile> {
        match self.choice(entry) {
            InstallChoice::File { file, .. }
            | InstallChoice::Installed {
                file: Some(file), ..
            } => Some(self.listed_file(*file)),
            _ => None,
        }
    }

    /// A file of the listing, by index.
    pub(crate) fn listed_file(&self, index: usize) -> &DistFile {
        let project = self.project.as_ref().expect("a file implies a project");
        &project.files[index]
    }

    /// Whether the release `version` ships platform-specific wheels (compiled code): a wheel
    /// of its public version (or of a local variant of it) with a platform tag other than `any`.
    pub(crate) fn platform_specific(&self, version: &Version) -> bool {
        let public = version.clone().without_local();
        self.project.as_ref().is_some_and(|p| {
            p.files.heads().any(|f| {
                f.tags
                    .is_some_and(|tags| tags.iter().any(|t| t.platform != "any"))
                    && (*f.version == public
                        || f.version.is_local() && f.version.clone().without_local() == public)
            })
        })
    }

    /// Whether the release `version` ships wheels built against one CPython's ABI (a compiled
    /// wheel whose ABI tag is not `none`: `cp312-cp312-manylinux_2_28_x86_64`, `abi3`). A
    /// `py3-none-<platform>` build (torchaudio 2.11.1) is compiled but CPython-independent: it
    /// links its own stable interface, so its declared requirements speak for its coupling.
    pub(crate) fn cpython_bound(&self, version: &Version) -> bool {
        let public = version.clone().without_local();
        self.project.as_ref().is_some_and(|p| {
            p.files.heads().any(|f| {
                f.tags
                    .is_some_and(|tags| tags.iter().any(|t| t.platform != "any" && t.abi != "none"))
                    && (*f.version == public
                        || f.version.is_local() && f.version.clone().without_local() == public)
            })
        })
    }

    /// Build the table: every version of the listing, sorted, and the installed version.
    pub(crate) fn build(
        project: Option<Arc<Project>>,
        target: &Arc<Target>,
        binary: &BinaryPolicy,
        installed: Option<&Arc<CoreMetadata>>,
    ) -> VersionTable {
        let groups = project
            .as_deref()
            .map(VersionGroups::new)
            .unwrap_or_default();
        let mut versions: Vec<VersionEntry> = Vec::with_capacity(groups.len() + 1);
        if let Some(project) = &project {
            versions.extend((0..groups.len()).map(|group| VersionEntry {
                version: groups.version(project, group).clone(),
                origin: Origin::Listed(group as u32),
                choice: OnceLock::new(),
            }));
        }
        if let Some(metadata) = installed {
            let at = versions.binary_search_by(|e| e.version.cmp(&metadata.version));
            let entry = |group| VersionEntry {
                version: metadata.version.clone(),
                origin: Origin::Installed {
                    metadata: metadata.clone(),
                    group,
                },
                choice: OnceLock::new(),
            };
            match at {
                // Before the installed version is added, entry `i` is group `i`.
                Ok(i) => versions[i] = entry(Some(i as u32)),
                Err(i) => versions.insert(i, entry(None)),
            }
        }
        let has_final = versions.iter().any(|e| !e.version.any_prerelease());
        let allowed = match &project {
            Some(project) => binary.allowed(&project.name),
            None => AllowedFormats {
                binary: true,
                source: true,
            },
        };
        VersionTable {
            project,
            versions,
            has_final,
            groups,
            target: target.clone(),
            allowed,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::candidates::candidates_for;
    use crate::index::parse::simple_json;

    /// A listing of the recorded index, its files as the page lists them.
    fn recorded(dir: &std::path::Path) -> Option<Arc<Project>> {
        let bytes = std::fs::read(dir.join("index.json")).ok()?;
        let url = url::Url::from_directory_path(dir).unwrap();
        let page = simple_json(&bytes, &url).unwrap();
        Some(Arc::new(Project {
            name: page.name.unwrap(),
            index: String::new(),
            files: page.files,
        }))
    }

    /// On every recorded page, under three binary policies, the table (its choices worked
    /// out newest first, as the solver asks, or oldest first) says what the index's candidates
    /// say: the same versions, the same file, the same reason; the installed version's entry
    /// keeps the file only when it is usable.
    #[test]
    fn tables_answer_as_the_candidates_on_the_recorded_index() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/index/simple");
        let env = crate::solve::tests::linux_env("3.12.3");
        let target = Target::new(&env);
        let policies = [
            BinaryPolicy::default(),
            BinaryPolicy::new(&[":all:".to_string()], &[]),
            BinaryPolicy::new(&[], &[":all:".to_string()]),
        ];
        let mut pages = 0;
        for dir in std::fs::read_dir(&root).unwrap() {
            let Some(project) = recorded(&dir.unwrap().path()) else {
                continue;
            };
            for (i, policy) in policies.iter().enumerate() {
                let expected = candidates_for(&project, &env.tags, &env.python_version, policy);
                let table = VersionTable::build(Some(project.clone()), &target, policy, None);
                let in_order: Box<dyn Iterator<Item = &VersionEntry>> = if i % 2 == 0 {
                    Box::new(table.versions.iter().rev())
                } else {
                    Box::new(table.versions.iter())
                };
                for entry in in_order {
                    table.choice(entry);
                }
                assert_eq!(table.versions.len(), expected.len(), "{}", project.name);
                for (entry, c) in table.versions.iter().rev().zip(&expected) {
                    assert_eq!(entry.version, c.version);
                    let want = install_choice(Choice {
                        file: c.file.map(|f| index_of(&project, f)),
                        unusable: c.unusable.clone(),
                    });
                    assert_eq!(
                        format!("{:?}", table.choice(entry)),
                        format!("{want:?}"),
                        "{} {}",
                        project.name,
                        entry.version
                    );
                }
                assert_eq!(
                    table.listed_usable().collect::<Vec<_>>(),
                    usable_versions(&expected)
                );
                let has_final = expected.iter().any(|c| !c.version.any_prerelease());
                assert_eq!(table.has_final, has_final);
                installed_entry_keeps_a_usable_file(&project, &target, policy, &expected);
            }
            pages += 1;
        }
        assert!(pages > 100, "only {pages} recorded pages");
    }

    fn index_of(project: &Project, file: &DistFile) -> usize {
        project
            .files
            .iter()
            .position(|f| std::ptr::eq(f, file))
            .unwrap()
    }

    fn installed_entry_keeps_a_usable_file(
        project: &Arc<Project>,
        target: &Arc<Target>,
        policy: &BinaryPolicy,
        expected: &[crate::index::candidates::Candidate<'_>],
    ) {
        let Some(c) = expected.get(expected.len() / 2) else {
            return;
        };
        let text = format!(
            "Metadata-Version: 2.1\nName: {}\nVersion: {}\n",
            project.name, c.version
        );
        let metadata = Arc::new(CoreMetadata::parse_str(&text).unwrap());
        let table = VersionTable::build(Some(project.clone()), target, policy, Some(&metadata));
        assert_eq!(table.versions.len(), expected.len());
        let entry = table.get(&c.version).unwrap();
        let InstallChoice::Installed { file, .. } = table.choice(entry) else {
            panic!("{} {}: not the installed entry", project.name, c.version);
        };
        let usable = c.file.filter(|_| c.unusable.is_none());
        assert_eq!(
            file.map(|f| &project.files[f]).map(|f| &f.url),
            usable.map(|f| &f.url)
        );
        assert_eq!(
            table.listed_usable().collect::<Vec<_>>(),
            usable_versions(expected)
        );
    }

    /// The versions of these candidates that can be installed, newest first.
    fn usable_versions<'c>(
        expected: &'c [crate::index::candidates::Candidate<'_>],
    ) -> Vec<&'c Version> {
        expected
            .iter()
            .filter(|c| c.is_usable())
            .map(|c| &c.version)
            .collect()
    }
}
