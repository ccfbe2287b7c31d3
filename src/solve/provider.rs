//! The pubgrub [`DependencyProvider`]: the trait and the edges it hands pubgrub, nothing else.
//!
//! In: the [`Catalog`] (version tables and metadata), the request's [`Rules`] and the target
//! environment. Out: pubgrub's answers (the version to try, a release's dependencies as edges or
//! why it is unusable, priorities, cancellation at the step and time budget); and, for the resolve
//! loop, the edges recorded per decided release and every edge an override replaced.
//!
//! pubgrub is single-threaded and calls the provider through `&self`, so the records are
//! `RefCell`s. Every answer depends only on the request and the index's data, never on timing,
//! so a resolution is deterministic.

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use pep440_rs::Version;
use pep508_rs::{ExtraName, PackageName, Requirement, VersionOrUrl};
use pubgrub::{Dependencies, DependencyProvider, PackageResolutionStatistics, Ranges};

use crate::inventory::Environment;
use crate::metadata::{CoreMetadata, requirement};

use super::candidates::{InstallChoice, VersionTable};
use super::catalog::Catalog;
use super::correspond::policy_range;
use super::error::{SolveError, Unavailable};
use super::package::Pkg;
use super::ranges::{render, requires_python_to_ranges, specifiers_to_ranges};
use super::rules::Rules;
use super::{Dependent, OverriddenEdge, Override};

/// A dependency edge as pubgrub takes it.
pub(crate) type Edge = (Pkg, Ranges<Version>);

/// The dependency edges computed per decided (package, version).
type EdgeCache = HashMap<(Pkg, Version), Arc<Vec<Edge>>>;

/// Member releases whose edge on their anchor a coupled-group rule added.
pub(crate) type CoupledReleases = HashSet<(PackageName, Version)>;

/// How many versions of a range the request asks the first attempt tries before it gives up
/// (`torch<2.9 sympy<1.13.3` tries four: torch 2.8.0, 2.7.1 and 2.7.0 each require
/// `sympy>=1.13.3`, 2.6.0 pins `sympy==1.13.1`).
const ASKED_VERSIONS_TRIED: u32 = 8;

/// The order in which the provider decides packages (see [`super::resolve::run`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// The first attempt, for a request that asks version ranges beside the installed dists it
    /// keeps ([`Rules::asked_range`]): those ranges first, in that order, then as [`Order::Met`].
    /// It gives up ([`Provider::gave_up`]) as soon as that costs a walk: a decision of an asked
    /// range undone after other decisions were made on it (review's `pydantic<2` beside
    /// fastapi 0.165.0: pydantic 1.10.27 decided first, then every fastapi release read, then
    /// pydantic 1.10.26, and so on down the 1.x releases), or more than
    /// [`ASKED_VERSIONS_TRIED`] versions of it tried.
    AskedFirst,
    /// Pins first, then by conflicts and by the order packages were met: the installed dists a
    /// request keeps (its first root requirements) before its targets.
    Met,
}

/// The provider. See the module docs.
pub(crate) struct Provider<'c, 'a> {
    catalog: &'c Catalog<'a>,
    rules: &'c Rules<'a>,
    order: Order,
    /// Per asked range in [`Order::AskedFirst`]: how many versions were chosen.
    asked_tried: RefCell<HashMap<PackageName, u32>>,
    /// The package the last version was chosen for.
    last_chosen: RefCell<Option<Pkg>>,
    /// Why [`Order::AskedFirst`] gave up, once it has.
    gave_up: RefCell<Option<String>>,
    env: &'a Environment,
    edges: RefCell<EdgeCache>,
    overridden: RefCell<Vec<OverriddenEdge>>,
    coupled: RefCell<CoupledReleases>,
    seen: RefCell<HashMap<Pkg, usize>>,
    conflicts: RefCell<HashMap<Pkg, u32>>,
    /// Edges of the releases read since pubgrub last chose a version (see
    /// [`Provider::send_prefetch`]).
    unsent: RefCell<Vec<Arc<Vec<Edge>>>>,
    steps: Cell<u64>,
    start: Instant,
}

