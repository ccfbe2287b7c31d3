//! Passes 1-4 over the derivation tree (see the parent module): the facts collected, phantom
//! "no versions" leaves dropped, the pins of `name[extra]` to `name` folded away, ranges
//! simplified against the versions that exist, restatements dropped.
//!
//! In: the raw [`Tree`] and the [`Catalog`] (the versions each project has, already read). Out:
//! the [`Fact`]s, and the tree rewritten in place.

use std::sync::Arc;

use pep440_rs::Version;
use pubgrub::{DerivationTree, External, Map, Ranges, Term};

use super::{Ext, Tree};
use crate::solve::catalog::Catalog;
use crate::solve::error::{Fact, FactPackage, Unavailable, UnusableRelease};
use crate::solve::package::Pkg;
use crate::solve::ranges::hull_upper;

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

/// The external facts under `tree`, each once, in the order a depth-first walk meets them
/// (cause 1 before cause 2). Iterative: a derivation thousands deep is walked without recursion.
pub(super) fn collect_facts(tree: &Tree, catalog: &Catalog<'_>, out: &mut Vec<Fact>) {
    let mut stack = vec![tree];
    while let Some(tree) = stack.pop() {
        match tree {
            DerivationTree::Derived(derived) => {
                stack.push(&derived.cause2);
                stack.push(&derived.cause1);
            }
            DerivationTree::External(external) => {
                if let Some(fact) = external_fact(external, catalog)
                    && !out.contains(&fact)
                {
                    out.push(fact);
                }
            }
        }
    }
}

/// The fact an external incompatibility states (`None`: plumbing, or a phantom leaf).
fn external_fact(external: &Ext, catalog: &Catalog<'_>) -> Option<Fact> {
    Some(match external {
        External::NotRoot(..) => return None,
        External::FromDependencyOf(p, pr, d, dr) => {
            // The pin of `name[extra]` to `name` is plumbing, not a fact.
            if matches!((p, d), (Pkg::Extra(a, _), Pkg::Dist(b)) if a == b) {
                return None;
            }
            Fact::Requires {
                dependent: fact_package(p),
                dependent_range: pr.clone(),
                dependency: fact_package(d),
                range: dr.clone(),
            }
        }
        External::NoVersions(p, r) if is_phantom(p, r, catalog) => return None,
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
    })
}

/// The longest path from `tree` to a leaf, counted in derivations, without recursion (shared
/// subtrees counted once).
pub(super) fn depth(tree: &Tree) -> usize {
    let mut known: rustc_hash::FxHashMap<*const Tree, usize> = Default::default();
    let mut stack = vec![(tree, false)];
    while let Some((node, expanded)) = stack.pop() {
        let DerivationTree::Derived(derived) = node else {
            known.insert(node, 0);
            continue;
        };
        let (c1, c2) = (&*derived.cause1, &*derived.cause2);
        if expanded {
            let below = known[&(c1 as *const Tree)].max(known[&(c2 as *const Tree)]);
            known.insert(node, below + 1);
        } else if !known.contains_key(&(node as *const Tree)) {
            stack.push((node, true));
            for cause in [c2, c1] {
                if !known.contains_key(&(cause as *const Tree)) {
                    stack.push((cause, false));
                }
            }
        }
    }
    known[&(tree as *const Tree)]
}

/// Drop `tree` without recursion: each derivation held only here is taken apart on a stack
/// (the default drop recurses once per level and overflows thousands of levels down).
pub(super) fn drop_iteratively(tree: Tree) {
    let mut stack = vec![tree];
    while let Some(tree) = stack.pop() {
        if let DerivationTree::Derived(derived) = tree {
            for cause in [derived.cause1, derived.cause2] {
                if let Ok(owned) = Arc::try_unwrap(cause) {
                    stack.push(owned);
                }
            }
        }
    }
}

