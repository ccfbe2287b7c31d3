//! Lock files: `uv.lock` (`[[package]]`) and `pylock.toml` (PEP 751, `[[packages]]`). Every
//! locked version is a pin; the project itself (an editable, virtual or directory source) is not.

use pep508_rs::Requirement;
use serde::Deserialize;
use toml::Spanned;

use super::pins::{Context, ParseProblem, Pin, PinKind, line_of};

#[derive(Debug, Deserialize)]
struct Lock {
    #[serde(default, alias = "packages")]
    package: Vec<Package>,
    #[serde(default)]
    manifest: Manifest,
}

/// `uv.lock` `[manifest]`: the overrides and constraints the lock was made under.
#[derive(Debug, Default, Deserialize)]
struct Manifest {
    #[serde(default)]
    overrides: Vec<LockRequirement>,
    #[serde(default)]
    constraints: Vec<LockRequirement>,
    /// The workspace root's own groups, when the root is no project (a virtual root).
    #[serde(default, rename = "dependency-groups")]
    dependency_groups: std::collections::BTreeMap<String, Vec<LockRequirement>>,
}

/// A requirement as `uv.lock` writes it (`{ name = "torch", specifier = "==2.11.0", marker = ".." }`).
#[derive(Debug, Deserialize)]
struct LockRequirement {
    name: String,
    #[serde(default)]
    specifier: Option<String>,
    #[serde(default)]
    marker: Option<String>,
    /// `extra` in `dependencies`, `extras` in `[package.metadata] requires-dist`.
    #[serde(default, alias = "extras")]
    extra: Vec<String>,
}

impl LockRequirement {
    fn requirement(&self) -> Option<Requirement> {
        let extras = if self.extra.is_empty() {
            String::new()
        } else {
            format!("[{}]", self.extra.join(","))
        };
        let marker = self
            .marker
            .as_ref()
            .map(|m| format!(" ; {m}"))
            .unwrap_or_default();
        let text = format!(
            "{}{extras}{}{marker}",
            self.name,
            self.specifier.as_deref().unwrap_or("")
        );
        crate::metadata::parse_requirement(&text).ok()
    }
}

/// `[package.metadata]` of the project: what it declares (`requires-dist`, `requires-dev`).
#[derive(Debug, Default, Deserialize)]
struct ProjectMetadata {
    #[serde(default, rename = "requires-dist")]
    requires_dist: Vec<LockRequirement>,
    #[serde(default, rename = "requires-dev")]
    requires_dev: std::collections::BTreeMap<String, Vec<LockRequirement>>,
}

#[derive(Debug, Deserialize)]
struct Package {
    name: Spanned<String>,
    #[serde(default)]
    version: Option<Spanned<String>>,
    #[serde(default)]
    source: Option<toml::Table>,
    #[serde(default)]
    directory: Option<toml::Value>,
    #[serde(default)]
    metadata: Option<ProjectMetadata>,
    /// `pdm.lock`: a package from a folder, a repository or a URL, not the index.
    #[serde(default)]
    path: Option<toml::Value>,
    #[serde(default)]
    git: Option<toml::Value>,
    #[serde(default)]
    url: Option<toml::Value>,
}

impl Package {
    /// The folder of a local project (`source = { editable = "backend" }`).
    fn folder(&self) -> Option<&str> {
        let source = self.source.as_ref()?;
        ["editable", "virtual", "directory"]
            .iter()
            .find_map(|key| source.get(*key)?.as_str())
    }

    fn is_local_project(&self) -> bool {
        let local_source = self.source.as_ref().is_some_and(|s| {
            s.contains_key("editable") || s.contains_key("virtual") || s.contains_key("directory")
        });
        local_source || self.directory.is_some()
    }

    /// Not from an index: a local project, or `poetry.lock`'s `source.type` of `directory`,
    /// `file`, `git` or `url`, or `pdm.lock`'s `path`, `git` or `url`.
    fn is_elsewhere(&self) -> bool {
        let poetry_type =
            (self.source.as_ref()).and_then(|s| s.get("type")?.as_str().map(str::to_string));
        self.is_local_project()
            || matches!(
                poetry_type.as_deref(),
                Some("directory" | "file" | "git" | "url")
            )
            || self.path.is_some()
            || self.git.is_some()
            || self.url.is_some()
    }
}

/// The pins of a `uv.lock` (`kind` [`PinKind::UvLock`]) or `pylock.toml` ([`PinKind::Pylock`]).
pub(crate) fn pins(
    file: &str,
    text: &str,
    kind: PinKind,
    problems: &mut Vec<ParseProblem>,
) -> Vec<Pin> {
    project_lock_pins(file, text, kind, None, problems)
}

