//! "Did you mean": names close to one the index does not have.
//!
//! In: the missing name and the names known at the time of the failure (the projects the index
//! answered for, the requirements, constraints and overrides, the installed distributions, what
//! they require, and their import names). Out: at most [`MAX_SUGGESTIONS`] names, closest first.
//!
//! A known name is suggested when it is *confusable* with the missing one, or within a small
//! edit distance of it:
//! - confusable: the two are equal once PEP 503 separators are dropped (`scikitlearn` and
//!   `scikit-learn`), or once a `python-`/`py-`/`py` prefix or `-python`/`-py` suffix is dropped
//!   (`dateutil` and `python-dateutil`, `yaml` and `pyyaml`); or the missing name is an import
//!   name of an installed distribution (`yaml` for `pyyaml`, `sklearn` for `scikit-learn`);
//! - close: an optimal-string-alignment distance (insertions, deletions, substitutions and
//!   swaps of neighbours) of at most 2 on the normalized names, or at most 1 when the shorter name
//!   has 4 characters or fewer, where 2 edits turn almost any name into another.
//!
//! [`variants`] lists the confusable spellings of a missing name worth asking the index about
//! (a handful of lookups, only on the failure path).

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use pep508_rs::PackageName;

/// The most names suggested for one missing name.
pub(crate) const MAX_SUGGESTIONS: usize = 3;

const PREFIXES: [&str; 3] = ["python-", "py-", "py"];
const SUFFIXES: [&str; 2] = ["-python", "-py"];

/// The name with PEP 503 separators dropped.
fn squashed(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '.'))
        .collect()
}

/// The name without a conventional `python`/`py` prefix or suffix, squashed.
fn stem(name: &str) -> String {
    let mut s = name;
    for prefix in PREFIXES {
        if let Some(rest) = s.strip_prefix(prefix)
            && !rest.is_empty()
        {
            s = rest;
            break;
        }
    }
    for suffix in SUFFIXES {
        if let Some(rest) = s.strip_suffix(suffix)
            && !rest.is_empty()
        {
            s = rest;
            break;
        }
    }
    squashed(s)
}

/// Whether two distinct normalized names are easy to mistake for each other.
pub(crate) fn confusable(a: &str, b: &str) -> bool {
    a != b && (squashed(a) == squashed(b) || stem(a) == stem(b))
}

/// Optimal string alignment distance between `a` and `b`, or `None` once it exceeds `max`.
pub(crate) fn distance(a: &str, b: &str, max: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    // Three rows: two back (for swaps), one back, current.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        let mut row_min = current[0];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            current[j] = d;
            row_min = row_min.min(d);
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    let d = previous[b.len()];
    (d <= max).then_some(d)
}

/// The edit budget for a pair of names.
fn budget(a: &str, b: &str) -> usize {
    if a.chars().count().min(b.chars().count()) <= 4 {
        1
    } else {
        2
    }
}

/// Known names close to `missing`, closest first (confusables and import names before edits),
/// at most [`MAX_SUGGESTIONS`]. `import_names` maps an import name (lowercase) to the
/// distributions that provide it.
pub(crate) fn suggest<'a>(
    missing: &PackageName,
    known: impl IntoIterator<Item = &'a PackageName>,
    import_names: &BTreeMap<String, BTreeSet<PackageName>>,
) -> Vec<PackageName> {
    let wanted = missing.as_ref();
    let mut scored: BTreeMap<(usize, PackageName), ()> = BTreeMap::new();
    let import_key = wanted.replace('-', "_");
    for name in import_names
        .get(&import_key)
        .into_iter()
        .chain(import_names.get(wanted))
        .flatten()
    {
        if name != missing {
            scored.insert((0, name.clone()), ());
        }
    }
    for name in known {
        if name == missing {
            continue;
        }
        let candidate = name.as_ref();
        let score = if confusable(wanted, candidate) {
            Some(0)
        } else {
            distance(wanted, candidate, budget(wanted, candidate))
        };
        if let Some(score) = score {
            scored.insert((score, name.clone()), ());
        }
    }
    let mut out: Vec<PackageName> = Vec::new();
    for (_, name) in scored.into_keys() {
        if !out.contains(&name) {
            out.push(name);
        }
        if out.len() == MAX_SUGGESTIONS {
            break;
        }
    }
    out
}

