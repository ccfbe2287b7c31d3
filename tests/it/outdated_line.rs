//! `planner outdated` on a dist on an accelerator line that no release moves alone: torch
//! 2.9.1 (CUDA 12.8) pins `triton==3.5.1`, and torch 2.10.0, still on CUDA 12, pins triton
//! 3.6.0. Its "Can move to" is what `planner propose torch` recommends, with what moves beside
//! it. The data is `testdata/outdated-line/index` (recorded from the live index by
//! `scripts/record-index`, see its README); the venv is made of the recorded metadata of the
//! installed versions of `testdata/ml-venvs/torch.freeze`'s torch stack.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::index_server::{Fault, IndexServer};
use crate::common::{TestContext, repo_root};
use crate::planner_snapshot;

/// The torch stack of `testdata/ml-venvs/torch.freeze` (CUDA 12.8).
const INSTALLED: &[(&str, &str)] = &[
    ("torch", "2.9.1"),
    ("triton", "3.5.1"),
    ("filelock", "4.3.2"),
    ("fsspec", "2025.10.0"),
    ("jinja2", "3.1.6"),
    ("markupsafe", "3.0.4"),
    ("mpmath", "1.3.0"),
    ("networkx", "3.6.1"),
    ("sympy", "1.14.0"),
    ("typing-extensions", "4.16.0"),
    ("setuptools", "84.2.0"),
    ("nvidia-cublas-cu12", "12.8.4.1"),
    ("nvidia-cuda-cupti-cu12", "12.8.90"),
    ("nvidia-cuda-nvrtc-cu12", "12.8.93"),
    ("nvidia-cuda-runtime-cu12", "12.8.90"),
    ("nvidia-cudnn-cu12", "9.10.2.21"),
    ("nvidia-cufft-cu12", "11.3.3.83"),
    ("nvidia-cufile-cu12", "1.13.1.3"),
    ("nvidia-curand-cu12", "10.3.9.90"),
    ("nvidia-cusolver-cu12", "11.7.3.90"),
    ("nvidia-cusparse-cu12", "12.5.8.93"),
    ("nvidia-cusparselt-cu12", "0.7.1"),
    ("nvidia-nccl-cu12", "2.27.5"),
    ("nvidia-nvjitlink-cu12", "12.8.93"),
    ("nvidia-nvshmem-cu12", "3.3.20"),
    ("nvidia-nvtx-cu12", "12.8.90"),
];

fn index_root() -> PathBuf {
    repo_root().join("testdata/outdated-line/index")
}

/// A venv on disk (no interpreter) whose dist-infos hold the recorded metadata of `INSTALLED`.
fn torch_venv(root: &Path) -> PathBuf {
    venv_from(&index_root(), root)
}

