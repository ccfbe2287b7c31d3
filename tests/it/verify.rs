//! `planner verify`, `verify.py` and `install-*.sh --verify` on real venvs built here (no GPU):
//! a real forced downgrade whose dependents break at import, a hanging import, shadowed modules,
//! a pre-existing failure kept apart from regressions, and CUDA checks skipped without CUDA.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::index_server::IndexServer;
use crate::common::{Output, TestContext, run};
use crate::planner_snapshot;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn python3() -> PathBuf {
    crate::common::venv::python3().to_path_buf()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|err| panic!("not JSON ({err}):\n{text}"))
}

/// pip of a venv, with no configuration from the host.
fn pip(venv: &Path) -> Command {
    let mut cmd = Command::new(venv.join("bin/python"));
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("PIP_") {
            cmd.env_remove(&key);
        }
    }
    cmd.args(["-m", "pip", "--disable-pip-version-check", "--no-input"])
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("PIP_NO_CACHE_DIR", "1");
    cmd
}

/// A loopback index of `synthetic` wheels (see `verify_world.py`) plus real ones from
/// `testdata/verify/wheels`, and a venv with `install` installed from it.
struct World {
    ctx: TestContext,
    server: IndexServer,
    venv: PathBuf,
}

impl World {
    fn new(synthetic: serde_json::Value, real: &[&str], install: &[&str]) -> World {
        let mut ctx = TestContext::new();
        ctx.filter_host_python();
        // `--all` imports the venv's own pip (and setuptools, before Python 3.12) too.
        ctx.filter(r"\d+ checks: \d+ passed", "[N] checks: [N] passed");
        let root = ctx.dir.path().join("index");
        let spec = ctx.dir.path().join("wheels.json");
        std::fs::write(&spec, synthetic.to_string()).unwrap();
        let out = Command::new(python3())
            .arg(repo().join("tests/it/verify_world.py"))
            .arg(&root)
            .arg(&spec)
            .args(
                real.iter()
                    .map(|w| repo().join("testdata/verify/wheels").join(w)),
            )
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let server = IndexServer::start(&root);
        let venv = ctx.dir.path().join("venv");
        crate::common::venv::RealVenv::create(&venv);
        let out = pip(&venv)
            .args([
                "install",
                "--index-url",
                &server.url(),
                "--only-binary",
                ":all:",
                "--",
            ])
            .args(install)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        World { ctx, server, venv }
    }

    fn venv(&self) -> &str {
        self.venv.to_str().unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.ctx.run(args)
    }

    /// `verify --all --no-smoke --format json` on the venv, asserted to exit 1 (a check
    /// failed); its report.
    fn verify_all_failing(&self) -> serde_json::Value {
        let out = self.run(&[
            "verify",
            "--venv",
            self.venv(),
            "--all",
            "--no-smoke",
            "--format",
            "json",
        ]);
        let report = json(&out.stdout);
        assert_eq!(out.code, Some(1), "{report:#}");
        report
    }
}

fn check<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name}: {report:#}"))
}

fn failed<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["failed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == name)
        .unwrap_or_else(|| panic!("{name} is not among the failed: {:#}", report["failed"]))
}

/// The real break, and how it was found: typing-inspection 0.4.1 declares
/// `typing-extensions>=4.12.0`. Forcing typing-extensions 4.6.0 under it (planned with
/// `--allow-override`, installed by the plan's own `install-pip.sh`) passes the old verify.py:
/// the version landed, `import typing_extensions` and even `import typing_inspection` work, and
/// `pip check` reports only the accepted override. But `typing_inspection.typing_objects` (and
/// `.introspection`) do `from typing_extensions import ... TypeIs ...`, a name added in
/// typing-extensions 4.10: found by installing the two real wheels into a fresh venv and
/// importing each first-level module of typing_inspection. `app` (a dist built here that uses
/// typing_objects) is the dependent of the dependent, `legacy` was broken before any plan.
#[test]
fn a_forced_downgrade_breaks_dependents_and_verify_names_every_one() {
    let world = typing_inspection_world();
    // Nothing applied yet: a baseline and a comparison agree; legacy fails in both, so it is
    // pre-existing, not a regression (exit 0).
    let before = world.ctx.dir.path().join("all-before.json");
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--baseline",
        before.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--compare",
        before.to_str().unwrap(),
    ]);
    planner_snapshot!(world.ctx, out, @r#"
        exit_code: 0
        ----- stdout -----
        verify the environment, --all with [TMP]/venv/bin/python3 (Python [HOST_PYTHON]) [after, compared with the baseline]
        failing before too (not blamed on the plan):
          FAIL import:legacy (legacy): RuntimeError: legacy was broken before any plan
        compile caches: private: fresh empty folders for each run, removed afterwards (inductor, Triton, JAX, CuPy; --warm-caches keeps yours)
        below the top level: 2 module(s) imported within the 30 s budget
        [N] checks: [N] passed, 1 failed, 0 skipped; 0 regression(s), 1 failing before in [TIME]: ok

        ----- stderr -----
        "#);

    // The forced plan, written and applied by its own script with --verify.
    let (dir, stderr) = apply_forced_downgrade(&world);
    let report = json(&std::fs::read_to_string(dir.join("verify-report.json")).unwrap());
    assert_eq!(report["mode"], "compare");
    assert_eq!(report["ok"], false);
    assert_forced_report(&report, &stderr);

    // planner verify says the same, as text and JSON.
    let plan = dir.join("plan.json");
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--plan",
        plan.to_str().unwrap(),
    ]);
    planner_snapshot!(world.ctx, out, @r#"
        exit_code: 1
        ----- stdout -----
        verify plan forced-override (Force typing-extensions==4.6.0 over typing-inspection 0.4.1's `typing-extensions>=4.12.0`) with [TMP]/venv/bin/python3 (Python [HOST_PYTHON]) [after, compared with the baseline]
        regressions (passed before):
          FAIL import:app (app): ImportError: cannot import name 'TypeIs' from 'typing_extensions' ([TMP]/venv/lib/python[HOST_PY]/site-packages/typing_extensions.py)
          FAIL import:typing_inspection.introspection (typing-inspection): ImportError: cannot import name 'TypeIs' from 'typing_extensions' ([TMP]/venv/lib/python[HOST_PY]/site-packages/typing_extensions.py)
          FAIL import:typing_inspection.typing_objects (typing-inspection): ImportError: cannot import name 'TypeIs' from 'typing_extensions' ([TMP]/venv/lib/python[HOST_PY]/site-packages/typing_extensions.py)
        failing before too (not blamed on the plan):
          FAIL import:legacy (legacy): RuntimeError: legacy was broken before any plan
        compared with the baseline recorded before the change ([TMP]/plan/plans/1-forced-override/verify-baseline.json)
        compile caches: private: fresh empty folders for each run, removed afterwards (inductor, Triton, JAX, CuPy; --warm-caches keeps yours)
        [N] checks: [N] passed, 4 failed, 0 skipped; 3 regression(s), 1 failing before in [TIME]: FAILED

        ----- stderr -----
        "#);

    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--plan",
        plan.to_str().unwrap(),
        "--format",
        "json",
        "--compare",
        dir.join("verify-baseline.json").to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let report = json(&out.stdout);
    assert_eq!(report["schema"], "planner-verify/2");
    assert_eq!(report["summary"]["regressions"], 3);

    assert_only_the_version_fails_once_put_back(&world, &plan);
}

/// typing-extensions 4.14.1 and typing-inspection 0.4.1 (the real wheels), `app` (uses
/// typing_inspection.typing_objects), `legacy` (broken before any plan) and a bystander,
/// installed; typing-extensions 4.6.0 on the index.
fn typing_inspection_world() -> World {
    World::new(
        serde_json::json!([
            {"name": "app", "version": "1.0", "requires": ["typing-inspection"],
             "files": {"app/__init__.py": "from typing_inspection import typing_objects\n"}},
            {"name": "legacy", "version": "1.0", "requires": ["typing-extensions"],
             "files": {"legacy/__init__.py": "raise RuntimeError('legacy was broken before any plan')\n"}},
            {"name": "bystander", "version": "1.0", "files": {"bystander/__init__.py": ""}},
        ]),
        &[
            "typing_extensions-4.6.0-py3-none-any.whl",
            "typing_extensions-4.14.1-py3-none-any.whl",
            "typing_inspection-0.4.1-py3-none-any.whl",
        ],
        &[
            "typing-extensions==4.14.1",
            "typing-inspection==0.4.1",
            "app",
            "legacy",
            "bystander",
        ],
    )
}

/// The script's report on the forced downgrade: the version landed and pip check accepts
/// exactly the plan's override (what the old script checked, and passed); every broken import
/// is a regression with its reason; legacy is pre-existing; the bystander is not imported.
fn assert_forced_report(report: &serde_json::Value, stderr: &str) {
    // The version landed and pip check accepts exactly the plan's override: what the old
    // script checked, and passed.
    assert_eq!(check(report, "version:typing-extensions")["status"], "pass");
    let pip_check = check(report, "pip-check");
    assert_eq!(pip_check["status"], "pass", "{pip_check}");
    assert_eq!(pip_check["accepted"].as_array().unwrap().len(), 1);
    assert_eq!(check(report, "import:typing_inspection")["status"], "pass");
    assert_every_broken_import_named(report, stderr);
    assert_eq!(check(report, "import:app")["why"], "dependent");
    assert_eq!(
        check(report, "import:typing_inspection.typing_objects")["why"],
        "overridden-dependent"
    );
    assert_eq!(failed(report, "import:legacy")["regression"], false);
    assert_eq!(
        report["summary"]["regressions"], 3,
        "{:#}",
        report["failed"]
    );
    assert_eq!(report["summary"]["pre_existing"], 1);
    assert!(
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["name"] != "import:bystander")
    );
}

