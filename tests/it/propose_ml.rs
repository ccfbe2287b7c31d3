//! `planner propose` on the ML stack: the shared h200 fixture (torch 2.11.0 on CUDA
//! 13, triton 3.6.0, torchvision 0.26.0, torchaudio 2.11.0) against the index data recorded in
//! `testdata/index/` on 2026-12-01, which holds the traps the live index had: older torch
//! releases that declare no triton requirement on CPython 3.12 (2.3.1) or pin CUDA 12 libraries
//! (2.3.1, 2.6.0, 2.9.1) with their whole closures, and torchaudio 2.11.1, a `py3-none` build
//! that declares `torch>=2.11` (no torchaudio 2.12 exists). Each case here was a wrong answer
//! on the live index before; the live corpus (`tests/live`, feature `live-index`) asks the same.

use serde_json::Value;

use crate::common::index_server::IndexServer;
use crate::common::{TestContext, h200_fixtures};

fn propose(ctx: &TestContext, server: &IndexServer, args: &[&str]) -> (Option<i32>, Value) {
    let venv = h200_fixtures().join("h200-venv");
    let url = server.url();
    let mut all = vec!["propose"];
    all.extend_from_slice(args);
    all.extend([
        "--venv",
        venv.to_str().unwrap(),
        "--index-url",
        &url,
        "--format",
        "json",
    ]);
    let out = ctx.run(&all);
    let proposal = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", out.stdout, out.stderr));
    (out.code, proposal)
}

fn plans(proposal: &Value) -> &Vec<Value> {
    proposal["plans"].as_array().unwrap()
}

fn pin<'p>(plan: &'p Value, name: &str) -> &'p str {
    plan["pins"][name].as_str().unwrap_or("")
}

fn factor_kinds(plan: &Value) -> Vec<&str> {
    plan["risk"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect()
}

fn changes_version(plan: &Value, name: &str) -> bool {
    plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["name"] == name && c["from"] != c["to"])
}

/// The torch minor of a version (`2.11.0+cu130` -> 11).
fn minor(version: &str) -> u64 {
    version.split('.').nth(1).unwrap().parse().unwrap()
}

/// No plan ranked first goes back on torch or leaves CUDA 13.
fn assert_recommendation_stays_on_the_line(proposal: &Value) {
    let first = &plans(proposal)[0];
    let torch = pin(first, "torch");
    assert!(torch.is_empty() || minor(torch) >= 11, "{first:#}");
    assert!(
        !factor_kinds(first).contains(&"accelerator-line-switch"),
        "{first:#}"
    );
}

/// The canonical case: move torch forward to 2.12.0 with its stack, never back to 2.3.1 (which
/// "accepts" triton 3.7.0 only by declaring no triton on CPython 3.12) or onto CUDA 12; the hint
/// lists only a release that declares it accepts; the explanation never says the user required
/// the torch they did not name.
#[test]
fn canonical_triton_moves_torch_forward() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let (code, proposal) = propose(&ctx, &server, &["triton==3.7.0", "--allow-override"]);
    assert_eq!(code, Some(0), "{proposal:#}");
    let first = &plans(&proposal)[0];
    assert_eq!(first["kind"], "move-blockers", "{first:#}");
    assert_eq!(pin(first, "torch"), "2.12.0");
    assert_eq!(pin(first, "torchvision"), "0.27.0");
    assert_eq!(pin(first, "torchaudio"), "2.11.1");
    assert_eq!(pin(first, "triton"), "3.7.0");
    insta::assert_snapshot!("canonical_triton_factors", factor_kinds(first).join("\n"));
    assert_recommendation_stays_on_the_line(&proposal);
    // The hint names torch 2.12.0 (never the 2.3.1 that declares no triton); torch is not
    // something the user required, it stays as installed.
    insta::assert_snapshot!(conflict_text(&proposal), @r#"
        Because torch==2.11.0 depends on triton==3.6.0 and you require triton==3.7.0, torch==2.11.0 cannot be used.
        And because torch==2.11.0 stays as installed, your requirements are unsatisfiable.
        hint: torch releases that accept triton==3.7.0: 2.12.0
        "#);
}

/// The proposal's conflict as a reader sees it: the explanation, then each hint on a line.
fn conflict_text(proposal: &Value) -> String {
    let conflict = &proposal["conflict"];
    let mut text = conflict["explanation"].as_str().unwrap_or("").to_string();
    for hint in conflict["hints"].as_array().into_iter().flatten() {
        text.push_str("\nhint: ");
        text.push_str(hint.as_str().unwrap());
    }
    text
}

