//! The two states `planner bisect` compares, read, and who installs in its copies.
//!
//! In: the venv that fails now, the good state (`--good`: a venv, a `planner snapshot` or
//! `pip inspect` file; `--since`: reconstructed from install records and the index). Out: their
//! [`Inventory`]s, each venv read in a throw-away copy (reading runs its interpreter, which must
//! not run in the original) with its files checked against their `RECORD`s; the dists
//! `--verify` checks; the [`Installer`] of the copies.

use std::collections::BTreeSet;
use std::path::Path;

use jiff::Timestamp;
use miette::miette;
use pep508_rs::PackageName;

use super::since::{self, Reconstructed};
use super::state;
use crate::index::IndexSource;
use crate::inventory::{self, Inventory};
use crate::trial::{Installer, VenvCopy};

/// A venv's inventory, read in a throw-away copy (the probe runs the interpreter, and a `.pth`
/// file may write bytecode); the dists' paths are the original's, and their files are checked
/// against their `RECORD`s there (only read), so an edit in place is a change.
pub(crate) fn read_venv(venv: &Path) -> miette::Result<Inventory> {
    let copy = VenvCopy::make(venv, &[], None)?;
    let mut inventory = inventory::load_venv(&copy.root)?;
    for dist in &mut inventory.dists {
        if let Ok(rest) = dist.path.strip_prefix(&copy.root) {
            dist.path = copy.original.join(rest);
        }
    }
    copy.discard()
        .map_err(|err| miette!("cannot remove the copy: {err}"))?;
    inventory::integrity::attach(&mut inventory, inventory::integrity::Scope::Sources);
    Ok(inventory)
}

/// `--good`: a venv (read in a copy), or a snapshot / `pip inspect` file.
pub(crate) fn read_good(path: &Path) -> miette::Result<Inventory> {
    if path.join("pyvenv.cfg").is_file() {
        read_venv(path)
    } else if path.is_file() {
        Ok(inventory::snapshot::load(path)?)
    } else {
        Err(miette!(
            help = "pass a `planner snapshot` file, `pip inspect` output or a venv folder",
            "`{}` (--good) is neither a file nor a venv",
            path.display()
        ))
    }
}

/// `--since WHEN`: the good state reconstructed from install records and upload times; its notes
/// start with one saying so when the venv itself was made after the cut-off (everything in it
/// counts as installed since).
pub(crate) fn reconstruct_since(
    now: &Inventory,
    original: &Path,
    (cutoff, when): (Timestamp, &str),
    index: &dyn IndexSource,
) -> miette::Result<Reconstructed> {
    let mut reconstructed = since::reconstruct(now, cutoff, index).map_err(|why| {
        miette!(
            help = "pass the good state itself with --good (a `planner snapshot` or `pip inspect` file)",
            "--since {when}: {why}"
        )
    })?;
    if let Some(made) = crate::diff::since::install_time(&original.join("pyvenv.cfg"))
        && made >= cutoff
    {
        reconstructed.notes.insert(
            0,
            format!(
                "the venv itself was made at {made}, after the cut-off: everything in it counts \
                 as installed since"
            ),
        );
    }
    Ok(reconstructed)
}

/// What `--verify` checks: the dists both states have among the changed ones and what depends
/// on them (directly or not) now.
pub(crate) fn verify_scope(
    now: &Inventory,
    good: &Inventory,
    changes: &[state::Change],
) -> Inventory {
    let graph = crate::inventory::graph::DependencyGraph::build(now);
    let mut wanted: BTreeSet<PackageName> = changes.iter().map(|c| c.name.clone()).collect();
    for change in changes {
        wanted.extend(
            graph
                .transitive_dependents(&change.name)
                .into_iter()
                .map(|d| d.name().clone()),
        );
    }
    let mut both = now.clone();
    both.dists
        .retain(|d| good.get(d.name()).is_some() && wanted.contains(d.name()));
    both
}

/// uv when on PATH, else the venv's pip.
pub(crate) fn installer(now: &Inventory) -> miette::Result<Installer> {
    if inventory::find_on_path("uv").is_some() {
        return Ok(Installer::Uv);
    }
    let pip = PackageName::new("pip".to_string()).expect("a valid name");
    if now.get(&pip).is_some() {
        Ok(Installer::Pip)
    } else {
        Err(miette!(
            help = "install uv, or pip into the venv",
            "no uv on PATH and no pip in the environment: nothing can install the good versions"
        ))
    }
}
