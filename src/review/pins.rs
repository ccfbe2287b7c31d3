//! What the finders report: a forced or pinned version, where it is written, and how it forces.

use std::collections::BTreeMap;

use pep508_rs::{PackageName, Requirement};
use serde::Serialize;

/// How a file forces or pins a version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum PinKind {
    /// `[tool.uv] override-dependencies`: replaces every requirement on the name.
    UvOverride,
    /// `[tool.uv] constraint-dependencies`.
    UvConstraint,
    /// `[tool.pdm.resolution.overrides]`.
    PdmOverride,
    /// An exact pin in `[project] dependencies` or `[project.optional-dependencies]`.
    ProjectPin,
    /// An exact pin in `[dependency-groups]` or `[tool.pdm.dev-dependencies]`.
    GroupPin,
    /// A versioned entry of `[tool.poetry.dependencies]`, `[tool.poetry.dev-dependencies]` or
    /// `[tool.poetry.group.NAME.dependencies]` (`^1.9` read as `>=1.9,<2.0`).
    PoetryDependency,
    /// An exact pin in a requirements file.
    RequirementsPin,
    /// A line of a constraints file (`constraints*.txt`, or any file reached through `-c`).
    Constraint,
    /// A package version in `uv.lock`.
    UvLock,
    /// A package version in `pylock.toml` (PEP 751).
    Pylock,
    /// A package version in `poetry.lock`.
    PoetryLock,
    /// A package version in `pdm.lock`.
    PdmLock,
    /// `pip install --force-reinstall` / `--no-deps` (Dockerfile `RUN` or a shell script).
    PipForce,
    /// `pip install name==X` in a Dockerfile or a shell script.
    PipPin,
    /// A requirement with a version range that is not one exact version (`pydantic>2.0,<2.7`,
    /// `numpy<1.23`) in a requirements file, `[project]` dependencies, a dependency group or an
    /// install line: a finding only where it moves, breaks or excludes something.
    Range,
}

impl PinKind {
    /// A short phrase for tables.
    pub(crate) fn label(self) -> &'static str {
        match self {
            PinKind::UvOverride => "uv override",
            PinKind::UvConstraint => "uv constraint",
            PinKind::PdmOverride => "pdm override",
            PinKind::ProjectPin => "project pin",
            PinKind::GroupPin => "dependency-group pin",
            PinKind::PoetryDependency => "poetry dependency",
            PinKind::RequirementsPin => "requirements pin",
            PinKind::Constraint => "constraint",
            PinKind::UvLock => "uv.lock",
            PinKind::Pylock => "pylock.toml",
            PinKind::PoetryLock => "poetry.lock",
            PinKind::PdmLock => "pdm.lock",
            PinKind::PipForce => "forced pip install",
            PinKind::PipPin => "pip install pin",
            PinKind::Range => "requirement range",
        }
    }
}

/// One forced or pinned version in one file of one revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Pin {
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
    /// The environment the pin takes part in (the file's requirements, constraints and
    /// overrides, the pin among them): what it is judged against when no snapshot of the real
    /// environment is given.
    #[serde(skip)]
    pub context: Context,
}

