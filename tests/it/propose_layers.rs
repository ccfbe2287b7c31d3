//! `planner propose --all` in layers: the shared h200 fixture against the recorded
//! index data in `testdata/index/` (served by the loopback index), and real venvs where a
//! low-value package's release needs a pinned heavy one to move.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::index_server::IndexServer;
use crate::common::{TestContext, h200_fixtures, repo_root, venv};
use crate::planner_snapshot;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The plan whose layer is `name`.
fn layer<'p>(proposal: &'p Value, name: &str) -> &'p Value {
    proposal["plans"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["layer"]["name"] == name)
        .unwrap_or_else(|| panic!("no {name} layer in {:#}", layer_names(proposal).join(", ")))
}

fn layer_names(proposal: &Value) -> Vec<String> {
    proposal["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["layer"]["name"].as_str().unwrap().to_string())
        .collect()
}

fn pin<'p>(plan: &'p Value, name: &str) -> &'p str {
    plan["pins"][name]
        .as_str()
        .unwrap_or_else(|| panic!("{name} is not pinned"))
}

fn changed(plan: &Value, name: &str) -> bool {
    plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["name"] == name)
}

/// The release segments of a version (local label and pre/post parts dropped).
fn release(version: &str) -> Vec<u64> {
    version
        .split('+')
        .next()
        .unwrap()
        .split('.')
        .map_while(|s| s.parse().ok())
        .collect()
}

/// The major line of a version: its release up to the first non-zero segment.
fn line(version: &str) -> Vec<u64> {
    let r = release(version);
    let cut = r.iter().position(|&n| n != 0).unwrap_or(r.len() - 1);
    r[..=cut].to_vec()
}

/// Whether the plan says that `member`'s own metadata, not the coupled-group rule, paired it.
fn declared_coupling(plan: &Value, member: &str) -> bool {
    plan["risk"]["factors"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|f| f["kind"] == "coupled-member-declared" && f["package"].as_str() == Some(member))
}

/// Every plan keeps the torch domain libraries and the jax stack on one release line, but where
/// a member's own metadata speaks for it (a `py3-none` build declaring its range on torch), which
/// the plan then says in a `coupled-member-declared` factor.
fn assert_coupled_groups_consistent(plan: &Value) {
    let title = &plan["title"];
    if let Some(torch) = plan["pins"]["torch"].as_str() {
        let minor = release(torch)[1];
        if let Some(vision) = plan["pins"]["torchvision"].as_str()
            && !declared_coupling(plan, "torchvision")
        {
            assert_eq!(
                release(vision)[..2],
                [0, minor + 15],
                "{title}: torchvision {vision} with torch {torch}"
            );
        }
        if let Some(audio) = plan["pins"]["torchaudio"].as_str()
            && !declared_coupling(plan, "torchaudio")
        {
            assert_eq!(
                release(audio)[..2],
                release(torch)[..2],
                "{title}: torchaudio {audio} with torch {torch}"
            );
        }
    }
    if let Some(jax) = plan["pins"]["jax"].as_str() {
        for member in ["jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt"] {
            if let Some(v) = plan["pins"][member].as_str() {
                assert_eq!(v, jax, "{title}: {member} {v} with jax {jax}");
            }
        }
    }
}

/// `propose --all EXTRA` for the shared h200 fixture against `server`.
fn propose_h200(ctx: &TestContext, server: &IndexServer, extra: &[&str]) -> crate::common::Output {
    let venv = h200_fixtures().join("h200-venv");
    ctx.propose(&venv, &server.url(), &[&["--all"][..], extra].concat())
}

/// The h200 fixture's `--all` on recorded data: a safe layer that moves no coupled group and
/// crosses no major line, scored low; the torch and jax stacks and each major upgrade on their
/// own; every plan keeps the coupled groups consistent; setuptools held back with the torch move
/// it would need.
#[test]
fn h200_layers_on_recorded_data() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    for policy in ["ml-cuda", "default"] {
        let out = propose_h200(&ctx, &server, &["--policy", policy, "--format", "json"]);
        assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
        let proposal = json(&out.stdout);
        assert_safe_layer_moves_no_stack_nor_major(&proposal, policy);
        assert_layers_build_on_the_safe_one(&proposal);
        assert_stacks_and_majors_move_on_their_own(&proposal, policy);
        let names = layer_names(&proposal);
        assert!(names.iter().all(|n| n != "everything"), "{names:?}");
    }
}

