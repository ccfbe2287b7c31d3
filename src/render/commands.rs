//! The pip and uv commands (and their files) that carry one plan out.
//!
//! For a plan, both installers get the same files:
//! - `constraints.txt`: every dist of the planned environment as `name==version` (the plan's
//!   pins), except the overridden dists, whose pins would contradict their dependents;
//! - `overrides.txt`: exactly the overridden requirements (`triton==3.7.0`), for uv.
//!
//! pip: `python -m pip install -c constraints.txt -- <changed pins>`, then, for the overridden
//! dists only, `python -m pip install --force-reinstall --no-deps -- <forced pins>` (pip has no
//! overrides; `--no-deps` keeps the rest of the environment as planned). Local-build switches
//! (`2.11.0+cu130` to `2.11.0`) are reinstalled the same way, since pip counts the installed
//! local build as satisfying `==2.11.0`. Removals are `pip uninstall -y`. An environment with no
//! pip of its own (a venv made by uv) gets `python3 -m pip --python PY` in place of `PY -m pip`.
//!
//! uv: `uv pip install --python PY --constraints constraints.txt --overrides overrides.txt --
//! <changed pins>`; removals with `uv pip uninstall`.
//!
//! Both refuse source builds (`--only-binary :all:`, `--no-build`) so no build code runs, the
//! rule `propose` plans under; `propose --allow-build` plans with sdists, and its commands
//! then leave both switches out. Every
//! token is quoted, names and versions are re-serialized from parsed values ([`safe`]), and
//! requirements follow `--`.

use std::fmt::Write as _;
use std::path::Path;

use pep508_rs::PackageName;

use super::safe::{self, UnsafeValue};
use crate::plan::{InstallSteps, Pin, Plan};

/// How the commands are written.
#[derive(Debug, Clone, Default)]
pub(crate) struct CommandOptions {
    /// The environment's interpreter (`/path/venv/bin/python`).
    pub python: String,
    /// `--index-url` to pass (checked: no credentials), when the user chose one.
    pub index_url: Option<String>,
    /// Where `constraints.txt` and `overrides.txt` are (`None`: the commands write them first).
    pub files_dir: Option<String>,
    /// Pass `constraints.txt` (pins for the whole planned environment). Off for commands pasted
    /// from a terminal without `--out-dir`: the changed pins alone reach the same environment,
    /// because every other dist already satisfies the plan.
    pub constraints: bool,
    /// `propose --allow-build`: the commands may build sdists (no `--only-binary :all:`, no
    /// `--no-build`), as the plan was made with them.
    pub allow_build: bool,
    /// The environment has no pip of its own (a venv made by uv): the pip commands run the pip
    /// of `python3` against it (`python3 -m pip --python PY`, pip 22.3 or newer), where
    /// `PY -m pip` would stop at "No module named pip".
    pub pip_outside: bool,
}

impl CommandOptions {
    /// The start of every pip command: `PY -m pip`, or `python3 -m pip --python PY`.
    pub(crate) fn pip(&self) -> Vec<String> {
        if self.pip_outside {
            let outer = ["python3", "-m", "pip", "--python"];
            let mut argv: Vec<String> = outer.iter().map(|t| t.to_string()).collect();
            argv.push(self.python.clone());
            argv
        } else {
            vec![self.python.clone(), "-m".into(), "pip".into()]
        }
    }
}

/// One plan's install files and commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InstallFiles {
    /// `constraints.txt`.
    pub constraints: String,
    /// `overrides.txt` (empty when nothing is overridden).
    pub overrides: String,
    /// pip commands, one argv per step (tokens unquoted).
    pub pip: Vec<Vec<String>>,
    /// uv commands, one argv per step (tokens unquoted).
    pub uv: Vec<Vec<String>>,
}

/// The files and steps for one plan, its install steps made with `settings`' index and build
/// rule.
pub(crate) fn install_files(
    plan: &Plan,
    settings: &CommandOptions,
) -> Result<InstallFiles, UnsafeValue> {
    let steps = InstallSteps::of(
        &plan.changes,
        settings.index_url.clone(),
        settings.allow_build,
    );
    steps_files(plan, &steps, settings)
}

/// The files and commands that carry out `steps`, the plan's install steps: the index and the
/// build rule are the steps' own, the rest (interpreter, where the files are, ...) `settings`'.
pub(crate) fn steps_files(
    plan: &Plan,
    steps: &InstallSteps,
    settings: &CommandOptions,
) -> Result<InstallFiles, UnsafeValue> {
    let settings = &CommandOptions {
        index_url: steps.index_url.clone(),
        allow_build: steps.allow_build,
        ..settings.clone()
    };
    let (constraints, overrides) = pin_files(plan)?;
    let sorted = Sorted::of(steps)?;
    let index = index_args(settings)?;
    Ok(InstallFiles {
        pip: pip_steps(&sorted, settings, &index),
        uv: uv_steps(&sorted, settings, &index, !overrides.is_empty()),
        constraints,
        overrides,
    })
}

