//! The newest release of a target on the installed accelerator line.
//!
//! In: the targets (bare, or with a version specifier), the plans found so far and the
//! installed CUDA lines. Out: when every plan that moves a target leaves the installed line
//! (`propose torch` on torch 2.9.1 with its `-cu12` libraries finds only CUDA 13 releases newer;
//! `propose triton==3.6.0` solves to torch 2.11.0 on CUDA 13, though torch 2.10.0 pins triton
//! 3.6.0 too), one plan that moves each target to its newest release staying on that line and
//! meeting its specifier (torch 2.10.0, which still requires the `-cu12` libraries), solved with
//! the whole environment like the request as asked. The switch stays offered beside it; the
//! ranking puts the plan that stays first. A CPU or ROCm build is a line of its own: `propose
//! torch` on torch 2.9.1+cpu, from an index serving CPU builds beside CUDA ones, stays on the
//! newest `+cpu` release before the CUDA switch, and a `+rocm6.4` build never takes `+rocm7.0`.
//!
//! A specifier that excludes the installed release asks for older ones too: `propose 'torch<2.9'`
//! on torch 2.9.1 solves to torch 2.0.1 on CUDA 11 (the installed `nvidia-nccl-cu12 2.27.5`
//! preferred rules out every CUDA 12 torch below 2.9.1 one by one), while torch 2.8.0 stays on
//! CUDA 12. The line is searched whole: its three newest releases pinned one by one, then one
//! solve over the rest of it (`torch<2.9` with `sympy<1.13.3`: torch 2.6.0, the newest that
//! pins `sympy==1.13.1`). The scan ends at the installed release, or for an older one where the
//! line's releases end (torch 2.0.1, on CUDA 11, below 2.1.0); a name that carries its line
//! (`nvidia-cudnn-cu12`) is not read for it.

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::{Operator, Version, VersionSpecifier};
use pep508_rs::{PackageName, Requirement, VersionOrUrl};

use super::{ProposeError, Proposer, switches_accelerator};
use crate::metadata::requirement::{above, bare, bounded};
use crate::plan::accelerator::{
    installed_lines, installed_variants, line_of, name_line, requirement_line, variant_of,
};
use crate::plan::planned::{PlannedEnvironment, applies_with};
use crate::plan::proposal::{Plan, PlanKind};
use crate::solve::SolveError;

