//! Stage 4a: how risky a plan is.
//!
//! In: typed facts about one plan ([`PlanFacts`]: each change old -> new with its release date,
//! yanked status, wheel kind and dependents; each broken `Requires-Dist` edge of a forced override
//! with whether any release of the dependent accepts the forced version) and a [`Policy`]
//! (weights, level thresholds, coupled groups; `policies/default.toml` built in). Out: a
//! [`RiskScore`]: 0-100, a [`RiskLevel`], and every [`RiskFactor`] itemized with its points, so a
//! reviewer can argue with each one. Pure functions: no IO besides [`Policy::load`].
//!
//! The model is documented in `docs/risk-model.md`.

mod assess;
mod glob;
mod policy;
mod risk_score;
pub(crate) mod smoke;

pub use assess::Upstream;
pub(crate) use assess::pin_strictness;
pub(crate) use assess::{
    AcceleratorSwitch, BrokenEdgeFacts, ChangeFacts, DeclaredCoupling, Dependents, LineKind,
    PlanFacts, abi_citations, assess, requirement_text,
};
pub(crate) use policy::BUILTIN_POLICIES;
pub use policy::Policy;
pub(crate) use risk_score::RiskFactor;
pub use risk_score::{Citation, FactorKind, RiskLevel, RiskScore};
