//! Which file of each version fits the target environment, and why a version does not.
//!
//! In: a [`Project`], the target [`Environment`] (wheel tags, Python version) and a
//! [`BinaryPolicy`] (`--only-binary`/`--no-binary`, pip semantics). Out: one [`Candidate`] per
//! version, newest first (PEP 440 order), with the best usable file or the reason none fits;
//! or, for callers that choose version by version, the files grouped by version
//! ([`VersionGroups`]) and the choice for one of them ([`choose`]).
//!
//! This is data, not policy: pre-releases are listed like any version, and yanked versions keep
//! their file (with [`Unusable::Yanked`]) so the solver can allow an exact pin (PEP 592).

use std::collections::BTreeSet;
use std::str::FromStr;

use pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::PackageName;

use super::{DistFile, Project};
use crate::inventory::Environment;
use crate::tags::Tags;

/// Which formats a package may use: pip's `--only-binary` / `--no-binary`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BinaryPolicy {
    only_binary: BTreeSet<String>,
    no_binary: BTreeSet<String>,
}

/// The formats allowed for one package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AllowedFormats {
    /// Wheels may be used.
    pub binary: bool,
    /// Sdists may be used.
    pub source: bool,
}

const ALL: &str = ":all:";

impl BinaryPolicy {
    /// Build from the flag values as pip reads them: comma-separated names, `:all:` and
    /// `:none:`; a name given to one flag is removed from the other. The `--no-binary` values are
    /// applied first, then `--only-binary` (clap does not keep the order between two flags).
    pub fn new(only_binary: &[String], no_binary: &[String]) -> BinaryPolicy {
        let mut policy = BinaryPolicy::default();
        for value in no_binary {
            handle_mutual_excludes(value, &mut policy.no_binary, &mut policy.only_binary);
        }
        for value in only_binary {
            handle_mutual_excludes(value, &mut policy.only_binary, &mut policy.no_binary);
        }
        policy
    }

    /// What one package may use (pip's `FormatControl.get_allowed_formats`).
    pub(crate) fn allowed(&self, name: &PackageName) -> AllowedFormats {
        let name = name.as_ref();
        let mut allowed = AllowedFormats {
            binary: true,
            source: true,
        };
        if self.only_binary.contains(name) {
            allowed.source = false;
        } else if self.no_binary.contains(name) {
            allowed.binary = false;
        } else if self.only_binary.contains(ALL) {
            allowed.source = false;
        } else if self.no_binary.contains(ALL) {
            allowed.binary = false;
        }
        allowed
    }
}

/// pip's `handle_mutual_excludes`.
fn handle_mutual_excludes(
    value: &str,
    target: &mut BTreeSet<String>,
    other: &mut BTreeSet<String>,
) {
    let mut names: Vec<&str> = value.split(',').map(str::trim).collect();
    while let Some(i) = names.iter().position(|n| *n == ALL) {
        other.clear();
        target.clear();
        target.insert(ALL.to_string());
        names.drain(..=i);
        if !names.contains(&":none:") {
            return;
        }
    }
    for name in names {
        if name == ":none:" {
            target.clear();
            continue;
        }
        if name.is_empty() {
            continue;
        }
        let normalized = PackageName::from_str(name)
            .map(|n| n.to_string())
            .unwrap_or_else(|_| name.to_ascii_lowercase());
        other.remove(&normalized);
        target.insert(normalized);
    }
}

/// Why no file of a version can be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// Wheels exist but none has a tag the environment supports (and no sdist may be used).
    NoCompatibleWheel {
        /// A few of the wheels' tags, for the message.
        tags: Vec<String>,
    },
    /// No wheel fits, an sdist exists, and the package is `--only-binary`.
    OnlySdist,
    /// Only wheels exist and the package is `--no-binary`.
    NoBinaryWithoutSdist,
    /// Every usable file's `Requires-Python` excludes the target Python.
    RequiresPython(VersionSpecifiers),
    /// Every usable file is yanked (PEP 592); `file` is still set so an exact pin may use it.
    Yanked {
        /// The reason given (may be empty).
        reason: String,
    },
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::NoCompatibleWheel { tags } if tags.is_empty() => {
                f.write_str("no wheel for this environment")
            }
            Unusable::NoCompatibleWheel { tags } => {
                write!(
                    f,
                    "no wheel for this environment (wheels for {})",
                    tags.join(", ")
                )
            }
            Unusable::OnlySdist => f.write_str(
                "no wheel for this environment, only an sdist, and binaries are required",
            ),
            Unusable::NoBinaryWithoutSdist => {
                f.write_str("only wheels, and --no-binary forbids them")
            }
            Unusable::RequiresPython(spec) => write!(f, "requires Python {spec}"),
            Unusable::Yanked { reason } if reason.is_empty() => f.write_str("yanked"),
            Unusable::Yanked { reason } => write!(f, "yanked ({reason})"),
        }
    }
}

