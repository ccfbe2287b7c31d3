//! Which handler fallback imports ([`Fallback`]) may run here, as far as the installed files
//! decide it: the `if`/`else` branch the `try:` sits in runs with the installed version of the
//! dist it tests, and no `try:` body import reaches the changed dist through another dist's
//! path that the other dist ships as files (a real vendored copy, not an alias).
//!
//! In: an installed dist's import of a changed dist, the inventory and the planned environment.
//! Out: whether it is kept as evidence ([`crate::plan::imports_check`] then decides whether the
//! body fails with the planned release). A test of a dist the plan moves, or one whose value
//! cannot be read, keeps nothing: no claim.

use super::PlanBuilder;
use crate::inventory::imports::{ImportUse, assigned_build, read_installed, record_paths};
use crate::plan::imports_check::{has_module, through_path};
use crate::plan::planned::PlannedEnvironment;

impl PlanBuilder<'_> {
    /// Whether `import` (kept as it is unless it is a fallback) may run after the plan.
    pub(in crate::plan) fn fallback_may_run(
        &self,
        import: &ImportUse,
        planned: &PlannedEnvironment,
    ) -> bool {
        let Some(fallback) = &import.statement.fallback else {
            return true;
        };
        let changed = import
            .statement
            .module
            .split('.')
            .next()
            .unwrap_or_default();
        let owner = |top: &str| {
            self.inventory
                .dists
                .iter()
                .find(|d| d.top_level.iter().any(|t| t == top))
        };
        for (module, _) in &fallback.tried {
            let top = module.split('.').next().unwrap_or_default();
            let Some(tail) = through_path(module, changed).filter(|_| top != changed) else {
                continue;
            };
            // `requests.packages.urllib3`: shipped as files by requests, it is its own copy.
            let path = &module[..module.len() - tail.len()];
            let shipped = owner(top)
                .and_then(record_paths)
                .is_some_and(|files| has_module(&files, &format!("{path}{changed}")));
            if shipped {
                return false;
            }
        }
        let Some(test) = &fallback.branch else {
            return true;
        };
        let Some(dist) = owner(&test.module) else {
            return false;
        };
        if planned.dists.get(dist.name()).map(|p| &p.version) != Some(dist.version()) {
            return false;
        }
        let build = ["__init__.py", "__version__.py"].iter().find_map(|file| {
            let bytes = read_installed(dist, &format!("{}/{file}", test.module))?;
            assigned_build(&String::from_utf8_lossy(&bytes))
        });
        build.is_some_and(|b| test.runs(b))
    }
}
