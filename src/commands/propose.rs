//! `planner propose`: whole-environment upgrade plans, alternatives, forced overrides with their
//! risk, and the pip/uv commands and verification script for each plan.
//!
//! Output: text (default), JSON (`docs/plan-json.md`) or markdown. With `--out-dir DIR`, the
//! files are written all together or not at all ([`crate::out_dir`]: staged, synced, renamed;
//! Ctrl-C while staging leaves the previous files as they were):
//!
//! ```text
//! DIR/proposal.json
//! DIR/plans/<n>-<kind>/plan.json         the plan file `planner check --accept` reads
//! DIR/plans/<n>-<kind>/constraints.txt   every planned pin except overridden dists
//! DIR/plans/<n>-<kind>/overrides.txt     exactly the overridden requirements (uv)
//! DIR/plans/<n>-<kind>/install-pip.sh
//! DIR/plans/<n>-<kind>/install-uv.sh
//! DIR/plans/<n>-<kind>/verify.py         stdlib-only post-upgrade checks
//! ```
//!
//! Exit codes: 0 a plan was found; 1 no plan, or the recommended plan's risk is above
//! `--max-risk`; 2 the tool failed.

use std::path::Path;

use crate::ExitStatus;
use crate::index::{Index, IndexLocation};
use crate::inventory::{self, EnvironmentOrigin};
use crate::out_dir::OutFiles;
use crate::plan::{self, Plan, Proposal, ProposeRequest};
use crate::printer::Printer;
use crate::render::commands::{self, CommandSettings};
use crate::render::text::PlanCommands;
use crate::render::{json, markdown, text, verify};
use crate::risk::RiskLevel;
use crate::settings::{OutputFormat, ProposeSettings};

/// Run `planner propose`.
pub fn run(args: &ProposeSettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let inventory = inventory::load(&args.environment)?;
    inventory.report(printer);
    let venv = inventory.environment.prefix.clone();
    let settings = args.index.resolve(venv.as_deref())?;
    let index_url = settings
        .indexes
        .first()
        .and_then(|location| match location {
            IndexLocation::Http(url) => Some(url.without_credentials().to_string()),
            IndexLocation::Local(path) => std::path::absolute(path)
                .ok()
                .and_then(|p| url::Url::from_directory_path(p).ok())
                .map(|u| u.to_string()),
        });
    let index = Index::new(settings, printer)?;
    let source = match args.environment.source.named().or(venv.as_deref()) {
        Some(path) => path.display().to_string(),
        None => "(this interpreter)".to_string(),
    };
    let targets = applicable_targets(&args.targets, &inventory.environment.markers, printer);
    if targets.is_empty() && !args.all {
        // As pip does: every target was ignored, so there is nothing to plan; the plan below
        // is the environment as it is.
        printer.note("nothing to plan: no target applies to this environment");
    }
    let request = ProposeRequest {
        targets,
        all: args.all,
        allow_override: args.allow_override,
        prerelease: args.prerelease,
        binary: args.index.binary.clone(),
        now: Some(crate::clock::now()),
        source,
    };
    let mut proposal = plan::propose(&index, &inventory, &args.policy, &request)?;
    let pep668 = inventory.environment.externally_managed().map(pep668_note);
    proposal
        .warnings
        .extend(pep668.iter().map(|lines| lines.join(" ")));
    index.finish_progress();

    // Absolute, so that the written scripts work from any directory. A bare interpreter's
    // prefix often has no `bin/python` (Debian's /usr has python3 only): the interpreter that
    // answered is named then.
    let answered = match &inventory.environment.origin {
        EnvironmentOrigin::Interpreter { python, .. } => Some(python.clone()),
        _ => None,
    };
    let python = match &venv {
        Some(prefix) => {
            let python = prefix.join("bin").join("python");
            let python = match answered {
                Some(answered) if !python.exists() => answered,
                _ => python,
            };
            std::path::absolute(&python)
                .unwrap_or(python)
                .display()
                .to_string()
        }
        None => "python3".to_string(),
    };
    let out_dir = args.out_dir.as_ref();
    let mut shown = Vec::new();
    let mut out_files = OutFiles::default();
    for (i, plan) in proposal.plans.iter().enumerate() {
        let dir = out_dir
            .as_ref()
            .map(|root| root.join("plans").join(plan_dir_name(i, plan)));
        let files_dir = dir.as_ref().map(|d| d.display().to_string());
        let files = commands::install_files(
            plan,
            &CommandSettings {
                python: python.clone(),
                index_url: index_url.clone(),
                files_dir: files_dir.clone(),
                constraints: dir.is_some(),
            },
        )?;
        if dir.is_some() {
            let relative = Path::new("plans").join(plan_dir_name(i, plan));
            let spec = crate::verify::select(Some(plan), &inventory, &args.policy, false);
            plan_files(
                &mut out_files,
                &relative,
                plan,
                &spec,
                &python,
                index_url.as_deref(),
                pep668.as_deref().unwrap_or_default(),
            )?;
        }
        let paste = |steps: &[Vec<String>]| match &dir {
            Some(_) => steps
                .iter()
                .map(|s| commands::shell_line(s) + "\n")
                .collect::<String>(),
            None => commands::inline_steps(&files, steps),
        };
        shown.push(PlanCommands {
            pip: paste(&files.pip),
            uv: paste(&files.uv),
            dir: files_dir,
        });
    }
    if let Some(root) = &out_dir {
        out_files.add("proposal.json", json::to_json(&proposal)?);
        out_files.commit(root)?;
    }

    // In text, the proposal's warnings are diagnostics: stderr, silenced by -q. JSON and
    // markdown carry them as data (printed once, there).
    if args.format == OutputFormat::Text {
        for warning in &proposal.warnings {
            printer.warn(warning);
        }
    }
    match args.format {
        OutputFormat::Text => printer.out(&text::render(&proposal, &shown, printer.color())),
        OutputFormat::Json => printer.out(&json::to_json(&proposal)?),
        OutputFormat::Markdown => printer.out(&markdown::render(&proposal, &shown)),
    }
    Ok(exit_status(&proposal, args.max_risk, printer))
}

