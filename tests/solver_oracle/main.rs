//! The solver against brute force, on small generated registries.
//!
//! Each case is a registry of up to four packages with a few versions (local versions
//! included, so the `==1.0` / `1.0+local` hull is exercised) and random requirements, plus root
//! requirements. Every answer is checked:
//! - a resolution must satisfy every root requirement and every requirement of every chosen
//!   release, judged by pep440_rs' own `VersionSpecifiers::contains` (PEP 440, not pubgrub
//!   ranges), and contain nothing unreachable;
//! - "no solution" must be true: no assignment of versions (or absence) to the packages
//!   satisfies the same checks.
//!
//! Some cases also mark one release as installed (a preference): the verdict must not change.
//!
//! Failing cases are printed as pasteable `MemIndex` code; proptest keeps them in
//! `proptest-regressions/` (committed).

#![forbid(unsafe_code)]
// Tests read and write their own fixtures directly (clippy.toml bans that in src/).
#![allow(clippy::disallowed_methods)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::str::FromStr;

use pep440_rs::{Version, VersionSpecifiers};
use pep508_rs::{PackageName, Requirement, VersionOrUrl};
use planner::inventory::Environment;
use planner::solve::{InstalledCandidate, MemIndex, SolveError, SolveRequest, solve};
use proptest::prelude::*;

const NAMES: [&str; 4] = ["a", "b", "c", "d"];
const VERSIONS: [&str; 5] = ["1.0", "1.0+local", "1.5", "2.0", "3.0"];
const SPECS: [&str; 10] = [
    "",
    ">=2.0",
    "<2.0",
    "==1.0",
    "==2.0",
    "!=2.0",
    "<=1.0",
    ">1.0",
    "~=1.0",
    "==1.0+local",
];

/// A generated registry: per package, per version, its requirements as (package, spec).
#[derive(Debug, Clone)]
struct Registry {
    releases: BTreeMap<usize, BTreeMap<usize, Vec<(usize, usize)>>>,
    root: Vec<(usize, usize)>,
}

fn requirement(pkg: usize, spec: usize) -> String {
    format!("{}{}", NAMES[pkg], SPECS[spec])
}

impl Registry {
    fn index(&self) -> MemIndex {
        let mut index = MemIndex::new();
        for (&pkg, versions) in &self.releases {
            for (&ver, deps) in versions {
                let reqs: Vec<String> = deps.iter().map(|&(p, s)| requirement(p, s)).collect();
                let reqs: Vec<&str> = reqs.iter().map(String::as_str).collect();
                index.add(NAMES[pkg], VERSIONS[ver], &reqs);
            }
        }
        index
    }

    /// Pasteable fixture code.
    fn pretty(&self) -> String {
        let mut out = String::from("let mut index = MemIndex::new();\n");
        for (&pkg, versions) in &self.releases {
            for (&ver, deps) in versions {
                let reqs: Vec<String> = deps
                    .iter()
                    .map(|&(p, s)| format!("{:?}", requirement(p, s)))
                    .collect();
                let _ = writeln!(
                    out,
                    "index.add({:?}, {:?}, &[{}]);",
                    NAMES[pkg],
                    VERSIONS[ver],
                    reqs.join(", ")
                );
            }
        }
        let root: Vec<String> = self
            .root
            .iter()
            .map(|&(p, s)| format!("{:?}", requirement(p, s)))
            .collect();
        let _ = writeln!(out, "// root: [{}]", root.join(", "));
        out
    }

    fn satisfied(&self, assignment: &BTreeMap<usize, usize>, (pkg, spec): (usize, usize)) -> bool {
        let Some(&ver) = assignment.get(&pkg) else {
            return false;
        };
        let specs = VersionSpecifiers::from_str(SPECS[spec]).unwrap();
        specs.contains(&Version::from_str(VERSIONS[ver]).unwrap())
    }

    /// Whether an assignment (package -> version index) is a valid, closed solution.
    fn valid(&self, assignment: &BTreeMap<usize, usize>) -> bool {
        if !self.root.iter().all(|&r| self.satisfied(assignment, r)) {
            return false;
        }
        assignment.iter().all(|(pkg, ver)| {
            self.releases
                .get(pkg)
                .and_then(|v| v.get(ver))
                .is_some_and(|deps| deps.iter().all(|&d| self.satisfied(assignment, d)))
        })
    }

    fn any_solution(&self) -> Option<BTreeMap<usize, usize>> {
        let choices: Vec<(usize, Vec<Option<usize>>)> = NAMES
            .iter()
            .enumerate()
            .map(|(pkg, _)| {
                let mut options = vec![None];
                if let Some(versions) = self.releases.get(&pkg) {
                    options.extend(versions.keys().map(|v| Some(*v)));
                }
                (pkg, options)
            })
            .collect();
        let mut indexes = vec![0usize; choices.len()];
        loop {
            let assignment: BTreeMap<usize, usize> = choices
                .iter()
                .zip(&indexes)
                .filter_map(|((pkg, options), &i)| options[i].map(|v| (*pkg, v)))
                .collect();
            if self.valid(&assignment) {
                return Some(assignment);
            }
            // Next combination.
            let mut k = 0;
            loop {
                if k == indexes.len() {
                    return None;
                }
                indexes[k] += 1;
                if indexes[k] < choices[k].1.len() {
                    break;
                }
                indexes[k] = 0;
                k += 1;
            }
        }
    }
}

