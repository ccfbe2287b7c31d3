//! The rules a [`SolveRequest`] sets, read once: which overrides and constraints apply to a
//! name, which pre-releases and yanked releases may be used, which version is preferred.
//!
//! In: the request and the target [`Environment`]. Out: [`Rules`], plain lookups with no IO and
//! no cache, shared by the provider (to answer pubgrub) and the explainer (to word a failure the
//! way the solver decided it).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use pep440_rs::Version;
use pep508_rs::{ExtraName, PackageName, Requirement};
use pubgrub::Ranges;

use crate::inventory::Environment;
use crate::metadata::{CoreMetadata, requirement};

use super::candidates::VersionTable;
use super::ranges::{is_exact_pin, names_prerelease, specifiers_to_ranges};
use super::{Override, PrereleaseMode, SolveRequest};

/// The request's rules, by name. See the module docs.
pub(crate) struct Rules<'a> {
    /// The request itself.
    pub(crate) request: &'a SolveRequest,
    /// The target Python, release only (`3.12.0`).
    pub(crate) python: Version,
    /// Overrides by the name they replace.
    pub(crate) overrides: HashMap<PackageName, Vec<&'a Override>>,
    /// Constraint ranges per name (markers already evaluated).
    pub(crate) constraints: HashMap<PackageName, Ranges<Version>>,
    /// Names whose root requirements, constraints or overrides name a pre-release.
    explicit_prerelease: HashSet<PackageName>,
    /// Exact pins (`==`, `===`) among root requirements, constraints and overrides.
    pins: HashMap<PackageName, Vec<Ranges<Version>>>,
    /// The installed metadata per name (the request's preferences).
    pub(crate) installed: HashMap<PackageName, Arc<CoreMetadata>>,
    /// Names the request itself asks a version range of, beside the installed dists it keeps,
    /// each with its place among them: root requirements with specifiers that are not
    /// [`SolveRequest::installed_roots`] (`torch<2.9`, not the bare `torch` that keeps an
    /// installed dist). Empty when the request keeps no installed dist (a lock, `resolve`,
    /// review's base): there nothing decided before the request's own ranges crowds them out.
    asked_ranges: HashMap<PackageName, usize>,
}

impl<'a> Rules<'a> {
    /// Read the rules of `request` for the target `env`.
    pub(crate) fn new(request: &'a SolveRequest, env: &Environment) -> Self {
        let mut overrides: HashMap<PackageName, Vec<&Override>> = HashMap::new();
        for o in &request.overrides {
            overrides
                .entry(o.requirement.name.clone())
                .or_default()
                .push(o);
        }
        let mut explicit_prerelease = HashSet::new();
        let mut pins: HashMap<PackageName, Vec<Ranges<Version>>> = HashMap::new();
        for r in explicit(request) {
            if let Some(specs) = requirement::specifiers(r) {
                if names_prerelease(specs) {
                    explicit_prerelease.insert(r.name.clone());
                }
                if is_exact_pin(specs) {
                    pins.entry(r.name.clone())
                        .or_default()
                        .push(specifiers_to_ranges(specs));
                }
            }
        }
        Rules {
            request,
            python: env.python_version.only_release(),
            overrides,
            constraints: constraint_ranges(request, env),
            explicit_prerelease,
            pins,
            installed: installed(request),
            asked_ranges: asked_ranges(request),
        }
    }

    /// Where the request itself asks a version range of `name` among those it asks (`None`: it
    /// asks none): the provider's first attempt decides such names first, in that order, before
    /// the dists the request only keeps (see [`super::provider::Order::AskedFirst`]).
    pub(crate) fn asked_range(&self, name: &PackageName) -> Option<usize> {
        self.asked_ranges.get(name).copied()
    }

    /// How many names the request asks a version range of beside the dists it keeps.
    pub(crate) fn asked_ranges(&self) -> usize {
        self.asked_ranges.len()
    }

    /// Whether the user wrote a requirement, constraint or override on `name`.
    pub(crate) fn user_named(&self, name: &PackageName) -> bool {
        explicit(self.request).any(|r| &r.name == name)
    }

    /// Whether pre-releases of `name` are candidates.
    pub(crate) fn prereleases_allowed(&self, name: &PackageName, table: &VersionTable) -> bool {
        match self.request.prerelease {
            PrereleaseMode::Allow => true,
            PrereleaseMode::Disallow => false,
            PrereleaseMode::IfNecessary => {
                self.explicit_prerelease.contains(name) || !table.has_final
            }
        }
    }

