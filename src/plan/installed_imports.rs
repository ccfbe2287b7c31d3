//! What the installed files say of imports, read once per inventory and shared by every
//! question asked of it: `planner outdated` asks `propose` once per dist on an accelerator line
//! that cannot move alone (17 on the torch 2.9.1+cu128 recipe venv, one per `nvidia-*-cu12`
//! dist) beside its alone scan, and each proposal used to read every installed `.py` file and
//! compiled extension again (about 2.7 s a proposal there, most of the command's time).
//!
//! In: an [`Inventory`]. Out: its [`ImportIndex`] (which dists import a module at import time,
//! the plan builder's dependents) and the import statements of some top-level modules in the
//! other dists' files ([`InstalledImports::uses`], the import check's), each file read and each
//! (dist, modules) pair parsed once: the sixteen `nvidia-*-cu12` dists share the top-level module
//! `nvidia`, so torch's files that import it are parsed once, not once per dist. A value answers
//! for the one inventory it is first asked about (dists by their position in it).

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

use pep508_rs::PackageName;

use crate::inventory::Inventory;
use crate::inventory::importers::ImportIndex;
use crate::inventory::imports::{self, ImportUse};

/// The import statements read so far, per dist (by position) and set of modules asked.
type UsesMemo = HashMap<(usize, BTreeSet<String>), Vec<ImportUse>>;

/// The installed files' imports of one inventory, read once (see the module's docs).
#[derive(Debug, Default)]
pub(crate) struct InstalledImports {
    /// Each dist's files and the modules their import lines name.
    index: ImportIndex,
    /// The import statements parsed so far.
    uses: Mutex<UsesMemo>,
}

impl InstalledImports {
    /// The index of which installed files import which modules.
    pub(crate) fn index(&self) -> &ImportIndex {
        &self.index
    }

    /// The import statements of `modules` (top-level names) in the `.py` files of every
    /// installed dist but `package`, in inventory order: only the files whose import lines name
    /// one of `modules` are parsed ([`imports::import_uses_in`]).
    pub(crate) fn uses(
        &self,
        inventory: &Inventory,
        package: &PackageName,
        modules: &BTreeSet<String>,
    ) -> Vec<ImportUse> {
        let lock = || self.uses.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::new();
        for (i, paths) in self.index.sources_importing(inventory, modules) {
            let dist = &inventory.dists[i];
            if dist.name() == package {
                continue;
            }
            let key = (i, modules.clone());
            if let Some(found) = lock().get(&key) {
                out.extend(found.iter().cloned());
                continue;
            }
            let paths: Vec<&str> = paths.into_iter().collect();
            let found = imports::import_uses_in(dist, &paths, modules);
            out.extend(found.iter().cloned());
            lock().insert(key, found);
        }
        out
    }
}
