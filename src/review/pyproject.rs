//! `pyproject.toml`: `[tool.uv] override-dependencies` and `constraint-dependencies`,
//! `[tool.pdm.resolution.overrides]`, and exact pins in `[project] dependencies`,
//! `[project.optional-dependencies]` and `[dependency-groups]`.

use std::collections::BTreeMap;

use pep508_rs::Requirement;
use serde::Deserialize;
use toml::Spanned;

use super::pins::{ParseProblem, Pin, PinKind, is_exact, line_of};
use crate::metadata::parse_requirement;

#[derive(Debug, Default, Deserialize)]
struct PyProject {
    #[serde(default)]
    project: Option<Project>,
    #[serde(default, rename = "dependency-groups")]
    dependency_groups: BTreeMap<String, Vec<Spanned<toml::Value>>>,
    #[serde(default)]
    tool: Option<Tool>,
}

#[derive(Debug, Default, Deserialize)]
struct Project {
    #[serde(default)]
    dependencies: Vec<Spanned<String>>,
    #[serde(default, rename = "optional-dependencies")]
    optional: BTreeMap<String, Vec<Spanned<String>>>,
}

#[derive(Debug, Default, Deserialize)]
struct Tool {
    #[serde(default)]
    uv: Option<Uv>,
    #[serde(default)]
    pdm: Option<Pdm>,
}

#[derive(Debug, Default, Deserialize)]
struct Uv {
    #[serde(default, rename = "override-dependencies")]
    overrides: Vec<Spanned<String>>,
    #[serde(default, rename = "constraint-dependencies")]
    constraints: Vec<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
struct Pdm {
    #[serde(default)]
    resolution: Option<PdmResolution>,
}

#[derive(Debug, Default, Deserialize)]
struct PdmResolution {
    #[serde(default)]
    overrides: BTreeMap<String, Spanned<String>>,
}

/// The pins of one `pyproject.toml`; entries that do not parse are reported in `problems`.
pub fn pins(file: &str, text: &str, problems: &mut Vec<ParseProblem>) -> Vec<Pin> {
    let doc: PyProject = match toml::from_str(text) {
        Ok(doc) => doc,
        Err(err) => {
            problems.push(ParseProblem {
                file: file.to_string(),
                line: err.span().map(|span| line_of(text, span.start)),
                message: format!("not valid pyproject.toml: {}", err.message()),
            });
            return Vec::new();
        }
    };
    let mut reader = Reader {
        file,
        text,
        problems,
        pins: Vec::new(),
    };
    let project = doc.project.unwrap_or_default();
    let context: Vec<Requirement> = project
        .dependencies
        .iter()
        .filter_map(|s| parse_requirement(s.get_ref()).ok())
        .collect();
    for entry in &project.dependencies {
        reader.entry(entry, PinKind::ProjectPin, true);
    }
    for entries in project.optional.values() {
        for entry in entries {
            reader.entry(entry, PinKind::ProjectPin, true);
        }
    }
    for entries in doc.dependency_groups.values() {
        for entry in entries {
            // `{include-group = "..."}` tables name no version.
            if let toml::Value::String(value) = entry.get_ref() {
                let spanned = Spanned::new(entry.span(), value.clone());
                reader.entry(&spanned, PinKind::GroupPin, true);
            }
        }
    }
    let tool = doc.tool.unwrap_or_default();
    let uv = tool.uv.unwrap_or_default();
    for entry in &uv.overrides {
        reader.entry(entry, PinKind::UvOverride, false);
    }
    for entry in &uv.constraints {
        reader.entry(entry, PinKind::UvConstraint, false);
    }
    let pdm = tool.pdm.and_then(|p| p.resolution).unwrap_or_default();
    for (name, value) in &pdm.overrides {
        let spec = value.get_ref().trim();
        // pdm accepts a bare version (`"3.7.0"`) as well as a specifier.
        let spec = if spec.starts_with(|c: char| c.is_ascii_digit()) {
            format!("=={spec}")
        } else {
            spec.to_string()
        };
        let spanned = Spanned::new(value.span(), format!("{name}{spec}"));
        reader.entry(&spanned, PinKind::PdmOverride, false);
    }
    let mut pins = reader.pins;
    for pin in &mut pins {
        pin.context = context
            .iter()
            .filter(|r| r.name != pin.requirement.name)
            .cloned()
            .collect();
    }
    pins
}

struct Reader<'a> {
    file: &'a str,
    text: &'a str,
    problems: &'a mut Vec<ParseProblem>,
    pins: Vec<Pin>,
}

impl Reader<'_> {
    fn entry(&mut self, entry: &Spanned<String>, kind: PinKind, exact_only: bool) {
        let line = line_of(self.text, entry.span().start);
        let requirement = match parse_requirement(entry.get_ref()) {
            Ok(requirement) => requirement,
            Err(err) => {
                self.problems.push(ParseProblem {
                    file: self.file.to_string(),
                    line: Some(line),
                    message: format!(
                        "`{}` is not a valid requirement: {}",
                        entry.get_ref().escape_default(),
                        err
                    ),
                });
                return;
            }
        };
        let wanted = if exact_only {
            is_exact(&requirement)
        } else {
            super::pins::has_specifier(&requirement)
        };
        if wanted {
            self.pins.push(Pin {
                file: self.file.to_string(),
                line,
                kind,
                requirement,
                flags: Vec::new(),
                context: Vec::new(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_overrides_constraints_and_exact_pins_with_lines() {
        let text = r#"[project]
name = "app"
dependencies = [
    "torch==2.11.0",
    "numpy>=2",
]

[dependency-groups]
dev = ["filelock==4.2.12", {include-group = "x"}]

[tool.uv]
override-dependencies = ["triton==3.7.0"]
constraint-dependencies = ["numpy<3"]

[tool.pdm.resolution.overrides]
requests = "2.32.3"
"#;
        let mut problems = Vec::new();
        let pins = pins("pyproject.toml", text, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        let found: Vec<(usize, PinKind, String)> = pins
            .iter()
            .map(|p| (p.line, p.kind, p.requirement.to_string()))
            .collect();
        assert_eq!(
            found,
            [
                (4, PinKind::ProjectPin, "torch==2.11.0".to_string()),
                (9, PinKind::GroupPin, "filelock==4.2.12".to_string()),
                (12, PinKind::UvOverride, "triton==3.7.0".to_string()),
                (13, PinKind::UvConstraint, "numpy<3".to_string()),
                (16, PinKind::PdmOverride, "requests==2.32.3".to_string()),
            ]
        );
        assert_eq!(pins[2].context[0].to_string(), "torch==2.11.0");
    }

    #[test]
    fn malformed_toml_and_bad_entries_name_the_line() {
        let mut problems = Vec::new();
        assert!(pins("p/pyproject.toml", "[project\nname = 1\n", &mut problems).is_empty());
        assert_eq!(problems[0].line, Some(1));
        let mut problems = Vec::new();
        let text =
            "[tool.uv]\noverride-dependencies = [\n  \"triton===\",\n  \"torch==2.12.0\",\n]\n";
        let found = pins("pyproject.toml", text, &mut problems);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].line, Some(3));
        assert_eq!(found.len(), 1);
    }
}
