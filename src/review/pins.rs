//! What the finders report: a forced or pinned version, where it is written, and how it forces.

use pep508_rs::{PackageName, Requirement};
use serde::Serialize;

/// How a file forces or pins a version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PinKind {
    /// `[tool.uv] override-dependencies`: replaces every requirement on the name.
    UvOverride,
    /// `[tool.uv] constraint-dependencies`.
    UvConstraint,
    /// `[tool.pdm.resolution.overrides]`.
    PdmOverride,
    /// An exact pin in `[project] dependencies` or `[project.optional-dependencies]`.
    ProjectPin,
    /// An exact pin in `[dependency-groups]`.
    GroupPin,
    /// An exact pin in a requirements file.
    RequirementsPin,
    /// A line of a constraints file (`constraints*.txt`, or any file reached through `-c`).
    Constraint,
    /// A package version in `uv.lock`.
    UvLock,
    /// A package version in `pylock.toml` (PEP 751).
    Pylock,
    /// `pip install --force-reinstall` / `--no-deps` (Dockerfile `RUN` or a shell script).
    PipForce,
    /// `pip install name==X` in a Dockerfile or a shell script.
    PipPin,
}

impl PinKind {
    /// Whether it replaces other packages' requirements instead of joining them: a uv or pdm
    /// override, or an install that skips dependency resolution.
    pub fn overrides(self) -> bool {
        matches!(
            self,
            PinKind::UvOverride | PinKind::PdmOverride | PinKind::PipForce
        )
    }

    /// A short phrase for tables.
    pub fn label(self) -> &'static str {
        match self {
            PinKind::UvOverride => "uv override",
            PinKind::UvConstraint => "uv constraint",
            PinKind::PdmOverride => "pdm override",
            PinKind::ProjectPin => "project pin",
            PinKind::GroupPin => "dependency-group pin",
            PinKind::RequirementsPin => "requirements pin",
            PinKind::Constraint => "constraint",
            PinKind::UvLock => "uv.lock",
            PinKind::Pylock => "pylock.toml",
            PinKind::PipForce => "forced pip install",
            PinKind::PipPin => "pip install pin",
        }
    }
}

/// One forced or pinned version in one file of one revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pin {
    /// The file, from the repository's top level.
    pub file: String,
    /// The 1-based line.
    pub line: usize,
    /// How it forces or pins.
    pub kind: PinKind,
    /// The requirement (re-serialized from its parsed form).
    #[serde(serialize_with = "crate::review::pins::display")]
    pub requirement: Requirement,
    /// The flags of a pip install line (`--force-reinstall`, `--no-deps`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// The other requirements the same file (or install line) resolves with: what the pin is
    /// judged against when no snapshot of the real environment is given.
    #[serde(skip)]
    pub context: Vec<Requirement>,
}

impl Pin {
    /// The pinned package.
    pub fn name(&self) -> &PackageName {
        &self.requirement.name
    }

    /// What makes two pins the same across revisions.
    pub fn key(&self) -> (String, PinKind, String) {
        (self.file.clone(), self.kind, self.requirement.to_string())
    }
}

/// A file that could not be parsed; the rest of the review goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParseProblem {
    /// The file.
    pub file: String,
    /// The 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

pub(crate) fn display<T: std::fmt::Display, S: serde::Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// Whether a requirement pins one exact version (`==X` without a wildcard, or `===X`).
pub fn is_exact(requirement: &Requirement) -> bool {
    use pep440_rs::Operator;
    use pep508_rs::VersionOrUrl;
    match &requirement.version_or_url {
        Some(VersionOrUrl::VersionSpecifier(specifiers)) => specifiers
            .iter()
            .any(|s| matches!(s.operator(), Operator::Equal | Operator::ExactEqual)),
        _ => false,
    }
}

/// Whether a requirement names any version at all.
pub fn has_specifier(requirement: &Requirement) -> bool {
    use pep508_rs::VersionOrUrl;
    matches!(&requirement.version_or_url, Some(VersionOrUrl::VersionSpecifier(s)) if !s.is_empty())
}

/// The 1-based line of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}