/// `constraints.txt` (every planned pin but the overridden ones) and `overrides.txt` (the
/// overridden pins).
fn pin_files(plan: &Plan) -> Result<(String, String), UnsafeValue> {
    let overridden: Vec<&PackageName> = plan.overridden_packages();
    let mut constraints =
        String::from("# Constraints written by planner: every dist of the planned environment.\n");
    for (name, version) in &plan.pins {
        if overridden.contains(&name) {
            continue;
        }
        constraints.push_str(&safe::pin(name, version)?);
        constraints.push('\n');
    }
    let mut overrides = String::new();
    for name in &overridden {
        if let Some(version) = plan.pins.get(*name) {
            overrides.push_str(&safe::pin(name, version)?);
            overrides.push('\n');
        }
    }
    Ok((constraints, overrides))
}

/// A plan's install steps as safe tokens.
struct Sorted {
    /// Ordinary installs (`name==version`).
    installs: Vec<String>,
    /// Forced overrides.
    forced: Vec<String>,
    /// Same-version reinstalls (a local-build switch): name and pin.
    reinstall: Vec<(String, String)>,
    /// Removals (names).
    removals: Vec<String>,
}

impl Sorted {
    fn of(steps: &InstallSteps) -> Result<Sorted, UnsafeValue> {
        let pins = |pins: &[Pin]| -> Result<Vec<String>, UnsafeValue> {
            pins.iter()
                .map(|p| safe::pin(&p.name, &p.version))
                .collect()
        };
        Ok(Sorted {
            installs: pins(&steps.install)?,
            forced: pins(&steps.force)?,
            reinstall: steps
                .reinstall
                .iter()
                .map(|p| Ok((safe::name(&p.name)?, safe::pin(&p.name, &p.version)?)))
                .collect::<Result<_, UnsafeValue>>()?,
            removals: steps
                .remove
                .iter()
                .map(safe::name)
                .collect::<Result<_, UnsafeValue>>()?,
        })
    }

    /// The pins installed with `--force-reinstall --no-deps` by pip: forced, then reinstalled.
    fn forced_like(&self) -> impl Iterator<Item = String> + '_ {
        let reinstall = self.reinstall.iter().map(|(_, pin)| pin.clone());
        self.forced.iter().cloned().chain(reinstall)
    }
}

/// `--index-url URL` when the user chose one (checked: no credentials).
pub(super) fn index_args(settings: &CommandOptions) -> Result<Vec<String>, UnsafeValue> {
    Ok(match &settings.index_url {
        Some(url) => vec!["--index-url".into(), safe::index_url(url)?],
        None => vec![],
    })
}

/// Where one of the plan's files is, as the commands name it.
fn file(settings: &CommandOptions, name: &str) -> String {
    match &settings.files_dir {
        Some(dir) => format!("{}/{name}", dir.trim_end_matches('/')),
        None => name.to_string(),
    }
}

/// `PY -m pip install [--only-binary :all:] [--index-url URL]`.
pub(super) fn pip_install(settings: &CommandOptions, index: &[String]) -> Vec<String> {
    let mut argv = settings.pip();
    argv.push("install".into());
    if !settings.allow_build {
        argv.extend(["--only-binary".into(), ":all:".into()]);
    }
    argv.extend(index.iter().cloned());
    argv
}

/// `PY -m pip uninstall -y -- NAMES`.
pub(super) fn pip_uninstall(settings: &CommandOptions, names: &[String]) -> Vec<String> {
    let mut argv = settings.pip();
    argv.extend(["uninstall".into(), "-y".into(), "--".into()]);
    argv.extend(names.iter().cloned());
    argv
}

/// `uv pip install --python PY [--no-build] [--index-url URL]`.
pub(super) fn uv_install(settings: &CommandOptions, index: &[String]) -> Vec<String> {
    let mut argv: Vec<String> = vec![
        "uv".into(),
        "pip".into(),
        "install".into(),
        "--python".into(),
        settings.python.clone(),
    ];
    if !settings.allow_build {
        argv.push("--no-build".into());
    }
    argv.extend(index.iter().cloned());
    argv
}

/// `uv pip uninstall --python PY -- NAMES`.
pub(super) fn uv_uninstall(settings: &CommandOptions, names: &[String]) -> Vec<String> {
    let mut argv: Vec<String> = vec![
        "uv".into(),
        "pip".into(),
        "uninstall".into(),
        "--python".into(),
        settings.python.clone(),
        "--".into(),
    ];
    argv.extend(names.iter().cloned());
    argv
}

