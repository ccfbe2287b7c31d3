//! Benchmark: reading the 197-dist H200 fixture (testdata/fixtures) (scan + parse, no interpreter), then
//! building its dependency graph and checking it. Plain harness (`cargo bench --bench
//! inventory`); target: inventory under 50 ms wall.

#![forbid(unsafe_code)]
#![allow(clippy::print_stdout)]

use std::path::Path;
use std::time::{Duration, Instant};

fn stats(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let median = samples[samples.len() / 2];
    let min = samples[0];
    let max = samples[samples.len() - 1];
    println!(
        "{name:<28} n={:<4} min {:>8.2} ms  median {:>8.2} ms  max {:>8.2} ms",
        samples.len(),
        min.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3
    );
}

fn main() {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fixtures/h200-venv");
    if !venv.is_dir() {
        println!("skipping: {} is absent", venv.display());
        return;
    }
    let runs = 50;
    let mut load = Vec::with_capacity(runs);
    let mut graph = Vec::with_capacity(runs);
    let mut check = Vec::with_capacity(runs);
    let mut dists = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let inventory = planner::inventory::load_venv(&venv).expect("inventory");
        load.push(start.elapsed());
        dists = inventory.dists.len();
        let start = Instant::now();
        let g = planner::inventory::graph::DependencyGraph::build(&inventory);
        graph.push(start.elapsed());
        std::hint::black_box(g.edges().len());
        let start = Instant::now();
        let report = planner::inventory::check::check(&inventory);
        check.push(start.elapsed());
        std::hint::black_box(report.findings.len());
    }
    println!("h200-venv: {dists} dists");
    stats("inventory::load_venv", load);
    stats("DependencyGraph::build", graph);
    stats("check::check", check);
}
