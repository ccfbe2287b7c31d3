//! A target that no release on the index matches (`numpy>=3` while numpy's newest is 2.5.5):
//! nothing blocks it, so no blocker is named, no move or override is offered for it, and the
//! conflict says so in place of "an override would be needed".
//!
//! In: the request's targets and the catalog. Out: per such target, its name and the hint. The
//! same check for a requirement of a held-back release (vllm 0.34.0's `flashinfer-python==0.7.3`):
//! what no move can meet, the one reason named first.

use pep508_rs::{PackageName, Requirement};

use super::alternatives::{ProposeError, Proposer};
use crate::risk::requirement_text;

impl Proposer<'_> {
    /// The targets with usable releases on the index, none of which matches the target's
    /// specifiers, each with its hint.
    pub(super) fn targets_without_release(
        &self,
        targets: &[Requirement],
    ) -> Result<Vec<(PackageName, String)>, ProposeError> {
        let mut out = Vec::new();
        for target in targets {
            let Some(spec) = crate::metadata::requirement::specifiers(target) else {
                continue;
            };
            let Some(project) = self.evidence.catalog.project(&target.name)? else {
                continue;
            };
            let usable = self.evidence.catalog.usable_versions(&project);
            let Some(newest) = usable.first() else {
                continue; // no usable release at all: the solver's hints say why
            };
            if usable.iter().any(|v| spec.contains(v)) {
                continue;
            }
            out.push((
                target.name.clone(),
                format!(
                    "no release of {} on the index matches {} (the newest this environment can \
                     install is {newest}): no blocker holds it back, and neither moving one nor \
                     an override can deliver it",
                    target.name,
                    requirement_text(target)
                ),
            ));
        }
        Ok(out)
    }

    /// When no release of `requirement`'s project that this environment can install matches
    /// it: the sentence that says so (a bare name is matched by any release).
    pub(super) fn no_release_meets(
        &self,
        requirement: &Requirement,
    ) -> Result<Option<String>, ProposeError> {
        let name = &requirement.name;
        let Some(project) = self.evidence.catalog.project(name)? else {
            return Ok(Some(format!("{name} is not on the index")));
        };
        let usable = self.evidence.catalog.usable_versions(&project);
        if usable
            .iter()
            .any(|v| crate::metadata::requirement::accepts(requirement, v))
        {
            return Ok(None);
        }
        let text = crate::metadata::requirement::specifiers(requirement)
            .map_or_else(|| "any version".to_string(), ToString::to_string);
        Ok(Some(match usable.first() {
            Some(newest) => format!(
                "no release of {name} this environment can install matches {text} (the newest \
                 is {newest})"
            ),
            None => format!("no release of {name} on the index installs in this environment"),
        }))
    }
}