impl<'c, 'a> Provider<'c, 'a> {
    pub(crate) fn new(catalog: &'c Catalog<'a>, rules: &'c Rules<'a>, order: Order) -> Self {
        Provider {
            catalog,
            rules,
            order,
            asked_tried: RefCell::default(),
            last_chosen: RefCell::default(),
            gave_up: RefCell::default(),
            env: catalog.env(),
            edges: RefCell::default(),
            overridden: RefCell::default(),
            coupled: RefCell::default(),
            seen: RefCell::default(),
            conflicts: RefCell::default(),
            unsent: RefCell::default(),
            steps: Cell::new(0),
            start: Instant::now(),
        }
    }

    /// Why the [`Order::AskedFirst`] attempt gave up (`None`: it did not).
    pub(crate) fn gave_up(&self) -> Option<String> {
        self.gave_up.borrow().clone()
    }

    /// Where `package` stands among the ranges the request asks, in [`Order::AskedFirst`].
    fn asked(&self, package: &Pkg) -> Option<usize> {
        match (self.order, package) {
            (Order::AskedFirst, Pkg::Dist(name)) => self.rules.asked_range(name),
            _ => None,
        }
    }

    /// In [`Order::AskedFirst`], whether choosing a version of `package` now costs a walk (see
    /// [`Order::AskedFirst`]); if so, why, also kept for [`Provider::gave_up`]. A version
    /// rejected as soon as its dependencies are read is chosen again at once (an asked range
    /// comes first), so only a decision undone after other choices counts as a backtrack.
    fn walks(&self, package: &Pkg) -> Option<String> {
        let (Some(_), Pkg::Dist(name)) = (self.asked(package), package) else {
            *self.last_chosen.borrow_mut() = Some(package.clone());
            return None;
        };
        let again = self.last_chosen.replace(Some(package.clone())).as_ref() == Some(package);
        let mut tried = self.asked_tried.borrow_mut();
        let count = tried.entry(name.clone()).or_default();
        *count += 1;
        let why = if *count > 1 && !again {
            format!("a decision of {name} was undone after later ones")
        } else if *count > ASKED_VERSIONS_TRIED {
            format!("more than {ASKED_VERSIONS_TRIED} versions of {name} were tried")
        } else {
            return None;
        };
        *self.gave_up.borrow_mut() = Some(why.clone());
        Some(why)
    }

    /// Every edge an override replaced so far (unsorted, with duplicates).
    pub(crate) fn overridden(&self) -> Vec<OverriddenEdge> {
        self.overridden.borrow().clone()
    }

    /// The Python range a release needs (file-level and metadata `Requires-Python`).
    fn python_range(
        &self,
        table: &VersionTable,
        version: &Version,
        metadata: Option<&CoreMetadata>,
    ) -> Ranges<Version> {
        let mut range = Ranges::full();
        let entry = table.get(version);
        match entry.map(|e| table.choice(e)) {
            Some(InstallChoice::File { file, .. }) => {
                if let Some(rp) = &table.listed_file(*file).requires_python {
                    range = range.intersection(&requires_python_to_ranges(rp));
                }
            }
            Some(InstallChoice::RequiresPython(rp)) => {
                range = range.intersection(&requires_python_to_ranges(rp));
            }
            _ => {}
        }
        if let Some(rp) = metadata.and_then(|m| m.requires_python.as_ref()) {
            range = range.intersection(&requires_python_to_ranges(rp));
        }
        range
    }