/// The pins of a lock file, `poetry.lock` and `pdm.lock` too; `declared`: what the
/// `pyproject.toml` beside a lock that holds no project's requirements declares (Poetry and PDM
/// keep them there): the roots, each locked version a constraint.
pub(crate) fn project_lock_pins(
    file: &str,
    text: &str,
    kind: PinKind,
    declared: Option<Vec<Requirement>>,
    problems: &mut Vec<ParseProblem>,
) -> Vec<Pin> {
    let lock: Lock = match toml::from_str(text) {
        Ok(lock) => lock,
        Err(err) => {
            problems.push(ParseProblem {
                file: file.to_string(),
                line: err.span().map(|span| line_of(text, span.start)),
                message: format!("not a valid lock file: {}", err.message()),
            });
            return Vec::new();
        }
    };
    let mut pins = Vec::new();
    for package in lock.package.iter().filter(|p| !p.is_elsewhere()) {
        let Some(version) = &package.version else {
            continue;
        };
        let text_req = format!("{}=={}", package.name.get_ref(), version.get_ref());
        match crate::metadata::parse_requirement(&text_req) {
            Ok(requirement) => pins.push(Pin {
                file: file.to_string(),
                line: line_of(text, version.span().start),
                kind,
                requirement,
                flags: Vec::new(),
                context: Context::default(),
            }),
            Err(err) => problems.push(ParseProblem {
                file: file.to_string(),
                line: Some(line_of(text, package.name.span().start)),
                message: format!(
                    "`{}` is not a valid pin: {}",
                    text_req.escape_default(),
                    err
                ),
            }),
        }
    }
    let context = match declared {
        Some(declared) => Context {
            root: file.to_string(),
            requirements: declared,
            constraints: single_versions(&pins),
            resolves_whole: true,
            ..Context::default()
        },
        None => context(file, &lock, &pins),
    };
    for pin in &mut pins {
        pin.context = context.clone();
    }
    pins
}

/// What the lock installs: every local project's declared requirements (and its `dev` group,
/// and a virtual workspace root's) as roots, each locked version as a constraint, and the
/// `[manifest]` overrides and constraints. Requirements on the workspace's own projects are
/// theirs, not the index's. A name locked at two versions (a fork by marker) is left free. A
/// lock without a project (`pylock.toml`) installs every locked version.
fn context(file: &str, lock: &Lock, pins: &[Pin]) -> Context {
    let locked = single_versions(pins);
    let manifest = |list: &[LockRequirement]| -> Vec<Requirement> {
        list.iter()
            .filter_map(LockRequirement::requirement)
            .collect()
    };
    let mut context = Context {
        root: file.to_string(),
        overrides: manifest(&lock.manifest.overrides),
        constraints: manifest(&lock.manifest.constraints),
        resolves_whole: true,
        ..Context::default()
    };
    let projects: Vec<&Package> = lock
        .package
        .iter()
        .filter(|p| p.is_local_project())
        .collect();
    if projects.is_empty() {
        context.requirements = locked;
        return context;
    }
    let local: Vec<&str> = projects.iter().map(|p| p.name.get_ref().as_str()).collect();
    let root_groups = lock
        .manifest
        .dependency_groups
        .get("dev")
        .map(Vec::as_slice);
    let mut declared = vec![(project_file(file, "."), root_groups.unwrap_or_default())];
    for project in &projects {
        let Some(metadata) = &project.metadata else {
            continue;
        };
        let at = project_file(file, project.folder().unwrap_or("."));
        declared.push((at.clone(), &metadata.requires_dist));
        if let Some(dev) = metadata.requires_dev.get("dev") {
            declared.push((at, dev));
        }
    }
    let workspace = projects.len() > 1 || !lock.manifest.dependency_groups.is_empty();
    for (at, list) in declared {
        for entry in list.iter().filter(|r| !local.contains(&r.name.as_str())) {
            let Some(requirement) = entry.requirement() else {
                continue;
            };
            if workspace {
                (context.sources)
                    .entry(requirement.name.clone())
                    .or_insert_with(|| at.clone());
            }
            if !context.requirements.contains(&requirement) {
                context.requirements.push(requirement);
            }
        }
    }
    context.constraints.extend(locked);
    context
}

/// Each locked version, but a name locked at two (a fork by marker), which is left free.
fn single_versions(pins: &[Pin]) -> Vec<Requirement> {
    let mut counts = std::collections::BTreeMap::new();
    for pin in pins {
        *counts.entry(pin.name().clone()).or_insert(0) += 1;
    }
    pins.iter()
        .filter(|p| counts[p.name()] == 1)
        .map(|p| p.requirement.clone())
        .collect()
}

/// The `pyproject.toml` of a project the lock at `lock` names by its folder (`backend`, `.`).
fn project_file(lock: &str, folder: &str) -> String {
    let top = lock.rsplit_once('/').map_or("", |(dir, _)| dir);
    [top, folder, "pyproject.toml"]
        .iter()
        .filter(|part| !part.is_empty() && **part != ".")
        .copied()
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uv_lock_and_pylock() {
        let uv = "version = 1\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\nsource = { editable = \".\" }\n\n[[package]]\nname = \"triton\"\nversion = \"3.7.0\"\nsource = { registry = \"x\" }\n";
        let mut problems = Vec::new();
        let found = pins("uv.lock", uv, PinKind::UvLock, &mut problems);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].line, found[0].requirement.to_string()),
            (10, "triton==3.7.0".to_string())
        );
        let pylock = "lock-version = \"1.0\"\ncreated-by = \"x\"\n\n[[packages]]\nname = \"torch\"\nversion = \"2.11.0\"\n";
        let found = pins("pylock.toml", pylock, PinKind::Pylock, &mut problems);
        assert_eq!((found[0].line, found[0].kind), (6, PinKind::Pylock));
        assert!(problems.is_empty());
        pins(
            "uv.lock",
            "[[package]]\nname = 3\n",
            PinKind::UvLock,
            &mut problems,
        );
        assert_eq!(problems[0].line, Some(2));
    }
}
