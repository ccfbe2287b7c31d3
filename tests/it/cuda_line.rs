//! The installed CUDA line first, on recorded real index data: `testdata/cuda-line/index`
//! (recorded from the live index by `scripts/record-index`, see its README) holds the torch
//! stack of `testdata/ml-venvs/torch.freeze` (torch 2.9.1 with its `nvidia-*-cu12` 12.8
//! libraries, triton 3.5.1), torch 2.10.0 (the newest torch on CUDA 12, pinning triton 3.6.0),
//! torch 2.11.0 and 2.15.0 on CUDA 13 with their whole closures (2.11.0 pins triton 3.6.0 too),
//! and triton 3.7.1, 3.8.0 and 3.9.0, each pinned by a CUDA 13 torch. The venv holds the recorded metadata of the installed versions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::index_server::IndexServer;
use crate::common::{TestContext, repo_root};
use crate::outdated_line::{json, venv_from};

fn index_root() -> PathBuf {
    repo_root().join("testdata/cuda-line/index")
}

fn switches(plan: &Value) -> bool {
    (plan["risk"]["factors"].as_array().unwrap().iter())
        .any(|f| f["kind"] == "accelerator-line-switch")
}

/// Each `-cu12` dist a plan changes, `name from -> to`.
fn cu12_changes(plan: &Value) -> Vec<String> {
    (plan["changes"].as_array().unwrap().iter())
        .filter(|c| c["name"].as_str().unwrap().ends_with("-cu12"))
        .map(|c| format!("{} {} -> {}", c["name"], c["from"], c["to"]))
        .collect()
}

/// Each plan of a proposal: its title, its triton and torch and whether it switches lines.
fn triton_plans(proposal: &Value) -> Vec<(String, String, String, bool)> {
    (proposal["plans"].as_array().unwrap().iter())
        .map(|p| {
            let pins = p["pins"].as_object().unwrap();
            (
                p["title"].as_str().unwrap().to_string(),
                pins["triton"].as_str().unwrap().to_string(),
                pins["torch"].as_str().unwrap().to_string(),
                switches(p),
            )
        })
        .collect()
}

/// A run of `planner ARGS` on the venv against the loopback index, as JSON.
fn run(ctx: &TestContext, server: &IndexServer, venv: &str, args: &[&str]) -> Value {
    let url = server.url();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--venv", venv, "--index-url", &url, "--format", "json"]);
    json(ctx, &all)
}

/// Bare triton: torch 2.9.1 pins `triton==3.5.1` and every newer triton but 3.6.0 comes with a
/// CUDA 13 torch. Live (2026-12-05) the only plan that moved triton was torch 2.15.0 on CUDA
/// 13 (risk 100); the recommendation is now triton 3.6.0 with torch 2.10.0, staying on CUDA 12,
/// with the switch beside it, and `outdated` says the same move.
#[test]
fn a_bare_triton_moves_with_torch_on_the_installed_line() {
    let ctx = TestContext::new();
    let server = IndexServer::start(&index_root());
    let venv = venv_from(&index_root(), ctx.dir.path());
    let venv = venv.to_str().unwrap();
    let proposal = run(&ctx, &server, venv, &["propose", "triton"]);
    let plans = proposal["plans"].as_array().unwrap();
    let first = &plans[0];
    let summary = |p: &Value| {
        let pins = p["pins"].as_object().unwrap();
        (
            pins["triton"].as_str().unwrap().to_string(),
            pins["torch"].as_str().unwrap().to_string(),
            switches(p),
        )
    };
    assert_eq!(
        summary(first),
        ("3.6.0".into(), "2.10.0".into(), false),
        "{first:#}"
    );
    assert_eq!(
        first["title"],
        "Stay on CUDA 12: triton 3.5.1 -> 3.6.0 (the newest release on CUDA 12), moving torch \
         2.9.1 -> 2.10.0"
    );
    let switch: Vec<_> = plans.iter().filter(|p| switches(p)).map(summary).collect();
    assert_eq!(
        switch,
        [("3.9.0".to_string(), "2.15.0".to_string(), true)],
        "the switch stays offered, after: {proposal:#}"
    );
    let report = run(&ctx, &server, venv, &["outdated"]);
    let rows: BTreeMap<&str, &Value> = (report["packages"].as_array().unwrap().iter())
        .map(|p| (p["name"].as_str().unwrap(), &p["newest_allowed"]))
        .collect();
    assert_eq!(rows["triton"], "3.6.0", "{report:#}");
    assert_eq!(rows["torch"], "2.10.0", "{report:#}");
}