pub(super) fn is_not_found(pkg: &Pkg, catalog: &Catalog<'_>) -> bool {
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
    let known = versions.iter().fold(Ranges::empty(), |acc, v| {
        acc.union(&crate::solve::ranges::hull(v))
    });
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
pub(super) fn drop_phantoms(tree: &mut Tree, catalog: &Catalog<'_>) {
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
pub(super) fn collapse_proxies(tree: &Tree) -> Option<Tree> {
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
pub(super) fn merge_extra_no_versions(tree: &mut Tree) {
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

pub(super) fn simplify(tree: &mut Tree, catalog: &Catalog<'_>) {
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
pub(super) fn drop_restatements(tree: &mut Tree, catalog: &Catalog<'_>) {
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

/// A derivation that rests only on unusable releases of one package ("a==1.0 was yanked and
/// a==1.1 has metadata that cannot be read, so a<1.2 cannot be used") becomes one statement of
/// its conclusion, naming the releases by reason: a chain over sixty sdists whose metadata
/// needs a build reads as one line, not sixty. Bottom-up, so a whole chain folds. A "no
/// versions" leaf of the same package folds in too (it adds no release): the gaps between the
/// unusable releases (`markupsafe>0.23,!=1.0,...,<2.1.0`, where only pre-releases are) would
/// otherwise start a chain of one derivation per sdist; the pre-releases stay in the hints.
/// Two "no versions" leaves never fold: at least one release must be unusable.
pub(super) fn merge_unavailable_runs(tree: &mut Tree) {
    let DerivationTree::Derived(derived) = tree else {
        return;
    };
    merge_unavailable_runs(Arc::make_mut(&mut derived.cause1));
    merge_unavailable_runs(Arc::make_mut(&mut derived.cause2));
    let (Some((p1, mut each)), Some((p2, more))) =
        (run_part(&derived.cause1), run_part(&derived.cause2))
    else {
        return;
    };
    // The conclusion must be "no release of p in R can be used", nothing else.
    let concluded = match derived.terms.iter().collect::<Vec<_>>().as_slice() {
        [(pkg, Term::Positive(range))] if *pkg == p1 && p1 == p2 => range.clone(),
        _ => return,
    };
    each.extend(more);
    if each.is_empty() {
        return;
    }
    each.sort_by(|a, b| a.0.as_singleton().cmp(&b.0.as_singleton()));
    *tree = DerivationTree::External(External::Custom(
        p1.clone(),
        concluded,
        Unavailable::Releases { each },
    ));
}

/// A leaf a run of unusable releases may fold: an unusable release (or a folded run) with its
/// releases, or "no versions" of a package with none.
fn run_part(tree: &Tree) -> Option<(&Pkg, Vec<UnusableRelease>)> {
    match tree {
        DerivationTree::External(External::Custom(p, r, u)) => Some((p, releases(r, u))),
        DerivationTree::External(External::NoVersions(p, _)) => Some((p, Vec::new())),
        _ => None,
    }
}

/// The releases one unusable-release fact covers, a folded run flattened.
fn releases(range: &Ranges<Version>, reason: &Unavailable) -> Vec<(Ranges<Version>, Unavailable)> {
    match reason {
        Unavailable::Releases { each } => each.clone(),
        other => vec![(range.clone(), other.clone())],
    }
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

#[cfg(test)]
mod tests {
    use pubgrub::{DerivationTree, External};

    use super::super::fixture::{
        dep, derived, dist, external, extra, fact, leaf, none, none_in, r, v, with_catalog,
    };
    use super::*;
    use crate::solve::mem_index::MemIndex;

    /// `a[x]==1.0` rests on `a==1.0` (the pin) and on `b>=2`: the pin is plumbing.
    fn extra_over_pin() -> Tree {
        derived(
            &[(extra("a", "x"), "==1.0")],
            dep(extra("a", "x"), "==1.0", dist("a"), "==1.0"),
            dep(extra("a", "x"), "==1.0", dist("b"), ">=2"),
        )
    }

    /// `a==VERSION` (one release, as the ranges pass leaves it) cannot be used for `reason`.
    fn unusable(version: &str, reason: Unavailable) -> Tree {
        DerivationTree::External(External::Custom(
            dist("a"),
            Ranges::singleton(v(version)),
            reason,
        ))
    }

    fn needs_a_build(version: &str) -> Unavailable {
        Unavailable::Metadata {
            message: format!(
                "metadata of a-{version}.tar.gz is unavailable without a build: PKG-INFO is \
                 Metadata-Version 2.1, older than 2.2 (PEP 643)"
            ),
        }
    }

    #[test]
    fn a_chain_of_unusable_releases_folds_into_one_statement() {
        let yanked = Unavailable::Yanked {
            reason: String::new(),
        };
        // pubgrub's chain: 1.0 and 1.1 give a<1.2; with 1.2 (yanked), a<1.3; with 1.3, a<1.4.
        let chain = derived(
            &[(dist("a"), "<1.4")],
            derived(
                &[(dist("a"), "<1.3")],
                derived(
                    &[(dist("a"), "<1.2")],
                    unusable("1.0", needs_a_build("1.0")),
                    unusable("1.1", needs_a_build("1.1")),
                ),
                unusable("1.2", yanked),
            ),
            unusable("1.3", needs_a_build("1.3")),
        );
        let mut tree = derived(&[], chain, dep(Pkg::Root, "", dist("a"), ""));
        merge_unavailable_runs(&mut tree);
        let DerivationTree::Derived(top) = &tree else {
            panic!("the root derivation stays: {tree:?}");
        };
        let External::Custom(pkg, range, reason) = external(&top.cause1) else {
            panic!("not folded: {:?}", top.cause1);
        };
        assert_eq!((pkg, range), (&dist("a"), &r("<1.4")));
        assert_eq!(
            reason.to_string(),
            "cannot be used (3 releases (1.0 to 1.3) have metadata that cannot be read \
             (PKG-INFO is Metadata-Version 2.1, older than 2.2 (PEP 643)); 1.2 was yanked)"
        );
    }

    /// `propose 'jinja2<3' --allow-build` on CPython 3.12 (live, 2026-12-05): every MarkupSafe
    /// below 2.1.0 is an sdist whose metadata needs a build, and between them only pre-releases
    /// exist. pubgrub's chain starts from that gap ("no version of a>1.0,!=1.1,<1.3") and the
    /// report said "And because a==1.x has metadata that cannot be read" once per sdist.
    #[test]
    fn a_gap_between_unusable_releases_folds_into_their_run() {
        let chain = derived(
            &[(dist("a"), "<1.3")],
            derived(
                &[(dist("a"), ">=1.0, <1.3, !=1.2")],
                derived(
                    &[(dist("a"), ">=1.0, <1.1")],
                    none(dist("a"), ">1.0, <1.1"),
                    unusable("1.0", needs_a_build("1.0")),
                ),
                unusable("1.1", needs_a_build("1.1")),
            ),
            unusable("1.2", needs_a_build("1.2")),
        );
        let mut tree = derived(&[], chain, dep(Pkg::Root, "", dist("a"), "<1.3"));
        merge_unavailable_runs(&mut tree);
        let DerivationTree::Derived(top) = &tree else {
            panic!("the root derivation stays: {tree:?}");
        };
        let External::Custom(pkg, range, reason) = external(&top.cause1) else {
            panic!("not folded: {:?}", top.cause1);
        };
        assert_eq!((pkg, range), (&dist("a"), &r("<1.3")));
        assert_eq!(
            reason.to_string(),
            "cannot be used (3 releases (1.0 to 1.2) have metadata that cannot be read \
             (PKG-INFO is Metadata-Version 2.1, older than 2.2 (PEP 643)))"
        );
    }

    /// Two gaps fold into nothing: "no version" twice names no unusable release.
    #[test]
    fn two_gaps_alone_do_not_fold() {
        let mut tree = derived(
            &[(dist("a"), "<2.0")],
            none(dist("a"), "<1.0"),
            none(dist("a"), ">=1.0, <2.0"),
        );
        let before = format!("{tree:?}");
        merge_unavailable_runs(&mut tree);
        assert_eq!(format!("{tree:?}"), before);
    }

    #[test]
    fn unusable_releases_of_two_packages_stay_apart() {
        let other = DerivationTree::External(External::Custom(
            dist("b"),
            r("==1.0"),
            needs_a_build("1.0"),
        ));
        let mut tree = derived(
            &[(dist("a"), "==1.0"), (dist("b"), "==1.0")],
            unusable("1.0", needs_a_build("1.0")),
            other,
        );
        let before = format!("{tree:?}");
        merge_unavailable_runs(&mut tree);
        assert_eq!(format!("{tree:?}"), before);
    }

    #[test]
    fn facts_leave_out_the_pin_of_an_extra_and_repeats() {
        let mut index = MemIndex::new();
        index.add("a", "1.0", &[]).add("b", "1.0", &[]);
        with_catalog(&index, &["a", "b"], |catalog| {
            let tree = derived(&[], extra_over_pin(), extra_over_pin());
            let mut facts = Vec::new();
            collect_facts(&tree, catalog, &mut facts);
            assert_eq!(
                facts,
                [Fact::Requires {
                    dependent: FactPackage::Dist {
                        name: "a".parse().unwrap(),
                        extra: Some("x".parse().unwrap()),
                    },
                    dependent_range: r("==1.0"),
                    dependency: FactPackage::Dist {
                        name: "b".parse().unwrap(),
                        extra: None,
                    },
                    range: r(">=2"),
                }]
            );
        });
    }

    #[test]
    fn proxy_pins_fold_into_the_other_cause() {
        let collapsed = collapse_proxies(&extra_over_pin()).unwrap();
        assert_eq!(
            leaf(&collapsed),
            leaf(&dep(extra("a", "x"), "==1.0", dist("b"), ">=2"))
        );
        let only_pins = derived(
            &[],
            dep(extra("a", "x"), "", dist("a"), ""),
            dep(extra("a", "y"), "", dist("a"), ""),
        );
        assert!(collapse_proxies(&only_pins).is_none());
    }

    /// `a` has only 1.0: "no version of a >1.0, <1.0.post0.dev0" is the hull of `==1.0` less
    /// 1.0 itself, a phantom; "no version of a >=2" is a real leaf and stays.
    #[test]
    fn phantom_no_versions_leaves_are_dropped_real_ones_kept() {
        let mut index = MemIndex::new();
        index.add("a", "1.0", &[]).add("c", "1.0", &["a>=2"]);
        with_catalog(&index, &["a", "c"], |catalog| {
            let real = dep(dist("c"), "==1.0", dist("a"), ">=2");
            let gap = Ranges::from_range_bounds((
                std::ops::Bound::Excluded(v("1.0")),
                std::ops::Bound::Excluded(hull_upper(&v("1.0"))),
            ));
            let mut tree = derived(&[], none_in(dist("a"), gap), real.clone());
            drop_phantoms(&mut tree, catalog);
            assert_eq!(leaf(&tree), leaf(&real));

            let mut kept = derived(&[], none(dist("a"), ">=2"), real);
            drop_phantoms(&mut kept, catalog);
            assert!(matches!(kept, DerivationTree::Derived(_)));
        });
    }

    #[test]
    fn a_no_versions_leaf_of_an_extra_merges_into_its_sibling() {
        let mut tree = derived(
            &[],
            none(extra("a", "x"), ">=2"),
            dep(extra("a", "x"), "<2", dist("d"), "<2"),
        );
        merge_extra_no_versions(&mut tree);
        let both = r("<2").union(&r(">=2"));
        assert_eq!(
            leaf(&tree),
            fact(External::FromDependencyOf(
                extra("a", "x"),
                both,
                dist("d"),
                r("<2")
            ))
        );
    }

    /// `a` has 1.0 and 2.0: `a>=1.5` holds only 2.0 and prints as `==2.0`; the dependency's
    /// range is the requirement as written and stays.
    #[test]
    fn ranges_simplify_against_the_versions_that_exist() {
        let mut index = MemIndex::new();
        index.add("a", "1.0", &[]).add("a", "2.0", &["b>=1"]);
        with_catalog(&index, &["a"], |catalog| {
            let mut tree = dep(dist("a"), ">=1.5", dist("b"), ">=1");
            simplify(&mut tree, catalog);
            assert_eq!(
                leaf(&tree),
                fact(External::FromDependencyOf(
                    dist("a"),
                    Ranges::singleton(v("2.0")),
                    dist("b"),
                    r(">=1")
                ))
            );
        });
    }

    /// "Because there is no version of a <1 | >1, <2 and a==1.0 depends on b==1.0, a==1.0
    /// depends on b==1.0": the derivation is its sibling's fact again, and the sibling replaces it.
    #[test]
    fn a_leaf_that_restates_its_sibling_is_dropped() {
        let mut index = MemIndex::new();
        index
            .add("a", "1.0", &["b==1.0"])
            .add("a", "2.0", &[])
            .add("b", "1.0", &[]);
        with_catalog(&index, &["a", "b"], |catalog| {
            let sibling = dep(dist("a"), "==1.0", dist("b"), "==1.0");
            let mut terms = Map::default();
            terms.insert(dist("a"), Term::Positive(r("==1.0")));
            terms.insert(dist("b"), Term::Negative(r("==1.0")));
            let mut tree = DerivationTree::Derived(pubgrub::Derived {
                terms,
                shared_id: None,
                cause1: Arc::new(none(dist("a"), "!=1,<2")),
                cause2: Arc::new(sibling.clone()),
            });
            simplify(&mut tree, catalog);
            drop_restatements(&mut tree, catalog);
            let mut simple_sibling = sibling.clone();
            simplify(&mut simple_sibling, catalog);
            assert_eq!(leaf(&tree), leaf(&simple_sibling));

            let mut other = derived(&[(dist("a"), "<2")], none(dist("a"), "<1"), sibling);
            drop_restatements(&mut other, catalog);
            assert!(matches!(other, DerivationTree::Derived(_)));
        });
    }
}
