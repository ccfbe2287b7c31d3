//! `planner try PLAN`: apply a plan in a throw-away copy of the environment and measure it.
//!
//! Reads the plan (a plan.json or a plan folder), finds the venv (`--venv`, `--python`, the
//! venv the plan's commands name, `$VIRTUAL_ENV`, `./.venv`), copies it ([`VenvCopy`]), reads
//! the COPY's inventory (the probe runs Python, which must not run in the original), refuses a
//! plan made from other versions than the copy holds, selects the plan's checks there, renders
//! the install steps for the copy's interpreter (uv when on PATH, else pip), and hands all of
//! it to [`trial::measure`]. The whole run is one interrupt critical section: Ctrl-C kills the
//! running child, removes the copy and exits 130.
//!
//! Exit codes: 0 applied, nothing regressed; 1 a regression (each named); 2 it could not be
//! tried (why), or the tool failed.

use std::path::{Path, PathBuf};

use miette::miette;
use pep508_rs::PackageName;

use crate::ExitStatus;
use crate::interrupt::Critical;
use crate::inventory::{self, Inventory};
use crate::plan::Plan;
use crate::printer::Printer;
use crate::render::commands::{self, CommandOptions};
use crate::render::trial as render;
use crate::settings::{OutputFormat, TrySettings};
use crate::trial::{self, Installer, TrialInput, TrialOutcome, Tried, VenvCopy, Verdict};

/// Run `planner try`.
pub(crate) fn run(args: &TrySettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let plan_file = plan_file(&args.plan);
    let plan = crate::plan::read_plan(&plan_file)?;
    let original = original_venv(args, &plan)?;
    let critical = Critical::enter();
    let tried = try_plan(
        &plan,
        &original,
        &TrialSettings {
            tests: &args.tests,
            keep: args.keep.as_deref(),
            index_url: args.index_url.as_deref(),
            policy: &args.policy,
            run: &args.run,
        },
        &critical,
        printer,
    )?;
    let report = render::TryReport::new(&plan, &plan_file, &original, tried);
    match args.format {
        OutputFormat::Json => printer.out(&crate::render::json::to_json(&report)?),
        OutputFormat::Markdown => printer.out(&render::markdown(&report)),
        OutputFormat::Text => printer.out(&render::text(&report)),
    }
    Ok(exit_status(&report))
}

/// What trying one plan needs besides the plan and the venv.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TrialSettings<'a> {
    /// `--test` command lines.
    pub tests: &'a [String],
    /// `--keep DIR`.
    pub keep: Option<&'a Path>,
    /// `--index-url` (else the plan's own).
    pub index_url: Option<&'a str>,
    /// The policy whose smoke tests run.
    pub policy: &'a crate::risk::Policy,
    /// Passed through to `verify.py`.
    pub run: &'a crate::verify::run::RunOptions,
}

/// Copy `original`, try `plan` in the copy, remove the copy (unless kept). An interrupt inside
/// `critical` ends it with [`trial::TrialError::Interrupted`] after the copy is removed.
pub(crate) fn try_plan(
    plan: &Plan,
    original: &Path,
    settings: &TrialSettings<'_>,
    critical: &Critical,
    printer: &Printer,
) -> miette::Result<Tried> {
    let changed: Vec<PackageName> = plan.changes.iter().map(|c| c.name.clone()).collect();
    let copy = VenvCopy::make(original, &changed, settings.keep)?;
    printer.note(&render::copy_line(&copy));
    if critical.interrupted() {
        return Err(trial::TrialError::Interrupted.into());
    }
    let inventory = inventory::load_venv(&copy.root)?;
    if let Some(drift) = drift(plan, &inventory) {
        return Err(miette!(
            help = "make the plan again from the environment as it is now (`planner propose`)",
            "`{}` no longer matches the plan ({}): {drift}",
            original.display(),
            plan.title
        ));
    }
    let spec = crate::verify::select(Some(plan), &inventory, settings.policy, false);
    let script = crate::render::verify::script(&spec);
    let work = tempfile::Builder::new()
        .prefix("planner-try-work-")
        .tempdir()
        .map_err(|err| miette!("cannot make a temp folder: {err}"))?;
    let installer = if inventory::find_on_path("uv").is_some() {
        Installer::Uv
    } else {
        Installer::Pip
    };
    let steps = install_steps(plan, settings.index_url, &copy, installer, work.path())?;
    let outcome = if installer == Installer::Pip && inventory.get(&pip_name()).is_none() {
        not_tried(
            installer,
            "no uv on PATH and no pip in the environment: nothing can apply the plan \
             (install uv, or pip into the venv)",
        )
    } else {
        trial::measure(
            &copy,
            &TrialInput {
                script: &script,
                installer,
                steps: &steps,
                tests: settings.tests,
                verify: settings.run.clone(),
                work: work.path(),
            },
            critical,
        )?
    };
    let tried = Tried {
        outcome,
        copy_path: copy.kept().then(|| copy.root.clone()),
        copy: copy.stats.clone(),
        original: trial::OriginalCheck {
            checked: copy.linked_count(),
            changed: copy.linked_changed(),
        },
    };
    if copy.kept() {
        printer.note(&format!("the copy is kept in {}", copy.root.display()));
    } else {
        copy.discard()
            .map_err(|err| miette!("cannot remove the copy: {err}"))?;
    }
    Ok(tried)
}

fn exit_status(report: &render::TryReport<'_>) -> ExitStatus {
    if !report.tried.original.changed.is_empty() {
        return ExitStatus::Error;
    }
    match report.tried.outcome.verdict {
        Verdict::Clean => ExitStatus::Success,
        Verdict::Regressed => ExitStatus::UserActionRequired,
        Verdict::NotTried => ExitStatus::Error,
    }
}