/// PEP 668: what the proposal and each install script say about an externally managed
/// environment. planner does not add `--break-system-packages` to the commands it writes: that
/// flag lets pip overwrite files the distributor's package manager owns, a choice for the user
/// to make knowingly, never one a plan makes for them. Without it the commands fail at once with
/// pip's `externally-managed-environment` error, changing nothing.
fn pep668_note(marker: &Path) -> Vec<String> {
    vec![
        format!(
            "this environment is externally managed (PEP 668: {} exists): pip and uv refuse \
             to install into it, so the commands below stop before changing anything.",
            marker.display()
        ),
        "Apply the plan in a virtual environment (`python3 -m venv --system-site-packages`), \
         or use the distributor's package manager; planner does not add \
         `--break-system-packages`, which lets pip overwrite the distributor's files: add it \
         yourself only if you accept that."
            .to_string(),
    ]
}

/// The targets whose markers hold in this environment. The others are ignored with pip's own
/// words on stderr ("Ignoring django: markers '...' don't match your environment").
fn applicable_targets(
    targets: &[pep508_rs::Requirement],
    markers: &pep508_rs::MarkerEnvironment,
    printer: &Printer,
) -> Vec<pep508_rs::Requirement> {
    targets
        .iter()
        .filter(|target| {
            let applies = target.marker.evaluate(markers, &[]);
            if !applies {
                printer.note(&format!(
                    "Ignoring {}: markers '{}' don't match your environment",
                    target.name,
                    target
                        .marker
                        .try_to_string()
                        .unwrap_or_default()
                        .replace('\'', "\"")
                ));
            }
            applies
        })
        .cloned()
        .collect()
}

fn exit_status(proposal: &Proposal, max_risk: Option<RiskLevel>, printer: &Printer) -> ExitStatus {
    let Some(best) = proposal.plans.first() else {
        return ExitStatus::UserActionRequired;
    };
    if !proposal.meets_request() {
        printer
            .warn("the request cannot be met: the plan shown is the closest, not what was asked");
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

/// `1-move-blockers`.
fn plan_dir_name(i: usize, plan: &Plan) -> String {
    format!("{}-{}", i + 1, plan.kind)
}

/// One plan's files, under `dir` (relative to the output folder).
fn plan_files(
    out: &mut OutFiles,
    dir: &Path,
    plan: &Plan,
    spec: &crate::verify::VerifySpec,
    python: &str,
    index_url: Option<&str>,
    notes: &[String],
) -> miette::Result<()> {
    let files = commands::install_files(
        plan,
        &CommandSettings {
            python: python.to_string(),
            index_url: index_url.map(str::to_string),
            files_dir: None,
            constraints: true,
        },
    )?;
    out.add(dir.join("plan.json"), json::to_json(plan)?);
    out.add(dir.join("constraints.txt"), files.constraints.as_bytes());
    out.add(dir.join("overrides.txt"), files.overrides.as_bytes());
    out.add_executable(
        dir.join("install-pip.sh"),
        commands::script(&files.pip, python, "pip", notes),
    );
    out.add_executable(
        dir.join("install-uv.sh"),
        commands::script(&files.uv, python, "uv", notes),
    );
    out.add_executable(dir.join("verify.py"), verify::script(spec));
    Ok(())
}
