//! Errors of the solver, and the typed account of a failed resolution.

use std::collections::BTreeSet;
use std::fmt;

use pep440_rs::Version;
use pep508_rs::{ExtraName, PackageName};
use pubgrub::Ranges;
use serde::Serialize;
use serde::ser::SerializeMap;

use crate::index::IndexError;

use super::ranges;

/// Why the solver could not produce a resolution.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum SolveError {
    /// The requirements cannot all be met.
    #[error("no solution: {}", .0.report)]
    #[diagnostic(code(planner::solve::no_solution))]
    NoSolution(Box<NoSolution>),

    /// The index failed while the solver needed it.
    #[error("could not read `{package}` from the index")]
    #[diagnostic(code(planner::solve::index))]
    Index {
        /// The project being read.
        package: PackageName,
        /// The index error.
        #[source]
        source: Box<IndexError>,
        /// What to do: never "retry with --offline" when offline is what failed.
        #[help]
        help: String,
    },

    /// A root requirement points at a URL; only index requirements are supported.
    #[error(
        "`{requirement}` is a direct URL requirement, which `planner resolve` does not support"
    )]
    #[diagnostic(
        code(planner::solve::direct_url),
        help("name a version instead (`{name}==1.2.3`) and serve the file from an index")
    )]
    DirectUrl {
        /// The requirement as written.
        requirement: String,
        /// Its name.
        name: PackageName,
    },

    /// The requirements reach more projects than any real environment does.
    #[error(
        "the requirements reach more than {limit} projects; planner reads no more of the index \
         in one resolution"
    )]
    #[diagnostic(
        code(planner::solve::too_many_projects),
        help(
            "real environments reach a few thousand at most: the index (or a release on it) \
             declares requirements no installer could meet; check --index-url"
        )
    )]
    TooManyProjects {
        /// The limit.
        limit: usize,
    },

    /// The step or time budget ran out.
    #[error(
        "gave up after {steps} decisions and {seconds:.1}s (the budget is {max_steps} decisions, {max_seconds}s)"
    )]
    #[diagnostic(
        code(planner::solve::budget),
        help(
            "{partial}\npin the packages named above more tightly (or add constraints) so fewer versions need trying"
        )
    )]
    Budget {
        /// Decisions made.
        steps: u64,
        /// Seconds spent.
        seconds: f64,
        /// The decision budget.
        max_steps: u64,
        /// The time budget, in seconds.
        max_seconds: u64,
        /// What the solver was fighting over when it stopped.
        partial: String,
    },

    /// The solver broke one of its own invariants (a bug in the planner).
    #[error("internal solver error: {message}")]
    #[diagnostic(
        code(planner::solve::internal),
        help("this is a bug in planner; please report it with the command line")
    )]
    Internal {
        /// What went wrong.
        message: String,
    },
}

/// An account of why the requirements cannot all be met.
#[derive(Debug, Clone)]
pub struct NoSolution {
    /// The derivation in Python terms, one sentence per line.
    pub report: String,
    /// Things a person can change.
    pub hints: Vec<Hint>,
    /// Every distribution the derivation names.
    pub involved: BTreeSet<PackageName>,
    /// The external facts the derivation rests on, as data.
    pub facts: Vec<Fact>,
}

impl fmt::Display for NoSolution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.report)
    }
}

/// Render a [`NoSolution`] for humans with miette (the report, then `hint:` lines).
#[derive(Debug, thiserror::Error)]
#[error("No solution found when resolving the requirements:\n{report}")]
pub(crate) struct NoSolutionDiagnostic {
    report: String,
    help: Option<String>,
}

impl miette::Diagnostic for NoSolutionDiagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("planner::solve::no_solution"))
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
}

impl NoSolution {
    /// A miette diagnostic: the derivation, with the hints as help.
    pub(crate) fn diagnostic(&self) -> NoSolutionDiagnostic {
        let report = self
            .report
            .lines()
            .map(|l| format!("  {l}"))
            .collect::<Vec<_>>()
            .join("\n");
        let help = if self.hints.is_empty() {
            None
        } else {
            Some(
                self.hints
                    .iter()
                    .map(|h| h.message.clone())
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        };
        NoSolutionDiagnostic { report, help }
    }
}

/// What kind of change a [`Hint`] suggests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HintKind {
    /// A pre-release is in the range (whether it fits the rest is not tried).
    Prerelease,
    /// The target Python excludes a release.
    RequiresPython,
    /// Only yanked versions would fit.
    Yanked,
    /// A local variant (`+cu130`) of a version exists.
    LocalVersion,
    /// Other versions of a blocker accept what is asked.
    BlockerVersions,
    /// A package is missing from the index.
    NotFound,
    /// A package is missing from the index, and known names are close to it.
    DidYouMean,
    /// Files exist but none fits the target.
    Unusable,
    /// Files exist, but the binary policy rules them out (only sdists under `--only-binary`).
    BinaryPolicy,
}