/// A venv on disk (no interpreter) whose dist-infos hold `index`'s recorded metadata of
/// `INSTALLED` (the torch stack of `testdata/ml-venvs/torch.freeze`).
pub(crate) fn venv_from(index: &Path, root: &Path) -> PathBuf {
    let venv = root.join("venv");
    let site = venv.join("lib/python3.12/site-packages");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        venv.join("pyvenv.cfg"),
        "home = /usr/bin\nimplementation = CPython\nversion_info = 3.12.3\n\
         include-system-site-packages = false\n",
    )
    .unwrap();
    let files: Vec<String> = std::fs::read_dir(index.join("files"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for (name, version) in INSTALLED {
        let stem = format!("{}-{version}-", name.replace('-', "_"));
        let file = files
            .iter()
            .filter(|f| f.starts_with(&stem) && f.ends_with(".whl.metadata"))
            .min()
            .unwrap_or_else(|| panic!("no recorded metadata for {name} {version}"));
        let dir = site.join(format!("{}-{version}.dist-info", name.replace('-', "_")));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(index.join("files").join(file), dir.join("METADATA")).unwrap();
        std::fs::write(dir.join("INSTALLER"), "pip\n").unwrap();
    }
    venv
}

pub(crate) fn json(ctx: &TestContext, args: &[&str]) -> Value {
    let out = ctx.run(args);
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", out.stdout, out.stderr))
}

/// torch cannot move alone (every newer torch pins another triton), but `propose torch` moves
/// it to 2.10.0 with triton 3.6.0 on the same CUDA line: `outdated` says that, not "-".
#[test]
fn outdated_can_move_torch_where_propose_moves_it() {
    let ctx = TestContext::new();
    let server = IndexServer::start(&index_root());
    let venv = torch_venv(ctx.dir.path());
    let common = [
        "--venv",
        venv.to_str().unwrap(),
        "--index-url",
        &server.url(),
        "--format",
        "json",
    ];
    let mut args = vec!["propose", "torch"];
    args.extend(common);
    let proposal = json(&ctx, &args);
    let first = &proposal["plans"][0];
    assert_eq!(first["pins"]["torch"], "2.10.0", "{first:#}");
    let mut args = vec!["outdated"];
    args.extend(common);
    let report = json(&ctx, &args);
    let torch = (report["packages"].as_array().unwrap().iter())
        .find(|p| p["name"] == "torch")
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(
        torch["newest_allowed"], first["pins"]["torch"],
        "outdated's move is propose's: {torch:#}"
    );
    let triton = (torch["moves_with"].as_array())
        .and_then(|m| m.iter().find(|d| d["name"] == "triton"))
        .unwrap_or_else(|| panic!("triton moves with torch: {torch:#}"));
    assert_eq!(triton["from"], "3.5.1");
    assert_eq!(triton["to"], first["pins"]["triton"]);
    assert_eq!(triton["to"], "3.6.0");
}

/// The triton row of `outdated` in `ctx`'s venv over `server`, and the run's exit code.
fn triton_row(ctx: &TestContext, venv: &Path, server: &IndexServer, offline: bool) -> (Value, i32) {
    let url = server.url();
    let mut args = vec![
        "outdated",
        "--venv",
        venv.to_str().unwrap(),
        "--index-url",
        &url,
        "--format",
        "json",
    ];
    if offline {
        args.push("--offline");
    }
    let out = ctx.run(&args);
    let report: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", out.stdout, out.stderr));
    let triton = (report["packages"].as_array().unwrap().iter())
        .find(|p| p["name"] == "triton")
        .unwrap_or_else(|| panic!("{report:#}"))
        .clone();
    (triton, out.code.unwrap())
}

/// triton moves only with torch (2.10.0, which pins triton 3.6.0 and needs cuda-bindings).
/// When a read that move needs fails (the cuda-bindings page answers 403 online, then is not
/// in the cache `--offline`), the row claims no move and says which read failed, naming the
/// URL, and the run exits 2: never a silent "-". Once a run reads it, online and offline give
/// the same row.
#[test]
fn a_line_move_whose_read_fails_says_so_online_and_offline() {
    let mut ctx = TestContext::new();
    let server = IndexServer::start(&index_root());
    let venv = torch_venv(ctx.dir.path());
    let page = "/simple/cuda-bindings/";
    server.fault(
        page,
        Fault::Status {
            status: 403,
            times: 1000,
        },
    );
    let (online, code) = triton_row(&ctx, &venv, &server, false);
    assert_eq!(code, 2, "{online:#}");
    assert_eq!(
        online["newest_allowed"], "3.5.1",
        "no move claimed: {online:#}"
    );
    let (offline, code) = triton_row(&ctx, &venv, &server, true);
    assert_eq!(code, 2, "{offline:#}");
    assert_eq!(
        offline["newest_allowed"], "3.5.1",
        "no move claimed: {offline:#}"
    );
    ctx.filter(r"127\.0\.0\.1:\d+", "[INDEX]");
    let why = format!(
        "online: {}\noffline: {}",
        online["not_checked"], offline["not_checked"]
    );
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("triton_move_not_checked", why));
    // The text says "?" and why, not "-".
    let out = ctx.run(&[
        "outdated",
        "--venv",
        venv.to_str().unwrap(),
        "--index-url",
        &server.url(),
        "--offline",
    ]);
    planner_snapshot!(ctx, "triton_move_not_checked_text", out);
    server.clear_faults();
    let (online, code) = triton_row(&ctx, &venv, &server, false);
    assert_eq!(
        (code, &online["newest_allowed"]),
        (0, &Value::from("3.6.0")),
        "{online:#}"
    );
    let (offline, code) = triton_row(&ctx, &venv, &server, true);
    assert_eq!(
        (code, &offline),
        (0, &online),
        "the same cache, the same row"
    );
}
