//! `planner propose`: whole-environment upgrade plans, alternatives, forced overrides with their
//! risk, and the pip/uv commands and verification script for each plan.
//!
//! Reads the environment ([`plan::load_own_target`]) and the index, asks [`plan::propose`] for
//! the plans, writes each plan's commands and `--out-dir` folder ([`plan_outputs`]), tries the
//! plans with `--try` ([`try_plans`]) and prints text, JSON (`docs/plan-json.md`) or markdown.
//!
//! Exit codes: 0 a plan was found; 1 no plan, or the recommended plan's risk is above
//! `--max-risk`; 2 the tool failed.

use crate::ExitStatus;
use crate::index::Index;
use crate::inventory;
use crate::plan::{self, PlanKind, Proposal, ProposeRequest, applicable_targets, load_own_target};
use crate::printer::Printer;
use crate::render::plan_folder::{
    FolderOptions, first_index_url, interpreter_note, pep668_note, plan_outputs, scripts_python,
};
use crate::render::text::PlanCommands;
use crate::render::{json, layers, markdown, text, trial};
use crate::risk::RiskLevel;
use crate::settings::{OutputFormat, ProposeSettings};
use crate::trial::attempt::try_plans;

/// Each plan that installs a release whose requirements came from a metadata build says so,
/// one line per sdist.
fn built_lines(proposal: &mut Proposal, index: &Index) {
    use crate::index::IndexSource as _;
    let built = index.built_sdists();
    for plan in &mut proposal.plans {
        for sdist in &built {
            let installs = plan
                .changes
                .iter()
                .any(|c| c.name == sdist.name && c.to.as_ref() == Some(&sdist.version));
            if installs {
                plan.warnings.push(sdist.line());
            }
        }
    }
}

/// Run `planner propose`.
pub(crate) fn run(args: &ProposeSettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let inventory = load_own_target(&args.environment)?;
    inventory.report(printer);
    let mut settings = args
        .index
        .resolve(inventory.environment.prefix.as_deref())?;
    // Only the files that can change an answer for this environment are read (`FileFilter`).
    settings.target_tags = Some(inventory.environment.tags.clone());
    // `--allow-build`: an sdist without static metadata is built for its requirements by the
    // environment's own interpreter (a snapshot has none: nothing is built).
    if args.allow_build && inventory.environment.prefix.is_some() {
        settings.build.python = Some(scripts_python(&inventory));
    }
    let index_url = first_index_url(&settings);
    let index = Index::new(settings, printer)?;
    let request = propose_request(args, &inventory, printer);
    let mut proposal = plan::propose(&index, &inventory, &args.policy, &request)?;
    let pep668 = inventory.environment.externally_managed().map(pep668_note);
    proposal
        .warnings
        .extend(pep668.iter().map(|lines| lines.join(" ")));
    index.finish_progress();
    built_lines(&mut proposal, &index);
    let suspect = super::suspect_lines(&index);
    proposal.warnings.extend(suspect.iter().cloned());

    let python = scripts_python(&inventory);
    proposal
        .warnings
        .extend(interpreter_note(&inventory, &python));
    let (shown, files) = plan_outputs(
        &mut proposal,
        &FolderOptions {
            out_dir: args.out_dir.as_deref(),
            allow_build: args.allow_build,
            policy: &args.policy,
        },
        &inventory,
        &python,
        index_url.as_deref(),
    )?;
    if let Some(root) = &args.out_dir {
        files.commit(root)?;
    }

    // In text, the proposal's warnings are diagnostics: stderr, silenced by -q. JSON and
    // markdown carry them as data (printed once, there).
    if args.format == OutputFormat::Text {
        for warning in &proposal.warnings {
            printer.warn(warning);
        }
    }
    let tried = match &args.trial {
        Some(trial) => {
            let on = (
                &trial.tests[..],
                &trial.run,
                &args.policy,
                &trial::TrialWriter as _,
            );
            try_plans(&proposal, &inventory, trial.top, on, printer)?
        }
        None => Vec::new(),
    };
    print_proposal(args, &proposal, &shown, &tried, printer)?;
    if !tried.is_empty() && trial::recommended(&proposal, &tried).is_none() {
        printer.warn("no plan tried measured clean");
        return Ok(ExitStatus::UserActionRequired);
    }
    let status = exit_status(&proposal, args.max_risk, printer);
    Ok(super::at_least_user_action(status, &suspect))
}