/// An environment as a file declares it: what `pip install -r` / `uv sync` of it resolves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Context {
    /// The file that declares it (a requirements root, `pyproject.toml`, a lock, a Dockerfile
    /// or script with the line of its install), from the repository's top level.
    pub root: String,
    /// Root requirements.
    pub requirements: Vec<Requirement>,
    /// Constraints (`-c`, `constraint-dependencies`, a lock's versions).
    pub constraints: Vec<Requirement>,
    /// Overrides (uv / pdm overrides, a lock's `[manifest]` overrides, forced installs).
    pub overrides: Vec<Requirement>,
    /// Whether the head must resolve it as a whole (a declared file; not a sequence of
    /// install lines, where a later forced install replaces what an earlier one made).
    pub resolves_whole: bool,
    /// `-r FILE` / `-c FILE` values (file, is constraint) that earlier install lines of the same
    /// Dockerfile, script or CI job named, as written: what they installed before this pin
    /// (read into the requirements and constraints by [`super::scan`], which has the tree).
    pub installed_files: Vec<(String, bool)>,
    /// Where the environment spans several files (a uv workspace's members under its root),
    /// the file that declares each root requirement; empty where `root` declares them all.
    pub sources: BTreeMap<PackageName, String>,
    /// For a pin of an install line: the other requirements of that one `pip install` command,
    /// which it must resolve with (a plan moving one of them outside it breaks the line).
    pub line_mates: Vec<Requirement>,
    /// For a pin of an install line: the `-r` / `-c` files of that same command (among
    /// `installed_files`), resolved with it rather than replaced by it.
    pub line_files: Vec<(String, bool)>,
    /// For a `pyproject.toml` environment: the tool that locks and installs the project, read
    /// from the lock file beside it (`None`: no lock file, the project is installed as it is).
    pub tool: Option<ProjectTool>,
}

/// The tool a project's own files say it is locked with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProjectTool {
    /// `uv.lock` beside it, or a uv workspace.
    Uv,
    /// `poetry.lock` beside it.
    Poetry,
    /// `pdm.lock` beside it.
    Pdm,
}

impl ProjectTool {
    /// The tool of the project `pyproject` (its path in the revision), from the lock files
    /// among `files`; a uv workspace (`members`) is uv's.
    pub(crate) fn of(pyproject: &str, files: &[String], workspace: bool) -> Option<ProjectTool> {
        let folder = pyproject.trim_end_matches("pyproject.toml");
        let beside = |lock: &str| files.iter().any(|f| *f == format!("{folder}{lock}"));
        if beside("uv.lock") || workspace {
            Some(ProjectTool::Uv)
        } else if beside("poetry.lock") {
            Some(ProjectTool::Poetry)
        } else if beside("pdm.lock") {
            Some(ProjectTool::Pdm)
        } else {
            None
        }
    }
}

impl Context {
    /// The same environment without anything it says about `name`.
    pub(crate) fn without(&self, name: &PackageName) -> Context {
        let keep = |list: &[Requirement]| -> Vec<Requirement> {
            list.iter().filter(|r| &r.name != name).cloned().collect()
        };
        Context {
            root: self.root.clone(),
            requirements: keep(&self.requirements),
            constraints: keep(&self.constraints),
            overrides: keep(&self.overrides),
            resolves_whole: self.resolves_whole,
            installed_files: self.installed_files.clone(),
            sources: self.sources.clone(),
            line_mates: self.line_mates.clone(),
            line_files: self.line_files.clone(),
            tool: self.tool,
        }
    }

    /// The requirements (and constraints) on `pin`'s name other than the pin itself whose
    /// versions the pin's do not meet at all: held by the environment (`-r base.txt`'s
    /// `requests==2.34.2` under a new `requests<2.32` constraint, `numpy>=1.23.5` beside
    /// `numpy<1.23` on one install line), so no version is left for both. Overrides and lock
    /// entries replace or follow what they meet: none for them.
    pub(crate) fn excluded_by(&self, pin: &Pin) -> Vec<&Requirement> {
        if pin.role() == Role::Override
            || matches!(
                pin.kind,
                PinKind::UvLock | PinKind::Pylock | PinKind::PoetryLock | PinKind::PdmLock
            )
        {
            return Vec::new();
        }
        let own = pin.requirement.to_string();
        (self.requirements.iter())
            .chain(&self.constraints)
            .filter(|r| r.name == *pin.name() && r.to_string() != own)
            .filter(|r| disjoint(r, &pin.requirement))
            .collect()
    }

