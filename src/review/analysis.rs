//! Judging one pin: what it breaks or narrows, how risky forcing it is, and the safer plan.
//!
//! In: a [`Pin`] (with the requirements its file resolves with), the targets to judge it for
//! (each a synthesized interpreter, or the inventory of a real environment's snapshot), an index
//! and a risk [`Policy`]. Out: one [`TargetVerdict`] per target.
//!
//! The pin is judged exactly as `propose` would plan it: the environment the rest of the file
//! makes (its other requirements resolved against the index for the target, or the snapshot)
//! is the installed set, and the pin is the target of [`plan::propose`] with forced overrides
//! allowed. Its conflict's blockers are the requirements it breaks; the forced plan's risk is
//! what forcing costs (the plan as asked when nothing breaks); "move the blockers" is the safer
//! alternative. Nothing is re-implemented here: the plan stage does the solving and scoring.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use pep440_rs::Operator;
use pep508_rs::{Requirement, VersionOrUrl};
use serde::Serialize;

use super::pins::Pin;
use crate::index::IndexSource;
use crate::inventory::{DistFormat, Environment, InstalledDist, Inventory};
use crate::plan::{self, Blocker, Plan, PlanKind, ProposeRequest};
use crate::risk::{Policy, RiskScore};
use crate::solve::{self, SolveRequest, Via};

/// One target a pin is judged for.
#[derive(Debug, Clone)]
pub enum Target {
    /// A synthesized interpreter (`--python-version` / `--python-platform`).
    Synthesized {
        /// `3.12 x86_64-manylinux_2_28`.
        label: String,
        /// Its markers and tags.
        environment: Box<Environment>,
    },
    /// The installed set of a real environment (`--from-snapshot`).
    Snapshot {
        /// The snapshot file.
        label: String,
        /// What is installed there.
        inventory: Box<Inventory>,
    },
}

impl Target {
    /// How the target is named in reports.
    pub fn label(&self) -> &str {
        match self {
            Target::Synthesized { label, .. } | Target::Snapshot { label, .. } => label,
        }
    }
}

/// What a pin does on one target.
#[derive(Debug, Clone, Serialize)]
pub struct TargetVerdict {
    /// The target's label.
    pub target: String,
    /// Installed (or resolved) requirements the pin violates.
    pub breaks: Vec<Blocker>,
    /// Requirements on the same name the pin still satisfies but narrows to one version.
    pub narrows: Vec<Blocker>,
    /// The risk of the plan the pin amounts to: the forced override when it breaks
    /// something, the plan as asked otherwise (`None` when it could not be judged).
    pub risk: Option<RiskScore>,
    /// The safer alternative (move the blockers), when one exists.
    pub safer: Option<Plan>,
    /// Why the pin could not be judged on this target, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Judges pins against an index; the environments a file's requirements make are solved once.
pub struct Analyzer<'a> {
    /// The index.
    pub index: &'a dyn IndexSource,
    /// The risk policy.
    pub policy: &'a Policy,
    /// The request template (binary policy, pre-releases, clock).
    pub request: ProposeRequest,
    baselines: BTreeMap<(String, Vec<String>), Result<Arc<Inventory>, String>>,
}

impl<'a> Analyzer<'a> {
    /// An analyzer.
    pub fn new(index: &'a dyn IndexSource, policy: &'a Policy, request: ProposeRequest) -> Self {
        Analyzer {
            index,
            policy,
            request,
            baselines: BTreeMap::new(),
        }
    }

