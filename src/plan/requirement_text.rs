//! A requirement as a reason's words say it: PEP 508 requirements in (each that applies here),
//! their text out without the marker, which says nothing once the requirement applies, and with
//! the extras it came through named instead (`nvidia-cublas==13.4.1.3.*, through its extras
//! cublas, cusolver`). One helper for every human reason: `required by`, `needed to unblock`,
//! `follows`, `repairs`, `blocked by:`, the held-back and overrides lines, the already-broken
//! lines and the titles that name a broken or blocking edge, and review's `breaks:`, `narrows:`,
//! install-line and `--no-deps` remarks and factor details. JSON keeps the whole requirement.

use pep508_rs::{MarkerTree, Requirement};

/// `requirement` in words: its text without the marker, then the extras the marker names.
pub(crate) fn said(requirement: &Requirement) -> String {
    with_extras(&unmarked(requirement), &marker_extras(requirement))
}

/// Requirements said once each: `(key, requirement)` pairs in (the key is whose requirement it
/// is: a dependent and its version); out, in the same order, the words of each pair that no
/// earlier pair has the same key and the same text without the marker for, naming the extras
/// of every such pair (cuda-toolkit's `nvidia-cublas==13.4.1.3.*` through two extras: one
/// entry), and `None` for the later ones.
pub(crate) fn said_once<K: PartialEq>(items: &[(K, &Requirement)]) -> Vec<Option<String>> {
    let texts: Vec<String> = items.iter().map(|(_, r)| unmarked(r)).collect();
    let same = |i: usize, j: usize| items[i].0 == items[j].0 && texts[i] == texts[j];
    (0..items.len())
        .map(|i| {
            if (0..i).any(|j| same(i, j)) {
                return None;
            }
            let mut extras: Vec<String> = Vec::new();
            for j in (i..items.len()).filter(|&j| same(i, j)) {
                for extra in marker_extras(items[j].1) {
                    if !extras.contains(&extra) {
                        extras.push(extra);
                    }
                }
            }
            Some(with_extras(&texts[i], &extras))
        })
        .collect()
}

/// `text`, then `, through its extra X` (or `extras X, Y`) when there are extras.
fn with_extras(text: &str, extras: &[String]) -> String {
    match extras {
        [] => text.to_string(),
        [one] => format!("{text}, through its extra {one}"),
        _ => format!("{text}, through its extras {}", extras.join(", ")),
    }
}

/// A requirement as text without its marker: `nvidia-cublas==13.4.1.3.*`.
fn unmarked(requirement: &Requirement) -> String {
    let mut bare = requirement.clone();
    bare.marker = MarkerTree::TRUE;
    bare.to_string()
}

/// The extras a requirement's marker names (`extra == 'cublas'`), in order.
fn marker_extras(requirement: &Requirement) -> Vec<String> {
    let Some(marker) = requirement.marker.try_to_string() else {
        return Vec::new();
    };
    marker
        .match_indices("extra == '")
        .filter_map(|(at, prefix)| {
            let rest = &marker[at + prefix.len()..];
            rest.split_once('\'').map(|(extra, _)| extra.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Requirement {
        crate::metadata::parse_requirement(s).unwrap()
    }

    /// A marker that held here says nothing: torch 2.11.0's triton pin reads as the pin.
    #[test]
    fn a_platform_marker_is_dropped() {
        assert_eq!(
            said(&r("triton==3.6.0 ; platform_system == 'Linux'")),
            "triton==3.6.0"
        );
        assert_eq!(said(&r("numpy>=2")), "numpy>=2");
    }

    /// An extra is why the requirement applies: it is named.
    #[test]
    fn an_extra_is_named() {
        assert_eq!(
            said(&r(
                "werkzeug>=3.1 ; python_version >= '3.9' and extra == 'async'"
            )),
            "werkzeug>=3.1, through its extra async"
        );
    }

    /// Two requirements of one dependent that differ only by their markers read once, with
    /// both extras; another dependent's same requirement reads on its own.
    #[test]
    fn one_entry_per_dependent_and_requirement() {
        let cublas = r("nvidia-cublas==13.4.1.3.* ; sys_platform == 'linux' and extra == 'cublas'");
        let cusolver =
            r("nvidia-cublas==13.4.1.3.* ; sys_platform == 'linux' and extra == 'cusolver'");
        let torch = r("nvidia-cublas==13.4.1.3.* ; platform_system == 'Linux'");
        let said = said_once(&[
            ("cuda-toolkit", &cublas),
            ("torch", &torch),
            ("cuda-toolkit", &cusolver),
        ]);
        assert_eq!(
            said,
            vec![
                Some("nvidia-cublas==13.4.1.3.*, through its extras cublas, cusolver".to_string()),
                Some("nvidia-cublas==13.4.1.3.*".to_string()),
                None,
            ]
        );
    }
}
