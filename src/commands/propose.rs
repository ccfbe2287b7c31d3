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
//! DIR/plans/<n>-<kind>/rollback-pip.sh   put back what the plan changes, adds or removes
//! DIR/plans/<n>-<kind>/rollback-uv.sh
//! ```
//!
//! A layered `--all` names each folder after its layer (`1-safe`, `2-torch-stack`,
//! `3-major-huggingface-hub`) and adds `pr.md`, the layer's pull request body.
//!
//! Exit codes: 0 a plan was found; 1 no plan, or the recommended plan's risk is above
//! `--max-risk`; 2 the tool failed.

use std::path::{Path, PathBuf};

use crate::ExitStatus;
use crate::index::{Index, IndexLocation};
use crate::inventory::{self, EnvironmentOrigin, EnvironmentSelection};
use crate::out_dir::OutFiles;
use crate::plan::{self, Plan, PlanCommandLines, PlanKind, Proposal, ProposeRequest};
use crate::printer::Printer;
use crate::render::commands::{self, CommandOptions};
use crate::render::text::PlanCommands;
use crate::render::{json, layers, markdown, rollback, text, trial};
use crate::risk::RiskLevel;
use crate::settings::{OutputFormat, ProposeSettings};

/// Run `planner propose`.
pub(crate) fn run(args: &ProposeSettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let inventory = load_own_target(&args.environment)?;
    inventory.report(printer);
    let mut settings = args
        .index
        .resolve(inventory.environment.prefix.as_deref())?;
    // Only the files that can change an answer for this environment are read (`FileFilter`).
    settings.target_tags = Some(inventory.environment.tags.clone());
    let index_url = first_index_url(&settings);
    let index = Index::new(settings, printer)?;
    let request = propose_request(args, &inventory, printer);
    let mut proposal = plan::propose(&index, &inventory, &args.policy, &request)?;
    let pep668 = inventory.environment.externally_managed().map(pep668_note);
    proposal
        .warnings
        .extend(pep668.iter().map(|lines| lines.join(" ")));
    index.finish_progress();
    let suspect = super::suspect_lines(&index);
    proposal.warnings.extend(suspect.iter().cloned());

    let python = scripts_python(&inventory);
    proposal
        .warnings
        .extend(interpreter_note(&inventory, &python));
    let shown = plan_outputs(
        &mut proposal,
        args,
        &inventory,
        &python,
        index_url.as_deref(),
    )?;

    // In text, the proposal's warnings are diagnostics: stderr, silenced by -q. JSON and
    // markdown carry them as data (printed once, there).
    if args.format == OutputFormat::Text {
        for warning in &proposal.warnings {
            printer.warn(warning);
        }
    }
    let tried = match &args.trial {
        Some(trial) => {
            let python = match &inventory.environment.origin {
                EnvironmentOrigin::Interpreter { python, .. } => Some(python.as_path()),
                _ => None,
            };
            let venv = inventory.environment.prefix.as_deref();
            try_plans(&proposal, venv, python, trial, &args.policy, printer)?
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

/// The first index as the commands name it: without credentials or a `?token=` query (the
/// scripts read the whole URL from `$PLANNER_INDEX_URL` at run time), a local folder as a
/// `file:` URL.
pub(crate) fn first_index_url(settings: &crate::index::IndexSettings) -> Option<String> {
    settings
        .indexes
        .first()
        .and_then(|location| match location {
            IndexLocation::Http(url) => {
                Some(crate::index::auth::without_secrets(&url.without_credentials()).to_string())
            }
            IndexLocation::Local(path) => std::path::absolute(path)
                .ok()
                .and_then(|p| url::Url::from_directory_path(p).ok())
                .map(|u| u.to_string()),
        })
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

/// The interpreter the written scripts run. Absolute, so that they work from any directory. A
/// bare interpreter's prefix often has no `bin/python` (Debian's /usr has python3 only): the
/// interpreter that answered is named then.
fn scripts_python(inventory: &inventory::Inventory) -> PathBuf {
    let answered = match &inventory.environment.origin {
        EnvironmentOrigin::Interpreter { python, .. } => Some(python.clone()),
        _ => None,
    };
    match &inventory.environment.prefix {
        Some(prefix) => {
            let python = prefix.join("bin").join("python");
            let python = match answered {
                Some(answered) if !python.exists() => answered,
                _ => python,
            };
            std::path::absolute(&python).unwrap_or(python)
        }
        None => PathBuf::from("python3"),
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
            OutputFormat::Text => printer.out(&trial::proposal_text(proposal, tried)),
            OutputFormat::Markdown => printer.out(&trial::proposal_markdown(proposal, tried)),
            OutputFormat::Json => {}
        }
    }
    Ok(())
}

/// `--try`: each plan (or the first N) tried in a copy of the venv, in order.
fn try_plans(
    proposal: &Proposal,
    venv: Option<&Path>,
    python: Option<&Path>,
    settings: &crate::settings::ProposeTrial,
    policy: &crate::risk::Policy,
    printer: &Printer,
) -> miette::Result<Vec<Option<crate::trial::Tried>>> {
    let original = match (venv.filter(|v| v.join("pyvenv.cfg").is_file()), python) {
        (Some(venv), _) => super::try_::Chosen::Venv(venv.to_path_buf()),
        (None, Some(python)) => super::try_::Chosen::Interpreter(python.to_path_buf()),
        (None, None) => {
            return Err(miette::miette!(
                help = "--try needs the environment on this machine: pass --venv DIR or \
                        --python P (or drop --try)",
                "--try cannot try plans made from a snapshot"
            ));
        }
    };
    let original = super::try_::Original::of(original);
    let critical = crate::interrupt::Critical::enter();
    let top = settings.top.unwrap_or(usize::MAX);
    let mut tried = Vec::new();
    for (i, plan) in proposal.plans.iter().enumerate() {
        if i >= top {
            tried.push(None);
            continue;
        }
        printer.note(&format!(
            "trying plan {} ({}) in a copy of {}",
            i + 1,
            plan.kind,
            original.path().display()
        ));
        let one = super::try_::try_plan(
            plan,
            &original,
            &super::try_::TrialSettings {
                tests: &settings.tests,
                keep: None,
                index_url: None,
                policy,
                run: &settings.run,
            },
            &critical,
            printer,
        )?;
        tried.push(Some(one));
    }
    Ok(tried)
}

/// Each plan's commands (put into the plan, for JSON, and returned as text to show), and with
/// `--out-dir` its files and `proposal.json`, written all together.
fn plan_outputs(
    proposal: &mut Proposal,
    args: &ProposeSettings,
    inventory: &inventory::Inventory,
    python: &Path,
    index_url: Option<&str>,
) -> miette::Result<Vec<PlanCommands>> {
    let mut notes = (inventory.environment.externally_managed())
        .map(pep668_note)
        .unwrap_or_default();
    let pip_outside = lacks_pip(inventory);
    notes.extend(interpreter_note(inventory, python));
    let base = CommandOptions {
        python: python.display().to_string(),
        index_url: index_url.map(str::to_string),
        files_dir: None,
        constraints: true,
        allow_build: args.allow_build,
        pip_outside,
    };
    let out_dir = args.out_dir.as_ref();
    let mut shown = Vec::new();
    let mut out_files = OutFiles::default();
    for (i, plan) in proposal.plans.iter_mut().enumerate() {
        let dir = out_dir
            .as_ref()
            .map(|root| root.join("plans").join(plan_dir_name(i, plan)));
        let files_dir = dir.as_ref().map(|d| d.display().to_string());
        let files = commands::install_files(
            plan,
            &CommandOptions {
                files_dir: files_dir.clone(),
                constraints: dir.is_some(),
                ..base.clone()
            },
        )?;
        plan.commands = Some(command_lines(&files, dir.is_none()));
        if dir.is_some() {
            let relative = Path::new("plans").join(plan_dir_name(i, plan));
            let spec = crate::verify::select(Some(plan), inventory, &args.policy, false);
            plan_files(
                &mut out_files,
                &relative,
                plan,
                inventory,
                &spec,
                python,
                &base,
                &notes,
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
        if layers::is_layered(proposal) {
            for (i, plan) in proposal.plans.iter().enumerate() {
                let body = layers::pull_request(proposal, i, plan, shown.get(i));
                out_files.add(
                    Path::new("plans")
                        .join(plan_dir_name(i, plan))
                        .join("pr.md"),
                    body,
                );
            }
        }
        out_files.add("proposal.json", json::to_json(&*proposal)?);
        out_files.commit(root)?;
    }
    Ok(shown)
}

/// The environment, refusing `--python-version` / `--python-platform` when they name another
/// Python or platform than its own: a plan changes the environment it reads, and its commands
/// install with that environment's interpreter, so a plan for Python 3.12 made from a 3.10 venv
/// would hand pip wheels it refuses. (A patch release of the same X.Y is the same target.)
fn load_own_target(selection: &EnvironmentSelection) -> miette::Result<inventory::Inventory> {
    let own = inventory::load(&EnvironmentSelection {
        python_version: None,
        python_platform: None,
        ..selection.clone()
    })?;
    let planned = inventory::apply_overrides(
        own.clone(),
        selection.python_version.as_ref(),
        selection.python_platform.as_ref(),
    )?;
    let (was, is) = (&own.environment.markers, &planned.environment.markers);
    let python_differs = was.python_version() != is.python_version();
    let platform_differs =
        was.sys_platform() != is.sys_platform() || was.platform_machine() != is.platform_machine();
    if !python_differs && !platform_differs {
        return Ok(planned);
    }
    let asked = match (python_differs, platform_differs) {
        (true, true) => format!(
            "Python {} on {} {}",
            is.python_version(),
            is.sys_platform(),
            is.platform_machine()
        ),
        (true, false) => format!("Python {}", is.python_version()),
        _ => format!("{} {}", is.sys_platform(), is.platform_machine()),
    };
    Err(miette::miette!(
        help = "drop --python-version / --python-platform to plan for this environment; to plan \
                for another Python or platform, read an environment of it (`--venv` of such a \
                venv, or `--from-snapshot` of one), or resolve requirements for it with \
                `planner resolve --python-version X.Y REQ...`",
        "propose plans for the environment it reads, whose interpreter is Python {} on {} {}; \
         a plan for {asked} cannot be installed with it",
        own.environment.python_version,
        was.sys_platform(),
        was.platform_machine()
    ))
}

/// Whether the environment has no pip of its own (a venv made by `uv venv`), so that
/// `PY -m pip` cannot run there.
fn lacks_pip(inventory: &inventory::Inventory) -> bool {
    let pip = pep508_rs::PackageName::new("pip".to_string()).expect("a valid name");
    inventory.get(&pip).is_none()
}

/// What the proposal and each install script say about the interpreter the commands name: that
/// it is absent (an environment read from its metadata alone, as the venvs shipped in
/// `testdata/` are: the commands are for the machine where it lives and cannot run here), or
/// that it has no pip of its own.
fn interpreter_note(inventory: &inventory::Inventory, python: &Path) -> Option<String> {
    let read_without_interpreter = matches!(
        inventory.environment.origin,
        EnvironmentOrigin::PyvenvCfg { .. }
    );
    if read_without_interpreter && !python.exists() {
        return Some(format!(
            "{} does not exist: this environment was read from its metadata alone (pyvenv.cfg \
             and site-packages, no interpreter), so the pip and uv commands below are for the \
             machine where it lives with its interpreter, and cannot run here.",
            python.display()
        ));
    }
    lacks_pip(inventory).then(|| no_pip_note(python))
}

/// What the proposal and each install script say when the environment has no pip.
fn no_pip_note(python: &Path) -> String {
    format!(
        "{} has no pip installed (venvs made by `uv venv` have none): the pip commands run the \
         pip of `python3` against it (`python3 -m pip --python`, pip 22.3 or newer); the uv \
         commands need no pip.",
        python.display()
    )
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

/// A plan's commands as data (`propose --format json`): each step's argv, and, when no
/// `--out-dir` wrote them, the files the steps name.
fn command_lines(files: &commands::InstallFiles, inline: bool) -> PlanCommandLines {
    let steps = files.pip.iter().chain(&files.uv).flatten();
    let uses = |name: &str| steps.clone().any(|token| token == name);
    let mut named = std::collections::BTreeMap::new();
    if inline {
        for (name, content) in [
            ("constraints.txt", &files.constraints),
            ("overrides.txt", &files.overrides),
        ] {
            if uses(name) {
                named.insert(name.to_string(), content.clone());
            }
        }
    }
    PlanCommandLines {
        pip: files.pip.clone(),
        uv: files.uv.clone(),
        files: named,
    }
}

/// `1-move-blockers`; a layer's plan `1-safe`, `2-torch-stack`.
fn plan_dir_name(i: usize, plan: &Plan) -> String {
    match &plan.layer {
        Some(layer) => format!("{}-{}", i + 1, layer.name),
        None => format!("{}-{}", i + 1, plan.kind),
    }
}

/// One plan's files, under `dir` (relative to the output folder), its commands written with
/// `settings`. `notes` head the install scripts as comments (the PEP 668 and no-pip notes).
#[allow(clippy::too_many_arguments)] // each is one plain input of the files written
fn plan_files(
    out: &mut OutFiles,
    dir: &Path,
    plan: &Plan,
    inventory: &inventory::Inventory,
    spec: &crate::verify::VerifySpec,
    python: &Path,
    settings: &CommandOptions,
    notes: &[String],
) -> miette::Result<()> {
    let files = commands::install_files(plan, settings)?;
    let back = rollback::rollback(plan, inventory, settings)?;
    out.add_executable(
        dir.join("rollback-pip.sh"),
        rollback::script(&back, &back.pip, python, "pip"),
    );
    out.add_executable(
        dir.join("rollback-uv.sh"),
        rollback::script(&back, &back.uv, python, "uv"),
    );
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
    out.add_executable(dir.join("verify.py"), crate::verify::script::script(spec));
    Ok(())
}