/// What `propose` asks of the search: the targets that apply to this environment (a note when
/// none does), the flags, and where the environment was read from.
fn propose_request(
    args: &ProposeSettings,
    inventory: &inventory::Inventory,
    printer: &Printer,
) -> ProposeRequest {
    let venv = inventory.environment.prefix.as_deref();
    let source = match args.environment.source.named().or(venv) {
        Some(path) => path.display().to_string(),
        None => "(this interpreter)".to_string(),
    };
    let targets = applicable_targets(&args.targets, &inventory.environment.markers, printer);
    if targets.is_empty() && !args.all {
        // As pip does: every target was ignored, so there is nothing to plan; the plan below
        // is the environment as it is.
        printer.note("nothing to plan: no target applies to this environment");
    }
    ProposeRequest {
        targets,
        all: args.all,
        layer: args.layer,
        allow_override: args.allow_override,
        prerelease: args.prerelease,
        binary: args.index.binary.clone(),
        allow_build: args.allow_build,
        now: Some(crate::clock::now()),
        source,
    }
}

/// The proposal on stdout in the asked format (a layered `--all` as layers), then what `--try`
/// measured of each plan.
fn print_proposal(
    args: &ProposeSettings,
    proposal: &Proposal,
    shown: &[PlanCommands],
    tried: &[Option<crate::trial::Tried>],
    printer: &Printer,
) -> miette::Result<()> {
    let layered = layers::is_layered(proposal);
    match args.format {
        OutputFormat::Text if layered => printer.out(&layers::text(
            proposal,
            shown,
            printer.color(),
            printer.width(),
        )),
        OutputFormat::Text => printer.out(&text::render(
            proposal,
            shown,
            printer.color(),
            printer.width(),
        )),
        OutputFormat::Json if !tried.is_empty() => {
            let value = trial::proposal_json(proposal, tried)
                .map_err(|err| miette::miette!("cannot serialize the proposal: {err}"))?;
            printer.out(&json::to_json(&value)?)
        }
        OutputFormat::Json => printer.out(&json::to_json(proposal)?),
        OutputFormat::Markdown if layered => printer.out(&layers::markdown(proposal, shown)),
        OutputFormat::Markdown => printer.out(&markdown::render(proposal, shown)),
    }
    if !tried.is_empty() {
        match args.format {
            OutputFormat::Text => printer.text(&trial::proposal_text(proposal, tried)),
            OutputFormat::Markdown => printer.out(&trial::proposal_markdown(proposal, tried)),
            OutputFormat::Json => {}
        }
    }
    Ok(())
}

fn exit_status(proposal: &Proposal, max_risk: Option<RiskLevel>, printer: &Printer) -> ExitStatus {
    let Some(best) = proposal.plans.first() else {
        return ExitStatus::UserActionRequired;
    };
    if !proposal.meets_request() {
        match proposal
            .plans
            .iter()
            .position(|p| p.kind != PlanKind::NewestFitting)
        {
            Some(i) => printer.warn(&format!(
                "the recommended plan is the closest that fits, not what was asked; plan {} \
                 delivers the request at risk {}/100 {}",
                i + 1,
                proposal.plans[i].risk.score,
                proposal.plans[i].risk.level
            )),
            None => printer.warn(
                "the request cannot be met: the plan shown is the closest, not what was asked",
            ),
        }
        return ExitStatus::UserActionRequired;
    }
    if let Some(max) = max_risk
        && best.risk.level > max
    {
        printer.warn(&format!(
            "the recommended plan's risk is {} ({}/100), above --max-risk {max}",
            best.risk.level, best.risk.score
        ));
        return ExitStatus::UserActionRequired;
    }
    ExitStatus::Success
}
