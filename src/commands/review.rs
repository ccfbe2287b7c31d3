//! `planner review`: the forced and pinned versions the head adds or changes against the base,
//! each judged on every target with `propose`'s plan stage and risk model.
//!
//! Output: text, JSON (`docs/review-json.md`), markdown, GitHub annotations or SARIF 2.1.0
//! (`render::review`). Exit codes: 0 reviewed (nothing at or above `--fail-on`), 1 a finding is
//! at or above `--fail-on`, 2 the tool failed (not a git repository, an unknown revision, ...).
//! The repository is only read (`git ls-tree`, `git cat-file`).

use std::path::Path;
use std::str::FromStr;

use miette::miette;

use crate::ExitStatus;
use crate::cli::{ReviewArgs, ReviewFormat};
use crate::index::{Index, IndexSettings};
use crate::inventory::{self, Environment};
use crate::plan::ProposeRequest;
use crate::printer::Printer;
use crate::render::review as render;
use crate::review::analysis::{Analyzer, Target};
use crate::review::git::Repo;
use crate::risk::{Policy, RiskLevel};

/// The Python version judged for when none is given.
const DEFAULT_PYTHON: &str = "3.12";

/// Run `planner review`.
pub fn run(args: &ReviewArgs, printer: &Printer) -> miette::Result<ExitStatus> {
    let fail_on = args
        .fail_on
        .as_deref()
        .map(RiskLevel::from_str)
        .transpose()
        .map_err(|message| {
            miette!(
                help = "use low, medium, high or critical",
                "--fail-on: {message}"
            )
        })?;
    let policy = Policy::load(args.policy.as_deref())?;
    let repo = Repo::open(args.path.as_deref().unwrap_or(Path::new(".")))?;
    let head = repo.revision(&args.head)?;
    let base = match &args.base {
        Some(name) => repo.revision(name)?,
        None => repo.default_base(&head)?,
    };
    let targets = targets(args, printer)?;
    let settings = IndexSettings::from_args(&args.index, None)?;
    let index = Index::new(settings, printer)?;
    let request = ProposeRequest {
        binary: index.binary_policy().clone(),
        now: Some(jiff::Timestamp::now()),
        ..ProposeRequest::default()
    };
    let mut analyzer = Analyzer::new(&index, &policy, request);
    let review = crate::review::review(&repo, &base, &head, &mut analyzer, &targets)?;
    index.finish_progress();
    for problem in &review.problems {
        let at = problem
            .line
            .map(|l| format!(" line {l}"))
            .unwrap_or_default();
        printer.warn(&format!(
            "`{}`{at} was not reviewed: {}",
            problem.file, problem.message
        ));
    }
    printer.out(&match args.format {
        ReviewFormat::Text => render::text(&review),
        ReviewFormat::Json => render::json(&review),
        ReviewFormat::Markdown => render::markdown(&review),
        ReviewFormat::Github => render::github(&review),
        ReviewFormat::Sarif => render::sarif(&review),
    });
    Ok(match fail_on {
        Some(level) if review.reaches(level) => {
            printer.warn(&format!(
                "a finding's risk is at or above --fail-on {level}"
            ));
            ExitStatus::UserActionRequired
        }
        _ => ExitStatus::Success,
    })
}

/// The targets: the snapshot's real environment, or each `--python-version` with each
/// `--python-platform`.
fn targets(args: &ReviewArgs, printer: &Printer) -> miette::Result<Vec<Target>> {
    if let Some(path) = &args.from_snapshot {
        if args.python_versions.len() > 1 || args.python_platforms.len() > 1 {
            return Err(miette!(
                help =
                    "review one snapshot for one target, or drop --from-snapshot to judge several",
                "--from-snapshot takes at most one --python-version and one --python-platform"
            ));
        }
        let inventory = inventory::apply_overrides(
            inventory::snapshot::load(path)?,
            args.python_versions.first().map(String::as_str),
            args.python_platforms.first().map(String::as_str),
        )?;
        inventory.report(printer);
        return Ok(vec![Target::Snapshot {
            label: path.display().to_string(),
            inventory: Box::new(inventory),
        }]);
    }
    let versions = if args.python_versions.is_empty() {
        printer.note(&format!(
            "note: no --python-version: judging for Python {DEFAULT_PYTHON}"
        ));
        vec![DEFAULT_PYTHON.to_string()]
    } else {
        args.python_versions.clone()
    };
    let platforms: Vec<Option<&str>> = if args.python_platforms.is_empty() {
        vec![None]
    } else {
        args.python_platforms
            .iter()
            .map(|p| Some(p.as_str()))
            .collect()
    };
    let mut targets = Vec::new();
    for version in &versions {
        for platform in &platforms {
            let environment = Environment::synthesize(version, *platform)?;
            for note in &environment.notes {
                printer.note(&format!("note: {note}"));
            }
            let label = format!(
                "Python {version} {}",
                platform.unwrap_or("(this host's platform)")
            );
            targets.push(Target::Synthesized { label, environment });
        }
    }
    Ok(targets)
}
