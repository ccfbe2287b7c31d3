//! One plan built and scored, with what holds its targets back.
//!
//! In: a planned environment, the targets and the blockers it unblocks (and for a layer, its
//! base's pins). Out: the scored [`Plan`] from the builder, each target below its newest release
//! with a [`HeldBack`] that says why: the planned dists that exclude it, its own requirements
//! the plan does not meet, coupled members with no release for it, or the solver's word.

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::{PackageName, Requirement};
use pubgrub::Ranges;

use super::{ProposeError, Proposer};
use crate::metadata::requirement::{self, pin, specifiers};
use crate::plan::builder::PlanSpec;
use crate::plan::planned::{PlannedEnvironment, applies_with};
use crate::plan::proposal::{Blocker, HeldBack, Plan, PlanKind, UnmatchedMember};
use crate::risk::{DeclaredCoupling, requirement_text};
use crate::solve::{AcceptingQuery, Among, PrereleaseMode, SolveError};

/// What holds a release back: the requirements that exclude it, the coupled members with no
/// release for it, and a reason no requirement gives.
type HeldBy = (Vec<Blocker>, Vec<UnmatchedMember>, Option<String>);

impl Proposer<'_> {
    /// Build and score one plan, with what holds its targets back.
    pub(super) fn plan(
        &self,
        kind: PlanKind,
        title: String,
        targets: &[Requirement],
        planned: &PlannedEnvironment,
        unblocked: &[(Blocker, Requirement)],
    ) -> Result<Plan, ProposeError> {
        self.plan_on(kind, title, targets, planned, unblocked, None)
    }

    /// [`Self::plan`] on top of a base layer's pins (changes to the base's versions are not
    /// scored here).
    pub(in crate::plan) fn plan_on(
        &self,
        kind: PlanKind,
        title: String,
        targets: &[Requirement],
        planned: &PlannedEnvironment,
        unblocked: &[(Blocker, Requirement)],
        base: Option<&BTreeMap<PackageName, Version>>,
    ) -> Result<Plan, ProposeError> {
        let mut held_back = Vec::new();
        let names: Vec<(PackageName, Option<&VersionSpecifiers>)> = if self.request.all {
            planned.dists.keys().map(|n| (n.clone(), None)).collect()
        } else {
            targets
                .iter()
                .map(|t| (t.name.clone(), specifiers(t)))
                .collect()
        };
        for (name, spec) in names {
            let Some(project) = self.evidence.catalog.project(&name)? else {
                continue;
            };
            let planned_version = planned.dists.get(&name).map(|d| d.version.clone());
            // Cheap pre-check: no file newer than the planned version, nothing holds it back.
            if let Some(planned) = &planned_version {
                let public = planned.clone().without_local();
                if project.files.heads().all(|f| f.version <= &public) {
                    continue;
                }
            }
            let Some(newest) = self.newest_to_name(&project, spec, planned_version.as_ref()) else {
                continue;
            };
            // A target that excludes the newest release is not held back: it asked for less.
            if spec.is_some_and(|s| !s.contains(&newest)) {
                continue;
            }
            let planned_version = planned.dists.get(&name).map(|d| d.version.clone());
            if planned_version
                .as_ref()
                .is_some_and(|v| v.clone().without_local() >= newest)
            {
                continue;
            }
            // A pre-release the solver would not take is held back by that rule alone, not by
            // the requirements that happen to exclude it (tensorflow 2.22.0rc0 above a planned
            // 2.21.0 is no reason to name tf-keras's `tensorflow<2.22`).
            let takes_pre = self.takes_prereleases(spec, planned_version.as_ref());
            // A target the plan moves to its newest final release is not held back by a newer
            // pre-release (`propose tensorflow` planning 2.21.0 said "tensorflow stays at
            // 2.21.0 (newest 2.22.0rc0)"); the pre-release is named only to explain a target
            // that does not move.
            let installed = self.inventory.get(&name).map(|d| d.version());
            let moved = planned_version.as_ref() != installed;
            if moved && newest.any_prerelease() && !takes_pre {
                continue;
            }
            // Under `--all` a held-back line names only what the plan could take: a dist whose
            // only newer releases are pre-releases is not held back (protobuf 7.37.0rc1 above
            // 7.36.2), as in the layers' lines.
            if self.request.all && newest.any_prerelease() && !takes_pre {
                continue;
            }
            let (blockers, unmatched, unavailable) = if newest.any_prerelease() && !takes_pre {
                (vec![], vec![], None)
            } else {
                self.why_held(&name, &newest, planned)?
            };
            held_back.push(HeldBack {
                name,
                newest,
                planned: planned_version,
                blockers,
                unmatched,
                needs: vec![],
                see: None,
                waiting: None,
                unavailable,
            });
        }
        if self.request.all {
            self.name_circular_holds(&mut held_back, planned)?;
        }
        Ok(self.builder.build(
            PlanSpec {
                kind,
                title,
                targets,
                planned,
                unblocked,
                all: self.request.all,
                held_back,
                base,
                declared_couplings: self.declared_couplings(planned)?,
            },
            &self.evidence,
        ))
    }

    /// Under `--all`, a held-back dist whose every blocker is another held-back dist's installed
    /// release, where that dist's newest release needs this one's newest (tensorflow 2.20.0
    /// held by tf-keras 2.20.1's `tensorflow<2.21`, tf-keras held by tf-keras 2.21.0's
    /// `tensorflow>=2.21`): the two would move together, so naming each other is a circle, not
    /// a reason. The one reason is what the newest release itself requires that the plan does
    /// not meet and no held-back dist's newest release meets (tensorflow 2.21.0's `h5py<3.15`
    /// beside h5py 3.16.0: `--all` keeps every dist at or above its installed version); it
    /// replaces the blockers. With no such requirement the lines are left as they are.
    fn name_circular_holds(
        &self,
        held_back: &mut [HeldBack],
        planned: &PlannedEnvironment,
    ) -> Result<(), ProposeError> {
        let mut roots = Vec::new();
        for (i, held) in held_back.iter().enumerate() {
            let circular = |b: &Blocker| {
                b.dependent != held.name && needs_newest(held_back, &b.dependent, held)
            };
            if held.blockers.is_empty() || !held.blockers.iter().all(circular) {
                continue;
            }
            // A requirement that another held-back dist's newest release meets moves with it
            // (tensorflow 2.21.0's `tensorboard~=2.21.0`): not the reason either.
            let moves_along = |r: &Requirement| {
                held_back
                    .iter()
                    .any(|o| o.name == r.name && requirement::accepts(r, &o.newest))
            };
            let root: Vec<Blocker> = self
                .own_requirements_unmet(&held.name, &held.newest, planned)?
                .into_iter()
                .filter(|b| !moves_along(&b.requirement))
                .collect();
            if !root.is_empty() {
                roots.push((i, root));
            }
        }
        for (i, root) in roots {
            held_back[i].blockers = root;
        }
        Ok(())
    }

    /// What holds `name` below `newest` in `planned`: the requirements that exclude it, the
    /// coupled members with no release for it, and the sentence of a reason no requirement
    /// gives (the coupled-group rule, a requirement no release meets, the solver's word).
    fn why_held(
        &self,
        name: &PackageName,
        newest: &Version,
        planned: &PlannedEnvironment,
    ) -> Result<HeldBy, ProposeError> {
        let mut blockers = self.builder.blockers(name, newest, planned);
        let rule = match blockers.is_empty() {
            true => self.rule_pairs_elsewhere(name, newest, planned)?,
            false => None,
        };
        let mut unmeetable = None;
        if blockers.is_empty() && rule.is_none() {
            blockers = self.own_requirements_unmet(name, newest, planned)?;
            unmeetable = self.unmeetable_first(&mut blockers)?;
        }
        let mut unmatched = self.unmatched_members(name, newest)?;
        // A member whose own release accepts the newest anchor does not hold it back.
        let mut speaks = Vec::new();
        for u in &unmatched {
            speaks.push(self.member_speaks_for(&u.member, name, newest)?);
        }
        let mut speaks = speaks.into_iter();
        unmatched.retain(|_| !speaks.next().unwrap_or(false));
        let unavailable = if rule.is_some() {
            rule
        } else if unmeetable.is_some() {
            unmeetable
        } else if blockers.is_empty() && unmatched.is_empty() {
            self.why_unavailable(name, newest)?
        } else {
            None
        };
        Ok((blockers, unmatched, unavailable))
    }

    /// The newest release of `project` the solver would take above `planned`; only when every
    /// newer release is a pre-release is that pre-release named (as the reason nothing newer is
    /// planned).
    fn newest_to_name(
        &self,
        project: &crate::index::Project,
        spec: Option<&VersionSpecifiers>,
        planned: Option<&Version>,
    ) -> Option<Version> {
        let takes_pre = self.takes_prereleases(spec, planned);
        let usable = self.evidence.catalog.usable_versions(project);
        let above = |v: &&Version| planned.is_none_or(|p| **v > p.clone().without_local());
        usable
            .iter()
            .filter(above)
            .find(|v| takes_pre || !v.any_prerelease())
            .or_else(|| usable.first())
            .cloned()
    }

    /// Whether the solver would take a pre-release of a target (PEP 440): under `--prerelease
    /// allow`, when its specifier names one, or when the planned version is one. Otherwise a
    /// held-back line names the newest final release (tensorflow 2.21.0, not 2.22.0rc0).
    fn takes_prereleases(
        &self,
        spec: Option<&VersionSpecifiers>,
        planned: Option<&Version>,
    ) -> bool {
        self.request.prerelease == PrereleaseMode::Allow
            || spec.is_some_and(|s| s.iter().any(|s| s.version().any_prerelease()))
            || planned.is_some_and(Version::any_prerelease)
    }

    /// The installed coupled members that have no usable release corresponding to `anchor` at
    /// `newest` (the policy's `versions`): the reason the group stays where it is.
    fn unmatched_members(
        &self,
        anchor: &PackageName,
        newest: &Version,
    ) -> Result<Vec<UnmatchedMember>, ProposeError> {
        let mut out = Vec::new();
        for c in self.correspondences.iter().filter(|c| &c.anchor == anchor) {
            let range = c.template.range(newest);
            let available = match self.evidence.catalog.project(&c.member)? {
                Some(project) => self
                    .evidence
                    .catalog
                    .usable_versions(&project)
                    .iter()
                    .any(|v| range.contains(v)),
                None => false,
            };
            if !available {
                out.push(UnmatchedMember {
                    member: c.member.clone(),
                    needs: c.template.specifier(newest).unwrap_or_default(),
                });
            }
        }
        Ok(out)
    }

    /// Whether a usable release of `member` declares its own range on `anchor` that accepts
    /// `version` and is CPython-independent, so that its metadata, not the coupled-group rule,
    /// decides (torchaudio 2.11.1, `torch>=2.11`, next to torch 2.15.0).
    fn member_speaks_for(
        &self,
        member: &PackageName,
        anchor: &PackageName,
        version: &Version,
    ) -> Result<bool, ProposeError> {
        let found = self
            .evidence
            .catalog
            .accepting_releases(&AcceptingQuery {
                dependent: member,
                extras: &[],
                package: anchor,
                wanted: &Ranges::singleton(version.clone()),
                among: Among::Installable { prereleases: false },
                read_at_most: 10,
                enough: 3,
            })
            .map_err(|err| ProposeError::Solve(Box::new(err)))?;
        let table = self
            .evidence
            .catalog
            .table(member)
            .map_err(|err| ProposeError::Solve(Box::new(err)))?;
        Ok(found.versions.iter().any(|v| !table.cpython_bound(v)))
    }

    /// Coupled members whose planned release is not what the group's rule pairs with the planned
    /// anchor (torchaudio 2.11.1 next to torch 2.12.0): their own metadata decided, as the solver
    /// applies the rule everywhere else. Only where the plan moves one of the two.
    fn declared_couplings(
        &self,
        planned: &PlannedEnvironment,
    ) -> Result<Vec<DeclaredCoupling>, ProposeError> {
        let markers = &self.inventory.environment.markers;
        let unchanged = |name: &PackageName, version: &Version| {
            self.inventory
                .get(name)
                .is_some_and(|d| d.version() == version)
        };
        let mut out = Vec::new();
        for c in &self.correspondences {
            let (Some(anchor), Some(member)) =
                (planned.dists.get(&c.anchor), planned.dists.get(&c.member))
            else {
                continue;
            };
            if c.template.range(&anchor.version).contains(&member.version)
                || unchanged(&c.anchor, &anchor.version) && unchanged(&c.member, &member.version)
            {
                continue;
            }
            let declared: Vec<String> = member
                .requires_dist
                .iter()
                .filter(|r| r.name == c.anchor && applies_with(r, markers, &member.extras))
                .map(requirement_text)
                .collect();
            if declared.is_empty() {
                continue;
            }
            let unmatched = self.unmatched_members(&c.anchor, &anchor.version)?;
            out.push(DeclaredCoupling {
                member: c.member.clone(),
                version: member.version.clone(),
                anchor: c.anchor.clone(),
                anchor_version: anchor.version.clone(),
                declared: declared.join(", "),
                rule_wants: c.template.specifier(&anchor.version).unwrap_or_default(),
                rule_release_exists: !unmatched.iter().any(|u| u.member == c.member),
            });
        }
        Ok(out)
    }

    /// When `name` is a coupled member whose `newest` release the policy's rule does not pair
    /// with its planned anchor (and whose metadata says nothing on the anchor, so the rule
    /// applies): that rule, as the one reason (jax-cuda12-plugin 0.12.0.1 next to jax 0.11.2).
    fn rule_pairs_elsewhere(
        &self,
        name: &PackageName,
        newest: &Version,
        planned: &PlannedEnvironment,
    ) -> Result<Option<String>, ProposeError> {
        for c in self.correspondences.iter().filter(|c| &c.member == name) {
            let Some(anchor) = planned.dists.get(&c.anchor) else {
                continue;
            };
            if c.template.range(&anchor.version).contains(newest) {
                continue;
            }
            let table = self.evidence.catalog.table(name)?;
            let Ok(metadata) = self
                .evidence
                .catalog
                .release_metadata(name, &table, newest)?
            else {
                continue;
            };
            if metadata.requires_dist.iter().any(|r| r.name == c.anchor) {
                continue;
            }
            return Ok(Some(format!(
                "{} pairs {name} {} with {} {}",
                c.rule_text(),
                c.template.specifier(&anchor.version).unwrap_or_default(),
                c.anchor,
                anchor.version
            )));
        }
        Ok(None)
    }

    /// The requirements of `name==newest` itself that the plan's versions do not meet (celery
    /// 5.7.0 requires python-dateutil<4 where the plan keeps 4.0.0): why it is held back when
    /// no planned dist excludes it. Unreadable metadata gives none.
    fn own_requirements_unmet(
        &self,
        name: &PackageName,
        newest: &Version,
        planned: &PlannedEnvironment,
    ) -> Result<Vec<Blocker>, ProposeError> {
        let table = self.evidence.catalog.table(name)?;
        let Ok(metadata) = self
            .evidence
            .catalog
            .release_metadata(name, &table, newest)?
        else {
            return Ok(vec![]);
        };
        let markers = &self.inventory.environment.markers;
        let extras = planned
            .dists
            .get(name)
            .map(|d| d.extras.clone())
            .unwrap_or_default();
        Ok(metadata
            .requires_dist
            .iter()
            .filter(|r| applies_with(r, markers, &extras))
            .filter(|r| {
                let Some(dist) = planned.dists.get(&r.name) else {
                    return false;
                };
                requirement::excludes(r, &dist.version)
            })
            .map(|r| Blocker {
                dependent: name.clone(),
                dependent_version: newest.clone(),
                requirement: r.clone(),
            })
            .collect())
    }

    /// When some of a held-back release's own unmet requirements no release can meet (vllm
    /// 0.34.0's `flashinfer-python==0.7.3`), they are the one reason: `blockers` keeps only them
    /// and the sentence that says why is returned. The others would move with a plan; these
    /// cannot.
    fn unmeetable_first(
        &self,
        blockers: &mut Vec<Blocker>,
    ) -> Result<Option<String>, ProposeError> {
        let mut unmeetable = Vec::new();
        let mut why = Vec::new();
        for b in blockers.iter() {
            if let Some(sentence) = self.no_release_meets(&b.requirement)? {
                unmeetable.push(b.clone());
                why.push(sentence);
            }
        }
        if unmeetable.is_empty() {
            return Ok(None);
        }
        *blockers = unmeetable;
        Ok(Some(why.join("; ")))
    }

    /// Why `name`'s newest release cannot be had when no requirement of the environment
    /// excludes it: its metadata cannot be read (the reason the solver skipped it), or,
    /// for named targets, the solver's explanation of `name==newest` on this environment (one
    /// solve, only for a target held back with no other reason). `None`: nothing to add (a
    /// pre-release, or a preference).
    fn why_unavailable(
        &self,
        name: &PackageName,
        newest: &Version,
    ) -> Result<Option<String>, ProposeError> {
        let table = self.evidence.catalog.table(name)?;
        if let Err(reason) = self
            .evidence
            .catalog
            .release_metadata(name, &table, newest)?
        {
            return Ok(Some(format!("{name} {newest} {reason}")));
        }
        if self.request.all || newest.any_prerelease() {
            return Ok(None);
        }
        let upgrade = BTreeSet::from([name.clone()]);
        match self.solve(&[pin(name, newest)], &upgrade, vec![]) {
            Err(SolveError::NoSolution(no)) => Ok(Some(format!(
                "{name} {newest} cannot be installed here: {}",
                no.report
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ")
            ))),
            Err(err @ SolveError::Index { .. }) => Err(err.into()),
            _ => Ok(None),
        }
    }
}

/// Whether `dependent` is held back too, by its own newest release's requirement on `held`
/// that accepts `held`'s newest release (it moves only if `held` does).
fn needs_newest(held_back: &[HeldBack], dependent: &PackageName, held: &HeldBack) -> bool {
    held_back.iter().any(|other| {
        &other.name == dependent
            && other.blockers.iter().any(|b| {
                &b.dependent == dependent
                    && b.dependent_version == other.newest
                    && b.requirement.name == held.name
                    && requirement::accepts(&b.requirement, &held.newest)
            })
    })
}
