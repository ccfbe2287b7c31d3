//! `planner bisect` on real venvs built here from a loopback index (no network): the venv is
//! made at its good state, snapshotted, upgraded, and bisected against the snapshot with real
//! test commands. After every run the venv's whole tree (paths, contents, modes, mtimes, link
//! targets) is hashed and compared with before, and no copy is left in TMPDIR.
//!
//! Worlds:
//! - eight projects `p1`..`p8`, each 1.0 -> 2.0; `pN.ok()` returns the version's major;
//! - `app` 1.0 -> 2.0 (1.0 needs `lib<2`, 2.0 `lib>=2`), `lib` 1.0 -> 2.0, `core` 1.0 ->
//!   2.0, and `plug` 1.0 added, which needs `core>=2` and breaks when imported.

use std::path::PathBuf;
use std::process::Command;

use crate::common::index_server::IndexServer;
use crate::common::{Output, TestContext};
use crate::planner_snapshot;
use crate::try_::{assert_same_tree, path_without_uv, pip_ok, tree};

struct World {
    ctx: TestContext,
    server: IndexServer,
    venv: PathBuf,
    good: PathBuf,
    tmp: PathBuf,
}

impl World {
    /// Build the index from `wheels`, install `good` from it, snapshot, then install `now`.
    fn new(wheels: serde_json::Value, good: &[&str], now: &[&str]) -> World {
        let ctx = TestContext::new();
        let root = ctx.path().join("index");
        let server = crate::common::index_server::tiny_wheels(&root, &wheels);
        let venv = ctx.path().join("venv");
        crate::common::venv::RealVenv::create(&venv);
        pip_ok(
            &venv,
            &[&["install", "--index-url", &server.url()], good].concat(),
        );
        let snapshot = ctx.path().join("good.json");
        let output = ctx.run(&[
            "snapshot",
            "--venv",
            venv.to_str().unwrap(),
            "--out",
            snapshot.to_str().unwrap(),
        ]);
        assert_eq!(output.code, Some(0), "{}", output.stderr);
        pip_ok(
            &venv,
            &[&["install", "--index-url", &server.url()], now].concat(),
        );
        let tmp = ctx.path().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        World {
            ctx,
            server,
            venv,
            good: snapshot,
            tmp,
        }
    }

    /// `bisect --good SNAPSHOT --venv V --index-url URL ARGS` with the pip installer.
    fn bisect(&self, args: &[&str]) -> Output {
        crate::common::run(
            self.ctx
                .command()
                .env("PATH", path_without_uv())
                .env("TMPDIR", &self.tmp)
                .args([
                    "bisect",
                    "--good",
                    self.good.to_str().unwrap(),
                    "--venv",
                    self.venv.to_str().unwrap(),
                    "--index-url",
                    &self.server.url(),
                ])
                .args(args),
        )
    }

    fn bisect_json(&self, args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
        let out = self.bisect(&[args, &["--format", "json"]].concat());
        (out.code, out.json(), out.stderr)
    }

    fn assert_no_copy_left(&self) {
        let left: Vec<_> = std::fs::read_dir(&self.tmp)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
    }
}

/// p1..p8 at 1.0 (good) and 2.0 (now).
fn eight() -> World {
    let mut wheels = Vec::new();
    for n in 1..=8 {
        for major in [1, 2] {
            wheels.push(serde_json::json!({
                "name": format!("p{n}"),
                "version": format!("{major}.0"),
                "files": {format!("p{n}/__init__.py"): format!("def ok():\n    return {major}\n")},
            }));
        }
    }
    let good: Vec<String> = (1..=8).map(|n| format!("p{n}==1.0")).collect();
    let now: Vec<String> = (1..=8).map(|n| format!("p{n}==2.0")).collect();
    World::new(
        serde_json::Value::Array(wheels),
        &good.iter().map(String::as_str).collect::<Vec<_>>(),
        &now.iter().map(String::as_str).collect::<Vec<_>>(),
    )
}