    /// Turn requirements into pubgrub edges: overrides, constraints, extras, URLs.
    fn edges(
        &self,
        dependent: &Pkg,
        dependent_version: &Version,
        requirements: &[&Requirement],
        extras: &[ExtraName],
    ) -> Result<Result<Vec<Edge>, Unavailable>, SolveError> {
        let mut out: Vec<Edge> = Vec::new();
        for &original in requirements {
            let replaced: Vec<&Requirement> = match self.rules.overrides.get(&original.name) {
                Some(list) => {
                    let applicable: Vec<&Override> = list
                        .iter()
                        .copied()
                        .filter(|o| match (&o.only_from, dependent.name()) {
                            (None, _) => true,
                            (Some(from), Some(name)) => from.contains(name),
                            (Some(_), None) => false,
                        })
                        .collect();
                    if applicable.is_empty() {
                        vec![original]
                    } else {
                        let active: Vec<&Requirement> = applicable
                            .iter()
                            .map(|o| &o.requirement)
                            .filter(|r| r.evaluate_markers(&self.env.markers, extras))
                            .collect();
                        let who = match dependent {
                            Pkg::Root => Some(Dependent::Root),
                            Pkg::Dist(name) | Pkg::Extra(name, _) => Some(Dependent::Dist {
                                name: name.clone(),
                                version: dependent_version.clone(),
                            }),
                            Pkg::Python => None,
                        };
                        if let Some(who) = who {
                            for replacement in &applicable {
                                if replacement.requirement != *original {
                                    self.overridden.borrow_mut().push(OverriddenEdge {
                                        dependent: who.clone(),
                                        original: original.clone(),
                                        replacement: replacement.requirement.clone(),
                                    });
                                }
                            }
                        }
                        active
                    }
                }
                None => vec![original],
            };
            for requirement in replaced {
                let mut range = match &requirement.version_or_url {
                    None => Ranges::full(),
                    Some(VersionOrUrl::VersionSpecifier(specs)) => specifiers_to_ranges(specs),
                    Some(VersionOrUrl::Url(_)) => {
                        if *dependent == Pkg::Root {
                            return Err(SolveError::DirectUrl {
                                requirement: without_secrets(&requirement),
                                name: requirement.name.clone(),
                            });
                        }
                        return Ok(Err(Unavailable::DirectUrl {
                            requirement: without_secrets(&requirement),
                        }));
                    }
                };
                if let Some(constraint) = self.rules.constraints.get(&requirement.name) {
                    range = range.intersection(constraint);
                }
                let name = &requirement.name;
                let is_self = matches!(dependent, Pkg::Dist(n) if n == name);
                if is_self {
                    if !range.contains(dependent_version) {
                        return Ok(Err(Unavailable::SelfConflict));
                    }
                } else {
                    out.push((Pkg::Dist(name.clone()), range.clone()));
                }
                for extra in &requirement.extras {
                    out.push((Pkg::Extra(name.clone(), extra.clone()), range.clone()));
                }
            }
        }
        Ok(Ok(out))
    }

    fn remember(&self, pkg: &Pkg, version: &Version, edges: Vec<Edge>) -> Vec<Edge> {
        {
            let mut seen = self.seen.borrow_mut();
            for (dep, _) in &edges {
                let next = seen.len();
                seen.entry(dep.clone()).or_insert(next);
            }
        }
        let shared = Arc::new(edges.clone());
        self.unsent.borrow_mut().push(shared.clone());
        self.edges
            .borrow_mut()
            .insert((pkg.clone(), version.clone()), shared);
        edges
    }

    /// The coupled-group rules on `name` as a member, as edges of this release on its anchors
    /// (see [`policy_range`]: only where the release's own metadata is silent about the anchor
    /// or looser than its binary coupling). `requirements` are the release's own (markers
    /// evaluated), before constraints narrow them.
    fn coupling_edges(
        &self,
        name: &PackageName,
        version: &Version,
        table: &VersionTable,
        requirements: &[&Requirement],
    ) -> Result<Vec<Edge>, SolveError> {
        let mut out = Vec::new();
        let rules = self.rules.request.correspondences.iter();
        for c in rules.filter(|c| &c.member == name && &c.anchor != name) {
            let declared = requirements
                .iter()
                .filter(|r| r.name == c.anchor)
                .map(|r| requirement::specifiers(r).map_or_else(Ranges::full, specifiers_to_ranges))
                .reduce(|a, b| a.intersection(&b));
            let anchors: Vec<Version> = self
                .catalog
                .table(&c.anchor)?
                .versions
                .iter()
                .map(|e| e.version.clone())
                .collect();
            let bound = table.cpython_bound(version);
            if let Some(range) = policy_range(c, version, declared.as_ref(), bound, &anchors) {
                self.coupled
                    .borrow_mut()
                    .insert((name.clone(), version.clone()));
                out.push((Pkg::Dist(c.anchor.clone()), range));
            }
        }
        Ok(out)
    }

