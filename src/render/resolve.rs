//! `planner resolve` output: pinned requirements with `# via` lines (text), the explained
//! failure, and the JSON document of `docs/resolve-json.md`.
//!
//! In: the target [`Environment`] and a [`Resolution`] or a [`NoSolution`]. Out: text
//! ([`render_text`], [`failure_text`]) or the document ([`to_json`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use pep508_rs::PackageName;
use serde::Serialize;

use crate::inventory::Environment;
use crate::solve::{Dependent, Fact, Hint, NoSolution, Resolution, ResolvedSource, Via};

/// The `schema` value of `planner resolve --format json` (`docs/schemas/resolve.json`).
pub(crate) const SCHEMA: &str = "planner-resolve/1";

/// Pinned requirements with `# via` annotations, like `uv pip compile`. `root_files` names the
/// `-r FILE` each root requirement came from (others came from the command line).
pub(crate) fn render_text(
    env: &Environment,
    resolution: &Resolution,
    root_files: &BTreeMap<PackageName, PathBuf>,
) -> String {
    let mut out = format!(
        "# Resolved by planner for Python {} ({} {})\n",
        env.python_version,
        env.markers.sys_platform(),
        env.markers.platform_machine()
    );
    for (name, resolved) in &resolution.packages {
        out.push_str(&format!("{name}=={}\n", resolved.version));
        let via: Vec<String> = resolved
            .via
            .iter()
            .map(|v| match v {
                Via::Root => match root_files.get(name) {
                    Some(file) => format!("-r {}", file.display()),
                    None => "(command line)".to_string(),
                },
                Via::Package(p) => p.to_string(),
            })
            .collect();
        match via.as_slice() {
            [] => {}
            [one] => out.push_str(&format!("    # via {one}\n")),
            many => {
                out.push_str("    # via\n");
                for v in many {
                    out.push_str(&format!("    #   {v}\n"));
                }
            }
        }
    }
    for edge in &resolution.overridden {
        let who = match &edge.dependent {
            Dependent::Root => "your requirement".to_string(),
            Dependent::Dist { name, version } => format!("{name}=={version} requires"),
        };
        out.push_str(&format!(
            "# override: {who} `{}`, replaced by `{}`\n",
            edge.original, edge.replacement
        ));
    }
    out
}

/// The JSON document (`docs/resolve-json.md`).
#[derive(Debug, Serialize)]
#[allow(missing_docs)] // The fields are documented in docs/resolve-json.md.
pub(crate) struct ResolveJson {
    schema: &'static str,
    satisfiable: bool,
    python_version: String,
    packages: BTreeMap<String, String>,
    via: BTreeMap<String, BTreeSet<Via>>,
    extras: BTreeMap<String, BTreeSet<String>>,
    files: BTreeMap<String, FileJson>,
    overridden: Vec<OverriddenJson>,
    explanation: Option<String>,
    hints: Vec<Hint>,
    facts: Vec<Fact>,
    involved: Vec<String>,
}

#[derive(Debug, Serialize)]
struct FileJson {
    source: &'static str,
    filename: Option<String>,
    url: Option<String>,
    sha256: Option<String>,
}

#[derive(Debug, Serialize)]
struct OverriddenJson {
    /// `<root>` for a root requirement, else the distribution's name.
    dependent: String,
    /// `null` for a root requirement.
    dependent_version: Option<String>,
    original: String,
    replacement: String,
}

/// The JSON document: a resolution, or the failure with its hints and facts.
pub(crate) fn to_json(
    env: &Environment,
    resolution: Option<&Resolution>,
    failure: Option<&NoSolution>,
) -> ResolveJson {
    let mut doc = ResolveJson {
        schema: SCHEMA,
        satisfiable: resolution.is_some(),
        python_version: env.python_version.to_string(),
        packages: BTreeMap::new(),
        via: BTreeMap::new(),
        extras: BTreeMap::new(),
        files: BTreeMap::new(),
        overridden: Vec::new(),
        explanation: None,
        hints: Vec::new(),
        facts: Vec::new(),
        involved: Vec::new(),
    };
    if let Some(resolution) = resolution {
        for (name, r) in &resolution.packages {
            let key = name.to_string();
            doc.packages.insert(key.clone(), r.version.to_string());
            doc.via.insert(key.clone(), r.via.clone());
            if !r.extras.is_empty() {
                doc.extras.insert(
                    key.clone(),
                    r.extras.iter().map(ToString::to_string).collect(),
                );
            }
            let file = match &r.source {
                ResolvedSource::Installed => FileJson {
                    source: "installed",
                    filename: None,
                    url: None,
                    sha256: None,
                },
                ResolvedSource::Index { file } => FileJson {
                    source: "index",
                    filename: file
                        .as_ref()
                        .map(|f| f.filename_str())
                        .filter(|name| !name.is_empty()),
                    url: file.as_ref().map(|f| crate::index::auth::redact(&f.url)),
                    sha256: file
                        .as_ref()
                        .and_then(|f| f.hashes.get("sha256").map(str::to_string)),
                },
            };
            doc.files.insert(key, file);
        }
        doc.overridden = resolution
            .overridden
            .iter()
            .map(|e| OverriddenJson {
                dependent: match &e.dependent {
                    Dependent::Root => "<root>".to_string(),
                    Dependent::Dist { name, .. } => name.to_string(),
                },
                dependent_version: e.dependent.dist().map(|(_, v)| v.to_string()),
                original: e.original.to_string(),
                replacement: e.replacement.to_string(),
            })
            .collect();
    }
    if let Some(failure) = failure {
        doc.explanation = Some(failure.report.clone());
        doc.hints = failure.hints.clone();
        doc.facts = failure.facts.clone();
        doc.involved = failure.involved.iter().map(ToString::to_string).collect();
    }
    doc
}

/// The failure explained for a terminal: miette's report, not wrapped (a specifier split
/// across lines, `!\n=2.0`, reads wrong), safe to print as it is. Coloured only when the
/// report's own text has nothing to escape; else plain, escaped.
pub(crate) fn failure_text(failure: &NoSolution, color: bool) -> String {
    let render = |theme| {
        let handler = miette::GraphicalReportHandler::new_themed(theme).with_wrap_lines(false);
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = handler.render_report(&mut text, &failure.diagnostic());
        text.trim_end().to_string()
    };
    let plain = render(miette::GraphicalTheme::unicode_nocolor());
    match crate::terminal::escape(&plain) {
        std::borrow::Cow::Borrowed(_) if color => render(miette::GraphicalTheme::unicode()),
        safe => safe.into_owned(),
    }
}