/// The safe layer: scored low or medium, no coupled group moved, no major line crossed;
/// setuptools held back with the torch move it would need.
fn assert_safe_layer_moves_no_stack_nor_major(proposal: &Value, policy: &str) {
    let safe = &proposal["plans"][0];
    assert_eq!(safe["layer"]["name"], "safe", "{policy}");
    assert!(
        ["low", "medium"].contains(&safe["risk"]["level"].as_str().unwrap()),
        "{policy}: {:#}",
        safe["risk"]
    );
    for (name, version) in [
        ("torch", "2.11.0"),
        ("triton", "3.6.0"),
        ("torchvision", "0.26.0"),
        ("torchaudio", "2.11.0"),
        ("jax", "0.11.2"),
        ("jaxlib", "0.11.2"),
        ("jax-cuda13-plugin", "0.11.2"),
        ("cuda-toolkit", "13.0.2"),
    ] {
        assert_eq!(
            pin(safe, name),
            version,
            "{policy}: safe layer moves {name}"
        );
    }
    for change in safe["changes"].as_array().unwrap() {
        if let (Some(from), Some(to)) = (change["from"].as_str(), change["to"].as_str()) {
            assert_eq!(
                line(from),
                line(to),
                "{policy}: safe layer crosses a major line: {change}"
            );
        }
    }
    let setuptools = safe["held_back"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "setuptools")
        .expect("setuptools is held back");
    assert_eq!(setuptools["planned"], "81.0.0");
    assert_eq!(setuptools["needs"][0]["name"], "torch");
    assert_eq!(setuptools["needs"][0]["from"], "2.11.0");
    assert_eq!(setuptools["needs"][0]["to"], "2.15.0");
}