/// Back to 4.14.1: the same plan's check now fails on the version only, and the imports pass.
fn assert_only_the_version_fails_once_put_back(world: &World, plan: &Path) {
    let out = pip(&world.venv)
        .args([
            "install",
            "--index-url",
            &world.server.url(),
            "--",
            "typing-extensions==4.14.1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--plan",
        plan.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let report = json(&out.stdout);
    let names: Vec<&str> = report["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["check"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["version:typing-extensions", "import:legacy"],
        "{:#}",
        report["failed"]
    );
}

/// The forced plan of `typing-extensions==4.6.0`, written by `propose --out-dir` and applied
/// by its own pip script with `--verify` (which exits 1: the plan regressed). Returns the plan
/// folder and the script's stderr.
fn apply_forced_downgrade(world: &World) -> (PathBuf, String) {
    let out_dir = world.ctx.dir.path().join("plan");
    let out = world.ctx.propose(
        &world.venv,
        &world.server.url(),
        &[
            "typing-extensions==4.6.0",
            "--allow-override",
            "--out-dir",
            out_dir.to_str().unwrap(),
            "--format",
            "json",
        ],
    );

    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let proposal = json(&out.stdout);
    let (i, _) = proposal["plans"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .find(|(_, p)| p["kind"] == "forced-override")
        .unwrap_or_else(|| panic!("no forced plan: {}", out.stdout));
    let dir = out_dir
        .join("plans")
        .join(format!("{}-forced-override", i + 1));
    let out = Command::new("bash")
        .arg(dir.join("install-pip.sh"))
        .arg("--verify")
        .env("PIP_NO_CACHE_DIR", "1")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .current_dir(world.ctx.dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    (dir, stderr.into_owned())
}

/// Every broken import is named in the report, with its package and last error line, as a
/// regression, and on the script's stderr.
fn assert_every_broken_import_named(report: &serde_json::Value, stderr: &str) {
    for (name, package) in [
        (
            "import:typing_inspection.typing_objects",
            "typing-inspection",
        ),
        (
            "import:typing_inspection.introspection",
            "typing-inspection",
        ),
        ("import:app", "app"),
    ] {
        let f = failed(report, name);
        assert_eq!(f["package"], package, "{f}");
        assert_eq!(f["regression"], true, "{f}");
        assert!(
            f["error"]
                .as_str()
                .unwrap()
                .contains("cannot import name 'TypeIs'"),
            "{f}"
        );
        assert!(stderr.contains(&format!("FAIL {name}")), "{stderr}");
    }
}

/// A user's policy under `dir/policy` with smoke tests of `gadget`: one needing CUDA, one
/// that passes, one that fails, one that skips itself (exit 77), and one for a package that is
/// not installed. Returns the policy file.
fn smoke_policy(dir: &Path) -> PathBuf {
    let policy_dir = dir.join("policy");
    std::fs::create_dir_all(policy_dir.join("checks")).unwrap();
    for (file, code) in [
        ("gpu.py", "print('ran on a GPU')\n"),
        ("cpu.py", "import gadget\nprint('gadget works')\n"),
        ("broken.py", "raise SystemExit('gadget is broken')\n"),
        (
            "skip.py",
            "import sys\nprint('nothing to test here')\nsys.exit(77)\n",
        ),
    ] {
        std::fs::write(policy_dir.join("checks").join(file), code).unwrap();
    }
    let mut toml = String::new();
    for (name, file, hardware) in [
        ("gadget-gpu", "gpu.py", "cuda"),
        ("gadget-cpu", "cpu.py", "none"),
        ("gadget-broken", "broken.py", "none"),
        ("gadget-skip", "skip.py", "none"),
        ("absent-gpu", "gpu.py", "none"),
    ] {
        let package = if name == "absent-gpu" {
            "not-installed"
        } else {
            "gadget"
        };
        toml.push_str(&format!("[[smoke]]\nname = \"{name}\"\npackage = \"{package}\"\ncheck = \"checks/{file}\"\nhardware = \"{hardware}\"\ntimeout = 30\n\n"));
    }
    let policy = policy_dir.join("policy.toml");
    std::fs::write(&policy, toml).unwrap();
    policy
}

/// `--all`: a hanging import times out and the run goes on; a module in the working directory
/// and two dists shipping one top-level name fail naming both paths; identical namespace stubs
/// (`nvidia/__init__.py`) shipped by several dists do not; smoke tests from a user's policy: a CUDA check is skipped
/// without CUDA (never passed), a failing check names its error.
#[test]
fn verify_all_reports_hangs_shadowed_modules_and_smoke_tests() {
    let world = World::new(
        serde_json::json!([
            {"name": "sleepy", "version": "1.0", "files": {"sleepy/__init__.py": "import time\ntime.sleep(600)\n"}},
            {"name": "alpha", "version": "1.0", "files": {"alpha/__init__.py": "X = 1\n"}},
            {"name": "triton", "version": "3.6.0", "files": {"triton/__init__.py": "WHO = 'triton'\n"}},
            {"name": "pytorch-triton", "version": "3.6.0", "files": {"triton/__init__.py": "WHO = 'pytorch-triton'\n"}},
            {"name": "nvidia-a", "version": "1.0", "files": {"nvidia/__init__.py": "", "nvidia/a/__init__.py": ""}},
            {"name": "nvidia-b", "version": "1.0", "files": {"nvidia/__init__.py": "", "nvidia/b/__init__.py": ""}},
            {"name": "gadget", "version": "1.0", "files": {"gadget/__init__.py": "", "gadget/_private.py": "raise ImportError('private')\n", "gadget/tests/__init__.py": "raise ImportError('tests')\n"}},
        ]),
        &[],
        &[
            "sleepy",
            "alpha",
            "triton",
            "pytorch-triton",
            "nvidia-a",
            "nvidia-b",
            "gadget",
        ],
    );
    let policy = smoke_policy(world.ctx.dir.path());
    // A stray module in the working directory.
    std::fs::write(world.ctx.dir.path().join("alpha.py"), "X = 'stray'\n").unwrap();

    let start = std::time::Instant::now();
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--policy",
        policy.to_str().unwrap(),
        "--timeout",
        "5",
        "--format",
        "json",
    ]);
    assert!(start.elapsed().as_secs() < 60, "{:?}", start.elapsed());
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    let report = json(&out.stdout);
    assert_hang_and_shadows_named(&report, &world.ctx.dir.path().join("alpha.py"));
    assert_smoke_tests_and_stubs(&report);

    // The text report names each failure with its package and skips as skips.
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--policy",
        policy.to_str().unwrap(),
        "--timeout",
        "5",
        "--no-smoke",
    ]);
    planner_snapshot!(world.ctx, out, @r#"
        exit_code: 1
        ----- stdout -----
        verify the environment, --all with [TMP]/venv/bin/python3 (Python [HOST_PYTHON])
        failed:
          FAIL import:alpha (alpha): shadowed: resolves to [TMP]/alpha.py, listed in no installed dist's RECORD; alpha installs it at [TMP]/venv/lib/python[HOST_PY]/site-packages/alpha/__init__.py
          FAIL import:sleepy (sleepy): timed out after [TIME] (the import hangs)
          FAIL import:triton (pytorch-triton): shadowed: [TMP]/venv/lib/python[HOST_PY]/site-packages/triton/__init__.py is shipped by pytorch-triton ([TMP]/venv/lib/python[HOST_PY]/site-packages/pytorch_triton-3.6.0.dist-info) and by triton ([TMP]/venv/lib/python[HOST_PY]/site-packages/triton-3.6.0.dist-info) with different contents
        3 failure(s) could not be compared with a baseline (none was recorded before the change): they may have failed before too
        compile caches: private: fresh empty folders for each run, removed afterwards (inductor, Triton, JAX, CuPy; --warm-caches keeps yours)
        below the top level: 0 module(s) imported within the 30 s budget
        [N] checks: [N] passed, 3 failed, 0 skipped in [TIME]: FAILED

        ----- stderr -----
        "#);
}

/// The hanging import timed out; the stray `alpha.py` and the two dists shipping `triton`
/// are named with both paths.
fn assert_hang_and_shadows_named(report: &serde_json::Value, stray: &Path) {
    let sleepy = failed(report, "import:sleepy");
    assert!(
        sleepy["error"]
            .as_str()
            .unwrap()
            .contains("timed out after 5s"),
        "{sleepy}"
    );
    let alpha = failed(report, "import:alpha")["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        alpha.contains(&format!("resolves to {}", stray.display())),
        "{alpha}"
    );
    assert!(alpha.contains("alpha/__init__.py"), "{alpha}");
    let triton = failed(report, "import:triton")["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        triton.contains("triton/__init__.py is shipped by"),
        "{triton}"
    );
    assert!(
        triton.contains("pytorch-triton") && triton.contains("triton-3.6.0.dist-info"),
        "{triton}"
    );
}

/// Identical namespace stubs pass, private and test modules are not imported, and each smoke
/// test has its verdict (a CUDA check skipped without a device, never passed).
fn assert_smoke_tests_and_stubs(report: &serde_json::Value) {
    for ok in ["import:nvidia", "import:gadget", "smoke:gadget-cpu"] {
        assert_eq!(check(report, ok)["status"], "pass", "{}", check(report, ok));
    }
    assert!(
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["name"] != "import:gadget.tests" && c["name"] != "import:gadget._private")
    );
    // Without a CUDA device the driver probe says so, and the CUDA check is skipped, not passed.
    let gpu = check(report, "smoke:gadget-gpu");
    if report["cuda"]["devices"] == 0 {
        assert_eq!(gpu["status"], "skip", "{gpu}");
        assert!(
            gpu["detail"]
                .as_str()
                .unwrap()
                .starts_with("needs a CUDA device"),
            "{gpu}"
        );
    } else {
        assert_eq!(gpu["status"], "pass", "{gpu}");
    }
    assert_eq!(
        failed(report, "smoke:gadget-broken")["error"],
        "gadget is broken"
    );
    assert_eq!(
        check(report, "smoke:gadget-skip")["detail"],
        "nothing to test here"
    );
    assert!(
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["name"] != "smoke:absent-gpu")
    );
    assert_eq!(
        report["failed"].as_array().unwrap().len(),
        4,
        "{:#}",
        report["failed"]
    );
}