impl Proposer<'_> {
    /// The plan that keeps the installed accelerator line, when every plan in `plans` that
    /// moves a target leaves it; `None` otherwise, or when no release of a target that its
    /// specifier allows (newer than the installed one for a bare target) stays on the line and
    /// solves.
    pub(super) fn same_line(
        &self,
        bounds: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        plans: &[Plan],
    ) -> Result<Option<Plan>, ProposeError> {
        let targets = &self.request.targets;
        let moving: Vec<&Plan> = plans.iter().filter(|p| self.moves_a_target(p)).collect();
        let wanted = !self.request.all
            && !targets.is_empty()
            && !targets
                .iter()
                .any(|t| matches!(t.version_or_url, Some(VersionOrUrl::Url(_))))
            && moving.iter().any(|p| switches_accelerator(p))
            && !moving.iter().any(|p| !switches_accelerator(p));
        let lines = self.installed_lines();
        if !wanted || lines.is_empty() && self.installed_variants().is_empty() {
            return Ok(None);
        }
        let found = search_line(
            targets,
            |wanted| self.line_candidates(&lines, wanted),
            |mut asked| {
                asked.extend(bounds.iter().cloned());
                self.same_line_plan(&asked, upgrade, &lines, vec![])
            },
        )?;
        if found.is_some() {
            return Ok(found);
        }
        self.same_line_with_carriers(bounds, upgrade, &lines)
    }

    /// [`search_line`] for one installed dist (a layer's anchor, `torch` of
    /// `torch-stack`) moving up: its releases newer than the installed one on `lines`, each
    /// `attempt`ed as a constraint pinning it (then the rest of the line as one range).
    pub(crate) fn search_line_above(
        &self,
        name: &PackageName,
        lines: &BTreeSet<u32>,
        attempt: impl FnMut(Vec<Requirement>) -> Result<Option<Plan>, ProposeError>,
    ) -> Result<Option<Plan>, ProposeError> {
        let read = |wanted| {
            let found = self.releases_on_lines_where(name, lines, wanted, false, |_| true)?;
            Ok(BTreeMap::from([(name.clone(), found)]))
        };
        search_line(&[bare(name)], read, attempt)
    }

    /// Each target's releases on the installed line (`wanted` at most), by name. Targets with a
    /// line of their own (torch) are the ones held to it; the others (`sympy<1.13.3` beside
    /// `torch<2.9`) are left to the solver, unless none has one (triton alone: its release
    /// decides torch's).
    fn line_candidates(
        &self,
        lines: &BTreeSet<u32>,
        wanted: usize,
    ) -> Result<BTreeMap<PackageName, LineReleases>, ProposeError> {
        let mut candidates = BTreeMap::new();
        for target in &self.request.targets {
            let found = self.releases_on_lines_meeting(target, lines, wanted)?;
            if !found.on.is_empty() {
                candidates.insert(target.name.clone(), found);
            }
        }
        if candidates.values().any(|found| found.lined) {
            candidates.retain(|_, found| found.lined);
        }
        Ok(candidates)
    }

    /// The same-line plan for a target with no line of its own (triton, which torch 2.9.1 pins
    /// `==3.5.1`): the installed dists that carry the line (those requiring a `-cuNN` dist,
    /// torch) free to move up to their newest release on the line (torch 2.10.0), never down,
    /// and the targets to their newest release that fits them (triton 3.6.0). `None` when that
    /// moves no target or still leaves the line.
    fn same_line_with_carriers(
        &self,
        bounds: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        lines: &BTreeSet<u32>,
    ) -> Result<Option<Plan>, ProposeError> {
        let targets = &self.request.targets;
        let markers = &self.inventory.environment.markers;
        let mut moving = upgrade.clone();
        let mut extra = self.floors(targets);
        for dist in &self.inventory.dists {
            let carries = line_of(dist.name(), dist.version()).is_none()
                && !dist.is_unmanaged()
                && !targets.iter().any(|t| &t.name == dist.name())
                && (dist.metadata.requires_dist.iter())
                    .filter(|r| applies_with(r, markers, &[]))
                    .any(|r| requirement_line(r).is_some_and(|l| lines.contains(&l)));
            if !carries {
                continue;
            }
            let found = self.releases_on_lines(dist.name(), lines, 1)?;
            let newest = found.first().unwrap_or(dist.version()).clone();
            let clause =
                VersionSpecifier::from_version(Operator::LessThanEqual, newest.without_local())
                    .expect("<= accepts a version without a local label");
            extra.push(bounded(dist.name(), vec![clause]));
            moving.insert(dist.name().clone());
        }
        if moving.len() == upgrade.len() {
            return Ok(None);
        }
        let mut asked = targets.clone();
        asked.extend(bounds.iter().cloned());
        // Each target must move: left to the preferences, the solver keeps the installed set.
        asked.extend(
            (targets.iter())
                .filter_map(|t| self.inventory.get(&t.name))
                .map(|d| above(d.name(), d.version())),
        );
        self.same_line_plan(&asked, &moving, lines, extra)
    }

    /// One same-line solve (under `extra` constraints) and its plan: `None` when it has no
    /// solution, moves no target or still leaves the line. The title names the installed dists
    /// it moves beside the targets.
    fn same_line_plan(
        &self,
        asked: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        lines: &BTreeSet<u32>,
        extra: Vec<Requirement>,
    ) -> Result<Option<Plan>, ProposeError> {
        let resolution = match self.solve_with(asked, upgrade, vec![], extra) {
            Ok(resolution) => resolution,
            Err(SolveError::NoSolution(_)) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let planned = self.planned(&resolution);
        let targets = &self.request.targets;
        let moves: Vec<String> = targets
            .iter()
            .filter_map(|t| {
                let from = self.inventory.get(&t.name)?.version();
                let to = &planned.dists.get(&t.name)?.version;
                (to != from).then(|| format!("{} {from} -> {to}", t.name))
            })
            .collect();
        // A solve that leaves the line is no answer here: known from its versions, before the
        // plan's evidence is read.
        if moves.is_empty() || self.leaves_line(&planned) {
            return Ok(None);
        }
        let on = line_names(lines, &self.installed_variants());
        let which = if targets.iter().all(|t| t.version_or_url.is_none()) {
            format!("the newest release on {on}")
        } else {
            format!("as asked, on {on}")
        };
        let mut title = format!("Stay on {on}: {} ({which})", moves.join(", "));
        let carried: Vec<String> = upgrade
            .iter()
            .filter(|name| !targets.iter().any(|t| &t.name == *name))
            .filter_map(|name| {
                let from = self.inventory.get(name)?.version();
                let to = &planned.dists.get(name)?.version;
                (to != from).then(|| format!("{name} {from} -> {to}"))
            })
            .collect();
        if !carried.is_empty() && !self.request.all {
            title.push_str(&format!(", moving {}", carried.join(", ")));
        }
        let mut plan = self.plan(PlanKind::Upgrade, title, targets, &planned, &[])?;
        if switches_accelerator(&plan) {
            return Ok(None);
        }
        super::as_asked::as_requested(&mut plan, targets);
        self.name_other_builds(&mut plan, &on);
        Ok(Some(plan))
    }

    /// A target `plan` holds below a newer release that is another build (the newest torch is
    /// the index's CUDA build, the installed one `+cpu`: told by their labels) says so, not "no
    /// single requirement explains it".
    fn name_other_builds(&self, plan: &mut Plan, on: &str) {
        for held in &mut plan.held_back {
            let build = (self.inventory.get(&held.name)).map(|d| variant_of(d.version()));
            let other_build = build.is_some_and(|b| b != variant_of(&held.newest));
            let unexplained = held.blockers.is_empty() && held.unmatched.is_empty();
            if other_build && unexplained && held.unavailable.is_none() {
                held.unavailable = Some(format!(
                    "{} {} is not on {on} (the plan that switches is offered beside this one)",
                    held.name, held.newest
                ));
            }
        }
    }

    /// Whether the plan of `planned` would leave the installed accelerator line (its
    /// accelerator-line-switch factor), known from its versions before the plan is built.
    pub(in crate::plan) fn leaves_line(&self, planned: &PlannedEnvironment) -> bool {
        self.builder.leaves_line(planned)
    }

    /// The CUDA lines of the installed dists ([`installed_lines`], as the switch check reads
    /// them).
    pub(crate) fn installed_lines(&self) -> BTreeSet<u32> {
        installed_lines(self.inventory)
    }

    /// The installed CPU and ROCm builds ([`installed_variants`]: `the CPU build`).
    pub(crate) fn installed_variants(&self) -> BTreeSet<String> {
        installed_variants(self.inventory)
    }

    /// The releases of `name` newer than the installed one whose own line (its local label) and
    /// whose requirements' lines (`nvidia-cudnn-cu12`) are all among `lines`, and which are the
    /// same build as the installed one (`+cpu` for `torch 2.9.1+cpu`, no such label for a CUDA
    /// build: [`variant_of`]), newest first, `wanted` at most; releases whose metadata cannot be
    /// read are passed over.
    pub(crate) fn releases_on_lines(
        &self,
        name: &PackageName,
        lines: &BTreeSet<u32>,
        wanted: usize,
    ) -> Result<Vec<Version>, ProposeError> {
        let found = self.releases_on_lines_where(name, lines, wanted, false, |_| true)?;
        Ok(found.on)
    }

    /// [`Self::releases_on_lines`] for a target: only the releases its
    /// version specifier allows (`triton==3.6.0`: 3.6.0 or none), all of them for a bare
    /// target. A specifier that excludes the installed release (`torch<2.9` on torch 2.9.1)
    /// asks for older releases too: those are read as well (`torch 2.8.0`, on CUDA 12).
    fn releases_on_lines_meeting(
        &self,
        target: &Requirement,
        lines: &BTreeSet<u32>,
        wanted: usize,
    ) -> Result<LineReleases, ProposeError> {
        let spec = match &target.version_or_url {
            Some(VersionOrUrl::VersionSpecifier(spec)) => Some(spec),
            _ => None,
        };
        let installed = self.inventory.get(&target.name).map(|d| d.version());
        let older = spec.zip(installed).is_some_and(|(s, v)| !s.contains(v));
        self.releases_on_lines_where(&target.name, lines, wanted, older, |version| {
            spec.is_none_or(|s| s.contains(version))
        })
    }

    /// [`Self::releases_on_lines`], passing over the releases `allowed` rejects; with `older`,
    /// the releases below the installed one too. The scan, newest first, ends at the installed
    /// release (without `older`), after `wanted` releases on the line, after [`READ_AT_MOST`]
    /// metadata reads, or once the line's releases have ended (a release, all its local
    /// variants read, off the line below one on it: `torch 2.0.1`, on CUDA 11, below 2.1.0).
    fn releases_on_lines_where(
        &self,
        name: &PackageName,
        lines: &BTreeSet<u32>,
        wanted: usize,
        older: bool,
        allowed: impl Fn(&Version) -> bool,
    ) -> Result<LineReleases, ProposeError> {
        let mut found = LineReleases::default();
        let Some(dist) = self.inventory.get(name).filter(|d| !d.is_unmanaged()) else {
            return Ok(found);
        };
        let Some(project) = self.evidence.catalog.project(name)? else {
            return Ok(found);
        };
        let table = self.evidence.catalog.table(name)?;
        let markers = &self.inventory.environment.markers;
        let build = variant_of(dist.version());
        // The public release being read, and whether one of its variants is on the line.
        let mut release: Option<(Version, bool)> = None;
        let mut read = 0;
        for version in self.evidence.catalog.usable_versions(&project).iter() {
            if (!older && version <= dist.version()) || found.on.len() == wanted {
                break;
            }
            if version.any_prerelease() || !allowed(version) || version == dist.version() {
                continue;
            }
            let public = public(version);
            match &release {
                Some((p, on)) if *p != public && !on && !found.on.is_empty() => break,
                Some((p, _)) if *p == public => {}
                _ => release = Some((public, false)),
            }
            let own: BTreeSet<u32> = match name_line(name.as_ref()) {
                // A name that carries its line (`nvidia-cudnn-cu12`) says it of every release,
                // unread; the plan's own check reads the rest.
                Some(line) => BTreeSet::from([line]),
                None if read == READ_AT_MOST => break,
                None => {
                    read += 1;
                    let Ok(metadata) = self
                        .evidence
                        .catalog
                        .release_metadata(name, &table, version)?
                    else {
                        continue;
                    };
                    line_of(name, version)
                        .into_iter()
                        .chain(
                            (metadata.requires_dist.iter())
                                .filter(|r| applies_with(r, markers, &[]))
                                .filter_map(requirement_line),
                        )
                        .collect()
                }
            };
            let same_build = variant_of(version) == build;
            found.lined |= !own.is_empty() || build.is_some();
            if own.is_subset(lines) && same_build {
                found.on.push(version.clone());
                if let Some((_, on)) = &mut release {
                    *on = true;
                }
            } else {
                found.off.push(version.clone());
            }
        }
        Ok(found)
    }
}

