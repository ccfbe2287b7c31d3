//! Why there is no solution, in Python terms.
//!
//! In: pubgrub's derivation tree, the [`Catalog`] (the versions each project has; the lookups a
//! hint needs, such as "did you mean" probes and which releases of a blocker accept a request,
//! go through it) and the request's [`Rules`]; never the provider. Out: a [`NoSolution`]: the
//! report, hints, the packages involved and the external facts as data.
//!
//! The passes, in the order uv applies them (see the tech brief, §2):
//! 1. facts are collected from the raw tree (so "no versions of Y match" survives for `propose`);
//! 2. "no versions" leaves over phantom ranges are dropped: what is left of `==V`'s hull once
//!    `V` itself is ruled out (`>V, <V.post0.dev0`) holds no real version, and saying so helps
//!    nobody (pubgrub's own `collapse_no_versions` is not used: it hides *why* a range is empty,
//!    such as "only pre-releases match"); "no version but the known ones" is kept for extras,
//!    where it ties `name[extra]` to the base's versions once pass 3 folds the pin away;
//! 3. the pins of `name[extra]` to `name` are folded away (uv's `collapse_proxies`): a derivation
//!    that rests on "a[x]==1.0 depends on a==1.0" is replaced by its other cause, so the report
//!    says "a[x]==1.0 depends on b>=2" and "a==1.0 depends on c<1", never the plumbing between;
//!    then a "no versions" leaf of an extra beside a fact about the same extra is merged into it;
//! 4. ranges are simplified against the versions that exist (a range holding one existing
//!    version prints as `==v`; a dependent's range holding all of them as "all versions"); then
//!    a "no versions" leaf whose derivation merely restates its sibling is dropped;
//! 5. [`PythonFormatter`] phrases every incompatibility with PEP 440 specifiers, never raw
//!    ranges, and sorts terms so the text is deterministic;
//! 6. hints are derived from the facts: a pre-release is in the range, Requires-Python excludes, only
//!    yanked versions, a local variant exists, which versions of a blocker accept the request,
//!    and for a name the index does not have, the known names it may be a typo of.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use pep440_rs::Version;
use pep508_rs::{ExtraName, PackageName};
use pubgrub::{
    DefaultStringReporter, DerivationTree, Derived, External, Map, Ranges, ReportFormatter,
    Reporter, Term,
};

use super::SolveRequest;
use super::candidates::{InstallChoice, VersionEntry, VersionTable};
use super::catalog::{AcceptingQuery, Among, Catalog};
use super::error::{Fact, FactPackage, Hint, HintKind, NoSolution, SolveError, Unavailable};
use super::package::Pkg;
use super::provider::CoupledReleases;
use super::ranges::{hull_upper, name_with_range, render};
use super::rules::Rules;
use super::suggest;

type Tree = DerivationTree<Pkg, Ranges<Version>, Unavailable>;
type Ext = External<Pkg, Ranges<Version>, Unavailable>;

/// How many versions of a blocker are read to find those that accept a request.
const BLOCKER_SCAN: usize = 30;

/// How many accepting versions a blocker hint lists (one more says "...").
const BLOCKER_LISTED: usize = 5;

/// Build the account of a failed resolution.
pub(crate) fn explain(
    mut tree: Tree,
    catalog: &Catalog<'_>,
    rules: &Rules<'_>,
    coupled: &CoupledReleases,
) -> Result<NoSolution, SolveError> {
    let mut facts = Vec::new();
    collect_facts(&tree, catalog, &mut facts);
    drop_phantoms(&mut tree, catalog);
    if let Some(collapsed) = collapse_proxies(&tree) {
        tree = collapsed;
    }
    merge_extra_no_versions(&mut tree);
    simplify(&mut tree, catalog);
    drop_restatements(&mut tree, catalog);
    let formatter = PythonFormatter {
        catalog,
        python: &rules.python,
        request: rules.request,
        coupled,
    };
    let report = DefaultStringReporter::report_with_formatter(&tree, &formatter);
    let report = tidy(&report);
    let involved: BTreeSet<PackageName> = tree
        .packages()
        .into_iter()
        .filter_map(|p| p.name().cloned())
        .collect();
    let hints = hints(&facts, catalog, rules)?;
    Ok(NoSolution {
        report,
        hints,
        involved,
        facts,
    })
}