fn culprits(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["culprits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["from"].as_str().unwrap_or("-").to_string(),
                c["to"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect()
}

fn results(report: &serde_json::Value) -> Vec<String> {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["result"].as_str().unwrap().to_string())
        .collect()
}

fn pair(name: &str, from: &str, to: &str) -> (String, String, String) {
    (name.to_string(), from.to_string(), to.to_string())
}

#[test]
fn a_planted_break_among_eight_changes_is_found_in_at_most_five_runs() {
    let world = eight();
    let before = tree(&world.venv);
    let (code, report, stderr) =
        world.bisect_json(&["--test", "python -c 'import p5; assert p5.ok() == 1'"]);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    assert_eq!(report["schema"], "planner-bisect/1");
    assert_eq!(report["verdict"], "found");
    assert_eq!(culprits(&report), vec![pair("p5", "1.0", "2.0")]);
    assert_eq!(report["minimal"], true);
    assert_eq!(report["changes"].as_array().unwrap().len(), 8);
    let runs = report["runs"].as_u64().unwrap();
    assert!(runs <= 5, "{runs} runs: {report:#}");
    assert!(runs < report["one_at_a_time"].as_u64().unwrap());
    // Step 1 is the good state: everything reverted, and it passes.
    assert_eq!(report["steps"][0]["reverted"].as_array().unwrap().len(), 8);
    assert_eq!(report["steps"][0]["result"], "pass");
    for step in report["steps"].as_array().unwrap() {
        assert!(step["seconds"].as_f64().unwrap() > 0.0, "{step:#}");
    }
    let propose = report["fix"]["propose"].as_str().unwrap();
    assert!(
        propose.starts_with("planner propose 'p5==1.0' --venv "),
        "{propose}"
    );
    assert_same_tree(&before, &world.venv, "after a bisect");
    world.assert_no_copy_left();

    // The same run for people: the step log, the sentence, the fix.
    let out = world.bisect(&["--test", "python -c 'import p5; assert p5.ok() == 1'"]);
    planner_snapshot!(world.ctx, out, @r#"
        exit_code: 0
        ----- stdout -----
        Bisect of [TMP]/venv against [TMP]/good.json

        8 change(s) since the good state:
          p1 1.0 -> 2.0
          p2 1.0 -> 2.0
          p3 1.0 -> 2.0
          p4 1.0 -> 2.0
          p5 1.0 -> 2.0
          p6 1.0 -> 2.0
          p7 1.0 -> 2.0
          p8 1.0 -> 2.0

        Steps:
          step 1: reverted p1, p2, p3, p4, p5, p6, p7, p8: pass in [TIME]
          step 2: reverted p5, p6, p7, p8: pass in [TIME]
          step 3: reverted p7, p8: FAIL in [TIME] (`python -c 'import p5; assert p5.ok() == 1'`: exit 1: AssertionError)
          step 4: reverted p6, p7, p8: FAIL in [TIME] (`python -c 'import p5; assert p5.ok() == 1'`: exit 1: AssertionError)
          step 5: reverted p1, p2, p3, p4, p6, p7, p8: FAIL in [TIME] (`python -c 'import p5; assert p5.ok() == 1'`: exit 1: AssertionError)

        5 check run(s); one change at a time would take up to 9.

        The failure comes with p5 1.0 -> 2.0 alone: with only that change applied to the good state the check fails, with nothing applied it passes.

        To hold it back and see what has to move with it:
          planner propose 'p5==1.0' --venv [TMP]/venv --index-url http://127.0.0.1:[PORT]/simple/

        ----- stderr -----
        8 change(s) since [TMP]/good.json; each step reverts some in a copy of [TMP]/venv (pip)
        step 1: reverted p1, p2, p3, p4, p5, p6, p7, p8: pass in [TIME]
        step 2: reverted p5, p6, p7, p8: pass in [TIME]
        step 3: reverted p7, p8: FAIL in [TIME] (`python -c 'import p5; assert p5.ok() == 1'`: exit 1: AssertionError)
        step 4: reverted p6, p7, p8: FAIL in [TIME] (`python -c 'import p5; assert p5.ok() == 1'`: exit 1: AssertionError)
        step 5: reverted p1, p2, p3, p4, p6, p7, p8: FAIL in [TIME] (`python -c 'import p5; assert p5.ok() == 1'`: exit 1: AssertionError)
        "#);
    assert_same_tree(&before, &world.venv, "after a second bisect");
    world.assert_no_copy_left();
}

#[test]
fn two_changes_that_only_break_together_are_found_as_a_pair() {
    let world = eight();
    let before = tree(&world.venv);
    let test = "python -c 'import p2, p6; assert (p2.ok(), p6.ok()) != (2, 2)'";
    let (code, report, stderr) = world.bisect_json(&["--test", test]);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    assert_eq!(
        culprits(&report),
        vec![pair("p2", "1.0", "2.0"), pair("p6", "1.0", "2.0")]
    );
    assert_eq!(report["minimal"], true, "{report:#}");
    assert!(report["runs"].as_u64().unwrap() <= 9, "{report:#}");
    let propose = report["fix"]["propose"].as_str().unwrap();
    assert!(
        propose.starts_with("planner propose 'p2==1.0' 'p6==1.0' --venv "),
        "{propose}"
    );
    assert_same_tree(&before, &world.venv, "after a bisect");
    world.assert_no_copy_left();
}

#[test]
fn a_good_state_that_fails_too_is_said_and_the_bisect_stops() {
    let world = eight();
    let before = tree(&world.venv);
    let (code, report, _) =
        world.bisect_json(&["--test", "python -c 'import p1; assert p1.ok() == 3'"]);
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(report["verdict"], "good-fails");
    assert_eq!(results(&report), vec!["fail"]);
    assert_eq!(report["culprits"], serde_json::json!([]));
    assert!(report["fix"].is_null());
    let out = world.bisect(&["--test", "python -c 'import p1; assert p1.ok() == 3'"]);
    planner_snapshot!(world.ctx, out, @r#"
        exit_code: 1
        ----- stdout -----
        Bisect of [TMP]/venv against [TMP]/good.json

        8 change(s) since the good state:
          p1 1.0 -> 2.0
          p2 1.0 -> 2.0
          p3 1.0 -> 2.0
          p4 1.0 -> 2.0
          p5 1.0 -> 2.0
          p6 1.0 -> 2.0
          p7 1.0 -> 2.0
          p8 1.0 -> 2.0

        Steps:
          step 1: reverted p1, p2, p3, p4, p5, p6, p7, p8: FAIL in [TIME] (`python -c 'import p1; assert p1.ok() == 3'`: exit 1: AssertionError)

        1 check run(s); one change at a time would take up to 9.

        The check fails in the good state too: the changes since then are not what broke it (or the check fails for another reason). Stopped.

        ----- stderr -----
        8 change(s) since [TMP]/good.json; each step reverts some in a copy of [TMP]/venv (pip)
        step 1: reverted p1, p2, p3, p4, p5, p6, p7, p8: FAIL in [TIME] (`python -c 'import p1; assert p1.ok() == 3'`: exit 1: AssertionError)
        "#);
    // A hanging check is killed at --timeout and counts as failing.
    let (code, report, _) = world.bisect_json(&["--test", "sleep 60", "--timeout", "1"]);
    assert_eq!(code, Some(1), "{report:#}");
    assert_eq!(report["verdict"], "good-fails");
    assert_eq!(results(&report), vec!["timeout"]);
    assert!(report["steps"][0]["seconds"].as_f64().unwrap() < 30.0);
    assert_same_tree(&before, &world.venv, "after the bisects");
    world.assert_no_copy_left();
}

#[test]
fn a_flaky_check_is_retried() {
    let world = eight();
    // Fails every other run, whatever is installed: without --retries the good state "fails".
    let flag = world.ctx.path().join("flip");
    let flaky = format!(
        "python -c 'import p5; assert p5.ok() == 1' && if [ -e {f} ]; then rm {f}; else touch {f}; exit 1; fi",
        f = flag.display()
    );
    let (_, report, _) = world.bisect_json(&["--test", &flaky]);
    assert_eq!(report["verdict"], "good-fails", "{report:#}");
    let _ = std::fs::remove_file(&flag);
    let (code, report, stderr) = world.bisect_json(&["--test", &flaky, "--retries", "1"]);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    assert_eq!(culprits(&report), vec![pair("p5", "1.0", "2.0")]);
    assert_eq!(report["steps"][0]["attempts"], 2, "{report:#}");
    world.assert_no_copy_left();
}

/// app / lib move together (app 1.0 needs lib<2, 2.0 lib>=2); legacy 1.0 (removed since)
/// needs core<2; plug 1.0 (added since) needs core>=2 and breaks at import.
fn plugged() -> World {
    let wheels = serde_json::json!([
        {"name": "app", "version": "1.0", "requires": ["lib<2"], "files": {"app/__init__.py": ""}},
        {"name": "app", "version": "2.0", "requires": ["lib>=2"], "files": {"app/__init__.py": ""}},
        {"name": "lib", "version": "1.0", "files": {"lib/__init__.py": ""}},
        {"name": "lib", "version": "2.0", "files": {"lib/__init__.py": ""}},
        {"name": "core", "version": "1.0", "files": {"core/__init__.py": ""}},
        {"name": "core", "version": "2.0", "files": {"core/__init__.py": ""}},
        {"name": "legacy", "version": "1.0", "requires": ["core<2"], "files": {"legacy/__init__.py": ""}},
        {"name": "plug", "version": "1.0", "requires": ["core>=2"],
         "files": {"plug/__init__.py": "raise RuntimeError('plug 1.0 breaks the run')\n"}},
    ]);
    let world = World::new(
        wheels,
        &["app==1.0", "lib==1.0", "core==1.0", "legacy==1.0"],
        &["app==2.0", "lib==2.0", "core==2.0", "plug==1.0"],
    );
    pip_ok(&world.venv, &["uninstall", "-y", "legacy"]);
    world
}

#[test]
fn a_subset_with_no_consistent_state_is_skipped_and_said() {
    let world = plugged();
    let before = tree(&world.venv);
    let check = world.ctx.path().join("check.py");
    std::fs::write(
        &check,
        "try:\n    import plug\nexcept ImportError as e:\n    if 'plug' not in str(e): raise\n",
    )
    .unwrap();
    let test = format!("python {}", check.display());
    let (code, report, stderr) = world.bisect_json(&["--test", &test]);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    let steps = report["steps"].as_array().unwrap();
    // Core 2.0 kept while legacy 1.0 (core<2) comes back has no consistent state: skipped,
    // and why.
    let skipped: Vec<&serde_json::Value> =
        steps.iter().filter(|s| s["result"] == "skipped").collect();
    assert!(!skipped.is_empty(), "{report:#}");
    for step in &skipped {
        assert_eq!(step["attempts"], 0);
    }
    let details: Vec<&str> = skipped
        .iter()
        .map(|s| s["detail"].as_str().unwrap())
        .collect();
    insta::assert_snapshot!("skipped_steps_say_why", details.join("\n"));
    // Applying app takes lib 2.0 with it (app 2.0 needs lib>=2): one unit, said.
    assert!(
        steps
            .iter()
            .any(|s| s["kept"] == serde_json::json!(["lib"])),
        "{report:#}"
    );
    // plug needs core 2.0, which needs legacy gone: the culprits are plug and legacy's
    // removal, with core as what they need; plug alone cannot be built, so not proven minimal.
    assert_eq!(
        culprits(&report),
        vec![pair("legacy", "1.0", "-"), pair("plug", "-", "1.0")],
        "{report:#}"
    );
    assert_eq!(report["needed"][0]["name"], "core", "{report:#}");
    assert_eq!(report["minimal"], false);
    assert_eq!(report["fix"]["remove"], serde_json::json!(["plug"]));
    assert_same_tree(&before, &world.venv, "after a bisect");
    world.assert_no_copy_left();
    // The real venv still has plug and its versions.
    let out = Command::new(world.venv.join("bin/python"))
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('app'), m.version('plug'))",
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "2.0 1.0");
}

#[test]
fn bisect_explains_what_it_cannot_do() {
    let world = eight();
    let output = world.ctx.run(&[
        "bisect",
        "--good",
        "/nonexistent/good.json",
        "--venv",
        world.venv.to_str().unwrap(),
        "--test",
        "true",
    ]);
    planner_snapshot!(world.ctx, output, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
          × `/nonexistent/good.json` (--good) is neither a file nor a venv
          help: pass a `planner snapshot` file, `pip inspect` output or a venv folder
        "#);
    let output = world
        .ctx
        .run(&["bisect", "--good", world.good.to_str().unwrap()]);
    planner_snapshot!(world.ctx, output, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        error: the following required arguments were not provided:
          --test <CMD>

        Usage: planner bisect --good <SNAPSHOT> --test <CMD>

        For more information, try '--help'.
        "#);

    // Nothing fails now: said, exit 1.
    let (code, report, _) = world.bisect_json(&["--test", "true"]);
    assert_eq!(code, Some(1));
    assert_eq!(report["verdict"], "current-passes", "{report:#}");
    // Found without searching every set: the state as it is now is run once the search
    // needs what it assumed.
    assert!(report["runs"].as_u64().unwrap() <= 6, "{report:#}");
    world.assert_no_copy_left();
}

#[test]
fn since_reconstructs_the_good_state_from_install_records_and_upload_times() {
    let ctx = TestContext::new();
    let root = ctx.path().join("index");
    let mut wheels = Vec::new();
    for n in 1..=4 {
        for (major, uploaded) in [(1, "2025-01-01T00:00:00Z"), (2, "2025-06-01T00:00:00Z")] {
            wheels.push(serde_json::json!({
                "name": format!("p{n}"),
                "version": format!("{major}.0"),
                "files": {format!("p{n}/__init__.py"): format!("def ok():\n    return {major}\n")},
                "upload_time": uploaded,
            }));
        }
    }
    wheels.push(
        serde_json::json!({"name": "extra", "version": "1.0", "files": {"extra/__init__.py": ""}}),
    );
    let server = crate::common::index_server::tiny_wheels(&root, &serde_json::Value::Array(wheels));
    let venv = ctx.path().join("venv");
    crate::common::venv::RealVenv::create(&venv);
    let url = server.url();
    pip_ok(
        &venv,
        &[
            "install",
            "--index-url",
            &url,
            "p1==1.0",
            "p2==1.0",
            "p3==1.0",
            "p4==1.0",
        ],
    );
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let cutoff = jiff::Timestamp::now().to_string();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    pip_ok(
        &venv,
        &[
            "install",
            "--index-url",
            &url,
            "p2==2.0",
            "p3==2.0",
            "extra==1.0",
        ],
    );
    let before = tree(&venv);
    let tmp = ctx.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let output = ctx
        .command()
        .env("PATH", path_without_uv())
        .env("TMPDIR", &tmp)
        .args([
            "bisect",
            "--since",
            &cutoff,
            "--venv",
            venv.to_str().unwrap(),
        ])
        .args(["--index-url", &url, "--format", "json"])
        .args(["--test", "python -c 'import p3; assert p3.ok() == 1'"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let changes: Vec<String> = report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{} {} {}", c["name"], c["from"], c["to"]))
        .collect();
    assert_eq!(
        changes,
        vec![
            r#""extra" null "1.0""#,
            r#""p2" "1.0" "2.0""#,
            r#""p3" "1.0" "2.0""#
        ],
        "{report:#}"
    );
    assert_eq!(culprits(&report), vec![pair("p3", "1.0", "2.0")]);
    let assumed = report["assumed"].as_array().unwrap();
    assert!(
        assumed.iter().any(|a| a
            .as_str()
            .unwrap()
            .starts_with("extra: 1.0 installed since, and no older release")),
        "{assumed:?}"
    );
    assert_same_tree(&before, &venv, "after a bisect --since");
    assert!(std::fs::read_dir(&tmp).unwrap().next().is_none());
}

/// The live case (docs/bisect.md): urllib3 2 breaks the check, but the good requests pins
/// urllib3<2 and the new requests needs a newer certifi. Asking for urllib3 alone must test
/// urllib3 with what it needs, never a state where the solver took urllib3 back (the first
/// version of the search did, and named certifi, requests and urllib3 together).
#[test]
fn a_culprit_that_needs_other_changes_is_named_with_them() {
    let mut wheels = vec![
        serde_json::json!({"name": "req", "version": "1.0", "requires": ["lib3<2", "cert>=1"], "files": {"req/__init__.py": ""}}),
        serde_json::json!({"name": "req", "version": "2.0", "requires": ["lib3<3", "cert>=2"], "files": {"req/__init__.py": ""}}),
        serde_json::json!({"name": "lib3", "version": "1.0", "files": {"lib3/__init__.py": "def retry(method_whitelist):\n    return 1\n"}}),
        serde_json::json!({"name": "lib3", "version": "2.0", "files": {"lib3/__init__.py": "def retry(allowed_methods):\n    return 2\n"}}),
        serde_json::json!({"name": "cert", "version": "1.0", "files": {"cert/__init__.py": ""}}),
        serde_json::json!({"name": "cert", "version": "2.0", "files": {"cert/__init__.py": ""}}),
    ];
    for n in 1..=5 {
        for major in [1, 2] {
            wheels.push(serde_json::json!({
                "name": format!("p{n}"), "version": format!("{major}.0"),
                "files": {format!("p{n}/__init__.py"): ""},
            }));
        }
    }
    let mut good = vec!["req==1.0", "lib3==1.0", "cert==1.0"];
    let mut now = vec!["req==2.0", "lib3==2.0", "cert==2.0"];
    let (g, n): (Vec<String>, Vec<String>) = (1..=5)
        .map(|i| (format!("p{i}==1.0"), format!("p{i}==2.0")))
        .unzip();
    good.extend(g.iter().map(String::as_str));
    now.extend(n.iter().map(String::as_str));
    let world = World::new(serde_json::Value::Array(wheels), &good, &now);
    let before = tree(&world.venv);
    let (code, report, stderr) = world.bisect_json(&[
        "--test",
        "python -c 'import lib3; lib3.retry(method_whitelist=1)'",
    ]);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    assert_eq!(
        culprits(&report),
        vec![pair("lib3", "1.0", "2.0")],
        "{report:#}"
    );
    let needed: Vec<&str> = report["needed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(needed, vec!["cert", "req"]);
    assert_eq!(report["minimal"], true);
    assert!(report["runs"].as_u64().unwrap() <= 5, "{report:#}");
    assert_same_tree(&before, &world.venv, "after a bisect");
    world.assert_no_copy_left();
}

#[test]
fn ctrl_c_while_a_check_runs_removes_the_copy_and_exits_130() {
    let world = eight();
    let before = tree(&world.venv);
    let marker = world.ctx.path().join("check-started");
    let test = format!("touch '{}'; sleep 60", marker.display());
    let mut child = world
        .ctx
        .command()
        .env("PATH", path_without_uv())
        .env("TMPDIR", &world.tmp)
        .args(["bisect", "--good", world.good.to_str().unwrap()])
        .args([
            "--venv",
            world.venv.to_str().unwrap(),
            "--index-url",
            &world.server.url(),
        ])
        .args(["--test", &test])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !marker.exists() {
        assert!(started.elapsed().as_secs() < 120, "the check never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let stopped = std::time::Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        assert!(stopped.elapsed().as_secs() < 20, "planner did not stop");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(code, Some(130));
    assert_same_tree(&before, &world.venv, "after Ctrl-C");
    world.assert_no_copy_left();
}

#[test]
fn verify_as_the_check_finds_a_release_that_breaks_at_import() {
    let mut wheels = Vec::new();
    for name in ["alpha", "beta", "gamma"] {
        for major in [1, 2] {
            let code = if name == "beta" && major == 2 {
                "from beta._speedups import fast\n".to_string()
            } else {
                format!("V = {major}\n")
            };
            wheels.push(serde_json::json!({
                "name": name, "version": format!("{major}.0"),
                "files": {format!("{name}/__init__.py"): code},
            }));
        }
    }
    let world = World::new(
        serde_json::Value::Array(wheels),
        &["alpha==1.0", "beta==1.0", "gamma==1.0"],
        &["alpha==2.0", "beta==2.0", "gamma==2.0"],
    );
    let before = tree(&world.venv);
    let (code, report, stderr) = world.bisect_json(&["--verify"]);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    assert_eq!(report["verdict"], "found", "{report:#}");
    assert_eq!(culprits(&report), vec![pair("beta", "1.0", "2.0")]);
    assert_eq!(report["check"]["verify"], true);
    assert_same_tree(&before, &world.venv, "after a bisect --verify");
    world.assert_no_copy_left();
}

/// The measured case: `jaxish` needs `dtypes>=0.5` and fails at import below it; `dtypes` 0.3
/// and `proto` 3.0 (against `board`'s `proto>=4`) were forced in with `--no-deps`, and `six`
/// and `einsum` went down harmlessly. Every state that keeps a forced override is a valid
/// state (it was refused as "no consistent state", the current state among them, and the
/// bisect was inconclusive): the culprit is `dtypes`, named as an override.
#[test]
fn a_forced_override_is_a_valid_state_and_is_named_as_the_culprit() {
    let mut wheels = vec![
        serde_json::json!({"name": "jaxish", "version": "1.0", "requires": ["dtypes>=0.5"],
            "files": {"jaxish/__init__.py":
                "import dtypes\nif dtypes.MINOR < 5:\n    raise ImportError('dtypes too old')\n"}}),
        serde_json::json!({"name": "board", "version": "1.0", "requires": ["proto>=4"],
            "files": {"board/__init__.py": ""}}),
    ];
    for (name, versions) in [
        ("dtypes", ["0.3", "0.7"]),
        ("proto", ["3.0", "7.0"]),
        ("six", ["1.16", "1.17"]),
        ("einsum", ["3.3", "3.4"]),
    ] {
        for version in versions {
            let minor = version.split('.').nth(1).unwrap();
            wheels.push(serde_json::json!({"name": name, "version": version,
                "files": {format!("{name}/__init__.py"): format!("MINOR = {minor}\n")}}));
        }
    }
    let world = World::new(
        serde_json::Value::Array(wheels),
        &[
            "jaxish==1.0",
            "board==1.0",
            "dtypes==0.7",
            "proto==7.0",
            "six==1.17",
            "einsum==3.4",
        ],
        &[
            "--no-deps",
            "dtypes==0.3",
            "proto==3.0",
            "six==1.16",
            "einsum==3.3",
        ],
    );
    let before = tree(&world.venv);
    let (code, report, stderr) = world.bisect_json(&["--test", "python -c 'import jaxish'"]);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    assert_eq!(
        culprits(&report),
        vec![pair("dtypes", "0.7", "0.3")],
        "{report:#}"
    );
    assert_eq!(
        report["culprits"][0]["overrides"],
        serde_json::json!(["jaxish 1.0 requires dtypes>=0.5"]),
        "{report:#}"
    );
    let proto = report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "proto")
        .unwrap();
    assert_eq!(
        proto["overrides"],
        serde_json::json!(["board 1.0 requires proto>=4"])
    );
    assert!(
        !results(&report).contains(&"skipped".to_string()),
        "{report:#}"
    );
    // The text names the forced override and the requirement it was installed against.
    let text = world.bisect(&["--test", "python -c 'import jaxish'"]);
    planner_snapshot!(world.ctx, "forced_override_text", text);
    assert_same_tree(&before, &world.venv, "after a bisect");
    world.assert_no_copy_left();
}

/// A module edited in place after the snapshot (the hand patch of the incident) is a change the
/// bisect reverts, by reinstalling the same release in the copy, and names with its file; the
/// three upgrades beside it are harmless. The real venv keeps its edit.
#[test]
fn a_file_edited_in_place_is_reverted_by_a_reinstall_and_named() {
    let mut wheels = vec![serde_json::json!({"name": "tune", "version": "1.0",
        "files": {"tune/__init__.py": "", "tune/auto.py": "def run():\n    return 1\n"}})];
    for n in 1..=3 {
        for major in [1, 2] {
            wheels.push(serde_json::json!({
                "name": format!("p{n}"), "version": format!("{major}.0"),
                "files": {format!("p{n}/__init__.py"): ""},
            }));
        }
    }
    let world = World::new(
        serde_json::Value::Array(wheels),
        &["tune==1.0", "p1==1.0", "p2==1.0", "p3==1.0"],
        &["p1==2.0", "p2==2.0", "p3==2.0"],
    );
    let site = crate::common::venv::RealVenv::at(&world.venv).site_packages();
    let patched = "def run():\n    raise RuntimeError('patched by hand')\n\nrun()\n";
    std::fs::write(site.join("tune/auto.py"), patched).unwrap();
    let before = tree(&world.venv);
    let (code, report, stderr) = world.bisect_json(&["--test", "python -c 'import tune.auto'"]);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    assert_eq!(culprits(&report), vec![pair("tune", "1.0", "1.0")]);
    assert_eq!(report["culprits"][0]["kind"], "edited-in-place");
    assert_eq!(
        report["culprits"][0]["files"],
        serde_json::json!(["tune/auto.py"])
    );
    assert_eq!(report["fix"]["reinstall"], serde_json::json!(["tune==1.0"]));
    assert_eq!(report["fix"]["propose"], serde_json::Value::Null);
    let text = world.bisect(&["--test", "python -c 'import tune.auto'"]);
    planner_snapshot!(world.ctx, "edited_in_place_text", text);
    assert_same_tree(&before, &world.venv, "after a bisect");
    assert_eq!(
        std::fs::read_to_string(site.join("tune/auto.py")).unwrap(),
        patched
    );
    world.assert_no_copy_left();
}

/// The state as it is now is taken as it is: an upgrade that broke declared edges of dists it
/// did not move (app 1.0 and tool 1.0 require `lib<2`; lib 2.0 installed over them, as `pip
/// install lib==2.0` does with a warning) leaves those edges out of every state. Before, every
/// step that kept lib 2.0 had "no consistent state" and no set was isolated.
#[test]
fn edges_broken_now_are_left_out_and_the_culprit_found() {
    let wheels = serde_json::json!([
        {"name": "app", "version": "1.0", "requires": ["lib<2"], "files": {"app/__init__.py": ""}},
        {"name": "tool", "version": "1.0", "requires": ["lib<2"], "files": {"tool/__init__.py": ""}},
        {"name": "lib", "version": "1.0", "files": {"lib/__init__.py": "def ok():\n    return 1\n"}},
        {"name": "lib", "version": "2.0", "files": {"lib/__init__.py": "def ok():\n    return 2\n"}},
        {"name": "core", "version": "1.0", "files": {"core/__init__.py": ""}},
        {"name": "core", "version": "2.0", "files": {"core/__init__.py": ""}},
    ]);
    let world = World::new(
        wheels,
        &["app==1.0", "tool==1.0", "lib==1.0", "core==1.0"],
        &["lib==2.0", "core==2.0"],
    );
    let test = "python -c 'import lib; assert lib.ok() == 1'";
    let (code, report, stderr) = world.bisect_json(&["--test", test]);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    assert_eq!(culprits(&report), vec![pair("lib", "1.0", "2.0")]);
    assert!(
        !results(&report).iter().any(|r| r == "skipped"),
        "{report:#}"
    );
    world.assert_no_copy_left();
}
