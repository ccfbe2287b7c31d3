//! `planner resolve`: solve requirements against an index for a target Python and platform,
//! like `uv pip compile`.
//!
//! In: requirements (arguments, `-r` files), constraints (`-c`), overrides (`--override`), the
//! index flags, and the target: `--python-version`/`--python-platform` synthesize one (no venv
//! needed); `--venv`/`--from-snapshot` (or the discovered environment when neither version nor
//! platform is given) lend their markers and tags. Installed versions are not preferred: this is
//! a compile, not an upgrade plan. Out: pinned requirements with `# via` annotations (text) or
//! the JSON document of `docs/resolve-json.md`; exit 0 when satisfiable, 1 when not, 2 on error.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use miette::{Context, IntoDiagnostic};
use pep508_rs::{PackageName, Requirement};
use serde::Serialize;

use crate::ExitStatus;
use crate::cli::{OutputFormat, ResolveArgs};
use crate::index::{Index, IndexSettings};
use crate::inventory::{self, Environment};
use crate::printer::Printer;
use crate::solve::requirements_file::RequirementsFile;
use crate::solve::{
    Dependent, Fact, Hint, NoSolution, Override, Resolution, ResolvedSource, SolveError,
    SolveRequest, Via, solve,
};

/// The `schema` value of `planner resolve --format json`.
pub const SCHEMA: &str = "planner-resolve";
/// The `schema_version` of `planner resolve --format json`.
pub const SCHEMA_VERSION: u32 = 1;

/// Where the root requirements came from, for `# via` lines.
#[derive(Debug, Default)]
struct RootSources {
    /// `-r FILE` per name (first file wins).
    files: BTreeMap<PackageName, String>,
}

impl RootSources {
    fn label(&self, name: &PackageName) -> String {
        match self.files.get(name) {
            Some(file) => format!("-r {file}"),
            None => "(command line)".to_string(),
        }
    }
}

/// Run `planner resolve`.
pub fn run(args: &ResolveArgs, printer: &Printer) -> miette::Result<ExitStatus> {
    let (request, sources) = build_request(args)?;
    let env = target(args, printer)?;
    let settings = IndexSettings::from_args(&args.index, args.env.venv.as_deref())?;
    let index = Index::new(settings, printer)?;
    let request = SolveRequest {
        binary: index.binary_policy().clone(),
        ..request
    };
    match solve(&index, &env, &request) {
        Ok(resolution) => {
            match args.format {
                OutputFormat::Json => print_json(printer, &env, Some(&resolution), None)?,
                OutputFormat::Text => printer.out(&render_text(&env, &resolution, &sources)),
            }
            Ok(ExitStatus::Success)
        }
        Err(SolveError::NoSolution(failure)) => {
            match args.format {
                OutputFormat::Json => print_json(printer, &env, None, Some(&failure))?,
                OutputFormat::Text => {
                    // Not wrapped: a specifier split across lines (`!\n=2.0`) reads wrong.
                    let handler = miette::GraphicalReportHandler::new_themed(if printer.color() {
                        miette::GraphicalTheme::unicode()
                    } else {
                        miette::GraphicalTheme::unicode_nocolor()
                    })
                    .with_wrap_lines(false);
                    let mut text = String::new();
                    handler
                        .render_report(&mut text, &failure.diagnostic())
                        .into_diagnostic()?;
                    printer.note(text.trim_end());
                }
            }
            Ok(ExitStatus::UserActionRequired)
        }
        Err(err) => Err(err.into()),
    }
}

fn parse_requirement(text: &str) -> miette::Result<Requirement> {
    Requirement::from_str(text).map_err(|e| {
        miette::miette!(
            help = "write a PEP 508 requirement such as `numpy>=2,<3`",
            "`{text}` is not a valid requirement: {}",
            e.message
        )
    })
}

fn build_request(args: &ResolveArgs) -> miette::Result<(SolveRequest, RootSources)> {
    let mut request = SolveRequest {
        prerelease: args.prerelease.into(),
        ..SolveRequest::default()
    };
    let mut sources = RootSources::default();
    for text in &args.requirements {
        request.requirements.push(parse_requirement(text)?);
    }
    for path in &args.requirement_files {
        let file = RequirementsFile::read(path)?;
        for r in &file.requirements {
            sources
                .files
                .entry(r.name.clone())
                .or_insert_with(|| path.display().to_string());
        }
        request.requirements.extend(file.requirements);
        request.constraints.extend(file.constraints);
    }
    for path in &args.constraint_files {
        let file = RequirementsFile::read(path)?;
        request.constraints.extend(file.requirements);
        request.constraints.extend(file.constraints);
    }
    for path in &args.override_files {
        let file = RequirementsFile::read(path)?;
        request
            .overrides
            .extend(file.requirements.into_iter().map(|requirement| Override {
                requirement,
                only_from: None,
            }));
    }
    if request.requirements.is_empty() {
        miette::bail!(
            help = "pass requirements as arguments (`planner resolve 'numpy>=2'`) or with -r FILE",
            "nothing to resolve"
        );
    }
    Ok((request, sources))
}

/// The target environment: synthesized from `--python-version` (uv pip compile semantics), else
/// the one `--venv` / `--from-snapshot` / discovery finds.
fn target(args: &ResolveArgs, printer: &Printer) -> miette::Result<Environment> {
    let env_args = &args.env;
    let env = match (
        &env_args.python_version,
        &env_args.venv,
        &env_args.from_snapshot,
    ) {
        (Some(version), None, None) => {
            Environment::synthesize(version, env_args.python_platform.as_deref())?
        }
        _ => inventory::load(env_args)?.environment,
    };
    for note in &env.notes {
        printer.note(&format!("note: {note}"));
    }
    Ok(env)
}

fn render_text(env: &Environment, resolution: &Resolution, sources: &RootSources) -> String {
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
                Via::Root => sources.label(name),
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
struct ResolveJson {
    schema: &'static str,
    schema_version: u32,
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

fn print_json(
    printer: &Printer,
    env: &Environment,
    resolution: Option<&Resolution>,
    failure: Option<&NoSolution>,
) -> miette::Result<()> {
    let mut doc = ResolveJson {
        schema: SCHEMA,
        schema_version: SCHEMA_VERSION,
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
                    sha256: file.as_ref().and_then(|f| f.hashes.get("sha256").cloned()),
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
    let mut text = serde_json::to_string_pretty(&doc)
        .into_diagnostic()
        .wrap_err("cannot serialize the resolution")?;
    text.push('\n');
    printer.out(&text);
    Ok(())
}