/// torch 2.12.0 gets a plan: torchaudio 2.11.1 declares `torch>=2.11` and speaks for itself; the
/// policy's templates are never shown as torch's dependencies.
#[test]
fn torch_2_12_gets_a_plan_and_a_true_explanation() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let (code, proposal) = propose(&ctx, &server, &["torch==2.12.0"]);
    assert_eq!(code, Some(0), "{proposal:#}");
    let first = &plans(&proposal)[0];
    assert_eq!(pin(first, "torch"), "2.12.0", "{first:#}");
    assert_eq!(pin(first, "torchvision"), "0.27.0");
    assert_eq!(pin(first, "torchaudio"), "2.11.1");
    let detail = first["risk"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "coupled-member-declared")
        .unwrap_or_else(|| panic!("{first:#}"))["detail"]
        .as_str()
        .unwrap()
        .to_string();
    insta::assert_snapshot!(detail, @"torchaudio 2.11.1 declares `torch>=2.11` and is not built against one CPython, so its own metadata decides its pairing with torch 2.12.0; the coupled-group rule would want torchaudio==2.12.*, and torchaudio has no such release");
    // Neither the policy's templates nor a requirement the user never wrote.
    insta::assert_snapshot!(conflict_text(&proposal), @r#"
        Because torchvision==0.26.0 depends on torch==2.11.0 and you require torch==2.12.0, torchvision==0.26.0 cannot be used.
        And because torchvision==0.26.0 stays as installed, your requirements are unsatisfiable.
        hint: torchvision releases that accept torch==2.12.0: 0.27.0
        "#);
}

/// Two targets that block each other move together.
#[test]
fn explicit_targets_move_together() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let (code, proposal) = propose(&ctx, &server, &["triton==3.7.0", "torch==2.12.0"]);
    assert_eq!(code, Some(0), "{proposal:#}");
    let first = &plans(&proposal)[0];
    assert_eq!(pin(first, "torch"), "2.12.0", "{first:#}");
    assert_eq!(pin(first, "triton"), "3.7.0");
    let explanation = proposal["conflict"]["explanation"].to_string();
    assert!(
        !explanation.contains("you require torch==2.11.0"),
        "{explanation}"
    );
}

/// A bare name outside the torch stack never moves it: setuptools stays at the newest that fits
/// (torch 2.11.0 declares setuptools<82); the forward torch move is offered, not recommended.
#[test]
fn a_bare_name_leaves_the_torch_stack_alone() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let (code, proposal) = propose(&ctx, &server, &["setuptools"]);
    assert_eq!(code, Some(0), "{proposal:#}");
    let first = &plans(&proposal)[0];
    assert_eq!(first["kind"], "upgrade", "{first:#}");
    assert!(!changes_version(first, "torch"), "{first:#}");
    assert_recommendation_stays_on_the_line(&proposal);
    for plan in plans(&proposal) {
        let torch = pin(plan, "torch");
        assert!(minor(torch) >= 11, "no plan goes back on torch: {plan:#}");
    }
}

/// `propose torch`: held back by its own stack, it moves forward with it.
#[test]
fn a_bare_torch_moves_its_stack_forward() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let (code, proposal) = propose(&ctx, &server, &["torch"]);
    assert_eq!(code, Some(0), "{proposal:#}");
    let first = &plans(&proposal)[0];
    assert!(minor(pin(first, "torch")) > 11, "{first:#}");
    assert!(changes_version(first, "torchvision"), "{first:#}");
    let requested: Vec<&Value> = first["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["name"] == "torch")
        .collect();
    assert_eq!(
        requested[0]["reasons"][0]["requirement"], "torch",
        "the reason quotes the user's words: {first:#}"
    );
    assert_recommendation_stays_on_the_line(&proposal);
}

