//! Pass 6: the hints a person can act on, derived from the facts.
//!
//! In: the [`Fact`]s of the raw tree, the [`Catalog`] (lookups for "did you mean" and for which
//! releases of a blocker accept a request go through it) and the request's [`Rules`]. Out:
//! [`Hint`]s in the order of the facts, then the blockers, without duplicates.

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::Version;
use pep508_rs::{ExtraName, PackageName};
use pubgrub::Ranges;

use crate::solve::candidates::{InstallChoice, VersionEntry, VersionTable};
use crate::solve::catalog::{AcceptingQuery, Among, Catalog};
use crate::solve::error::{
    Fact, FactPackage, Hint, HintKind, SolveError, Unavailable, releases_by_reason,
};
use crate::solve::ranges::name_with_range;
use crate::solve::rules::Rules;
use crate::solve::suggest;

/// How many versions of a blocker are read to find those that accept a request.
const BLOCKER_SCAN: usize = 30;

/// How many accepting versions a blocker hint lists (one more says "...").
const BLOCKER_LISTED: usize = 5;

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
pub(super) fn binary_policy_note(table: &VersionTable, range: &Ranges<Version>) -> Option<String> {
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

/// Known names close to `missing` (see [`crate::solve::suggest`]); confusable spellings are looked up
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
pub(super) fn hints(
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
            } => unavailable_hints(facts, name, range, reason),
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

/// Versions of `name` in `range` are unusable for `reason`: one hint, or, when other releases
/// of `name` are unusable for the same kind of reason (sixty sdists whose metadata needs a
/// build), one hint for all of them.
fn unavailable_hints(
    facts: &[Fact],
    name: &PackageName,
    range: &Ranges<Version>,
    reason: &Unavailable,
) -> Vec<Hint> {
    if matches!(reason, Unavailable::Yanked { .. }) {
        return vec![unavailable_hint(name, range, reason)];
    }
    let kind = reason.kind_of_reason();
    let mut alike: Vec<(Ranges<Version>, Unavailable)> = facts
        .iter()
        .filter_map(|fact| match fact {
            Fact::Unavailable {
                package: FactPackage::Dist { name: n, .. },
                range: r,
                reason: u,
            } if n == name && u.kind_of_reason() == kind => Some((r.clone(), u.clone())),
            _ => None,
        })
        .collect();
    alike.sort_by(|a, b| a.0.as_singleton().cmp(&b.0.as_singleton()));
    // Every member words the same hint; `push_new` keeps the first.
    match alike.as_slice() {
        [_, _, ..] => {
            let each = releases_by_reason(&alike).join("; ");
            vec![hint(HintKind::Unusable, name, format!("{name}: {each}"))]
        }
        _ => vec![unavailable_hint(name, range, reason)],
    }
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

#[cfg(test)]
mod tests {
    use super::super::fixture::{name, r, v, with_catalog};
    use super::*;
    use crate::solve::SolveRequest;
    use crate::solve::mem_index::MemIndex;

    fn requires(
        dependent: &str,
        dependent_range: &str,
        dependency: FactPackage,
        range: &str,
    ) -> Fact {
        Fact::Requires {
            dependent: FactPackage::Dist {
                name: name(dependent),
                extra: None,
            },
            dependent_range: r(dependent_range),
            dependency,
            range: r(range),
        }
    }

    fn on(dist: &str) -> FactPackage {
        FactPackage::Dist {
            name: name(dist),
            extra: None,
        }
    }

    /// Facts from a tree: you require b>=2, a==1.0 requires Python>=3.13, Python is outside.
    #[test]
    fn a_release_that_needs_another_python_gets_one_hint() {
        let facts = [
            requires("a", "==1.0", FactPackage::Python, ">=3.13"),
            requires("a", "==2.0", FactPackage::Python, ">=3.14"),
        ];
        let hints = requires_python_hints(&facts, &r(">=3.13"), &v("3.12.3"));
        assert_eq!(hints.len(), 1, "{hints:?}");
        assert_eq!(hints[0].kind, HintKind::RequiresPython);
        assert_eq!(
            hints[0].message,
            "a==1.0 requires Python>=3.13, but the target is Python 3.12.3; target a newer Python (--python-version) or pick a release of a that supports 3.12.3"
        );
    }

    #[test]
    fn a_yanked_range_says_how_to_use_it_anyway() {
        let yanked = Unavailable::Yanked {
            reason: String::new(),
        };
        let hint = unavailable_hint(&name("a"), &r("==1.0"), &yanked);
        assert_eq!(hint.kind, HintKind::Yanked);
        assert!(
            hint.message.starts_with("a==1.0 is yanked; pin it exactly"),
            "{}",
            hint.message
        );
    }

    #[test]
    fn the_user_s_own_ranges_come_from_root_requirements_only() {
        let facts = [
            Fact::Requires {
                dependent: FactPackage::Root,
                dependent_range: r(""),
                dependency: on("b"),
                range: r(">=2"),
            },
            requires("a", "==1.0", on("b"), "<2"),
        ];
        let root = root_ranges(&facts);
        assert_eq!(root.len(), 1);
        assert_eq!(root[&name("b")], r(">=2"));
    }

    #[test]
    fn long_lists_of_versions_are_cut_after_five() {
        let versions: Vec<Version> = (1..=7).map(|i| v(&format!("{i}.0"))).collect();
        assert_eq!(listed(&versions[..2]), "1.0, 2.0");
        assert_eq!(listed(&versions), "1.0, 2.0, 3.0, 4.0, 5.0, ...");
    }

    #[test]
    fn a_pre_release_that_would_fit_is_named() {
        let mut index = MemIndex::new();
        index.add("b", "1.0", &[]).add("b", "2.0rc1", &[]);
        let request = SolveRequest::default();
        let env = crate::solve::tests::linux_env("3.12.3");
        let rules = Rules::new(&request, &env);
        with_catalog(&index, &["b"], |catalog| {
            let hints = no_versions_hints(&name("b"), &r(">=1.5"), catalog, &rules);
            assert_eq!(hints.len(), 1, "{hints:?}");
            assert_eq!(hints[0].kind, HintKind::Prerelease);
            assert!(hints[0].message.starts_with(
                "pre-releases of b are in the range but were not considered (b==2.0rc1)"
            ));
        });
    }

    /// A blocker: a==1.0 requires b<2 where you asked b>=2; a==2.0 accepts it.
    #[test]
    fn a_blocker_hint_lists_the_releases_that_accept_the_request() {
        let mut index = MemIndex::new();
        index
            .add("a", "1.0", &["b<2"])
            .add("a", "2.0", &["b>=2"])
            .add("b", "1.0", &[])
            .add("b", "2.0", &[]);
        let request = SolveRequest::default();
        let env = crate::solve::tests::linux_env("3.12.3");
        let rules = Rules::new(&request, &env);
        let facts = [
            Fact::Requires {
                dependent: FactPackage::Root,
                dependent_range: r(""),
                dependency: on("b"),
                range: r(">=2"),
            },
            requires("a", "==1.0", on("b"), "<2"),
            requires("a", "==1.0", on("b"), "<2"),
        ];
        with_catalog(&index, &["a", "b"], |catalog| {
            let hints = blocker_hints(&facts, catalog, &rules).unwrap();
            assert_eq!(hints.len(), 1, "{hints:?}");
            assert_eq!(hints[0].kind, HintKind::BlockerVersions);
            assert_eq!(hints[0].message, "a releases that accept b>=2: 2.0");
        });
    }
}