    /// The same environment without `pin`: its name left free, except that a constraint's
    /// name keeps the requirements that name it (held: a `-r base.txt` pin stays under a new
    /// constraint of `constraints.txt`).
    pub(crate) fn without_pin(&self, pin: &Pin) -> Context {
        if !matches!(pin.kind, PinKind::Constraint | PinKind::UvConstraint) {
            return self.without(pin.name());
        }
        let mut out = self.clone();
        out.constraints.retain(|r| r.name != *pin.name());
        out
    }

    /// The same environment with `requirement` added as `role`.
    pub(crate) fn with(mut self, role: Role, requirement: Requirement) -> Context {
        match role {
            Role::Requirement => self.requirements.push(requirement),
            Role::Constraint => self.constraints.push(requirement),
            Role::Override => self.overrides.push(requirement),
        }
        self
    }

    /// The file that declares the root requirement on `name`: its member's `pyproject.toml` in a
    /// workspace, else `default` (the pin's own file).
    pub(crate) fn declared_in<'a>(&'a self, name: &PackageName, default: &'a str) -> &'a str {
        self.sources.get(name).map_or(default, String::as_str)
    }

    /// Whether it declares nothing at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.requirements.is_empty() && self.constraints.is_empty() && self.overrides.is_empty()
    }

    /// For a pin of an install line that does not force (no `--no-deps` / `--force-reinstall`):
    /// the one `pip install` command it is on, its requirements and those of the files it
    /// names, which pip resolves together (`None` for other pins, or a pin alone on its line).
    pub(crate) fn one_command(pin: &Pin) -> Option<Context> {
        if pin.context.line_mates.is_empty()
            || !matches!(pin.kind, PinKind::PipPin | PinKind::Range)
        {
            return None;
        }
        let mut requirements = pin.context.line_mates.clone();
        requirements.push(pin.requirement.clone());
        Some(Context {
            root: format!("{}:{}: one pip install command", pin.file, pin.line),
            requirements,
            resolves_whole: true,
            ..Context::default()
        })
    }

    /// A stable key for caching the resolution of this environment.
    pub(crate) fn key(&self) -> Vec<String> {
        let mut key = Vec::new();
        for (tag, list) in [
            ("r", &self.requirements),
            ("c", &self.constraints),
            ("o", &self.overrides),
        ] {
            let mut part: Vec<String> = list.iter().map(|r| format!("{tag} {r}")).collect();
            part.sort();
            key.extend(part);
        }
        key
    }
}

impl Pin {
    /// The pinned package.
    pub(crate) fn name(&self) -> &PackageName {
        &self.requirement.name
    }

    /// Where it sits in the environment it takes part in: a root requirement, a constraint or
    /// an override.
    pub(crate) fn role(&self) -> Role {
        match self.kind {
            PinKind::UvConstraint | PinKind::Constraint => Role::Constraint,
            PinKind::UvOverride | PinKind::PdmOverride | PinKind::PipForce => Role::Override,
            PinKind::UvLock | PinKind::PoetryLock | PinKind::PdmLock => Role::Constraint,
            _ => Role::Requirement,
        }
    }

    /// What makes two pins the same across revisions.
    pub(crate) fn key(&self) -> (String, PinKind, String) {
        (self.file.clone(), self.kind, self.requirement.to_string())
    }
}

/// Whether no version meets both requirements' specifiers (a bare name meets every version).
pub(crate) fn disjoint(a: &Requirement, b: &Requirement) -> bool {
    use crate::metadata::requirement::specifiers;
    use crate::solve::ranges::specifiers_to_ranges;
    let (Some(a), Some(b)) = (specifiers(a), specifiers(b)) else {
        return false;
    };
    specifiers_to_ranges(a)
        .intersection(&specifiers_to_ranges(b))
        .is_empty()
}

/// Where a pin sits in its environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// A root requirement (it is installed).
    Requirement,
    /// A constraint (it narrows a name something else requires; it never adds it).
    Constraint,
    /// An override (it replaces every requirement on the name).
    Override,
}

/// A file that could not be parsed; the rest of the review goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ParseProblem {
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

/// The 1-based line of a byte offset.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}
