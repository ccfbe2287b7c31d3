//! The installed set a pin is judged against: the environment the rest of its file makes on a
//! target, resolved once per target and cached.

use std::path::PathBuf;
use std::sync::Arc;

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::{Analyzer, Sibling};
use crate::index::IndexSource;
use crate::inventory::{DistFormat, Environment, InstalledDist, Inventory};
use crate::metadata::CoreMetadata;
use crate::plan::ProposeRequest;
use crate::review::pins::{Context, Pin, Role};
use crate::solve::{self, Override, SolveRequest, Via};

impl<'a> Analyzer<'a> {
    /// The installed set the pin is judged against, with a remark when it is not the head's
    /// file without the pin.
    pub(super) fn baseline_for(
        &mut self,
        label: &str,
        environment: &Environment,
        (pin, was): (&Pin, Option<&Requirement>),
        siblings: &[Sibling],
    ) -> Result<(Arc<Inventory>, Option<String>), NotResolved> {
        let head = pin.context.without_pin(pin);
        if let Some(was) = was {
            let before = head.clone().with(pin.role(), was.clone());
            if let Ok(baseline) = self.baseline(label, environment, &before) {
                return Ok((baseline.inventory.clone(), baseline.remark()));
            }
        }
        let err = match self.baseline(label, environment, &head) {
            Ok(baseline) => return Ok((baseline.inventory.clone(), baseline.remark())),
            Err(err) => err,
        };
        if siblings.is_empty() {
            return Err(err);
        }
        let mut base = head;
        for sibling in siblings {
            base = base.without(sibling.pin.name());
            if let Some(was) = &sibling.was {
                base = base.with(sibling.pin.role(), was.clone());
            }
        }
        let baseline = self
            .baseline(label, environment, &base)
            .map_err(|_| err.clone())?;
        let mut remark = format!(
            "judged against the base's pins of {} with this one applied (with all the head's pins it does not resolve: {})",
            pin.context.root, err.reason
        );
        if let Some(skipped) = baseline.remark() {
            remark = format!("{remark}; {skipped}");
        }
        Ok((baseline.inventory.clone(), Some(remark)))
    }

    /// Whether `context` resolves on this target as a whole (`Err`: why not).
    pub(crate) fn resolves(
        &mut self,
        label: &str,
        environment: &Environment,
        context: &Context,
    ) -> Result<(), NotResolved> {
        self.baseline(label, environment, context).map(|_| ())
    }

    /// The environment `context` makes on this target (cached per environment).
    pub(super) fn baseline(
        &mut self,
        label: &str,
        environment: &Environment,
        context: &Context,
    ) -> Result<Baseline, NotResolved> {
        let entry = (label.to_string(), context.key());
        if let Some(found) = self.baselines.get(&entry) {
            return found.clone();
        }
        let made = resolve_baseline(self.index, environment, context, &self.request);
        self.baselines.insert(entry, made.clone());
        made
    }
}

/// Why the environment a file's requirements make cannot be had on a target.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the file's other requirements do not resolve for this target: {reason}")]
pub(crate) struct NotResolved {
    /// The solver's explanation, on one line.
    pub reason: String,
    /// The index data that could not be read (a page or metadata file the cache lacks under
    /// `--offline`, an index that failed), each naming its project: whether it resolves is then
    /// unknown, not "no".
    pub missing: Option<String>,
}

/// The solver's explanation on one line: its lines joined (a derivation's first line alone
/// names what is required, not what it conflicts with), the rest counted past a few.
pub(super) fn one_line(text: &str) -> String {
    const SHOWN: usize = 4;
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut joined = lines[..lines.len().min(SHOWN)].join(" ");
    if lines.len() > SHOWN {
        let more = lines.len() - SHOWN;
        joined.push_str(&format!(
            " ... ({more} more lines: `planner resolve` shows them)"
        ));
    }
    joined
}

/// The environment a file's requirements make on a target, and the releases in it whose
/// dependencies cannot be read without a build.
#[derive(Debug, Clone)]
pub(crate) struct Baseline {
    /// What `pip install` of the file would leave behind. A release whose metadata cannot be
    /// read is in it, at the version the solver chose, with no requirements of its own (what
    /// requires it is satisfied, what it requires is unknown); where no one version was chosen
    /// it is left out.
    pub inventory: Arc<Inventory>,
    /// `pypika 0.48.9 (why its metadata cannot be read)`, each such release.
    pub skipped: Vec<String>,
}

impl Baseline {
    /// What the verdict rests on when some releases' requirements are unknown.
    fn remark(&self) -> Option<String> {
        (!self.skipped.is_empty()).then(|| {
            format!(
                "judged with {} taken as they are, without their own requirements: what each of these requires is not checked (their metadata cannot be read without a build, which review never runs); the rest of the environment is judged",
                self.skipped.join(", ")
            )
        })
    }
}

