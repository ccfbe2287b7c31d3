//! `pyproject.toml`: `[tool.uv] override-dependencies` and `constraint-dependencies`,
//! `[tool.pdm.resolution.overrides]`, and exact pins in `[project] dependencies`,
//! `[project.optional-dependencies]` and `[dependency-groups]`; a uv workspace's root read with
//! its members ([`workspace`]).

use std::collections::{BTreeMap, BTreeSet};

use pep508_rs::{PackageName, Requirement};
use serde::Deserialize;
use toml::Spanned;

use super::pins::{Context, ParseProblem, Pin, PinKind, line_of};
use crate::metadata::parse_requirement;
use crate::metadata::requirement::{has_specifier, is_exact};

#[derive(Debug, Default, Deserialize)]
struct PyProject {
    #[serde(default)]
    project: Option<ProjectTable>,
    #[serde(default, rename = "dependency-groups")]
    dependency_groups: BTreeMap<String, Vec<Spanned<toml::Value>>>,
    #[serde(default)]
    tool: Option<Tool>,
}

#[derive(Debug, Default, Deserialize)]
struct ProjectTable {
    #[serde(default)]
    name: Option<String>,
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
    #[serde(default)]
    poetry: Option<Poetry>,
}

/// A Poetry dependency table: name to constraint (string, table or list of tables).
type PoetryTable = BTreeMap<String, Spanned<toml::Value>>;

/// `[tool.poetry]`.
#[derive(Debug, Default, Deserialize)]
struct Poetry {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    dependencies: PoetryTable,
    #[serde(default, rename = "dev-dependencies")]
    dev_dependencies: PoetryTable,
    #[serde(default)]
    group: BTreeMap<String, PoetryGroup>,
}

/// `[tool.poetry.group.NAME]`.
#[derive(Debug, Default, Deserialize)]
struct PoetryGroup {
    #[serde(default)]
    optional: bool,
    #[serde(default)]
    dependencies: PoetryTable,
}

#[derive(Debug, Default, Deserialize)]
struct Uv {
    #[serde(default, rename = "override-dependencies")]
    overrides: Vec<Spanned<String>>,
    #[serde(default, rename = "constraint-dependencies")]
    constraints: Vec<Spanned<String>>,
    #[serde(default)]
    workspace: Option<UvWorkspace>,
}