    /// The member releases a coupled-group rule added an edge to (for the explanation, which
    /// names such an edge as policy, never as the release's dependency).
    pub(crate) fn coupled(&self) -> CoupledReleases {
        self.coupled.borrow().clone()
    }

    /// The edges recorded for a decided package (for `via`).
    pub(crate) fn recorded_edges(&self, pkg: &Pkg, version: &Version) -> Option<Arc<Vec<Edge>>> {
        self.edges
            .borrow()
            .get(&(pkg.clone(), version.clone()))
            .cloned()
    }

    fn dist_dependencies(
        &self,
        pkg: &Pkg,
        name: &PackageName,
        version: &Version,
        extra: Option<&ExtraName>,
    ) -> Result<Dependencies<Pkg, Ranges<Version>, Unavailable>, SolveError> {
        let table = self.catalog.table(name)?;
        let pin: Vec<Edge> = match extra {
            Some(_) => vec![(Pkg::Dist(name.clone()), Ranges::singleton(version.clone()))],
            None => Vec::new(),
        };
        let Some(entry) = table.get(version) else {
            return Ok(Dependencies::Available(pin.into_iter().collect()));
        };
        match table.choice(entry) {
            InstallChoice::Unusable(reason) if extra.is_none() => {
                return Ok(Dependencies::Unavailable(reason.clone()));
            }
            InstallChoice::File {
                yanked: Some(reason),
                ..
            } if extra.is_none() && !self.rules.yank_allowed(name, version) => {
                return Ok(Dependencies::Unavailable(Unavailable::Yanked {
                    reason: reason.clone(),
                }));
            }
            InstallChoice::Unusable(_) => {
                return Ok(Dependencies::Available(pin.into_iter().collect()));
            }
            _ => {}
        }
        // A file-level requires-python that excludes the target: say so without fetching
        // metadata.
        let file_python = self.python_range(&table, version, None);
        if !file_python.contains(&self.rules.python)
            || matches!(table.choice(entry), InstallChoice::RequiresPython(_))
        {
            if file_python.contains(&self.rules.python) {
                // The index's PEP 440 check and the release-only range disagree (a pre-release
                // target Python); the version has no file either way.
                return Ok(Dependencies::Unavailable(Unavailable::RequiresPython {
                    specifier: render(&file_python).unwrap_or_default(),
                }));
            }
            let mut edges = pin;
            if extra.is_none() {
                edges.push((Pkg::Python, file_python));
            }
            let edges = self.remember(pkg, version, edges);
            return Ok(Dependencies::Available(edges.into_iter().collect()));
        }
        let metadata = match self
            .catalog
            .solver_release_metadata(name, &table, version)?
        {
            Ok(m) => m,
            Err(reason) if extra.is_none() => return Ok(Dependencies::Unavailable(reason)),
            Err(_) => return Ok(Dependencies::Available(pin.into_iter().collect())),
        };
        let mut edges = pin;
        let requirements: Vec<&Requirement> = match extra {
            None => {
                let python = self.python_range(&table, version, Some(&metadata));
                if python != Ranges::full() {
                    edges.push((Pkg::Python, python));
                }
                metadata
                    .requires_dist
                    .iter()
                    .filter(|r| r.evaluate_markers(&self.env.markers, &[]))
                    .collect()
            }
            Some(extra) => {
                let with = std::slice::from_ref(extra);
                metadata
                    .requires_dist
                    .iter()
                    .filter(|r| {
                        r.evaluate_markers(&self.env.markers, with)
                            && !r.evaluate_markers(&self.env.markers, &[])
                    })
                    .collect()
            }
        };
        let extras: Vec<ExtraName> = extra.into_iter().cloned().collect();
        match self.edges(pkg, version, &requirements, &extras)? {
            Ok(more) => edges.extend(more),
            Err(reason) => return Ok(Dependencies::Unavailable(reason)),
        }
        if extra.is_none() {
            let coupling = self.coupling_edges(name, version, &table, &requirements)?;
            edges.extend(coupling);
        }
        let edges = self.remember(pkg, version, edges);
        Ok(Dependencies::Available(edges.into_iter().collect()))
    }

