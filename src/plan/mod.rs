//! Stage 4b: upgrade plans.
//!
//! In: the inventory, one or more solver resolutions (the plain request, "move the blockers",
//! "newest that fits", a forced override), the conflict facts when the request had no solution,
//! and a risk [`Policy`](crate::risk::Policy). Out: a [`Proposal`]: ranked [`Plan`]s, each a
//! complete plan with every change old -> new and why, the overrides it needs, what holds targets
//! back, and its [`RiskScore`](crate::risk::RiskScore). The plan file that `planner check
//! --accept` reads is one [`Plan`] as JSON (schema in `docs/plan-json.md`).

mod accelerator;
mod accept;
mod alone;
mod alternatives;
mod build_hint;
mod builder;
mod call_time;
mod chain;
mod clash;
mod imports_check;
mod install;
mod installed_imports;
mod layers;
mod modules;
mod must_move;
mod no_release;
mod oracle;
mod own_target;
mod planned;
mod planned_imports;
mod proposal;
mod requirement_text;
#[cfg(test)]
pub(crate) mod test_plans;
#[cfg(test)]
mod tests;
mod version_checks;

pub use crate::metadata::version_line::line_floor;
pub(crate) use accelerator::{line_of, requirement_line, variant_of};
pub use accept::AcceptedOverrides;
pub(crate) use accept::read_plan;
pub(crate) use alone::{AloneBreaks, with_alone_evidence};
pub(crate) use alternatives::{
    ProposeRequest, error_chain, propose, propose_sharing, switches_accelerator,
};
pub use builder::{PlanBuilder, PlanSpec};
pub(crate) use installed_imports::InstalledImports;
pub use oracle::Oracle;
pub(crate) use own_target::{applicable_targets, load_own_target};
pub use planned::{PlanDist, PlannedEnvironment};
pub use proposal::PlanKind;
pub(crate) use proposal::{
    Action, Blocker, BreakKind, BrokenEdge, Change, HeldBack, InstallSteps, LayerChoice, Override,
    Pin, Plan, PlanCommandLines, Proposal, Reason, Unchecked,
};
pub(crate) use requirement_text::{said, said_once};
