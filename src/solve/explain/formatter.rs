//! Pass 5: the report formatter, pubgrub's [`ReportFormatter`] in Python terms.
//!
//! In: one incompatibility at a time (external facts, derived terms) and the [`Catalog`], the
//! target Python and the request it phrases them against. Out: uv-style sentences with PEP 440
//! specifiers, terms sorted so the text is deterministic.

use pep440_rs::Version;
use pubgrub::{Derived, External, Map, Ranges, ReportFormatter, Term};

use super::Ext;
use super::hints::binary_policy_note;
use super::tree::is_not_found;
use crate::solve::SolveRequest;
use crate::solve::catalog::Catalog;
use crate::solve::error::Unavailable;
use crate::solve::package::Pkg;
use crate::solve::provider::CoupledReleases;
use crate::solve::ranges::{name_with_range, render};

/// The report formatter: uv-style sentences in Python terms.
pub(super) struct PythonFormatter<'p, 'a> {
    pub(super) catalog: &'p Catalog<'a>,
    /// The target Python, release only.
    pub(super) python: &'p Version,
    /// The request: which root requirements the user wrote, the coupled-group rules.
    pub(super) request: &'p SolveRequest,
    /// Member releases whose edge on their anchor a coupled-group rule added.
    pub(super) coupled: &'p CoupledReleases,
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
    /// A root requirement in words: the user's ("you require"), the installed environment's
    /// (every installed dist stays; a blocker the request as asked keeps where it is), or one a
    /// file implies (its clause, [`SolveRequest::root_origins`]).
    fn root_dependency(&self, dep: &Pkg, range: &Ranges<Version>) -> String {
        let written = name_with_range(&dep.to_string(), range);
        if let Some((_, clause)) = self
            .request
            .root_origins
            .iter()
            .find(|(requirement, _)| requirement.to_string() == written)
        {
            return clause.clone();
        }
        let installed = dep
            .name()
            .is_some_and(|n| self.request.installed_roots.contains(n));
        match (installed, render(range)) {
            // Nothing left (`requests<none>`): the caller names what was declared on it.
            (false, _) if range.is_empty() => {
                format!("you require {}", name_with_range(&dep.to_string(), range))
            }
            (false, _) => format!(
                "you require {}{}",
                name_with_range(&dep.to_string(), range),
                self.constraint_text(dep)
            ),
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

    /// No version of `pkg` in `range` can be had: not on the index, only pre-releases, only a
    /// few releases none of which match, or none at all (with the binary policy's note).
    fn no_versions(&self, pkg: &Pkg, range: &Ranges<Version>) -> String {
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
                let list: Vec<String> = known.iter().map(|v| format!("{pkg}=={v}")).collect();
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
            External::NoVersions(pkg, range) => self.no_versions(pkg, range),
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
                // A constraint narrows every edge on its name: the range shown is the
                // metadata's and the constraint's together, so the constraint is named.
                format!(
                    "{} {verb} {dependency}{}",
                    self.versions(pkg, prange),
                    self.constraint_text(dep)
                )
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

#[cfg(test)]
mod tests {
    use pubgrub::{DefaultStringReporter, Reporter};

    use super::super::fixture::{dep, derived, dist, external, none, r, v, with_catalog};
    use super::*;
    use crate::solve::mem_index::MemIndex;

    /// The formatter over `index` (tables of `read` read) for a request of `roots`.
    fn with_formatter<R>(
        index: &MemIndex,
        read: &[&str],
        request: &SolveRequest,
        f: impl FnOnce(&PythonFormatter<'_, '_>) -> R,
    ) -> R {
        let python = v("3.12.3");
        let coupled = CoupledReleases::default();
        with_catalog(index, read, |catalog| {
            f(&PythonFormatter {
                catalog,
                python: &python,
                request,
                coupled: &coupled,
            })
        })
    }

    #[test]
    fn external_facts_read_as_python_requirements() {
        let mut index = MemIndex::new();
        index.add("a", "1.0", &["b>=2"]).add("b", "1.0", &[]);
        let request = SolveRequest::default();
        with_formatter(&index, &["a", "b"], &request, |f| {
            let says = |tree| f.format_external(external(&tree));
            assert_eq!(
                says(dep(dist("a"), "==1.0", dist("b"), ">=2")),
                "a==1.0 depends on b>=2"
            );
            assert_eq!(
                says(dep(dist("a"), "", dist("b"), ">=2")),
                "all versions of a depend on b>=2"
            );
            assert_eq!(
                says(dep(Pkg::Root, "", dist("a"), ">=2")),
                "you require a>=2"
            );
            assert_eq!(
                says(none(Pkg::Python, ">=3.13")),
                "the target Python (3.12.3) does not satisfy Python>=3.13"
            );
            assert_eq!(says(none(dist("b"), ">=2")), "only b==1.0 is available");
            assert_eq!(
                says(dep(dist("a"), "==1.0", Pkg::Python, ">=3.13")),
                "a==1.0 requires Python>=3.13"
            );
        });
    }

    #[test]
    fn an_edge_a_constraint_narrowed_names_the_constraint() {
        let mut index = MemIndex::new();
        index.add("a", "1.0", &["b>=1"]).add("b", "1.0", &[]);
        let request = SolveRequest {
            constraints: vec!["b<2".parse().unwrap()],
            ..SolveRequest::default()
        };
        with_formatter(&index, &["a", "b"], &request, |f| {
            let says = |tree| f.format_external(external(&tree));
            // The range is the metadata's and the constraint's together: without the
            // constraint named, `<2` would read as a's own metadata.
            assert_eq!(
                says(dep(dist("a"), "==1.0", dist("b"), ">=1,<2")),
                "a==1.0 depends on b>=1, <2 (constraint b<2)"
            );
            assert_eq!(
                says(dep(Pkg::Root, "", dist("b"), "<2")),
                "you require b<2 (constraint b<2)"
            );
            assert_eq!(
                says(dep(dist("a"), "==1.0", dist("c"), ">=1")),
                "a==1.0 depends on c>=1"
            );
        });
    }

    #[test]
    fn an_installed_root_stays_rather_than_being_required() {
        let mut index = MemIndex::new();
        index.add("a", "1.0", &[]);
        let request = SolveRequest {
            installed_roots: ["a".parse().unwrap()].into_iter().collect(),
            ..SolveRequest::default()
        };
        with_formatter(&index, &["a"], &request, |f| {
            assert_eq!(
                f.format_external(external(&dep(Pkg::Root, "", dist("a"), "==1.0"))),
                "a==1.0 stays as installed"
            );
        });
    }

    #[test]
    fn terms_are_phrased_by_their_shape() {
        let mut index = MemIndex::new();
        index.add("a", "1.0", &[]);
        let request = SolveRequest::default();
        with_formatter(&index, &["a"], &request, |f| {
            assert_eq!(
                f.format_terms(&Map::default()),
                "your requirements are unsatisfiable"
            );
            let mut one = Map::default();
            one.insert(dist("a"), Term::Positive(r(">=2")));
            assert_eq!(f.format_terms(&one), "a>=2 cannot be used");
            let mut required = Map::default();
            required.insert(dist("a"), Term::Negative(r("")));
            assert_eq!(f.format_terms(&required), "a is required");
        });
    }

    /// A whole report over a two-step tree: you require a, a needs b>=2, only b 1.0 exists.
    #[test]
    fn a_small_tree_reads_as_one_sentence() {
        let mut index = MemIndex::new();
        index.add("a", "1.0", &["b>=2"]).add("b", "1.0", &[]);
        let request = SolveRequest::default();
        let tree = derived(
            &[(Pkg::Root, "")],
            dep(Pkg::Root, "", dist("a"), "==1.0"),
            derived(
                &[(dist("a"), "==1.0")],
                dep(dist("a"), "==1.0", dist("b"), ">=2"),
                none(dist("b"), ">=2"),
            ),
        );
        with_formatter(&index, &["a", "b"], &request, |f| {
            let report = DefaultStringReporter::report_with_formatter(&tree, f);
            insta::assert_snapshot!(report, @r"
            Because a==1.0 depends on b>=2 and only b==1.0 is available, a==1.0 cannot be used.
            And because you require a==1.0, your requirements are unsatisfiable.
            ");
        });
    }
}
