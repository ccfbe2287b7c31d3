//! The plan's call-time claims as checks: what a function of a kept dist needs from a changed
//! dist, checked in the venv without running the function.
//!
//! In: the plan's `call-time-target-missing` factors ([`crate::plan::call_time`]: langchain
//! 0.0.300's `_create_retry_decorator`, `langchain/llms/openai.py` line 92, uses `openai.error`,
//! which openai 2.54.0 does not ship) and the inventory before the plan. Out: one
//! [`CallTimeClaim`] per importing dist and needed module or name (the first cited use, with how
//! many more the factor cites), for verify.py's `call-time:` checks: the module imported (`import
//! openai.error`), or imported and the name looked up (`from M import N`), in a fresh
//! interpreter. Before the plan it passes (the installed release has it); after it, a failure is
//! the claimed break, a pass says the claim does not hold. A claim whose importing dist the plan
//! removes, or that is not installed, is left out.

use std::collections::BTreeMap;
use std::str::FromStr as _;

use pep508_rs::PackageName;
use serde::Serialize;

use crate::inventory::Inventory;
use crate::plan::Plan;
use crate::risk::FactorKind;

/// What one function of an installed dist needs from a changed dist, as the plan's factor
/// cites it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct CallTimeClaim {
    /// The importing dist (`langchain`).
    pub dist: PackageName,
    /// Its installed version.
    pub version: String,
    /// The file, its path in `RECORD`.
    pub file: String,
    /// The line of the use (1-based).
    pub line: usize,
    /// The function (`_create_retry_decorator`, `Accelerator._prepare_tp`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    /// The changed dist (`openai`).
    pub imports: PackageName,
    /// The module imported (`openai.error`), or imported from when `name` is set.
    pub module: String,
    /// The name taken from `module` (`ReplicateParallel`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A dotted use in the function (`openai.error.Timeout`), not an import statement.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub attribute: bool,
    /// How many more uses of the same module or name in this dist the factor cites.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The plan's call-time claims, one per importing dist and needed module or name, sorted; the
/// importing dist installed in `inventory` and kept by the plan.
pub(crate) fn claims(plan: &Plan, inventory: &Inventory) -> Vec<CallTimeClaim> {
    let mut out: BTreeMap<(PackageName, String, Option<String>), CallTimeClaim> = BTreeMap::new();
    let factors = (plan.risk.factors.iter())
        .filter(|f| f.kind == FactorKind::CallTimeTargetMissing)
        .filter_map(|f| Some((PackageName::from_str(&f.package).ok()?, f)));
    for (provider, factor) in factors {
        for c in &factor.citations {
            let Ok(dist) = PackageName::from_str(&c.dist) else {
                continue;
            };
            let removed = plan.change(&dist).is_some_and(|c| c.to.is_none());
            if removed || inventory.get(&dist).is_none() {
                continue;
            }
            let key = (dist.clone(), c.module.clone(), c.name.clone());
            out.entry(key)
                .and_modify(|claim| claim.more += 1)
                .or_insert_with(|| CallTimeClaim {
                    dist,
                    version: c.version.clone(),
                    file: c.file.clone(),
                    line: c.line,
                    function: c.function.clone(),
                    imports: provider.clone(),
                    module: c.module.clone(),
                    name: c.name.clone(),
                    attribute: c.attribute,
                    more: 0,
                });
        }
    }
    out.into_values().collect()
}
