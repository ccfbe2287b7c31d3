//! The stack layer that keeps the installed accelerator line.
//!
//! In: a group layer's spec and plan, the bounds every layer starts from and the safe layer it
//! sits on. Out: when that plan leaves the installed CUDA line (torch 2.9.1 with its `-cu12`
//! libraries moved to torch 2.15.0 on CUDA 13), the same stack moved to its anchor's newest
//! release that stays on the line (torch 2.10.0), solved under the same bounds, beside the
//! switch; the switch keeps its plan and is named `<stack>-switch`. Ranked by risk with the
//! other group layers, the plan that stays comes first.

use std::collections::BTreeSet;

use pep508_rs::{PackageName, Requirement};

use super::solve::finish_layer;
use super::{Bounds, LayerSpec};
use crate::metadata::requirement::pin;
use crate::plan::accelerator::line_of;
use crate::plan::alternatives::{ProposeError, Proposer, line_names, switches_accelerator};
use crate::plan::planned::PlannedEnvironment;
use crate::plan::proposal::Plan;

impl Proposer<'_> {
    /// `plan` (the group layer of `spec`), and before it the layer that keeps the installed
    /// accelerator line when `plan` leaves it and such a layer solves.
    pub(super) fn with_same_line(
        &self,
        spec: &LayerSpec,
        plan: Option<Plan>,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: &Plan,
    ) -> Result<Vec<Plan>, ProposeError> {
        let Some(plan) = plan else {
            return Ok(Vec::new());
        };
        if !switches_accelerator(&plan) {
            return Ok(vec![plan]);
        }
        let mut plan = self
            .switch_keeping_left(spec, bounds, upgrade, base)?
            .unwrap_or(plan);
        let Some(stay) = self.same_line_layer(spec, bounds, upgrade, base)? else {
            return Ok(vec![plan]);
        };
        if let Some(layer) = plan.layer.as_mut() {
            layer.name = format!("{}-switch", spec.name);
        }
        Ok(vec![stay, plan])
    }

    /// The switching layer of `spec` with the installed dists of the line it leaves held where
    /// they are (`nvidia-cudnn-cu12 9.10.2.21`): the switch leaves them unrequired, so
    /// upgrading them is work that nothing uses. `None` when that does not solve or no longer
    /// switches (the plan as first solved stands).
    fn switch_keeping_left(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: &Plan,
    ) -> Result<Option<Plan>, ProposeError> {
        let lines = self.installed_lines();
        let left: Vec<Requirement> = (self.inventory.dists.iter())
            .filter(|d| !d.is_unmanaged())
            .filter(|d| line_of(d.name(), d.version()).is_some_and(|l| lines.contains(&l)))
            .map(|d| pin(d.name(), d.version()))
            .collect();
        if left.is_empty() {
            return Ok(None);
        }
        let mut constraints = Self::layer_bounds(spec, bounds);
        constraints.extend(left);
        // Built only when its versions still leave the line (else it is no answer here).
        let switching = |planned: &PlannedEnvironment| self.leaves_line(planned);
        let Some((_, plan)) =
            self.layer_build_where(spec, bounds, upgrade, Some(base), constraints, &switching)?
        else {
            return Ok(None);
        };
        if !switches_accelerator(&plan) {
            return Ok(None);
        }
        Ok(finish_layer(spec, plan, Some(base)))
    }

    /// The group layer of `spec` with its anchor (`torch` of `torch-stack`) held to its newest
    /// release on the installed CUDA lines that solves and leaves no line (the whole line
    /// searched: [`Proposer::search_line_above`]); `None` when none does.
    fn same_line_layer(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: &Plan,
    ) -> Result<Option<Plan>, ProposeError> {
        let lines = self.installed_lines();
        let stack = spec.name.trim_end_matches("-stack");
        let Some(anchor) = spec.free.iter().find(|n| n.as_ref() == stack) else {
            return Ok(None);
        };
        let variants = self.installed_variants();
        if lines.is_empty() && variants.is_empty() {
            return Ok(None);
        }
        let on = line_names(&lines, &variants);
        // The same search as a targeted same-line plan: three releases pinned one by one, then
        // the rest of the line in one solve.
        self.search_line_above(anchor, &lines, |pinned| {
            let mut constraints = Self::layer_bounds(spec, bounds);
            constraints.extend(pinned);
            // A solve whose versions leave the line is passed over before its plan is built.
            let staying = |planned: &PlannedEnvironment| !self.leaves_line(planned);
            let Some((_, mut plan)) =
                self.layer_build_where(spec, bounds, upgrade, Some(base), constraints, &staying)?
            else {
                return Ok(None);
            };
            if switches_accelerator(&plan) {
                return Ok(None);
            }
            plan.title = format!(
                "{} (the newest {anchor} on {on})",
                plan.title
                    .replacen(" stack: ", &format!(" stack on {on}: "), 1)
            );
            Ok(finish_layer(spec, plan, Some(base)))
        })
    }
}