/// `[tool.uv.workspace]`.
#[derive(Debug, Default, Deserialize)]
struct UvWorkspace {
    #[serde(default)]
    members: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Pdm {
    #[serde(default)]
    resolution: Option<PdmResolution>,
    /// `[tool.pdm.dev-dependencies]`: groups `pdm install` installs by default.
    #[serde(default, rename = "dev-dependencies")]
    dev_dependencies: BTreeMap<String, Vec<Spanned<String>>>,
}

#[derive(Debug, Default, Deserialize)]
struct PdmResolution {
    #[serde(default)]
    overrides: BTreeMap<String, Spanned<String>>,
}

/// One `pyproject.toml` read: its pins (their environments not yet set) and what `uv sync`
/// of it installs.
#[derive(Debug, Clone)]
pub(crate) struct Project {
    /// The file, from the repository's top level.
    pub file: String,
    /// `[project] name`, when it has one.
    pub name: Option<PackageName>,
    /// `[tool.uv.workspace] members` globs (folders, relative to the file's own), when it is a
    /// workspace root.
    pub members: Vec<String>,
    /// `[tool.uv.workspace] exclude` globs.
    pub exclude: Vec<String>,
    pins: Vec<Pin>,
    /// The dependencies and the `dev` group: what `uv sync` installs.
    requirements: Vec<Requirement>,
    /// Each extra and dependency group, with the index in `pins` of each entry that is a pin.
    sections: Vec<Vec<(Requirement, Option<usize>)>>,
    constraints: Vec<Requirement>,
    overrides: Vec<Requirement>,
}

impl Project {
    /// What `poetry install` / `pdm install` / `uv sync` of it installs, itself left out.
    pub(crate) fn declared(&self) -> Vec<Requirement> {
        (self.requirements.iter())
            .filter(|r| Some(&r.name) != self.name.as_ref())
            .cloned()
            .collect()
    }
}

/// The pins of one `pyproject.toml` that is no workspace's member; entries that do not parse
/// are reported in `problems`.
pub(crate) fn pins(file: &str, text: &str, problems: &mut Vec<ParseProblem>) -> Vec<Pin> {
    read(file, text, problems).map_or_else(Vec::new, |project| workspace(project, Vec::new()))
}

/// Read one `pyproject.toml` (`None`, a problem reported, when it is not TOML of that shape).
pub(crate) fn read(file: &str, text: &str, problems: &mut Vec<ParseProblem>) -> Option<Project> {
    let doc: PyProject = match toml::from_str(text) {
        Ok(doc) => doc,
        Err(err) => {
            problems.push(ParseProblem {
                file: file.to_string(),
                line: err.span().map(|span| line_of(text, span.start)),
                message: format!("not valid pyproject.toml: {}", err.message()),
            });
            return None;
        }
    };
    let mut reader = Reader {
        file,
        text,
        problems,
        pins: Vec::new(),
    };
    let project = doc.project.unwrap_or_default();
    let deps = reader.list(&project.dependencies, PinKind::ProjectPin, true);
    let mut sections = Vec::new();
    for entries in project.optional.values() {
        sections.push(reader.list(entries, PinKind::ProjectPin, true));
    }
    let mut dev = Vec::new();
    for (group, entries) in &doc.dependency_groups {
        // `{include-group = "..."}` tables name no version.
        let strings: Vec<Spanned<String>> = entries
            .iter()
            .filter_map(|entry| match entry.get_ref() {
                toml::Value::String(value) => Some(Spanned::new(entry.span(), value.clone())),
                _ => None,
            })
            .collect();
        let section = reader.list(&strings, PinKind::GroupPin, true);
        if group == "dev" {
            dev = section.clone();
        }
        sections.push(section);
    }
    let tool = doc.tool.unwrap_or_default();
    let uv = tool.uv.unwrap_or_default();
    let overrides = reader.list(&uv.overrides, PinKind::UvOverride, false);
    let constraints = reader.list(&uv.constraints, PinKind::UvConstraint, false);
    let mut installed = deps.clone();
    installed.extend(dev);
    for (tool_sections, tool_installed) in [
        tool_sections(&mut reader, tool.poetry.as_ref()),
        pdm_dev_sections(&mut reader, tool.pdm.as_ref()),
    ] {
        sections.extend(tool_sections);
        installed.extend(tool_installed);
    }
    let pdm = tool.pdm.and_then(|p| p.resolution).unwrap_or_default();
    let mut pdm_entries = Vec::new();
    for (name, value) in &pdm.overrides {
        let spec = value.get_ref().trim();
        // pdm accepts a bare version (`"3.7.0"`) as well as a specifier.
        let spec = if spec.starts_with(|c: char| c.is_ascii_digit()) {
            format!("=={spec}")
        } else {
            spec.to_string()
        };
        pdm_entries.push(Spanned::new(value.span(), format!("{name}{spec}")));
    }
    let pdm_overrides = reader.list(&pdm_entries, PinKind::PdmOverride, false);
    let requirements = |list: &[(Requirement, Option<usize>)]| -> Vec<Requirement> {
        list.iter().map(|(r, _)| r.clone()).collect()
    };
    let workspace = uv.workspace.unwrap_or_default();
    Some(Project {
        file: file.to_string(),
        name: (project.name.or(tool.poetry.and_then(|p| p.name)))
            .and_then(|n| PackageName::new(n).ok()),
        members: workspace.members,
        exclude: workspace.exclude,
        pins: reader.pins,
        requirements: requirements(&installed),
        sections,
        constraints: requirements(&constraints),
        overrides: requirements(&overrides)
            .into_iter()
            .chain(requirements(&pdm_overrides))
            .collect(),
    })
}

/// The pins of a project and its workspace's `members` (none: a project alone), each in the
/// environment `uv sync` makes of the whole workspace: every member's dependencies and `dev`
/// group, under the root's `constraint-dependencies` and `override-dependencies` (uv reads them
/// from the root only); requirements on the members themselves are theirs, not the index's. A
/// pin of an extra or another group joins its own list.
pub(crate) fn workspace(root: Project, members: Vec<Project>) -> Vec<Pin> {
    let local: BTreeSet<PackageName> = std::iter::once(&root)
        .chain(&members)
        .filter_map(|p| p.name.clone())
        .collect();
    let mut base = Context {
        root: root.file.clone(),
        constraints: root.constraints.clone(),
        overrides: root.overrides.clone(),
        resolves_whole: true,
        ..Context::default()
    };
    for project in std::iter::once(&root).chain(&members) {
        for requirement in &project.requirements {
            if local.contains(&requirement.name) || base.requirements.contains(requirement) {
                continue;
            }
            base.requirements.push(requirement.clone());
            if !members.is_empty() {
                (base.sources)
                    .entry(requirement.name.clone())
                    .or_insert_with(|| project.file.clone());
            }
        }
    }
    let mut out = Vec::new();
    for project in std::iter::once(root).chain(members) {
        let mut pins = project.pins;
        for section in &project.sections {
            let mut context = base.clone();
            for (requirement, _) in section {
                if !local.contains(&requirement.name) && !context.requirements.contains(requirement)
                {
                    context.requirements.push(requirement.clone());
                }
            }
            for index in section.iter().filter_map(|(_, index)| *index) {
                pins[index].context = context.clone();
            }
        }
        for pin in &mut pins {
            if pin.context.root.is_empty() {
                pin.context = base.clone();
            }
        }
        out.extend(pins);
    }
    out
}

/// A list of entries, each with the index in `pins` of the one that is a pin.
type Section = Vec<(Requirement, Option<usize>)>;

/// `[tool.poetry.dependencies]`, `[tool.poetry.dev-dependencies]` and each
/// `[tool.poetry.group.NAME.dependencies]`: the sections, and what `poetry install` installs
/// (all but the optional groups). Every entry with a version is a pin.
fn tool_sections(reader: &mut Reader<'_>, poetry: Option<&Poetry>) -> (Vec<Section>, Section) {
    let Some(poetry) = poetry else {
        return (Vec::new(), Vec::new());
    };
    let main = reader.poetry(&poetry.dependencies);
    let dev = reader.poetry(&poetry.dev_dependencies);
    let mut installed: Section = main.iter().chain(&dev).cloned().collect();
    let mut sections = vec![main, dev];
    for group in poetry.group.values() {
        let section = reader.poetry(&group.dependencies);
        if !group.optional {
            installed.extend(section.iter().cloned());
        }
        sections.push(section);
    }
    (sections, installed)
}

/// `[tool.pdm.dev-dependencies]`: every group is installed by `pdm install`; exact pins only.
fn pdm_dev_sections(reader: &mut Reader<'_>, pdm: Option<&Pdm>) -> (Vec<Section>, Section) {
    let mut sections = Vec::new();
    let mut installed = Vec::new();
    for entries in pdm
        .map(|p| p.dev_dependencies.values())
        .into_iter()
        .flatten()
    {
        let section = reader.list(entries, PinKind::GroupPin, true);
        installed.extend(section.iter().cloned());
        sections.push(section);
    }
    (sections, installed)
}

struct Reader<'a> {
    file: &'a str,
    text: &'a str,
    problems: &'a mut Vec<ParseProblem>,
    pins: Vec<Pin>,
}