/// One thing a person can change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hint {
    /// What kind of change.
    pub kind: HintKind,
    /// The distribution it is about.
    pub package: PackageName,
    /// The hint in words.
    pub message: String,
    /// For [`HintKind::DidYouMean`]: the names meant, closest first (empty otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<PackageName>,
}

/// A package as named in a [`Fact`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FactPackage {
    /// The user's requirements.
    Root,
    /// The target Python.
    Python,
    /// A distribution, with the extra when the fact is about `name[extra]`.
    Dist {
        /// The distribution.
        name: PackageName,
        /// The extra, for `name[extra]`.
        extra: Option<ExtraName>,
    },
}

impl fmt::Display for FactPackage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FactPackage::Root => f.write_str("<root>"),
            FactPackage::Python => f.write_str("Python"),
            FactPackage::Dist { name, extra: None } => write!(f, "{name}"),
            FactPackage::Dist {
                name,
                extra: Some(extra),
            } => write!(f, "{name}[{extra}]"),
        }
    }
}

impl FactPackage {}

/// One external fact of a failed resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    /// `dependent` (in `dependent_range`) requires `dependency` in `range`; for
    /// [`FactPackage::Root`], "you require".
    Requires {
        /// Who requires.
        dependent: FactPackage,
        /// Which of its versions.
        dependent_range: Ranges<Version>,
        /// What it requires.
        dependency: FactPackage,
        /// Which versions of it.
        range: Ranges<Version>,
    },
    /// No version of `package` in `range` exists (or none is a candidate: pre-releases not
    /// allowed, not on the index). For [`FactPackage::Python`], the target Python is outside.
    NoVersions {
        /// The package.
        package: FactPackage,
        /// The versions asked for.
        range: Ranges<Version>,
        /// Whether the index has no such project at all.
        not_found: bool,
    },
    /// Versions in `range` exist but cannot be used.
    Unavailable {
        /// The package.
        package: FactPackage,
        /// The versions.
        range: Ranges<Version>,
        /// Why.
        reason: Unavailable,
    },
}

fn spec(range: &Ranges<Version>) -> String {
    ranges::render(range).unwrap_or_else(|| "*".to_string())
}

impl Serialize for Fact {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self {
            Fact::Requires {
                dependent,
                dependent_range,
                dependency,
                range,
            } => {
                map.serialize_entry("kind", "requires")?;
                map.serialize_entry("dependent", &dependent.to_string())?;
                if *dependent != FactPackage::Root {
                    map.serialize_entry("dependent_versions", &spec(dependent_range))?;
                }
                map.serialize_entry("dependency", &dependency.to_string())?;
                map.serialize_entry("specifier", &spec(range))?;
            }
            Fact::NoVersions {
                package,
                range,
                not_found,
            } => {
                map.serialize_entry(
                    "kind",
                    if *not_found {
                        "not-found"
                    } else {
                        "no-versions"
                    },
                )?;
                map.serialize_entry("package", &package.to_string())?;
                map.serialize_entry("specifier", &spec(range))?;
            }
            Fact::Unavailable {
                package,
                range,
                reason,
            } => {
                map.serialize_entry("kind", "unavailable")?;
                map.serialize_entry("package", &package.to_string())?;
                map.serialize_entry("versions", &spec(range))?;
                map.serialize_entry("reason", &reason.to_string())?;
            }
        }
        map.end()
    }
}

/// Why one release cannot be used (pubgrub's custom incompatibility).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Unavailable {
    /// Every file is yanked, and nothing pins it exactly.
    Yanked {
        /// The yank reason, maybe empty.
        reason: String,
    },
    /// No wheel fits the target's tags and there is no sdist.
    NoCompatibleWheel {
        /// The wheel tags offered (a few).
        offered: Vec<String>,
    },
    /// No wheel fits and only an sdist would, under `--only-binary`.
    OnlyBinary,
    /// Only wheels, under `--no-binary`.
    NoBinary,
    /// The sdist's metadata declares `Requires-Dist` dynamic (needs a build).
    DynamicMetadata,
    /// A requirement of it points at a URL.
    DirectUrl {
        /// The requirement.
        requirement: String,
    },
    /// It requires itself at another version.
    SelfConflict,
    /// Every file's `requires-python` excludes the target.
    RequiresPython {
        /// The specifier.
        specifier: String,
    },
    /// Its metadata could not be read.
    Metadata {
        /// Why.
        message: String,
    },
    /// Several releases, each unusable for a reason of its own: the explanation folds a run of
    /// them into one statement (the facts keep each release apart).
    Releases {
        /// Each release's range (one version, once simplified) and reason, in version order.
        each: Vec<UnusableRelease>,
    },
}