/// pip: the installs under the constraints, then the forced and reinstalled pins with
/// `--force-reinstall --no-deps`, then the removals.
fn pip_steps(sorted: &Sorted, settings: &CommandOptions, index: &[String]) -> Vec<Vec<String>> {
    let mut pip = Vec::new();
    if !sorted.installs.is_empty() {
        let mut argv = pip_install(settings, index);
        if settings.constraints {
            argv.extend(["-c".into(), file(settings, "constraints.txt")]);
        }
        argv.push("--".into());
        argv.extend(sorted.installs.iter().cloned());
        pip.push(argv);
    }
    let forced_like: Vec<String> = sorted.forced_like().collect();
    if !forced_like.is_empty() {
        let mut argv = pip_install(settings, index);
        argv.extend(["--force-reinstall".into(), "--no-deps".into(), "--".into()]);
        argv.extend(forced_like);
        pip.push(argv);
    }
    if !sorted.removals.is_empty() {
        pip.push(pip_uninstall(settings, &sorted.removals));
    }
    pip
}

/// uv: one install of every pin (constraints, overrides, same-version reinstalls named), then
/// the removals.
fn uv_steps(
    sorted: &Sorted,
    settings: &CommandOptions,
    index: &[String],
    overrides: bool,
) -> Vec<Vec<String>> {
    let mut uv = Vec::new();
    let requirements: Vec<String> = sorted
        .installs
        .iter()
        .cloned()
        .chain(sorted.forced_like())
        .collect();
    if !requirements.is_empty() {
        let mut argv = uv_install(settings, index);
        if settings.constraints {
            argv.extend(["--constraints".into(), file(settings, "constraints.txt")]);
        }
        if overrides {
            argv.extend(["--overrides".into(), file(settings, "overrides.txt")]);
        }
        for (name, _) in &sorted.reinstall {
            argv.extend(["--reinstall-package".into(), name.clone()]);
        }
        argv.push("--".into());
        argv.extend(requirements);
        uv.push(argv);
    }
    if !sorted.removals.is_empty() {
        uv.push(uv_uninstall(settings, &sorted.removals));
    }
    uv
}

