//! Unit tests of the solver over a [`MemIndex`].

use std::collections::BTreeMap;
use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::mem_index::MemRelease;
use super::*;
use crate::inventory::Environment;

/// CPython `python` on x86_64 manylinux_2_28.
pub(crate) fn linux_env(python: &str) -> Environment {
    Environment::synthesize(python, Some("x86_64-manylinux_2_28")).unwrap()
}

fn req(s: &str) -> Requirement {
    Requirement::from_str(s).unwrap()
}

fn request(reqs: &[&str]) -> SolveRequest {
    SolveRequest {
        requirements: reqs.iter().map(|r| req(r)).collect(),
        ..SolveRequest::default()
    }
}

fn pins(resolution: &Resolution) -> BTreeMap<String, String> {
    resolution
        .packages
        .iter()
        .map(|(n, r)| (n.to_string(), r.version.to_string()))
        .collect()
}

fn solved(index: &MemIndex, req: &SolveRequest) -> BTreeMap<String, String> {
    pins(&solve(index, &linux_env("3.12.3"), req).unwrap())
}

fn unsolved(index: &MemIndex, req: &SolveRequest) -> NoSolution {
    match solve(index, &linux_env("3.12.3"), req) {
        Err(SolveError::NoSolution(n)) => *n,
        other => panic!("expected no solution, got {other:?}"),
    }
}

