//! `planner propose`: whole-environment upgrade plans, alternatives, forced overrides with their
//! risk, and the pip/uv commands and verification script for each plan.
//!
//! Output: text (default), JSON (`docs/plan-json.md`) or markdown. With `--out-dir DIR`, the
//! files are written atomically (temp file in the same folder, then rename):
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

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use miette::{Context, IntoDiagnostic, miette};
use pep508_rs::{Requirement, VersionOrUrl};

use crate::ExitStatus;
use crate::cli::{PlanFormat, ProposeArgs};
use crate::index::{Index, IndexLocation, IndexSettings};
use crate::inventory;
use crate::plan::{self, Plan, Proposal, ProposeRequest};
use crate::printer::Printer;
use crate::render::commands::{self, CommandSettings};
use crate::render::text::PlanCommands;
use crate::render::{json, markdown, text, verify};
use crate::risk::{Policy, RiskLevel};

/// Run `planner propose`.
pub fn run(args: &ProposeArgs, printer: &Printer) -> miette::Result<ExitStatus> {
    if args.targets.is_empty() && !args.all {
        return Err(miette!(
            help = "name what to upgrade (`planner propose triton==3.7.0`, `planner propose numpy`), \
                    or pass --all",
            "nothing to propose: no target and no --all"
        ));
    }
    let targets = parse_targets(&args.targets)?;
    let max_risk = args
        .max_risk
        .as_deref()
        .map(RiskLevel::from_str)
        .transpose()
        .map_err(|message| {
            miette!(
                help = "use low, medium, high or critical",
                "--max-risk: {message}"
            )
        })?;
    let policy = Policy::load(args.policy.as_deref())?;
    let inventory = inventory::load(&args.env)?;
    inventory.report(printer);
    let binary = crate::index::BinaryPolicy::new(&args.index.only_binary, &args.index.no_binary);
    let venv = inventory.environment.prefix.clone();
    let settings = IndexSettings::from_args(&args.index, venv.as_deref())?;
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
    let source = match (&args.env.venv, &args.env.from_snapshot, &venv) {
        (Some(path), _, _) | (None, Some(path), _) | (None, None, Some(path)) => {
            path.display().to_string()
        }
        _ => "(this interpreter)".to_string(),
    };
    let request = ProposeRequest {
        targets,
        all: args.all,
        allow_override: args.allow_override,
        prerelease: args.prerelease.into(),
        binary,
        now: Some(jiff::Timestamp::now()),
        source,
    };
    let proposal = plan::propose(&index, &inventory, &policy, &request)?;
    index.finish_progress();

    let python = match &venv {
        Some(prefix) => prefix.join("bin").join("python").display().to_string(),
        None => "python3".to_string(),
    };
    let out_dir = match &args.out_dir {
        Some(dir) => Some(std::path::absolute(dir).into_diagnostic()?),
        None => None,
    };
    let mut shown = Vec::new();
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
        if let Some(dir) = &dir {
            let spec = crate::verify::select(Some(plan), &inventory, &policy, false);
            write_plan_files(dir, plan, &spec, &python, index_url.as_deref())?;
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
        write_atomic(
            &root.join("proposal.json"),
            json::to_json(&proposal).as_bytes(),
        )?;
    }

    match args.format {
        PlanFormat::Text => printer.out(&text::render(&proposal, &shown, printer.color())),
        PlanFormat::Json => printer.out(&json::to_json(&proposal)),
        PlanFormat::Markdown => printer.out(&markdown::render(&proposal, &shown)),
    }
    Ok(exit_status(&proposal, max_risk, printer))
}

fn exit_status(proposal: &Proposal, max_risk: Option<RiskLevel>, printer: &Printer) -> ExitStatus {
    let Some(best) = proposal.plans.first() else {
        return ExitStatus::UserActionRequired;
    };
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

fn parse_targets(targets: &[String]) -> miette::Result<Vec<Requirement>> {
    let mut parsed: Vec<Requirement> = Vec::new();
    for text in targets {
        let requirement = Requirement::from_str(text).map_err(|err| {
            miette!(
                help =
                    "targets are PEP 508 requirements: `triton==3.7.0`, `numpy>=2`, `transformers`",
                "invalid target `{}`: {err}",
                text.escape_default()
            )
        })?;
        if matches!(requirement.version_or_url, Some(VersionOrUrl::Url(_))) {
            return Err(miette!(
                help = "name a version instead and serve the file from an index",
                "target `{}` is a direct URL; propose plans from an index only",
                requirement.name
            ));
        }
        if parsed.iter().any(|p| p.name == requirement.name) {
            return Err(miette!(
                help = "combine the specifiers into one target: `name>=1,<2`",
                "`{}` is named twice among the targets",
                requirement.name
            ));
        }
        parsed.push(requirement);
    }
    Ok(parsed)
}

/// `1-move-blockers`.
fn plan_dir_name(i: usize, plan: &Plan) -> String {
    format!("{}-{}", i + 1, plan.kind)
}

/// Write one plan's files into `dir`.
fn write_plan_files(
    dir: &Path,
    plan: &Plan,
    spec: &crate::verify::VerifySpec,
    python: &str,
    index_url: Option<&str>,
) -> miette::Result<()> {
    std::fs::create_dir_all(dir)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot create `{}`", dir.display()))?;
    let files = commands::install_files(
        plan,
        &CommandSettings {
            python: python.to_string(),
            index_url: index_url.map(str::to_string),
            files_dir: None,
            constraints: true,
        },
    )?;
    write_atomic(&dir.join("plan.json"), json::to_json(plan).as_bytes())?;
    write_atomic(&dir.join("constraints.txt"), files.constraints.as_bytes())?;
    write_atomic(&dir.join("overrides.txt"), files.overrides.as_bytes())?;
    write_executable(
        &dir.join("install-pip.sh"),
        commands::script(&files.pip, python, "pip").as_bytes(),
    )?;
    write_executable(
        &dir.join("install-uv.sh"),
        commands::script(&files.uv, python, "uv").as_bytes(),
    )?;
    write_executable(&dir.join("verify.py"), verify::script(spec).as_bytes())?;
    Ok(())
}

/// Write a file atomically: a temp file in the same folder, synced, then renamed over.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> miette::Result<()> {
    persist(path, bytes, false)
}

fn write_executable(path: &Path, bytes: &[u8]) -> miette::Result<()> {
    persist(path, bytes, true)
}

fn persist(path: &Path, bytes: &[u8], executable: bool) -> miette::Result<()> {
    let dir: PathBuf = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let fail = |err: std::io::Error| miette!("cannot write `{}`: {err}", path.display());
    let mut file = tempfile::NamedTempFile::new_in(&dir).map_err(fail)?;
    file.write_all(bytes).map_err(fail)?;
    file.as_file().sync_all().map_err(fail)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = if executable { 0o755 } else { 0o644 };
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(fail)?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    file.persist(path).map_err(|err| fail(err.error))?;
    Ok(())
}