/// The commonest typos undone, for an index that cannot list its names (HTTP): a doubled
/// letter typed once more (`tritonn` -> `triton`), then two neighbours swapped (`reqeusts` ->
/// `requests`). A missing or wrong letter is not tried (too many spellings to ask about).
fn typo_variants(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    for i in 1..chars.len() {
        if chars[i] == chars[i - 1] && chars[i].is_alphanumeric() {
            let mut v = chars.clone();
            v.remove(i);
            out.push(v.into_iter().collect());
        }
    }
    for i in 1..chars.len() {
        if chars[i] != chars[i - 1] {
            let mut v = chars.clone();
            v.swap(i, i - 1);
            out.push(v.into_iter().collect());
        }
    }
    out
}

/// Confusable spellings of `missing` worth one index lookup each: with a `python-`/`py`
/// prefix added or dropped, without separators, with a `-python` suffix dropped; then the
/// commonest typos undone ([`typo_variants`]).
pub(crate) fn variants(missing: &PackageName) -> Vec<PackageName> {
    let name = missing.as_ref();
    let mut out: Vec<String> = Vec::new();
    let mut stripped = false;
    for prefix in PREFIXES {
        if let Some(rest) = name.strip_prefix(prefix)
            && rest.len() > 1
        {
            out.push(rest.to_string());
            stripped = true;
            break;
        }
    }
    for suffix in SUFFIXES {
        if let Some(rest) = name.strip_suffix(suffix)
            && rest.len() > 1
        {
            out.push(rest.to_string());
            stripped = true;
            break;
        }
    }
    if !stripped {
        out.push(format!("python-{name}"));
        out.push(format!("py{name}"));
    }
    if name.contains('-') {
        out.push(squashed(name));
    }
    out.extend(typo_variants(name));
    let mut seen = BTreeSet::new();
    out.into_iter()
        .filter_map(|n| PackageName::from_str(&n).ok())
        .filter(|n| n != missing && seen.insert(n.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> PackageName {
        PackageName::from_str(s).unwrap()
    }

    fn names(list: &[&str]) -> Vec<PackageName> {
        list.iter().map(|s| name(s)).collect()
    }

    #[test]
    fn distance_counts_edits_and_swaps() {
        assert_eq!(distance("requests", "requests", 2), Some(0));
        assert_eq!(distance("reqeusts", "requests", 2), Some(1));
        assert_eq!(distance("requets", "requests", 2), Some(1));
        assert_eq!(distance("rquets", "requests", 2), Some(2));
        assert_eq!(distance("numpy", "scipy", 2), None);
        assert_eq!(distance("", "ab", 2), Some(2));
        assert_eq!(distance("abc", "", 2), None);
    }

    #[test]
    fn confusables_and_close_names() {
        assert!(confusable("scikitlearn", "scikit-learn"));
        assert!(confusable("dateutil", "python-dateutil"));
        assert!(confusable("yaml", "pyyaml"));
        assert!(!confusable("numpy", "numpy"));
        assert!(!confusable("torch", "triton"));
        let known = names(&["requests", "numpy", "pyyaml", "scikit-learn", "urllib3"]);
        let none = BTreeMap::new();
        assert_eq!(
            suggest(&name("reqeusts"), &known, &none),
            names(&["requests"])
        );
        assert_eq!(suggest(&name("yaml"), &known, &none), names(&["pyyaml"]));
        assert_eq!(
            suggest(&name("scikitlearn"), &known, &none),
            names(&["scikit-learn"])
        );
        // Short names get one edit only.
        assert_eq!(
            suggest(&name("nmp"), &known, &none),
            Vec::<PackageName>::new()
        );
        assert_eq!(
            suggest(&name("torch"), &known, &none),
            Vec::<PackageName>::new()
        );
    }

    #[test]
    fn import_names_point_at_their_distribution() {
        let mut imports = BTreeMap::new();
        imports.insert("sklearn".to_string(), [name("scikit-learn")].into());
        assert_eq!(
            suggest(&name("sklearn"), &[], &imports),
            names(&["scikit-learn"])
        );
    }

    #[test]
    fn variants_are_few_and_distinct() {
        let first = |n: &str, k: usize| variants(&name(n)).into_iter().take(k).collect::<Vec<_>>();
        assert_eq!(
            first("dateutil", 2),
            names(&["python-dateutil", "pydateutil"])
        );
        assert_eq!(
            first("python-dateutil", 2),
            names(&["dateutil", "pythondateutil"])
        );
        assert_eq!(first("pyyaml", 2), names(&["yaml", "pyaml"]));
        assert_eq!(
            first("scikit-learn", 3),
            names(&["python-scikit-learn", "pyscikit-learn", "scikitlearn"])
        );
        // The typos: a doubled letter typed once more, then neighbours swapped.
        assert_eq!(
            first("tritonn", 3),
            names(&["python-tritonn", "pytritonn", "triton"])
        );
        assert!(variants(&name("reqeusts")).contains(&name("requests")));
    }
}
