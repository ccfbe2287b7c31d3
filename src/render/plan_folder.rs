//! Each plan's commands and files: the pip and uv steps shown under a plan and put into it (for
//! JSON), and with `propose --out-dir DIR` the plan folders, written all together or not at
//! all by the caller ([`crate::out_dir`]: staged, synced, renamed; Ctrl-C while staging leaves
//! the previous files as they were):
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
//! In: the [`Proposal`], the environment read, the interpreter the scripts run
//! ([`scripts_python`]) and the first index ([`first_index_url`]). Out: the commands to show
//! ([`PlanCommands`]) and the [`OutFiles`]; also the notes the proposal and each install script
//! carry about that environment ([`pep668_note`], [`interpreter_note`]).

use std::path::{Path, PathBuf};

use crate::index::IndexLocation;
use crate::inventory::{self, EnvironmentOrigin};
use crate::out_dir::OutFiles;
use crate::plan::{InstallSteps, Plan, PlanCommandLines, Proposal};
use crate::render::commands::{self, CommandOptions};
use crate::render::text::PlanCommands;
use crate::render::{json, layers, rollback};
use crate::risk::Policy;

/// What the plans' commands and folders are written with, besides the proposal and the
/// environment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FolderOptions<'a> {
    /// `--out-dir`: the folder the plan folders and `proposal.json` go to.
    pub out_dir: Option<&'a Path>,
    /// `--allow-build`.
    pub allow_build: bool,
    /// The policy whose smoke tests each `verify.py` runs.
    pub policy: &'a Policy,
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

/// The interpreter the written scripts run. Absolute, so that they work from any directory. A
/// bare interpreter's prefix often has no `bin/python` (Debian's /usr has python3 only): the
/// interpreter that answered is named then.
pub(crate) fn scripts_python(inventory: &inventory::Inventory) -> PathBuf {
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

/// Each plan's commands (put into the plan, for JSON, and returned as text to show), and with
/// `--out-dir` its files and `proposal.json`, to be written all together ([`OutFiles::commit`]).
pub(crate) fn plan_outputs(
    proposal: &mut Proposal,
    options: &FolderOptions<'_>,
    inventory: &inventory::Inventory,
    python: &Path,
    index_url: Option<&str>,
) -> miette::Result<(Vec<PlanCommands>, OutFiles)> {
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
        allow_build: options.allow_build,
        pip_outside,
    };
    let out_dir = options.out_dir;
    let mut shown = Vec::new();
    let mut out_files = OutFiles::default();
    for (i, plan) in proposal.plans.iter_mut().enumerate() {
        let dir = out_dir
            .as_ref()
            .map(|root| root.join("plans").join(plan_dir_name(i, plan)));
        let files_dir = dir.as_ref().map(|d| d.display().to_string());
        // The index as the commands name it (checked: no credentials), kept in the steps.
        let index = index_url.map(crate::render::safe::index_url).transpose()?;
        let steps = InstallSteps {
            python: Some(base.python.clone()),
            ..InstallSteps::of(&plan.changes, index, options.allow_build)
        };
        let files = commands::steps_files(
            plan,
            &steps,
            &CommandOptions {
                files_dir: files_dir.clone(),
                constraints: dir.is_some(),
                ..base.clone()
            },
        )?;
        plan.install = Some(steps);
        plan.commands = Some(command_lines(&files, dir.is_none()));
        if dir.is_some() {
            let relative = Path::new("plans").join(plan_dir_name(i, plan));
            let spec = crate::verify::select(Some(plan), inventory, options.policy, false);
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
    if out_dir.is_some() {
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
    }
    Ok((shown, out_files))
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
pub(crate) fn interpreter_note(inventory: &inventory::Inventory, python: &Path) -> Option<String> {
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
pub(crate) fn pep668_note(marker: &Path) -> Vec<String> {
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