fn registry() -> impl Strategy<Value = Registry> {
    let deps = prop::collection::vec((0..NAMES.len(), 0..SPECS.len()), 0..3);
    let versions = prop::collection::btree_map(0..VERSIONS.len(), deps, 0..4);
    let releases = prop::collection::btree_map(0..NAMES.len(), versions, 1..5);
    let root = prop::collection::vec((0..NAMES.len(), 0..SPECS.len()), 1..3);
    (releases, root).prop_map(|(releases, root)| {
        // A release never requires its own package (a self-requirement is its own test).
        let releases = releases
            .into_iter()
            .map(|(pkg, versions)| {
                let versions = versions
                    .into_iter()
                    .map(|(v, deps)| (v, deps.into_iter().filter(|(p, _)| *p != pkg).collect()))
                    .collect();
                (pkg, versions)
            })
            .collect();
        Registry { releases, root }
    })
}

fn env() -> Environment {
    Environment::synthesize("3.12", Some("x86_64-manylinux_2_28")).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn every_answer_agrees_with_brute_force(
        registry in registry(),
        installed in prop::option::of((0..NAMES.len(), 0..VERSIONS.len())),
    ) {
        let index = registry.index();
        let mut request = SolveRequest {
            requirements: registry
                .root
                .iter()
                .map(|&(p, s)| Requirement::from_str(&requirement(p, s)).unwrap())
                .collect(),
            ..SolveRequest::default()
        };
        // An installed release (one the registry has): preferred, never changes the verdict.
        if let Some((pkg, ver)) = installed
            && let Some(deps) = registry.releases.get(&pkg).and_then(|v| v.get(&ver))
        {
            let mut text = format!("Metadata-Version: 2.4\nName: {}\nVersion: {}\n", NAMES[pkg], VERSIONS[ver]);
            for &(p, s) in deps {
                text.push_str(&format!("Requires-Dist: {}\n", requirement(p, s)));
            }
            let metadata = planner::metadata::CoreMetadata::parse_str(&text).unwrap();
            request.preferences.insert(
                PackageName::from_str(NAMES[pkg]).unwrap(),
                InstalledCandidate {
                    metadata: std::sync::Arc::new(metadata),
                    import_names: Vec::new(),
                },
            );
        }
        match solve(&index, &env(), &request) {
            Ok(resolution) => {
                let assignment: BTreeMap<usize, usize> = resolution
                    .packages
                    .iter()
                    .map(|(name, r)| {
                        let pkg = NAMES.iter().position(|n| *n == name.as_ref()).unwrap();
                        let ver = VERSIONS
                            .iter()
                            .position(|v| Version::from_str(v).unwrap() == r.version)
                            .unwrap();
                        (pkg, ver)
                    })
                    .collect();
                prop_assert!(
                    registry.valid(&assignment),
                    "invalid resolution {:?} for\n{}",
                    resolution.packages.iter().map(|(n, r)| format!("{n}=={}", r.version)).collect::<Vec<_>>(),
                    registry.pretty()
                );
                // Nothing unreachable: every package is required by the root or a chosen one.
                let reachable = reachable(&registry, &assignment);
                prop_assert_eq!(
                    reachable,
                    assignment.keys().copied().collect::<BTreeSet<_>>(),
                    "unreachable packages in\n{}", registry.pretty()
                );
            }
            Err(SolveError::NoSolution(failure)) => {
                prop_assert!(
                    registry.any_solution().is_none(),
                    "the solver says no solution, brute force found {:?}, for\n{}\nreport:\n{}",
                    registry.any_solution(),
                    registry.pretty(),
                    failure.report
                );
                prop_assert!(!failure.report.is_empty());
                prop_assert!(!failure.report.contains(".post0.dev0"), "raw hull in\n{}", failure.report);
            }
            Err(other) => prop_assert!(false, "unexpected error {other:?}"),
        }
    }
}

fn reachable(registry: &Registry, assignment: &BTreeMap<usize, usize>) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    let mut queue: Vec<usize> = registry.root.iter().map(|(p, _)| *p).collect();
    while let Some(pkg) = queue.pop() {
        if !seen.insert(pkg) {
            continue;
        }
        if let Some(deps) = assignment
            .get(&pkg)
            .and_then(|v| registry.releases.get(&pkg)?.get(v))
        {
            queue.extend(deps.iter().map(|(p, _)| *p));
        }
    }
    seen.retain(|p| assignment.contains_key(p));
    seen
}

#[test]
fn local_versions_and_the_hull() {
    // `==1.0` takes `1.0+local` (the newest of the two); `!=1.0` takes neither.
    let mut index = MemIndex::new();
    index
        .add("a", "1.0", &[])
        .add("a", "1.0+local", &[])
        .add("b", "1.0", &["a!=1.0"]);
    let request = |reqs: &[&str]| SolveRequest {
        requirements: reqs
            .iter()
            .map(|r| Requirement::from_str(r).unwrap())
            .collect(),
        ..SolveRequest::default()
    };
    let got = solve(&index, &env(), &request(&["a==1.0"])).unwrap();
    let a = PackageName::from_str("a").unwrap();
    assert_eq!(got.packages[&a].version.to_string(), "1.0+local");
    assert!(matches!(
        solve(&index, &env(), &request(&["a", "b"])),
        Err(SolveError::NoSolution(_))
    ));
    let _ = VersionOrUrl::<pep508_rs::VerbatimUrl>::VersionSpecifier(VersionSpecifiers::empty());
}
