//! The environment after a plan, as a solver resolution describes it: each dist's chosen
//! version, requirements and file facts, and the edges an override replaced.
//!
//! In: built by the search from a [`crate::solve::Resolution`]. Out: read by the plan builder,
//! the clash, planned-import and accelerator-line checks, and the layers.

use std::collections::BTreeMap;

use jiff::Timestamp;
use pep440_rs::Version;
use pep508_rs::{ExtraName, MarkerEnvironment, PackageName, Requirement};

use crate::inventory::Inventory;
use crate::solve::OverriddenEdge;

/// One dist of a planned environment, as the solver chose it.
#[derive(Debug, Clone)]
pub struct PlanDist {
    /// The chosen version.
    pub version: Version,
    /// `Requires-Dist` of that version (unevaluated; the builder evaluates markers).
    pub requires_dist: Vec<Requirement>,
    /// PEP 592 yank reason, when the chosen release is yanked.
    pub yanked: Option<String>,
    /// Upload time of the chosen release.
    pub upload_time: Option<Timestamp>,
    /// The release ships platform-specific wheels.
    pub platform_specific: bool,
    /// Extras requested of it (their requirements apply).
    pub extras: Vec<ExtraName>,
}

/// The environment after a plan, as a solver resolution describes it.
#[derive(Debug, Clone, Default)]
pub struct PlannedEnvironment {
    /// Every dist after the plan.
    pub dists: BTreeMap<PackageName, PlanDist>,
    /// The edges between dists overridden to get there (forced plans only): each dependent's
    /// declared requirement and its replacement.
    pub overridden: Vec<OverriddenEdge>,
}

impl PlannedEnvironment {
    /// Whether an override forces the version of `name`.
    pub(crate) fn is_forced(&self, name: &PackageName) -> bool {
        self.overridden
            .iter()
            .any(|edge| &edge.original.name == name)
    }

    /// The dists the plan adds or moves: not installed in `inventory`, or at another version.
    pub(crate) fn changed<'a>(
        &'a self,
        inventory: &'a Inventory,
    ) -> impl Iterator<Item = (&'a PackageName, &'a PlanDist)> + 'a {
        self.dists
            .iter()
            .filter(|(name, dist)| Self::moves(inventory, name, dist))
    }

    /// Whether the plan adds or moves `name` (see [`Self::changed`]).
    pub(crate) fn changes(&self, inventory: &Inventory, name: &PackageName) -> bool {
        self.dists
            .get(name)
            .is_some_and(|dist| Self::moves(inventory, name, dist))
    }

    fn moves(inventory: &Inventory, name: &PackageName, dist: &PlanDist) -> bool {
        inventory
            .get(name)
            .is_none_or(|installed| installed.version() != &dist.version)
    }
}

/// Whether `requirement` applies under `markers` with `extras` active.
pub(crate) fn applies_with(
    requirement: &Requirement,
    markers: &MarkerEnvironment,
    extras: &[ExtraName],
) -> bool {
    requirement.marker.evaluate(markers, extras)
}