/// The search of the installed line every same-line plan runs (the targeted one and
/// `--all`'s layer): `read(wanted)` gives the releases on the line of the names held to it
/// (`wanted` at most each); `attempt` solves one set of requirements, `base` with each held
/// name pinned in turn to its newest three releases on the line, newest first, then (read
/// only now, when all three fail) `base` with the rest of the line as one range
/// ([`LineReleases::deeper`]). The first plan `attempt` gives is the answer.
fn search_line<T>(
    base: &[Requirement],
    read: impl Fn(usize) -> Result<BTreeMap<PackageName, LineReleases>, ProposeError>,
    mut attempt: impl FnMut(Vec<Requirement>) -> Result<Option<T>, ProposeError>,
) -> Result<Option<T>, ProposeError> {
    let candidates = read(RELEASES_PINNED)?;
    let deepest = candidates.values().map(|f| f.on.len()).max().unwrap_or(0);
    for round in 0..deepest {
        let asked: Vec<Requirement> = (base.iter())
            .map(|r| match candidates.get(&r.name) {
                Some(found) => found.pinned(&r.name, round),
                None => r.clone(),
            })
            .collect();
        if let Some(plan) = attempt(asked)? {
            return Ok(Some(plan));
        }
    }
    if deepest < RELEASES_PINNED {
        return Ok(None);
    }
    let deeper: Vec<Requirement> = (read(usize::MAX)?.iter())
        .filter_map(|(name, found)| found.deeper(name, RELEASES_PINNED))
        .collect();
    if deeper.is_empty() {
        return Ok(None);
    }
    let mut asked = base.to_vec();
    asked.extend(deeper);
    attempt(asked)
}

