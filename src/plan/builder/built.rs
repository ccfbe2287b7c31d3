//! Modules a change takes away that a kept dist's compiled code builds the name of: duckdb
//! 0.8.1's extension builds `pandas.core.arrays.arrow.dtype` from a 16-byte constant and
//! immediate operands and hands it to its import cache, and pandas 2.1 removed that module, so
//! duckdb's scan of a DataFrame fails under pandas 2.3.3 (`Required module
//! 'pandas.core.arrays.arrow.dtype' failed to import`) while `import duckdb` works.
//!
//! In: a changed dist (`from` -> `to`), the planned environment, the names the installed dists'
//! extension modules build in code ([`ImportIndex::built_modules`], read from the installed
//! files: [`crate::inventory::assembled`]), the installed release's files and the planned one's
//! (its wheel's file list). Out: per kept dist whose extension builds the name of a module the
//! installed release has and the planned one does not, one sentence citing the extension
//! module, the code's address and the constant's, and its [`Citation`] (line 0: a compiled
//! extension module). Unknown (a planned release whose files cannot be had) is silent. Such a
//! dist fails when its code asks for the module, not when it is imported: no import chain is
//! drawn from it.
//!
//! [`ImportIndex::built_modules`]: crate::inventory::importers::ImportIndex::built_modules

use pep440_rs::Version;
use pep508_rs::PackageName;

use super::PlanBuilder;
use crate::plan::imports_check::has_module;
use crate::plan::oracle::Oracle;
use crate::plan::planned::PlannedEnvironment;
use crate::risk::Citation;

impl PlanBuilder<'_> {
    /// The kept dists whose extension modules build the name of a module `name` `from` -> `to`
    /// takes away: sentences, citations, dists (sorted).
    pub(in crate::plan) fn built_modules_gone(
        &self,
        name: &PackageName,
        (from, to): (&Version, &Version),
        planned: &PlannedEnvironment,
        oracle: &dyn Oracle,
    ) -> (Vec<String>, Vec<Citation>, Vec<PackageName>) {
        let mut out = (Vec::new(), Vec::new(), Vec::new());
        let built = self.imports.index().built_modules(self.inventory, name);
        if built.is_empty() || from == to {
            return out;
        }
        let (Some(old), Some(new)) = (oracle.installed_files(name), oracle.wheel_files(name, to))
        else {
            return out;
        };
        for (dist, file, built) in built {
            let kept = planned
                .dists
                .get(dist.name())
                .is_some_and(|p| &p.version == dist.version());
            let module = &built.module;
            if !kept || !has_module(&old, module) || has_module(&new, module) {
                continue;
            }
            out.0.push(format!(
                "{} {} ({}) names the module `{module}`, which {name} {to} does not have",
                dist.name(),
                dist.version(),
                built.cite(&file),
            ));
            out.1.push(Citation {
                dist: dist.name().to_string(),
                version: dist.version().to_string(),
                file,
                line: 0,
                module: module.clone(),
                name: None,
                attribute: false,
                function: None,
            });
            out.2.push(dist.name().clone());
        }
        out.2.sort();
        out.2.dedup();
        out
    }
}