/// `--all`: the torch stack layer that switches to CUDA 13 leaves every `-cu12` library it
/// orphans where it is. Live (2026-12-05) it upgraded all 15 of them (and added
/// `nvidia-cuda-cccl-cu12`), work that nothing uses after the switch.
#[test]
fn the_switch_layer_leaves_the_libraries_of_the_line_it_leaves() {
    let ctx = TestContext::new();
    let server = IndexServer::start(&index_root());
    let venv = venv_from(&index_root(), ctx.dir.path());
    let proposal = run(
        &ctx,
        &server,
        venv.to_str().unwrap(),
        &["propose", "--all", "--layer", "group"],
    );
    let layers: Vec<(&str, bool, Vec<String>)> = (proposal["plans"].as_array().unwrap().iter())
        .map(|p| {
            let name = p["layer"]["name"].as_str().unwrap();
            (name, switches(p), cu12_changes(p))
        })
        .collect();
    let switch = layers.iter().find(|l| l.0 == "torch-stack-switch");
    assert_eq!(
        switch,
        Some(&("torch-stack-switch", true, vec![])),
        "{proposal:#}"
    );
    let stay = layers.iter().find(|l| l.0 == "torch-stack");
    assert_eq!(
        stay,
        Some(&(
            "torch-stack",
            false,
            vec!["\"nvidia-nvshmem-cu12\" \"3.3.20\" -> \"3.4.5\"".to_string()]
        )),
        "{proposal:#}"
    );
}

/// The safe layer's held-back `-cu12` libraries on the same venv: torch 2.9.1 pins each exactly,
/// no torch release on CUDA 12 accepts a newer one, and torch 2.15.0 (CUDA 13) requires none of
/// them, so moving torch there leaves them unrequired, never moved (the switch layer keeps them
/// as installed). The line says no torch release accepts the newest and names no layer (it said
/// "moving it needs torch 2.9.1 -> 2.15.0; see the torch-stack plan", a plan that does not move
/// it). Live (2026-12-05): `resolve 'torch>=2.9.1,<2.11' 'nvidia-cublas-cu12==12.9.3.13'` has
/// no solution; torch 2.11 and newer do not require `nvidia-cublas-cu12`.
#[test]
fn a_library_of_the_line_is_held_by_no_release_on_it() {
    let ctx = TestContext::new();
    let server = IndexServer::start(&index_root());
    let venv = venv_from(&index_root(), ctx.dir.path());
    let proposal = run(&ctx, &server, venv.to_str().unwrap(), &["propose", "--all"]);
    let safe = (proposal["plans"].as_array().unwrap().iter())
        .find(|p| p["layer"]["name"] == "safe")
        .unwrap();
    let held: Vec<String> = (safe["held_back"].as_array().unwrap().iter())
        .filter(|h| h["name"].as_str().unwrap().ends_with("-cu12"))
        .map(|h| format!("{} needs {} see {}", h["name"], h["needs"], h["see"]))
        .collect();
    insta::assert_snapshot!(held.join("\n"));
}

/// `propose torch`'s CUDA 13 alternative names every `-cu12` library it leaves unrequired,
/// those only other orphans require included: torch 2.9.1 pins 15, and nvidia-cublas-cu12,
/// nvidia-cusparse-cu12 and nvidia-nvjitlink-cu12 are still required after the switch only by
/// nvidia-cusolver-cu12 and nvidia-cufft-cu12, themselves orphaned. Live (2026-12-05) the title
/// said "leaves 12 of CUDA 12 unrequired" and the `pip uninstall` it advised left those three.
/// It also counts every CUDA 13 library it installs: the 4 `-cu13` ones, those versioned with the
/// toolkit (cuda-toolkit 13.2.2, cuda-bindings 13.5.0, nvidia-cublas 13.4.1.3, nvidia-cuda-cccl,
/// -cupti, -nvrtc, -runtime, nvidia-nvjitlink, nvidia-nvtx) and the 4 the toolkit pins (nvidia-cufft
/// 12.2.0.57, -cufile, -cusolver, -cusparse): 17. Live (2026-12-05) it said "installs 4 of CUDA 13".
#[test]
fn the_switch_names_every_library_it_leaves_unrequired() {
    let ctx = TestContext::new();
    let server = IndexServer::start(&index_root());
    let venv = venv_from(&index_root(), ctx.dir.path());
    let proposal = run(&ctx, &server, venv.to_str().unwrap(), &["propose", "torch"]);
    let switch = (proposal["plans"].as_array().unwrap().iter())
        .find(|p| switches(p))
        .unwrap_or_else(|| panic!("no switch plan: {proposal:#}"));
    assert_eq!(
        switch["title"],
        "As asked: torch; switches CUDA 12 -> CUDA 13 (installs 17 of CUDA 13, leaves 15 of CUDA 12 \
         unrequired)"
    );
    let warning = (switch["warnings"].as_array().unwrap().iter())
        .filter_map(Value::as_str)
        .find(|w| w.starts_with("this plan leaves CUDA 12"))
        .unwrap_or_else(|| panic!("no switch warning: {switch:#}"));
    insta::assert_snapshot!(warning);
}