    /// Prefetch the edges of the releases read since the last call. Called when pubgrub
    /// chooses its next version (before that version's table is built), not when it reads a
    /// release's dependencies, and not when the package to choose is [`Provider::doomed`]: a
    /// release whose dependencies end the solve in a conflict (`torch==2.11.0 triton==3.7.0`)
    /// then fetches nothing more, where sending at once started a dozen page and metadata reads
    /// the answer never used, beside the unsatisfiable request's hint reads. Otherwise the
    /// next choice comes microseconds later. (A prefetch job for a pin does not spread to its
    /// release's dependencies either: [`PrefetchJob`].)
    fn send_prefetch(&self) {
        let unsent = std::mem::take(&mut *self.unsent.borrow_mut());
        self.catalog.prefetch(
            unsent
                .iter()
                .flat_map(|edges| edges.iter())
                .filter_map(|(dep, range)| Some((dep.name()?, range))),
            |name| self.rules.preferred(name).cloned(),
        );
    }

    /// The version of `package` in `range` pubgrub decides on next (`None`: none is left).
    fn choose(
        &self,
        package: &Pkg,
        range: &Ranges<Version>,
    ) -> Result<Option<Version>, SolveError> {
        match package {
            Pkg::Root => {
                let root = Version::new([0]);
                Ok(range.contains(&root).then_some(root))
            }
            Pkg::Python => Ok(range
                .contains(&self.rules.python)
                .then(|| self.rules.python.clone())),
            Pkg::Dist(name) | Pkg::Extra(name, _) => {
                let table = self.catalog.table(name)?;
                Ok(self.pick(name, &table, range))
            }
        }
    }

    /// The version of `name` in `range` to try: the preferred one (installed or locked), else
    /// the newest usable; `None` when none is left.
    fn pick(
        &self,
        name: &PackageName,
        table: &VersionTable,
        range: &Ranges<Version>,
    ) -> Option<Version> {
        if let Some(preferred) = self.rules.preferred(name)
            && range.contains(preferred)
        {
            return Some(preferred.clone());
        }
        let prereleases = self.rules.prereleases_allowed(name, table);
        let installed = self.rules.installed.get(name).map(|m| &m.version);
        table
            .versions
            .iter()
            .rev()
            .find(|entry| {
                range.contains(&entry.version)
                    && !table.excluded_by_binary_policy(entry)
                    && (prereleases
                        || !entry.version.any_prerelease()
                        || Some(&entry.version) == installed)
            })
            .map(|entry| entry.version.clone())
    }

    /// Whether `package` is pinned to one release (a `==` range, some of its versions maybe
    /// ruled out) of which no version is left: its table is at hand and lists none in `range`,
    /// nor is the installed version in it. Such a package is decided first: it fails at once,
    /// with no metadata to fetch, where deciding others first could wait on the index for
    /// nothing (`torch==2.11.0 triton==3.7.0`: once 2.11.0 is ruled out, `torch==2.11.0` has
    /// only its local versions left, none published). Among such packages the usual order holds
    /// (an extra before its base, so that an explanation names `a[x]==1.0` as the user wrote
    /// it).
    ///
    /// Only pins: deciding every empty range first changed the order of `propose --all`'s
    /// solves enough to cost 7% more decisions there. Versions only, not which files are usable:
    /// that would build files for packages never decided.
    fn doomed(&self, package: &Pkg, range: &Ranges<Version>) -> bool {
        let (Pkg::Dist(name) | Pkg::Extra(name, _)) = package else {
            return false;
        };
        super::ranges::is_pin(range)
            && !self
                .rules
                .preferred(name)
                .is_some_and(|v| range.contains(v))
            && self
                .catalog
                .cached_table(name)
                .is_some_and(|table| !table.versions.iter().any(|e| range.contains(&e.version)))
    }

