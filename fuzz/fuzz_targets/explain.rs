//! The solver and its explanation of a failure on any dependency graph the bytes describe: a
//! chain up to ~3,000 releases deep (what overflowed the stack at 5,000 before the depth
//! bound) with small packages around it whose specifiers the bytes choose. No panic, no stack
//! overflow, an explanation for every failure, summarised when the derivation is deep.
#![no_main]
use std::str::FromStr;

use libfuzzer_sys::fuzz_target;
use pep508_rs::Requirement;
use planner::inventory::Environment;
use planner::solve::{MemIndex, SolveError, SolveRequest, solve};

/// Small packages `p0`..`p7` besides the chain.
const SMALL: u8 = 8;

fuzz_target!(|data: &[u8]| {
    let Some((&depth, rest)) = data.split_first() else {
        return;
    };
    let depth = usize::from(depth) * 12;
    let mut index = MemIndex::new();
    for i in 0..depth {
        index.add(&format!("c{i}"), "1.0", &[&format!("c{}>=1", i + 1)]);
    }
    let mut roots = vec![format!("c0")];
    let mut small: Vec<Vec<String>> = vec![Vec::new(); usize::from(SMALL) * 3];
    for chunk in rest.chunks_exact(3) {
        let (from, version) = (chunk[0] % SMALL, chunk[0] / SMALL % 3 + 1);
        let requirement = format!("p{}{}", chunk[1] % SMALL, specifier(chunk[2]));
        match chunk[1] / SMALL % 4 {
            // The chain's end, a root, or one release of a small package requires it.
            0 => roots.push(requirement),
            1 if depth > 0 => small[0].push(requirement),
            _ => small[usize::from(from) * 3 + usize::from(version) - 1].push(requirement),
        }
    }
    let end: Vec<&str> = small[0].iter().map(String::as_str).collect();
    index.add(&format!("c{depth}"), "1.0", &end);
    for p in 0..SMALL {
        for v in 1..=3u8 {
            let requires = &small[usize::from(p) * 3 + usize::from(v) - 1];
            let requires: Vec<&str> = requires.iter().map(String::as_str).collect();
            index.add(&format!("p{p}"), &format!("{v}.0"), &requires);
        }
    }
    let request = SolveRequest {
        requirements: roots.iter().map(|r| Requirement::from_str(r).unwrap()).collect(),
        ..SolveRequest::default()
    };
    let env = Environment::synthesize("3.12", Some("x86_64-manylinux_2_28")).unwrap();
    if let Err(SolveError::NoSolution(failure)) = solve(&index, &env, &request) {
        assert!(!failure.report.trim().is_empty());
        assert!(failure.report.len() < 4 << 20, "{} bytes", failure.report.len());
    }
});

/// A version specifier from one byte (`>=2.0`, `==1.0`, `<3.0`, `!=2.0`, or none).
fn specifier(byte: u8) -> String {
    let version = byte % 4;
    match byte / 4 % 5 {
        0 => format!(">={version}.0"),
        1 => format!("=={version}.0"),
        2 => format!("<{version}.0"),
        3 => format!("!={version}.0"),
        _ => String::new(),
    }
}