/// A versioned triton (`triton==3.6.0`, the version `outdated` names) in the recipe's `uv venv`,
/// which has no setuptools: torch 2.10.0 and torch 2.11.0 (CUDA 13, `setuptools<82`) both pin
/// `triton==3.6.0`, and moving the blocker takes the newest, 2.11.0. Live (2026-12-05) that
/// switch to CUDA 13 (risk 100) was the only plan: the same-line plan ran for bare targets only.
/// Now triton 3.6.0 with torch 2.10.0, staying on CUDA 12, ranks first, the switch beside it,
/// and both keep triton at 3.6.0 exactly as asked.
#[test]
fn a_versioned_triton_moves_with_torch_on_the_installed_line() {
    let ctx = TestContext::new();
    let server = IndexServer::start(&index_root());
    let venv = venv_from(&index_root(), ctx.dir.path());
    let setuptools = venv.join("lib/python3.12/site-packages/setuptools-84.2.0.dist-info");
    std::fs::remove_dir_all(setuptools).unwrap();
    let venv = venv.to_str().unwrap();
    let proposal = run(&ctx, &server, venv, &["propose", "triton==3.6.0"]);
    insta::assert_debug_snapshot!(triton_plans(&proposal));
}

/// A versioned triton (`triton>=3.6`): the solve as asked takes triton 3.9.0 with torch 2.15.0
/// on CUDA 13, the only plan before the same-line plan ran for versioned targets too. Now
/// triton 3.6.0 (which meets `>=3.6`) with torch 2.10.0, staying on CUDA 12, ranks first.
#[test]
fn a_triton_at_least_moves_with_torch_on_the_installed_line() {
    let ctx = TestContext::new();
    let server = IndexServer::start(&index_root());
    let venv = venv_from(&index_root(), ctx.dir.path());
    let venv = venv.to_str().unwrap();
    let proposal = run(&ctx, &server, venv, &["propose", "triton>=3.6"]);
    insta::assert_debug_snapshot!(triton_plans(&proposal));
}

/// The recipe's venv made a CPU build: torch `2.9.1+cpu` (its recorded metadata without the
/// `nvidia-*-cu12` and triton requirements, as the CPU wheels declare them, and the libraries
/// gone). The index serves only CUDA builds of torch, so `propose torch` replaces the CPU build
/// with torch 2.15.0 and CUDA 13's libraries: before, a plain upgrade with no word of a line;
/// now the plan is titled and warned as the switch it is, with what it installs.
#[test]
fn a_cpu_build_replaced_by_a_cuda_build_is_a_line_switch() {
    let ctx = TestContext::new();
    let server = IndexServer::start(&index_root());
    let venv = build_venv(&index_root(), ctx.dir.path(), "cpu");
    let venv = venv.to_str().unwrap();
    let proposal = run(&ctx, &server, venv, &["propose", "torch"]);
    let plan = &proposal["plans"][0];
    let line_warnings: Vec<&str> = (plan["warnings"].as_array().unwrap().iter())
        .filter_map(Value::as_str)
        .filter(|w| w.contains("leaves"))
        .collect();
    insta::assert_debug_snapshot!((
        plan["title"].as_str().unwrap(),
        plan["pins"]["torch"].as_str().unwrap(),
        switches(plan),
        line_warnings,
    ));
}