/// Drop blank lines the default reporter puts between paragraphs, and trailing spaces.
fn tidy(report: &str) -> String {
    report
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn fact_package(pkg: &Pkg) -> FactPackage {
    match pkg {
        Pkg::Root => FactPackage::Root,
        Pkg::Python => FactPackage::Python,
        Pkg::Dist(name) => FactPackage::Dist {
            name: name.clone(),
            extra: None,
        },
        Pkg::Extra(name, extra) => FactPackage::Dist {
            name: name.clone(),
            extra: Some(extra.clone()),
        },
    }
}

fn collect_facts(tree: &Tree, catalog: &Catalog<'_>, out: &mut Vec<Fact>) {
    match tree {
        DerivationTree::Derived(derived) => {
            collect_facts(&derived.cause1, catalog, out);
            collect_facts(&derived.cause2, catalog, out);
        }
        DerivationTree::External(external) => {
            let fact = match external {
                External::NotRoot(..) => return,
                External::FromDependencyOf(p, pr, d, dr) => {
                    // The pin of `name[extra]` to `name` is plumbing, not a fact.
                    if matches!((p, d), (Pkg::Extra(a, _), Pkg::Dist(b)) if a == b) {
                        return;
                    }
                    Fact::Requires {
                        dependent: fact_package(p),
                        dependent_range: pr.clone(),
                        dependency: fact_package(d),
                        range: dr.clone(),
                    }
                }
                External::NoVersions(p, r) if is_phantom(p, r, catalog) => return,
                External::NoVersions(p, r) => Fact::NoVersions {
                    package: fact_package(p),
                    range: r.clone(),
                    not_found: is_not_found(p, catalog),
                },
                External::Custom(p, r, reason) => Fact::Unavailable {
                    package: fact_package(p),
                    range: r.clone(),
                    reason: reason.clone(),
                },
            };
            if !out.contains(&fact) {
                out.push(fact);
            }
        }
    }
}

fn is_not_found(pkg: &Pkg, catalog: &Catalog<'_>) -> bool {
    pkg.name()
        .and_then(|n| catalog.cached_table(n))
        .is_some_and(|t| t.versions.is_empty() && t.project.is_none())
}

/// Versions of a distribution, ascending.
fn known_versions(pkg: &Pkg, catalog: &Catalog<'_>) -> Option<Vec<Version>> {
    let table = catalog.cached_table(pkg.name()?)?;
    Some(table.versions.iter().map(|e| e.version.clone()).collect())
}

/// Whether a "no versions" leaf over `range` says nothing: it holds only the gaps between a
/// known version and the end of its hull, or everything but the known versions.
fn is_phantom(pkg: &Pkg, range: &Ranges<Version>, catalog: &Catalog<'_>) -> bool {
    let Some(versions) = known_versions(pkg, catalog) else {
        return false;
    };
    if versions.is_empty()
        || range == &Ranges::empty()
        || versions.iter().any(|v| range.contains(v))
    {
        return false;
    }
    // "No version other than the known ones": true and useless; the derivation names the
    // known versions anyway.
    let known = versions
        .iter()
        .fold(Ranges::empty(), |acc, v| acc.union(&super::ranges::hull(v)));
    // (Not for `name[extra]`: with the pin to `name` folded away, "only a[x]==1.0 is available"
    // is what ties the extra to the base's versions.)
    if !matches!(pkg, Pkg::Extra(..)) && range.union(&known) == Ranges::full() {
        return true;
    }
    let gaps = versions
        .iter()
        .filter(|v| !v.is_local())
        .fold(Ranges::empty(), |acc, v| {
            acc.union(&Ranges::from_range_bounds((
                std::ops::Bound::Excluded(v.clone()),
                std::ops::Bound::Excluded(hull_upper(v)),
            )))
        });
    range.subset_of(&gaps)
}

/// Replace every derivation that rests on a phantom "no versions" leaf by its other cause.
fn drop_phantoms(tree: &mut Tree, catalog: &Catalog<'_>) {
    let DerivationTree::Derived(derived) = tree else {
        return;
    };
    let phantom = |t: &Tree| matches!(t, DerivationTree::External(External::NoVersions(p, r)) if is_phantom(p, r, catalog));
    if phantom(&derived.cause1) {
        let mut other = (*derived.cause2).clone();
        drop_phantoms(&mut other, catalog);
        *tree = other;
    } else if phantom(&derived.cause2) {
        let mut other = (*derived.cause1).clone();
        drop_phantoms(&mut other, catalog);
        *tree = other;
    } else {
        drop_phantoms(Arc::make_mut(&mut derived.cause1), catalog);
        drop_phantoms(Arc::make_mut(&mut derived.cause2), catalog);
    }
}

/// Whether `tree` is the pin of `name[extra]` to `name` (plumbing, not a fact).
fn is_proxy_pin(tree: &Tree) -> bool {
    matches!(tree, DerivationTree::External(External::FromDependencyOf(Pkg::Extra(a, _), _, Pkg::Dist(b), _)) if a == b)
}

/// uv's `collapse_proxies`: every derivation with a proxy pin as one cause becomes its other
/// cause; one with two pins as causes disappears (its parent keeps its other cause). `None`
/// when nothing but pins is left (the caller keeps the tree as it was).
fn collapse_proxies(tree: &Tree) -> Option<Tree> {
    let DerivationTree::Derived(derived) = tree else {
        return Some(tree.clone());
    };
    match (is_proxy_pin(&derived.cause1), is_proxy_pin(&derived.cause2)) {
        (true, true) => None,
        (true, false) => collapse_proxies(&derived.cause2),
        (false, true) => collapse_proxies(&derived.cause1),
        (false, false) => {
            match (
                collapse_proxies(&derived.cause1),
                collapse_proxies(&derived.cause2),
            ) {
                (Some(cause1), Some(cause2)) => {
                    let mut derived = derived.clone();
                    derived.cause1 = Arc::new(cause1);
                    derived.cause2 = Arc::new(cause2);
                    Some(DerivationTree::Derived(derived))
                }
                (Some(cause), None) | (None, Some(cause)) => Some(cause),
                (None, None) => None,
            }
        }
    }
}

/// "Because only a[x]==1.0 and a[x]==2.0 are available and all versions of a[x] depend on d<2,
/// all versions of a[x] depend on d<2" says one thing twice: a "no versions" leaf of an extra
/// next to a fact about the same extra is merged into that fact (pubgrub's
/// `merge_no_versions`, limited to this case so "only pre-releases match" is never hidden).
fn merge_extra_no_versions(tree: &mut Tree) {
    let DerivationTree::Derived(derived) = tree else {
        return;
    };
    let merged = match (&*derived.cause1, &*derived.cause2) {
        (DerivationTree::External(External::NoVersions(p, r)), DerivationTree::External(other))
        | (DerivationTree::External(other), DerivationTree::External(External::NoVersions(p, r)))
            if matches!(p, Pkg::Extra(..)) =>
        {
            match other {
                External::FromDependencyOf(p1, r1, p2, r2) if p1 == p => Some(
                    External::FromDependencyOf(p1.clone(), r1.union(r), p2.clone(), r2.clone()),
                ),
                External::Custom(p1, r1, reason) if p1 == p => {
                    Some(External::Custom(p1.clone(), r1.union(r), reason.clone()))
                }
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(external) = merged {
        *tree = DerivationTree::External(external);
        return;
    }
    merge_extra_no_versions(Arc::make_mut(&mut derived.cause1));
    merge_extra_no_versions(Arc::make_mut(&mut derived.cause2));
}

fn simplify_range(range: &Ranges<Version>, pkg: &Pkg, catalog: &Catalog<'_>) -> Ranges<Version> {
    let Some(versions) = known_versions(pkg, catalog) else {
        return range.clone();
    };
    let inside: Vec<&Version> = versions.iter().filter(|v| range.contains(v)).collect();
    match inside.as_slice() {
        [] => range.clone(),
        [only] => Ranges::singleton((*only).clone()),
        _ => range.simplify(versions.iter()),
    }
}

fn simplify(tree: &mut Tree, catalog: &Catalog<'_>) {
    match tree {
        DerivationTree::External(external) => match external {
            External::FromDependencyOf(p, pr, _, _) => {
                *pr = simplify_range(pr, p, catalog);
            }
            External::Custom(p, r, _) => {
                *r = simplify_range(r, p, catalog);
            }
            External::NoVersions(..) | External::NotRoot(..) => {}
        },
        DerivationTree::Derived(derived) => {
            for (pkg, term) in derived.terms.iter_mut() {
                if matches!(pkg, Pkg::Root | Pkg::Python) {
                    continue;
                }
                *term = match term {
                    Term::Positive(r) => Term::Positive(simplify_range(r, pkg, catalog)),
                    Term::Negative(r) => Term::Negative(simplify_range(r, pkg, catalog)),
                };
            }
            simplify(Arc::make_mut(&mut derived.cause1), catalog);
            simplify(Arc::make_mut(&mut derived.cause2), catalog);
        }
    }
}

/// A "no versions" leaf that, once ranges are simplified, only restates its sibling ("because
/// there is no version of a <1 | >1, <2 and a==1.0 depends on b==1.0, a==1.0 depends on
/// b==1.0") is dropped with its conclusion, which the sibling states already.
fn drop_restatements(tree: &mut Tree, catalog: &Catalog<'_>) {
    let DerivationTree::Derived(derived) = tree else {
        return;
    };
    let restated = |other: &Tree| match other {
        DerivationTree::Derived(d) => d.terms == derived.terms,
        DerivationTree::External(e) => {
            external_terms(e, catalog).is_some_and(|t| t == derived.terms)
        }
    };
    let replacement = match (&*derived.cause1, &*derived.cause2) {
        (DerivationTree::External(External::NoVersions(..)), other)
        | (other, DerivationTree::External(External::NoVersions(..)))
            if restated(other) =>
        {
            Some(other.clone())
        }
        _ => None,
    };
    if let Some(mut other) = replacement {
        drop_restatements(&mut other, catalog);
        *tree = other;
        return;
    }
    drop_restatements(Arc::make_mut(&mut derived.cause1), catalog);
    drop_restatements(Arc::make_mut(&mut derived.cause2), catalog);
}

/// The terms of the incompatibility an external fact stands for, simplified as [`simplify`]
/// simplifies a derivation's.
fn external_terms(
    external: &Ext,
    catalog: &Catalog<'_>,
) -> Option<Map<Pkg, Term<Ranges<Version>>>> {
    let simple = |pkg: &Pkg, range: &Ranges<Version>| match pkg {
        Pkg::Root | Pkg::Python => range.clone(),
        _ => simplify_range(range, pkg, catalog),
    };
    let mut terms = Map::default();
    match external {
        External::FromDependencyOf(p, pr, d, dr) => {
            terms.insert(p.clone(), Term::Positive(simple(p, pr)));
            terms.insert(d.clone(), Term::Negative(simple(d, dr)));
        }
        External::Custom(p, r, _) => {
            terms.insert(p.clone(), Term::Positive(simple(p, r)));
        }
        External::NoVersions(..) | External::NotRoot(..) => return None,
    }
    Some(terms)
}

/// The report formatter: uv-style sentences in Python terms.
struct PythonFormatter<'p, 'a> {
    catalog: &'p Catalog<'a>,
    /// The target Python, release only.
    python: &'p Version,
    /// The request: which root requirements the user wrote, the coupled-group rules.
    request: &'p SolveRequest,
    /// Member releases whose edge on their anchor a coupled-group rule added.
    coupled: &'p CoupledReleases,
}

impl PythonFormatter<'_, '_> {
    fn versions(&self, pkg: &Pkg, range: &Ranges<Version>) -> String {
        match pkg {
            Pkg::Root => "your requirements".to_string(),
            _ => match render(range) {
                None => format!("all versions of {pkg}"),
                Some(_) => name_with_range(&pkg.to_string(), range),
            },
        }
    }

    fn verb(pkg: &Pkg, range: &Ranges<Version>, singular: &str, plural: &str) -> String {
        if !matches!(pkg, Pkg::Root) && render(range).is_none() {
            plural.to_string()
        } else {
            singular.to_string()
        }
    }

    fn sorted_terms(
        terms: &Map<Pkg, Term<Ranges<Version>>>,
    ) -> Vec<(&Pkg, &Term<Ranges<Version>>)> {
        let mut terms: Vec<_> = terms
            .iter()
            .filter(|(p, t)| !(matches!(p, Pkg::Root) && matches!(t, Term::Positive(_))))
            .collect();
        terms.sort_by(|a, b| a.0.cmp(b.0));
        terms
    }
}

impl PythonFormatter<'_, '_> {
    /// A root requirement in words: the user's ("you require"), or the installed environment's
    /// (every installed dist stays; a blocker the request as asked keeps where it is).
    fn root_dependency(&self, dep: &Pkg, range: &Ranges<Version>) -> String {
        let installed = dep
            .name()
            .is_some_and(|n| self.request.installed_roots.contains(n));
        match (installed, render(range)) {
            (false, _) => format!("you require {}", name_with_range(&dep.to_string(), range)),
            (true, None) => format!("{dep} is installed (every installed dist stays)"),
            (true, Some(_)) => format!(
                "{} stays as installed",
                name_with_range(&dep.to_string(), range)
            ),
        }
    }

    /// The constraints written on `dep`, for a clause they empty (` (constraint idna==2.4)`).
    fn constraint_text(&self, dep: &Pkg) -> String {
        let Some(name) = dep.name() else {
            return String::new();
        };
        let written: Vec<String> = self
            .request
            .constraints
            .iter()
            .filter(|c| &c.name == name)
            .map(ToString::to_string)
            .collect();
        if written.is_empty() {
            String::new()
        } else {
            format!(" (constraint {})", written.join(", "))
        }
    }

    /// The coupled-group rule behind an edge of `pkg` in `prange` on `dep`, when a rule (not
    /// the release's metadata) put it there: "the coupled-group rule `jaxlib = ...` of policy
    /// `default`".
    fn coupling_rule(&self, pkg: &Pkg, prange: &Ranges<Version>, dep: &Pkg) -> Option<String> {
        let (Pkg::Dist(member), Pkg::Dist(anchor)) = (pkg, dep) else {
            return None;
        };
        let rule = self
            .request
            .correspondences
            .iter()
            .find(|c| &c.member == member && &c.anchor == anchor)?;
        self.coupled
            .iter()
            .any(|(name, v)| name == member && prange.contains(v))
            .then(|| rule.rule_text())
    }
}

impl ReportFormatter<Pkg, Ranges<Version>, Unavailable> for PythonFormatter<'_, '_> {
    type Output = String;

    fn format_external(&self, external: &Ext) -> String {
        match external {
            External::NotRoot(..) => "we are solving your requirements".to_string(),
            External::NoVersions(Pkg::Python, range) => format!(
                "the target Python ({}) does not satisfy {}",
                self.python,
                name_with_range("Python", range)
            ),
            External::NoVersions(pkg, range) => {
                if is_not_found(pkg, self.catalog) {
                    return format!("{pkg} was not found in the package index");
                }
                let name = pkg.name();
                let table = name.and_then(|n| self.catalog.cached_table(n));
                let pre: Vec<&Version> = table
                    .as_ref()
                    .map(|t| {
                        t.versions
                            .iter()
                            .filter(|e| !t.excluded_by_binary_policy(e))
                            .map(|e| &e.version)
                            .filter(|v| v.any_prerelease() && range.contains(v))
                            .collect()
                    })
                    .unwrap_or_default();
                let policy = table
                    .as_ref()
                    .and_then(|t| binary_policy_note(t, range))
                    .map(|note| format!(" ({note})"))
                    .unwrap_or_default();
                let known: Vec<&Version> = table
                    .as_ref()
                    .map(|t| t.versions.iter().map(|e| &e.version).collect())
                    .unwrap_or_default();
                let base = match render(range) {
                    None => format!("there is no usable version of {pkg}"),
                    Some(_)
                        if !known.is_empty()
                            && known.len() <= 3
                            && known.iter().all(|v| !range.contains(v)) =>
                    {
                        let list: Vec<String> =
                            known.iter().map(|v| format!("{pkg}=={v}")).collect();
                        let verb = if list.len() == 1 { "is" } else { "are" };
                        format!("only {} {verb} available", list.join(" and "))
                    }
                    Some(_) => format!(
                        "there is no version of {}",
                        name_with_range(&pkg.to_string(), range)
                    ),
                };
                if pre.is_empty() {
                    format!("{base}{policy}")
                } else {
                    format!(
                        "{base}{policy} (only pre-releases match, such as {}, and pre-releases are not allowed)",
                        pre.iter()
                            .rev()
                            .take(2)
                            .map(|v| format!("{pkg}=={v}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            }
            External::Custom(pkg, range, reason) => {
                format!("{} {reason}", self.versions(pkg, range))
            }
            External::FromDependencyOf(Pkg::Root, _, dep, range) => {
                self.root_dependency(dep, range)
            }
            External::FromDependencyOf(pkg, prange, dep, drange) if drange.is_empty() => {
                let who = match pkg {
                    Pkg::Root => "you require".to_string(),
                    _ => format!(
                        "{} {}",
                        self.versions(pkg, prange),
                        Self::verb(pkg, prange, "depends on", "depend on")
                    ),
                };
                format!(
                    "{who} {dep} in a range the constraints on {dep} exclude entirely{}",
                    self.constraint_text(dep)
                )
            }
            External::FromDependencyOf(pkg, prange, dep, drange) => {
                if let Some(rule) = self.coupling_rule(pkg, prange, dep) {
                    return format!(
                        "{rule} pairs {} with {}",
                        self.versions(pkg, prange),
                        name_with_range(&dep.to_string(), drange)
                    );
                }
                let dependency = name_with_range(&dep.to_string(), drange);
                let verb = if *dep == Pkg::Python {
                    Self::verb(pkg, prange, "requires", "require")
                } else {
                    Self::verb(pkg, prange, "depends on", "depend on")
                };
                format!("{} {verb} {dependency}", self.versions(pkg, prange))
            }
        }
    }

    fn format_terms(&self, terms: &Map<Pkg, Term<Ranges<Version>>>) -> String {
        let sorted = Self::sorted_terms(terms);
        match sorted.as_slice() {
            [] => "your requirements are unsatisfiable".to_string(),
            [(pkg, Term::Positive(range))] => match render(range) {
                None => format!("no version of {pkg} can be used"),
                Some(_) => format!(
                    "{} cannot be used",
                    name_with_range(&pkg.to_string(), range)
                ),
            },
            [(pkg, Term::Negative(range))] => match render(range) {
                None => format!("{pkg} is required"),
                Some(_) => format!("{} is required", name_with_range(&pkg.to_string(), range)),
            },
            [(p1, Term::Positive(r1)), (p2, Term::Negative(r2))]
            | [(p2, Term::Negative(r2)), (p1, Term::Positive(r1))] => self.format_external(
                &External::FromDependencyOf((*p1).clone(), r1.clone(), (*p2).clone(), r2.clone()),
            ),
            slice => {
                let parts: Vec<String> = slice
                    .iter()
                    .map(|(p, t)| match t {
                        Term::Positive(r) => self.versions(p, r),
                        Term::Negative(r) => format!(
                            "a version of {} outside {}",
                            p,
                            render(r).unwrap_or_else(|| "*".to_string())
                        ),
                    })
                    .collect();
                format!("{} are incompatible", parts.join(" and "))
            }
        }
    }

    fn explain_both_external(
        &self,
        e1: &Ext,
        e2: &Ext,
        terms: &Map<Pkg, Term<Ranges<Version>>>,
    ) -> String {
        format!(
            "Because {} and {}, {}.",
            self.format_external(e1),
            self.format_external(e2),
            self.format_terms(terms)
        )
    }

    fn explain_both_ref(
        &self,
        id1: usize,
        d1: &Derived<Pkg, Ranges<Version>, Unavailable>,
        id2: usize,
        d2: &Derived<Pkg, Ranges<Version>, Unavailable>,
        terms: &Map<Pkg, Term<Ranges<Version>>>,
    ) -> String {
        format!(
            "Because {} ({id1}) and {} ({id2}), {}.",
            self.format_terms(&d1.terms),
            self.format_terms(&d2.terms),
            self.format_terms(terms)
        )
    }

    fn explain_ref_and_external(
        &self,
        id: usize,
        derived: &Derived<Pkg, Ranges<Version>, Unavailable>,
        external: &Ext,
        terms: &Map<Pkg, Term<Ranges<Version>>>,
    ) -> String {
        format!(
            "Because {} ({id}) and {}, {}.",
            self.format_terms(&derived.terms),
            self.format_external(external),
            self.format_terms(terms)
        )
    }

    fn and_explain_external(
        &self,
        external: &Ext,
        terms: &Map<Pkg, Term<Ranges<Version>>>,
    ) -> String {
        format!(
            "And because {}, {}.",
            self.format_external(external),
            self.format_terms(terms)
        )
    }

    fn and_explain_ref(
        &self,
        id: usize,
        derived: &Derived<Pkg, Ranges<Version>, Unavailable>,
        terms: &Map<Pkg, Term<Ranges<Version>>>,
    ) -> String {
        format!(
            "And because {} ({id}), {}.",
            self.format_terms(&derived.terms),
            self.format_terms(terms)
        )
    }

    fn and_explain_prior_and_external(
        &self,
        prior: &Ext,
        external: &Ext,
        terms: &Map<Pkg, Term<Ranges<Version>>>,
    ) -> String {
        format!(
            "And because {} and {}, {}.",
            self.format_external(prior),
            self.format_external(external),
            self.format_terms(terms)
        )
    }
}

/// The user's own range on each name (root requirements, after overrides and constraints).
fn root_ranges(facts: &[Fact]) -> BTreeMap<PackageName, Ranges<Version>> {
    let mut out = BTreeMap::new();
    for fact in facts {
        if let Fact::Requires {
            dependent: FactPackage::Root,
            dependency: FactPackage::Dist { name, extra: None },
            range,
            ..
        } = fact
        {
            out.insert(name.clone(), range.clone());
        }
    }
    out
}

/// The releases of a table in `range` that the binary policy alone rules out, in words: "67
/// releases (newest 4.3.0) have only a source distribution, which --only-binary forbids".
fn binary_policy_note(table: &VersionTable, range: &Ranges<Version>) -> Option<String> {
    let excluded: Vec<&VersionEntry> = table
        .versions
        .iter()
        .filter(|e| table.excluded_by_binary_policy(e) && range.contains(&e.version))
        .collect();
    let newest = excluded.last()?;
    let InstallChoice::Unusable(reason) = table.choice(newest) else {
        return None;
    };
    Some(match excluded.as_slice() {
        [one] => format!("{} {reason}", one.version),
        many => format!(
            "{} releases (newest {}) {}",
            many.len(),
            newest.version,
            reason.to_string().replacen("has ", "have ", 1)
        ),
    })
}

/// How many index lookups "did you mean" may spend on confusable spellings and typos, per
/// failure (only on the failure path; each is one small page or a 404).
const SUGGESTION_PROBES: usize = 16;

/// Known names close to `missing` (see [`super::suggest`]); confusable spellings are looked up
/// through the catalog while `probes` lasts.
fn did_you_mean(
    missing: &PackageName,
    catalog: &Catalog<'_>,
    rules: &Rules<'_>,
    probes: &mut usize,
) -> Vec<PackageName> {
    let (mut known, imports) = known_names(catalog, rules);
    known.extend(catalog.index_project_names().unwrap_or_default());
    for variant in suggest::variants(missing) {
        if *probes == 0 {
            break;
        }
        if known.contains(&variant) || catalog.cached_table(&variant).is_some() {
            continue;
        }
        *probes -= 1;
        // A failed lookup only means no suggestion.
        if let Ok(table) = catalog.table(&variant)
            && table.project.is_some()
        {
            known.insert(variant);
        }
    }
    // A name the user already requires is no alternative to another they require; an installed
    // one is (`propose reqeusts` in a venv with requests: the root requires every installed
    // dist, and the user meant that one).
    for required in &rules.request.requirements {
        if !rules.request.preferences.contains_key(&required.name) {
            known.remove(&required.name);
        }
    }
    suggest::suggest(missing, &known, &imports)
}

/// The names known at this point, for "did you mean": what the catalog read or was asked for,
/// the requirements, constraints and overrides, the installed distributions and what they
/// require (less the names the index is known not to have); and the installed import names
/// (lowercase) with their distributions.
fn known_names(
    catalog: &Catalog<'_>,
    rules: &Rules<'_>,
) -> (
    BTreeSet<PackageName>,
    BTreeMap<String, BTreeSet<PackageName>>,
) {
    let mut known = catalog.known_names();
    let request = rules.request;
    let mut named: Vec<&PackageName> = request
        .requirements
        .iter()
        .chain(&request.constraints)
        .chain(request.overrides.iter().map(|o| &o.requirement))
        .map(|r| &r.name)
        .collect();
    named.extend(request.preferences.keys());
    for c in request.preferences.values() {
        named.extend(c.metadata.requires_dist.iter().map(|r| &r.name));
    }
    for name in named {
        if !catalog.is_missing(name) {
            known.insert(name.clone());
        }
    }
    let mut imports: BTreeMap<String, BTreeSet<PackageName>> = BTreeMap::new();
    for (name, c) in &request.preferences {
        for import in &c.import_names {
            imports
                .entry(import.to_lowercase())
                .or_default()
                .insert(name.clone());
        }
    }
    (known, imports)
}

/// The hints a person can act on, derived from the facts, in the order of the facts, then the
/// blockers; without duplicates.
fn hints(
    facts: &[Fact],
    catalog: &Catalog<'_>,
    rules: &Rules<'_>,
) -> Result<Vec<Hint>, SolveError> {
    let mut probes = SUGGESTION_PROBES;
    let mut hints: Vec<Hint> = Vec::new();
    for fact in facts {
        let found = match fact {
            Fact::NoVersions {
                package: FactPackage::Python,
                range,
                ..
            } => requires_python_hints(facts, range, &rules.python),
            Fact::NoVersions {
                package: FactPackage::Dist { name, .. },
                not_found: true,
                ..
            } => not_found_hints(name, catalog, rules, &mut probes),
            Fact::NoVersions {
                package: FactPackage::Dist { name, .. },
                range,
                not_found: false,
            } => no_versions_hints(name, range, catalog, rules),
            Fact::Unavailable {
                package: FactPackage::Dist { name, .. },
                range,
                reason,
            } => vec![unavailable_hint(name, range, reason)],
            _ => Vec::new(),
        };
        push_new(&mut hints, found);
    }
    let blockers = blocker_hints(facts, catalog, rules)?;
    push_new(&mut hints, blockers);
    Ok(hints)
}

fn push_new(hints: &mut Vec<Hint>, found: Vec<Hint>) {
    for hint in found {
        if !hints.contains(&hint) {
            hints.push(hint);
        }
    }
}

fn hint(kind: HintKind, package: &PackageName, message: String) -> Hint {
    Hint {
        kind,
        package: package.clone(),
        message,
        suggestions: Vec::new(),
    }
}

/// The target Python is outside `range`: one hint per release that requires it.
fn requires_python_hints(facts: &[Fact], range: &Ranges<Version>, python: &Version) -> Vec<Hint> {
    facts
        .iter()
        .filter_map(|f| match f {
            Fact::Requires {
                dependent: FactPackage::Dist { name, .. },
                dependent_range,
                dependency: FactPackage::Python,
                range: r,
            } if r == range => Some((name, dependent_range)),
            _ => None,
        })
        .map(|(name, versions)| {
            hint(
                HintKind::RequiresPython,
                name,
                format!(
                    "{} requires {}, but the target is Python {python}; target a newer Python (--python-version) or pick a release of {name} that supports {python}",
                    name_with_range(name.as_ref(), versions),
                    name_with_range("Python", range),
                ),
            )
        })
        .collect()
}

/// The index does not have `name`: say so, and for a name the user wrote, what they may have
/// meant (a typo in someone's metadata is not theirs to fix).
fn not_found_hints(
    name: &PackageName,
    catalog: &Catalog<'_>,
    rules: &Rules<'_>,
    probes: &mut usize,
) -> Vec<Hint> {
    let mut hints = vec![hint(
        HintKind::NotFound,
        name,
        format!(
            "{name} is not on the configured index; check the name and --index-url / --extra-index-url"
        ),
    )];
    let suggestions = if rules.user_named(name) {
        did_you_mean(name, catalog, rules, probes)
    } else {
        Vec::new()
    };
    if !suggestions.is_empty() {
        let list: Vec<String> = suggestions.iter().map(|n| format!("`{n}`")).collect();
        let list = match list.as_slice() {
            [one] => one.clone(),
            [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
            [] => String::new(),
        };
        hints.push(Hint {
            kind: HintKind::DidYouMean,
            package: name.clone(),
            message: format!("did you mean {list} instead of `{name}`?"),
            suggestions,
        });
    }
    hints
}

/// No version of `name` in `range`: a pre-release is in it (whether it fits the rest is not
/// tried: the derivation never reached it), or a local variant of a version
/// the range names exists.
fn no_versions_hints(
    name: &PackageName,
    range: &Ranges<Version>,
    catalog: &Catalog<'_>,
    rules: &Rules<'_>,
) -> Vec<Hint> {
    let Some(table) = catalog.cached_table(name) else {
        return Vec::new();
    };
    let mut hints = Vec::new();
    if let Some(note) = binary_policy_note(&table, range) {
        hints.push(hint(
            HintKind::BinaryPolicy,
            name,
            format!("{}: {note}", name_with_range(name.as_ref(), range)),
        ));
    }
    let pre: Vec<&Version> = table
        .versions
        .iter()
        .filter(|e| !table.excluded_by_binary_policy(e))
        .map(|e| &e.version)
        .filter(|v| v.any_prerelease() && range.contains(v))
        .collect();
    if let Some(newest) = pre.last()
        && !rules.prereleases_allowed(name, &table)
    {
        hints.push(hint(
            HintKind::Prerelease,
            name,
            format!(
                "pre-releases of {name} are in the range but were not considered ({name}=={newest}); to try them, allow them with `--prerelease allow`, or name one in a requirement (`{name}>={newest}`)"
            ),
        ));
    }
    // A local variant of a version the range names.
    let named: BTreeSet<Version> = range
        .iter()
        .flat_map(|(l, u)| [bound_version(l), bound_version(u)])
        .flatten()
        .map(|v| v.without_local())
        .collect();
    for entry in &table.versions {
        let v = &entry.version;
        let public = v.clone().without_local();
        if v.is_local() && !range.contains(v) && named.contains(&public) {
            hints.push(hint(
                HintKind::LocalVersion,
                name,
                format!(
                    "{name}=={v} exists, a local variant of {public}, but {} does not admit it (`{name}=={public}` would)",
                    name_with_range(name.as_ref(), range),
                ),
            ));
        }
    }
    hints
}

/// Versions of `name` in `range` are unusable for `reason`.
fn unavailable_hint(name: &PackageName, range: &Ranges<Version>, reason: &Unavailable) -> Hint {
    let what = name_with_range(name.as_ref(), range);
    match reason {
        Unavailable::Yanked { .. } => hint(
            HintKind::Yanked,
            name,
            format!(
                "{what} is yanked; pin it exactly (`{what}`) among your requirements to use it anyway (PEP 592)"
            ),
        ),
        other => hint(HintKind::Unusable, name, format!("{what} {other}")),
    }
}

/// Blockers: a dependent whose requirement on N excludes what you ask for N; one hint per
/// (dependent, extra, N).
fn blocker_hints(
    facts: &[Fact],
    catalog: &Catalog<'_>,
    rules: &Rules<'_>,
) -> Result<Vec<Hint>, SolveError> {
    let root = root_ranges(facts);
    let mut scanned = BTreeSet::new();
    let mut hints = Vec::new();
    for fact in facts {
        let Fact::Requires {
            dependent:
                FactPackage::Dist {
                    name: blocker,
                    extra,
                },
            dependency: FactPackage::Dist { name: target, .. },
            range,
            ..
        } = fact
        else {
            continue;
        };
        let Some(wanted) = root.get(target) else {
            continue;
        };
        if !range.is_disjoint(wanted)
            || !scanned.insert((blocker.clone(), extra.clone(), target.clone()))
        {
            continue;
        }
        hints.push(blocker_hint(
            catalog,
            rules,
            blocker,
            extra.as_ref(),
            target,
            wanted,
        )?);
    }
    Ok(hints)
}

/// The first [`BLOCKER_LISTED`] versions, then "..." when there are more.
fn listed(versions: &[Version]) -> String {
    let list: Vec<String> = versions
        .iter()
        .take(BLOCKER_LISTED)
        .map(ToString::to_string)
        .collect();
    let more = if versions.len() > BLOCKER_LISTED {
        ", ..."
    } else {
        ""
    };
    format!("{}{more}", list.join(", "))
}

fn bound_version(bound: &std::ops::Bound<Version>) -> Option<Version> {
    match bound {
        std::ops::Bound::Included(v) | std::ops::Bound::Excluded(v) => Some(v.clone()),
        std::ops::Bound::Unbounded => None,
    }
}

/// Which versions of `blocker` (with `extra`, when the requirement comes from `blocker[extra]`)
/// accept `target` in `wanted`: the releases the target could move it to, the catalog's
/// [`Catalog::accepting_releases`].
fn blocker_hint(
    catalog: &Catalog<'_>,
    rules: &Rules<'_>,
    blocker: &PackageName,
    extra: Option<&ExtraName>,
    target: &PackageName,
    wanted: &Ranges<Version>,
) -> Result<Hint, SolveError> {
    let table = catalog.table(blocker)?;
    let found = catalog.accepting_releases(&AcceptingQuery {
        dependent: blocker,
        extras: extra.map(std::slice::from_ref).unwrap_or_default(),
        package: target,
        wanted,
        among: Among::Installable {
            prereleases: rules.prereleases_allowed(blocker, &table),
        },
        read_at_most: BLOCKER_SCAN,
        enough: BLOCKER_LISTED + 1,
    })?;
    let request = name_with_range(target.as_ref(), wanted);
    let shown = match extra {
        Some(extra) => format!("{blocker}[{extra}]"),
        None => blocker.to_string(),
    };
    let message = if found.versions.is_empty() && found.silent.is_empty() {
        format!(
            "no release of {shown} (of the newest {} usable) accepts {request}; an override would be needed",
            found.read
        )
    } else if found.versions.is_empty() {
        format!(
            "no release of {shown} (of the newest {} usable) accepts {request}; {} do not require {target} under this Python and platform",
            found.read,
            listed(&found.silent)
        )
    } else {
        format!(
            "{shown} releases that accept {request}: {}",
            listed(&found.versions)
        )
    };
    Ok(hint(HintKind::BlockerVersions, blocker, message))
}
