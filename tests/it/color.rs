//! Colour reaches the terminal as colour: every command run with `--color always` writes real
//! escape sequences where it paints and never the escaped text of one (`\u{1b}[31m`), which is
//! what a report painted first and made safe afterwards shows.

use std::path::{Path, PathBuf};

use crate::common::index_server::IndexServer;
use crate::common::{TestContext, repo_root};

fn canonical_venv() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/venvs/canonical")
}

#[test]
fn color_always_never_shows_escaped_colour_codes() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let url = server.url();
    let venv = canonical_venv().display().to_string();
    let forced = repo_root()
        .join("testdata/venvs/canonical-forced")
        .display()
        .to_string();
    let target = [
        "--index-url",
        url.as_str(),
        "--python-version",
        "3.12",
        "--python-platform",
        "x86_64-manylinux_2_28",
    ];
    let runs: Vec<Vec<&str>> = vec![
        // torch 2.11.0 pins triton 3.6.0: no solution, the explanation painted.
        [&["resolve", "torch==2.11.0", "triton==3.7.0"][..], &target].concat(),
        [&["resolve", "idna==3.19"][..], &target].concat(),
        vec!["inventory", "--venv", &venv],
        vec!["check", "--venv", &venv],
        vec!["outdated", "--venv", &venv, "--index-url", &url],
        vec![
            "propose",
            "triton==3.7.0",
            "--venv",
            &venv,
            "--index-url",
            &url,
        ],
        vec!["propose", "--all", "--venv", &venv, "--index-url", &url],
        vec!["inventory", "--venv", "/nonexistent/venv"],
        vec!["diff", &venv, &forced],
        vec!["check", "--venv", &forced],
        vec!["snapshot", "--venv", &venv],
        vec!["review", "."],
        vec!["verify", "--venv", &venv, "--plan", "missing.json"],
        vec![
            "bisect",
            "--venv",
            &venv,
            "--good",
            "missing.json",
            "--test",
            "true",
        ],
    ];
    let mut painted = 0;
    for args in runs {
        let out = ctx.run(&[&["--color", "always"][..], &args].concat());
        for (stream, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(
                !text.contains("\\u{1b}"),
                "{args:?}: escaped colour codes on {stream}:\n{text}"
            );
            painted += usize::from(text.contains('\x1b'));
        }
        if args.starts_with(&["resolve", "torch==2.11.0", "triton==3.7.0"]) {
            assert_eq!(out.code, Some(1), "{}", out.stderr);
            assert!(out.stderr.contains('\x1b'), "not painted: {}", out.stderr);
        }
    }
    assert!(painted >= 3, "only {painted} outputs were painted");
}