/// A plan folder's `plan.json`, or the file itself.
fn plan_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("plan.json")
    } else {
        path.to_path_buf()
    }
}

fn pip_name() -> PackageName {
    PackageName::new("pip".to_string()).expect("a valid name")
}

/// The venv to copy: `--venv`, the venv of `--python`, the venv whose interpreter the plan's
/// commands name, `$VIRTUAL_ENV`, `./.venv`.
fn original_venv(args: &TrySettings, plan: &Plan) -> miette::Result<PathBuf> {
    if let Some(venv) = &args.venv {
        return require_venv(venv, "--venv");
    }
    if let Some(python) = &args.python {
        return match venv_of_interpreter(python) {
            Some(venv) => Ok(venv),
            None => Err(miette!(
                help = "try copies a virtual environment: pass --venv DIR, or --python with a \
                        venv's bin/python (a system or conda interpreter cannot be copied; make \
                        a venv of it first)",
                "`{}` is not the interpreter of a virtual environment (no pyvenv.cfg beside \
                 its bin/)",
                python.display()
            )),
        };
    }
    let planned = plan
        .commands
        .as_ref()
        .and_then(|c| c.pip.first())
        .and_then(|step| step.first())
        .and_then(|python| venv_of_interpreter(Path::new(python)));
    if let Some(venv) = planned {
        return Ok(venv);
    }
    if let Some(venv) = &args.active_venv {
        return require_venv(venv, "$VIRTUAL_ENV");
    }
    if Path::new(".venv/pyvenv.cfg").is_file() {
        return Ok(PathBuf::from(".venv"));
    }
    Err(miette!(
        help = "name it with --venv DIR (or --python DIR/bin/python)",
        "which environment to try the plan in? The plan does not name a venv that exists, \
         $VIRTUAL_ENV is not set and there is no ./.venv"
    ))
}

pub(crate) fn require_venv(venv: &Path, from: &str) -> miette::Result<PathBuf> {
    if venv.join("pyvenv.cfg").is_file() {
        Ok(venv.to_path_buf())
    } else {
        Err(miette!(
            help = "try copies a virtual environment (a folder with pyvenv.cfg and bin/python)",
            "`{}` ({from}) is not a virtual environment: it has no pyvenv.cfg",
            venv.display()
        ))
    }
}

/// `V` for `V/bin/python` when `V/pyvenv.cfg` exists (the path as given, links not resolved:
/// a venv's python is a link to the base interpreter).
pub(crate) fn venv_of_interpreter(python: &Path) -> Option<PathBuf> {
    let venv = std::path::absolute(python)
        .ok()?
        .parent()?
        .parent()?
        .to_path_buf();
    venv.join("pyvenv.cfg").is_file().then_some(venv)
}

/// The changes whose installed version is not the plan's `from`, said in words.
fn drift(plan: &Plan, inventory: &Inventory) -> Option<String> {
    let at = |v: Option<&pep440_rs::Version>| {
        v.map_or("not installed".to_string(), |v| format!("at {v}"))
    };
    let drifted: Vec<String> = plan
        .changes
        .iter()
        .filter_map(|change| {
            let installed = inventory.get(&change.name).map(|d| d.version());
            (installed != change.from.as_ref()).then(|| {
                format!(
                    "{} is {} there, but {} when the plan was made",
                    change.name,
                    at(installed),
                    at(change.from.as_ref())
                )
            })
        })
        .collect();
    (!drifted.is_empty()).then(|| drifted.join("; "))
}

/// The plan's steps for the copy's interpreter, with `constraints.txt` and `overrides.txt`
/// written into `work`. The index and the binary rule are the ones the plan was made with
/// (read from its commands), unless `--index-url` names another index.
fn install_steps(
    plan: &Plan,
    index_url: Option<&str>,
    copy: &VenvCopy,
    installer: Installer,
    work: &Path,
) -> miette::Result<Vec<Vec<String>>> {
    let planned: Vec<&Vec<String>> = plan.commands.iter().flat_map(|c| c.pip.iter()).collect();
    let index_url = index_url.map(str::to_string).or_else(|| {
        planned.iter().find_map(|step| {
            step.windows(2)
                .find(|pair| pair[0] == "--index-url")
                .map(|pair| pair[1].clone())
        })
    });
    let installs: Vec<&&Vec<String>> = planned
        .iter()
        .filter(|step| step.get(3).is_some_and(|t| t == "install"))
        .collect();
    let allow_build = !installs.is_empty()
        && installs
            .iter()
            .all(|s| !s.iter().any(|t| t == "--only-binary"));
    let files = commands::install_files(
        plan,
        &CommandOptions {
            python: copy.python().display().to_string(),
            index_url,
            files_dir: Some(work.display().to_string()),
            constraints: true,
            allow_build,
        },
    )?;
    for (name, content) in [
        ("constraints.txt", &files.constraints),
        ("overrides.txt", &files.overrides),
    ] {
        std::fs::write(work.join(name), content)
            .map_err(|err| miette!("cannot write {name} in {}: {err}", work.display()))?;
    }
    Ok(match installer {
        Installer::Uv => files.uv,
        Installer::Pip => files.pip,
    })
}

fn not_tried(installer: Installer, reason: &str) -> TrialOutcome {
    TrialOutcome {
        verdict: Verdict::NotTried,
        reason: Some(reason.to_string()),
        installer,
        steps: Vec::new(),
        baseline: None,
        verify: None,
        failed: Vec::new(),
        report: None,
        tests: Vec::new(),
        regressions: Vec::new(),
        seconds: 0.0,
    }
}