/// A target's releases read for the line, newest first.
#[derive(Debug, Default)]
struct LineReleases {
    /// Those on the installed line.
    on: Vec<Version>,
    /// Those read off it.
    off: Vec<Version>,
    /// Whether a release read has a line of its own (its local label or a `-cuNN`
    /// requirement: torch, not triton).
    lined: bool,
}

impl LineReleases {
    /// `name` pinned to the `round`th release on the line (the oldest read when there are
    /// fewer), the other builds of that release read off the line excluded: `==2.10.0` admits
    /// `2.10.0+cpu` too, which an index serving both builds would give a CUDA 12 venv.
    fn pinned(&self, name: &PackageName, round: usize) -> Requirement {
        let version = &self.on[round.min(self.on.len() - 1)];
        let mut clauses = vec![
            VersionSpecifier::from_version(Operator::Equal, version.clone())
                .expect("== accepts any version"),
        ];
        clauses.extend(
            (self.off.iter())
                // `!=2.10.0` would exclude `2.10.0+cpu` too: only labelled builds are named.
                .filter(|v| public(v) == public(version) && **v != public(v))
                .map(|v| {
                    VersionSpecifier::from_version(Operator::NotEqual, v.clone())
                        .expect("!= accepts any version")
                }),
        );
        bounded(name, clauses)
    }