/// Resolve `context` for `environment`; a root requirement whose release cannot be read
/// without a build (an sdist with dynamic or pre-2.2 metadata, no PEP 658 file) is left out and
/// named, and the rest resolved again, so one such dependency never leaves the whole file
/// unjudged. A project whose index data is missing is left out the same way, so that a conflict
/// among the rest is still found (leaving requirements out never removes one); where the rest
/// resolves, the answer is `Err` with [`NotResolved::missing`]: not judged, never "resolves".
fn resolve_baseline(
    index: &dyn IndexSource,
    environment: &Environment,
    context: &Context,
    template: &ProposeRequest,
) -> Result<Baseline, NotResolved> {
    let roots: Vec<PackageName> = (context.requirements.iter())
        .map(|r| r.name.clone())
        .collect();
    let mut context = context.clone();
    let (mut skipped, mut missing) = (Vec::new(), Vec::new());
    let mut unknown = Vec::new();
    loop {
        match resolve_inventory(index, environment, &context, template) {
            Ok(_) if !missing.is_empty() => return Err(missing_data(&missing)),
            Ok(mut inventory) => {
                for (name, version) in unknown {
                    let requested = roots.contains(&name);
                    inventory
                        .dists
                        .push(without_requirements(name, version, requested));
                }
                let inventory = Arc::new(inventory);
                return Ok(Baseline { inventory, skipped });
            }
            Err((err, left_out)) => {
                let Some(left_out) =
                    left_out.filter(|_| skipped.len() + missing.len() < MAX_SKIPPED)
                else {
                    // Leaving out projects only takes requirements away: a conflict without
                    // them is one with them too, but a failure to read the index is not an
                    // answer.
                    if missing.is_empty() || err.missing.is_none() {
                        return Err(err);
                    }
                    missing.extend(err.missing);
                    return Err(missing_data(&missing));
                };
                let (name, version, why) = match left_out {
                    LeftOut::Unreadable(unreadable) => unreadable,
                    LeftOut::Missing(name, why) => {
                        missing.push(format!("{name} ({why})"));
                        (name, None, String::new())
                    }
                };
                let written = match &version {
                    Some(version) => format!("{name} {version}"),
                    None => (context.requirements.iter())
                        .find(|r| r.name == name)
                        .map_or_else(|| name.to_string(), ToString::to_string),
                };
                if !why.is_empty() {
                    skipped.push(format!("{written} ({why})"));
                }
                if let Some(version) = version {
                    unknown.push((name.clone(), version));
                }
                // Left out wherever it is required: an override whose marker is never true.
                let Ok(never) =
                    crate::metadata::parse_requirement(&format!("{name} ; python_version < '0'"))
                else {
                    return Err(err);
                };
                context = context.without(&name).with(Role::Override, never);
            }
        }
    }
}

/// A package whose metadata cannot be read without a build, the one version the solver chose
/// where it chose one, and why.
type Unreadable = (PackageName, Option<Version>, String);

/// What a failed solve rests on that can be left out and the rest resolved again.
enum LeftOut {
    /// Metadata that cannot be read without a build.
    Unreadable(Unreadable),
    /// A project whose page or metadata the index did not give (not cached under `--offline`,
    /// an index that failed), and why.
    Missing(PackageName, String),
}

/// The environment cannot be judged: the index data named is missing.
fn missing_data(missing: &[String]) -> NotResolved {
    let missing = missing.join(", ");
    NotResolved {
        reason: format!("the index data of {missing} is missing"),
        missing: Some(missing),
    }
}

/// A release in a resolved environment whose metadata could not be read: its name and version,
/// no requirements.
fn without_requirements(name: PackageName, version: Version, requested: bool) -> InstalledDist {
    InstalledDist {
        metadata: CoreMetadata {
            metadata_version: String::new(),
            display_name: name.to_string(),
            version: version.clone(),
            requires_dist: Vec::new(),
            requires_python: None,
            provides_extra: Vec::new(),
            dynamic: Vec::new(),
            summary: None,
            project_urls: Vec::new(),
            name: name.clone(),
        },
        installer: None,
        requested,
        direct_url: None,
        top_level: Vec::new(),
        path: PathBuf::from(format!("<resolved {name}=={version}, its metadata unread>")),
        format: DistFormat::Snapshot,
        files: None,
    }
}

/// Requirements left out of one environment at most before it is called unresolved.
const MAX_SKIPPED: usize = 8;

/// The first package whose metadata the solver could not read, from a failed solve's facts.
fn unreadable_metadata(err: &solve::SolveError) -> Option<Unreadable> {
    let solve::SolveError::NoSolution(no_solution) = err else {
        return None;
    };
    no_solution.facts.iter().find_map(|fact| match fact {
        solve::Fact::Unavailable {
            package: solve::FactPackage::Dist { name, .. },
            reason:
                reason @ (solve::Unavailable::Metadata { .. } | solve::Unavailable::DynamicMetadata),
            range,
        } => Some((
            name.clone(),
            range.as_singleton().cloned(),
            reason.to_string(),
        )),
        _ => None,
    })
}

/// Resolve `context` and turn the resolution into an installed set whose metadata the
/// resolution carries; on failure, the reason and the unreadable package it rests on, if any.
fn resolve_inventory(
    index: &dyn IndexSource,
    environment: &Environment,
    context: &Context,
    template: &ProposeRequest,
) -> Result<Inventory, (NotResolved, Option<LeftOut>)> {
    let request = SolveRequest {
        requirements: context.requirements.clone(),
        constraints: context.constraints.clone(),
        overrides: context
            .overrides
            .iter()
            .map(|requirement| Override {
                requirement: requirement.clone(),
                only_from: None,
            })
            .collect(),
        prerelease: template.prerelease,
        binary: template.binary.clone(),
        ..SolveRequest::default()
    };
    let resolution = solve::solve(index, environment, &request).map_err(|err| {
        let reason = one_line(&err.to_string());
        let (missing, left_out) = match &err {
            solve::SolveError::Index {
                package, source, ..
            } => {
                let why = one_line(&source.to_string());
                let left_out = LeftOut::Missing(package.clone(), why.clone());
                (Some(format!("{package} ({why})")), Some(left_out))
            }
            _ => (None, unreadable_metadata(&err).map(LeftOut::Unreadable)),
        };
        (NotResolved { reason, missing }, left_out)
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
            files: None,
        })
        .collect();
    Ok(Inventory {
        environment: environment.clone(),
        dists,
        unreadable: Vec::new(),
    })
}