/// One version of a project, as the target environment sees it (borrowing its file from the
/// [`Project`]).
#[derive(Debug, Clone)]
pub struct Candidate<'p> {
    /// The version.
    pub version: Version,
    /// The file to use: the best-ranked compatible wheel, else the sdist. Set for yanked
    /// versions too; `None` when no file fits the tags and the binary policy, or when
    /// requires-python excludes every fitting file.
    pub file: Option<&'p DistFile>,
    /// Why the version cannot be used as is (`None`: usable).
    pub unusable: Option<Unusable>,
}

impl Candidate<'_> {
    /// Usable without any exception (not yanked, fits the environment).
    pub fn is_usable(&self) -> bool {
        self.unusable.is_none()
    }
}

/// Every version of `project`, newest first, with its best file for `env` under `policy`.
pub fn candidates<'p>(
    project: &'p Project,
    env: &Environment,
    policy: &BinaryPolicy,
) -> Vec<Candidate<'p>> {
    candidates_for(project, &env.tags, &env.python_version, policy)
}

/// [`candidates`] with the environment's parts given separately.
pub(crate) fn candidates_for<'p>(
    project: &'p Project,
    tags: &Tags,
    python: &Version,
    policy: &BinaryPolicy,
) -> Vec<Candidate<'p>> {
    choices(project, tags, python, policy)
        .map(|(version, choice)| Candidate {
            version: version.clone(),
            file: choice.file.map(|i| &project.files[i]),
            unusable: choice.unusable,
        })
        .collect()
}

/// [`candidates_for`] with each file named by its index in `project.files`.
pub(crate) fn choices<'p>(
    project: &'p Project,
    tags: &Tags,
    python: &Version,
    policy: &BinaryPolicy,
) -> impl Iterator<Item = (&'p Version, Choice)> {
    let allowed = policy.allowed(&project.name);
    let groups = VersionGroups::new(project);
    (0..groups.len()).rev().map(move |group| {
        let choice = choose(project, groups.files(group), tags, python, allowed);
        (groups.version(project, group), choice)
    })
}

/// A project's files grouped by version: versions ascending (PEP 440 order; versions that
/// compare equal are one group, named as its first file names it), each version's files in the
/// project's order. What [`candidates`] and the solver's version tables choose from.
#[derive(Debug, Clone, Default)]
pub(crate) struct VersionGroups {
    /// Indices into the project's files, sorted by version (a stable sort).
    order: Vec<u32>,
    /// Where each group starts in `order`, then the end of `order`.
    starts: Vec<u32>,
}

impl VersionGroups {
    /// Group `project`'s files: the versions their keys name ([`super::Files::version_keys`])
    /// ranked by one stable sort, then the files placed by rank (a counting sort: stable, so
    /// each version's files stay in the project's order).
    pub(crate) fn new(project: &Project) -> VersionGroups {
        let (keys, versions) = project.files.version_keys();
        u32::try_from(keys.len()).expect("fewer than 2^32 files in a project");
        let mut by_version: Vec<u32> = (0..versions.len() as u32).collect();
        by_version.sort_by(|a, b| versions[*a as usize].cmp(versions[*b as usize]));
        // Each key's rank: equal versions share one.
        let mut rank = vec![0u32; versions.len()];
        let mut ranks = 0u32;
        for (at, key) in by_version.iter().enumerate() {
            if at > 0 && versions[by_version[at - 1] as usize] != versions[*key as usize] {
                ranks += 1;
            }
            rank[*key as usize] = ranks;
        }
        // Every key names at least one file, so every rank is a non-empty group.
        let mut starts = vec![
            0u32;
            if keys.is_empty() {
                0
            } else {
                ranks as usize + 2
            }
        ];
        for key in &keys {
            starts[rank[*key as usize] as usize + 1] += 1;
        }
        for at in 1..starts.len() {
            starts[at] += starts[at - 1];
        }
        let mut next = starts.clone();
        let mut order = vec![0u32; keys.len()];
        for (file, key) in keys.iter().enumerate() {
            let slot = &mut next[rank[*key as usize] as usize];
            order[*slot as usize] = file as u32;
            *slot += 1;
        }
        VersionGroups { order, starts }
    }

    /// How many versions there are.
    pub(crate) fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The files of one group (indices into the project's files), in the project's order.
    pub(crate) fn files(&self, group: usize) -> &[u32] {
        &self.order[self.starts[group] as usize..self.starts[group + 1] as usize]
    }

    /// The version of one group, as its first file names it.
    pub(crate) fn version<'p>(&self, project: &'p Project, group: usize) -> &'p Version {
        project.files.head(self.files(group)[0] as usize).version
    }
}