#[test]
fn verify_explains_bad_input() {
    let ctx = TestContext::new();
    let out = ctx.run(&["verify", "--venv", "/nonexistent/venv", "--all"]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::inventory::not_found

          × the environment `/nonexistent/venv` does not exist
          help: pass the folder of a virtual environment (the one holding
                `pyvenv.cfg`) with --venv
        "#);
    let out = ctx.run(&["verify", "--venv", "/nonexistent/venv"]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        error: the following required arguments were not provided:
          <--plan <FILE>|--all>

        Usage: planner verify --venv <PATH> <--plan <FILE>|--all>

        For more information, try '--help'.
        "#);
    let bad = ctx.dir.path().join("plan.json");
    std::fs::write(&bad, "{\"schema\": \"planner-proposal/1\"}").unwrap();
    let out = ctx.run(&["verify", "--plan", bad.to_str().unwrap()]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
          × `[TMP]/plan.json` is a proposal with several plans, not a plan
          │ file
          help: accept one plan: pass DIR/plans/<n>-<kind>/plan.json from `planner
                propose --out-dir DIR`
        "#);
    // A venv whose interpreter does not run (the canonical test venv has none).
    let canonical = repo().join("testdata/venvs/canonical");
    let out = ctx.run(&["verify", "--venv", canonical.to_str().unwrap(), "--all"]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
          × the environment has no interpreter that answers
          help: verify runs the environment's own interpreter: pass --venv DIR with a
                working bin/python, or --python PATH
        "#);
}

/// The venv of a break below the imported modules (celery 5.2.7 under billiard 4: `import
/// celery.concurrency` works, `celery/concurrency/asynpool.py` does `from billiard.compat import
/// buf_t`, gone in billiard 4): `worker` 1.0 requires `lib<2`, and only `worker/pool/fast.py`,
/// two levels down, imports the name lib 2.0 dropped.
fn deep_break_world() -> World {
    World::new(
        serde_json::json!([
            {"name": "lib", "version": "1.0",
             "files": {"lib/__init__.py": "", "lib/compat.py": "buf_t = 1\nother = 2\n"}},
            {"name": "lib", "version": "2.0",
             "files": {"lib/__init__.py": "", "lib/compat.py": "other = 2\n"}},
            {"name": "worker", "version": "1.0", "requires": ["lib<2"],
             "files": {"worker/__init__.py": "", "worker/pool/__init__.py": "",
                       "worker/pool/fast.py": "from lib.compat import buf_t\n",
                       "worker/pool/slow.py": "import lib\n"}},
        ]),
        &[],
        &["lib==1.0", "worker"],
    )
}

/// Runs a plan's verify.py with the venv's interpreter; returns (exit code, report).
fn run_script(world: &World, script: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = Command::new(world.venv.join("bin/python"))
        .arg(script)
        .args(args)
        .current_dir(world.ctx.dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    (out.status.code(), json(&stdout))
}

#[test]
fn a_break_two_levels_below_the_top_is_imported_and_fails_forked_or_not() {
    let world = deep_break_world();
    let script = propose_forced_lib_2(&world).join("verify.py");
    // Before the change every module imports, forked or not.
    for mode in [&[][..], &["--no-fork"][..]] {
        let (code, report) = run_script(&world, &script, &[&["--no-smoke"][..], mode].concat());
        assert_eq!(
            check(&report, "import:worker.pool.fast")["status"],
            "pass",
            "{report:#}"
        );
        assert_eq!(
            code,
            Some(1),
            "only the version check fails before: {report:#}"
        );
        assert_eq!(report["failed"].as_array().unwrap().len(), 1, "{report:#}");
    }
    // The forced install, as the plan's script does it.
    let out = pip(&world.venv)
        .args([
            "install",
            "--index-url",
            &world.server.url(),
            "--no-deps",
            "--",
            "lib==2.0",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_the_deep_import_fails_forked_or_not(&world, &script);
    // `planner verify --all` goes as deep, and says its budget.
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    let report = json(&out.stdout);
    failed(&report, "import:worker.pool.fast");
    assert_eq!(report["budget"]["seconds"], 30, "{:#}", report["budget"]);
    assert_eq!(report["budget"]["deep_left"], 0);
}

/// `verify --all` ends within its budget even when an import below the top level hangs: the
/// import still running when the budget ends is stopped and left out, not failed and not waited
/// for (`worker/pool/slow.py` imports lib, then sleeps ten minutes; the import timeout is two).
#[test]
fn a_deep_import_still_running_when_the_budget_ends_is_stopped_and_left_out() {
    let world = World::new(
        serde_json::json!([
            {"name": "lib", "version": "1.0", "files": {"lib/__init__.py": ""}},
            {"name": "worker", "version": "1.0", "requires": ["lib"],
             "files": {"worker/__init__.py": "", "worker/pool/__init__.py": "",
                       "worker/pool/fast.py": "import lib\n",
                       "worker/pool/slow.py": "import lib\nimport time\ntime.sleep(600)\n"}},
        ]),
        &[],
        &["lib", "worker"],
    );
    let budget = 8;
    let start = std::time::Instant::now();
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--no-smoke",
        "--budget",
        &budget.to_string(),
        "--timeout",
        "120",
        "--format",
        "json",
    ]);
    let took = start.elapsed().as_secs_f64();
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    // The whole command within the budget (a second more for a loaded machine's exit).
    assert!(took < f64::from(budget) + 1.0, "{took}");
    let report = json(&out.stdout);
    let spent = &report["budget"];
    assert_eq!(spent["deep_stopped"], 1, "{spent:#}");
    assert_eq!(spent["deep_left"], 1, "{spent:#}");
    assert_eq!(spent["left_out"], serde_json::json!(["worker.pool.slow"]));
    assert_eq!(check(&report, "import:worker.pool.fast")["status"], "pass");
    let names: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(!names.contains(&"import:worker.pool.slow"), "{names:?}");
    // The text says so.
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--no-smoke",
        "--budget",
        &budget.to_string(),
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(
            "1 left unchecked when it was spent, 1 of them stopped while importing \
             (--budget S for more)"
        ),
        "{}",
        out.stdout
    );
}

/// The same when the wait is the confirmation's: `worker/pool/zbad.py` fails through lib's
/// code, which the warm parent had imported (learned from `import:lib` and `worker.pool.fast`),
/// so the failure is confirmed in a pristine parent, which imports lib first; there lib's import
/// takes a minute. The command still ends within its budget, the failure left out, not waited for.
#[test]
fn a_confirmation_still_running_when_the_budget_ends_is_stopped_too() {
    let slow_in_pristine = "import sys, time\n\
        if '--pristine' in sys.argv:\n    time.sleep(60)\n\
        def boom():\n    raise RuntimeError('boom')\n";
    let world = World::new(
        serde_json::json!([
            {"name": "lib", "version": "1.0", "files": {"lib/__init__.py": slow_in_pristine}},
            {"name": "worker", "version": "1.0", "requires": ["lib"],
             "files": {"worker/__init__.py": "", "worker/pool/__init__.py": "",
                       "worker/pool/fast.py": "import lib\n",
                       "worker/pool/zbad.py": "import lib\nlib.boom()\n"}},
        ]),
        &[],
        &["lib", "worker"],
    );
    let budget = 10;
    let start = std::time::Instant::now();
    let out = crate::common::run(
        world
            .ctx
            .command()
            .env("PLANNER_VERIFY_PROFILE", "1")
            .args(["verify", "--venv", world.venv(), "--all", "--no-smoke"])
            .args(["--jobs", "1", "--budget", &budget.to_string()])
            .args(["--format", "json"]),
    );
    let took = start.elapsed().as_secs_f64();
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let report = json(&out.stdout);
    assert!(
        took < f64::from(budget) + 1.0,
        "{took}: {:#}\n{:#}",
        report["budget"],
        report["profile"]
    );
    let spent = &report["budget"];
    assert_eq!(spent["deep_stopped"], 1, "{spent:#}");
    assert_eq!(spent["left_out"], serde_json::json!(["worker.pool.zbad"]));
    assert_eq!(check(&report, "import:worker.pool.fast")["status"], "pass");
    // It was the pristine parent's import of lib that was not waited for.
    let phases = &report["profile"]["phases"];
    assert!(
        phases["confirmed in a pristine parent's child"]["count"] == 1,
        "{phases:#}"
    );
}

/// `propose lib==2.0 --allow-override --out-dir`: the forced plan, whose risk names the file
/// two levels down that imports what lib 2.0 dropped; its folder.
fn propose_forced_lib_2(world: &World) -> PathBuf {
    let out_dir = world.ctx.dir.path().join("plan");
    let out = world.run(&[
        "propose",
        "lib==2.0",
        "--allow-override",
        "--venv",
        world.venv(),
        "--index-url",
        &world.server.url(),
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let proposal = json(&out.stdout);
    let plans = proposal["plans"].as_array().unwrap();
    let i = plans
        .iter()
        .position(|p| p["kind"] == "forced-override")
        .unwrap_or_else(|| panic!("no forced plan: {}", out.stdout));
    let factors = plans[i]["risk"]["factors"].as_array().unwrap();
    assert!(
        factors.iter().any(|f| f["kind"] == "import-target-missing"
            && f["detail"]
                .as_str()
                .unwrap()
                .contains("worker/pool/fast.py")),
        "{factors:#?}"
    );
    out_dir
        .join("plans")
        .join(format!("{}-forced-override", i + 1))
}

/// After the forced install verify.py fails `worker.pool.fast` on the dropped name, citing lib,
/// and passes the modules above and beside it, forked and not.
fn assert_the_deep_import_fails_forked_or_not(world: &World, script: &Path) {
    for mode in [&[][..], &["--no-fork"][..]] {
        let (code, report) = run_script(world, script, &[&["--no-smoke"][..], mode].concat());
        assert_eq!(code, Some(1), "{report:#}");
        let fast = failed(&report, "import:worker.pool.fast");
        assert!(
            fast["error"]
                .as_str()
                .unwrap()
                .contains("cannot import name 'buf_t' from 'lib.compat'"),
            "{fast}"
        );
        let entry = check(&report, "import:worker.pool.fast");
        assert_eq!(entry["uses"], "lib", "{entry}");
        assert_eq!(entry["cited"], true, "{entry}");
        assert_eq!(check(&report, "import:worker.pool.slow")["status"], "pass");
        assert_eq!(check(&report, "import:worker")["status"], "pass");
        assert_eq!(
            report["fork"]["used"],
            mode.is_empty(),
            "{:#}",
            report["fork"]
        );
    }
}

/// False failures that are facts of the environment, not of the plan, on a real venv: a
/// submodule that needs a dist its dist declares only under an extra (`fastapi.templating`: "jinja2
/// must be installed", jinja2 being in fastapi's `all` extra), one for another platform
/// (`winreg`), next to one that needs a dist declared unconditionally and missing (a break:
/// still a failure). Before the change a plain verify.py records the baseline by itself; after it,
/// it compares with it by itself; without one it says what it could not compare.
#[test]
fn optional_and_platform_imports_skip_and_the_baseline_is_automatic() {
    let world = web_world_without_corelib();
    let dir = propose_web_upgrade(&world);
    let script = dir.join("verify.py");
    let baseline = dir.join("verify-baseline.json");
    assert_before_the_change_records_the_baseline(&world, &script, &baseline);
    assert_after_the_change_compares_with_the_baseline(&world, &script);
    // Back to half the change, then without a baseline a plain run says which failures it
    // could not compare.
    install_no_deps(&world, &["web==1.1"]);
    uninstall(&world, "corelib");
    std::fs::remove_file(&baseline).unwrap();
    assert_without_a_baseline_failures_are_uncompared(&world, &script, &dir.join("plan.json"));
}

/// web 1.0 installed, its submodules importing an optional dist (`tmpl`, extra `full`;
/// `httpclient`, extra `all`), a Windows module and `corelib`, which web requires and which
/// then goes missing (as a broken environment has it); web 1.1 on the index.
fn web_world_without_corelib() -> World {
    let files = serde_json::json!({
        "web/__init__.py": "",
        "web/templating.py": "try:\n    import tmpl\nexcept ModuleNotFoundError:\n    tmpl = None\nif tmpl is None:\n    raise ImportError('tmpl must be installed to use Templates')\n",
        "web/testclient.py": "import httpclient\n",
        "web/winstuff.py": "import winreg\n",
        "web/core_user.py": "import corelib\n",
    });
    let requires = serde_json::json!([
        "corelib",
        "tmpl ; extra == 'full'",
        "httpclient ; extra == 'all'"
    ]);
    let world = World::new(
        serde_json::json!([
            {"name": "web", "version": "1.0", "requires": requires, "files": files},
            {"name": "web", "version": "1.1", "requires": requires, "files": files},
            {"name": "corelib", "version": "1.0", "files": {"corelib/__init__.py": ""}},
        ]),
        &[],
        &["web==1.0"],
    );
    uninstall(&world, "corelib");
    world
}

/// `propose web==1.1 --out-dir`: the upgrade plan's folder.
fn propose_web_upgrade(world: &World) -> PathBuf {
    let out_dir = world.ctx.dir.path().join("plan");
    let out = world.run(&[
        "propose",
        "web==1.1",
        "--venv",
        world.venv(),
        "--index-url",
        &world.server.url(),
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(
        out.code == Some(0) || out.code == Some(1),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    out_dir.join("plans").join("1-upgrade")
}

fn uninstall(world: &World, name: &str) {
    let out = pip(&world.venv)
        .args(["uninstall", "--yes", name])
        .output()
        .unwrap();
    assert!(out.status.success());
}

fn install_no_deps(world: &World, pins: &[&str]) {
    let out = pip(&world.venv)
        .args([
            "install",
            "--index-url",
            &world.server.url(),
            "--no-deps",
            "--",
        ])
        .args(pins)
        .output()
        .unwrap();
    assert!(out.status.success());
}

/// Before the change a plain run records the baseline by itself: the optional and platform
/// imports skip, saying why; the missing required dist is a failure, never a skip.
fn assert_before_the_change_records_the_baseline(world: &World, script: &Path, baseline: &Path) {
    let (code, before) = run_script(world, script, &["--no-smoke"]);
    assert_eq!(code, Some(1), "the version has not landed: {before:#}");
    assert_eq!(
        before["baseline"]["recorded"], true,
        "{:#}",
        before["baseline"]
    );
    assert!(baseline.exists());
    for (name, detail) in [
        (
            "import:web.templating",
            "needs the optional `tmpl` (web declares it only under its extra full)",
        ),
        (
            "import:web.testclient",
            "needs the optional `httpclient` (web declares it only under its extra all)",
        ),
        (
            "import:web.winstuff",
            "`winreg` exists only on Windows (a module for another platform)",
        ),
    ] {
        let entry = check(&before, name);
        assert_eq!(entry["status"], "skip", "{entry}");
        assert_eq!(entry["detail"], detail, "{entry}");
    }
    let core = failed(&before, "import:web.core_user");
    assert!(
        core["error"]
            .as_str()
            .unwrap()
            .contains("No module named 'corelib'"),
        "{core}"
    );
}

/// Half the change (corelib, which the plan adds back, left out), then a plain run: compared
/// with the baseline by itself; the version that did not land is a regression even though it
/// failed in the baseline too, and the missing corelib failed before. The whole change: nothing
/// fails.
fn assert_after_the_change_compares_with_the_baseline(world: &World, script: &Path) {
    install_no_deps(world, &["web==1.1"]);
    let (code, after) = run_script(world, script, &["--no-smoke"]);
    assert_eq!(code, Some(1), "{after:#}");
    assert_eq!(after["mode"], "compare");
    assert_eq!(after["baseline"]["automatic"], true);
    assert_eq!(failed(&after, "version:corelib")["regression"], true);
    assert_eq!(failed(&after, "import:web.core_user")["regression"], false);
    // pip check names web 1.1 now (a line the baseline did not have).
    assert_eq!(failed(&after, "pip-check")["regression"], true);
    assert_eq!(after["summary"]["regressions"], 2, "{:#}", after["failed"]);
    install_no_deps(world, &["corelib==1.0"]);
    let (code, after) = run_script(world, script, &["--no-smoke"]);
    assert_eq!(code, Some(0), "{after:#}");
    assert_eq!(check(&after, "import:web.core_user")["status"], "pass");
    assert_eq!(check(&after, "import:web.templating")["status"], "skip");
}

/// With no baseline, verify.py and `planner verify --plan` say which failures they could not
/// compare.
fn assert_without_a_baseline_failures_are_uncompared(world: &World, script: &Path, plan: &Path) {
    let (code, plain) = run_script(world, script, &["--no-smoke"]);
    assert_eq!(code, Some(1), "{plain:#}");
    let uncompared: Vec<&str> = plain["uncompared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        uncompared,
        ["import:web.core_user", "pip-check"],
        "{plain:#}"
    );
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--plan",
        plan.to_str().unwrap(),
        "--no-smoke",
    ]);
    // The report says which failures it could not compare with a baseline.
    planner_snapshot!(world.ctx, "failures_without_a_baseline", out);
}

/// The corpus of live cases (`testdata/verify-cases`, rebuilt by `scripts/verify-cases` on real
/// venvs from the live index): every recorded case's verdict is the one reality gave, the checks
/// it exists for failed or skipped, and the forked and fresh-interpreter runs agreed. This proves
/// the recording; the mechanisms are tested on venvs built here (the other tests of this file).
#[test]
fn recorded_verify_cases_agree_with_reality() {
    let dir = repo().join("testdata/verify-cases");
    let cases = json(&std::fs::read_to_string(dir.join("cases.json")).unwrap());
    for case in cases.as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        let path = dir.join("recorded").join(format!("{id}.json"));
        let recorded = json(
            &std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{id}: no recording ({e}): run scripts/verify-cases")),
        );
        let expected = &case["expected"];
        assert_eq!(recorded["agrees"], true, "{id}: {:#}", recorded["problems"]);
        assert_eq!(recorded["after"]["ok"], expected["ok"], "{id}");
        assert_eq!(
            recorded["reality"]["exit"] == 0,
            expected["reality_works"].as_bool().unwrap(),
            "{id}: {:#}",
            recorded["reality"]
        );
        assert_eq!(recorded["before"]["mode"], "check", "{id}");
        assert_eq!(
            recorded["after"]["mode"], "compare",
            "{id}: compared by itself"
        );
        for name in expected["must_fail"].as_array().into_iter().flatten() {
            let name = name.as_str().unwrap();
            assert!(
                recorded["after"]["failed"].get(name).is_some(),
                "{id}: {name}"
            );
            assert!(
                recorded["after_no_fork"]["failed"].get(name).is_some(),
                "{id}: {name}"
            );
        }
        for name in expected["must_skip"].as_array().into_iter().flatten() {
            let name = name.as_str().unwrap();
            assert!(
                recorded["after"]["skipped"].get(name).is_some(),
                "{id}: {name}"
            );
        }
    }
}

/// A venv holding `reg` 1.0 with the shared registry modules and `files`, and the verify.py of
/// the plan that moves it to 1.1 (the same files): what fails there is the script's doing, never
/// the change's.
fn reg_upgrade_script(mut files: serde_json::Value) -> (World, std::path::PathBuf) {
    // The registry every case shares: `reg.a` registers `x`, which `reg.b` and `reg.c` import.
    let shared = serde_json::json!({
        "reg/__init__.py": "SEEN = set()\ndef register(name):\n    if name in SEEN:\n        raise ValueError('duplicate registration of ' + name)\n    SEEN.add(name)\n",
        "reg/a.py": "import reg\nreg.register('x')\n",
        "reg/b.py": "import reg.a\n",
        "reg/c.py": "import reg.a\n",
    });
    files
        .as_object_mut()
        .unwrap()
        .extend(shared.as_object().unwrap().clone());
    let world = World::new(
        serde_json::json!([
            {"name": "reg", "version": "1.0", "files": files},
            {"name": "reg", "version": "1.1", "files": files},
        ]),
        &[],
        &["reg==1.0"],
    );
    let out_dir = world.ctx.dir.path().join("plan");
    let out = world.run(&[
        "propose",
        "reg==1.1",
        "--venv",
        world.venv(),
        "--index-url",
        &world.server.url(),
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let script = out_dir.join("plans").join("1-upgrade").join("verify.py");
    (world, script)
}

/// The warm parent learns what two children imported, and such a module can leave state behind
/// that a fresh interpreter would not have: here a registry that refuses a second registration
/// (`reg.a` registers `x`; so does `reg.d`, a copy as a stray `build/lib` folder ships one). Forked
/// after the parent learned `reg.a`, `reg.d` fails inside the parent's code; that failure is
/// imported again fresh, where it passes, and the fresh verdict is the one reported: fork and
/// `--no-fork` give the same verdicts.
#[test]
fn a_failure_the_warm_parent_caused_is_confirmed_fresh() {
    let files = serde_json::json!({
        "reg/d.py": "import reg\nreg.register('x')\n",
        "reg/e.py": "import reg.missing_module\n",
    });
    let (world, script) = reg_upgrade_script(files);
    let mut verdicts = Vec::new();
    for mode in [&["--batch", "1"][..], &[][..], &["--no-fork"][..]] {
        let args = [&["--no-smoke", "--plain", "--jobs", "1"][..], mode].concat();
        let (code, report) = run_script(&world, &script, &args);
        assert_eq!(code, Some(1), "{report:#}");
        let d = check(&report, "import:reg.d");
        assert_eq!(d["status"], "pass", "{d}");
        // A real break still fails, and is not re-imported fresh (its traceback is its own).
        assert!(
            failed(&report, "import:reg.e")["error"]
                .as_str()
                .unwrap()
                .contains("No module named 'reg.missing_module'")
        );
        if mode.is_empty() {
            // In one batch, reg.d fails after reg.a registered `x`: imported again alone, it passes.
            assert!(
                d["detail"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("failed when imported after other modules in one child"),
                "{d}"
            );
        }
        if mode == ["--batch", "1"] {
            assert!(
                d["detail"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("duplicate registration of x"),
                "{d}"
            );
            assert_eq!(report["fork"]["fresh"], 1, "{:#}", report["fork"]);
            assert!(report["fork"]["learned"].as_u64().unwrap() >= 1);
        }
        let names: Vec<(String, String)> = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["name"].to_string(), c["status"].to_string()))
            .collect();
        verdicts.push(names);
    }
    assert_eq!(verdicts[0], verdicts[1]);
}

/// A failure inside code the warm parent had imported (`reg.f` registers `y` twice, and
/// `register` lives in `reg/__init__.py`, which the parent learned) is not the parent's doing, but
/// the forked child cannot tell. It is imported again in a child of a pristine parent, one that
/// never learned `reg`: the same error, raised in code that child imported itself, is the verdict,
/// and no fresh interpreter is started. All three modes agree.
#[test]
fn a_failure_in_code_the_warm_parent_imported_is_confirmed_in_a_pristine_child_not_fresh() {
    let files = serde_json::json!({
        "reg/f.py": "import reg\nreg.register('y')\nreg.register('y')\n",
    });
    let (world, script) = reg_upgrade_script(files);
    let mut shown = String::new();
    for mode in [&["--batch", "1"][..], &[][..], &["--no-fork"][..]] {
        let args = [&["--no-smoke", "--plain", "--jobs", "1"][..], mode].concat();
        let (code, report) = run_script(&world, &script, &args);
        assert_eq!(code, Some(1), "{report:#}");
        let fork = &report["fork"];
        shown.push_str(&format!(
            "{:?}: reg.f {} ({}); fresh interpreters {}, confirmed in a pristine child {}\n",
            mode,
            check(&report, "import:reg.f")["status"],
            failed(&report, "import:reg.f")["error"],
            fork["fresh"],
            fork["confirmed_pristine"].as_u64().unwrap_or(0),
        ));
    }
    insta::assert_snapshot!(shown, @r#"
        ["--batch", "1"]: reg.f "fail" ("ValueError: duplicate registration of y"); fresh interpreters 0, confirmed in a pristine child 1
        []: reg.f "fail" ("ValueError: duplicate registration of y"); fresh interpreters 0, confirmed in a pristine child 0
        ["--no-fork"]: reg.f "fail" ("ValueError: duplicate registration of y"); fresh interpreters 5, confirmed in a pristine child 0
        "#);
}

/// Transformers' Pillow failures, and the etils one seen on the H200, in their real shapes:
/// a name bound only where an optional module imports (`if is_vision_available(): import
/// PIL.Image; PILImageResampling = ...`), missing as `cannot import name` or as a `NameError`
/// in a module that imports it under the same guard; and etils' `check_missing_deps`, which
/// re-raises the ModuleNotFoundError as a subclass without its `name`. Each is a skip that
/// names the optional module, batched, one module per child and fresh alike; a name that is
/// missing for no such reason stays a failure.
#[test]
fn names_missing_behind_an_optional_import_skip_in_every_mode() {
    let files = serde_json::json!({
        "vis/__init__.py": "",
        "vis/utils.py": "import importlib.util\ndef is_vision_available():\n    return importlib.util.find_spec('imgcore') is not None\nif is_vision_available():\n    import imgcore.image\n    Resampling = imgcore.image.Resampling\n",
        "vis/processor.py": "from vis.utils import Resampling\n",
        "vis/video.py": "from vis.utils import is_vision_available\nif is_vision_available():\n    from .utils import Resampling\nclass Video:\n    resample = Resampling.BICUBIC\n",
        "vis/lab.py": "import contextlib\n@contextlib.contextmanager\ndef check_missing_deps():\n    try:\n        yield\n    except ImportError as e:\n        raise type(e.__class__.__name__, (type(e),), {})(str(e) + '\\n\\npip install vis[lab]') from None\nwith check_missing_deps():\n    import labshell\n",
        "vis/broken.py": "from vis.utils import NoSuchName\n",
    });
    let requires = serde_json::json!(["imgcore ; extra == 'vision'"]);
    let world = World::new(
        serde_json::json!([
            {"name": "vis", "version": "1.0", "requires": requires, "files": files},
            {"name": "vis", "version": "1.1", "requires": requires, "files": files},
        ]),
        &[],
        &["vis==1.0"],
    );
    let out_dir = world.ctx.dir.path().join("plan");
    let out = world.run(&[
        "propose",
        "vis==1.1",
        "--venv",
        world.venv(),
        "--index-url",
        &world.server.url(),
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let script = out_dir.join("plans").join("1-upgrade").join("verify.py");
    let mut shown = Vec::new();
    for mode in [&[][..], &["--batch", "1"][..], &["--no-fork"][..]] {
        let args = [&["--no-smoke", "--plain"][..], mode].concat();
        let (code, report) = run_script(&world, &script, &args);
        assert_eq!(code, Some(1), "{report:#}");
        let lines: Vec<String> = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["kind"] == "import")
            .map(|c| {
                let why = c["detail"].as_str().or(c["error"].as_str()).unwrap_or("");
                // The error's file path is the test's temporary directory.
                let why = why.split(" (/").next().unwrap_or(why);
                format!(
                    "{} {}: {why}",
                    c["status"].as_str().unwrap(),
                    c["name"].as_str().unwrap()
                )
            })
            .collect();
        shown.push(lines.join("\n"));
    }
    assert_eq!(shown[0], shown[1], "batched against one module per child");
    assert_eq!(shown[0], shown[2], "batched against fresh interpreters");
    insta::assert_snapshot!("names_missing_behind_an_optional_import", shown[0]);
}

/// A venv without pip (as `uv venv` makes them) whose installed `web` needs `core>=2` while core
/// 1.0 is installed: the pip-check runs `uv pip check` there and fails naming the requirement
/// when uv is on PATH, and says it could not run when neither pip nor uv is there.
#[test]
fn a_venv_without_pip_is_checked_with_uv_pip_check() {
    let ctx = TestContext::new();
    let venv = crate::common::venv::RealVenv::create_without_pip(&ctx.path().join("venv"));
    let site = venv.site_packages();
    for (name, version, requires) in [
        ("web", "1.0", "Requires-Dist: core>=2\n"),
        ("core", "1.0", ""),
    ] {
        let info = site.join(format!("{name}-{version}.dist-info"));
        std::fs::create_dir_all(&info).unwrap();
        std::fs::write(
            info.join("METADATA"),
            format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{requires}"),
        )
        .unwrap();
        std::fs::write(
            info.join("WHEEL"),
            "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        .unwrap();
        std::fs::write(
            info.join("RECORD"),
            format!("{name}-{version}.dist-info/METADATA,,\n"),
        )
        .unwrap();
    }
    let pip_check = |path: &str| {
        let out = crate::common::run(
            ctx.command()
                .env("PATH", path)
                .args(["verify", "--venv", venv.path.to_str().unwrap(), "--all"])
                .args(["--format", "json"]),
        );
        let report = json(&out.stdout);
        check(&report, "pip-check").clone()
    };
    let without_uv = pip_check(&crate::try_::path_without_uv());
    assert_eq!(without_uv["status"], "skip", "{without_uv}");
    assert_eq!(
        without_uv["detail"],
        "pip is not installed in this environment and uv is not on PATH"
    );
    if crate::try_::uv_on_path() {
        let with_uv = pip_check(&std::env::var("PATH").unwrap());
        assert_eq!(with_uv["status"], "fail", "{with_uv}");
        assert_eq!(
            with_uv["broken"][0],
            "The package `web` requires `core>=2`, but `1.0` is installed"
        );
    } else {
        crate::common::skip("verify with uv pip check", "uv is not on PATH");
    }
}

/// docutils' recommonmark wrapper, in its real shapes (docutils 0.19 and 0.20.1, read from the
/// wheels): 0.19 re-raises `No module named 'recommonmark'` with a longer message, 0.20 raises an
/// ImportError of its own (`Parsing "recommonmark" Markdown flavour requires the package ...`)
/// `from` the ModuleNotFoundError. Sphinx 7.2.6 + docutils 0.19 moved to sphinx 9 + docutils
/// 0.22 by a plan: the wrapper was a skip (an optional module) before and a REGRESSION after,
/// while nothing had changed for a user without recommonmark. Now the handled ImportError's
/// missing module counts (a skip naming it), and an import skipped before for an optional module
/// still not installed is never a regression, whatever it fails on now (`legacy`); a module
/// that imported before and fails now still is (`real`).
#[test]
fn a_skip_for_an_optional_module_never_becomes_a_failure_after_the_change() {
    let old = serde_json::json!({
        "docu/__init__.py": "",
        "docu/wrap.py": "try:\n    from mdparser.parser import Parser\nexcept ImportError as err:\n    raise ImportError(f'{err}.\\nParsing Markdown requires the package mdparser.')\n",
        "docu/legacy.py": "import mdparser\n",
        "docu/real.py": "X = 1\n",
    });
    let new = serde_json::json!({
        "docu/__init__.py": "",
        "docu/wrap.py": "try:\n    import mdparser\n    from mdparser.parser import Parser\nexcept ImportError as err:\n    raise ImportError('Parsing Markdown flavour requires the\\n  package mdparser.') from err\n",
        "docu/legacy.py": "import os\nCONFIG = os.environ['DOCU_LEGACY_CONFIG']\nimport mdparser\n",
        "docu/real.py": "raise RuntimeError('docu.real is broken in 1.1')\n",
    });
    let world = World::new(
        serde_json::json!([
            {"name": "docu", "version": "1.0", "files": old},
            {"name": "docu", "version": "1.1", "files": new},
        ]),
        &[],
        &["docu==1.0"],
    );
    let out_dir = world.ctx.dir.path().join("plan");
    let out = world.run(&[
        "propose",
        "docu==1.1",
        "--venv",
        world.venv(),
        "--index-url",
        &world.server.url(),
        "--out-dir",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let script = out_dir.join("plans").join("1-upgrade").join("verify.py");
    let (_, before) = run_script(&world, &script, &["--no-smoke"]);
    assert_eq!(before["baseline"]["recorded"], true, "{before:#}");
    for name in ["import:docu.wrap", "import:docu.legacy"] {
        assert_eq!(check(&before, name)["status"], "skip", "{before:#}");
        assert_eq!(check(&before, name)["missing"], "mdparser", "{before:#}");
    }
    install_no_deps(&world, &["docu==1.1"]);
    // Alone (no baseline), 0.20's shape is a skip naming the module its handled error missed.
    let (_, plain) = run_script(&world, &script, &["--no-smoke", "--plain"]);
    let wrap = check(&plain, "import:docu.wrap");
    assert_eq!(wrap["status"], "skip", "{plain:#}");
    assert_eq!(wrap["missing"], "mdparser", "{plain:#}");
    assert_eq!(check(&plain, "import:docu.legacy")["status"], "fail");
    // Compared with the baseline: legacy is no regression, real is.
    let (code, after) = run_script(&world, &script, &["--no-smoke"]);
    assert_eq!(after["mode"], "compare", "{after:#}");
    assert_eq!(code, Some(1), "{after:#}");
    let legacy = check(&after, "import:docu.legacy");
    assert_eq!(legacy["status"], "skip", "{after:#}");
    assert!(
        legacy["detail"]
            .as_str()
            .unwrap()
            .starts_with("still needs the optional `mdparser`, which is not installed"),
        "{legacy:#}"
    );
    let regressions: Vec<&str> = after["failed"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["regression"] == true)
        .map(|f| f["check"].as_str().unwrap())
        .collect();
    assert_eq!(regressions, ["import:docu.real"], "{after:#}");
}

/// kombu 5.3.4 -> 5.7.0 (celery's --all safe layer, with redis 5 installed and packaging not):
/// 5.7.0's `kombu/transport/redis.py` line 119 imports `packaging`, which kombu declares only
/// under its `redis` extra. The transport imported before the plan and fails after it (celery's
/// redis broker with it), yet verify.py called it a skip ("needs the optional `packaging`") and
/// the plan passed. A module that imported before and now misses a module of an extra in use
/// (another of its requirements installed) is a regression; one guarded before for an extra
/// nothing installed belongs to stays a skip (celery 5.6's Azure backend, azure not installed).
#[test]
fn a_module_that_imported_before_and_now_needs_a_module_of_an_extra_in_use_is_a_regression() {
    let world = kombu_world();
    let script = kombu_plan(&world).join("verify.py");
    let (_, before) = run_script(&world, &script, &["--no-smoke"]);
    assert_eq!(check(&before, "import:kmb.transport")["status"], "pass");
    install_no_deps(&world, &["kmb==5.7"]);
    let (code, after) = run_script(&world, &script, &["--no-smoke"]);
    let transport = check(&after, "import:kmb.transport");
    assert_eq!(code, Some(1), "{after:#}");
    assert_eq!(transport["status"], "fail", "{after:#}");
    assert_eq!(transport["regression"], true, "{after:#}");
    assert_eq!(transport["missing"], "pkgv", "{after:#}");
    assert!(
        transport["error"]
            .as_str()
            .unwrap()
            .starts_with("imported before the change; now needs the optional `pkgv`"),
        "{transport:#}"
    );
    // The blob module guarded `azr` before and imports it now; nothing installed is of its extra:
    // it could not be used before either (celery 5.6's Azure backend, azure not installed).
    let blob = check(&after, "import:kmb.blob");
    assert_eq!(blob["status"], "skip", "{after:#}");
    assert_eq!(blob["missing"], "azr", "{after:#}");
}

/// kombu's shape: `kmb` 5.3 installed with `rds` 5.0; 5.7 on the index, whose transport imports
/// `pkgv` of its `rds` extra (in use: rds is installed) and whose blob module imports `azr` of
/// its `blob` extra (nothing of it installed).
fn kombu_world() -> World {
    World::new(
        serde_json::json!([
            {"name": "rds", "version": "5.0", "files": {"rds/__init__.py": "X = 1\n"}},
            {"name": "kmb", "version": "5.3", "files": {
                "kmb/__init__.py": "",
                "kmb/transport.py": "import rds\n",
                "kmb/blob.py": "try:\n    import azr\nexcept ImportError:\n    azr = None\n",
            }},
            {"name": "kmb", "version": "5.7", "requires": ["pkgv; extra == 'rds'", "rds; extra == 'rds'", "azr; extra == 'blob'"], "files": {
                "kmb/__init__.py": "",
                "kmb/transport.py": "import rds\nfrom pkgv.version import Version\n",
                "kmb/blob.py": "import azr\n",
            }},
        ]),
        &[],
        &["rds==5.0", "kmb==5.3"],
    )
}

/// `propose kmb==5.7` on [`kombu_world`]: its upgrade plan's folder.
fn kombu_plan(world: &World) -> PathBuf {
    let out_dir = world.ctx.dir.path().join("plan");
    let out = world.run(&[
        "propose",
        "kmb==5.7",
        "--venv",
        world.venv(),
        "--index-url",
        &world.server.url(),
        "--out-dir",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    out_dir.join("plans").join("1-upgrade")
}

/// `try` of that plan, its baseline of only what did not pass after it (`needed`, the
/// default from 4 cores): the transport, a skip after the plan for a module of an extra in use, is checked
/// before it too and found a regression, as a whole baseline (`first`) finds it, with the same
/// checks and statuses; the blob module's skip (an extra nothing installed belongs to) and every
/// check that passed are not run again.
#[test]
fn try_checks_before_the_plan_only_what_did_not_pass_and_finds_the_same_regression() {
    let world = kombu_world();
    let plan = kombu_plan(&world);
    let tried = |mode: &str| {
        let out = run(world.ctx.command().env("PLANNER_TRY_BASELINE", mode).args([
            "try",
            plan.to_str().unwrap(),
            "--venv",
            world.venv(),
            "--no-smoke",
            "--format",
            "json",
        ]));
        assert_eq!(out.code, Some(1), "{mode}: {}\n{}", out.stdout, out.stderr);
        serde_json::from_str::<serde_json::Value>(&out.stdout).unwrap()
    };
    let (whole, needed) = (tried("first"), tried("needed"));
    assert_eq!(needed["baseline_mode"], "needed");
    assert_eq!(needed["verdict"], "regressed", "{needed:#}");
    assert_eq!(whole["regressions"], needed["regressions"], "{needed:#}");
    assert!(
        needed["regressions"][0]
            .as_str()
            .unwrap()
            .starts_with("import:kmb.transport (kmb): imported before the change; now needs"),
        "{needed:#}"
    );
    let statuses = |report: &serde_json::Value| -> Vec<(String, String)> {
        report["report"]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["name"].to_string(), c["status"].to_string()))
            .collect()
    };
    assert_eq!(statuses(&whole), statuses(&needed));
    assert!(
        whole["baseline"]["checks"].as_u64().unwrap() > 1,
        "{whole:#}"
    );
    assert_eq!(needed["baseline"]["checks"], 1, "{needed:#}");
    let before =
        |report: &serde_json::Value, name: &str| check(&report["report"], name)["before"].clone();
    assert_eq!(before(&needed, "import:kmb.transport"), "pass");
    assert_eq!(before(&needed, "import:kmb.blob"), serde_json::Value::Null);
    assert_eq!(before(&whole, "import:kmb.blob"), "pass");
}

/// botorch 0.18.1's wheel ships, beside `botorch/`, a stale `build/lib/botorch/` copy and
/// `sphinx/source/conf.py` (which lands inside Sphinx's package): `verify --all` imported
/// `build.lib.botorch...` (files that import a dist botorch requires) and failed the healthy
/// 199-dist H200 venv. Only a dist's own packages are imported now: the venv here, in that shape
/// (each stray file importing the required `dep`, and failing if imported), passes `--all`.
#[test]
fn verify_all_imports_only_a_dists_own_packages() {
    let world = World::new(
        serde_json::json!([
            {"name": "dep", "version": "1.0", "files": {"dep/__init__.py": "X = 1\n"}},
            {"name": "sphinx", "version": "1.0", "files": {"sphinx/__init__.py": ""}},
            {"name": "bopt", "version": "1.0", "requires": ["dep"], "files": {
                "bopt/__init__.py": "import dep\n",
                "bopt/models/__init__.py": "import dep\nfrom .gp import GP\n",
                "bopt/models/gp.py": "import dep\nclass GP:\n    pass\n",
                "build/lib/bopt/__init__.py": "import dep\nraise RuntimeError('a stale build copy')\n",
                "build/lib/bopt/models/gp.py": "import dep\nraise RuntimeError('a stale build copy')\n",
                "sphinx/source/conf.py": "import dep\nraise RuntimeError('a docs configuration')\n",
            }},
        ]),
        &[],
        &["dep", "sphinx", "bopt"],
    );
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--no-smoke",
        "--format",
        "json",
    ]);
    let report = json(&out.stdout);
    assert_eq!(out.code, Some(0), "{report:#}\n{}", out.stderr);
    let names: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"import:bopt.models.gp"), "{names:?}");
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("import:build") || n.starts_with("import:sphinx.source")),
        "{names:?}"
    );
}

/// `verify --all` on a healthy venv failed modules that need a module an optional dependency,
/// installed at a release without it, does not have (a jax venv's integrations). Such an import
/// (in a file `--all` imports because it imports a dist it requires) is a skip naming the module,
/// the dist and how it is declared; the same missing module of a
/// dist required unconditionally stays a failure.
#[test]
fn a_missing_module_of_an_installed_optional_dependency_is_a_skip() {
    let world = World::new(
        serde_json::json!([
            {"name": "opt", "version": "1.0", "files": {"opt/__init__.py": ""}},
            {"name": "req", "version": "1.0", "files": {"req/__init__.py": "", "req/moves.py": "import os\n"}},
            {"name": "user", "version": "1.0", "requires": ["req", "opt ; extra == 'integ'"], "files": {
                "user/__init__.py": "import req\n",
                "user/integ.py": "import req\nimport opt._private.thing\n",
                "user/hard.py": "import req.gone\n",
            }},
        ]),
        &[],
        &["opt", "req", "user"],
    );
    let report = world.verify_all_failing();
    let integ = check(&report, "import:user.integ");
    assert_eq!(integ["status"], "skip", "{integ:#}");
    assert_eq!(
        integ["detail"],
        "needs `opt._private`, which opt 1.0 does not have (user declares it only under its extra integ: an optional dependency)"
    );
    assert_eq!(failed(&report, "import:user.hard")["package"], "user");
}

/// Jinja2 2.11.3 under MarkupSafe 3: `import jinja2` fails (`soft_unicode` is gone), and so
/// does every `import jinja2.X`, since it runs the package first. verify.py passed
/// `jinja2.utils`, `jinja2.bccache` and `jinja2.visitor` (and, by run, `jinja2.idtracking`):
/// the package's failed import had left the submodules it imported by then in the process's
/// `sys.modules`, and importing one again there returned it without running the package. Every
/// module of the package fails here, and so does a dependent that imports such a submodule.
#[test]
fn submodules_a_failed_package_import_left_behind_do_not_pass() {
    let world = World::new(
        serde_json::json!([
            {"name": "mks", "version": "3.0", "files": {"mks/__init__.py": "escape = str\n"}},
            {"name": "tmpl", "version": "2.11", "requires": ["mks"], "files": {
                "tmpl/__init__.py": "from .utils import escape\nfrom .visitor import V\nfrom .filters import f\n",
                "tmpl/utils.py": "from mks import escape\n",
                "tmpl/visitor.py": "import mks\nV = 1\n",
                "tmpl/filters.py": "from mks import soft_unicode\nf = 1\n",
            }},
            {"name": "app", "version": "1.0", "requires": ["tmpl"], "files": {
                "app/__init__.py": "from tmpl.utils import escape\n",
            }},
        ]),
        &[],
        &["mks", "tmpl", "app"],
    );
    for _ in 0..3 {
        let report = world.verify_all_failing();
        for name in ["tmpl", "tmpl.utils", "tmpl.visitor", "tmpl.filters", "app"] {
            let entry = check(&report, &format!("import:{name}"));
            assert_eq!(entry["status"], "fail", "{name}: {entry:#}");
        }
    }
}

/// polars 2.1.0's `polars/_plr.py` imports the compiled runtime of the dist it requires
/// (polars-runtime-32) and puts it in its own place in `sys.modules`: `verify --all` failed a
/// healthy venv on it ("shadowed: resolves to .../_polars_runtime_32/_polars_runtime.abi3.so,
/// owned by polars-runtime-32"). A module whose own file ran and put another module in its place
/// passes, saying so; one found in another dist's file is still shadowed.
#[test]
fn a_module_that_puts_another_in_its_place_is_its_own() {
    let world = World::new(
        serde_json::json!([
            {"name": "pol-rt", "version": "2.1", "files": {"pol_rt/__init__.py": "", "pol_rt/_rt.py": "X = 1\n"}},
            {"name": "pol", "version": "2.1", "requires": ["pol-rt"], "files": {
                "pol/__init__.py": "from pol import _plr\n",
                "pol/_plr.py": "import sys\n\nimport pol_rt._rt as plr\n\nsys.modules[__name__] = plr\n",
            }},
        ]),
        &[],
        &["pol-rt", "pol"],
    );
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--no-smoke",
        "--format",
        "json",
    ]);
    let report = json(&out.stdout);
    assert_eq!(out.code, Some(0), "{report:#}");
    let plr = check(&report, "import:pol._plr");
    assert_eq!(plr["status"], "pass", "{plr:#}");
    let detail = plr["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("its own ")
            && detail.contains("pol/_plr.py ran and put the module of ")
            && detail.ends_with("pol_rt/_rt.py in its place"),
        "{detail}"
    );
}

/// `verify --all` on a healthy venv holding a legacy egg-info dist (pip 22.3.1's `setup.py
/// install` of Flask-Login 0.6.2, live 2026-12-06) failed `import:src.flask_login`: without a
/// `RECORD`, Python 3.11's importlib.metadata lists the egg-info's `SOURCES.txt`, the source
/// tree's paths. Its `installed-files.txt` is what is installed; its modules below the top level
/// are imported and owned by it (not "shadowed: listed in no installed dist's RECORD").
#[test]
fn a_legacy_egg_info_dist_is_verified_by_the_files_it_installed() {
    let world = World::new(
        serde_json::json!([{"name": "wz", "version": "2.0", "files": {"wz/__init__.py": "", "wz/urls.py": "def url_decode(s):\n    return s\n"}}]),
        &[],
        &["wz"],
    );
    let utils = "from wz.urls import url_decode\n";
    let files = [
        ("login/__init__.py", "from . import utils\n"),
        ("login/utils.py", utils),
    ];
    let site = crate::common::venv::RealVenv::at(&world.venv).site_packages();
    crate::common::venv::install_egg_info(&site, "Login", "0.6", &["wz>=1"], &files);
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--no-smoke",
        "--format",
        "json",
    ]);
    let report = json(&out.stdout);
    assert_eq!(out.code, Some(0), "{report:#}");
    assert_eq!(
        check(&report, "import:login")["status"],
        "pass",
        "{report:#}"
    );
    assert_eq!(
        check(&report, "import:login.utils")["status"],
        "pass",
        "{report:#}"
    );
    let names: Vec<&str> = (report["checks"].as_array().unwrap().iter())
        .filter_map(|c| c["name"].as_str())
        .filter(|n| n.starts_with("import:src") || *n == "import:setup")
        .collect();
    assert_eq!(names, Vec::<&str>::new(), "{report:#}");
}

/// `verify --all` on a healthy venv (pandas, matplotlib and 60 more, no Qt) failed
/// `matplotlib.backends.qt_compat`: "Failed to import any of the following Qt binding modules:
/// PyQt6, PySide6, PyQt5, PySide2", an ImportError the module raises itself after trying each
/// (`--all` imports it because it imports `packaging`, which matplotlib requires). A module that
/// lists what it tried, names each in its own file, and finds none installed is a skip naming
/// them; the same message while one of the listed modules is installed (a binding that is there
/// and fails) stays a failure. With more time the same run failed `dateutil.tz.win` ("cannot
/// import name 'winreg' from 'six.moves'"): a Windows module reached through a compatibility
/// module is a skip too, and so is a name `select` has on other platforms only (Twisted's
/// `kqreactor` on Linux: "module 'select' has no attribute 'KQ_EV_ADD'").
#[test]
fn modules_tried_in_turn_and_windows_modules_through_a_shim_are_skips() {
    let tries = |names: &str| {
        format!(
            "import importlib\nimport req\n_API = [{names}]\nfor _name in _API:\n    try:\n        importlib.import_module(_name + '_')\n        break\n    except ImportError:\n        pass\nelse:\n    raise ImportError('Failed to import any of the following Qt binding modules: {{}}'.format(', '.join(_API)))\n"
        )
    };
    let world = World::new(
        serde_json::json!([
            {"name": "req", "version": "1.0", "files": {"req/__init__.py": "", "req/moves.py": "import os\n"}},
            {"name": "plot", "version": "1.0", "requires": ["req"], "files": {
                "plot/__init__.py": "",
                "plot/qt_compat.py": tries("'NoQt6', 'NoSide6'"),
                "plot/broken_qt.py": tries("'NoQt6', 'json'"),
                "plot/win.py": "import req\nfrom req.moves import winreg\n",
                "plot/kq.py": "import req\nimport select\ntry:\n    KQ = getattr(select, 'KQ_EV_ADD')\nexcept AttributeError as e:\n    raise ImportError(e)\n",
            }},
        ]),
        &[],
        &["req", "plot"],
    );
    let report = world.verify_all_failing();
    let qt = check(&report, "import:plot.qt_compat");
    assert_eq!(qt["status"], "skip", "{qt:#}");
    assert_eq!(
        qt["detail"],
        "needs `NoQt6` or `NoSide6`, which no installed dist provides and plot does not require (an optional dependency)"
    );
    let win = check(&report, "import:plot.win");
    assert_eq!(win["status"], "skip", "{win:#}");
    assert_eq!(
        win["detail"],
        "`winreg` exists only on Windows (a module for another platform, through `req.moves`)"
    );
    let kq = check(&report, "import:plot.kq");
    assert_eq!(kq["status"], "skip", "{kq:#}");
    assert_eq!(
        kq["detail"],
        "`select.KQ_EV_ADD` exists only on BSD and macOS (a name for another platform)"
    );
    assert_eq!(
        failed(&report, "import:plot.broken_qt")["error"],
        "ImportError: Failed to import any of the following Qt binding modules: NoQt6, json"
    );
}

/// A module that puts another object in its place in `sys.modules`, as Twisted's
/// `twisted.internet.reactor` installs the reactor there, imports fine: `verify --all` failed it
/// on a healthy scrapy venv, before and after every plan, as "resolved to a module without a
/// file". Its file is the one the import found; one that is not the dist's own is still shadowed.
#[test]
fn a_module_replaced_in_sys_modules_by_an_object_passes() {
    let replaces =
        "import sys\nimport iface\nclass Reactor:\n    pass\nsys.modules[__name__] = Reactor()\n";
    let world = World::new(
        serde_json::json!([
            {"name": "iface", "version": "1.0", "files": {"iface/__init__.py": ""}},
            {"name": "twistedish", "version": "1.0", "requires": ["iface"], "files": {
                "twistedish/__init__.py": "",
                "twistedish/internet/__init__.py": "",
                "twistedish/internet/reactor.py": replaces,
            }},
            {"name": "crawler", "version": "1.0", "requires": ["twistedish"], "files": {
                "crawler/__init__.py": "",
                "crawler/engine.py": "from twistedish.internet import reactor\n",
            }},
        ]),
        &[],
        &["iface", "twistedish", "crawler"],
    );
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--no-smoke",
        "--format",
        "json",
    ]);
    let report = json(&out.stdout);
    assert_eq!(out.code, Some(0), "{report:#}\n{}", out.stderr);
    let reactor = check(&report, "import:twistedish.internet.reactor");
    assert_eq!(reactor["status"], "pass", "{reactor:#}");
}

/// A smoke test named as the module it exercises (`langchain_openai`, once) was written to
/// `<name>.py` and ran from there, so its own file came first on its `sys.path` and
/// `import langchain_openai` imported the check itself. The file is prefixed now: a check named
/// `gadget` imports the installed `gadget`.
#[test]
fn a_smoke_test_named_as_its_module_imports_the_installed_one() {
    let world = World::new(
        serde_json::json!([
            {"name": "gadget", "version": "1.0", "files": {"gadget/__init__.py": "REAL = True\n"}},
        ]),
        &[],
        &["gadget"],
    );
    let dir = world.ctx.dir.path().join("policy");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("check.py"),
        "import gadget\nassert gadget.REAL\nprint('the installed gadget')\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("policy.toml"),
        "[[smoke]]\nname = \"gadget\"\npackage = \"gadget\"\ncheck = \"check.py\"\nhardware = \"none\"\ntimeout = 30\n",
    )
    .unwrap();
    let policy = dir.join("policy.toml");
    let out = world.run(&[
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--policy",
        policy.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let report = json(&out.stdout);
    let smoke = check(&report, "smoke:gadget");
    assert_eq!(smoke["status"], "pass", "{smoke:#}");
    assert_eq!(smoke["detail"], "the installed gadget");
}

/// A `torch` whose import loads a libcudart from a folder outside the venv (the second toolkit
/// of the incident, reached through `LD_LIBRARY_PATH`) and a libcublas from the venv's own
/// `nvidia/` wheel folder: verify records both from its child's `/proc/self/maps` and flags the
/// one from outside, in the JSON and as a warning. The libraries are real shared objects (a
/// copy of the interpreter's own `_ctypes` extension, renamed).
#[test]
fn a_cuda_library_loaded_from_outside_the_venv_is_flagged() {
    let world = World::new(
        serde_json::json!([
            {"name": "torch", "version": "2.11.0",
             "files": {"torch/__init__.py":
                 "import ctypes, os\nfor p in os.environ['FAKE_CUDA_LIBS'].split(':'):\n    ctypes.CDLL(p)\n"}},
        ]),
        &[],
        &["torch"],
    );
    let out = Command::new(world.venv.join("bin/python"))
        .args(["-c", "import _ctypes; print(_ctypes.__file__)"])
        .output()
        .unwrap();
    let shared = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    assert!(shared.is_file(), "no _ctypes extension file: {shared:?}");
    let outside = world.ctx.dir.path().join("cuda-12.8/lib64/libcudart.so.12");
    let site = crate::common::venv::RealVenv::at(&world.venv).site_packages();
    let inside = site.join("nvidia/cublas/lib/libcublas.so.13");
    for lib in [&outside, &inside] {
        std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
        std::fs::copy(&shared, lib).unwrap();
    }
    let libs = format!("{}:{}", outside.display(), inside.display());
    let out = crate::common::run(world.ctx.command().env("FAKE_CUDA_LIBS", &libs).args([
        "verify",
        "--venv",
        world.venv(),
        "--all",
        "--format",
        "json",
    ]));
    let report = json(&out.stdout);
    let libraries = &report["cuda_libraries"];
    assert_eq!(
        libraries["outside"],
        serde_json::json!([outside.display().to_string()]),
        "{report:#}\n{}",
        out.stderr
    );
    let mut from: Vec<(String, String)> = libraries["loaded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["library"].as_str().unwrap().to_string(),
                l["from"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    from.sort();
    assert_eq!(
        from,
        vec![
            ("libcublas.so.13".to_string(), "venv".to_string()),
            ("libcudart.so.12".to_string(), "outside".to_string()),
        ]
    );
    crate::common::schema::assert_valid(&report);
    let text = crate::common::run(world.ctx.command().env("FAKE_CUDA_LIBS", &libs).args([
        "verify",
        "--venv",
        world.venv(),
        "--all",
    ]));
    assert!(
        text.stdout.contains(&format!(
            "warning: {} was loaded by import torch from outside",
            outside.display()
        )),
        "{}\n{}",
        text.stdout,
        text.stderr
    );
}

/// A submodule a dependent imports inside a function its console script runs (black 22.1.0's
/// `patch_click()`, called by `patched_main()`, the `black` script, runs `from click import
/// _unicodefun`, a module click 8.1 dropped): importing
/// the dependent passes before and after the plan, so verify.py imports the submodule the
/// plan's `import-target-missing` factor names, under the dependent: it passes before the
/// upgrade and fails after it, naming the dependent.
#[test]
fn a_submodule_imported_in_a_function_is_imported_for_its_importer() {
    let world = World::new(
        serde_json::json!([
            {"name": "cli", "version": "8.0.4",
             "files": {"cli/__init__.py": "", "cli/_unicodefun.py": "x = 1\n"}},
            {"name": "cli", "version": "8.1.7", "files": {"cli/__init__.py": ""}},
            {"name": "app", "version": "22.1.0", "requires": ["cli>=8.0"],
             "files": {"app/__init__.py":
                "import cli\n\n\ndef patch_cli():\n    from cli import _unicodefun\n\n\ndef main():\n    patch_cli()\n",
                "app-22.1.0.dist-info/entry_points.txt": "[console_scripts]\napp = app:main\n"}},
        ]),
        &[],
        &["cli==8.0.4", "app"],
    );
    let out_dir = world.ctx.dir.path().join("plan");
    let out = world.run(&[
        "propose",
        "cli>=8.1",
        "--venv",
        world.venv(),
        "--index-url",
        &world.server.url(),
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let proposal = json(&out.stdout);
    let plan = &proposal["plans"][0];
    assert_eq!(plan["kind"], "upgrade", "{plan:#}");
    assert!(
        plan["risk"]["factors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["kind"] == "import-target-missing"
                && f["detail"]
                    .as_str()
                    .unwrap()
                    .contains("imports `_unicodefun` from `cli`")),
        "{plan:#}"
    );
    let folder = out_dir.join("plans/1-upgrade");
    // `try` applies the plan in a copy and runs the same selection.
    let out = world.run(&[
        "try",
        folder.to_str().unwrap(),
        "--venv",
        world.venv(),
        "--format",
        "json",
    ]);
    let trial = json(&out.stdout);
    assert_eq!(trial["verdict"], "regressed", "{trial:#}\n{}", out.stderr);
    assert!(
        trial["regressions"].to_string().contains("cli._unicodefun"),
        "{trial:#}"
    );
    let script = folder.join("verify.py");
    let (code, report) = run_script(&world, &script, &["--no-smoke"]);
    // Imported under app (SPEC lists it before cli), from cli's own file: no shadow.
    let entry = check(&report, "import:cli._unicodefun");
    assert_eq!(entry["status"], "pass", "{report:#}");
    assert_eq!(entry["package"], "app", "{entry}");
    assert_eq!(
        code,
        Some(1),
        "only the version check fails before: {report:#}"
    );
    assert_eq!(report["failed"].as_array().unwrap().len(), 1, "{report:#}");
    let out = pip(&world.venv)
        .args([
            "install",
            "--index-url",
            &world.server.url(),
            "--",
            "cli==8.1.7",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let (code, report) = run_script(&world, &script, &["--no-smoke"]);
    assert_eq!(code, Some(1), "{report:#}");
    let gone = failed(&report, "import:cli._unicodefun");
    assert_eq!(gone["package"], "app", "{gone}");
    assert_eq!(gone["regression"], true, "{gone}");
    let entry = check(&report, "import:cli._unicodefun");
    assert_eq!(entry["uses"], "cli", "{entry}");
    assert_eq!(entry["cited"], true, "{entry}");
    assert_eq!(check(&report, "import:app")["status"], "pass", "{report:#}");
}

/// A name (a function, not a module) a dependent imports only inside a function its console
/// script runs (`from markupsafe import soft_unicode` in a helper): importing the dependent passes before
/// and after the plan, so verify.py imports the module the plan's `import-target-missing`
/// factor cites and looks the name up, under the dependent: it passes before the upgrade and
/// fails after it, as a regression, with the citation's file and line.
#[test]
fn a_name_imported_in_a_function_is_looked_up_for_its_importer() {
    let world = World::new(
        serde_json::json!([
            {"name": "lib", "version": "1.0",
             "files": {"lib/__init__.py": "def helper():\n    return 1\n"}},
            {"name": "lib", "version": "2.0", "files": {"lib/__init__.py": "def other():\n    return 2\n"}},
            {"name": "app", "version": "1.0", "requires": ["lib>=1.0"],
             "files": {"app/__init__.py":
                "import lib\n\n\ndef run():\n    from lib import helper\n\n    return helper()\n",
                "app-1.0.dist-info/entry_points.txt": "[console_scripts]\napp = app:run\n"}},
        ]),
        &[],
        &["lib==1.0", "app"],
    );
    let out_dir = world.ctx.dir.path().join("plan");
    let out = world.run(&[
        "propose",
        "lib>=2",
        "--venv",
        world.venv(),
        "--index-url",
        &world.server.url(),
        "--out-dir",
        out_dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let proposal = json(&out.stdout);
    let plan = &proposal["plans"][0];
    assert_eq!(plan["kind"], "upgrade", "{plan:#}");
    let factor = plan["risk"]["factors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "import-target-missing")
        .unwrap_or_else(|| panic!("{plan:#}"));
    assert_eq!(factor["citations"][0]["name"], "helper", "{factor:#}");
    let folder = out_dir.join("plans/1-upgrade");
    let out = world.run(&[
        "try",
        folder.to_str().unwrap(),
        "--venv",
        world.venv(),
        "--format",
        "json",
    ]);
    let trial = json(&out.stdout);
    assert_eq!(trial["verdict"], "regressed", "{trial:#}\n{}", out.stderr);
    // The one regression: the name's check, under its importer.
    let regressions = trial["regressions"].as_array().unwrap();
    assert_eq!(regressions.len(), 1, "{trial:#}");
    assert!(
        regressions[0]
            .as_str()
            .unwrap()
            .starts_with("import:lib.helper (app): "),
        "{trial:#}"
    );
    let script = folder.join("verify.py");
    let (code, report) = run_script(&world, &script, &["--no-smoke"]);
    let entry = check(&report, "import:lib.helper");
    assert_eq!(entry["status"], "pass", "{report:#}");
    assert_eq!(entry["package"], "app", "{entry}");
    assert_eq!(
        code,
        Some(1),
        "only the version check fails before: {report:#}"
    );
    assert_eq!(report["failed"].as_array().unwrap().len(), 1, "{report:#}");
    let out = pip(&world.venv)
        .args([
            "install",
            "--index-url",
            &world.server.url(),
            "--",
            "lib==2.0",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let (code, report) = run_script(&world, &script, &["--no-smoke"]);
    assert_eq!(code, Some(1), "{report:#}");
    let gone = failed(&report, "import:lib.helper");
    assert_eq!(gone["package"], "app", "{gone}");
    assert_eq!(gone["regression"], true, "{gone}");
    let entry = check(&report, "import:lib.helper");
    assert_eq!(entry["uses"], "lib", "{entry}");
    assert_eq!(entry["cited"], true, "{entry}");
    // Python's own message, the file it looked in last.
    assert!(
        entry["error"]
            .as_str()
            .unwrap()
            .starts_with("ImportError: cannot import name 'helper' from 'lib' ("),
        "{entry}"
    );
    assert_eq!(
        entry["evidence"], "app (app/__init__.py, line 5) imports `helper` from `lib`",
        "{entry}"
    );
    assert_eq!(check(&report, "import:app")["status"], "pass", "{report:#}");
}

/// A module the new release serves as an alias through its own import hook, a module without a
/// file (transformers 5.25.0's `_LegacyModuleAliasFinder` serves
/// `transformers.tokenization_utils_fast` so): it imports, from the dist's own code, so it is no
/// failure. Before, verify.py failed it ("resolved to a module without a file") and `try` called
/// the working plan regressed.
#[test]
fn a_module_served_by_the_dists_own_import_hook_is_no_failure() {
    let finder = "import importlib, importlib.abc, importlib.util, sys\n\n\n\
        class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):\n    \
            def find_spec(self, name, path, target=None):\n        \
                if name == 'lib.old_name':\n            \
                    return importlib.util.spec_from_loader(name, self)\n        \
                return None\n\n    \
            def exec_module(self, module):\n        \
                real = importlib.import_module('lib.new_name')\n        \
                vars(module).update({k: v for k, v in vars(real).items() if not k.startswith('__')})\n\n\n\
        sys.meta_path.append(_Alias())\n";
    let world = World::new(
        serde_json::json!([
            {"name": "dep", "version": "1.0", "files": {"dep/__init__.py": ""}},
            {"name": "dep", "version": "2.0", "files": {"dep/__init__.py": ""}},
            {"name": "lib", "version": "1.0", "requires": ["dep==1.0"],
             "files": {"lib/__init__.py": "", "lib/old_name.py": "import dep\n\nx = 1\n"}},
            {"name": "lib", "version": "2.0", "requires": ["dep>=2"],
             "files": {"lib/__init__.py": finder, "lib/new_name.py": "import dep\n\nx = 1\n"}},
        ]),
        &[],
        &["lib==1.0"],
    );
    let out_dir = world.ctx.dir.path().join("plan");
    let out = world.run(&[
        "propose",
        "lib>=2",
        "--venv",
        world.venv(),
        "--index-url",
        &world.server.url(),
        "--out-dir",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let folder = out_dir.join("plans/1-upgrade");
    let out = world.run(&[
        "try",
        folder.to_str().unwrap(),
        "--venv",
        world.venv(),
        "--format",
        "json",
    ]);
    let trial = json(&out.stdout);
    assert_eq!(trial["verdict"], "clean", "{trial:#}\n{}", out.stderr);
    // the plan applied for real: the alias is imported, and passes
    let out = pip(&world.venv)
        .args([
            "install",
            "--index-url",
            &world.server.url(),
            "--",
            "lib==2.0",
            "dep==2.0",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let (code, report) = run_script(&world, &folder.join("verify.py"), &["--no-smoke"]);
    let entry = check(&report, "import:lib.old_name");
    assert_eq!(entry["status"], "pass", "{entry}");
    assert_eq!(entry["uses"], "dep", "{entry}");
    assert_eq!(code, Some(0), "{report:#}");
}

/// `verify --all` on a healthy venv has no failures from modules that import what nothing
/// installed is asked to provide (shaped after a jax 0.8.1 + flax + orbax-checkpoint 0.11.20 +
/// treescope venv, where all three failed): orbax's `_src/logging/cloud_logger.py` imports
/// `google.cloud.logging`, in the namespace package `google` of which only protobuf's
/// `google/protobuf/` is installed (protobuf being required does not make `google.cloud` so);
/// orbax's `_src/checkpointers/checkpointer_test_utils.py` does `from .pyglib import gfile`, a
/// module its own wheel never shipped; treescope's `external/torch_support.py` guards `import
/// torch` (`torch = None` when missing), then evaluates `torch.Tensor` in a signature. Each is a
/// skip naming what is missing; a module requiring what is missing still fails. (`--all` imports
/// the modules that import another installed dist: `google.protobuf` stands in for what the real
/// ones import, absl and numpy.)
#[test]
fn verify_all_skips_modules_needing_what_nothing_installed_provides() {
    let torch_support = "import google.protobuf\n\ntry:\n  import torch  # pytype: disable=import-error\nexcept ImportError:\n  \
                         torch = None\n\n\ndef _tensor_to_numpy(tensor: torch.Tensor):\n  return tensor\n";
    let world = World::new(
        serde_json::json!([
            {"name": "proto", "version": "6.0", "files": {"google/protobuf/__init__.py": ""}},
            {"name": "ckpt", "version": "0.11.20", "requires": ["proto>=5"],
             "files": {
                 "ckpt/__init__.py": "",
                 "ckpt/_src/__init__.py": "",
                 "ckpt/_src/logging/__init__.py": "",
                 "ckpt/_src/logging/cloud_logger.py":
                     "import google.cloud.logging as google_cloud_logging\n",
                 "ckpt/_src/checkpointers/checkpointer.py": "x = 1\n",
                 "ckpt/_src/checkpointers/checkpointer_test_utils.py":
                     "import google.protobuf\nfrom ckpt._src.checkpointers import checkpointer\nfrom .pyglib import gfile\n",
                 "ckpt/needs_proto.py": "import google.protobuf.gone\n"}},
            {"name": "scope", "version": "0.1.10", "requires": ["proto", "torch; extra == 'test'"],
             "files": {"scope/__init__.py": "", "scope/external/__init__.py": "",
                       "scope/external/torch_support.py": torch_support}},
        ]),
        &[],
        &["ckpt==0.11.20", "scope==0.1.10"],
    );
    let out = world.run(&[
        "verify",
        "--all",
        "--venv",
        world.venv(),
        "--no-smoke",
        "--format",
        "json",
    ]);
    let report = json(&out.stdout);
    let skipped = |name: &str, why: &str| {
        let entry = check(&report, name);
        assert_eq!(entry["status"], "skip", "{entry:#}\n{}", out.stderr);
        let detail = entry["detail"].as_str().unwrap();
        assert!(detail.starts_with(why), "{detail}");
    };
    skipped(
        "import:ckpt._src.logging.cloud_logger",
        "needs `google.cloud`, which no installed dist provides",
    );
    skipped(
        "import:ckpt._src.checkpointers.checkpointer_test_utils",
        "imports `ckpt._src.checkpointers.pyglib`, which ckpt 0.11.20 itself does not ship",
    );
    skipped(
        "import:scope.external.torch_support",
        "needs the optional `torch` (scope declares it only under its extra test",
    );
    // A module missing from the portion a required dist does ship is still a failure.
    let failing: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(failing, ["import:ckpt.needs_proto"], "{report:#}");
}

/// A plan's call-time claim is a check of its own: `app`'s `run()` uses `lib.error.Timeout`
/// after `import lib`, and lib 2.0 no longer ships `lib/error.py` (langchain 0.0.300's
/// `openai.error` under openai >= 1). `import app` passes either way. `try` names the
/// `call-time:lib.error` check, under app, with the file, line and function, as the one
/// regression. verify.py passes it before the plan; after it, a `lib.error` that is there after
/// all (written beside lib 2.0 here) makes the claim wrong: a pass that says so, no regression.
#[test]
fn a_call_time_claim_is_checked_without_running_the_function() {
    let world = World::new(
        serde_json::json!([
            {"name": "lib", "version": "1.0", "files": {
                "lib/__init__.py": "from . import error\n",
                "lib/error.py": "class Timeout(Exception):\n    pass\n"}},
            {"name": "lib", "version": "2.0", "files": {"lib/__init__.py": "VERSION = 2\n"}},
            {"name": "app", "version": "1.0", "requires": ["lib>=1.0"], "files": {
                "app/__init__.py":
                    "import lib\n\n\ndef run():\n    raise lib.error.Timeout()\n",
                "app-1.0.dist-info/entry_points.txt": "[console_scripts]\napp = app:run\n"}},
        ]),
        &[],
        &["lib==1.0", "app"],
    );
    let out_dir = world.ctx.dir.path().join("plan");
    let url = world.server.url();
    let args = [
        "propose",
        "lib>=2",
        "--venv",
        world.venv(),
        "--index-url",
        &url,
    ];
    let out = world.run(&[&args[..], &["--out-dir", out_dir.to_str().unwrap()]].concat());
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let folder = out_dir.join("plans/1-upgrade");
    let plan = json(&std::fs::read_to_string(folder.join("plan.json")).unwrap());
    let factors = plan["risk"]["factors"].as_array().unwrap();
    let factor = (factors.iter())
        .find(|f| f["kind"] == "call-time-target-missing")
        .unwrap_or_else(|| panic!("{plan:#}"));
    assert_eq!(
        factor["citations"][0],
        serde_json::json!({"dist": "app", "version": "1.0", "file": "app/__init__.py", "line": 5,
            "module": "lib.error", "attribute": true, "function": "run"})
    );
    let out = world.run(&[
        "try",
        folder.to_str().unwrap(),
        "--venv",
        world.venv(),
        "--format",
        "json",
    ]);
    let trial = json(&out.stdout);
    assert_eq!(trial["verdict"], "regressed", "{trial:#}\n{}", out.stderr);
    assert_eq!(
        trial["regressions"],
        serde_json::json!([
            "call-time:lib.error (app): app/__init__.py line 5, in run, uses \
            lib.error: ModuleNotFoundError: No module named 'lib.error' (the function was not \
            run; what it needs is gone)"
        ])
    );
    let script = folder.join("verify.py");
    let baseline = world.ctx.dir.path().join("baseline.json");
    let (code, report) = run_script(
        &world,
        &script,
        &["--no-smoke", "--baseline", baseline.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{report:#}");
    let before = check(&report, "call-time:lib.error");
    assert_eq!(
        (
            &before["kind"],
            &before["status"],
            &before["package"],
            &before["uses"]
        ),
        (
            &"call-time".into(),
            &"pass".into(),
            &"app".into(),
            &"lib".into()
        )
    );
    assert_eq!(
        before["evidence"],
        "app 1.0 (app/__init__.py line 5, in run) uses lib.error"
    );
    let installed = pip(&world.venv)
        .args(["install", "--index-url", &url, "--", "lib==2.0"])
        .output()
        .unwrap();
    assert!(installed.status.success());
    let python = (std::fs::read_dir(world.venv.join("lib")).unwrap().flatten())
        .find(|e| e.file_name().to_string_lossy().starts_with("python"))
        .unwrap();
    let site = python.path().join("site-packages");
    std::fs::write(
        site.join("lib/error.py"),
        "class Timeout(Exception):\n    pass\n",
    )
    .unwrap();
    let (code, report) = run_script(
        &world,
        &script,
        &["--no-smoke", "--compare", baseline.to_str().unwrap()],
    );
    let after = check(&report, "call-time:lib.error");
    assert_eq!(
        (&after["status"], after.get("regression")),
        (&"pass".into(), None),
        "{after:#}"
    );
    assert_eq!(
        after["detail"],
        "the plan's call-time claim does not hold: app/__init__.py line 5, in run, uses \
         lib.error, and that is still there (the function was not run)"
    );
    assert_eq!(code, Some(0), "{report:#}");
    // No module `lib.error`, but `lib` binds `error`: `lib.error.Timeout` works, a pass.
    std::fs::remove_file(site.join("lib/error.py")).unwrap();
    let bound = "VERSION = 2\n\n\nclass error:\n    Timeout = Exception\n";
    std::fs::write(site.join("lib/__init__.py"), bound).unwrap();
    let compare = ["--no-smoke", "--compare", baseline.to_str().unwrap()];
    let (code, report) = run_script(&world, &script, &compare);
    let after = check(&report, "call-time:lib.error");
    assert_eq!(
        (&after["status"], code),
        (&"pass".into(), Some(0)),
        "{after:#}"
    );
    // Neither: the claimed break, a regression.
    std::fs::write(site.join("lib/__init__.py"), "VERSION = 2\n").unwrap();
    let (code, report) = run_script(&world, &script, &compare);
    let after = check(&report, "call-time:lib.error");
    assert_eq!(
        (&after["status"], &after["regression"], code),
        (&"fail".into(), &true.into(), Some(1)),
        "{after:#}"
    );
    assert_eq!(
        after["error"],
        "app/__init__.py line 5, in run, uses lib.error: ModuleNotFoundError: No module named \
         'lib.error' (the function was not run; what it needs is gone)"
    );
}
