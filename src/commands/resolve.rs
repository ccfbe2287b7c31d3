//! `planner resolve`: solve requirements against an index for a target Python and platform,
//! like `uv pip compile`.
//!
//! In: requirements (arguments, `-r` files), constraints (`-c`), overrides (`--override`), the
//! index settings, and the target: `--python-version`/`--python-platform` synthesize one (no venv
//! needed); `--venv`/`--from-snapshot` (or the discovered environment when neither version nor
//! platform is given) lend their markers and tags. Installed versions are not preferred: this is
//! a compile, not an upgrade plan. Out (built by `render::resolve`): pinned requirements with
//! `# via` annotations (text) or the JSON document of `docs/resolve-json.md`; exit 0 when
//! satisfiable, 1 when not, 2 on error.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pep508_rs::PackageName;

use crate::ExitStatus;
use crate::index::Index;
use crate::inventory::{self, Environment};
use crate::printer::Printer;
use crate::render::{json, resolve as render};
use crate::settings::{OutputFormat, ResolveSettings};
use crate::solve::requirements_file::RequirementsFile;
use crate::solve::{Override, SolveError, SolveRequest, solve};

/// Run `planner resolve`.
pub(crate) fn run(settings: &ResolveSettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let (request, root_files) = build_request(settings)?;
    let env = target(settings, printer)?;
    let mut index_settings = settings
        .index
        .resolve(settings.environment.source.venv_flag())?;
    // Only the files that can change an answer for the target are read (`FileFilter`).
    index_settings.target_tags = Some(env.tags.clone());
    let index = Index::new(index_settings, printer)?;
    let request = SolveRequest {
        binary: index.binary_policy().clone(),
        ..request
    };
    let json = settings.format == OutputFormat::Json;
    let solved = solve(&index, &env, &request);
    // The progress line is gone before anything else is written (it would share a line with
    // the first line of the result).
    index.finish_progress();
    let suspect = super::suspect_lines(&index);
    for line in &suspect {
        printer.warn(line);
    }
    let status = match solved {
        Ok(resolution) if json => {
            printer.out(&json::to_json(&render::to_json(
                &env,
                Some(&resolution),
                None,
            ))?);
            ExitStatus::Success
        }
        Ok(resolution) => {
            printer.text(&render::render_text(&env, &resolution, &root_files));
            ExitStatus::Success
        }
        Err(SolveError::NoSolution(failure)) if json => {
            printer.out(&json::to_json(&render::to_json(
                &env,
                None,
                Some(&failure),
            ))?);
            ExitStatus::UserActionRequired
        }
        Err(SolveError::NoSolution(failure)) => {
            printer.note_painted(&render::failure_text(&failure, printer.color_err()));
            ExitStatus::UserActionRequired
        }
        Err(err) => return Err(err.into()),
    };
    Ok(super::at_least_user_action(status, &suspect))
}

/// The solve request, and the `-r FILE` each root requirement came from (first file wins).
fn build_request(
    settings: &ResolveSettings,
) -> miette::Result<(SolveRequest, BTreeMap<PackageName, PathBuf>)> {
    let mut request = SolveRequest {
        prerelease: settings.prerelease,
        requirements: settings.requirements.clone(),
        ..SolveRequest::default()
    };
    let mut root_files = BTreeMap::new();
    for path in &settings.requirement_files {
        let file = RequirementsFile::read(path)?;
        for r in &file.requirements {
            root_files
                .entry(r.name.clone())
                .or_insert_with(|| path.clone());
        }
        request.requirements.extend(file.requirements);
        request.constraints.extend(file.constraints);
    }
    for path in &settings.constraint_files {
        let file = RequirementsFile::read(path)?;
        request.constraints.extend(file.requirements);
        request.constraints.extend(file.constraints);
    }
    for path in &settings.override_files {
        let file = RequirementsFile::read(path)?;
        request
            .overrides
            .extend(file.requirements.into_iter().map(|requirement| Override {
                requirement,
                only_from: None,
            }));
    }
    if request.requirements.is_empty() {
        let files: Vec<String> = settings
            .requirement_files
            .iter()
            .map(|p| format!("`{}`", p.display()))
            .collect();
        let empty = match files.as_slice() {
            [] => String::new(),
            [one] => format!(": {one} holds no requirement"),
            many => format!(": {} hold no requirement", many.join(", ")),
        };
        miette::bail!(
            code = "planner::resolve::nothing",
            help = "pass requirements as arguments (`planner resolve 'numpy>=2'`) or with -r FILE \
                    (one PEP 508 requirement a line; -c files only constrain)",
            "nothing to resolve{empty}"
        );
    }
    Ok((request, root_files))
}

/// The target environment: synthesized from `--python-version` (uv pip compile semantics) when
/// no environment is named, else the one `--venv` / `--from-snapshot` / discovery finds.
fn target(settings: &ResolveSettings, printer: &Printer) -> miette::Result<Environment> {
    let selection = &settings.environment;
    let env = match (&selection.python_version, selection.source.named()) {
        (Some(version), None) => {
            let platform = selection.python_platform.as_ref().map(|p| &p.platform);
            Environment::for_target(version, platform)?
        }
        _ => inventory::load(selection)?.environment,
    };
    for note in &env.notes {
        printer.note(&format!("note: {note}"));
    }
    Ok(env)
}