/// The verdict on one version: its file (an index into the project's files) and why it cannot
/// be used as is, as in [`Candidate`].
#[derive(Debug, Clone)]
pub(crate) struct Choice {
    /// The chosen file's index in the project's files.
    pub file: Option<usize>,
    /// Why the version cannot be used as is (`None`: usable).
    pub unusable: Option<Unusable>,
}

/// A few of the wheels' tags for a message, one per interpreter (`cp310`, `cp311`, ... `cp314`),
/// at most 5: the first tags in sorted order would all be `cp310` variants and hide that
/// `cp311`-`cp314` wheels exist.
fn offered_tags(tags: &BTreeSet<String>) -> Vec<String> {
    let mut interpreters = BTreeSet::new();
    tags.iter()
        .filter(|t| interpreters.insert(t.split('-').next().unwrap_or("")))
        .take(5)
        .cloned()
        .collect()
}

/// Choose among one version's `files` (indices into `project.files`, in the project's order).
pub(crate) fn choose(
    project: &Project,
    files: &[u32],
    tags: &Tags,
    python: &Version,
    allowed: AllowedFormats,
) -> Choice {
    let file = |i: usize| project.files.head(i);
    // Files that fit the tags and the policy, best first: wheels by tag rank (then build tag,
    // higher first), then sdists.
    let mut fitting: Vec<(usize, i64, usize)> = Vec::new();
    let mut wheel_tags = BTreeSet::new();
    let (mut has_wheel, mut has_sdist) = (false, false);
    for &i in files {
        let i = i as usize;
        let head = file(i);
        match head.tags {
            Some(wheel) => {
                has_wheel = true;
                if !allowed.binary {
                    continue;
                }
                match tags.best_rank(wheel.iter()) {
                    Some(rank) => {
                        let build = head.build.map_or(0, |(n, _)| *n as i64);
                        fitting.push((rank, -build, i));
                    }
                    None => {
                        if let Some(t) = wheel.first() {
                            wheel_tags.insert(t.to_string());
                        }
                    }
                }
            }
            None => {
                has_sdist = true;
                if allowed.source {
                    fitting.push((usize::MAX, 0, i));
                }
            }
        }
    }
    fitting.sort_by_key(|(rank, build, _)| (*rank, *build));
    if fitting.is_empty() {
        // An sdist the policy forbids is the way out (a build), so it is named first.
        let unusable = if has_sdist && !allowed.source {
            Unusable::OnlySdist
        } else if has_wheel && allowed.binary {
            Unusable::NoCompatibleWheel {
                tags: offered_tags(&wheel_tags),
            }
        } else if has_wheel && !allowed.binary {
            Unusable::NoBinaryWithoutSdist
        } else {
            Unusable::NoCompatibleWheel { tags: Vec::new() }
        };
        return Choice {
            file: None,
            unusable: Some(unusable),
        };
    }
    let python_ok = |i: usize| {
        file(i)
            .requires_python
            .is_none_or(|spec| spec.contains(python))
    };
    let mut in_python = fitting.iter().map(|(_, _, i)| *i).filter(|i| python_ok(*i));
    let Some(first) = in_python.next() else {
        let spec = file(fitting[0].2)
            .requires_python
            .cloned()
            .unwrap_or_else(|| VersionSpecifiers::from_iter([]));
        return Choice {
            file: None,
            unusable: Some(Unusable::RequiresPython(spec)),
        };
    };
    match std::iter::once(first)
        .chain(in_python)
        .find(|i| !file(*i).yanked)
    {
        Some(i) => Choice {
            file: Some(i),
            unusable: None,
        },
        None => Choice {
            file: Some(first),
            unusable: Some(Unusable::Yanked {
                reason: project.files[first].yanked.clone().unwrap_or_default(),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, requires_python: Option<&str>, yanked: Option<&str>) -> DistFile {
        DistFile {
            filename: name.parse().unwrap(),
            url: url::Url::parse(&format!("https://x.example/{name}"))
                .unwrap()
                .into(),
            hashes: Default::default(),
            requires_python: requires_python.map(|r| r.parse().unwrap()),
            yanked: yanked.map(str::to_string),
            upload_time: None,
            size: None,
            core_metadata: None,
        }
    }

    fn tags() -> Tags {
        Tags::new(vec![
            "cp312-cp312-manylinux_2_28_x86_64".parse().unwrap(),
            "cp312-abi3-manylinux_2_28_x86_64".parse().unwrap(),
            "py3-none-any".parse().unwrap(),
        ])
    }

    fn project(files: Vec<DistFile>) -> Project {
        Project {
            name: PackageName::from_str("demo").unwrap(),
            index: "https://x.example/simple".to_string(),
            files: files.into(),
        }
    }

    fn py() -> Version {
        Version::from_str("3.12.3").unwrap()
    }

    #[test]
    fn best_wheel_then_sdist_newest_first() {
        let p = project(vec![
            file("demo-1.0.tar.gz", None, None),
            file("demo-1.0-py3-none-any.whl", None, None),
            file("demo-1.0-cp312-abi3-manylinux_2_28_x86_64.whl", None, None),
            file("demo-1.0-cp312-cp312-macosx_11_0_arm64.whl", None, None),
            file("demo-1.10.tar.gz", None, None),
            file("demo-1.9-cp311-cp311-manylinux_2_28_x86_64.whl", None, None),
        ]);
        let c = candidates_for(&p, &tags(), &py(), &BinaryPolicy::default());
        let versions: Vec<String> = c.iter().map(|c| c.version.to_string()).collect();
        assert_eq!(versions, ["1.10", "1.9", "1.0"]);
        assert!(
            c[0].file
                .as_ref()
                .unwrap()
                .url
                .as_str()
                .ends_with("1.10.tar.gz")
        );
        assert_eq!(
            c[1].unusable,
            Some(Unusable::NoCompatibleWheel {
                tags: vec!["cp311-cp311-manylinux_2_28_x86_64".to_string()]
            })
        );
        assert!(c[2].file.as_ref().unwrap().url.as_str().contains("abi3"));
    }

    /// The no-wheel message names one tag per interpreter, not the first three
    /// tags in sorted order (all cp310 variants while cp311-cp314 wheels exist).
    #[test]
    fn no_wheel_tags_name_every_interpreter() {
        let mut files = Vec::new();
        for py in ["cp310", "cp311", "cp312", "cp313", "cp314"] {
            for plat in ["macosx_11_0_arm64", "manylinux_2_34_aarch64", "win_amd64"] {
                let name = format!("demo-1.0-{py}-{py}-{plat}.whl");
                files.push(file(&name, None, None));
            }
        }
        let p = project(files);
        let c = candidates_for(&p, &tags(), &py(), &BinaryPolicy::default());
        let Some(Unusable::NoCompatibleWheel { tags }) = &c[0].unusable else {
            panic!("{:?}", c[0].unusable);
        };
        assert_eq!(
            tags,
            &[
                "cp310-cp310-macosx_11_0_arm64",
                "cp311-cp311-macosx_11_0_arm64",
                "cp312-cp312-macosx_11_0_arm64",
                "cp313-cp313-macosx_11_0_arm64",
                "cp314-cp314-macosx_11_0_arm64",
            ]
        );
    }

    #[test]
    fn binary_policies_follow_pip() {
        let p = project(vec![
            file("demo-2.0.tar.gz", None, None),
            file("demo-1.0-py3-none-any.whl", None, None),
        ]);
        let only = BinaryPolicy::new(&[":all:".to_string()], &[]);
        let c = candidates_for(&p, &tags(), &py(), &only);
        assert_eq!(c[0].unusable, Some(Unusable::OnlySdist));
        assert!(c[1].is_usable());
        let no = BinaryPolicy::new(&[], &["demo".to_string()]);
        let c = candidates_for(&p, &tags(), &py(), &no);
        assert!(c[0].is_usable());
        assert_eq!(c[1].unusable, Some(Unusable::NoBinaryWithoutSdist));
        // A name given to --only-binary wins over `--no-binary :all:`.
        let both = BinaryPolicy::new(&["Demo".to_string()], &[":all:".to_string()]);
        assert!(!both.allowed(&p.name).source);
        let reset = BinaryPolicy::new(&[":all:,:none:".to_string()], &[]);
        assert!(reset.allowed(&p.name).source);
    }

    #[test]
    fn requires_python_and_yanked_are_reasons() {
        let p = project(vec![
            file("demo-3.0-py3-none-any.whl", Some(">=3.13"), None),
            file("demo-2.0-py3-none-any.whl", None, Some("broken")),
            file("demo-1.0-py3-none-any.whl", Some(">=3.8"), None),
        ]);
        let c = candidates_for(&p, &tags(), &py(), &BinaryPolicy::default());
        assert_eq!(
            c[0].unusable,
            Some(Unusable::RequiresPython(">=3.13".parse().unwrap()))
        );
        assert_eq!(
            c[0].unusable.as_ref().unwrap().to_string(),
            "requires Python >=3.13"
        );
        assert_eq!(
            c[1].unusable,
            Some(Unusable::Yanked {
                reason: "broken".to_string()
            })
        );
        assert!(c[1].file.is_some());
        assert!(c[2].is_usable());
    }
}