    /// `name` held to the releases on the line past the first `skip`: at most the next one, at
    /// least the oldest, none of those read off the line between them. `None` when there are
    /// no more.
    fn deeper(&self, name: &PackageName, skip: usize) -> Option<Requirement> {
        let rest = self.on.get(skip..).filter(|rest| !rest.is_empty())?;
        let (newest, oldest) = (public(rest.first()?), public(rest.last()?));
        let mut clauses = vec![
            VersionSpecifier::from_version(Operator::LessThanEqual, newest.clone())
                .expect("<= accepts a version without a local label"),
            VersionSpecifier::from_version(Operator::GreaterThanEqual, oldest.clone())
                .expect(">= accepts a version without a local label"),
        ];
        // Those above `rest` sharing its newest public version, and those off the line.
        let passed = self.on[..skip].iter().chain(&self.off);
        clauses.extend(
            passed
                .filter(|v| (&oldest..=&newest).contains(&&public(v)))
                .map(|v| {
                    VersionSpecifier::from_version(Operator::NotEqual, v.clone())
                        .expect("!= accepts any version")
                }),
        );
        Some(bounded(name, clauses))
    }
}

/// `version` without its local label (`2.10.0+cu128`: `2.10.0`).
fn public(version: &Version) -> Version {
    version.clone().without_local()
}

