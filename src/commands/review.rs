//! `planner review`: the forced and pinned versions the head adds or changes against the base,
//! each judged on every target with `propose`'s plan stage and risk model.
//!
//! Output: text, JSON (`docs/review-json.md`), markdown, GitHub annotations or SARIF 2.1.0
//! (`render::review`). Exit codes: 0 reviewed (nothing at or above `--fail-on`), 1 a finding is
//! at or above `--fail-on`, 2 the tool failed (not a git repository, an unknown revision, ...).
//! The repository is only read (`git ls-tree`, `git cat-file`).

use miette::miette;

use crate::ExitStatus;
use crate::inventory;
use crate::plan::ProposeRequest;
use crate::printer::Printer;
use crate::render::review as render;
use crate::review::Review;
use crate::review::analysis::{Analyzer, Target};
use crate::review::git::Repo;
use crate::review::links::WebRepo;
use crate::settings::{ReviewFormat, ReviewSettings};

/// The Python version judged for when none is given.
const DEFAULT_PYTHON: &str = "3.12";

/// Run `planner review`.
pub(crate) fn run(settings: &ReviewSettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let repo = Repo::open(&settings.path)?;
    let head = repo.revision(&settings.head)?;
    let base = match &settings.base {
        Some(name) => repo.revision(name)?,
        None => repo.default_base(&head)?,
    };
    if base.commit == head.commit {
        return Err(miette!(
            help = "fetch the base branch (`git fetch origin main`; in CI check out with fetch-depth: 0) or pass --base with the pull request's base commit",
            "the base `{}` and the head `{}` are the same commit ({}): there is nothing to review",
            base.name,
            head.name,
            head.commit
        ));
    }
    let targets = targets(settings, printer)?;
    let index_settings = settings.index.resolve(None)?;
    let forge = (settings.github_api.clone()).map(|api| {
        let (cache, offline) = (index_settings.cache_dir.clone(), index_settings.offline);
        crate::review::forge::ForgeTags::new(api, cache, offline, crate::clock::now())
    });
    let index_url = crate::render::plan_folder::first_index_url(&index_settings);
    let index = crate::index::Index::new(index_settings, printer)?;
    let request = ProposeRequest {
        binary: index.binary_policy().clone(),
        now: Some(crate::clock::now()),
        ..ProposeRequest::default()
    };
    let mut analyzer = Analyzer::new(&index, &settings.policy, request);
    let mut review = crate::review::review(&repo, &base, &head, &mut analyzer, &targets)?;
    let web = match &settings.actions_repository {
        Some((server, repository)) => WebRepo::from_actions(server, repository),
        None => repo
            .remote_url("origin")
            .and_then(|url| WebRepo::from_remote(&url)),
    };
    let now = crate::clock::now();
    crate::review::links::annotate(&mut review, &index, now, web.as_ref(), forge.as_ref());
    index.finish_progress();
    if let (Some(trial), Some(venv)) = (&settings.trial, &settings.venv) {
        let on = crate::trial::attempt::TrialSettings {
            tests: &trial.tests,
            keep: None,
            index_url: index_url.as_deref(),
            policy: &settings.policy,
            run: &trial.run,
            text: &crate::render::trial::TrialWriter,
        };
        crate::trial::attempt::try_findings(&mut review, venv, &on, printer)?;
    }
    for warning in review.warnings() {
        printer.warn(&warning);
    }
    match settings.format {
        ReviewFormat::Text => printer.text(&render::text(&review)),
        ReviewFormat::Json => printer.out(&render::json(&review)?),
        ReviewFormat::Markdown => printer.out(&render::markdown(&review)),
        ReviewFormat::Github => printer.out(&render::github(&review)),
        ReviewFormat::Sarif => printer.out(&render::sarif(&review)?),
    }
    if let Some(path) = &settings.sarif_file {
        let sarif = render::sarif(&review)?;
        crate::atomic::write(path, sarif.as_bytes(), crate::atomic::Mode::File)
            .map_err(|err| miette!("cannot write the SARIF file `{}`: {err}", path.display()))?;
    }
    Ok(gate(settings, &review, printer))
}

/// Exit 1 when the review trips the gate ([`Review::gate_reasons`]), each reason a warning.
fn gate(settings: &ReviewSettings, review: &Review, printer: &Printer) -> ExitStatus {
    let reasons = review.gate_reasons(settings.fail_on, settings.fail_on_unjudged);
    if reasons.is_empty() {
        return ExitStatus::Success;
    }
    for reason in reasons {
        printer.warn(&reason);
    }
    ExitStatus::UserActionRequired
}

/// The targets: the venv's or the snapshot's real environment, or each `--python-version` with
/// each `--python-platform`.
fn targets(settings: &ReviewSettings, printer: &Printer) -> miette::Result<Vec<Target>> {
    if let Some(path) = &settings.venv {
        let inventory = inventory::load_venv(path)?;
        inventory.report(printer);
        return Ok(vec![Target::Snapshot {
            label: path.display().to_string(),
            inventory: Box::new(inventory),
        }]);
    }
    if let Some(path) = &settings.from_snapshot {
        let inventory = inventory::apply_overrides(
            inventory::snapshot::load(path)?,
            settings.python_versions.first(),
            settings.python_platforms.first(),
        )?;
        inventory.report(printer);
        return Ok(vec![Target::Snapshot {
            label: path.display().to_string(),
            inventory: Box::new(inventory),
        }]);
    }
    let default;
    let versions = if settings.python_versions.is_empty() {
        printer.note(&format!(
            "note: no --python-version: judging for Python {DEFAULT_PYTHON}"
        ));
        default = [DEFAULT_PYTHON.parse().map_err(|err| miette!("{err}"))?];
        &default[..]
    } else {
        &settings.python_versions[..]
    };
    let mut targets = Vec::new();
    for target in inventory::each_target(versions, &settings.python_platforms) {
        let (label, environment) = target?;
        for note in &environment.notes {
            printer.note(&format!("note: {note}"));
        }
        targets.push(Target::Synthesized {
            label,
            environment: Box::new(environment),
        });
    }
    Ok(targets)
}