fn render_failure(failure: &NoSolution) -> String {
    let mut out = failure.report.clone();
    for hint in &failure.hints {
        out.push_str(&format!("\nhint ({:?}): {}", hint.kind, hint.message));
    }
    out
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn picks_newest_and_backtracks() {
    let mut index = MemIndex::new();
    index
        .add("a", "1.0", &["b<2"])
        .add("a", "2.0", &["b>=3"])
        .add("b", "1.5", &[])
        .add("b", "2.5", &[]);
    assert_eq!(
        solved(&index, &request(&["a"])),
        map(&[("a", "1.0"), ("b", "1.5")])
    );
}

#[test]
fn torch_triton_conflict_names_the_pin_and_the_blocker_versions() {
    let mut index = MemIndex::new();
    index
        .add(
            "torch",
            "2.11.0",
            &["triton==3.6.0; platform_system == 'Linux'"],
        )
        .add(
            "torch",
            "2.12.0",
            &["triton==3.7.0; platform_system == 'Linux'"],
        )
        .add("triton", "3.6.0", &[])
        .add("triton", "3.7.0", &[]);
    assert_eq!(
        solved(&index, &request(&["torch", "triton==3.7.0"])),
        map(&[("torch", "2.12.0"), ("triton", "3.7.0")])
    );
    let failure = unsolved(&index, &request(&["torch==2.11.0", "triton==3.7.0"]));
    insta::assert_snapshot!(render_failure(&failure));
    assert!(
        failure
            .involved
            .contains(&PackageName::from_str("triton").unwrap())
    );
    let hint = failure
        .hints
        .iter()
        .find(|h| h.kind == HintKind::BlockerVersions)
        .expect("a blocker hint");
    assert!(hint.message.contains("2.12.0"), "{}", hint.message);
    assert!(failure.facts.iter().any(|f| matches!(f,
        Fact::Requires { dependent: FactPackage::Dist { name, .. }, range, .. }
            if name.as_ref() == "torch" && ranges::render(range).as_deref() == Some("==3.6.0"))));
}

#[test]
fn overrides_replace_edges_and_are_recorded() {
    let mut index = MemIndex::new();
    index
        .add("torch", "2.11.0", &["triton==3.6.0"])
        .add("triton", "3.6.0", &[])
        .add("triton", "3.7.0", &[]);
    let mut r = request(&["torch==2.11.0", "triton==3.7.0"]);
    r.overrides.push(Override {
        requirement: req("triton==3.7.0"),
        only_from: Some([PackageName::from_str("torch").unwrap()].into()),
    });
    let resolution = solve(&index, &linux_env("3.12.3"), &r).unwrap();
    assert_eq!(
        pins(&resolution),
        map(&[("torch", "2.11.0"), ("triton", "3.7.0")])
    );
    assert_eq!(resolution.overridden.len(), 1);
    let edge = &resolution.overridden[0];
    assert_eq!(
        edge.dependent,
        Dependent::Dist {
            name: PackageName::from_str("torch").unwrap(),
            version: Version::from_str("2.11.0").unwrap()
        }
    );
    assert_eq!(edge.original.to_string(), "triton==3.6.0");
    assert_eq!(edge.replacement.to_string(), "triton==3.7.0");
    let via: Vec<String> = resolution.packages[&PackageName::from_str("triton").unwrap()]
        .via
        .iter()
        .map(|v| format!("{v:?}"))
        .collect();
    assert_eq!(via.len(), 2, "{via:?}");
}

#[test]
fn overrides_of_root_requirements_are_recorded_with_the_root_as_dependent() {
    let mut index = MemIndex::new();
    index
        .add("torch", "2.11.0", &["triton==3.6.0"])
        .add("triton", "3.6.0", &[])
        .add("triton", "3.7.0", &[]);
    let mut r = request(&["torch==2.11.0", "triton<3.7"]);
    // On every edge: torch's `triton==3.6.0` and the user's own `triton<3.7`.
    r.overrides.push(Override {
        requirement: req("triton==3.7.0"),
        only_from: None,
    });
    // Identical to the root requirement: nothing replaced.
    r.overrides.push(Override {
        requirement: req("torch==2.11.0"),
        only_from: None,
    });
    let resolution = solve(&index, &linux_env("3.12.3"), &r).unwrap();
    assert_eq!(
        pins(&resolution),
        map(&[("torch", "2.11.0"), ("triton", "3.7.0")])
    );
    let edges: Vec<(String, String, String)> = resolution
        .overridden
        .iter()
        .map(|e| {
            (
                e.dependent.to_string(),
                e.original.to_string(),
                e.replacement.to_string(),
            )
        })
        .collect();
    assert_eq!(
        edges,
        vec![
            (
                "<root>".to_string(),
                "triton<3.7".to_string(),
                "triton==3.7.0".to_string()
            ),
            (
                "torch==2.11.0".to_string(),
                "triton==3.6.0".to_string(),
                "triton==3.7.0".to_string()
            ),
        ]
    );
    assert_eq!(resolution.overridden[0].dependent, Dependent::Root);
    assert_eq!(resolution.overridden[0].dependent.dist(), None);
}

#[test]
fn constraints_narrow_but_never_add() {
    let mut index = MemIndex::new();
    index
        .add("a", "1.0", &["b"])
        .add("b", "1.0", &[])
        .add("b", "2.0", &[])
        .add("c", "1.0", &[]);
    let mut r = request(&["a"]);
    r.constraints = vec![req("b<2"), req("c==1.0")];
    assert_eq!(solved(&index, &r), map(&[("a", "1.0"), ("b", "1.0")]));
}

#[test]
fn installed_version_is_preferred_and_kept_even_off_index() {
    let mut index = MemIndex::new();
    index
        .add("torch", "2.11.0", &["triton==3.6.0"])
        .add("torch", "2.12.0", &[])
        .add("triton", "3.6.0", &[]);
    let installed = crate::metadata::CoreMetadata::parse_str(
        "Metadata-Version: 2.4\nName: torch\nVersion: 2.11.0+cu130\nRequires-Dist: triton==3.6.0\n",
    )
    .unwrap();
    let mut r = request(&["torch"]);
    r.preferences.insert(
        PackageName::from_str("torch").unwrap(),
        InstalledCandidate {
            metadata: std::sync::Arc::new(installed),
            import_names: vec!["torch".to_string()],
        },
    );
    let resolution = solve(&index, &linux_env("3.12.3"), &r).unwrap();
    assert_eq!(
        pins(&resolution),
        map(&[("torch", "2.11.0+cu130"), ("triton", "3.6.0")])
    );
    assert!(matches!(
        resolution.packages[&PackageName::from_str("torch").unwrap()].source,
        ResolvedSource::Installed
    ));
    // `==2.11.0` matches the local version.
    let mut pinned = r.clone();
    pinned.requirements = vec![req("torch==2.11.0")];
    assert_eq!(solved(&index, &pinned)["torch"], "2.11.0+cu130");
    // Being upgraded: the newest wins.
    r.upgrade.insert(PackageName::from_str("torch").unwrap());
    assert_eq!(solved(&index, &r)["torch"], "2.12.0");
}

#[test]
fn requires_python_is_named() {
    let mut index = MemIndex::new();
    index.add_release(MemRelease {
        requires_python: Some(">=3.13".to_string()),
        ..MemRelease::new("a", "2.0", &[])
    });
    let failure = unsolved(&index, &request(&["a"]));
    insta::assert_snapshot!(render_failure(&failure));
    assert_eq!(failure.hints[0].kind, HintKind::RequiresPython);
}

#[test]
fn extras_follow_their_base_version() {
    let mut index = MemIndex::new();
    index.add_release(MemRelease {
        provides_extra: vec!["x".to_string()],
        ..MemRelease::new("a", "1.0", &["b==1; extra == 'x'"])
    });
    index.add("a", "2.0", &[]).add("b", "1", &[]);
    assert_eq!(solved(&index, &request(&["a[x]"])), map(&[("a", "2.0")]));
    assert_eq!(
        solved(&index, &request(&["a[x]<2"])),
        map(&[("a", "1.0"), ("b", "1")])
    );
    let resolution = solve(&index, &linux_env("3.12.3"), &request(&["a[x]<2"])).unwrap();
    assert_eq!(
        resolution.packages[&PackageName::from_str("a").unwrap()]
            .extras
            .len(),
        1
    );
}

#[test]
fn yanked_only_for_exact_pins_and_prereleases_when_named() {
    let mut index = MemIndex::new();
    index.add_release(MemRelease {
        yanked: Some("broken".to_string()),
        ..MemRelease::new("a", "2.0", &[])
    });
    index
        .add("a", "1.0", &[])
        .add("b", "1.0", &[])
        .add("b", "2.0a1", &[]);
    assert_eq!(solved(&index, &request(&["a"])), map(&[("a", "1.0")]));
    assert_eq!(solved(&index, &request(&["a==2.0"])), map(&[("a", "2.0")]));
    assert_eq!(solved(&index, &request(&["b"])), map(&[("b", "1.0")]));
    assert_eq!(
        solved(&index, &request(&["b>=2.0a1"])),
        map(&[("b", "2.0a1")])
    );
    let failure = unsolved(&index, &request(&["b>1"]));
    insta::assert_snapshot!(render_failure(&failure));
    assert_eq!(failure.hints[0].kind, HintKind::Prerelease);
    let failure = unsolved(&index, &request(&["a>1"]));
    assert_eq!(
        failure.hints[0].kind,
        HintKind::Yanked,
        "{:?}",
        failure.hints
    );
}

#[test]
fn wheels_that_do_not_fit_make_a_version_unusable() {
    let mut index = MemIndex::new();
    index.add_release(MemRelease {
        wheel_tags: Some(vec!["cp312-cp312-macosx_11_0_arm64".to_string()]),
        ..MemRelease::new("a", "2.0", &[])
    });
    index.add("a", "1.0", &[]);
    assert_eq!(solved(&index, &request(&["a"])), map(&[("a", "1.0")]));
    let failure = unsolved(&index, &request(&["a==2.0"]));
    insta::assert_snapshot!(render_failure(&failure));
}

#[test]
fn missing_package_is_reported() {
    let index = MemIndex::new();
    let failure = unsolved(&index, &request(&["nope"]));
    insta::assert_snapshot!(render_failure(&failure));
    assert_eq!(failure.hints[0].kind, HintKind::NotFound);
}

#[test]
fn budget_stops_with_a_partial_explanation() {
    let mut index = MemIndex::new();
    for i in 0..50 {
        index.add("a", &format!("{i}.0"), &["b==0"]);
        index.add("b", &format!("{}.0", i + 1), &[]);
    }
    let mut r = request(&["a", "b"]);
    r.limits.max_steps = 10;
    match solve(&index, &linux_env("3.12.3"), &r) {
        Err(SolveError::Budget { steps, .. }) => assert!(steps > 10),
        other => panic!("expected the budget to stop it: {other:?}"),
    }
}

#[test]
fn a_package_with_no_version_left_is_decided_first() {
    // torch 2.11.0 pins triton 3.6.0 and the request asks for triton 3.7.0 too. Once 2.11.0 is
    // ruled out, `torch==2.11.0` leaves only local versions, none published: deciding torch
    // then fails at once. Deciding triton first (as before) took two more decisions and, on a
    // live index, a metadata fetch the answer never used.
    let mut index = MemIndex::new();
    index.add("torch", "2.11.0", &["triton==3.6.0"]);
    index.add("triton", "3.6.0", &[]);
    index.add("triton", "3.7.0", &[]);
    let mut r = request(&["torch==2.11.0", "triton==3.7.0"]);
    // The root, torch 2.11.0, then torch with nothing left.
    r.limits.max_steps = 3;
    let failure = unsolved(&index, &r);
    assert!(
        failure.report.contains("triton==3.6.0"),
        "{}",
        failure.report
    );
}

/// No line of a report says "a[x]==1.0 depends on a==1.0".
fn assert_no_proxy_pin(failure: &NoSolution) {
    for line in failure.report.lines() {
        assert!(
            !(line.contains("a[x]==1.0 depends on a==")
                || line.contains("a[x] depend on a")
                || line.contains("a[y] depend on a")),
            "{}",
            failure.report
        );
    }
}

#[test]
fn extra_proxy_pins_are_folded_out_of_explanations() {
    let mut index = MemIndex::new();
    index.add_release(MemRelease {
        provides_extra: vec!["x".to_string()],
        ..MemRelease::new("a", "1.0", &["b>=2; extra == 'x'"])
    });
    index.add("b", "1.0", &[]);
    let failure = unsolved(&index, &request(&["a[x]==1.0"]));
    assert_no_proxy_pin(&failure);
    insta::assert_snapshot!("extra_simple", render_failure(&failure));

    // Two extras of one package that disagree, and an extra against a root pin.
    let mut index = MemIndex::new();
    for v in ["1.0", "2.0"] {
        index.add_release(MemRelease {
            provides_extra: vec!["x".to_string(), "y".to_string()],
            ..MemRelease::new(
                "a",
                v,
                &[&format!("c=={v}; extra == 'x'"), "d<2; extra == 'y'"],
            )
        });
    }
    index
        .add("c", "1.0", &[])
        .add("c", "2.0", &[])
        .add("d", "1.0", &[])
        .add("d", "2.0", &[]);
    let failure = unsolved(&index, &request(&["a[x,y]", "c==2.0", "d>=2"]));
    assert_no_proxy_pin(&failure);
    insta::assert_snapshot!("extra_two", render_failure(&failure));
    let failure = unsolved(&index, &request(&["a[x]>=2", "c<2"]));
    assert_no_proxy_pin(&failure);
    insta::assert_snapshot!("extra_range", render_failure(&failure));

    // The conflict runs through the base package: the pin of `a[x]` to `a` carries it.
    let mut index = MemIndex::new();
    index.add_release(MemRelease {
        provides_extra: vec!["x".to_string()],
        ..MemRelease::new("a", "1.0", &["b>=2", "c; extra == 'x'"])
    });
    index.add("b", "1.0", &[]).add("c", "1.0", &[]);
    let failure = unsolved(&index, &request(&["a[x]==1.0"]));
    assert_no_proxy_pin(&failure);
    insta::assert_snapshot!("extra_through_base", render_failure(&failure));
    let failure = unsolved(&index, &request(&["a[x]", "a>1"]));
    assert_no_proxy_pin(&failure);
    insta::assert_snapshot!("extra_against_base", render_failure(&failure));
}

#[test]
fn missing_names_get_did_you_mean() {
    let mut index = MemIndex::new();
    index
        .add("requests", "2.32.0", &["urllib3"])
        .add("urllib3", "2.2.0", &[])
        .add("python-dateutil", "2.9.0", &[])
        .add("numpy", "2.0.0", &[]);
    // A typo among the index's names.
    let failure = unsolved(&index, &request(&["reqeusts", "numpy"]));
    insta::assert_snapshot!("did_you_mean_typo", render_failure(&failure));
    let hint = &failure.hints[1];
    assert_eq!(hint.kind, HintKind::DidYouMean);
    assert_eq!(
        hint.suggestions,
        vec![PackageName::from_str("requests").unwrap()]
    );
    // A PEP 503 confusable.
    let failure = unsolved(&index, &request(&["dateutil"]));
    assert_eq!(
        failure.hints[1].suggestions,
        vec![PackageName::from_str("python-dateutil").unwrap()]
    );
    // A typo in someone's metadata is not the user's to fix: no guess.
    index.add("x", "1.0", &["reqeusts"]);
    let failure = unsolved(&index, &request(&["x", "requests"]));
    assert_eq!(failure.hints.len(), 1, "{:?}", failure.hints);
    // Nothing close: no guess.
    let failure = unsolved(&index, &request(&["tensorflow"]));
    assert_eq!(failure.hints.len(), 1, "{:?}", failure.hints);
    assert_eq!(failure.hints[0].kind, HintKind::NotFound);
    // An import name of an installed distribution.
    let mut r = request(&["yaml"]);
    r.preferences.insert(
        PackageName::from_str("pyyaml").unwrap(),
        InstalledCandidate {
            metadata: std::sync::Arc::new(
                crate::metadata::CoreMetadata::parse_str(
                    "Metadata-Version: 2.4\nName: PyYAML\nVersion: 6.0.2\n",
                )
                .unwrap(),
            ),
            import_names: vec!["_yaml".to_string(), "yaml".to_string()],
        },
    );
    let failure = unsolved(&index, &r);
    assert_eq!(
        failure.hints[1].suggestions,
        vec![PackageName::from_str("pyyaml").unwrap()]
    );
    let json = serde_json::to_value(&failure.hints).unwrap();
    assert_eq!(json[1]["kind"], "did-you-mean");
    assert_eq!(json[1]["suggestions"][0], "pyyaml");
    assert!(json[0].get("suggestions").is_none());
}

#[test]
fn a_no_versions_leaf_that_restates_its_sibling_is_dropped() {
    // packse `dependency-excludes-range-of-compatible-versions`.
    let mut index = MemIndex::new();
    index
        .add("a", "1.0.0", &["b==1.0.0"])
        .add("a", "3.0.0", &["b==3.0.0"])
        .add("b", "1.0.0", &[])
        .add("b", "2.0.0", &[])
        .add("b", "3.0.0", &[])
        .add("c", "1.0.0", &["a<2.0.0"])
        .add("c", "2.0.0", &["a>=3.0.0"]);
    for v in ["2.0.0", "2.1.0", "2.2.0", "2.3.0"] {
        index.add("a", v, &["b==2.0.0"]);
    }
    let failure = unsolved(&index, &request(&["a", "b>=2.0.0,<3.0.0", "c"]));
    // Never "because there is no version of a <1.0.0 | ... and a==1.0.0 depends on b==1.0.0,
    // a==1.0.0 depends on b==1.0.0".
    for line in failure.report.lines() {
        assert!(
            !line.contains("there is no version of a"),
            "{}",
            failure.report
        );
    }
    insta::assert_snapshot!(render_failure(&failure));
}

/// A catalog over `index` for a CPython 3.12 Linux target, handed to `f` with the names of the
/// accepting-releases tests' dependent (torch) and package (triton).
fn with_torch_catalog<R>(
    index: &dyn IndexSource,
    f: impl FnOnce(&catalog::Catalog<'_>, &PackageName, &PackageName) -> R,
) -> R {
    let env = linux_env("3.12.3");
    let binary = crate::index::BinaryPolicy::default();
    let core = catalog::CatalogCore::new(index, &env, &binary, Default::default());
    let catalog = catalog::Catalog::new(&core, None);
    let (torch, triton) = (
        PackageName::from_str("torch").unwrap(),
        PackageName::from_str("triton").unwrap(),
    );
    f(&catalog, &torch, &triton)
}

/// One query, two purposes: the releases a dependent could move to (a release without the
/// requirement is listed apart, never as accepting) and the published evidence (only a declared requirement accepts); the
/// intersection of a release's applicable requirements decides, and the read limit makes the
/// answer incomplete.
#[test]
fn accepting_releases_serves_hints_and_upstream_evidence() {
    let mut index = MemIndex::new();
    index
        .add("torch", "2.10.0", &[])
        .add("torch", "2.11.0", &["triton==3.6.0"])
        .add("torch", "2.12.0", &["triton>=3.7", "triton<3.7.1"])
        .add("torch", "2.13.0", &["triton>=3.7", "triton<3.7"])
        .add("triton", "3.6.0", &[])
        .add("triton", "3.7.0", &[]);
    with_torch_catalog(&index, |catalog, torch, triton| {
        let wanted = pubgrub::Ranges::singleton(Version::from_str("3.7.0").unwrap());
        let ask = |among, read_at_most, enough| {
            catalog
                .accepting_releases(&AcceptingQuery {
                    dependent: torch,
                    extras: &[],
                    package: triton,
                    wanted: &wanted,
                    among,
                    read_at_most,
                    enough,
                })
                .unwrap()
        };
        let versions = |found: &AcceptingReleases| -> Vec<String> {
            found.versions.iter().map(ToString::to_string).collect()
        };
        let movable = ask(Among::Installable { prereleases: false }, 30, 6);
        assert_eq!(versions(&movable), ["2.12.0"]);
        assert_eq!(movable.silent, [Version::from_str("2.10.0").unwrap()]);
        assert!(movable.complete);
        let evidence = ask(Among::Published, 40, 3);
        assert_eq!(versions(&evidence), ["2.12.0"]);
        assert_eq!((evidence.read, evidence.complete), (4, true));
        let cut = ask(Among::Published, 1, 3);
        assert!(cut.versions.is_empty() && !cut.complete, "{cut:?}");
        let unknown = PackageName::from_str("nope").unwrap();
        let missing = catalog
            .accepting_releases(&AcceptingQuery {
                dependent: &unknown,
                extras: &[],
                package: triton,
                wanted: &wanted,
                among: Among::Published,
                read_at_most: 40,
                enough: 3,
            })
            .unwrap();
        assert!(missing.versions.is_empty() && !missing.complete);
    });
}

/// A [`MemIndex`] that says it waits on the network and records which release files it was
/// asked to read and which to fetch in the background.
struct Networked {
    index: MemIndex,
    read: std::sync::Mutex<Vec<String>>,
    prefetched: std::sync::Mutex<Vec<String>>,
}

impl crate::index::IndexSource for Networked {
    fn project(
        &self,
        name: &PackageName,
    ) -> Result<Option<std::sync::Arc<crate::index::Project>>, crate::index::IndexError> {
        self.index.project(name)
    }

    fn metadata(
        &self,
        project: &crate::index::Project,
        file: &crate::index::DistFile,
    ) -> Result<std::sync::Arc<crate::metadata::CoreMetadata>, crate::index::IndexError> {
        self.read
            .lock()
            .unwrap()
            .push(file.filename.version().to_string());
        self.index.metadata(project, file)
    }

    fn prefetch_metadata(&self, _: &crate::index::Project, file: &crate::index::DistFile) {
        let version = file.filename.version().to_string();
        self.prefetched.lock().unwrap().push(version);
    }
}

/// Over the network, the releases a query reads ahead are handed to the index to fetch in the
/// background; the query itself reads only the releases it gets to, and waits for no other.
#[test]
fn accepting_releases_reads_ahead_through_the_index_and_stops_at_enough() {
    let mut index = MemIndex::new();
    for minor in 0..8 {
        index.add("torch", &format!("2.{minor}.0"), &["triton==3.7.0"]);
    }
    index.add("triton", "3.7.0", &[]);
    let index = Networked {
        index,
        read: Default::default(),
        prefetched: Default::default(),
    };
    with_torch_catalog(&index, |catalog, torch, triton| {
        let found = catalog
            .accepting_releases(&AcceptingQuery {
                dependent: torch,
                extras: &[],
                package: triton,
                wanted: &pubgrub::Ranges::singleton(Version::from_str("3.7.0").unwrap()),
                among: Among::Installable { prereleases: false },
                read_at_most: 30,
                enough: 2,
            })
            .unwrap();
        let versions: Vec<String> = found.versions.iter().map(ToString::to_string).collect();
        assert_eq!(versions, ["2.7.0", "2.6.0"]);
        assert_eq!(*index.read.lock().unwrap(), ["2.7.0", "2.6.0"]);
        let mut prefetched = index.prefetched.lock().unwrap().clone();
        prefetched.sort();
        assert_eq!(
            prefetched,
            [
                "2.0.0", "2.1.0", "2.2.0", "2.3.0", "2.4.0", "2.5.0", "2.6.0"
            ]
        );
    });
}

/// Each resolved release carries its metadata and wheel kind, so later stages read no index.
#[test]
fn resolution_carries_metadata_and_wheel_kind() {
    let mut index = MemIndex::new();
    index.add("a", "1.0", &["b<2"]).add_release(MemRelease {
        wheel_tags: Some(vec!["cp312-cp312-manylinux_2_28_x86_64".to_string()]),
        ..MemRelease::new("b", "1.5", &[])
    });
    let resolution = solve(&index, &linux_env("3.12.3"), &request(&["a"])).unwrap();
    let a = &resolution.packages[&PackageName::from_str("a").unwrap()];
    assert_eq!(a.metadata.version.to_string(), "1.0");
    assert_eq!(a.metadata.requires_dist, vec![req("b<2")]);
    assert!(!a.platform_specific, "a pure-Python wheel");
    let b = &resolution.packages[&PackageName::from_str("b").unwrap()];
    assert!(b.platform_specific, "a manylinux wheel");
}

/// torch 2.15 has no torchvision 0.30 on the index: the correspondence holds torch at the newest
/// release whose torchvision and torchaudio exist, instead of pairing torch 2.15 with the
/// torch-2.14 torchvision (whose metadata does not pin torch).
#[test]
fn correspondences_keep_a_coupled_group_consistent() {
    let mut index = MemIndex::new();
    index
        .add("torch", "2.14.0", &[])
        .add("torch", "2.15.0", &[])
        .add("torchvision", "0.29.2", &[])
        .add("torchaudio", "2.14.0", &[])
        .add("torchaudio", "2.15.0", &[]);
    let follows = |member: &str, template: &str| Correspondence {
        anchor: PackageName::from_str("torch").unwrap(),
        member: PackageName::from_str(member).unwrap(),
        template: VersionTemplate::from_str(template).unwrap(),
        policy: "default".into(),
    };
    let plain = request(&["torch", "torchvision", "torchaudio"]);
    assert_eq!(solved(&index, &plain)["torch"], "2.15.0");
    let coupled = SolveRequest {
        correspondences: vec![
            follows("torchvision", "0.{minor+15}"),
            follows("torchaudio", "{major}.{minor}"),
        ],
        ..plain
    };
    assert_eq!(
        solved(&index, &coupled),
        map(&[
            ("torch", "2.14.0"),
            ("torchaudio", "2.14.0"),
            ("torchvision", "0.29.2")
        ])
    );
    // Pinning torch to 2.15 leaves no torchvision: the failure names it.
    let pinned = SolveRequest {
        requirements: vec![req("torch==2.15.0"), req("torchvision"), req("torchaudio")],
        ..coupled
    };
    let report = render_failure(&unsolved(&index, &pinned));
    assert!(report.contains("torchvision"), "{report}");
}

/// A library run (the process goes on) drops a core's tables, so the listings they held are
/// the index's alone again; only the binary, which ends with the run, leaves them.
#[test]
fn a_dropped_core_lets_go_of_its_listings() {
    let mut index = MemIndex::new();
    index.add("demo", "1.0", &[]).add("demo", "2.0", &[]);
    let env = linux_env("3.12.3");
    let binary = crate::index::BinaryPolicy::default();
    let demo = PackageName::from_str("demo").unwrap();
    let listing = index.project(&demo).unwrap().unwrap();
    assert!(!crate::process_ends_after_run());
    let core = catalog::CatalogCore::new(&index, &env, &binary, Default::default());
    let table = core.table(&demo).unwrap();
    assert_eq!(table.versions.len(), 2);
    drop(table);
    assert_eq!(Arc::strong_count(&listing), 3, "index, test, table");
    drop(core);
    assert_eq!(Arc::strong_count(&listing), 2, "index and test");
}

/// A chain 5,000 dependencies deep that ends in a release nobody has (a hostile index's) once
/// overflowed the stack while it was explained (exit 134): it is summarised by its facts, on
/// the stack of a test thread (2 MiB, less than a main thread's).
#[test]
fn a_chain_thousands_deep_is_explained_without_overflowing() {
    let mut index = MemIndex::new();
    const DEPTH: usize = 5_000;
    for i in 0..DEPTH {
        index.add(&format!("c{i}"), "1.0", &[&format!("c{}>=1", i + 1)]);
    }
    index.add(&format!("c{DEPTH}"), "1.0", &["missingpkg>=99"]);
    index.add("missingpkg", "1.0", &[]);
    let failure = unsolved(&index, &request(&["c0"]));
    assert!(
        failure.report.contains("derivations deep"),
        "{}",
        failure.report
    );
    assert!(
        failure.report.contains("no version of missingpkg>=99"),
        "{}",
        failure.report
    );
    assert!(!failure.report.contains("c1>1.0"), "{}", failure.report);
    assert!(failure.involved.contains(&"missingpkg".parse().unwrap()));
}

/// Releases that together name more projects than any real environment reaches (a hostile
/// index's) stop the resolution with a clear error instead of a request per name.
#[test]
fn requirements_reaching_too_many_projects_stop_the_resolution() {
    let mut index = MemIndex::new();
    let per_root = crate::metadata::MAX_REQUIRES_DIST;
    // The catalog's cap (`MAX_PROJECTS`), passed by one root's worth of dependencies.
    const CAP: usize = 10_000;
    let roots = CAP / per_root + 1;
    let mut names = Vec::new();
    for r in 0..roots {
        let deps: Vec<String> = (0..per_root).map(|i| format!("d{r}x{i}")).collect();
        for dep in &deps {
            index.add(dep, "1.0", &[]);
        }
        let deps: Vec<&str> = deps.iter().map(String::as_str).collect();
        index.add(&format!("root{r}"), "1.0", &deps);
        names.push(format!("root{r}"));
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    match solve(&index, &linux_env("3.12.3"), &request(&names)) {
        Err(SolveError::TooManyProjects { limit }) => assert_eq!(limit, CAP),
        other => panic!("expected the project cap: {other:?}"),
    }
}

/// A dist installed at `version` (its metadata only), as propose offers it to the solver.
fn installed(name: &str, version: &str) -> (PackageName, InstalledCandidate) {
    let text = format!("Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n");
    let metadata = crate::metadata::CoreMetadata::parse_str(&text).unwrap();
    let candidate = InstalledCandidate {
        metadata: std::sync::Arc::new(metadata),
        import_names: Vec::new(),
    };
    (PackageName::from_str(name).unwrap(), candidate)
}

/// `propose 'torch<2.9'` on torch 2.9.1 with `nvidia-nccl-cu12 2.27.5` (each installed dist a
/// bare root requirement, named before the target, its version preferred): the range asked is
/// decided first, so torch takes its newest release below 2.9 and nccl the release it pins, as
/// uv and pip answer. Decided first, the installed nccl ruled out each torch that pins another
/// one, down to the release that pins none (torch 2.0.1, on CUDA 11).
#[test]
fn a_range_the_request_asks_is_decided_before_the_installed_dists_it_keeps() {
    let mut index = MemIndex::new();
    index
        .add("torch", "2.0.1", &[])
        .add("torch", "2.7.1", &["nvidia-nccl-cu12==2.26.2"])
        .add("torch", "2.8.0", &["nvidia-nccl-cu12==2.27.3"])
        .add("torch", "2.9.1", &["nvidia-nccl-cu12==2.27.5"])
        .add("nvidia-nccl-cu12", "2.26.2", &[])
        .add("nvidia-nccl-cu12", "2.27.3", &[])
        .add("nvidia-nccl-cu12", "2.27.5", &[]);
    let mut r = request(&["nvidia-nccl-cu12", "torch", "torch<2.9"]);
    r.preferences.extend([
        installed("nvidia-nccl-cu12", "2.27.5"),
        installed("torch", "2.9.1"),
    ]);
    r.installed_roots
        .insert(PackageName::from_str("nvidia-nccl-cu12").unwrap());
    assert_eq!(
        solved(&index, &r),
        map(&[("nvidia-nccl-cu12", "2.27.3"), ("torch", "2.8.0")])
    );
}

/// Two ranges asked are decided in the order the request names them, not the order the
/// installed dists (each a bare root requirement, before the targets) are listed in, except that
/// a target whose installed release requires the other comes first: `torch<2.9 sympy<1.13.3`
/// and `sympy<1.13.3 torch<2.9` both take torch 2.6.0 with the sympy it pins (1.13.1), as uv
/// does, where sympy decided first (its newest, 1.13.2) left only a torch that pins none (2.4.1).
#[test]
fn ranges_asked_are_decided_in_the_order_they_are_named() {
    let mut index = MemIndex::new();
    index
        .add("torch", "2.4.1", &["sympy"])
        .add("torch", "2.6.0", &["sympy==1.13.1"])
        .add("torch", "2.9.1", &["sympy>=1.13.3"])
        .add("sympy", "1.13.1", &[])
        .add("sympy", "1.13.2", &[])
        .add("sympy", "1.14.0", &[])
        .add("mpmath", "1.3.0", &[]);
    let asking = |targets: &[&str]| {
        let mut all = vec!["sympy", "torch"];
        all.extend(targets);
        let mut r = request(&all);
        let text =
            "Metadata-Version: 2.4\nName: torch\nVersion: 2.9.1\nRequires-Dist: sympy>=1.13.3\n";
        let torch = crate::metadata::CoreMetadata::parse_str(text).unwrap();
        let (name, mut candidate) = installed("torch", "2.9.1");
        candidate.metadata = std::sync::Arc::new(torch);
        r.preferences
            .extend([installed("sympy", "1.14.0"), (name, candidate)]);
        // A dist the request keeps as installed: the ranges asked beside such are decided first.
        r.requirements.insert(0, req("mpmath"));
        r.preferences.extend([installed("mpmath", "1.3.0")]);
        r.installed_roots
            .insert(PackageName::from_str("mpmath").unwrap());
        solved(&index, &r)
    };
    let newest_torch = map(&[("mpmath", "1.3.0"), ("sympy", "1.13.1"), ("torch", "2.6.0")]);
    assert_eq!(asking(&["torch<2.9", "sympy<1.13.3"]), newest_torch);
    assert_eq!(asking(&["sympy<1.13.3", "torch<2.9"]), newest_torch);
}
