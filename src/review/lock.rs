//! Lock files: `uv.lock` (`[[package]]`) and `pylock.toml` (PEP 751, `[[packages]]`). Every
//! locked version is a pin; the project itself (an editable, virtual or directory source) is not.

use pep508_rs::Requirement;
use serde::Deserialize;
use toml::Spanned;

use super::pins::{ParseProblem, Pin, PinKind, line_of};

#[derive(Debug, Deserialize)]
struct Lock {
    #[serde(default, alias = "packages")]
    package: Vec<Package>,
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
pub fn pins(file: &str, text: &str, kind: PinKind, problems: &mut Vec<ParseProblem>) -> Vec<Pin> {
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
                context: Vec::new(),
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
    let all: Vec<Requirement> = pins.iter().map(|p| p.requirement.clone()).collect();
    for pin in &mut pins {
        pin.context = all
            .iter()
            .filter(|r| r.name != pin.requirement.name)
            .cloned()
            .collect();
    }
    pins
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
