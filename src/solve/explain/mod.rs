//! Why there is no solution, in Python terms.
//!
//! In: pubgrub's derivation tree, the [`Catalog`] (the versions each project has; the lookups a
//! hint needs, such as "did you mean" probes and which releases of a blocker accept a request,
//! go through it) and the request's [`Rules`]; never the provider. Out: a [`NoSolution`]: the
//! report, hints, the packages involved and the external facts as data.
//!
//! The passes, in the order uv applies them:
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
//!
//! Passes 1-4 live in `tree`, the formatter in `formatter`, the hints in `hints`; this file runs
//! them in order.

mod formatter;
mod hints;
mod tree;

use std::collections::BTreeSet;

use pep440_rs::Version;
use pep508_rs::PackageName;
use pubgrub::{DefaultStringReporter, DerivationTree, External, Ranges, Reporter};

use super::catalog::Catalog;
use super::error::{Fact, FactPackage, NoSolution, SolveError, Unavailable};
use super::package::Pkg;
use super::provider::CoupledReleases;
use super::rules::Rules;
use formatter::PythonFormatter;
use hints::hints;
use tree::{
    collapse_proxies, collect_facts, depth, drop_iteratively, drop_phantoms, drop_restatements,
    merge_extra_no_versions, merge_unavailable_runs, simplify,
};

/// The deepest derivation explained step by step. Deeper ones (a chain of thousands of
/// dependencies, which only a hostile index serves) are summarised by their facts: every pass
/// below, and pubgrub's reporter, recurse once per level and would overflow the stack.
const MAX_EXPLAINED_DEPTH: usize = 1_000;

/// pubgrub's derivation tree over planner's packages.
type Tree = DerivationTree<Pkg, Ranges<Version>, Unavailable>;
/// One external fact of a [`Tree`].
type Ext = External<Pkg, Ranges<Version>, Unavailable>;