/// Every layer keeps the coupled groups consistent, and each one on top of the safe layer has
/// its versions, except what the layer itself moves.
fn assert_layers_build_on_the_safe_one(proposal: &Value) {
    let safe = &proposal["plans"][0];
    for plan in proposal["plans"].as_array().unwrap() {
        assert_coupled_groups_consistent(plan);
        if plan["layer"]["kind"] != "safe" {
            assert_eq!(plan["layer"]["base"], "safe");
            // Built on top of the safe layer: its versions, except what the layer moves.
            let own: Vec<&str> = plan["layer"]["own"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect();
            for (name, version) in safe["pins"].as_object().unwrap() {
                if !own.contains(&name.as_str()) {
                    assert_eq!(&plan["pins"][name], version, "{}: {name}", plan["title"]);
                }
            }
        }
    }
}

/// The torch stack moves forward as one: torchaudio has no release after 2.11, but
/// 2.11.1 (a py3-none build) declares torch>=2.11 and speaks for itself, as torchvision 0.29.2
/// (torch>=2.14.0) does; each is named in a coupled-member-declared factor. Policy refines the
/// index's metadata, never contradicts it. The jax stack moves as one; each major upgrade is a
/// layer of its own that moves neither stack.
fn assert_stacks_and_majors_move_on_their_own(proposal: &Value, policy: &str) {
    let torch_stack = layer(proposal, "torch-stack");
    assert_eq!(pin(torch_stack, "torch"), "2.15.0", "{policy}");
    assert_eq!(pin(torch_stack, "torchvision"), "0.29.2", "{policy}");
    assert_eq!(pin(torch_stack, "torchaudio"), "2.11.1", "{policy}");
    assert_eq!(pin(torch_stack, "triton"), "3.9.0", "{policy}");
    assert!(declared_coupling(torch_stack, "torchaudio"), "{policy}");
    assert!(declared_coupling(torch_stack, "torchvision"), "{policy}");
    let jax = layer(proposal, "jax-stack");
    for member in ["jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt"] {
        assert_eq!(pin(jax, member), "0.12.0.1", "{policy}: jax stack {member}");
    }
    for major in ["major-huggingface-hub", "major-multidict", "major-filelock"] {
        let plan = layer(proposal, major);
        let name = major.trim_start_matches("major-");
        let change = plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap();
        assert_ne!(
            line(change["from"].as_str().unwrap()),
            line(change["to"].as_str().unwrap())
        );
        assert!(
            !changed(plan, "torch") && !changed(plan, "jax"),
            "{policy}: {major}"
        );
    }
}

/// The text names the heavy move a light package needs, in the issue's words, and the layers
/// with the safe one recommended; `--layer` picks one; `everything` is the unlayered plan.
#[test]
fn h200_layers_explained() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    // The layer table, the safe layer recommended, each held-back line naming the plan that
    // moves it (setuptools held by torch's `<82`), the torch-stack's place in the risk order
    // (jax's lockstep members count dependents once), each plan on top of the safe layer.
    let out = propose_h200(&ctx, &server, &["--policy", "ml-cuda"]);
    planner_snapshot!(ctx, "h200_layers_ml_cuda_text", out);

    let out = propose_h200(&ctx, &server, &["--layer", "major", "--format", "json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let proposal = json(&out.stdout);
    assert_eq!(proposal["request"]["layer"], "major");
    assert!(
        proposal["plans"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["layer"]["kind"] == "major")
    );

    let out = propose_h200(
        &ctx,
        &server,
        &["--layer", "everything", "--format", "json"],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let proposal = json(&out.stdout);
    let plans = proposal["plans"].as_array().unwrap();
    assert_eq!(plans.len(), 1);
    assert_eq!(plans[0]["layer"]["kind"], "everything");
    assert_coupled_groups_consistent(&plans[0]);

    // Two PR bodies (torch-stack, jax-stack), each built on top of the safe layer.
    let out = propose_h200(&ctx, &server, &["--layer", "group", "--format", "markdown"]);
    planner_snapshot!(ctx, "h200_layers_group_markdown", out);

    let out = ctx.run(&["propose", "numpy", "--layer", "safe", "--all"]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
          × --all takes no targets: it plans everything that can move, in layers
          help: drop the targets to see the layers of `--all` (each dist moves as far
                as its layer allows), or drop --all to plan the targets
        "#);
}

/// A small world of real wheels where a build tool's next patch needs torch to move.
const WORLD: &str = r#"[
 ["torch", "2.11.0", ["triton==3.6.0", "buildtool<81.1"]],
 ["torch", "2.12.0", ["triton==3.7.0", "buildtool>=81"]],
 ["triton", "3.6.0", []],
 ["triton", "3.7.0", []],
 ["torchvision", "0.26.0", ["torch==2.11.0"]],
 ["torchvision", "0.27.0", ["torch==2.12.0"]],
 ["torchaudio", "2.11.0", ["torch"]],
 ["buildtool", "81.0.0", []],
 ["buildtool", "81.1.0", []],
 ["helper", "1.0.0", []],
 ["helper", "1.1.0", []],
 ["helper", "2.0.0", []]
]"#;

fn pip(venv: &Path) -> Command {
    let mut cmd = Command::new(venv.join("bin/python"));
    cmd.args(["-m", "pip", "--disable-pip-version-check", "--no-cache-dir"]);
    cmd
}

fn installed(venv: &Path) -> BTreeMap<String, String> {
    let out = pip(venv)
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&String::from_utf8_lossy(&out.stdout))
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_lowercase(),
                d["version"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A real venv (python3 -m venv + pip) with `pins` from the world's loopback index.
fn world_venv(ctx: &TestContext, url: &str, name: &str, pins: &[&str]) -> PathBuf {
    let path = ctx.dir.path().join(name);
    let out = Command::new(venv::python3())
        .args(["-m", "venv"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = pip(&path)
        .args([
            "install",
            "-q",
            "--index-url",
            url,
            "--only-binary",
            ":all:",
            "--",
        ])
        .args(pins)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

fn world(ctx: &TestContext) -> IndexServer {
    let root = ctx.dir.path().join("index");
    let status = Command::new(venv::python3())
        .arg(repo_root().join("tests/it/propose_index.py"))
        .arg(&root)
        .arg(WORLD)
        .status()
        .unwrap();
    assert!(status.success());
    IndexServer::start(&root)
}

/// buildtool 81.1.0 needs torch 2.12.0 (torch 2.11.0 requires buildtool<81.1): the safe layer
/// holds buildtool back and says so, the torch-stack plan moves torch, torchvision and triton
/// together (and buildtool with them), the major plan takes helper 2. Applied for real with the
/// written scripts, safe first, each plan gives exactly its pins.
#[test]
fn light_package_does_not_drag_torch() {
    let mut ctx = TestContext::new();
    ctx.filter_host_python();
    let server = world(&ctx);
    let url = server.url();
    let venv = world_venv(
        &ctx,
        &url,
        "venv",
        &[
            "torch==2.11.0",
            "triton==3.6.0",
            "torchvision==0.26.0",
            "buildtool==81.0.0",
            "helper==1.0.0",
        ],
    );
    let out_dir = ctx.dir.path().join("plans");
    let out = ctx.propose(
        &venv,
        &url,
        &[
            "--all",
            "--out-dir",
            out_dir.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let proposal = json(&out.stdout);
    assert_layers_keep_buildtool_off_torch(&proposal);
    // The text says it as the issue asks.
    let text = ctx.propose(&venv, &url, &["--all"]);
    planner_snapshot!(ctx, text, @r#"
        exit_code: 0
        ----- stdout -----
        planner propose --all for [TMP]/venv (Python [HOST_PYTHON], linux x86_64, [N] dists), in layers

          1. safe          0/100 low           1 change: Safe layer: upgrades inside their major line; no coupled group moves, nothing heavy is dragged along
          2. torch-stack   16/100 low          4 changes on top of safe: Move the torch stack: torch 2.11.0 -> 2.12.0, torchvision 0.26.0 -> 0.27.0, triton 3.6.0 -> 3.7.0
          3. major-helper  10/100 low          1 change on top of safe: helper 1.0.0 -> 2.0.0 (a new major line)
          apply the first (safe) layer first: every other plan is built on top of it; --layer everything plans every upgrade at once

        Plan 1 safe (recommended): Safe layer: upgrades inside their major line; no coupled group moves, nothing heavy is dragged along
          risk 0/100 low (policy default)
          changes:
            helper  1.0.0 -> 1.1.0  --all
          held back: buildtool stays at 81.0.0 (newest 81.1.0): moving it needs torch 2.11.0 -> 2.12.0 (torch 2.11.0 requires buildtool<81.1); see the torch-stack plan
          held back: moves in the major-helper plan: helper 1.1.0 (newest 2.0.0)
          held back: moves in the torch-stack plan: torch 2.11.0 (newest 2.12.0), torchvision 0.26.0 (newest 0.27.0), triton 3.6.0 (newest 3.7.0)
          (--out-dir DIR also writes constraints.txt for the whole environment, the plan file, install scripts and verify.py)
          with pip:
            [TMP]/venv/bin/python -m pip install --only-binary :all: --index-url http://127.0.0.1:[PORT]/simple/ -- 'helper==1.1.0'
          with uv:
            uv pip install --python [TMP]/venv/bin/python --no-build --index-url http://127.0.0.1:[PORT]/simple/ -- 'helper==1.1.0'

        Plan 2 torch-stack: Move the torch stack: torch 2.11.0 -> 2.12.0, torchvision 0.26.0 -> 0.27.0, triton 3.6.0 -> 3.7.0
          risk 16/100 low (policy default)
          on top of the safe layer: its changes are in this plan's pins and commands (and scored there); below, this layer's own
          changes:
            buildtool    81.0.0 -> 81.1.0  --all
            torch        2.11.0 -> 2.12.0  --all
            torchvision  0.26.0 -> 0.27.0  --all
            triton       3.6.0 -> 3.7.0    --all
          risk factors:
              +8  coupled-stack-change   coupled group [torch, triton] changes (torch, triton): torch's inductor generates code for one triton release
              +8  coupled-stack-change   coupled group [torch, torchvision, torchaudio] changes (torch, torchvision): torchvision and torchaudio are built against one torch release
          (--out-dir DIR also writes constraints.txt for the whole environment, the plan file, install scripts and verify.py)
          with pip:
            [TMP]/venv/bin/python -m pip install --only-binary :all: --index-url http://127.0.0.1:[PORT]/simple/ -- 'buildtool==81.1.0' 'helper==1.1.0' 'torch==2.12.0' 'torchvision==0.27.0' 'triton==3.7.0'
          with uv:
            uv pip install --python [TMP]/venv/bin/python --no-build --index-url http://127.0.0.1:[PORT]/simple/ -- 'buildtool==81.1.0' 'helper==1.1.0' 'torch==2.12.0' 'torchvision==0.27.0' 'triton==3.7.0'

        Plan 3 major-helper: helper 1.0.0 -> 2.0.0 (a new major line)
          risk 10/100 low (policy default)
          on top of the safe layer: its changes are in this plan's pins and commands (and scored there); below, this layer's own
          changes:
            helper  1.0.0 -> 2.0.0  --all
          risk factors:
             +10  major-upgrade          helper jumps a major version, 1.0.0 to 2.0.0; in the corpus, plans of this shape (major-upgrade without dependent-predates-major on one package) broke 1 of 13 times
          (--out-dir DIR also writes constraints.txt for the whole environment, the plan file, install scripts and verify.py)
          with pip:
            [TMP]/venv/bin/python -m pip install --only-binary :all: --index-url http://127.0.0.1:[PORT]/simple/ -- 'helper==2.0.0'
          with uv:
            uv pip install --python [TMP]/venv/bin/python --no-build --index-url http://127.0.0.1:[PORT]/simple/ -- 'helper==2.0.0'

        ----- stderr -----
        "#);

    // Without layers (`everything`), buildtool's patch drags torch along: the issue's bug.
    let everything = ctx.propose(
        &venv,
        &url,
        &["--all", "--layer", "everything", "--format", "json"],
    );
    assert_eq!(
        pin(&json(&everything.stdout)["plans"][0], "torch"),
        "2.12.0"
    );

    // Apply: the safe layer, then the torch stack on top of it, with the written scripts.
    apply_layers_in_order(
        &out_dir,
        &venv,
        &[
            ("1-safe", layer(&proposal, "safe")),
            ("2-torch-stack", layer(&proposal, "torch-stack")),
        ],
    );
    let check = ctx.run(&["check", "--venv", venv.to_str().unwrap()]);
    assert_eq!(check.code, Some(0), "{}", check.stdout);
}

/// The layers of the buildtool world: the safe layer holds buildtool back, naming the torch
/// move it needs and the plan that has it; the torch-stack plan moves torch, torchvision and
/// triton together (and buildtool with them); the major plan takes helper 2 alone.
fn assert_layers_keep_buildtool_off_torch(proposal: &Value) {
    assert_eq!(
        layer_names(proposal),
        ["safe", "torch-stack", "major-helper"]
    );
    let safe = layer(proposal, "safe");
    assert_eq!(pin(safe, "torch"), "2.11.0");
    assert_eq!(pin(safe, "buildtool"), "81.0.0");
    assert_eq!(pin(safe, "helper"), "1.1.0");
    let held = &safe["held_back"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "buildtool")
        .unwrap();
    assert_eq!(held["needs"][0]["name"], "torch");
    assert_eq!(held["needs"][0]["to"], "2.12.0");
    assert_eq!(held["see"], "torch-stack");
    let stack = layer(proposal, "torch-stack");
    for (name, version) in [
        ("torch", "2.12.0"),
        ("triton", "3.7.0"),
        ("torchvision", "0.27.0"),
        ("buildtool", "81.1.0"),
        ("helper", "1.1.0"),
    ] {
        assert_eq!(pin(stack, name), version, "torch-stack {name}");
    }
    assert_eq!(pin(layer(proposal, "major-helper"), "helper"), "2.0.0");
    assert_eq!(pin(layer(proposal, "major-helper"), "torch"), "2.11.0");
}

/// Run each plan's written install-pip.sh in order; after each, the venv holds exactly the
/// plan's pins.
fn apply_layers_in_order(out_dir: &Path, venv: &Path, plans: &[(&str, &Value)]) {
    for (dir, plan) in plans {
        let script = out_dir.join("plans").join(dir).join("install-pip.sh");
        assert!(out_dir.join("plans").join(dir).join("pr.md").is_file());
        let out = Command::new(&script).output().unwrap();
        assert!(
            out.status.success(),
            "{dir}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let now = installed(venv);
        for (name, version) in plan["pins"].as_object().unwrap() {
            assert_eq!(
                now.get(name).map(String::as_str),
                version.as_str(),
                "{dir}: {name}"
            );
        }
    }
}

/// torchaudio has no release for torch 2.12: the torch stack is held back as a whole (no
/// torch-stack plan), and the safe layer names the member without a matching release.
#[test]
fn coupled_group_held_back_whole() {
    let ctx = TestContext::new();
    let server = world(&ctx);
    let url = server.url();
    let venv = world_venv(
        &ctx,
        &url,
        "venv",
        &[
            "torch==2.11.0",
            "triton==3.6.0",
            "torchvision==0.26.0",
            "torchaudio==2.11.0",
            "buildtool==81.0.0",
            "helper==1.0.0",
        ],
    );
    let out = ctx.propose(&venv, &url, &["--all", "--format", "json"]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let proposal = json(&out.stdout);
    assert_eq!(layer_names(&proposal), ["safe", "major-helper"]);
    let safe = layer(&proposal, "safe");
    let torch = safe["held_back"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "torch")
        .unwrap();
    assert_eq!(torch["unmatched"][0]["member"], "torchaudio");
    assert_eq!(torch["unmatched"][0]["needs"], "==2.12.*");
    let held = safe["held_back"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "buildtool")
        .unwrap();
    assert_eq!(held["needs"][0]["to"], "2.12.0");
    assert!(held.get("see").is_none(), "no plan moves torch: {held:#}");
}

/// The consistency check above fails on the plan the issue reported (torch 2.15.0 with
/// torchvision 0.29.2 and torchaudio 2.11.1).
#[test]
#[should_panic(expected = "torchvision 0.29.2 with torch 2.15.0")]
fn coupled_check_fails_on_the_reported_plan() {
    let plan = json(
        r#"{"title": "Upgrade everything that can move",
            "pins": {"torch": "2.15.0", "torchvision": "0.29.2", "torchaudio": "2.11.1"}}"#,
    );
    assert_coupled_groups_consistent(&plan);
}

/// Pytest-benchmark 5.3 requires `py-cpuinfo2`, whose wheel (recorded whole in
/// `testdata/index/wheels/`) installs `cpuinfo/`, the module the installed `py-cpuinfo`
/// ships. The safe layer keeps py-cpuinfo2 out (pytest-benchmark stays at 5.2.3) and says why;
/// no layer on top of it brings it back; the unlayered plan, which has it, carries a
/// `module-clash` factor and a warning naming both dists and the module.
#[test]
fn safe_layer_keeps_a_module_clash_out() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let out = propose_h200(&ctx, &server, &["--format", "json"]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let proposal = json(&out.stdout);
    let safe = layer(&proposal, "safe");
    assert_eq!(pin(safe, "pytest-benchmark"), "5.2.3");
    let warning = safe["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|w| w.starts_with("the safe layer keeps py-cpuinfo2 out"))
        .unwrap_or_else(|| panic!("no clash warning in {:#}", safe["warnings"]));
    // Both dists that ship `cpuinfo`, and what pytest-benchmark 5.3.1 would need.
    insta::assert_snapshot!("module_clash_warning", warning);
    // The held-back line names the requirement (the newest release's own, unmet by the plan).
    let held = safe["held_back"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "pytest-benchmark")
        .expect("pytest-benchmark is held back");
    assert_eq!(
        held["blockers"][0]["dependent_version"], "5.3.1",
        "{held:#}"
    );
    assert_eq!(held["blockers"][0]["requirement"], "py-cpuinfo2>=10.1");
    for plan in proposal["plans"].as_array().unwrap() {
        assert!(
            plan["pins"].get("py-cpuinfo2").is_none(),
            "{}",
            plan["title"]
        );
        let factors = plan["risk"]["factors"].as_array().unwrap();
        assert!(factors.iter().all(|f| f["kind"] != "module-clash"));
    }

    let out = propose_h200(
        &ctx,
        &server,
        &["--layer", "everything", "--format", "json"],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let proposal = json(&out.stdout);
    let plan = &proposal["plans"][0];
    assert_eq!(pin(plan, "py-cpuinfo2"), "10.1.1");
    let clash: Vec<&Value> = plan["risk"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "module-clash")
        .collect();
    assert_eq!(clash.len(), 1, "{:#}", plan["risk"]);
    assert_eq!(clash[0]["package"], "py-cpuinfo2");
    let detail = clash[0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(
            "py-cpuinfo2 10.1.1 and the installed py-cpuinfo 9.0.0 both ship the module \
             `cpuinfo` (py-cpuinfo's top_level.txt)"
        ),
        "{detail}"
    );
    assert!(
        plan["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().is_some_and(|w| w.starts_with(detail))),
        "{:#}",
        plan["warnings"]
    );
}

/// The layer table is padded before it is coloured, so `--color always` moves no
/// column: stripped of its escape codes, it is the plain output byte for byte.
#[test]
fn layer_table_keeps_its_alignment_in_colour() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let plain = propose_h200(&ctx, &server, &["--policy", "ml-cuda", "--color", "never"]);
    let colored = propose_h200(&ctx, &server, &["--policy", "ml-cuda", "--color", "always"]);
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    assert!(!plain.stdout.contains('\u{1b}'));
    assert!(colored.stdout.contains("\u{1b}["), "{}", colored.stdout);
    let stripped = anstream::adapter::strip_str(&colored.stdout).to_string();
    assert_eq!(stripped, plain.stdout);
}