    /// Whether a yanked `name==version` may be used (PEP 592: an exact pin asks for it).
    pub(crate) fn yank_allowed(&self, name: &PackageName, version: &Version) -> bool {
        self.pins
            .get(name)
            .is_some_and(|ranges| ranges.iter().any(|r| r.contains(version)))
    }

    /// The installed version of `name`, unless it is being upgraded.
    pub(crate) fn preferred(&self, name: &PackageName) -> Option<&Version> {
        if self.request.upgrade.contains(name) {
            return None;
        }
        self.installed.get(name).map(|m| &m.version)
    }
}

/// The installed metadata per name: the request's preferences.
pub(crate) fn installed(request: &SolveRequest) -> HashMap<PackageName, Arc<CoreMetadata>> {
    request
        .preferences
        .iter()
        .map(|(name, c)| (name.clone(), c.metadata.clone()))
        .collect()
}

/// The names of the root requirements with version specifiers that neither the installed
/// environment nor a release's own file ([`SolveRequest::root_origins`]) makes, when the request
/// keeps installed dists, each with its place among them (see [`Rules::asked_range`]): the order the
/// request names them in, except that one whose installed release requires another comes before
/// it (`sympy<1.13.3 torch<2.9` decides torch first, as `torch<2.9 sympy<1.13.3` does: torch
/// 2.6.0 with the sympy 1.13.1 it pins, not sympy 1.13.2 first and then torch 2.4.1).
fn asked_ranges(request: &SolveRequest) -> HashMap<PackageName, usize> {
    let mut names: Vec<&PackageName> = Vec::new();
    if request.installed_roots.is_empty() {
        return HashMap::new();
    }
    let implied = |name: &PackageName| request.root_origins.iter().any(|(r, _)| &r.name == name);
    for r in (request.requirements.iter())
        .filter(|r| !request.installed_roots.contains(&r.name) && !implied(&r.name))
        .filter(|r| goes_back(request, r))
    {
        if !names.contains(&&r.name) {
            names.push(&r.name);
        }
    }
    let requires_another = |name: &PackageName| {
        request.preferences.get(name).is_some_and(|installed| {
            (installed.metadata.requires_dist.iter())
                .any(|r| &r.name != name && names.contains(&&r.name))
        })
    };
    let mut ordered = names.clone();
    ordered.sort_by_key(|name| !requires_another(name));
    (ordered.into_iter().enumerate())
        .map(|(i, name)| (name.clone(), i))
        .collect()
}

/// Whether `requirement` asks only for releases below its installed one (`torch<2.9` beside
/// torch 2.9.1, `sympy<1.13.3` beside 1.14.0). Only such a range is decided first: one that
/// moves up (`openai>=1` beside 0.28.1, `triton==3.6.0` beside 3.5.1) takes the newest release
/// that fits what is kept, as before; decided first, `openai>=1` took openai 3.63.0 and moved
/// langchain 0.0.300 to 1.5.2 to make room (its users' `langchain.llms` gone), where openai
/// 2.54.0 fits beside it.
fn goes_back(request: &SolveRequest, requirement: &Requirement) -> bool {
    let Some(specifiers) = requirement::specifiers(requirement).filter(|s| !s.is_empty()) else {
        return false;
    };
    let Some(installed) = request.preferences.get(&requirement.name) else {
        return false;
    };
    let installed = &installed.metadata.version;
    let allowed = specifiers_to_ranges(specifiers);
    !allowed.contains(installed)
        && allowed
            .intersection(&Ranges::strictly_higher_than(installed.clone()))
            .is_empty()
}

/// The root requirements, constraints and overrides: what the user wrote.
fn explicit(request: &SolveRequest) -> impl Iterator<Item = &Requirement> {
    request
        .requirements
        .iter()
        .chain(&request.constraints)
        .chain(request.overrides.iter().map(|o| &o.requirement))
}

/// The constraints whose markers hold, intersected per name.
fn constraint_ranges(
    request: &SolveRequest,
    env: &Environment,
) -> HashMap<PackageName, Ranges<Version>> {
    let no_extras: &[ExtraName] = &[];
    let mut constraints: HashMap<PackageName, Ranges<Version>> = HashMap::new();
    for c in &request.constraints {
        if !c.evaluate_markers(&env.markers, no_extras) {
            continue;
        }
        if let Some(specs) = requirement::specifiers(c) {
            let range = specifiers_to_ranges(specs);
            let entry = constraints
                .entry(c.name.clone())
                .or_insert_with(Ranges::full);
            *entry = entry.intersection(&range);
        }
    }
    constraints
}