    /// What the solver was fighting over (for the budget error).
    fn contested(&self) -> String {
        let conflicts = self.conflicts.borrow();
        let mut top: Vec<(&Pkg, &u32)> = conflicts.iter().filter(|(_, c)| **c > 0).collect();
        top.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        if top.is_empty() {
            return "no package had conflicts yet (the index may be slow)".to_string();
        }
        let names: Vec<String> = top
            .iter()
            .take(5)
            .map(|(p, c)| format!("{p} ({c} conflicts)"))
            .collect();
        format!("most contested: {}", names.join(", "))
    }
}

impl DependencyProvider for Provider<'_, '_> {
    type P = Pkg;
    type V = Version;
    type VS = Ranges<Version>;
    type M = Unavailable;
    type Err = SolveError;
    type Priority = (bool, u8, Reverse<usize>, u32, Reverse<usize>);

    fn prioritize(
        &self,
        package: &Pkg,
        range: &Ranges<Version>,
        stats: &PackageResolutionStatistics,
    ) -> Self::Priority {
        let conflicts = stats.conflict_count();
        if conflicts > 0 {
            self.conflicts
                .borrow_mut()
                .insert(package.clone(), conflicts);
        }
        let class = match package {
            Pkg::Root => 9,
            Pkg::Python => 8,
            Pkg::Extra(..) => 3,
            Pkg::Dist(_) => {
                let exact = range.as_singleton().is_some()
                    || matches!(range.iter().collect::<Vec<_>>().as_slice(),
                        [(std::ops::Bound::Included(a), std::ops::Bound::Excluded(b))]
                            if super::ranges::hull_upper(a) == *b);
                if exact { 2 } else { 1 }
            }
        };
        let seen = {
            let mut seen = self.seen.borrow_mut();
            let next = seen.len();
            *seen.entry(package.clone()).or_insert(next)
        };
        // An asked range comes first ([`Order::AskedFirst`]), before the pins derived from what
        // it decided, each in its place (`usize::MAX` for the rest).
        let asked = self.asked(package);
        let class = if asked.is_some() { 2 } else { class };
        (
            self.doomed(package, range),
            class,
            Reverse(asked.unwrap_or(usize::MAX)),
            conflicts,
            Reverse(seen),
        )
    }

    fn choose_version(
        &self,
        package: &Pkg,
        range: &Ranges<Version>,
    ) -> Result<Option<Version>, SolveError> {
        self.steps.set(self.steps.get() + 1);
        if let Some(why) = self.walks(package) {
            return Err(SolveError::Internal {
                message: format!("the request's ranges decided first cost a walk: {why}"),
            });
        }
        if !self.doomed(package, range) {
            self.send_prefetch();
        }
        self.choose(package, range)
    }

    fn get_dependencies(
        &self,
        package: &Pkg,
        version: &Version,
    ) -> Result<Dependencies<Pkg, Ranges<Version>, Unavailable>, SolveError> {
        match package {
            Pkg::Root => {
                let requirements: Vec<&Requirement> = self
                    .rules
                    .request
                    .requirements
                    .iter()
                    .filter(|r| r.evaluate_markers(&self.env.markers, &[]))
                    .collect();
                match self.edges(package, version, &requirements, &[])? {
                    Ok(edges) => {
                        let edges = self.remember(package, version, edges);
                        Ok(Dependencies::Available(edges.into_iter().collect()))
                    }
                    Err(reason) => Ok(Dependencies::Unavailable(reason)),
                }
            }
            Pkg::Python => Ok(Dependencies::Available(Default::default())),
            Pkg::Dist(name) => self.dist_dependencies(package, name, version, None),
            Pkg::Extra(name, extra) => self.dist_dependencies(package, name, version, Some(extra)),
        }
    }