/// One argv as a shell command line, every token quoted.
pub(crate) fn shell_line(argv: &[String]) -> String {
    argv.iter()
        .map(|token| safe::quote(token))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Commands to paste when no `--out-dir` was given: they write the two files first.
pub(crate) fn inline_steps(files: &InstallFiles, steps: &[Vec<String>]) -> String {
    let mut out = String::new();
    let uses = |name: &str| steps.iter().flatten().any(|t| t == name);
    for (name, content) in [
        ("constraints.txt", &files.constraints),
        ("overrides.txt", &files.overrides),
    ] {
        if uses(name) && !content.is_empty() {
            let lines: Vec<String> = content
                .lines()
                .filter(|l| !l.starts_with('#'))
                .map(safe::quote)
                .collect();
            let _ = writeln!(out, "printf '%s\\n' {} > {name}", lines.join(" "));
        }
    }
    for step in steps {
        out.push_str(&shell_line(step));
        out.push('\n');
    }
    out
}

/// A standalone script (`install-pip.sh` / `install-uv.sh`) for one installer's steps. The
/// files it names sit next to it; the interpreter comes from `$PLANNER_PYTHON` or the planned
/// venv, the index URL from `$PLANNER_INDEX_URL` or the credential-free URL planned against, so
/// credentials are read at run time (that variable, `~/.netrc`, a keyring), never written. With
/// `--verify`, it first records `verify.py --baseline verify-baseline.json`, and after
/// the steps runs `verify.py --compare` (report in `verify-report.json`), exiting 1 on a
/// regression; each `--test CMD` (implying `--verify`) is passed to both runs. `notes` become comment lines under the header (the PEP 668 note).
pub(crate) fn script(
    steps: &[Vec<String>],
    python_default: &Path,
    installer: &str,
    notes: &[String],
) -> String {
    let mut out = String::new();
    out.push_str("#!/usr/bin/env bash\n");
    let _ = writeln!(
        out,
        "# Written by planner: carry out one plan with {installer}. Review it before running."
    );
    for note in notes {
        // One comment line per note line: a newline in a note cannot end the comment.
        for line in note.lines() {
            let _ = writeln!(out, "# {line}");
        }
    }
    out.push_str("set -euo pipefail\n");
    out.push_str("HERE=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n");
    out.push_str(VERIFY_ARGS);
    // The defaults are plain single-quoted literals assigned first: inside `${VAR:-word}` bash
    // parses quotes and braces of the word itself, so a `'` or `}` in a path there broke the
    // script.
    // The path's own bytes (a venv path need not be UTF-8); the steps name it by its display
    // form, which `script_step` replaces with `"$PYTHON"`.
    let _ = writeln!(
        out,
        "PYTHON_DEFAULT={}",
        safe::literal_os(python_default.as_os_str())
    );
    out.push_str("PYTHON=\"${PLANNER_PYTHON:-$PYTHON_DEFAULT}\"\n");
    let shown = python_default.display().to_string();
    let index_url = steps.iter().find_map(|step| {
        step.windows(2)
            .find(|pair| pair[0] == "--index-url")
            .map(|pair| pair[1].clone())
    });
    if let Some(url) = &index_url {
        out.push_str(
            "# No credentials are written here: pip and uv read them from ~/.netrc or a keyring at\n\
             # run time, or set PLANNER_INDEX_URL to the index URL with them.\n",
        );
        let _ = writeln!(out, "INDEX_URL_DEFAULT={}", safe::literal(url));
        out.push_str("INDEX_URL=\"${PLANNER_INDEX_URL:-$INDEX_URL_DEFAULT}\"\n");
    }
    out.push_str(VERIFY_BEFORE);
    for step in steps {
        out.push_str(&script_step(step, &shown, index_url.as_deref()));
        out.push('\n');
    }
    out.push_str(&VERIFY_AFTER.replace("INSTALLER", installer));
    out
}

/// One step as a script line: the interpreter as `"$PYTHON"`, the index URL as `"$INDEX_URL"`,
/// the plan's files as `"$HERE/..."`, every other token quoted.
pub(super) fn script_step(
    step: &[String],
    python_default: &str,
    index_url: Option<&str>,
) -> String {
    let mut tokens = Vec::new();
    for (i, token) in step.iter().enumerate() {
        if token == python_default && (i == 0 || step.get(i - 1).is_some_and(|t| t == "--python")) {
            tokens.push("\"$PYTHON\"".to_string());
        } else if i > 0 && step[i - 1] == "--index-url" && Some(token.as_str()) == index_url {
            tokens.push("\"$INDEX_URL\"".to_string());
        } else if token == "constraints.txt" || token == "overrides.txt" {
            tokens.push(format!("\"$HERE/{token}\""));
        } else {
            tokens.push(safe::quote(token));
        }
    }
    tokens.join(" ")
}

/// `--verify` and `--rollback-on-regression` (which implies it) for the install scripts.
const VERIFY_ARGS: &str = r#"VERIFY=0
TESTS=()
ROLLBACK=0
while [ "$#" -gt 0 ]; do
  case "$1" in
    --verify) VERIFY=1 ;;
    --rollback-on-regression) VERIFY=1; ROLLBACK=1 ;;
    --test) [ "$#" -ge 2 ] || { echo "$0: --test needs a command" >&2; exit 2; }
      TESTS+=("--test=$2"); VERIFY=1; shift ;;
    --test=*) TESTS+=("$1"); VERIFY=1 ;;
    *) echo "usage: $0 [--verify] [--rollback-on-regression] [--test CMD]..." >&2; exit 2 ;;
  esac
  shift
done
"#;

/// `--verify`, before the steps: record the baseline.
const VERIFY_BEFORE: &str = r#"if [ "$VERIFY" = 1 ]; then
  echo "verify: recording the baseline in $HERE/verify-baseline.json" >&2
  "$PYTHON" "$HERE/verify.py" --baseline "$HERE/verify-baseline.json" ${TESTS[@]+"${TESTS[@]}"} >/dev/null
fi
"#;

/// `--verify`, after the steps: compare with the baseline; on a regression (exit 1) print the
/// rollback command, or with `--rollback-on-regression` run it (`INSTALLER` is replaced).
const VERIFY_AFTER: &str = r#"if [ "$VERIFY" = 1 ]; then
  echo "verify: comparing with the baseline; report in $HERE/verify-report.json" >&2
  STATUS=0
  "$PYTHON" "$HERE/verify.py" --compare "$HERE/verify-baseline.json" --report "$HERE/verify-report.json" ${TESTS[@]+"${TESTS[@]}"} >/dev/null || STATUS=$?
  if [ "$STATUS" = 1 ]; then
    if [ "$ROLLBACK" = 1 ]; then
      echo "verify: the plan regressed; rolling back with $HERE/rollback-INSTALLER.sh" >&2
      bash "$HERE/rollback-INSTALLER.sh"
      echo "verify: rolled back; the regressions are in $HERE/verify-report.json" >&2
    else
      echo "verify: the plan regressed (see $HERE/verify-report.json); to put the environment back:" >&2
      printf '  bash %q\n' "$HERE/rollback-INSTALLER.sh" >&2
    fi
  fi
  exit "$STATUS"
fi
"#;

#[cfg(test)]
mod tests;