impl Reader<'_> {
    /// Every entry that parses, each with the index of its pin in `pins` when it is one.
    fn list(
        &mut self,
        entries: &[Spanned<String>],
        kind: PinKind,
        exact_only: bool,
    ) -> Vec<(Requirement, Option<usize>)> {
        entries
            .iter()
            .filter_map(|entry| self.entry(entry, kind, exact_only))
            .collect()
    }

    /// A Poetry dependency table (`python` is the interpreter, not a dependency).
    fn poetry(&mut self, table: &PoetryTable) -> Section {
        let mut out = Vec::new();
        for (name, value) in table.iter().filter(|(name, _)| *name != "python") {
            match super::poetry::entry(name, value.get_ref()) {
                Ok(super::poetry::Entry::Index(requirements)) => {
                    for requirement in requirements {
                        let spanned = Spanned::new(value.span(), requirement);
                        out.extend(self.entry(&spanned, PinKind::PoetryDependency, false));
                    }
                }
                Ok(super::poetry::Entry::Elsewhere) => {}
                Err(message) => self.problems.push(ParseProblem {
                    file: self.file.to_string(),
                    line: Some(line_of(self.text, value.span().start)),
                    message: format!("`{name}`: {message}"),
                }),
            }
        }
        out
    }

    fn entry(
        &mut self,
        entry: &Spanned<String>,
        kind: PinKind,
        exact_only: bool,
    ) -> Option<(Requirement, Option<usize>)> {
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
                return None;
            }
        };
        let kind = match kind {
            // A range of `[project]` or a group: judged where it moves or breaks something.
            _ if exact_only && !is_exact(&requirement) => PinKind::Range,
            kind => kind,
        };
        if !has_specifier(&requirement) {
            return Some((requirement, None));
        }
        self.pins.push(Pin {
            file: self.file.to_string(),
            line,
            kind,
            requirement: requirement.clone(),
            flags: Vec::new(),
            context: Context::default(),
        });
        Some((requirement, Some(self.pins.len() - 1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_overrides_constraints_exact_pins_and_ranges_with_lines() {
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
                (5, PinKind::Range, "numpy>=2".to_string()),
                (9, PinKind::GroupPin, "filelock==4.2.12".to_string()),
                (12, PinKind::UvOverride, "triton==3.7.0".to_string()),
                (13, PinKind::UvConstraint, "numpy<3".to_string()),
                (16, PinKind::PdmOverride, "requests==2.32.3".to_string()),
            ]
        );
        let context = &pins[3].context;
        assert_eq!(context.requirements[0].to_string(), "torch==2.11.0");
        assert_eq!(context.overrides[0].to_string(), "triton==3.7.0");
        assert_eq!(context.constraints[0].to_string(), "numpy<3");
        // The dev group's pin joins what `uv sync` installs.
        assert!(
            pins[2]
                .context
                .requirements
                .iter()
                .any(|r| r.to_string() == "filelock==4.2.12")
        );
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