/// `CUDA 12`, `CUDA 12 and 13`, `the CPU build`, `ROCm 6.4`: the CUDA lines and the CPU or ROCm
/// builds (`variants`) installed.
pub(crate) fn line_names(lines: &BTreeSet<u32>, variants: &BTreeSet<String>) -> String {
    let numbers: Vec<String> = lines.iter().map(ToString::to_string).collect();
    let cuda = (!lines.is_empty()).then(|| format!("CUDA {}", numbers.join(" and ")));
    let names: Vec<String> = cuda.into_iter().chain(variants.iter().cloned()).collect();
    names.join(" and ")
}

/// How many releases of a target on the installed line are tried one by one, newest first (the
/// rest of the line is one solve).
pub(crate) const RELEASES_PINNED: usize = 3;

/// At most this many releases' metadata read for a target's releases on the line.
const READ_AT_MOST: usize = 40;

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::str::FromStr;

    use super::*;

    fn v(text: &str) -> Version {
        Version::from_str(text).unwrap()
    }

    /// The search both same-line plans run: the three newest releases on the line pinned one
    /// by one, then (read only then) the rest of the line in one range, passing over a release
    /// read off the line; it stops at the first attempt that gives an answer.
    #[test]
    fn the_line_is_searched_three_releases_then_the_rest() {
        let torch = PackageName::from_str("torch").unwrap();
        let on = ["2.9.6", "2.9.5", "2.9.4", "2.9.3", "2.9.2"].map(v);
        let reads = Cell::new(Vec::new());
        let read = |wanted: usize| {
            reads.set([reads.take(), vec![wanted]].concat());
            let found = LineReleases {
                on: on.iter().take(wanted).cloned().collect(),
                off: vec![v("2.9.2.1")],
                lined: true,
            };
            Ok(BTreeMap::from([(torch.clone(), found)]))
        };
        let search = |solves: &dyn Fn(&str) -> bool| {
            let mut tried = Vec::new();
            let found = search_line(&[bare(&torch)], read, |asked| {
                let text: Vec<String> = asked.iter().map(ToString::to_string).collect();
                let text = text.join(" ");
                tried.push(text.clone());
                Ok(solves(&text).then_some(text))
            })
            .unwrap();
            (found, tried, reads.take())
        };
        let (found, tried, read_with) = search(&|asked| asked.contains(">="));
        assert_eq!(
            tried,
            [
                "torch==2.9.6",
                "torch==2.9.5",
                "torch==2.9.4",
                "torch torch>=2.9.2,!=2.9.2.1,<=2.9.3"
            ]
        );
        assert_eq!(
            found.as_deref(),
            Some("torch torch>=2.9.2,!=2.9.2.1,<=2.9.3")
        );
        assert_eq!(read_with, [RELEASES_PINNED, usize::MAX]);
        // An answer among the three: nothing deeper is read.
        let (found, tried, read_with) = search(&|asked| asked == "torch==2.9.5");
        assert_eq!(found.as_deref(), Some("torch==2.9.5"));
        assert_eq!(tried, ["torch==2.9.6", "torch==2.9.5"]);
        assert_eq!(read_with, [RELEASES_PINNED]);
        // None solves: `None`, after the one deeper solve.
        let (found, tried, _) = search(&|_| false);
        assert_eq!((found, tried.len()), (None, 4));
    }
}
