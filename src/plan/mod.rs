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
mod alternatives;
mod build_hint;
mod builder;
mod clash;
mod imports_check;
mod layers;
mod modules;
mod must_move;
mod no_release;
mod oracle;
mod planned;
mod planned_imports;
mod proposal;
#[cfg(test)]
pub(crate) mod test_plans;
#[cfg(test)]
mod tests;

pub use accept::{AcceptError, AcceptedOverrides, read_plan};
pub use alternatives::{ProposeError, ProposeRequest, propose};
pub use builder::{
    Oracle, PlanBuilder, PlanDist, PlanSpec, PlannedEnvironment, line_floor, next_line,
};
pub use layers::{Stack, Stacks, crosses_line};
pub use proposal::{
    Action, Blocker, Break, BreakKind, BrokenEdge, Change, Conflict, EnvironmentSummary, HeldBack,
    Layer, LayerChoice, LayerKind, NeededMove, Override, PLAN_SCHEMA, PROPOSAL_SCHEMA, Plan,
    PlanCommandLines, PlanKind, Proposal, Reason, Request, UnmatchedMember, Waiting,
};
