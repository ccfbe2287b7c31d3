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
}

/// A requirement as `uv.lock` writes it (`{ name = "torch", specifier = "==2.11.0", marker = ".." }`).
#[derive(Debug, Deserialize)]
struct LockRequirement {
    name: String,
    #[serde(default)]
    specifier: Option<String>,
    #[serde(default)]
    marker: Option<String>,
    #[serde(default)]
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
}

impl Package {
    fn is_local_project(&self) -> bool {
        let local_source = self.source.as_ref().is_some_and(|s| {
            s.contains_key("editable") || s.contains_key("virtual") || s.contains_key("directory")
        });
        local_source || self.directory.is_some()
    }
}

/// The pins of a `uv.lock` (`kind` [`PinKind::UvLock`]) or `pylock.toml` ([`PinKind::Pylock`]).
pub(crate) fn pins(
    file: &str,
    text: &str,
    kind: PinKind,
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
    for package in lock.package.iter().filter(|p| !p.is_local_project()) {
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
    let context = context(file, &lock, &pins);
    for pin in &mut pins {
        pin.context = context.clone();
    }
    pins
}

/// What the lock installs: the project's declared requirements (and its `dev` group) as roots,
/// each locked version as a constraint, and the `[manifest]` overrides and constraints. A name
/// locked at two versions (a fork by marker) is left free. A lock without a project
/// (`pylock.toml`) installs every locked version.
fn context(file: &str, lock: &Lock, pins: &[Pin]) -> Context {
    let mut counts = std::collections::BTreeMap::new();
    for pin in pins {
        *counts.entry(pin.name().clone()).or_insert(0) += 1;
    }
    let locked: Vec<Requirement> = pins
        .iter()
        .filter(|p| counts[p.name()] == 1)
        .map(|p| p.requirement.clone())
        .collect();
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
    let project = lock
        .package
        .iter()
        .filter(|p| p.is_local_project())
        .find_map(|p| p.metadata.as_ref());
    match project {
        Some(metadata) => {
            let dev = metadata.requires_dev.get("dev").map(Vec::as_slice);
            context.requirements = metadata
                .requires_dist
                .iter()
                .chain(dev.unwrap_or_default())
                .filter_map(LockRequirement::requirement)
                .collect();
            context.constraints.extend(locked);
        }
        None => context.requirements = locked,
    }
    context
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
