//! PEP 440 specifiers to pubgrub [`Ranges`] and back.
//!
//! In: [`VersionSpecifiers`] from requirements and `Requires-Python`. Out: [`Ranges<Version>`]
//! for the solver, and PEP 440 text for messages.
//!
//! `Ranges::from(VersionSpecifiers)` (pep440_rs) gets PEP 440 right except for local versions:
//! `==2.11.0` must match `2.11.0+cu130`, and so must `<=2.11.0`, while `!=2.11.0` must not.
//! [`specifiers_to_ranges`] maps `==V` to the *hull* of `V`, the half-open interval from `V` to
//! the next version after every `V+local`, which pubgrub can intersect like any range.
//! [`render`] turns ranges (hulls included) back into specifiers: `==3.6.0`, never
//! `>=3.6.0, <3.6.0.post0.dev0`.

use std::ops::Bound;

use pep440_rs::{Operator, Version, VersionSpecifier, VersionSpecifiers};
use pubgrub::Ranges;

/// Whether `range` lies inside one release's hull (`==2.11.0`, maybe with some of its versions
/// ruled out): a pin.
pub(crate) fn is_pin(range: &Ranges<Version>) -> bool {
    use std::ops::Bound::{Excluded, Included};
    matches!(range.bounding_range(),
        Some((Included(a) | Excluded(a), Excluded(b)))
            if a.release() == b.release() && hull_upper(a) == *b)
}

/// The smallest version greater than `version` and every `version+local`.
pub(crate) fn hull_upper(version: &Version) -> Version {
    let public = version.clone().without_local();
    if let Some(dev) = public.dev() {
        public.with_dev(Some(dev + 1))
    } else if let Some(post) = public.post() {
        public.with_post(Some(post + 1)).with_dev(Some(0))
    } else {
        public.with_post(Some(0)).with_dev(Some(0))
    }
}

/// `V` and every `V+local` (for a `V` without a local label), as a range.
pub(crate) fn hull(version: &Version) -> Ranges<Version> {
    if version.is_local() {
        return Ranges::singleton(version.clone());
    }
    Ranges::from_range_bounds(version.clone()..hull_upper(version))
}

/// One specifier as a range, with the local-version fix.
pub(crate) fn specifier_to_ranges(specifier: &VersionSpecifier) -> Ranges<Version> {
    let version = specifier.version();
    match specifier.operator() {
        Operator::Equal if !version.is_local() => hull(version),
        Operator::NotEqual if !version.is_local() => hull(version).complement(),
        Operator::LessThanEqual if !version.is_local() => {
            Ranges::strictly_lower_than(version.clone()).union(&hull(version))
        }
        Operator::EqualStar | Operator::NotEqualStar
            if version.post().is_none() && version.pre().is_none() =>
        {
            // pep440_rs ends `==2.11.*` at `2.12`, which lets `2.12.dev0` and `2.12a1` in.
            let low = version.clone().with_dev(Some(0));
            let mut release = version.release().to_vec();
            if let Some(last) = release.last_mut() {
                *last += 1;
            }
            let high = version
                .clone()
                .with_release(release)
                .with_dev(None)
                .with_min(Some(0));
            let range = Ranges::from_range_bounds(low..high);
            if *specifier.operator() == Operator::NotEqualStar {
                range.complement()
            } else {
                range
            }
        }
        _ => Ranges::from(specifier.clone()),
    }
}

/// Specifiers (intersected) as a range, with the local-version fix.
pub(crate) fn specifiers_to_ranges(specifiers: &VersionSpecifiers) -> Ranges<Version> {
    specifiers.iter().fold(Ranges::full(), |acc, s| {
        acc.intersection(&specifier_to_ranges(s))
    })
}

/// `Requires-Python` as a range over Python versions (release-only semantics, as uv does).
pub(crate) fn requires_python_to_ranges(specifiers: &VersionSpecifiers) -> Ranges<Version> {
    pep440_rs::release_specifiers_to_ranges(specifiers.clone())
}

/// Whether a specifier set names a pre-release (`>=1.0a1`), which opts its package into
/// pre-releases (PEP 440).
pub(crate) fn names_prerelease(specifiers: &VersionSpecifiers) -> bool {
    specifiers.iter().any(|s| s.version().any_prerelease())
}

