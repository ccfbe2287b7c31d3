//! `planner propose`: the canonical incident on shipped data, plan files, `check --accept`, and
//! the emitted commands run for real with pip in a fresh venv against a loopback index.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::index_server::IndexServer;
use crate::common::{Output, TestContext, copy_dir, h200_fixtures, repo_root, run, skip, venv};
use crate::planner_snapshot;

fn canonical_venv() -> PathBuf {
    repo_root().join("testdata/venvs/canonical")
}

fn shipped_index() -> String {
    repo_root()
        .join("testdata/index/simple")
        .display()
        .to_string()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The README's first command: the canonical incident, offline, on the shipped data.
#[test]
fn canonical_incident_offline_on_shipped_data() {
    let ctx = TestContext::new();
    let venv = canonical_venv().display().to_string();
    let index = shipped_index();
    let out = ctx.propose(
        Path::new(&venv),
        &index,
        &[
            "triton==3.7.0",
            "--allow-override",
            "--offline",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let proposal = json(&out.stdout);
    assert_eq!(proposal["schema"], "planner-proposal/1");
    let conflict = &proposal["conflict"];
    insta::assert_snapshot!(
        "canonical_conflict_explanation",
        conflict["explanation"].as_str().unwrap()
    );
    assert_eq!(conflict["blockers"][0]["dependent"], "torch");
    let plans = proposal["plans"].as_array().unwrap();
    let forced = plans
        .iter()
        .find(|p| p["kind"] == "forced-override")
        .expect("a forced plan");
    assert_eq!(forced["overrides"][0]["dependent"], "torch");
    assert_eq!(forced["overrides"][0]["package"], "triton");
    assert_eq!(forced["overrides"][0]["version"], "3.7.0");
    let factors: Vec<&str> = forced["risk"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    // upstream-accepts (torch 2.12.0 accepts triton 3.7.0) weighs 0 in the default policy: the
    // corpus found no signal in it, so it is not itemized; the move-the-blocker plan below is
    // where that release shows.
    insta::assert_snapshot!("canonical_forced_factors", factors.join("\n"));
    // Move the blocker: torch 2.12.0 pins triton==3.7.0; it is the recommended plan.
    let moved = &plans[0];
    assert_eq!(moved["kind"], "move-blockers");
    let change = |name: &str| {
        moved["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name} does not change: {moved:#}"))
            .clone()
    };
    assert_eq!(change("torch")["from"], "2.11.0+cu130");
    assert_eq!(change("torch")["to"], "2.12.0");
    assert_eq!(change("torch")["reasons"][0]["kind"], "unblocks");
    assert_eq!(change("triton")["to"], "3.7.0");
    assert!(moved["risk"]["score"].as_u64() < forced["risk"]["score"].as_u64());
    insta::assert_snapshot!(
        "canonical_move_blockers_warning",
        moved["warnings"][0].as_str().unwrap()
    );
}

/// `propose torch` on the canonical venv: torch's newest release (2.15.0) requires newer CUDA
/// runtime pins than the installed ones, so the as-asked upgrade holds it back, and the
/// recommended plan moves those pins forward with it. The forward move landed exactly on 2.15.0
/// and was once dropped as "no blocker moved" (the recorded index then held cuda-toolkit
/// 13.2.2, as the public index does), leaving only "no changes". Its title names torch's own
/// move first: the pins block nothing installed, torch 2.15.0 requires them.
#[test]
fn a_bare_torch_held_back_by_its_own_cuda_pins_moves_them_forward() {
    let ctx = TestContext::new();
    let out = ctx.propose(
        &canonical_venv(),
        &shipped_index(),
        &["torch", "--offline", "--format", "json"],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let proposal: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let plans = proposal["plans"].as_array().unwrap();
    let moved = &plans[0];
    assert_eq!(moved["kind"], "move-blockers");
    assert_eq!(
        moved["title"],
        "Move torch 2.11.0+cu130 -> 2.15.0 with what it requires: cuda-toolkit 13.0.2 -> 13.2.2, \
         nvidia-cudnn-cu13 9.19.0.56 -> 9.26.0.51, nvidia-cusparselt-cu13 0.8.0 -> 0.8.1, nvidia-nccl-cu13 2.28.9 -> 2.30.7, \
         nvidia-nvshmem-cu13 3.4.5 -> 3.7.2, triton 3.6.0 -> 3.9.0"
    );
    let to = |name: &str| {
        moved["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .map(|c| c["to"].as_str().unwrap().to_string())
    };
    assert_eq!(to("torch").as_deref(), Some("2.15.0"));
    assert_eq!(to("cuda-toolkit").as_deref(), Some("13.2.2"));
    assert_eq!(to("triton").as_deref(), Some("3.9.0"));
    let as_asked = &plans[1];
    assert_eq!(as_asked["kind"], "upgrade");
    assert_eq!(as_asked["changes"].as_array().map(Vec::len), Some(0));
}

/// The text form explains the conflict and itemizes the forced plan's risk.
#[test]
fn canonical_incident_text() {
    let ctx = TestContext::new();
    let venv = canonical_venv().display().to_string();
    let out = ctx.propose(
        Path::new(&venv),
        &shipped_index(),
        &["triton==3.7.0", "--allow-override", "--offline"],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // The snapshot holds the whole run: the conflict, both plans, no colour when not a TTY,
    // and the proposal's warnings as diagnostics, on stderr only.
    planner_snapshot!(ctx, "canonical_incident_text", out);
    let args = [
        "propose",
        "triton==3.7.0",
        "--venv",
        &venv,
        "--index-url",
        &shipped_index(),
        "--offline",
    ];
    let mut quiet = vec!["-q"];
    quiet.extend(args);
    let silent = ctx.run(&quiet);
    assert_eq!(silent.stderr, "", "-q silences the diagnostics");
    // Without --allow-override there is no forced plan.
    let out = ctx.run(&args);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 0
        ----- stdout -----
        planner propose triton==3.7.0 for [REPO]/testdata/venvs/canonical (Python 3.12.3, linux x86_64, 56 dists)

        The request cannot be met as asked:
          Because torch==2.11.0+cu130 depends on triton==3.6.0 and you require triton==3.7.0, torch==2.11.0+cu130 cannot be used.
          And because torch==2.11.0+cu130 stays as installed, your requirements are unsatisfiable.
          hint: torch releases that accept triton==3.7.0: 2.12.0
          blocked by: torch 2.11.0+cu130 requires triton==3.6.0

        Plan 1 move-blockers (recommended): Move the blocker: torch 2.11.0+cu130 -> 2.12.0
          risk 33/100 medium (policy default)
          changes:
            nvidia-cudnn-cu13       9.19.0.56 -> 9.20.0.48  required by torch 2.12.0 (nvidia-cudnn-cu13==9.20.0.48)
            nvidia-cusparselt-cu13  0.8.0 -> 0.8.1          required by torch 2.12.0 (nvidia-cusparselt-cu13==0.8.1)
            nvidia-nccl-cu13        2.28.9 -> 2.29.7        required by torch 2.12.0 (nvidia-nccl-cu13==2.29.7)
            torch                   2.11.0+cu130 -> 2.12.0  needed to unblock triton==3.7.0 (it required triton==3.6.0)
            triton                  3.6.0 -> 3.7.0          requested (triton==3.7.0)
          WARNING: torch 2.11.0+cu130 is a local build: this plan REPLACES it with the index build 2.12.0; make sure the index serves the variant you need
          risk factors:
             +25  local-variant-switch   torch 2.11.0+cu130 is a local build; 2.12.0 is a different build
              +8  coupled-stack-change   coupled group [torch, triton] changes (torch, triton): torch's inductor generates code for one triton release
          not checked (so the risk is at least medium):
            whether nvidia-cudnn-cu13 9.20.0.48 ships a module another dist ships, and whether it raises on import over another dist's version (a test in its own sources) (its wheel's files could not be read: the local index holds no wheel file for it, only its metadata)
            whether nvidia-cusparselt-cu13 0.8.1 ships a module another dist ships, and whether it raises on import over another dist's version (a test in its own sources) (its wheel's files could not be read: the local index holds no wheel file for it, only its metadata)
            whether nvidia-nccl-cu13 2.29.7 ships a module another dist ships, and whether it raises on import over another dist's version (a test in its own sources) (its wheel's files could not be read: the local index holds no wheel file for it, only its metadata)
            and 2 more: torch 2.12.0, triton 3.7.0
          (--out-dir DIR also writes constraints.txt for the whole environment, the plan file, install scripts and verify.py)
          with pip:
            python3 -m pip --python [REPO]/testdata/venvs/canonical/bin/python install --only-binary :all: --index-url file://[REPO]/testdata/index/simple/ -- 'nvidia-cudnn-cu13==9.20.0.48' 'nvidia-cusparselt-cu13==0.8.1' 'nvidia-nccl-cu13==2.29.7' 'torch==2.12.0' 'triton==3.7.0'
          with uv:
            uv pip install --python [REPO]/testdata/venvs/canonical/bin/python --no-build --index-url file://[REPO]/testdata/index/simple/ -- 'nvidia-cudnn-cu13==9.20.0.48' 'nvidia-cusparselt-cu13==0.8.1' 'nvidia-nccl-cu13==2.29.7' 'torch==2.12.0' 'triton==3.7.0'

        ----- stderr -----
        warning: flash-linear-attention 0.5.1 was installed from git@0c5dc3f0a57e and is kept as it is (never replaced from the index)
        warning: the newest triton that fits without moving anything else is 3.6.0, already installed
        warning: [REPO]/testdata/venvs/canonical/bin/python does not exist: this environment was read from its metadata alone (pyvenv.cfg and site-packages, no interpreter), so the pip and uv commands below are for the machine where it lives with its interpreter, and cannot run here.
        "#);
}

/// The shared h200 fixture: the forced plan file makes `check --accept` accept exactly the
/// broken torch -> triton edge of the forced-triton variant, and nothing else.
#[test]
fn accepted_override_silences_exactly_that_edge() {
    let fixtures = h200_fixtures();
    let h200 = fixtures.join("h200-venv");
    let ctx = TestContext::new();
    let out_dir = ctx.dir.path().join("out");
    let out = ctx.propose(
        &h200,
        &shipped_index(),
        &[
            "triton==3.7.0",
            "--allow-override",
            "--offline",
            "--out-dir",
            out_dir.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let plans: Vec<PathBuf> = std::fs::read_dir(out_dir.join("plans"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let forced = plans
        .iter()
        .find(|p| p.to_string_lossy().ends_with("forced-override"))
        .expect("forced plan folder");
    for file in [
        "plan.json",
        "constraints.txt",
        "overrides.txt",
        "install-pip.sh",
        "install-uv.sh",
        "verify.py",
        "rollback-pip.sh",
        "rollback-uv.sh",
    ] {
        assert!(forced.join(file).is_file(), "{file}");
    }
    assert_eq!(
        std::fs::read_to_string(forced.join("overrides.txt")).unwrap(),
        "triton==3.7.0\n"
    );

    // The forced variant of the venv: triton 3.7.0 under torch's triton==3.6.0.
    let venv = ctx.dir.path().join("forced-venv");
    copy_dir(&h200, &venv);
    let site = venv.join("lib/python3.12/site-packages");
    std::fs::remove_dir_all(site.join("triton-3.6.0.dist-info")).unwrap();
    copy_dir(
        &fixtures.join("h200-forced-triton-3.7.0/site-packages-overlay/triton-3.7.0.dist-info"),
        &site.join("triton-3.7.0.dist-info"),
    );
    let venv_arg = venv.to_str().unwrap();
    let plan = forced.join("plan.json");
    let plan_arg = plan.to_str().unwrap();
    let out = ctx.run(&["check", "--venv", venv_arg]);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    let out = ctx.run(&["check", "--venv", venv_arg, "--accept", plan_arg]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 0
        ----- stdout -----
        No broken requirements found.

        accepted by a plan:
          - torch 2.11.0 has requirement triton==3.6.0 ; platform_system == 'Linux', but you have triton 3.7.0

        ----- stderr -----
        "#);

    // A new break is still reported: triton moved on again, to a version nobody accepted.
    let metadata = site.join("triton-3.7.0.dist-info/METADATA");
    let text = std::fs::read_to_string(&metadata).unwrap();
    std::fs::write(
        &metadata,
        text.replacen("Version: 3.7.0", "Version: 3.7.1", 1),
    )
    .unwrap();
    let out = ctx.run(&["check", "--venv", venv_arg, "--accept", plan_arg]);
    assert_eq!(out.code, Some(1), "{}", out.stdout);

    // A proposal is not a plan file.
    let proposal = out_dir.join("proposal.json");
    let out = ctx.run(&[
        "check",
        "--venv",
        venv_arg,
        "--accept",
        proposal.to_str().unwrap(),
    ]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
          × `[TMP]/out/proposal.json` is a proposal with several plans, not
          │ a plan file
          help: accept one plan: pass DIR/plans/<n>-<kind>/plan.json from `planner
                propose --out-dir DIR`
        "#);
}

/// The clock the harness pins (`PLANNER_NOW`, src/clock.rs) is the one the risk model reads:
/// days after torch 2.12.0 and triton 3.7.0 were uploaded (2026-05-13 and 2026-05-07 in the
/// recorded index) they are young releases; on the harness's date they are not. A `PLANNER_NOW`
/// that is not a timestamp is an error naming it.
#[test]
fn pinned_clock_reaches_the_release_age_factor() {
    let ctx = TestContext::new();
    let venv = canonical_venv().display().to_string();
    let index = shipped_index();
    let args = [
        "propose",
        "triton==3.7.0",
        "--venv",
        &venv,
        "--index-url",
        &index,
        "--offline",
        "--format",
        "json",
    ];
    let young = |out: &Output| -> Vec<String> {
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        out.json()["plans"][0]["risk"]["factors"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == "young-release")
            .map(|f| f["detail"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(young(&ctx.run(&args)), Vec::<String>::new());
    let early = run(ctx
        .command()
        .env("PLANNER_NOW", "2026-05-16T00:00:00Z")
        .args(args));
    // Once per plan, for what was asked: torch 2.12.0, moved along to unblock it and
    // released 2 days before, is not counted again.
    assert_eq!(
        young(&early),
        ["triton 3.7.0 was released 8 days before this plan"]
    );
    let bad = run(ctx.command().env("PLANNER_NOW", "yesterday").args(args));
    planner_snapshot!(ctx, bad, @r#"
        exit_code: 2
        ----- stdout -----
        {
          "schema": "planner-error/1",
          "exit_code": 2,
          "message": "PLANNER_NOW=`yesterday` is not a timestamp: failed to parse four digit integer as year: invalid digit, expected 0-9 but got y",
          "code": null,
          "help": "use an RFC 3339 timestamp such as 2026-12-01T00:00:00Z, or unset PLANNER_NOW",
          "causes": []
        }

        ----- stderr -----
          × PLANNER_NOW=`yesterday` is not a timestamp: failed to parse four digit
          │ integer as year: invalid digit, expected 0-9 but got y
          help: use an RFC 3339 timestamp such as 2026-12-01T00:00:00Z, or unset
                PLANNER_NOW
        "#);
}

#[test]
fn bad_input_is_explained() {
    let ctx = TestContext::new();
    planner_snapshot!(ctx, ctx.run(&["propose"]), @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
          × nothing to propose: no target and no --all
          help: name what to upgrade (`planner propose triton==3.7.0`, `planner
                propose numpy`), or pass --all
        "#);
    planner_snapshot!(ctx, ctx.run(&["propose", "triton===;rm -rf /"]), @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        error: invalid value 'triton===;rm -rf /' for '[TARGET]...': invalid target `triton===;rm -rf /`: Unexpected end of version specifier, expected version
          hint: targets are PEP 508 requirements: `triton==3.7.0`, `numpy>=2`, `transformers`

        For more information, try '--help'.
        "#);
    planner_snapshot!(ctx, ctx.run(&["propose", "triton", "--max-risk", "extreme"]), @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        error: invalid value 'extreme' for '--max-risk <LEVEL>'
          [possible values: low, medium, high, critical]

        For more information, try '--help'.
        "#);
    planner_snapshot!(
        ctx,
        ctx.run(&["propose", "triton", "--policy", "/nonexistent/policy.toml"]),
        @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
          × cannot read the policy file `/nonexistent/policy.toml`
          ╰─▶ does not exist
          help: pass an existing TOML file, or `default` / `ml-cuda` for a built-in
                policy
        "#
    );
}

/// The little world of tests/it/propose_index.py on a loopback server: `target==2.0` needs a
/// `blocker` that 1.0 forbids, and `bystander` stays out of it.
struct BlockerWorld {
    ctx: TestContext,
    server: IndexServer,
}

impl BlockerWorld {
    fn new() -> BlockerWorld {
        let ctx = TestContext::new();
        let root = ctx.dir.path().join("index");
        let status = Command::new(venv::python3())
            .arg(repo_root().join("tests/it/propose_index.py"))
            .arg(&root)
            .status()
            .unwrap();
        assert!(status.success());
        let server = IndexServer::start(&root);
        BlockerWorld { ctx, server }
    }

    /// A real venv `name` with target, blocker and bystander 1.0 installed by pip.
    fn venv(&self, name: &str) -> PathBuf {
        let venv = self.ctx.dir.path().join(name);
        let out = Command::new(venv::python3())
            .args(["-m", "venv"])
            .arg(&venv)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = pip(&venv)
            .args(["install", "-q", "--index-url", &self.server.url()])
            .args(["--only-binary", ":all:", "--"])
            .args(["target==1.0", "blocker==1.0", "bystander==1.0"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        venv
    }

    /// `propose target==2.0 --allow-override` for `venv`, with `extra` flags.
    fn propose(&self, venv: &Path, extra: &[&str]) -> Output {
        let args = [&["target==2.0", "--allow-override"][..], extra].concat();
        self.ctx.propose(venv, &self.server.url(), &args)
    }

    /// The plan of this `kind` written by `--out-dir`: its JSON and its folder.
    fn written_plan(&self, venv: &Path, kind: &str) -> (serde_json::Value, PathBuf) {
        let out_dir = self.ctx.dir.path().join(format!("out-{kind}"));
        let out_arg = out_dir.to_str().unwrap();
        let out = self.propose(venv, &["--out-dir", out_arg, "--format", "json"]);
        assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
        let proposal = json(&out.stdout);
        let (i, plan) = proposal["plans"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .find(|(_, p)| p["kind"] == kind)
            .unwrap_or_else(|| panic!("no {kind} plan: {}", out.stdout));
        let dir = out_dir.join("plans").join(format!("{}-{kind}", i + 1));
        (plan.clone(), dir)
    }

    /// The pip commands the text output prints for pasting, in the `kind` plan's section.
    fn pasted_pip_commands(&self, venv: &Path, kind: &str) -> String {
        let text = self.propose(venv, &[]);
        text.stdout
            .split(&format!("{kind}:"))
            .nth(1)
            .and_then(|rest| rest.split("with pip:\n").nth(1))
            .and_then(|rest| rest.split("  with uv:").next())
            .unwrap_or_else(|| panic!("no pip commands: {}", text.stdout))
            .to_string()
    }
}

/// Every change of the plan landed: the installed version is the plan's `to`.
fn assert_every_change_landed(
    installed: &std::collections::BTreeMap<String, String>,
    plan: &serde_json::Value,
    kind: &str,
) {
    for change in plan["changes"].as_array().unwrap() {
        let name = change["name"].as_str().unwrap();
        assert_eq!(
            installed.get(name).map(String::as_str),
            change["to"].as_str(),
            "{kind}: {name}"
        );
    }
}

/// The plan's verify.py passes on the venv the plan made; its pip check accepts a forced
/// edge only because the plan records it (one accepted edge for the forced plan, none else).
fn assert_verify_script_passes(venv: &Path, dir: &Path, report: &Path, kind: &str) {
    let out = Command::new(venv.join("bin/python"))
        .arg(dir.join("verify.py"))
        .arg("--report")
        .arg(report)
        .output()
        .unwrap();
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(report["ok"], true);
    let pip_check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "pip-check")
        .unwrap();
    assert_eq!(pip_check["status"], "pass", "{pip_check}");
    if kind == "forced-override" {
        assert_eq!(
            pip_check["accepted"].as_array().unwrap().len(),
            1,
            "{pip_check}"
        );
    }
}

/// `check` finds the forced edge broken, and accepts it given the plan file.
fn assert_check_accepts_the_forced_edge_with_the_plan(ctx: &TestContext, venv: &Path, dir: &Path) {
    let venv_arg = venv.to_str().unwrap();
    let out = ctx.run(&["check", "--venv", venv_arg]);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    let plan_file = dir.join("plan.json");
    let plan_arg = plan_file.to_str().unwrap();
    let out = ctx.run(&["check", "--venv", venv_arg, "--accept", plan_arg]);
    assert_eq!(out.code, Some(0), "{}", out.stdout);
}

/// verify.py fails once the environment is no longer what the plan says (target put back).
fn assert_verify_script_fails_when_reverted(venv: &Path, dir: &Path, url: &str) {
    let out = pip(venv)
        .args([
            "install",
            "--index-url",
            url,
            "--force-reinstall",
            "--no-deps",
        ])
        .args(["--", "target==1.0"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let out = Command::new(venv.join("bin/python"))
        .arg(dir.join("verify.py"))
        .arg("--no-imports")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// A real venv, a loopback index of real wheels, and the commands `propose` writes, run with
/// pip (the move-blockers plan by its script, the forced plan by the commands its text prints
/// for pasting): the environment ends at exactly the planned versions, the generated verify.py
/// passes (and fails once the venv is put back), and `check` accepts the forced edge with the
/// plan.

#[test]
fn emitted_pip_commands_produce_the_planned_versions() {
    let world = BlockerWorld::new();
    for (kind, expected) in [
        ("move-blockers", [("blocker", "2.0"), ("target", "2.0")]),
        ("forced-override", [("blocker", "1.0"), ("target", "2.0")]),
    ] {
        let venv = world.venv(kind);
        let (plan, dir) = world.written_plan(&venv, kind);
        let mut cmd = Command::new("bash");
        if kind == "move-blockers" {
            cmd.arg(dir.join("install-pip.sh"));
        } else {
            // The forced target goes in with --force-reinstall --no-deps.
            let section = world.pasted_pip_commands(&venv, kind);
            world
                .ctx
                .insta_settings()
                .bind(|| insta::assert_snapshot!("forced_override_pip_commands", section));
            cmd.args(["-euo", "pipefail", "-c", &section]);
        }
        let out = cmd
            .env("PIP_NO_CACHE_DIR", "1")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .output()
            .unwrap();
        let installed = assert_installed(&venv, &out, kind, &expected);
        assert_every_change_landed(&installed, &plan, kind);
        let report = world.ctx.dir.path().join(format!("verify-{kind}.json"));
        assert_verify_script_passes(&venv, &dir, &report, kind);
        if kind == "forced-override" {
            assert_check_accepts_the_forced_edge_with_the_plan(&world.ctx, &venv, &dir);
        }
        assert_verify_script_fails_when_reverted(&venv, &dir, &world.server.url());
    }
}

/// The same plans carried out by the uv script, when `uv` is on PATH (it is not a test
/// dependency; `pip install uv` provides it).
#[test]
fn emitted_uv_commands_produce_the_planned_versions() {
    // uv is not a test dependency (CI may lack it): without it the test says so and stops.
    if !Command::new("uv")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success())
    {
        skip(
            "emitted_uv_commands_produce_the_planned_versions",
            "uv not on PATH",
        );
        return;
    }
    let world = BlockerWorld::new();
    for (kind, expected) in [
        ("move-blockers", [("blocker", "2.0"), ("target", "2.0")]),
        ("forced-override", [("blocker", "1.0"), ("target", "2.0")]),
    ] {
        let venv = world.venv(kind);
        let (_, dir) = world.written_plan(&venv, kind);
        let out = Command::new("bash")
            .arg(dir.join("install-uv.sh"))
            .env("UV_CACHE_DIR", world.ctx.dir.path().join("uv-cache"))
            .env("UV_NO_CONFIG", "1")
            .output()
            .unwrap();
        assert_installed(&venv, &out, kind, &expected);
    }
}

fn pip(venv: &Path) -> Command {
    let mut cmd = Command::new(venv.join("bin/python"));
    cmd.args(["-m", "pip", "--disable-pip-version-check", "--no-cache-dir"]);
    cmd
}

/// Assert that an install command succeeded and left exactly the expected versions (and the
/// untouched `bystander` at 1.0); return what is installed for further checks.
fn assert_installed(
    venv: &Path,
    out: &std::process::Output,
    kind: &str,
    expected: &[(&str, &str)],
) -> std::collections::BTreeMap<String, String> {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let installed = installed_versions(venv);
    for (name, version) in expected {
        assert_eq!(
            installed.get(*name).map(String::as_str),
            Some(*version),
            "{kind}: {installed:?}"
        );
    }
    assert_eq!(installed.get("bystander").map(String::as_str), Some("1.0"));
    installed
}

fn installed_versions(venv: &Path) -> std::collections::BTreeMap<String, String> {
    let out = pip(venv)
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    let list = json(&String::from_utf8_lossy(&out.stdout));
    list.as_array()
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

/// A changed dist whose new wheel no longer installs a top-level module that an
/// installed dist imports is flagged in the plan (setuptools dropping `pkg_resources`), naming
/// the importer; the module it keeps is not. Real venv, real wheels served from a local index
/// folder (their file lists read from the zips).
/// A simple-index folder under `root/index` serving each `(project, wheel)`: a page per project
/// linking to its wheel under `files/`.
fn wheel_folder_index(root: &Path, wheels: &[(&str, &PathBuf)]) -> PathBuf {
    let index = root.join("index");
    for (project, wheel) in wheels {
        let file = wheel.file_name().unwrap().to_str().unwrap();
        let page = index.join("simple").join(project);
        std::fs::create_dir_all(&page).unwrap();
        std::fs::write(
            page.join("index.html"),
            format!("<html><body><a href=\"../../files/{file}\">{file}</a></body></html>\n"),
        )
        .unwrap();
        std::fs::create_dir_all(index.join("files")).unwrap();
        std::fs::copy(wheel, index.join("files").join(file)).unwrap();
    }
    index
}

#[test]
fn a_dropped_module_that_installed_dists_import_is_flagged() {
    let root = tempfile::tempdir().unwrap();
    let wheels = root.path().join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let old = [("fakesetup/__init__.py", ""), ("pkg_resx/__init__.py", "")];
    venv::build_wheel_with_files(&wheels, "fakesetup", "1.0", &[], &[], &old);
    let new = [("fakesetup/__init__.py", "")];
    let new_wheel = venv::build_wheel_with_files(&wheels, "fakesetup", "2.0", &[], &[], &new);
    let importer = [(
        "needs_pkgr/__init__.py",
        "try:\n    import pkg_resx\nexcept ImportError:\n    pass\n",
    )];
    let needs = venv::build_wheel_with_files(&wheels, "needs-pkgr", "1.0", &[], &[], &importer);
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    let links = wheels.display().to_string();
    venv.pip_ok(&[
        "install",
        "--no-deps",
        "--quiet",
        "--find-links",
        &links,
        "fakesetup==1.0",
        "needs-pkgr==1.0",
    ]);
    // The index: fakesetup 2.0 and needs-pkgr 1.0, as wheels in a simple-index folder.
    let index = wheel_folder_index(
        root.path(),
        &[("fakesetup", &new_wheel), ("needs-pkgr", &needs)],
    );
    let ctx = TestContext::new();
    let out = ctx.propose(
        &venv.path,
        index.join("simple").to_str().unwrap(),
        &["fakesetup", "--format", "json"],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let plan = &json["plans"][0];
    assert_eq!(plan["changes"][0]["to"], "2.0", "{}", out.stdout);
    let warnings: Vec<&str> = plan["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        [
            "fakesetup 2.0 no longer installs the module `pkg_resx` (1.0 did), which installed \
             dists import: needs-pkgr 1.0 (needs_pkgr/__init__.py)"
        ],
        "{}",
        out.stdout
    );
}

/// `import-target-missing` through the real path: the importers' `.py` files read
/// from a real venv, the new release's file list and one module of its wheel read by range
/// requests from the index. The shapes are the corpus's two real breaks: black 22.1.0's
/// `from click import _unicodefun` inside `try: ... except ModuleNotFoundError` (a missing
/// submodule raises ImportError there, which that handler does not catch), in a function its
/// console script runs, and Flask 1.1.2's
/// `from jinja2 import Markup`. A name the new release keeps, and an import guarded by
/// `except ImportError`, stay silent.
#[test]
fn an_import_the_new_release_breaks_is_a_risk_factor() {
    let root = tempfile::tempdir().unwrap();
    let wheels = root.path().join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let old = [
        (
            "clk/__init__.py",
            "from .core import style\nfrom ._markup import Markup, escape\n",
        ),
        ("clk/core.py", "def style(s):\n    return s\n"),
        (
            "clk/_markup.py",
            "class Markup(str):\n    pass\ndef escape(s):\n    return s\n",
        ),
        (
            "clk/_unicodefun.py",
            "def _verify_python_env():\n    pass\n",
        ),
    ];
    venv::build_wheel_with_files(&wheels, "clk", "1.0", &[], &[], &old);
    let new = [
        ("clk/__init__.py", "from .core import style\n"),
        ("clk/core.py", "def style(s):\n    return s\n"),
    ];
    let new_wheel = venv::build_wheel_with_files(&wheels, "clk", "1.1", &[], &[], &new);
    let importer = [
        (
            "blk/__init__.py",
            "from clk import style\n\ndef patch():\n    try:\n        from clk import core\n        \
             from clk import _unicodefun\n    except ModuleNotFoundError:\n        return\n",
        ),
        ("blk/web.py", "from clk import Markup\n"),
        (
            "blk/opt.py",
            "try:\n    from clk import escape\nexcept ImportError:\n    escape = None\n",
        ),
        // `patch()` runs when the `blk` script starts, as black's `patch_click()` does.
        (
            "blk-1.0.dist-info/entry_points.txt",
            "[console_scripts]\nblk = blk:patch\n",
        ),
    ];
    let blk = venv::build_wheel_with_files(&wheels, "blk", "1.0", &["clk>=1.0"], &[], &importer);
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    let links = wheels.display().to_string();
    venv.pip_ok(&[
        "install",
        "--no-deps",
        "--quiet",
        "--find-links",
        &links,
        "clk==1.0",
        "blk==1.0",
    ]);
    let index = wheel_folder_index(root.path(), &[("clk", &new_wheel), ("blk", &blk)]);
    let ctx = TestContext::new();
    let out = ctx.propose(
        &venv.path,
        index.join("simple").to_str().unwrap(),
        &["clk", "--format", "json"],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let plan = &json["plans"][0];
    assert_eq!(plan["changes"][0]["to"], "1.1", "{}", out.stdout);
    let factors: Vec<&serde_json::Value> = plan["risk"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "import-target-missing")
        .collect();
    assert_eq!(factors.len(), 1, "{}", out.stdout);
    assert_eq!(
        factors[0]["detail"],
        "blk 1.0 (blk/__init__.py, line 6) imports `_unicodefun` from `clk`, which clk 1.1 does \
         not have; blk 1.0 (blk/web.py, line 1) imports `Markup` from `clk`, which clk 1.1 does \
         not have; in the corpus, plans with this factor broke 29 of 29 times",
        "{}",
        out.stdout
    );
    assert_eq!(factors[0]["points"], 60);
}

/// A legacy egg-info dependent is read for its imports too. pip before 23.1 installed an sdist
/// with `setup.py install`: no `RECORD`, an `installed-files.txt` whose paths are relative to the
/// egg-info folder. Live (2026-12-06, pip 22.3.1, `--no-binary flask-login --no-use-pep517`):
/// `propose 'werkzeug>=3'` beside Flask-Login 0.6.2 installed so planned werkzeug 3.1.9 at risk
/// 46 with no word of `flask_login/utils.py` line 14, `from werkzeug.urls import url_decode`, and
/// `import flask_login` then failed. The same layout here ([`venv::install_egg_info`]).
#[test]
fn an_egg_info_dependent_is_read_for_its_imports() {
    let root = tempfile::tempdir().unwrap();
    let wheels = root.path().join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let old = [
        ("wz/__init__.py", ""),
        ("wz/urls.py", "def url_decode(s):\n    return s\n"),
    ];
    venv::build_wheel_with_files(&wheels, "wz", "2.0", &[], &[], &old);
    let new = [
        ("wz/__init__.py", ""),
        ("wz/urls.py", "def quote(s):\n    return s\n"),
    ];
    let new_wheel = venv::build_wheel_with_files(&wheels, "wz", "3.0", &[], &[], &new);
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    let links = wheels.display().to_string();
    venv.pip_ok(&[
        "install",
        "--no-deps",
        "--quiet",
        "--find-links",
        &links,
        "wz==2.0",
    ]);
    let utils =
        "import os\nfrom wz.urls import url_decode\n\ndef login():\n    return url_decode\n";
    let files = [
        ("login/__init__.py", "from .utils import login\n"),
        ("login/utils.py", utils),
    ];
    venv::install_egg_info(&venv.site_packages(), "Login", "0.6", &["wz>=1"], &files);
    let index = wheel_folder_index(root.path(), &[("wz", &new_wheel)]);
    let ctx = TestContext::new();
    let out = ctx.propose(
        &venv.path,
        index.join("simple").to_str().unwrap(),
        &["wz>=3", "--format", "json"],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let plan = &json["plans"][0];
    assert_eq!(plan["changes"][0]["to"], "3.0", "{}", out.stdout);
    let factors: Vec<&serde_json::Value> = plan["risk"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "import-target-missing")
        .collect();
    assert_eq!(factors.len(), 1, "{}", out.stdout);
    let detail = factors[0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(
            "login 0.6 (login/utils.py, line 2) imports `url_decode` from `wz.urls`, which wz 3.0 \
             does not have"
        ),
        "{detail}"
    );
}

/// An editable install's own sources are read for their imports: the project a user develops in
/// the venv is the dependent that matters most, and its files live outside site-packages. Live
/// (2026-12-06): `pip install -e` of a setuptools project whose `myapp/utils.py` line 1 imports
/// `url_decode` from `werkzeug.urls`, `propose 'werkzeug>=3'` planned werkzeug 3.1.9 at risk 13
/// (low) citing nothing, and `import myapp` then failed; the same with `uv pip install -e` of a
/// hatchling project (a `.pth` naming its `src` folder). Both layouts here, as those installers
/// wrote them ([`venv::install_editable`]). setuptools maps a top-level module by its path less
/// `.py` (`'flatmod': '/src/flat/flatmod'`, live with a flat layout and `uv pip install -e`).
#[test]
fn an_editable_projects_own_sources_are_read_for_their_imports() {
    let root = tempfile::tempdir().unwrap();
    let wheels = root.path().join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let old = [
        ("wz/__init__.py", ""),
        (
            "wz/urls.py",
            "def url_decode(s):\n    return s\n\n\ndef url_encode(s):\n    return s\n",
        ),
    ];
    venv::build_wheel_with_files(&wheels, "wz", "2.0", &[], &[], &old);
    let new = [
        ("wz/__init__.py", ""),
        ("wz/urls.py", "def quote(s):\n    return s\n"),
    ];
    let new_wheel = venv::build_wheel_with_files(&wheels, "wz", "3.0", &[], &[], &new);
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    let links = wheels.display().to_string();
    venv.pip_ok(&[
        "install",
        "--no-deps",
        "--quiet",
        "--find-links",
        &links,
        "wz==2.0",
    ]);
    let site = venv.site_packages();
    let uses = "import os\nfrom wz.urls import url_decode\n";
    let cli_uses = "import os\nfrom wz.urls import url_encode\n";
    for (name, how) in [
        ("myapp", venv::Editable::Finder),
        ("happ", venv::Editable::Pth),
    ] {
        let mut files = vec![
            (format!("{name}/__init__.py"), ""),
            (format!("{name}/codec.py"), uses),
        ];
        if let venv::Editable::Finder = how {
            files.push(("myapp_cli.py".to_string(), cli_uses));
        }
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
        let project = root.path().join(name);
        venv::install_editable(&site, &project, (name, "0.1"), &["wz>=1"], &files, how);
    }
    let index = wheel_folder_index(root.path(), &[("wz", &new_wheel)]);
    let ctx = TestContext::new();
    let out = ctx.propose(
        &venv.path,
        index.join("simple").to_str().unwrap(),
        &["wz>=3", "--format", "json"],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let plan = &out.json()["plans"][0];
    assert_eq!(plan["changes"][0]["to"], "3.0", "{}", out.stdout);
    let factors: Vec<&serde_json::Value> = (plan["risk"]["factors"].as_array().unwrap().iter())
        .filter(|f| f["kind"] == "import-target-missing")
        .collect();
    assert_eq!(factors.len(), 1, "{}", out.stdout);
    let detail = factors[0]["detail"].as_str().unwrap();
    let codec = |name: &str| {
        root.path()
            .join(name)
            .join("src")
            .join(name)
            .join("codec.py")
    };
    let cli = root.path().join("myapp/src/myapp_cli.py");
    let said = [
        ("happ", codec("happ"), "url_decode"),
        ("myapp", codec("myapp"), "url_decode"),
        ("myapp", cli, "url_encode"),
    ];
    for (name, file, used) in said {
        let said = format!(
            "{name} 0.1 ({}, line 2) imports `{used}` from `wz.urls`, which wz 3.0 does not have",
            file.display()
        );
        assert!(detail.contains(&said), "{said}\n{detail}");
    }
}

/// A module clash with both file lists known (a real venv's `RECORD`, the planned wheels' file
/// lists read from the index): benchy 2.0 swaps its `cpuinf` dependency for the fork `cpuinf2`,
/// which installs the same `cpuinf/` files as the installed cpuinf 1.0: a `module-clash`
/// factor and a warning naming both dists, the module and a file both install. The namespace
/// `ns/` that benchy 2.0's new `nsb` shares with the installed `nsa` (no file in common) is not a
/// clash.
#[test]
fn a_module_two_dists_would_ship_is_a_risk_factor() {
    let root = tempfile::tempdir().unwrap();
    let wheels = root.path().join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let cpuinf_files = [
        ("cpuinf/__init__.py", "from .core import info\n"),
        ("cpuinf/core.py", "def info():\n    return {}\n"),
    ];
    let cpuinf = venv::build_wheel_with_files(&wheels, "cpuinf", "1.0", &[], &[], &cpuinf_files);
    let cpuinf2 = venv::build_wheel_with_files(&wheels, "cpuinf2", "1.0", &[], &[], &cpuinf_files);
    let nsa =
        venv::build_wheel_with_files(&wheels, "nsa", "1.0", &[], &[], &[("ns/a/__init__.py", "")]);
    let nsb =
        venv::build_wheel_with_files(&wheels, "nsb", "1.0", &[], &[], &[("ns/b/__init__.py", "")]);
    let bench = [("benchy/__init__.py", "")];
    venv::build_wheel_with_files(&wheels, "benchy", "1.0", &["cpuinf"], &[], &bench);
    let benchy2 =
        venv::build_wheel_with_files(&wheels, "benchy", "2.0", &["cpuinf2", "nsb"], &[], &bench);
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    let links = wheels.display().to_string();
    venv.pip_ok(&[
        "install",
        "--no-deps",
        "--quiet",
        "--find-links",
        &links,
        "cpuinf==1.0",
        "nsa==1.0",
        "benchy==1.0",
    ]);
    let index = wheel_folder_index(
        root.path(),
        &[
            ("benchy", &benchy2),
            ("cpuinf", &cpuinf),
            ("cpuinf2", &cpuinf2),
            ("nsa", &nsa),
            ("nsb", &nsb),
        ],
    );
    let ctx = TestContext::new();
    let out = ctx.propose(
        &venv.path,
        index.join("simple").to_str().unwrap(),
        &["benchy", "--format", "json"],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let plan = &json["plans"][0];
    assert_eq!(plan["pins"]["cpuinf2"], "1.0", "{}", out.stdout);
    assert_eq!(plan["pins"]["nsb"], "1.0", "{}", out.stdout);
    let expected = "cpuinf2 1.0 and the installed cpuinf 1.0 both ship the module `cpuinf` \
                    (both install cpuinf/core.py): installed together, one overwrites the \
                    other's files and uninstalling either deletes them";
    let factors: Vec<&serde_json::Value> = plan["risk"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "module-clash")
        .collect();
    assert_eq!(factors.len(), 1, "{}", out.stdout);
    assert_eq!(factors[0]["package"], "cpuinf2");
    assert_eq!(factors[0]["detail"], expected);
    assert_eq!(factors[0]["points"], 40);
    assert_eq!(
        plan["warnings"],
        serde_json::json!([expected]),
        "{}",
        out.stdout
    );
}

/// What a release the plan moves back imports, checked against the planned
/// environment. tb 2.0 (a downgrade from 2.1) runs `import pkg_resx` at module level in
/// `tb/main.py`, which its `__init__.py` imports; no dist of the planned environment installs
/// `pkg_resx` (the tensorboard 2.20.0 / setuptools 84 `pkg_resources` shape): a
/// `planned-import-missing` factor naming the file and line. Its import of `thing` from
/// `numpyish` (installed by `numpy-ish-lib`, a name that does not say so, whose `__init__.py`
/// defines `thing`), its import of `vendored_mod` (shipped in its own `tb/_vendor/`, as
/// setuptools ships `more_itertools` and puts that folder on `sys.path`), its guarded and
/// in-function imports, and the standard library stay silent.
#[test]
fn an_import_the_planned_release_cannot_satisfy_is_a_risk_factor() {
    let root = tempfile::tempdir().unwrap();
    let wheels = root.path().join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let lib = venv::build_wheel_with_files(
        &wheels,
        "numpy-ish-lib",
        "1.0",
        &[],
        &[],
        &[("numpyish/__init__.py", "thing = 1\n")],
    );
    venv::build_wheel_with_files(&wheels, "tb", "2.1", &[], &[], &[("tb/__init__.py", "")]);
    let old = [
        (
            "tb/__init__.py",
            "from __future__ import annotations\nfrom tb import main\n",
        ),
        (
            "tb/main.py",
            "import os, sys\nimport pkg_resx\nfrom numpyish import thing\nfrom . import util\n\
             from vendored_mod import partition\n\
             try:\n    import optional_mod\nexcept ImportError:\n    optional_mod = None\n\n\
             def later():\n    import never_checked\n",
        ),
        ("tb/util.py", "import json\n"),
        (
            "tb/_vendor/vendored_mod/__init__.py",
            "def partition():\n    pass\n",
        ),
    ];
    let tb2 = venv::build_wheel_with_files(&wheels, "tb", "2.0", &[], &[], &old);
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    let links = wheels.display().to_string();
    venv.pip_ok(&[
        "install",
        "--no-deps",
        "--quiet",
        "--find-links",
        &links,
        "tb==2.1",
        "numpy-ish-lib==1.0",
    ]);
    let index = wheel_folder_index(root.path(), &[("tb", &tb2), ("numpy-ish-lib", &lib)]);
    let ctx = TestContext::new();
    let out = ctx.propose(
        &venv.path,
        index.join("simple").to_str().unwrap(),
        &["tb<2.1", "--format", "json"],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let plan = &json["plans"][0];
    assert_eq!(plan["pins"]["tb"], "2.0", "{}", out.stdout);
    let factors: Vec<&serde_json::Value> = plan["risk"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "planned-import-missing")
        .collect();
    assert_eq!(factors.len(), 1, "{}", out.stdout);
    assert_eq!(factors[0]["package"], "tb");
    assert_eq!(
        factors[0]["detail"],
        "tb 2.0 imports `pkg_resx` (tb/main.py, line 2), which no dist of the planned \
         environment installs"
    );
    assert_eq!(factors[0]["points"], 50);
}

/// An optional tool's imports are not a failure of the release: triton 3.6.0's `proton-viewer`
/// console script runs `triton/profiler/viewer.py`, whose line 4 imports pandas (declared only
/// under triton's `tutorials` extra) and line 11 numpy (only under `tests`), while `import
/// triton` imports neither. Added to a venv without them, triton is no `planned-import-missing`.
/// The real wheel's `entry_points.txt` and the first lines of `viewer.py`
/// (`testdata/imports/triton-3.6.0/`).
#[test]
fn a_console_scripts_import_of_an_extras_dist_is_no_planned_import_missing() {
    let root = tempfile::tempdir().unwrap();
    let wheels = root.path().join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let real = |path: &str| {
        std::fs::read_to_string(repo_root().join("testdata/imports/triton-3.6.0").join(path))
            .unwrap()
    };
    let viewer = real("triton/profiler/viewer.py");
    let entry_points = real("triton-3.6.0.dist-info/entry_points.txt");
    let triton = venv::build_wheel_with_files(
        &wheels,
        "triton",
        "3.6.0",
        &[
            "importlib-metadata; python_version < \"3.10\"",
            "numpy; extra == \"tests\"",
            "llnl-hatchet; extra == \"tests\"",
            "pandas; extra == \"tutorials\"",
        ],
        &["tests", "tutorials"],
        &[
            ("triton/__init__.py", "from . import language\n"),
            ("triton/language.py", "import os\n"),
            ("triton/profiler/__init__.py", ""),
            ("triton/profiler/viewer.py", &viewer),
            ("triton-3.6.0.dist-info/entry_points.txt", &entry_points),
        ],
    );
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    let index = wheel_folder_index(root.path(), &[("triton", &triton)]);
    let ctx = TestContext::new();
    let out = ctx.propose(
        &venv.path,
        index.join("simple").to_str().unwrap(),
        &["triton==3.6.0", "--format", "json"],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let plan = &json["plans"][0];
    assert_eq!(plan["pins"]["triton"], "3.6.0", "{}", out.stdout);
    let kinds: Vec<&serde_json::Value> = plan["risk"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["kind"])
        .collect();
    assert!(
        !kinds.iter().any(|k| *k == "planned-import-missing"),
        "{}",
        out.stdout
    );
}

/// A target with only sdists whose metadata is not static (flash-attn: every
/// release an sdist with `Metadata-Version: 2.1`): the hint says once that `--allow-build` reads
/// its requirements by a metadata build, and why one is needed.
#[test]
fn allow_build_hint_says_the_sdist_needs_a_metadata_build() {
    let root = tempfile::tempdir().unwrap();
    let index = root.path().join("index");
    let page = index.join("simple").join("fakeattn");
    std::fs::create_dir_all(&page).unwrap();
    std::fs::create_dir_all(index.join("files")).unwrap();
    let sdist = index.join("files").join("fakeattn-2.8.3.tar.gz");
    let script = r#"
import io, sys, tarfile
path = sys.argv[1]
pkg_info = b"Metadata-Version: 2.1\nName: fakeattn\nVersion: 2.8.3\n"
with tarfile.open(path, "w:gz") as tar:
    for name, data in [("fakeattn-2.8.3/PKG-INFO", pkg_info), ("fakeattn-2.8.3/setup.py", b"")]:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
"#;
    let status = std::process::Command::new("python3")
        .args(["-c", script, sdist.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(
        page.join("index.html"),
        "<html><body><a href=\"../../files/fakeattn-2.8.3.tar.gz\">fakeattn-2.8.3.tar.gz</a>\
         </body></html>\n",
    )
    .unwrap();
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    let ctx = TestContext::new();
    let out = ctx.propose(
        &venv.path,
        index.join("simple").to_str().unwrap(),
        &["fakeattn", "--format", "json"],
    );
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let hints: Vec<&str> = json["conflict"]["hints"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h.as_str())
        .collect();
    assert_eq!(hints.len(), 1, "{hints:?}");
    // `--allow-build` builds the sdist for its requirements: it has no static metadata.
    insta::assert_snapshot!("sdist_without_static_metadata_hint", hints[0]);
}

/// `--offline` with one cache entry cut short (7 of 20 `kill -9` trials left one)
/// exited 1 with `plans: []`, as if no plan existed; the docs say the tool failed (exit 2,
/// naming what is missing). A run online then repairs the entry.
#[test]
fn offline_with_a_cut_short_cache_entry_is_the_tool_failing() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let venv = canonical_venv().display().to_string();
    let url = server.url();
    let cache = ctx.cache().display().to_string();
    let args = |offline: bool| {
        let mut args = vec![
            "propose",
            "triton==3.7.0",
            "--allow-override",
            "--venv",
            &venv,
            "--index-url",
            &url,
            "--cache-dir",
            &cache,
            "--format",
            "json",
        ];
        if offline {
            args.push("--offline");
        }
        args
    };
    let out = ctx.run(&args(false));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // Cut short the cached metadata of the triton wheel every alternative needs (not the note
    // beside it that the server serves no wheel file for it).
    let entry = crate::common::files_under(&ctx.cache().join("v3/metadata"))
        .into_iter()
        .find(|f| {
            std::fs::read(f).is_ok_and(|b| {
                let text = String::from_utf8_lossy(&b);
                text.contains("files/triton-3.7.0-") && !text.contains("#not-served")
            })
        })
        .expect("a cached triton 3.7.0 entry");
    let bytes = std::fs::read(&entry).unwrap();
    std::fs::write(&entry, &bytes[..bytes.len() / 2]).unwrap();
    let out = ctx.run(&args(true));
    planner_snapshot!(ctx, out, @r#"
        exit_code: 2
        ----- stdout -----
        {
          "schema": "planner-error/1",
          "exit_code": 2,
          "message": "could not read `triton` from the index",
          "code": "planner::solve::index",
          "help": "run once without `--offline` to fill the cache (same --cache-dir)",
          "causes": [
            "offline: the metadata of triton-3.7.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl is not in the cache (http://127.0.0.1:[PORT]/files/triton-3.7.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl)"
          ]
        }

        ----- stderr -----
        planner::solve::index

          × could not read `triton` from the index
          ╰─▶ offline: the metadata of
              triton-3.7.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
              is not in the cache
              (http://127.0.0.1:[PORT]/files/triton-3.7.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl)
          help: run once without `--offline` to fill the cache (same --cache-dir)
        "#);
    // Online, the entry is fetched again; offline then works.
    assert_eq!(ctx.run(&args(false)).code, Some(0));
    let out = ctx.run(&args(true));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}

/// A venv whose path is not UTF-8 (`caf\xe9`, as a Latin-1 system names it). The
/// written install, rollback and verify scripts name its interpreter by those exact bytes (a
/// `$'...\xe9...'` word, not the lossy `caf\u{fffd}`, which names no file), and they run: the
/// install script with `--verify` reaches the planned versions and verify.py passes there, the
/// rollback script puts the old ones back.
#[test]
fn a_venv_at_a_non_utf8_path_gets_scripts_that_name_it_exactly() {
    let ctx = TestContext::new();
    let root = ctx.dir.path().join("index");
    let status = Command::new(venv::python3())
        .arg(repo_root().join("tests/it/propose_index.py"))
        .arg(&root)
        .status()
        .unwrap();
    assert!(status.success());
    let server = IndexServer::start(&root);
    let venv = venv_at_a_latin1_path(&ctx, &server.url());
    let dir = propose_move_blockers_at(&ctx, &venv, &server.url());
    // Each script's interpreter line, the path's Latin-1 byte written as `\xe9`.
    let mut defaults = Vec::new();
    for script in [
        "install-pip.sh",
        "install-uv.sh",
        "rollback-pip.sh",
        "rollback-uv.sh",
    ] {
        let text = std::fs::read_to_string(dir.join(script)).unwrap();
        assert!(!text.contains('\u{fffd}'), "{script}:\n{text}");
        let line = text.lines().find(|l| l.starts_with("PYTHON_DEFAULT="));
        defaults.push(format!("{script}: {}", line.unwrap_or("(none)")));
    }
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("latin1_venv_python_default", defaults.join("\n")));
    let run_script = |script: &str, args: &[&str]| {
        Command::new("bash")
            .arg(dir.join(script))
            .args(args)
            .env_remove("PLANNER_PYTHON")
            .env("PIP_NO_CACHE_DIR", "1")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .output()
            .unwrap()
    };
    let out = run_script("install-pip.sh", &["--verify"]);
    assert_installed(
        &venv,
        &out,
        "move-blockers",
        &[("blocker", "2.0"), ("target", "2.0")],
    );
    let report = json(&std::fs::read_to_string(dir.join("verify-report.json")).unwrap());
    assert_eq!(report["ok"], true, "{report:#}");
    let out = run_script("rollback-pip.sh", &[]);
    assert_installed(
        &venv,
        &out,
        "rollback",
        &[("blocker", "1.0"), ("target", "1.0")],
    );
}

/// A venv at `caf\xe9 venv` (Latin-1 bytes) holding target, blocker and bystander 1.0 from
/// `url`. `python3 -m venv` cannot write its activate scripts under a non-UTF-8 path (it
/// encodes them as UTF-8), so the venv is made beside it and moved there: `bin/python` and
/// site-packages follow the folder (Python finds them from pyvenv.cfg next to it).
fn venv_at_a_latin1_path(ctx: &TestContext, url: &str) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let venv = ctx
        .dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9 venv"));
    let made = ctx.dir.path().join("made-venv");
    let out = Command::new(venv::python3())
        .args(["-m", "venv"])
        .arg(&made)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&made, &venv).unwrap();
    let out = pip(&venv)
        .args([
            "install",
            "--index-url",
            url,
            "--only-binary",
            ":all:",
            "--",
        ])
        .args(["target==1.0", "blocker==1.0", "bystander==1.0"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    venv
}

/// `propose target==2.0 --out-dir` on `venv`: the move-blockers plan's folder.
fn propose_move_blockers_at(ctx: &TestContext, venv: &Path, url: &str) -> PathBuf {
    let out_dir = ctx.dir.path().join("out");
    let out = ctx
        .command()
        .args(["propose", "target==2.0", "--venv"])
        .arg(venv)
        .args(["--index-url", url, "--out-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_dir(out_dir.join("plans"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("-move-blockers"))
        .expect("a move-blockers plan")
}

/// A bare-name target whose newest release cannot be had is held back with the
/// real reason, as `resolve` gives it: `bad` 2.0's METADATA has an unreadable `Requires-Dist`;
/// `needy` 2.0 requires `helper>=2`, which no release offers. Was: "no single requirement
/// explains it" for both.
#[test]
fn a_held_back_target_says_why_its_newest_release_cannot_be_had() {
    let root = tempfile::tempdir().unwrap();
    let (venv, simple) = bad_and_needy_world(root.path());
    let mut ctx = TestContext::new();
    ctx.filter_host_python();
    let propose = |target: &str| {
        ctx.propose(
            &venv.path,
            simple.to_str().unwrap(),
            &[target, "--format", "json"],
        )
    };
    let held = |out: &crate::common::Output| -> String {
        assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
        let json = out.json();
        let held = &json["plans"][0]["held_back"][0];
        assert_eq!(held["newest"], "2.0", "{json:#}");
        held["unavailable"].as_str().unwrap_or_default().to_string()
    };
    let (bad, needy) = (held(&propose("bad")), held(&propose("needy")));
    ctx.insta_settings().bind(|| {
        insta::assert_snapshot!(bad, @"bad 2.0 has metadata that cannot be read (invalid metadata for bad-2.0-py3-none-any.whl (file://[TMP]/index/files/bad-2.0-py3-none-any.whl): invalid `Requires-Dist` value `not a valid requirement !!`: Expected one of `@`, `(`, `<`, `=`, `>`, `~`, `!`, `;`, found `a`)");
        insta::assert_snapshot!(needy, @"needy 2.0 cannot be installed here: Because only helper==1.0 is available and needy==2.0 depends on helper>=2, needy==2.0 cannot be used. And because you require needy==2.0, your requirements are unsatisfiable.");
    });
    let resolve = ctx.run(&[
        "resolve",
        "needy==2.0",
        "--index-url",
        simple.to_str().unwrap(),
        "--python-version",
        "3.12",
    ]);
    planner_snapshot!(ctx, resolve, @r#"
        exit_code: 1
        ----- stdout -----

        ----- stderr -----
        planner::solve::no_solution

          × No solution found when resolving the requirements:
          │   Because only helper==1.0 is available and needy==2.0 depends on helper>=2, needy==2.0 cannot be used.
          │   And because you require needy==2.0, your requirements are unsatisfiable.
        "#);
    // The text output says it on the held-back line.
    let text = ctx.propose(&venv.path, simple.to_str().unwrap(), &["needy"]);
    planner_snapshot!(ctx, text, @r#"
        exit_code: 0
        ----- stdout -----
        planner propose needy for [TMP]/venv (Python [HOST_PYTHON], linux x86_64, [N] dists)

        Plan 1 upgrade (recommended): As asked: needy
          risk 0/100 low (policy default)
          no changes: the environment already satisfies it
          held back: needy stays at 1.0 (newest 2.0): needy 2.0 cannot be installed here: Because only helper==1.0 is available and needy==2.0 depends on helper>=2, needy==2.0 cannot be used. And because you require needy==2.0, your requirements are unsatisfiable.
          (--out-dir DIR also writes constraints.txt for the whole environment, the plan file, install scripts and verify.py)

        ----- stderr -----
        "#);
}

/// Under `root`: a local index (`index/simple`, HTML pages) of bad 1.0 and 2.0 (2.0's METADATA
/// has an unreadable `Requires-Dist`), needy 1.0 and 2.0 (2.0 requires `helper>=2`) and helper
/// 1.0; a venv holding bad 1.0 and needy 1.0. Returns the venv and the `simple` folder.
fn bad_and_needy_world(root: &Path) -> (venv::RealVenv, PathBuf) {
    let wheels = root.join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let built = [
        ("bad", "1.0", vec![]),
        ("bad", "2.0", vec!["not a valid requirement !!"]),
        ("needy", "1.0", vec![]),
        ("needy", "2.0", vec!["helper>=2"]),
        ("helper", "1.0", vec![]),
    ];
    let index = root.join("index");
    std::fs::create_dir_all(index.join("files")).unwrap();
    let mut links: std::collections::BTreeMap<&str, String> = Default::default();
    for (name, version, requires) in &built {
        let wheel = venv::build_wheel(&wheels, name, version, requires, &[]);
        let file = wheel.file_name().unwrap().to_str().unwrap().to_string();
        std::fs::copy(&wheel, index.join("files").join(&file)).unwrap();
        links
            .entry(name)
            .or_default()
            .push_str(&format!("<a href=\"../../files/{file}\">{file}</a>\n"));
    }
    for (name, body) in &links {
        let page = index.join("simple").join(name);
        std::fs::create_dir_all(&page).unwrap();
        std::fs::write(
            page.join("index.html"),
            format!("<html><body>{body}</body></html>"),
        )
        .unwrap();
    }
    let venv = venv::RealVenv::create(&root.join("venv"));
    let find_links = wheels.display().to_string();
    venv.pip_ok(&[
        "install",
        "--no-deps",
        "--quiet",
        "--find-links",
        &find_links,
        "bad==1.0",
        "needy==1.0",
    ]);
    (venv, index.join("simple"))
}

/// A hostile index's `.metadata` file that does not match the sha512 the page advertises for
/// it (it injects `Requires-Dist: evilpkg`): the release is held back naming the mismatch, the
/// command names the index as suspect on stderr and exits 1. Was: held back silently, exit 0
/// (and before that, the injected dependency planned).
#[test]
fn a_release_failing_its_advertised_hash_is_held_back_and_the_run_exits_1() {
    use sha2::Digest;
    let root = tempfile::tempdir().unwrap();
    let wheels = root.path().join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let files = root.path().join("index/files");
    std::fs::create_dir_all(&files).unwrap();
    let mut links = String::new();
    for version in ["1.0", "2.0"] {
        let wheel = venv::build_wheel(&wheels, "demo", version, &[], &[]);
        let file = wheel.file_name().unwrap().to_str().unwrap().to_string();
        std::fs::copy(&wheel, files.join(&file)).unwrap();
        let honest = format!("Metadata-Version: 2.1\nName: demo\nVersion: {version}\n");
        let served = format!("{honest}Requires-Dist: evilpkg\n");
        std::fs::write(files.join(format!("{file}.metadata")), &served).unwrap();
        let advertised: String = sha2::Sha512::digest(honest.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let attribute = if version == "2.0" {
            format!(" data-core-metadata=\"sha512={advertised}\"")
        } else {
            String::new()
        };
        links.push_str(&format!(
            "<a href=\"../../files/{file}\"{attribute}>{file}</a>\n"
        ));
    }
    let page = root.path().join("index/simple/demo");
    std::fs::create_dir_all(&page).unwrap();
    std::fs::write(
        page.join("index.html"),
        format!("<html><body>{links}</body></html>"),
    )
    .unwrap();
    let venv = venv::RealVenv::create(&root.path().join("venv"));
    let find_links = wheels.display().to_string();
    venv.pip_ok(&[
        "install",
        "--no-deps",
        "--quiet",
        "--find-links",
        &find_links,
        "demo==1.0",
    ]);
    let simple = root.path().join("index/simple");
    let mut ctx = TestContext::new();
    ctx.filter_host_python();
    let out = ctx.propose(
        &venv.path,
        simple.to_str().unwrap(),
        &["demo", "--format", "json"],
    );
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("evilpkg\""), "{}", out.stdout);
    let json = out.json();
    let held = json["plans"][0]["held_back"][0]["unavailable"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let warnings = serde_json::to_string_pretty(&json["warnings"]).unwrap();
    ctx.insta_settings().bind(|| {
        insta::assert_snapshot!("injected_metadata_held_back", held);
        insta::assert_snapshot!("injected_metadata_warnings", warnings);
    });
}

/// `propose --all TARGET` was one unlayered plan that dropped the target: --all takes no
/// targets, and says so (exit 2, nothing on stdout).
#[test]
fn all_with_a_target_is_refused() {
    let ctx = TestContext::new();
    let venv = canonical_venv().display().to_string();
    let index = shipped_index();
    let run = ctx.run(&[
        "propose",
        "--all",
        "triton",
        "--venv",
        &venv,
        "--index-url",
        &index,
        "--offline",
    ]);
    planner_snapshot!(ctx, run);
}