/// One release (its range) and why it cannot be used.
pub(crate) type UnusableRelease = (Ranges<Version>, Unavailable);

impl Unavailable {
    /// What releases unusable alike share: the reason without the release's own details (the
    /// file name in a metadata error).
    pub(crate) fn kind_of_reason(&self) -> String {
        match self {
            Unavailable::Metadata { message } => message
                .rsplit_once(": ")
                .map_or(message.as_str(), |(_, why)| why)
                .to_string(),
            other => other.to_string(),
        }
    }

    /// The reason said of several releases ("have metadata that cannot be read (...)").
    fn plural(&self) -> String {
        match self {
            Unavailable::Yanked { .. } => "were yanked".to_string(),
            Unavailable::NoCompatibleWheel { .. } => {
                "have no wheel for the target platform and no source distribution".to_string()
            }
            Unavailable::OnlyBinary => "have no wheel for this environment, only a source \
                                        distribution, which --only-binary forbids"
                .to_string(),
            Unavailable::NoBinary => "have only wheels, which --no-binary forbids".to_string(),
            Unavailable::DynamicMetadata => "declare their dependencies dynamic in their source \
                                             distributions (a build would be needed)"
                .to_string(),
            Unavailable::DirectUrl { .. } => "require a direct URL".to_string(),
            Unavailable::SelfConflict => "require another version of themselves".to_string(),
            Unavailable::RequiresPython { specifier } => format!("require Python {specifier}"),
            Unavailable::Metadata { .. } => format!(
                "have metadata that cannot be read ({})",
                self.kind_of_reason()
            ),
            Unavailable::Releases { .. } => "cannot be used".to_string(),
        }
    }
}

/// `releases` grouped by the kind of their reason, in order of first appearance: "57 releases
/// (0.2.0 to 2.7.3) have metadata that cannot be read (...)", "1.0.3 was yanked".
pub(crate) fn releases_by_reason(releases: &[UnusableRelease]) -> Vec<String> {
    let mut groups: Vec<(String, Vec<&UnusableRelease>)> = Vec::new();
    for release in releases {
        let key = release.1.kind_of_reason();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(release),
            None => groups.push((key, vec![release])),
        }
    }
    let version = |range: &Ranges<Version>| {
        range
            .as_singleton()
            .map_or_else(|| spec(range), ToString::to_string)
    };
    groups
        .into_iter()
        .map(|(_, members)| match members.as_slice() {
            [(range, reason)] => format!("{} {reason}", version(range)),
            [(first, reason), .., (last, _)] => format!(
                "{} releases ({} to {}) {}",
                members.len(),
                version(first),
                version(last),
                reason.plural()
            ),
            [] => String::new(),
        })
        .collect()
}

impl fmt::Display for Unavailable {
    /// A predicate: "foo==1.0 {reason}".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::Yanked { reason } if reason.is_empty() => f.write_str("was yanked"),
            Unavailable::Yanked { reason } => write!(f, "was yanked (reason: {reason})"),
            Unavailable::NoCompatibleWheel { offered } => {
                f.write_str("has no wheel for the target platform")?;
                if !offered.is_empty() {
                    write!(f, " (only {})", offered.join(", "))?;
                }
                f.write_str(" and no source distribution")
            }
            Unavailable::OnlyBinary => {
                f.write_str(
                "has no wheel for this environment, only a source distribution, which --only-binary forbids",
            )
            }
            Unavailable::NoBinary => f.write_str("has only wheels, which --no-binary forbids"),
            Unavailable::DynamicMetadata => f.write_str(
                "declares its dependencies dynamic in its source distribution (a build would be needed)",
            ),
            Unavailable::DirectUrl { requirement } => {
                write!(f, "requires a direct URL (`{requirement}`)")
            }
            Unavailable::SelfConflict => f.write_str("requires another version of itself"),
            Unavailable::RequiresPython { specifier } => {
                write!(f, "requires Python {specifier}")
            }
            Unavailable::Metadata { message } => {
                write!(f, "has metadata that cannot be read ({message})")
            }
            Unavailable::Releases { each } => write!(
                f,
                "cannot be used ({})",
                releases_by_reason(each).join("; ")
            ),
        }
    }
}