    /// Judge `pin` on `target`.
    pub fn judge(&mut self, pin: &Pin, target: &Target) -> TargetVerdict {
        let mut verdict = TargetVerdict {
            target: target.label().to_string(),
            breaks: Vec::new(),
            narrows: Vec::new(),
            risk: None,
            safer: None,
            note: None,
        };
        let inventory = match target {
            Target::Snapshot { inventory, .. } => Arc::new((**inventory).clone()),
            Target::Synthesized { label, environment } => {
                match self.baseline(label, environment, &pin.context) {
                    Ok(inventory) => inventory,
                    Err(note) => {
                        verdict.note = Some(note);
                        return verdict;
                    }
                }
            }
        };
        let request = ProposeRequest {
            targets: vec![pin.requirement.clone()],
            allow_override: true,
            all: false,
            layer: None,
            source: target.label().to_string(),
            ..self.request.clone()
        };
        let proposal = match plan::propose(self.index, &inventory, self.policy, &request) {
            Ok(proposal) => proposal,
            Err(err) => {
                verdict.note = Some(format!("could not be planned: {err}"));
                return verdict;
            }
        };
        let find = |kind: PlanKind| proposal.plans.iter().find(|p| p.kind == kind);
        verdict.narrows = narrows(&inventory, pin);
        match &proposal.conflict {
            Some(conflict) => {
                verdict.breaks = conflict.blockers.clone();
                verdict.risk = find(PlanKind::ForcedOverride).map(|p| p.risk.clone());
                verdict.safer = find(PlanKind::MoveBlockers).cloned();
                if verdict.risk.is_none() {
                    verdict.note = Some(format!(
                        "{} cannot be installed here even forced: {}",
                        pin.requirement,
                        first_line(&conflict.explanation)
                    ));
                }
            }
            None => verdict.risk = find(PlanKind::Upgrade).map(|p| p.risk.clone()),
        }
        verdict
    }

    /// The environment the rest of the file makes on this target (cached per requirement set).
    fn baseline(
        &mut self,
        label: &str,
        environment: &Environment,
        context: &[Requirement],
    ) -> Result<Arc<Inventory>, String> {
        let mut key: Vec<String> = context.iter().map(ToString::to_string).collect();
        key.sort();
        let entry = (label.to_string(), key);
        if let Some(found) = self.baselines.get(&entry) {
            return found.clone();
        }
        let made = resolve_baseline(self.index, environment, context, &self.request).map(Arc::new);
        self.baselines.insert(entry, made.clone());
        made
    }
}

fn first_line(text: &str) -> &str {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(text)
        .trim()
}

/// Resolve `context` for `environment` and turn the resolution into an installed set whose
/// metadata the resolution carries (what `pip install` of the file would leave behind).
fn resolve_baseline(
    index: &dyn IndexSource,
    environment: &Environment,
    context: &[Requirement],
    template: &ProposeRequest,
) -> Result<Inventory, String> {
    let request = SolveRequest {
        requirements: context.to_vec(),
        prerelease: template.prerelease,
        binary: template.binary.clone(),
        ..SolveRequest::default()
    };
    let resolution = solve::solve(index, environment, &request).map_err(|err| {
        format!(
            "the file's other requirements do not resolve for this target: {}",
            first_line(&err.to_string())
        )
    })?;
    // The resolution carries each chosen release's metadata: no index IO here.
    let dists = resolution
        .packages
        .iter()
        .map(|(name, resolved)| InstalledDist {
            metadata: (*resolved.metadata).clone(),
            installer: None,
            requested: resolved.via.contains(&Via::Root),
            direct_url: None,
            top_level: Vec::new(),
            path: PathBuf::from(format!("<resolved {name}=={}>", resolved.version)),
            format: DistFormat::Snapshot,
        })
        .collect();
    Ok(Inventory {
        environment: environment.clone(),
        dists,
        unreadable: Vec::new(),
    })
}

/// Requirements on the pinned name that accept the pinned version (exact pins only).
fn narrows(inventory: &Inventory, pin: &Pin) -> Vec<Blocker> {
    let Some(VersionOrUrl::VersionSpecifier(specifiers)) = &pin.requirement.version_or_url else {
        return Vec::new();
    };
    let Some(version) = specifiers
        .iter()
        .find(|s| matches!(s.operator(), Operator::Equal | Operator::ExactEqual))
        .map(|s| s.version().clone())
    else {
        return Vec::new();
    };
    let markers = &inventory.environment.markers;
    let mut out = Vec::new();
    for dist in &inventory.dists {
        for requirement in &dist.metadata.requires_dist {
            if requirement.name != pin.requirement.name
                || !requirement.evaluate_markers(markers, &[])
            {
                continue;
            }
            let accepts = match &requirement.version_or_url {
                Some(VersionOrUrl::VersionSpecifier(s)) => s.contains(&version),
                _ => true,
            };
            if accepts {
                out.push(Blocker {
                    dependent: dist.name().clone(),
                    dependent_version: dist.version().clone(),
                    requirement: requirement.clone(),
                });
            }
        }
    }
    out
}
