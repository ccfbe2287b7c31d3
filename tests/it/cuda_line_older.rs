//! A request below the installed torch keeps the installed CUDA line, on recorded real index
//! data: `testdata/cuda-line-older/index` (recorded from the live index for CPython 3.11 by
//! `scripts/record-index`, see its README) holds the torch stack of
//! `testdata/ml-venvs/torch.freeze` (torch 2.9.1 with its `nvidia-*-cu12` 12.8 libraries),
//! torch 2.8.0 (CUDA 12, with `nvidia-nccl-cu12 2.27.3` and triton 3.4.0), torch 2.7.1 and
//! 2.7.0 (CUDA 12, `sympy>=1.13.3`), torch 2.6.0 (CUDA 12.4, `sympy==1.13.1`, triton 3.2.0, with
//! its whole closure) and torch 2.0.1 (CUDA 11, triton 2.0.0, with its whole closure).
//! `testdata/cuda-line-older/site-packages` holds the recipe venv's dist-infos (CPython 3.11).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::index_server::IndexServer;
use crate::common::{TestContext, repo_root};
use crate::outdated_line::json;

fn index_root() -> PathBuf {
    repo_root().join("testdata/cuda-line-older/index")
}

/// A CPython 3.11 venv on disk (no interpreter) holding the recipe venv's 63 dist-infos
/// (`site-packages`: their `METADATA` headers, as installed; no setuptools, as the recipe's
/// `uv venv`). With the torch stack alone the solve as asked finds torch 2.8.0 itself: the
/// solver's order of decisions, which the other installed dists change, is what takes it to
/// torch 2.0.1 live.
fn venv_311(root: &Path) -> PathBuf {
    let venv = root.join("venv");
    let site = venv.join("lib/python3.11/site-packages");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        venv.join("pyvenv.cfg"),
        "home = /usr/bin\nimplementation = CPython\nversion_info = 3.11.7\n\
         include-system-site-packages = false\n",
    )
    .unwrap();
    let recorded = repo_root().join("testdata/cuda-line-older/site-packages");
    for entry in std::fs::read_dir(recorded).unwrap() {
        let entry = entry.unwrap();
        let dir = site.join(entry.file_name());
        std::fs::create_dir_all(&dir).unwrap();
        for file in ["METADATA", "INSTALLER"] {
            std::fs::copy(entry.path().join(file), dir.join(file)).unwrap();
        }
    }
    venv
}

/// Each plan of a proposal: its title, the torch, triton and sympy it pins, and whether it
/// switches lines.
fn plans(proposal: &Value) -> Vec<(String, String, String, String, bool)> {
    (proposal["plans"].as_array().unwrap().iter())
        .map(|p| {
            let pins = p["pins"].as_object().unwrap();
            let pin = |name: &str| pins[name].as_str().unwrap().to_string();
            let switches = (p["risk"]["factors"].as_array().unwrap().iter())
                .any(|f| f["kind"] == "accelerator-line-switch");
            (
                p["title"].as_str().unwrap().to_string(),
                pin("torch"),
                pin("triton"),
                pin("sympy"),
                switches,
            )
        })
        .collect()
}

fn propose(targets: &[&str]) -> Value {
    let ctx = TestContext::new();
    let server = IndexServer::start(&index_root());
    let venv = venv_311(ctx.dir.path());
    let url = server.url();
    let mut args = vec!["propose"];
    args.extend(targets);
    args.extend(["--venv", venv.to_str().unwrap(), "--index-url", &url]);
    args.extend(["--format", "json"]);
    json(&ctx, &args)
}

/// `torch<2.9` on torch 2.9.1: the solve as asked took torch 2.0.1 on CUDA 11 (the installed
/// `nvidia-nccl-cu12 2.27.5`, preferred and decided before torch, ruled out each CUDA 12 torch
/// below 2.9.1 in turn); live (2026-12-05) that switch (risk 100) was the only plan, then
/// (session 11) the same-line plan with torch 2.8.0 ranked above it. Now the solver decides the
/// range the request asks before the dists it keeps, so the request as asked is torch 2.8.0 on
/// CUDA 12 (`uv pip install --dry-run 'torch<2.9'` takes 2.8.0 too) and no switch is planned.
#[test]
fn a_request_below_the_installed_torch_stays_on_its_line() {
    let proposal = propose(&["torch<2.9"]);
    insta::assert_debug_snapshot!(plans(&proposal));
}

/// `torch<2.9` with `sympy<1.13.3`: torch 2.8.0, 2.7.1 and 2.7.0 (the three newest on CUDA 12)
/// require `sympy>=1.13.3`; torch 2.6.0, deeper on the line, pins `sympy==1.13.1` and is the
/// newest that fits (as `uv pip install --dry-run` answers). The request as asked now finds it
/// itself (torch decided first, as named, then the sympy it pins; sympy 1.13.2 decided first
/// gave torch 2.4.1), where it took torch 2.0.1 on CUDA 11 and the same-line plan searched past
/// the three newest releases (that search: `same_line::tests`).
#[test]
fn the_line_is_searched_past_its_three_newest_releases() {
    let proposal = propose(&["torch<2.9", "sympy<1.13.3"]);
    insta::assert_debug_snapshot!(plans(&proposal));
}