/// An index that serves CPU or ROCm builds of torch beside the CUDA ones (a mirror merging the
/// default index with the CPU one, as pip's `--extra-index-url` reads them): `propose torch` on
/// the CPU build recommends the newest CPU build (torch 2.11.0+cpu), the switch to CUDA 13's
/// torch 2.15.0 beside it. Before, the same-line search knew CUDA lines only: the one plan was
/// the switch (and on a CUDA 12 venv a `+cpu` build, requiring no `-cu12` library, passed as
/// staying on CUDA 12). A ROCm 6.4 build stays on ROCm 6.4 (2.11.0+rocm6.4), never taking the
/// newer ROCm 7.0 build, another line. On the CUDA 12 venv, `torch==2.10.0` (which
/// `2.10.0+cpu` meets too, and pip installs it from such an index) was planned as the CPU build
/// with no word of a line; now that plan is the switch it is, and the CUDA 12 build of 2.10.0
/// is recommended before it. `outdated` agrees: the CPU build can move to 2.10.0+cpu alone
/// (2.11.0+cpu needs setuptools<82), the CUDA 12 build to 2.10.0 (it said 2.10.0+rocm6.4, and
/// 2.15.0 for the CPU build). The `+cpu`/`+rocm` releases are stand-ins (that index is
/// not reachable from here): the recorded metadata of the same torch release without its
/// `nvidia-*` and triton requirements.
#[test]
fn a_cpu_or_rocm_build_stays_on_its_build_before_a_switch() {
    let ctx = TestContext::new();
    let index = ctx.dir.path().join("index");
    crate::common::copy_dir(&index_root(), &index);
    for (version, label) in [
        ("2.10.0", "cpu"),
        ("2.11.0", "cpu"),
        ("2.10.0", "rocm6.4"),
        ("2.11.0", "rocm6.4"),
        ("2.12.0", "rocm7.0"),
    ] {
        serve_build(&index, version, label);
    }
    let server = IndexServer::start(&index);
    let mut answers = Vec::new();
    // `outdated`'s "Can move to" for torch: never another build.
    let mut moves = Vec::new();
    for (label, target) in [
        ("cpu", "torch"),
        ("rocm6.4", "torch"),
        ("cu12", "torch"),
        ("cu12", "torch==2.10.0"),
    ] {
        let root = ctx.dir.path().join(format!("{label}-{target}"));
        let venv = match label {
            "cu12" => venv_from(&index, &root),
            _ => build_venv(&index, &root, label),
        };
        let venv = venv.to_str().unwrap();
        let outdated = run(&ctx, &server, venv, &["outdated"]);
        let torch = (outdated["packages"].as_array().unwrap().iter())
            .find(|p| p["name"] == "torch")
            .unwrap();
        moves.push((label, torch["newest_allowed"].clone()));
        let proposal = run(&ctx, &server, venv, &["propose", target]);
        for plan in proposal["plans"].as_array().unwrap() {
            answers.push((
                target,
                label,
                plan["title"].as_str().unwrap().to_string(),
                plan["pins"]["torch"].as_str().unwrap().to_string(),
                switches(plan),
                plan["held_back"][0]["unavailable"].clone(),
            ));
        }
    }
    insta::assert_debug_snapshot!((answers, moves));
}

/// A venv from `index`'s recorded metadata (as [`venv_from`]) whose torch 2.9.1 is the `label`
/// build (`cpu`, `rocm6.4`): no CUDA libraries, no triton, torch's metadata without them.
fn build_venv(index: &Path, root: &Path, label: &str) -> PathBuf {
    let venv = venv_from(index, root);
    let site = venv.join("lib/python3.12/site-packages");
    for entry in std::fs::read_dir(&site).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("nvidia_") || name.starts_with("triton") {
            std::fs::remove_dir_all(&path).unwrap();
        }
    }
    let metadata = std::fs::read_to_string(site.join("torch-2.9.1.dist-info/METADATA")).unwrap();
    let dir = site.join(format!("torch-2.9.1+{label}.dist-info"));
    std::fs::rename(site.join("torch-2.9.1.dist-info"), &dir).unwrap();
    std::fs::write(dir.join("METADATA"), as_build(&metadata, label)).unwrap();
    venv
}

/// torch `version`'s recorded metadata as the `label` build's: its version labelled, its
/// `nvidia-*`, `cuda-*` and triton requirements gone (as the CPU wheels declare them).
fn as_build(metadata: &str, label: &str) -> String {
    let kept: Vec<String> = (metadata.lines())
        .filter(|l| {
            !["nvidia-", "triton", "cuda-"]
                .iter()
                .any(|p| l.starts_with(&format!("Requires-Dist: {p}")))
        })
        .map(|l| match l.strip_prefix("Version: ") {
            Some(version) => format!("Version: {version}+{label}"),
            None => l.to_string(),
        })
        .collect();
    kept.join("\n") + "\n"
}

/// `index` serving torch `version+label` beside its CUDA build: a link on torch's HTML page (its
/// JSON page removed) and the metadata [`as_build`] makes of the recorded one.
fn serve_build(index: &Path, version: &str, label: &str) {
    let tail = "cp312-cp312-manylinux_2_28_x86_64.whl";
    let files = index.join("files");
    let recorded = std::fs::read_to_string(files.join(format!("torch-{version}-{tail}.metadata")));
    let file = format!("torch-{version}+{label}-{tail}");
    std::fs::write(
        files.join(format!("{file}.metadata")),
        as_build(&recorded.unwrap(), label),
    )
    .unwrap();
    // The links go on the HTML page; the JSON one, which a client asks for first, goes.
    let _ = std::fs::remove_file(index.join("simple/torch/index.json"));
    let page = index.join("simple/torch/index.html");
    let href = file.replace('+', "%2B");
    let link = format!(
        r#"<a href="../../files/{href}" data-requires-python="&gt;=3.10" data-core-metadata="true">{file}</a><br />"#
    );
    let text = std::fs::read_to_string(&page).unwrap();
    let text = text.replacen("  </body>", &format!("    {link}\n  </body>"), 1);
    std::fs::write(&page, text).unwrap();
}
