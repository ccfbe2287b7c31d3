//! Requirement helpers: the one place a PEP 508 requirement is built from a name and a version,
//! and the one place its version specifiers are read.
//!
//! In: a [`Requirement`] (or a name and a version). Out: the requirement's
//! [`VersionSpecifiers`], whether it accepts or excludes a version, the version it pins; or a
//! new requirement (`name`, `name==v`, `name>=v`, `name>v`, `name<v`, `name` with given
//! specifiers). A direct-URL requirement names no version: it accepts every version and
//! excludes none; a requirement without specifiers likewise.

use pep440_rs::{Operator, Version, VersionSpecifier, VersionSpecifiers};
use pep508_rs::{PackageName, Requirement, VersionOrUrl};

/// The version specifiers of `requirement` (`None`: a bare name or a direct URL).
pub fn specifiers(requirement: &Requirement) -> Option<&VersionSpecifiers> {
    match &requirement.version_or_url {
        Some(VersionOrUrl::VersionSpecifier(specifiers)) => Some(specifiers),
        _ => None,
    }
}

/// Whether `requirement` accepts `version` (a bare name or a direct URL accepts every version).
pub fn accepts(requirement: &Requirement, version: &Version) -> bool {
    specifiers(requirement).is_none_or(|s| s.contains(version))
}

/// Whether `requirement`'s specifiers rule `version` out (a bare name or a direct URL rules
/// nothing out).
pub fn excludes(requirement: &Requirement, version: &Version) -> bool {
    !accepts(requirement, version)
}

/// Whether `requirement` names any version at all (a non-empty specifier set).
pub fn has_specifier(requirement: &Requirement) -> bool {
    specifiers(requirement).is_some_and(|s| !s.is_empty())
}

/// The version of the first `==` or `===` clause of `requirement` (`==X.*` included: its
/// version is `X`); `None` when it has none.
pub fn exact_version(requirement: &Requirement) -> Option<&Version> {
    specifiers(requirement)?
        .iter()
        .find(|s| matches!(s.operator(), Operator::Equal | Operator::ExactEqual))
        .map(VersionSpecifier::version)
}

/// Whether `clause` is an upper bound (`<X`, `<=X`).
pub fn is_upper_bound(clause: &VersionSpecifier) -> bool {
    matches!(
        clause.operator(),
        Operator::LessThan | Operator::LessThanEqual
    )
}

/// Whether `requirement` has an `==X` (not a wildcard) or `===X` clause.
pub fn is_exact(requirement: &Requirement) -> bool {
    exact_version(requirement).is_some()
}

/// `name`, no version named.
pub fn bare(name: &PackageName) -> Requirement {
    Requirement {
        name: name.clone(),
        extras: vec![],
        version_or_url: None,
        marker: Default::default(),
        origin: None,
    }
}

/// `name` with `specs` as one requirement.
pub fn bounded(name: &PackageName, specs: Vec<VersionSpecifier>) -> Requirement {
    Requirement {
        version_or_url: Some(VersionOrUrl::VersionSpecifier(specs.into_iter().collect())),
        ..bare(name)
    }
}

/// `name==version`.
pub fn pin(name: &PackageName, version: &Version) -> Requirement {
    one(name, Operator::Equal, version.clone())
}

/// `name>=version` (the local label dropped: PEP 440 allows it only with `==`).
pub fn at_least(name: &PackageName, version: &Version) -> Requirement {
    one(
        name,
        Operator::GreaterThanEqual,
        version.clone().without_local(),
    )
}

/// `name>version` (its public version): a target that must move forward.
pub fn above(name: &PackageName, version: &Version) -> Requirement {
    one(name, Operator::GreaterThan, version.clone().without_local())
}

/// `name<version` (its public version).
pub fn below(name: &PackageName, version: &Version) -> Requirement {
    one(name, Operator::LessThan, version.clone().without_local())
}

/// `name` with one clause. Every operator used here accepts a version without a local label,
/// and `==` accepts any.
fn one(name: &PackageName, operator: Operator, version: Version) -> Requirement {
    let clause = VersionSpecifier::from_version(operator, version)
        .expect("==, >=, > and < accept a version without a local label");
    bounded(name, vec![clause])
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    fn req(text: &str) -> Requirement {
        Requirement::from_str(text).unwrap()
    }

    fn v(text: &str) -> Version {
        Version::from_str(text).unwrap()
    }

    #[test]
    fn built_requirements_print_as_pep_508() {
        let name = PackageName::from_str("torch").unwrap();
        let local = v("2.11.0+cu128");
        assert_eq!(bare(&name).to_string(), "torch");
        assert_eq!(pin(&name, &local).to_string(), "torch==2.11.0+cu128");
        assert_eq!(at_least(&name, &local).to_string(), "torch>=2.11.0");
        assert_eq!(above(&name, &local).to_string(), "torch>2.11.0");
        assert_eq!(below(&name, &local).to_string(), "torch<2.11.0");
        assert_eq!(
            bounded(&name, specifiers(&req("x>=1,<2")).unwrap().to_vec()).to_string(),
            "torch>=1,<2"
        );
    }

    #[test]
    fn a_bare_name_or_a_url_accepts_every_version() {
        for text in ["a", "a @ https://example.invalid/a-1.0-py3-none-any.whl"] {
            let requirement = req(text);
            assert!(accepts(&requirement, &v("1.0")), "{text}");
            assert!(!excludes(&requirement, &v("1.0")), "{text}");
            assert!(!has_specifier(&requirement), "{text}");
            assert_eq!(exact_version(&requirement), None, "{text}");
        }
    }

    #[test]
    fn specifiers_decide_acceptance() {
        let requirement = req("a>=1.0,<2");
        assert!(accepts(&requirement, &v("1.5")));
        assert!(excludes(&requirement, &v("2.0")));
        assert!(has_specifier(&requirement));
        assert!(!is_exact(&requirement));
    }

    #[test]
    fn exact_pins_name_their_version() {
        assert_eq!(exact_version(&req("a==1.2")), Some(&v("1.2")));
        assert_eq!(exact_version(&req("a===1.2")), Some(&v("1.2")));
        assert_eq!(exact_version(&req("a>=1,==1.3")), Some(&v("1.3")));
        assert!(!is_exact(&req("a==1.*")));
        assert!(!is_exact(&req("a~=1.2")));
    }
}