    fn should_cancel(&self) -> Result<(), SolveError> {
        let limits = self.rules.request.limits;
        let elapsed = self.start.elapsed();
        if self.steps.get() > limits.max_steps || elapsed > limits.max_time {
            return Err(SolveError::Budget {
                steps: self.steps.get(),
                seconds: elapsed.as_secs_f64(),
                max_steps: limits.max_steps,
                max_seconds: limits.max_time.as_secs(),
                partial: self.contested(),
            });
        }
        Ok(())
    }
}
/// A requirement as written, its URL's credentials (`https://user:token@host/...`) and query
/// shown as `****`: it is quoted in errors.
fn without_secrets(requirement: &impl std::fmt::Display) -> String {
    requirement
        .to_string()
        .split(' ')
        .map(|word| {
            if word.contains("://") {
                crate::index::auth::redact_str(word)
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;
    use std::sync::Arc;

    use pep440_rs::Version;
    use pep508_rs::{PackageName, Requirement};

    use super::super::catalog::{Catalog, CatalogCore};
    use super::super::mem_index::MemIndex;
    use super::super::package::Pkg;
    use super::super::rules::{self, Rules};
    use super::super::{InstalledCandidate, SolveRequest};
    use super::{Order, Provider};
    use crate::inventory::Environment;
    use crate::metadata::CoreMetadata;

    /// What pubgrub selects for `request` over `index` in `order`, and why the first attempt
    /// gave up, if it did.
    fn selected(
        index: &MemIndex,
        request: &SolveRequest,
        order: Order,
    ) -> (Option<Vec<String>>, Option<String>) {
        let env = Environment::synthesize("3.12.3", Some("x86_64-manylinux_2_28")).unwrap();
        let rules = Rules::new(request, &env);
        let core = CatalogCore::new(index, &env, &request.binary, rules::installed(request));
        let catalog = Catalog::new(&core, None);
        let provider = Provider::new(&catalog, &rules, order);
        let solved = pubgrub::resolve(&provider, Pkg::Root, Version::new([0])).ok();
        let pins = solved.map(|selected| {
            let mut pins: Vec<String> = (selected.iter())
                .filter_map(|(p, v)| Some(format!("{}=={v}", p.name()?)))
                .collect();
            pins.sort();
            pins
        });
        (pins, provider.gave_up())
    }

    /// The first attempt, a range the request asks decided before the installed dists it keeps
    /// (`b<3`, below the installed b 3.0), gives up as soon as a decision of that range is undone
    /// after later ones: `b<3` decided
    /// first takes b 2.5 (and the `c==1` it pins), the kept `a 2.0` needs `c>=2`, so b 2.5 is
    /// undone after c and a were chosen. Going on would walk b's releases one by one, each after
    /// the decisions made on it (review's `pydantic<2` beside fastapi 0.165.0 read every
    /// pydantic 1.x release so); the order met answers instead (a first, then b: 2.5 rejected as
    /// soon as it is read, 2.4).
    #[test]
    fn deciding_the_asked_range_first_gives_up_when_its_decision_is_undone() {
        let mut index = MemIndex::new();
        index
            .add("a", "2.0", &["c>=2"])
            .add("b", "2.4", &["c==2"])
            .add("b", "2.5", &["c==1"])
            .add("c", "1", &[])
            .add("c", "2", &[]);
        let text = "Metadata-Version: 2.4\nName: a\nVersion: 2.0\nRequires-Dist: c>=2\n";
        let a = InstalledCandidate {
            metadata: Arc::new(CoreMetadata::parse_str(text).unwrap()),
            import_names: Vec::new(),
        };
        let name = PackageName::from_str("a").unwrap();
        let mut request = SolveRequest {
            requirements: vec![
                Requirement::from_str("a").unwrap(),
                Requirement::from_str("b<3").unwrap(),
            ],
            ..SolveRequest::default()
        };
        request.preferences.insert(name.clone(), a);
        request.installed_roots.insert(name);
        let b = InstalledCandidate {
            metadata: Arc::new(
                CoreMetadata::parse_str("Metadata-Version: 2.4\nName: b\nVersion: 3.0\n").unwrap(),
            ),
            import_names: Vec::new(),
        };
        request
            .preferences
            .insert(PackageName::from_str("b").unwrap(), b);
        let first = selected(&index, &request, Order::AskedFirst);
        let why = "a decision of b was undone after later ones";
        assert_eq!(first, (None, Some(why.to_string())));
        let met = selected(&index, &request, Order::Met);
        let pins = ["a==2.0", "b==2.4", "c==2"].map(String::from).to_vec();
        assert_eq!(met, (Some(pins), None));
    }
}