/// Whether `specifiers` pin one exact version (`==V` without a wildcard, or `===V`).
pub(crate) fn is_exact_pin(specifiers: &VersionSpecifiers) -> bool {
    specifiers
        .iter()
        .any(|s| matches!(s.operator(), Operator::Equal | Operator::ExactEqual))
}

/// A version as PEP 440 text, with pep440_rs' internal min/max sentinels removed.
fn clean(version: &Version) -> Version {
    let mut v = version.clone();
    if Version::min(&v).is_some() {
        v = v.with_min(None);
    }
    if Version::max(&v).is_some() {
        v = v.with_max(None);
    }
    v
}

/// Whether `upper` is where `lower`'s hull ends.
fn is_hull(lower: &Version, upper: &Version) -> bool {
    !lower.is_local() && &hull_upper(lower) == upper
}

/// A lower bound as a specifier (`None` when unbounded).
fn lower_spec(bound: &Bound<Version>) -> Option<String> {
    match bound {
        Bound::Unbounded => None,
        Bound::Included(v) => {
            if v.dev() == Some(0) && v.post() == Some(0) && !v.is_local() {
                // The end of `V`'s hull: everything above `V` and its local variants. `>V`
                // says that (PEP 440's `>V` would also drop `V.postN`; close enough for text).
                Some(format!(">{}", v.clone().with_dev(None).with_post(None)))
            } else {
                Some(format!(">={}", clean(v)))
            }
        }
        Bound::Excluded(v) => {
            if Version::max(v).is_some() {
                // `>V` is `strictly_higher_than(V.max0)`.
                Some(format!(">{}", clean(v)))
            } else if v.is_local() || v.post().is_some() || v.dev().is_some() {
                Some(format!(">{v}"))
            } else {
                // Above `V` but not `V.postN`: only `V+local` sits between; say `>V` anyway.
                Some(format!(">{v}"))
            }
        }
    }
}

/// An upper bound as a specifier (`None` when unbounded).
fn upper_spec(bound: &Bound<Version>) -> Option<String> {
    match bound {
        Bound::Unbounded => None,
        Bound::Included(v) => Some(format!("<={}", clean(v))),
        Bound::Excluded(v) => {
            if Version::min(v).is_some() {
                Some(format!("<{}", clean(v)))
            } else if v.dev() == Some(0) && v.post().is_none() && v.pre().is_none() && !v.is_local()
            {
                // `<2.12.dev0` (from `~=2.11.0`) reads as `<2.12` in PEP 440 terms.
                Some(format!("<{}", v.clone().with_dev(None)))
            } else if let (Some(0), Some(post)) = (v.dev(), v.post()) {
                // `<V.post0.dev0` is `<=V` over public versions.
                let base = v.clone().with_dev(None);
                if post == 0 {
                    Some(format!("<={}", base.with_post(None)))
                } else {
                    Some(format!("<={}", base.with_post(Some(post - 1))))
                }
            } else {
                Some(format!("<{v}"))
            }
        }
    }
}

/// Render a range as PEP 440 specifiers (`>=1.0, <2.0`, `==3.6.0`, `!=1.5`), or `None` for
/// the full range ("any version"). Disjoint pieces that cannot be written as one specifier set
/// are joined with ` | `.
pub(crate) fn render(range: &Ranges<Version>) -> Option<String> {
    let segments: Vec<(Bound<Version>, Bound<Version>)> =
        range.iter().map(|(l, u)| (l.clone(), u.clone())).collect();
    if segments.is_empty() {
        return Some("<none>".to_string());
    }
    if segments.len() == 1 && segments[0] == (Bound::Unbounded, Bound::Unbounded) {
        return None;
    }
    // Gaps between segments that are exactly one version (or one hull) become `!=`.
    let mut excluded = Vec::new();
    let mut all_points = true;
    for pair in segments.windows(2) {
        let gap = match (&pair[0].1, &pair[1].0) {
            (Bound::Excluded(a), Bound::Excluded(b)) if a == b => Some(format!("!={}", clean(a))),
            (Bound::Excluded(a), Bound::Included(b)) if is_hull(a, b) => {
                Some(format!("!={}", clean(a)))
            }
            _ => None,
        };
        match gap {
            Some(g) => excluded.push(g),
            None => all_points = false,
        }
    }
    if all_points {
        let first = &segments[0];
        let last = &segments[segments.len() - 1];
        let mut parts = Vec::new();
        if excluded.is_empty()
            && let Some(single) = single_segment(&first.0, &last.1)
        {
            return Some(single);
        }
        parts.extend(lower_spec(&first.0));
        parts.extend(excluded);
        parts.extend(upper_spec(&last.1));
        return Some(parts.join(", "));
    }
    let pieces: Vec<String> = segments
        .iter()
        .map(|(l, u)| single_segment(l, u).unwrap_or_else(|| "*".to_string()))
        .collect();
    Some(pieces.join(" | "))
}