/// Build the account of a failed resolution.
pub(crate) fn explain(
    mut tree: Tree,
    catalog: &Catalog<'_>,
    rules: &Rules<'_>,
    coupled: &CoupledReleases,
) -> Result<NoSolution, SolveError> {
    let mut facts = Vec::new();
    collect_facts(&tree, catalog, &mut facts);
    let levels = depth(&tree);
    if levels > MAX_EXPLAINED_DEPTH {
        drop_iteratively(tree);
        return too_deep(levels, facts, catalog, rules);
    }
    drop_phantoms(&mut tree, catalog);
    if let Some(collapsed) = collapse_proxies(&tree) {
        tree = collapsed;
    }
    merge_extra_no_versions(&mut tree);
    simplify(&mut tree, catalog);
    drop_restatements(&mut tree, catalog);
    merge_unavailable_runs(&mut tree);
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

/// The account of a derivation `levels` deep, past [`MAX_EXPLAINED_DEPTH`]: what it rests on
/// (the releases that are missing or unusable), and how long the chain of requirements is.
fn too_deep(
    levels: usize,
    facts: Vec<Fact>,
    catalog: &Catalog<'_>,
    rules: &Rules<'_>,
) -> Result<NoSolution, SolveError> {
    let mut report = format!(
        "The requirements form a chain {levels} derivations deep, more than the \
         {MAX_EXPLAINED_DEPTH} planner explains step by step ({} requirements between the \
         request and the end of the chain). It ends in:",
        facts
            .iter()
            .filter(|f| matches!(f, Fact::Requires { .. }))
            .count()
    );
    // A requirement that no release meets comes first ("no version of missingpkg>=99"), then
    // unusable releases, then the rest ("no version of c1>1.0": pubgrub's bookkeeping).
    let required = |package: &FactPackage, range: &Ranges<Version>| {
        facts.iter().any(|f| {
            matches!(f, Fact::Requires { dependency, range: r, .. } if dependency == package && r == range)
        })
    };
    let mut ends: Vec<(u8, String)> = facts
        .iter()
        .filter_map(|fact| match fact {
            Fact::NoVersions { package, range, .. } => Some((
                if required(package, range) { 0 } else { 2 },
                format!(
                    "no version of {} is available",
                    crate::solve::ranges::name_with_range(&package.to_string(), range)
                ),
            )),
            Fact::Unavailable {
                package, reason, ..
            } => Some((1, format!("{package} cannot be used: {reason}"))),
            Fact::Requires { .. } => None,
        })
        .collect();
    ends.sort_by_key(|(rank, _)| *rank);
    // The bookkeeping only when nothing else is there to show.
    let first = ends.first().map_or(2, |(rank, _)| *rank);
    let ends: Vec<String> = ends
        .into_iter()
        .filter(|(rank, _)| *rank < 2 || first == 2)
        .map(|(_, end)| end)
        .collect();
    for end in ends.iter().take(20) {
        report.push_str(&format!("\n  {end}"));
    }
    if ends.len() > 20 {
        report.push_str(&format!("\n  ... and {} more", ends.len() - 20));
    }
    let involved = facts.iter().flat_map(fact_names).cloned().collect();
    let hints = hints(&facts, catalog, rules)?;
    Ok(NoSolution {
        report,
        hints,
        involved,
        facts,
    })
}

/// The distributions a fact names.
fn fact_names(fact: &Fact) -> Vec<&PackageName> {
    fn name(p: &FactPackage) -> Option<&PackageName> {
        match p {
            FactPackage::Dist { name, .. } => Some(name),
            _ => None,
        }
    }
    match fact {
        Fact::Requires {
            dependent,
            dependency,
            ..
        } => [name(dependent), name(dependency)]
            .into_iter()
            .flatten()
            .collect(),
        Fact::NoVersions { package, .. } | Fact::Unavailable { package, .. } => {
            name(package).into_iter().collect()
        }
    }
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

/// Small derivation trees built by hand, and a catalog over a [`MemIndex`] to read them against,
/// for the unit tests of each pass.
///
/// [`MemIndex`]: crate::solve::mem_index::MemIndex
#[cfg(test)]
mod fixture {
    use std::str::FromStr;
    use std::sync::Arc;

    use pep440_rs::Version;
    use pep508_rs::{ExtraName, PackageName};
    use pubgrub::{DerivationTree, Derived, External, Map, Ranges, Term};

    use super::{Ext, Tree};
    use crate::solve::catalog::{Catalog, CatalogCore};
    use crate::solve::mem_index::MemIndex;
    use crate::solve::package::Pkg;
    use crate::solve::ranges::specifiers_to_ranges;

    pub(super) fn name(text: &str) -> PackageName {
        PackageName::from_str(text).unwrap()
    }

    pub(super) fn dist(text: &str) -> Pkg {
        Pkg::Dist(name(text))
    }

    pub(super) fn extra(text: &str, extra: &str) -> Pkg {
        Pkg::Extra(name(text), ExtraName::from_str(extra).unwrap())
    }

    pub(super) fn v(text: &str) -> Version {
        Version::from_str(text).unwrap()
    }

    /// The range of PEP 440 specifiers (`""`: every version).
    pub(super) fn r(specifiers: &str) -> Ranges<Version> {
        specifiers_to_ranges(&specifiers.parse().unwrap())
    }

    /// `p` in `pr` depends on `d` in `dr`.
    pub(super) fn dep(p: Pkg, pr: &str, d: Pkg, dr: &str) -> Tree {
        DerivationTree::External(External::FromDependencyOf(p, r(pr), d, r(dr)))
    }

    /// No version of `p` in `range`.
    pub(super) fn none(p: Pkg, range: &str) -> Tree {
        none_in(p, r(range))
    }

    /// No version of `p` in `range` (one no specifier writes).
    pub(super) fn none_in(p: Pkg, range: Ranges<Version>) -> Tree {
        DerivationTree::External(External::NoVersions(p, range))
    }

    /// The external fact of a leaf.
    pub(super) fn external(tree: &Tree) -> &Ext {
        match tree {
            DerivationTree::External(external) => external,
            DerivationTree::Derived(_) => panic!("not a leaf: {tree:?}"),
        }
    }

    /// A leaf's external fact, written out to compare (`External` has no `PartialEq`).
    pub(super) fn leaf(tree: &Tree) -> String {
        format!("{:?}", external(tree))
    }

    /// An external fact written out as [`leaf`] writes one.
    pub(super) fn fact(external: Ext) -> String {
        format!("{external:?}")
    }

    /// A derivation of `terms` (positive `(pkg, range)`s) from two causes.
    pub(super) fn derived(terms: &[(Pkg, &str)], cause1: Tree, cause2: Tree) -> Tree {
        let terms: Map<Pkg, Term<Ranges<Version>>> = terms
            .iter()
            .map(|(p, range)| (p.clone(), Term::Positive(r(range))))
            .collect();
        DerivationTree::Derived(Derived {
            terms,
            shared_id: None,
            cause1: Arc::new(cause1),
            cause2: Arc::new(cause2),
        })
    }

    /// A catalog over `index` for CPython 3.12 on Linux, with the tables of `read` already read
    /// (the passes only look at tables the solve read).
    pub(super) fn with_catalog<R>(
        index: &MemIndex,
        read: &[&str],
        f: impl FnOnce(&Catalog<'_>) -> R,
    ) -> R {
        let env = crate::solve::tests::linux_env("3.12.3");
        let binary = crate::index::BinaryPolicy::default();
        let core = CatalogCore::new(index, &env, &binary, Default::default());
        let catalog = Catalog::new(&core, None);
        for project in read {
            catalog.table(&name(project)).unwrap();
        }
        f(&catalog)
    }
}
