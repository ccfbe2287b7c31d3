//! Which file of each version fits the target environment, and why a version does not.
//!
//! In: a [`Project`], the target [`Environment`] (wheel tags, Python version) and a
//! [`BinaryPolicy`] (`--only-binary`/`--no-binary`, pip semantics). Out: one [`Candidate`] per
//! version, newest first (PEP 440 order), with the best usable file or the reason none fits.
//!
//! This is data, not policy: pre-releases are listed like any version, and yanked versions keep
//! their file (with [`Unusable::Yanked`]) so the solver can allow an exact pin (PEP 592).

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::PackageName;

use super::{DistFile, DistFilename, Project};
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
pub struct AllowedFormats {
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
    pub fn allowed(&self, name: &PackageName) -> AllowedFormats {
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

/// One version of a project, as the target environment sees it.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The version.
    pub version: Version,
    /// The file to use: the best-ranked compatible wheel, else the sdist. Set for yanked
    /// versions too; `None` when no file fits the tags and the binary policy, or when
    /// requires-python excludes every fitting file.
    pub file: Option<DistFile>,
    /// Why the version cannot be used as is (`None`: usable).
    pub unusable: Option<Unusable>,
}

impl Candidate {
    /// Usable without any exception (not yanked, fits the environment).
    pub fn is_usable(&self) -> bool {
        self.unusable.is_none()
    }
}

/// Every version of `project`, newest first, with its best file for `env` under `policy`.
pub fn candidates(project: &Project, env: &Environment, policy: &BinaryPolicy) -> Vec<Candidate> {
    candidates_for(project, &env.tags, &env.python_version, policy)
}

/// [`candidates`] with the environment's parts given separately.
pub fn candidates_for(
    project: &Project,
    tags: &Tags,
    python: &Version,
    policy: &BinaryPolicy,
) -> Vec<Candidate> {
    let allowed = policy.allowed(&project.name);
    let mut by_version: BTreeMap<&Version, Vec<&DistFile>> = BTreeMap::new();
    for file in &project.files {
        by_version
            .entry(file.filename.version())
            .or_default()
            .push(file);
    }
    by_version
        .into_iter()
        .rev()
        .map(|(version, files)| choose(version, &files, tags, python, allowed))
        .collect()
}

fn choose(
    version: &Version,
    files: &[&DistFile],
    tags: &Tags,
    python: &Version,
    allowed: AllowedFormats,
) -> Candidate {
    // Files that fit the tags and the policy, best first: wheels by tag rank (then build tag,
    // higher first), then sdists.
    let mut fitting: Vec<(usize, i64, &DistFile)> = Vec::new();
    let mut wheel_tags = BTreeSet::new();
    let (mut has_wheel, mut has_sdist) = (false, false);
    for file in files {
        match &file.filename {
            DistFilename::Wheel(w) => {
                has_wheel = true;
                if !allowed.binary {
                    continue;
                }
                match tags.best_rank(w.tags.iter()) {
                    Some(rank) => {
                        let build = w.build.as_ref().map_or(0, |(n, _)| *n as i64);
                        fitting.push((rank, -build, file));
                    }
                    None => {
                        if let Some(t) = w.tags.first() {
                            wheel_tags.insert(t.to_string());
                        }
                    }
                }
            }
            DistFilename::Sdist(_) => {
                has_sdist = true;
                if allowed.source {
                    fitting.push((usize::MAX, 0, file));
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
                tags: wheel_tags.into_iter().take(3).collect(),
            }
        } else if has_wheel && !allowed.binary {
            Unusable::NoBinaryWithoutSdist
        } else {
            Unusable::NoCompatibleWheel { tags: Vec::new() }
        };
        return Candidate {
            version: version.clone(),
            file: None,
            unusable: Some(unusable),
        };
    }
    let python_ok = |f: &DistFile| {
        f.requires_python
            .as_ref()
            .is_none_or(|spec| spec.contains(python))
    };
    let in_python: Vec<&DistFile> = fitting
        .iter()
        .map(|(_, _, f)| *f)
        .filter(|f| python_ok(f))
        .collect();
    if in_python.is_empty() {
        let spec = fitting[0]
            .2
            .requires_python
            .clone()
            .unwrap_or_else(|| VersionSpecifiers::from_iter([]));
        return Candidate {
            version: version.clone(),
            file: None,
            unusable: Some(Unusable::RequiresPython(spec)),
        };
    }
    match in_python.iter().find(|f| f.yanked.is_none()) {
        Some(file) => Candidate {
            version: version.clone(),
            file: Some((*file).clone()),
            unusable: None,
        },
        None => Candidate {
            version: version.clone(),
            file: Some(in_python[0].clone()),
            unusable: Some(Unusable::Yanked {
                reason: in_python[0].yanked.clone().unwrap_or_default(),
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
            files,
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