/// One contiguous segment as specifiers; `None` for the full range.
fn single_segment(lower: &Bound<Version>, upper: &Bound<Version>) -> Option<String> {
    match (lower, upper) {
        (Bound::Included(a), Bound::Included(b)) if a == b => Some(format!("=={}", clean(a))),
        (Bound::Included(a), Bound::Excluded(b)) if is_hull(a, b) => {
            Some(format!("=={}", clean(a)))
        }
        _ => {
            let parts: Vec<String> = lower_spec(lower)
                .into_iter()
                .chain(upper_spec(upper))
                .collect();
            if parts.is_empty() {
                None
            } else {
                Some(parts.join(", "))
            }
        }
    }
}

/// `name` followed by the range in PEP 440 terms (`numpy>=2.0, <3`), or the bare name for any
/// version.
pub(crate) fn name_with_range(name: &str, range: &Ranges<Version>) -> String {
    match render(range) {
        None => name.to_string(),
        Some(spec) if spec.contains(" | ") => format!("{name} {spec}"),
        Some(spec) => format!("{name}{spec}"),
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    fn r(spec: &str) -> Ranges<Version> {
        specifiers_to_ranges(&VersionSpecifiers::from_str(spec).unwrap())
    }

    fn v(s: &str) -> Version {
        Version::from_str(s).unwrap()
    }

    #[test]
    fn local_versions_follow_pep_440() {
        let local = v("2.11.0+cu130");
        for (spec, expected) in [
            ("==2.11.0", true),
            ("!=2.11.0", false),
            ("<=2.11.0", true),
            (">=2.11.0", true),
            ("~=2.11.0", true),
            ("==2.11.*", true),
            ("<2.11.1", true),
            (">2.11.0", false),
            ("==2.11.0+cu126", false),
            ("==2.11.0+cu130", true),
            ("<2.11.0", false),
        ] {
            let contains = VersionSpecifiers::from_str(spec).unwrap().contains(&local);
            assert_eq!(r(spec).contains(&local), expected, "{spec}");
            assert_eq!(contains, expected, "{spec} (pep440_rs)");
        }
        assert!(!r("==1.2.3").contains(&v("1.2.3.post1")));
        assert!(!r(">1.2.3.post1").contains(&v("1.2.3.post1+local")));
        assert!(r("==1.2.3.post1").contains(&v("1.2.3.post1+local")));
        assert!(!r("==2.11.*").contains(&v("2.12.dev0")));
        assert!(!r("==2.11.*").contains(&v("2.12a1")));
        assert!(r("!=2.11.*").contains(&v("2.12a1")));
        assert!(!r("!=2.11.*").contains(&v("2.11.5")));
    }

    #[test]
    fn renders_pep_440() {
        let cases = [
            ("==3.6.0", Some("==3.6.0")),
            (">=1.26,<2.0.1", Some(">=1.26, <2.0.1")),
            ("<2", Some("<2")),
            (">2", Some(">2")),
            ("<=2.0.0", Some("<=2.0.0")),
            ("!=1.5", Some("!=1.5")),
            (">=1,!=1.5,<3", Some(">=1, !=1.5, <3")),
            ("~=2.11.0", Some(">=2.11.0, <2.12")),
            (">=0", Some(">=0")),
            ("==2.0.0+foo", Some("==2.0.0+foo")),
            (">1.2.3.post0", Some(">=1.2.3.post1")),
            ("~=1.0,!=1.0", Some(">1.0, <2")),
            (">=1.0.post0.dev0", Some(">1.0")),
        ];
        for (spec, expected) in cases {
            assert_eq!(render(&r(spec)).as_deref(), expected, "{spec}");
        }
        assert_eq!(render(&Ranges::full()), None);
        assert_eq!(name_with_range("foo", &r("==1.0")), "foo==1.0");
        assert_eq!(name_with_range("foo", &Ranges::full()), "foo");
        let python = requires_python_to_ranges(&VersionSpecifiers::from_str(">=3.10").unwrap());
        assert_eq!(name_with_range("Python", &python), "Python>=3.10");
    }
}