/// sympy==1.13.1 is below torch 2.11.0's `sympy>=1.13.3`: the closest that fits (1.13.3) is
/// recommended; torch 2.6.0 (CUDA 12.4) is offered as a downgrade of the blocker, with the CUDA
/// switch and the libraries it orphans named, and ranked after it.
#[test]
fn a_downgrade_request_gets_the_closest_that_fits_before_a_cuda_switch() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let (code, proposal) = propose(&ctx, &server, &["sympy==1.13.1"]);
    assert_eq!(
        code,
        Some(1),
        "the recommendation is not what was asked: {proposal:#}"
    );
    let first = &plans(&proposal)[0];
    assert_eq!(first["kind"], "newest-fitting", "{first:#}");
    assert_eq!(pin(first, "sympy"), "1.13.3");
    let downgrade = plans(&proposal)
        .iter()
        .find(|p| p["kind"] == "downgrade-blockers")
        .unwrap_or_else(|| panic!("{proposal:#}"));
    assert!(minor(pin(downgrade, "torch")) < 11);
    let switch = downgrade["risk"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "accelerator-line-switch")
        .unwrap_or_else(|| panic!("{downgrade:#}"));
    // The switch from CUDA 13 to CUDA 12, and the libraries it orphans, named (the top-level
    // cupy-cuda13x and jax-cuda13-plugin, which nothing required before, are not orphaned):
    // cuda-toolkit 13.0.2 and the unsuffixed libraries torch 2.11.0 asked it for
    // (`cuda-toolkit[cublas,...]`) count with the 4 `-cu13` ones (it said 4).
    insta::assert_snapshot!(switch["detail"].as_str().unwrap(), @"the plan switches the accelerator line from CUDA 13 to CUDA 12: it installs nvidia-cublas-cu12 12.4.5.8, nvidia-cuda-cupti-cu12 12.4.127, nvidia-cuda-nvrtc-cu12 12.4.127, nvidia-cuda-runtime-cu12 12.4.127, nvidia-cudnn-cu12 9.1.0.70 and 8 more; it leaves 16 of CUDA 13 installed that nothing requires any more (cuda-toolkit, nvidia-cublas, nvidia-cuda-cupti, nvidia-cuda-nvrtc, nvidia-cuda-runtime and 11 more)");
    assert!(
        !plans(&proposal)
            .iter()
            .any(|p| p["kind"] == "move-blockers")
    );
}

/// A coupled member being added follows the installed anchor as a moved one does: jax and
/// jaxlib stay at 0.11.2, so `propose jax-cuda12-plugin` adds the plugin and its pjrt at 0.11.2
/// (what jax's own `[cuda12]` extra pins), never 0.12.0.1 beside jaxlib 0.11.2, and the held-back
/// line names the coupled-group rule as the one reason.
#[test]
fn an_added_jax_plugin_follows_the_installed_jax_release() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let (code, proposal) = propose(&ctx, &server, &["jax-cuda12-plugin"]);
    assert_eq!(code, Some(0), "{proposal:#}");
    let first = &plans(&proposal)[0];
    assert_eq!(first["kind"], "upgrade", "{first:#}");
    for name in ["jax-cuda12-plugin", "jax-cuda12-pjrt", "jax", "jaxlib"] {
        assert_eq!(pin(first, name), "0.11.2", "{name}: {first:#}");
    }
    let held = &first["held_back"][0];
    assert_eq!(held["name"], "jax-cuda12-plugin", "{first:#}");
    assert_eq!(
        held["blockers"].as_array().map(Vec::len),
        Some(0),
        "{held:#}"
    );
    insta::assert_snapshot!(held["unavailable"].as_str().unwrap(), @r#"the coupled-group rule `jax-cuda12-plugin = "{major}.{minor}.{micro}"` of policy `default` pairs jax-cuda12-plugin ==0.11.2.* with jax 0.11.2"#);
}

/// Each change's reason is what forced it, traced from the request: `propose torchvision` moves
/// torch because torchvision 0.29.2 requires `torch>=2.14.0`, not because it "follows"
/// cuda-toolkit (which is itself required by torch 2.15.0: a cycle).
#[test]
fn a_change_is_explained_by_the_requirement_nearest_the_request() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let (_, proposal) = propose(&ctx, &server, &["torchvision"]);
    let first = &plans(&proposal)[0];
    assert_eq!(pin(first, "torchvision"), "0.29.2", "{first:#}");
    let torch = first["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "torch")
        .unwrap_or_else(|| panic!("{first:#}"));
    let reasons = torch["reasons"].as_array().unwrap();
    assert_eq!(reasons.len(), 1, "{torch:#}");
    assert_eq!(reasons[0]["kind"], "required-by", "{torch:#}");
    assert_eq!(reasons[0]["dependent"], "torchvision", "{torch:#}");
    assert_eq!(reasons[0]["requirement"], "torch>=2.14.0", "{torch:#}");
}
