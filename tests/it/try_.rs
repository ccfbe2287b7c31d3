//! `planner try` on real venvs built here from a loopback index (no network): a clean plan, a
//! forced downgrade whose dependent breaks at import and fails a `--test`, an install that
//! fails halfway, and a Ctrl-C while a test runs. After every run the original venv's whole
//! tree (paths, contents, modes, mtimes, link targets) is hashed and compared with before, and
//! the copy is gone. Then the rollback scripts of the plan folders, run for real: apply, roll
//! back, and `pip list` / `pip check` equal to before.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::index_server::IndexServer;
use crate::common::{TestContext, run};
use crate::planner_snapshot;

/// `python -m pip ARGS` in `venv` from the loopback index, with no configuration from the host.
pub(crate) fn pip_ok(venv: &Path, args: &[&str]) {
    let mut cmd = Command::new(venv.join("bin/python"));
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("PIP_") {
            cmd.env_remove(&key);
        }
    }
    let out = cmd
        .args(["-m", "pip", "--disable-pip-version-check", "--no-input"])
        .args(args)
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("PIP_NO_CACHE_DIR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every entry under `root`: kind, mode, mtime (ns), size, and the bytes or the link target.
pub(crate) fn tree(root: &Path) -> BTreeMap<PathBuf, (u32, i64, i64, u64, Vec<u8>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let body = if meta.file_type().is_symlink() {
                std::fs::read_link(&path)
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes()
            } else if meta.is_file() {
                std::fs::read(&path).unwrap()
            } else {
                stack.push(path.clone());
                Vec::new()
            };
            let key = path.strip_prefix(root).unwrap().to_path_buf();
            out.insert(
                key,
                (
                    meta.mode(),
                    meta.mtime(),
                    meta.mtime_nsec(),
                    meta.len(),
                    body,
                ),
            );
        }
    }
    let meta = std::fs::metadata(root).unwrap();
    out.insert(
        PathBuf::new(),
        (meta.mode(), meta.mtime(), meta.mtime_nsec(), 0, Vec::new()),
    );
    out
}

pub(crate) fn assert_same_tree(
    before: &BTreeMap<PathBuf, (u32, i64, i64, u64, Vec<u8>)>,
    venv: &Path,
    when: &str,
) {
    let after = tree(venv);
    let changed: Vec<&PathBuf> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .collect();
    assert!(
        changed.is_empty(),
        "{when}: the original venv changed: {changed:?}"
    );
}

/// A PATH without uv (the pip path), or `None` when uv is not on PATH at all.
pub(crate) fn path_without_uv() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("uv").exists())
        .collect();
    std::env::join_paths(dirs)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

pub(crate) fn uv_on_path() -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).any(|d| d.join("uv").is_file())
        && Command::new("uv")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
}

/// lib 2.0 has `new`, lib 1.0 does not; app requires lib>=2 and imports `new`; tool is free.
struct World {
    ctx: TestContext,
    server: IndexServer,
    root: PathBuf,
    venv: PathBuf,
    tmp: PathBuf,
}

impl World {
    fn new() -> World {
        let ctx = TestContext::new();
        let root = ctx.path().join("index");
        let wheels = serde_json::json!([
            {"name": "lib", "version": "1.0", "files": {"lib/__init__.py": "def old():\n    return 1\n"}},
            {"name": "lib", "version": "2.0", "files": {"lib/__init__.py": "def old():\n    return 1\ndef new():\n    return 2\n"}},
            {"name": "app", "version": "1.0", "requires": ["lib>=2"],
             "files": {"app/__init__.py": "from lib import new\n"}},
            {"name": "tool", "version": "1.0", "files": {"tool/__init__.py": "V = 1\n"}},
            {"name": "tool", "version": "1.1", "requires": ["helper"],
             "files": {"tool/__init__.py": "V = 2\n"}},
            {"name": "helper", "version": "1.0", "files": {"helper/__init__.py": ""}},
        ]);
        let server = crate::common::index_server::tiny_wheels(&root, &wheels);
        let venv = ctx.path().join("venv");
        crate::common::venv::RealVenv::create(&venv);
        pip_ok(
            &venv,
            &["install", "--index-url", &server.url(), "app", "tool==1.0"],
        );
        let tmp = ctx.path().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        World {
            ctx,
            server,
            root,
            venv,
            tmp,
        }
    }

    fn command(&self, path: &str) -> Command {
        let mut cmd = self.ctx.command();
        cmd.env("PATH", path).env("TMPDIR", &self.tmp);
        cmd
    }

    /// `propose ARGS --out-dir D`; the folder of the plan whose kind is `kind`.
    fn propose(&self, args: &[&str], kind: &str) -> PathBuf {
        let out = self.ctx.path().join(format!("plans-{}", args.join("-")));
        let output = self.ctx.run(
            &[
                &["propose"],
                args,
                &[
                    "--venv",
                    self.venv.to_str().unwrap(),
                    "--index-url",
                    &self.server.url(),
                    "--out-dir",
                    out.to_str().unwrap(),
                ],
            ]
            .concat(),
        );
        assert!(matches!(output.code, Some(0 | 1)), "{}", output.stderr);
        let plans = out.join("plans");
        std::fs::read_dir(&plans)
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", output.stdout, output.stderr))
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(kind))
            .unwrap_or_else(|| panic!("no {kind} plan:\n{}", output.stdout))
    }

    fn try_plan(
        &self,
        path: &str,
        plan: &Path,
        extra: &[&str],
    ) -> (Option<i32>, serde_json::Value, String) {
        self.try_plan_with(path, plan, extra, &[])
    }

    /// [`World::try_plan`] with these environment variables set.
    fn try_plan_with(
        &self,
        path: &str,
        plan: &Path,
        extra: &[&str],
        vars: &[(&str, &str)],
    ) -> (Option<i32>, serde_json::Value, String) {
        let output = self
            .command(path)
            .envs(vars.iter().copied())
            .args(["try", plan.to_str().unwrap(), "--format", "json"])
            .args(extra)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let json = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}\nstderr:\n{stderr}"));
        (output.status.code(), json, stderr)
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

fn installers() -> Vec<(&'static str, String)> {
    let mut out = vec![("pip", path_without_uv())];
    if uv_on_path() {
        out.push(("uv", std::env::var("PATH").unwrap()));
    } else {
        crate::common::skip("try with uv", "uv is not on PATH");
    }
    out
}

/// A shared library (and compiled bytecode) no step edits is hard-linked into the copy by
/// default (only a process that opens it for writing could reach the original: detected
/// afterwards); `PLANNER_TRY_COPY=full` links nothing, so nothing in the copy shares an inode with
/// the original; another value is refused naming the variable.
#[test]
fn try_copy_full_shares_no_file_with_the_original() {
    let world = World::new();
    let clean = world.propose(&["tool==1.1"], "upgrade");
    let lib = world.venv.join("lib");
    let python = std::fs::read_dir(&lib)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let site = python.join("site-packages");
    std::fs::write(
        site.join("lib/_speedups.cpython-312-x86_64-linux-gnu.so"),
        b"\x7fELF",
    )
    .unwrap();
    let path = path_without_uv();
    let (code, report, stderr) = world.try_plan(&path, &clean, &[]);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    if report["copy"]["method"] != "hardlink" {
        return crate::common::skip("try copy modes", "no hard links in this temp folder");
    }
    // The library, and the bytecode of every dist the plan does not change (pip's among them).
    let bytecode = tree(&world.venv)
        .keys()
        .filter(|p| p.extension().is_some_and(|e| e == "pyc"))
        .filter(|p| !p.to_string_lossy().contains("site-packages/tool/"))
        .count();
    assert!(bytecode > 0);
    assert_eq!(report["copy"]["linked"], 1 + bytecode, "{report:#}");
    let full = [("PLANNER_TRY_COPY", "full")];
    let (code, report, stderr) = world.try_plan_with(&path, &clean, &[], &full);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    assert_eq!(report["copy"]["method"], "copy", "{report:#}");
    assert_eq!(report["copy"]["linked"], 0, "{report:#}");
    let typo = run(world
        .command(&path)
        .env("PLANNER_TRY_COPY", "ful")
        .args(["try", clean.to_str().unwrap()]));
    planner_snapshot!(world.ctx, "try_copy_mode_misspelt", typo);
}

/// What a try report says about its checks and tests, whichever copy the baseline ran in: the
/// verdict, the regressions, the counts before and after, each check's status (and regression
/// and status before) and each test's exits.
fn measured(report: &serde_json::Value) -> serde_json::Value {
    let checks: Vec<serde_json::Value> = report["report"]["checks"]
        .as_array()
        .map(|checks| {
            checks
                .iter()
                .map(|c| serde_json::json!([c["name"], c["status"], c["regression"], c["before"]]))
                .collect()
        })
        .unwrap_or_default();
    let tests: Vec<serde_json::Value> = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| serde_json::json!([t["command"], t["before"]["exit"], t["after"]["exit"]]))
        .collect();
    // The copy's temp folder (`planner-try-XXXXXX`) is each run's own.
    let regressions: Vec<String> = report["regressions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let text = r.as_str().unwrap();
            match text.split_once("planner-try-") {
                Some((head, tail)) => format!("{head}planner-try-*{}", &tail[6..]),
                None => text.to_string(),
            }
        })
        .collect();
    serde_json::json!({
        "verdict": report["verdict"],
        "regressions": regressions,
        "baseline": report["baseline"],
        "verify": report["verify"],
        "checks": checks,
        "tests": tests,
    })
}

/// The baseline taken in a second copy beside the plan's install (`PLANNER_TRY_BASELINE=beside`,
/// the default from 4 cores) reports what the baseline taken first in the one copy reports: the
/// same verdict, regressions, counts, checks and tests, for a clean plan and a breaking one with
/// a test that fails before and after (not a regression); its copy is said, its hard links are
/// checked, both copies are removed and the original is untouched. A misspelt value is refused.
#[test]
fn a_baseline_beside_the_install_reports_what_a_baseline_first_reports() {
    let world = World::new();
    let clean = world.propose(&["tool==1.1"], "upgrade");
    let forced = world.propose(&["lib==1.0", "--allow-override"], "forced-override");
    let before = tree(&world.venv);
    let path = path_without_uv();
    let tests = [
        "--test",
        "python -c 'import app'",
        "--test",
        "python -c 'import tool; assert tool.V == 1'",
        "--test",
        "false",
    ];
    for (plan, exit) in [(&clean, 1), (&forced, 1)] {
        let mut reports = Vec::new();
        for mode in ["first", "beside"] {
            let vars = [("PLANNER_TRY_BASELINE", mode)];
            let (code, report, stderr) = world.try_plan_with(&path, plan, &tests, &vars);
            assert_eq!(code, Some(exit), "{mode}: {report:#}\n{stderr}");
            assert_eq!(
                report.get("baseline_copy").is_some(),
                mode == "beside",
                "{mode}: {report:#}"
            );
            let linked = report["copy"]["linked"].as_u64().unwrap()
                + report["baseline_copy"]["linked"].as_u64().unwrap_or(0);
            assert_eq!(report["original"]["checked"], linked, "{report:#}");
            assert_eq!(report["original"]["changed"], serde_json::json!([]));
            assert_same_tree(&before, &world.venv, mode);
            world.assert_no_copy_left();
            reports.push(measured(&report));
        }
        assert_eq!(reports[0], reports[1], "first, then beside");
    }
    let text = run(world
        .command(&path)
        .env("PLANNER_TRY_BASELINE", "beside")
        .args(["try", clean.to_str().unwrap()]));
    let said: Vec<&str> = text
        .stdout
        .lines()
        .filter(|l| l.starts_with("  baseline "))
        .map(|l| l.split(" (").next().unwrap())
        .collect();
    assert_eq!(
        said,
        ["  baseline in a second copy, beside the install"],
        "{}",
        text.stdout
    );
    let typo = run(world
        .command(&path)
        .env("PLANNER_TRY_BASELINE", "sideways")
        .args(["try", clean.to_str().unwrap()]));
    planner_snapshot!(world.ctx, "try_baseline_mode_misspelt", typo);
}

/// The default baseline (`needed`): the plan is checked first and a baseline, in a second copy of
/// the original, takes only the checks and tests that did not pass after it. It finds the
/// regressions and the failures that were already there that a whole baseline finds: the same
/// verdict, regressions, counts after the plan, and each failing check's and test's status
/// before; a check or test that passed after the plan is not run before it. A plan that passes
/// everything runs no baseline and no second copy. The original is untouched, no copy is left.
#[test]
fn a_baseline_of_what_did_not_pass_finds_what_a_whole_baseline_finds() {
    let world = World::new();
    let clean = world.propose(&["tool==1.1"], "upgrade");
    let forced = world.propose(&["lib==1.0", "--allow-override"], "forced-override");
    let before = tree(&world.venv);
    let path = path_without_uv();
    let tests = [
        "--test",
        "python -c 'import app'",
        "--test",
        "python -c 'import tool; assert tool.V == 1'",
        "--test",
        "false",
    ];
    for plan in [&clean, &forced] {
        let (_, whole, _) = world.try_plan_with(&path, plan, &tests, &[]);
        let vars = [("PLANNER_TRY_BASELINE", "needed")];
        let (code, needed, stderr) = world.try_plan_with(&path, plan, &tests, &vars);
        assert_eq!(code, Some(1), "{needed:#}\n{stderr}");
        assert_eq!(needed["baseline_mode"], "needed");
        assert!(needed.get("baseline_copy").is_some(), "{needed:#}");
        let (whole, needed) = (measured(&whole), measured(&needed));
        for key in ["verdict", "regressions", "verify"] {
            assert_eq!(whole[key], needed[key], "{key}");
        }
        let not_passed = |c: &&serde_json::Value| c[1] != "pass";
        let rerun: Vec<_> = whole["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(not_passed)
            .collect();
        assert_eq!(needed["baseline"]["checks"], rerun.len(), "{needed:#}");
        for (w, n) in whole["checks"]
            .as_array()
            .unwrap()
            .iter()
            .zip(needed["checks"].as_array().unwrap())
        {
            let before = if w[1] == "pass" {
                serde_json::Value::Null
            } else {
                w[3].clone()
            };
            assert_eq!((&w[0], &w[1], &w[2], &before), (&n[0], &n[1], &n[2], &n[3]));
        }
        for (w, n) in whole["tests"]
            .as_array()
            .unwrap()
            .iter()
            .zip(needed["tests"].as_array().unwrap())
        {
            let before = if w[2] == 0 {
                serde_json::Value::Null
            } else {
                w[1].clone()
            };
            assert_eq!((&w[0], &before, &w[2]), (&n[0], &n[1], &n[2]));
        }
        assert_same_tree(&before, &world.venv, "needed");
        world.assert_no_copy_left();
    }
    let (code, report, stderr) = world.try_plan_with(&path, &clean, &[], &[]);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    assert_eq!(report["baseline_mode"], "first", "the tests' default");
    let vars = [("PLANNER_TRY_BASELINE", "needed")];
    let (code, report, stderr) = world.try_plan_with(&path, &clean, &[], &vars);
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    assert_eq!(report["baseline"], serde_json::Value::Null, "{report:#}");
    assert!(report.get("baseline_copy").is_none(), "{report:#}");
    assert_eq!(report["verify"]["regressions"], 0, "{report:#}");
    assert!(
        report["verify"]["passed"].as_u64().unwrap() > 0,
        "{report:#}"
    );
    let text = run(world
        .command(&path)
        .env("PLANNER_TRY_BASELINE", "needed")
        .args(["try", clean.to_str().unwrap()]));
    assert!(
        text.stdout.contains(
            "  baseline: none needed, every check and test passed after the plan (one that \
             passes cannot have regressed)\n"
        ),
        "{}",
        text.stdout
    );
    assert_same_tree(&before, &world.venv, "needed, nothing to compare");
    world.assert_no_copy_left();
}

/// The copy keeps each file's mtime and hard-links the original's bytecode: Python finds a
/// copied module's `.pyc` valid and loads it, where a copy with fresh mtimes made every import in
/// the baseline and the comparison compile from source again.
#[test]
fn try_copy_keeps_mtimes_so_python_uses_the_originals_bytecode() {
    let world = World::new();
    let clean = world.propose(&["tool==1.1"], "upgrade");
    let site_of = |venv: &Path| {
        let lib = std::fs::read_dir(venv.join("lib")).unwrap().flatten();
        lib.map(|e| e.path().join("site-packages")).next().unwrap()
    };
    let python = world.venv.join("bin/python");
    let compiled = Command::new(&python)
        .args(["-m", "compileall", "-q"])
        .arg(site_of(&world.venv).join("lib"))
        .status()
        .unwrap();
    assert!(compiled.success());
    let before = tree(&world.venv);
    let keep = world.ctx.path().join("kept");
    let (code, report, stderr) = world.try_plan(
        &path_without_uv(),
        &clean,
        &["--keep", keep.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{report:#}\n{stderr}");
    let (original, copy) = (site_of(&world.venv).join("lib"), site_of(&keep).join("lib"));
    let meta = |p: &Path| std::fs::metadata(p).unwrap();
    let (was, now) = (
        meta(&original.join("__init__.py")),
        meta(&copy.join("__init__.py")),
    );
    assert_eq!(
        (now.mtime(), now.mtime_nsec()),
        (was.mtime(), was.mtime_nsec()),
        "the copied source keeps its mtime"
    );
    let pyc = std::fs::read_dir(original.join("__pycache__"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .file_name();
    if report["copy"]["method"] == "hardlink" {
        let (was, now) = (
            meta(&original.join("__pycache__").join(&pyc)),
            meta(&copy.join("__pycache__").join(&pyc)),
        );
        assert_eq!(now.ino(), was.ino(), "the bytecode is hard-linked");
        assert_eq!(report["original"]["checked"], report["copy"]["linked"]);
    }
    let verbose = Command::new(keep.join("bin/python"))
        .args(["-v", "-c", "import lib"])
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let verbose = String::from_utf8_lossy(&verbose.stderr);
    let loaded = format!(
        "# code object from '{}'",
        copy.join("__pycache__").join(&pyc).display()
    );
    assert!(
        verbose.lines().any(|line| line == loaded),
        "{loaded} not in:\n{verbose}"
    );
    assert!(
        !verbose
            .lines()
            .any(|line| line.starts_with("# bytecode is stale for 'lib'")),
        "{verbose}"
    );
    assert_same_tree(&before, &world.venv, "after a try kept");
}

#[test]
fn try_measures_a_clean_plan_and_a_breaking_one_and_never_writes_the_original() {
    let world = World::new();
    let clean = world.propose(&["tool==1.1"], "upgrade");
    let forced = world.propose(&["lib==1.0", "--allow-override"], "forced-override");
    let before = tree(&world.venv);
    for (installer, path) in installers() {
        let (code, report, stderr) = world.try_plan(
            &path,
            &clean,
            &[
                "--test",
                "python -c 'import tool; assert tool.V == 2, tool.V'",
            ],
        );
        assert_eq!(code, Some(0), "{installer}: {report:#}\n{stderr}");
        assert_eq!(report["schema"], "planner-try/1");
        assert_eq!(report["verdict"], "clean");
        assert_eq!(report["installer"], installer);
        // The test measures the copy: tool 1.0 before the plan (fails), 1.1 after (passes).
        assert_eq!(report["tests"][0]["before"]["exit"], 1, "{report:#}");
        assert_eq!(report["tests"][0]["after"]["exit"], 0, "{report:#}");
        assert_eq!(report["original"]["changed"], serde_json::json!([]));
        // Every hard link is checked (only shared libraries are linked: none in this venv).
        assert_eq!(report["original"]["checked"], report["copy"]["linked"]);
        assert_same_tree(&before, &world.venv, "after a clean try");
        world.assert_no_copy_left();

        let (code, report, stderr) =
            world.try_plan(&path, &forced, &["--test", "python -c 'import app'"]);
        assert_eq!(code, Some(1), "{installer}: {report:#}\n{stderr}");
        assert_eq!(report["verdict"], "regressed");
        let regressions: Vec<&str> = report["regressions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        assert!(
            regressions
                .iter()
                .any(|r| r.starts_with("import:app (app): ImportError: cannot import name 'new'")),
            "{regressions:?}"
        );
        assert!(
            regressions
                .iter()
                .any(|r| r.starts_with("test `python -c 'import app'`: exit 1")),
            "{regressions:?}"
        );
        assert_same_tree(&before, &world.venv, "after a breaking try");
        world.assert_no_copy_left();
    }
    // The real venv still has what it had.
    let out = Command::new(world.venv.join("bin/python"))
        .args(["-c", "import app, tool; print(tool.V)"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1");
}

#[test]
fn an_install_that_fails_halfway_is_not_tried_and_leaves_the_original() {
    let world = World::new();
    // Two pip steps: tool 1.1 (install), then lib 1.0 (forced); lib 1.0 is gone by then.
    let plan = world.propose(
        &["tool==1.1", "lib==1.0", "--allow-override"],
        "forced-override",
    );
    std::fs::remove_file(world.root.join("wheels/lib-1.0-py3-none-any.whl")).unwrap();
    let before = tree(&world.venv);
    let keep = world.ctx.path().join("kept");
    let (code, report, stderr) = world.try_plan(
        &path_without_uv(),
        &plan,
        &["--keep", keep.to_str().unwrap()],
    );
    assert_eq!(code, Some(2), "{report:#}\n{stderr}");
    assert_eq!(report["verdict"], "not-tried");
    let steps = report["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{report:#}");
    assert_eq!(steps[0]["ran"]["exit"], 0, "the first step ran: {report:#}");
    assert_ne!(steps[1]["ran"]["exit"], 0);
    assert!(
        report["reason"]
            .as_str()
            .unwrap()
            .starts_with("the plan could not be installed: step 2 of 2 failed"),
        "{report:#}"
    );
    // The copy is halfway: tool 1.1 landed there, never in the original.
    let kept_tool = std::fs::read_dir(keep.join("lib"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path()
        .join("site-packages/tool/__init__.py");
    assert_eq!(std::fs::read_to_string(kept_tool).unwrap(), "V = 2\n");
    assert_same_tree(&before, &world.venv, "after a failed install");
}

#[test]
fn ctrl_c_while_a_test_runs_removes_the_copy_and_exits_130() {
    let world = World::new();
    let plan = world.propose(&["tool==1.1"], "upgrade");
    let before = tree(&world.venv);
    // With the baseline first, and beside the install (the test then runs in the second copy
    // while the plan is installed and checked in the first): both copies go.
    for mode in ["first", "beside"] {
        let marker = world.ctx.path().join(format!("test-started-{mode}"));
        let test = format!("touch '{}'; sleep 60", marker.display());
        let child = world
            .command(&path_without_uv())
            .env("PLANNER_TRY_BASELINE", mode)
            .args(["try", plan.to_str().unwrap(), "--test", &test])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        interrupt_once(child, &marker);
        world.assert_no_copy_left();
        assert_same_tree(&before, &world.venv, mode);
    }
}

/// Ctrl-C for `child` once `marker` exists; it must exit 130 within 10 s.
fn interrupt_once(mut child: std::process::Child, marker: &Path) {
    let started = Instant::now();
    while !marker.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the test never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let stopped = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(20),
            "planner did not stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(code, Some(130));
    assert!(
        stopped.elapsed() < Duration::from_secs(10),
        "it waited for the test to end"
    );
}

#[test]
fn try_explains_what_it_cannot_try() {
    let mut world = World::new();
    // The copy's folder is a fresh temp name; its counts depend on pip's files and the disk.
    world
        .ctx
        .filter(r"planner-try-[A-Za-z0-9]+", "planner-try-[RANDOM]");
    world.ctx.filter(
        r"\d+ files \(\d+ hard links, \d+ real copies, [\d.]+ MB written\)",
        "[COPY STATS]",
    );
    let plan = world.propose(&["tool==1.1"], "upgrade");
    // The venv moved on since the plan was made.
    pip_ok(
        &world.venv,
        &["install", "--index-url", &world.server.url(), "tool==1.1"],
    );
    let out = run(world
        .command(&path_without_uv())
        .args(["try", plan.to_str().unwrap()]));
    planner_snapshot!(world.ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        copied [TMP]/venv to [TMP]/tmp/planner-try-[RANDOM]/venv: [COPY STATS] in [TIME]
          × `[TMP]/venv` no longer matches the plan (As asked: tool==1.1):
          │ helper is at 1.0 there, but not installed when the plan was made; tool is
          │ at 1.1 there, but at 1.0 when the plan was made
          help: make the plan again from the environment as it is now (`planner
                propose`)
        "#);
    world.assert_no_copy_left();
    // Not a venv.
    let out = run(world.command(&path_without_uv()).args([
        "try",
        plan.to_str().unwrap(),
        "--venv",
        world.root.to_str().unwrap(),
    ]));
    planner_snapshot!(world.ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
          × `[TMP]/index` (--venv) is not a virtual environment: it has no
          │ pyvenv.cfg
          help: try works on a virtual environment (a folder with pyvenv.cfg and
                bin/python); for a system or conda interpreter pass --python
        "#);
}

/// `bash SCRIPT ARGS` with a clean environment; (exit code, stderr).
fn bash(world: &World, path: &str, script: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new("bash")
        .arg(script)
        .args(args)
        .env_clear()
        .env("PATH", path)
        .env("HOME", world.ctx.home())
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("PIP_NO_CACHE_DIR", "1")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `pip list --format json` and `pip check` of the venv.
fn pip_state(venv: &Path) -> (serde_json::Value, String) {
    let run = |args: &[&str]| {
        let out = Command::new(venv.join("bin/python"))
            .args(["-m", "pip", "--disable-pip-version-check"])
            .args(args)
            .env("PIP_CONFIG_FILE", "/dev/null")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let list = serde_json::from_str(&run(&["list", "--format", "json"])).unwrap();
    (list, run(&["check"]))
}

#[test]
fn rollback_scripts_put_back_exactly_what_the_plan_changed() {
    let world = World::new();
    // tool 1.0 -> 1.1 (an upgrade), helper added, lib 2.0 -> 1.0 forced under app.
    let plan = world.propose(
        &["tool==1.1", "lib==1.0", "--allow-override"],
        "forced-override",
    );
    let before = pip_state(&world.venv);
    let mut runs = vec![("pip", path_without_uv())];
    if uv_on_path() {
        runs.push(("uv", std::env::var("PATH").unwrap()));
    }
    for (installer, path) in runs {
        let (code, stderr) = bash(
            &world,
            &path,
            &plan.join(format!("install-{installer}.sh")),
            &[],
        );
        assert_eq!(code, Some(0), "{installer}: {stderr}");
        let applied = pip_state(&world.venv);
        assert_ne!(applied.0, before.0, "{installer}: the plan changed nothing");
        assert!(applied.1.contains("lib"), "{installer}: {}", applied.1);
        let (code, stderr) = bash(
            &world,
            &path,
            &plan.join(format!("rollback-{installer}.sh")),
            &[],
        );
        assert_eq!(code, Some(0), "{installer}: {stderr}");
        assert_eq!(
            pip_state(&world.venv),
            before,
            "{installer}: after the rollback"
        );

        // --rollback-on-regression: the forced lib breaks app, so the script rolls back.
        let (code, stderr) = bash(
            &world,
            &path,
            &plan.join(format!("install-{installer}.sh")),
            &["--rollback-on-regression"],
        );
        assert_eq!(code, Some(1), "{installer}: {stderr}");
        assert!(
            stderr.contains("the plan regressed; rolling back"),
            "{stderr}"
        );
        assert_eq!(
            pip_state(&world.venv),
            before,
            "{installer}: after --rollback-on-regression"
        );

        // --verify alone prints the command and leaves the environment as the plan made it.
        let (code, stderr) = bash(
            &world,
            &path,
            &plan.join(format!("install-{installer}.sh")),
            &["--verify"],
        );
        assert_eq!(code, Some(1), "{installer}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "bash {}",
                plan.join(format!("rollback-{installer}.sh")).display()
            )),
            "{stderr}"
        );
        let (code, stderr) = bash(
            &world,
            &path,
            &plan.join(format!("rollback-{installer}.sh")),
            &[],
        );
        assert_eq!(code, Some(0), "{installer}: {stderr}");
        assert_eq!(
            pip_state(&world.venv),
            before,
            "{installer}: after the printed rollback"
        );
    }
}

#[test]
fn propose_try_measures_each_plan_and_recommends_the_lowest_risk_clean_one() {
    let world = World::new();
    let before = tree(&world.venv);
    let propose = |args: &[&str]| {
        let output = world
            .command(&std::env::var("PATH").unwrap())
            .args(["propose", "--venv", world.venv.to_str().unwrap()])
            .args(["--index-url", &world.server.url(), "--format", "json"])
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr))
        });
        (output.status.code(), json)
    };
    let (code, json) = propose(&["tool==1.1", "--try", "--test", "python -c 'import tool'"]);
    assert_eq!(code, Some(0), "{json:#}");
    let tried = &json["plans"][0]["tried"];
    assert_eq!(tried["verdict"], "clean", "{json:#}");
    assert_eq!(tried["tests"][0]["after"]["exit"], 0);
    assert!(
        tried["summary"]
            .as_str()
            .unwrap()
            .starts_with("0 regression(s) in "),
        "{tried:#}"
    );
    assert_eq!(json["tried_recommendation"], 1);

    let (code, json) = propose(&["lib==1.0", "--allow-override", "--try-top", "5"]);
    assert_eq!(code, Some(1), "{json:#}");
    let forced = json["plans"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "forced-override")
        .expect("a forced plan");
    assert_eq!(forced["tried"]["verdict"], "regressed", "{forced:#}");
    assert!(
        forced["tried"]["regressions"][0]
            .as_str()
            .unwrap()
            .starts_with("import:app (app)"),
        "{forced:#}"
    );
    assert!(json["tried_recommendation"].is_null(), "{json:#}");
    assert_same_tree(&before, &world.venv, "after propose --try");
    world.assert_no_copy_left();
}

/// `chmod -R` on a tree (`a-w` to make it read-only, `u+w` to give it back).
fn chmod_tree(root: &Path, mode: &str) {
    let status = Command::new("chmod")
        .args(["-R", mode])
        .arg(root)
        .status()
        .unwrap();
    assert!(status.success(), "chmod -R {mode} {}", root.display());
}

/// The fresh venv's record in a report, paths and the port left out: `pinned`, `copied`,
/// `reinstalled` (the wheel's file name only), the verdict.
fn fresh_summary(installer: &str, plan: &str, report: &serde_json::Value) -> String {
    let fresh = &report["copy"]["fresh"];
    let names = |key: &str| -> Vec<String> {
        fresh[key]
            .as_array()
            .unwrap_or(&Vec::new())
            .iter()
            .map(|v| {
                let text = v.as_str().unwrap();
                match text.split_once(" @ ") {
                    Some((name, url)) => {
                        format!("{name} @ .../{}", url.rsplit('/').next().unwrap())
                    }
                    None => text.to_string(),
                }
            })
            .collect()
    };
    format!(
        "{installer} {plan}: method {}, {} dists from exact pins, copied {:?}, reinstalled {:?}, \
         verdict {}",
        report["copy"]["method"].as_str().unwrap_or("?"),
        fresh["pinned"],
        names("copied"),
        names("reinstalled"),
        report["verdict"].as_str().unwrap_or("?"),
    )
}

/// The fresh venv's pins (from the index) go in from wheels only, so no sdist's build backend
/// runs; the dist reinstalled from its own direct URL is a step of its own, without the flag.
fn assert_pins_are_wheels_only(report: &serde_json::Value) {
    let steps = report["copy"]["fresh"]["steps"].as_array().unwrap();
    let argv = |file: &str| -> Vec<String> {
        let step = steps
            .iter()
            .find(|s| {
                s["argv"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|a| a.as_str().unwrap().ends_with(file))
            })
            .unwrap_or_else(|| panic!("no step installs {file}: {report:#}"));
        serde_json::from_value(step["argv"].clone()).unwrap()
    };
    let pins = argv("fresh-pins.txt");
    assert!(
        pins.windows(2).any(|w| w == ["--only-binary", ":all:"])
            || pins.contains(&"--no-build".to_string()),
        "{pins:?}"
    );
    let direct = argv("fresh-direct.txt");
    assert!(
        !direct
            .iter()
            .any(|a| a == "--no-build" || a == "--only-binary"),
        "{direct:?}"
    );
}

#[test]
fn a_read_only_venv_is_tried_in_a_fresh_venv_built_from_its_exact_pins() {
    let world = World::new();
    // helper from a wheel file (a direct URL: copied as it is); app from a wheel file whose
    // RECORD is gone (it cannot be copied: reinstalled from its direct_url.json).
    let wheel = |name: &str| world.root.join(format!("wheels/{name}-py3-none-any.whl"));
    for dist in ["helper-1.0", "app-1.0"] {
        pip_ok(
            &world.venv,
            &[
                "install",
                "--no-deps",
                "--force-reinstall",
                wheel(dist).to_str().unwrap(),
            ],
        );
    }
    let site = std::fs::read_dir(world.venv.join("lib"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path()
        .join("site-packages");
    std::fs::remove_file(site.join("app-1.0.dist-info/RECORD")).unwrap();
    let clean = world.propose(&["tool==1.1"], "upgrade");
    let forced = world.propose(&["lib==1.0", "--allow-override"], "forced-override");
    chmod_tree(&world.venv, "a-w");
    let before = tree(&world.venv);
    let mut summary = Vec::new();
    for (installer, path) in installers() {
        let (code, report, stderr) = world.try_plan(
            &path,
            &clean,
            &[
                "--venv",
                world.venv.to_str().unwrap(),
                "--test",
                "python -c 'import tool; assert tool.V == 2, tool.V'",
            ],
        );
        assert_eq!(code, Some(0), "{installer}: {report:#}\n{stderr}");
        assert!(stderr.contains("built fresh: "), "{stderr}");
        assert!(
            report["copy"]["fresh"]["why"]
                .as_str()
                .unwrap()
                .contains("is read-only"),
            "{report:#}"
        );
        assert_eq!(report["tests"][0]["before"]["exit"], 1, "{report:#}");
        assert_eq!(report["tests"][0]["after"]["exit"], 0, "{report:#}");
        assert_pins_are_wheels_only(&report);
        crate::common::schema::assert_valid(&report);
        summary.push(fresh_summary(installer, "tool==1.1", &report));
        assert_same_tree(&before, &world.venv, "after a clean try in a fresh venv");
        world.assert_no_copy_left();

        let (code, report, stderr) = world.try_plan(
            &path,
            &forced,
            &[
                "--venv",
                world.venv.to_str().unwrap(),
                "--test",
                "python -c 'import app'",
            ],
        );
        assert_eq!(code, Some(1), "{installer}: {report:#}\n{stderr}");
        crate::common::schema::assert_valid(&report);
        summary.push(fresh_summary(installer, "lib==1.0 forced", &report));
        assert_same_tree(&before, &world.venv, "after a breaking try in a fresh venv");
        world.assert_no_copy_left();
    }
    chmod_tree(&world.venv, "u+w");
    // uv (where it is on PATH) gives the same verdicts as pip: one snapshot, whatever is here.
    let (pip, uv): (Vec<_>, Vec<_>) = summary.iter().partition(|l| l.starts_with("pip "));
    for line in uv {
        let as_pip = format!("pip {}", line.strip_prefix("uv ").unwrap());
        assert!(pip.contains(&&as_pip), "{line} differs from pip's: {pip:?}");
    }
    let pip: Vec<&str> = pip.iter().map(|l| l.as_str()).collect();
    insta::assert_snapshot!(pip.join("\n"));
}

/// A release the index has only as an sdist (installed here by building it, as pip does): the
/// plan says before anything is applied that its rollback scripts cannot put it back under the
/// wheel-only rule, and after the plan is applied they refuse, naming it, and change nothing,
/// instead of failing halfway on an install pip cannot do.
#[test]
fn a_release_the_index_has_only_as_an_sdist_is_never_promised_back() {
    let ctx = TestContext::new();
    let root = ctx.path().join("index");
    let wheels = serde_json::json!([
        {"name": "termcolor", "version": "1.1.0", "sdist_only": true,
         "files": {"termcolor/__init__.py": "V = 1\n"}},
        {"name": "termcolor", "version": "3.3.0", "files": {"termcolor/__init__.py": "V = 3\n"}},
    ]);
    let server = crate::common::index_server::tiny_wheels(&root, &wheels);
    let venv = ctx.path().join("venv");
    crate::common::venv::RealVenv::create(&venv);
    let built = root.join("local-wheels");
    pip_ok(
        &venv,
        &[
            "install",
            "--no-index",
            "--find-links",
            built.to_str().unwrap(),
            "termcolor==1.1.0",
        ],
    );
    let out = ctx.path().join("plans");
    let venv_arg = venv.to_str().unwrap();
    let args = [
        "propose",
        "termcolor",
        "--venv",
        venv_arg,
        "--index-url",
        &server.url(),
    ];
    let proposed = ctx.run(&[&args[..], &["--out-dir", out.to_str().unwrap()]].concat());
    assert_eq!(proposed.code, Some(0), "{}", proposed.stderr);
    let json = ctx.run(&[&args[..], &["--format", "json"]].concat());
    let plan = &serde_json::from_str::<serde_json::Value>(&json.stdout).unwrap()["plans"][0];
    insta::assert_json_snapshot!(
        (&plan["changes"][0]["from_source_only"], &plan["warnings"]),
        @r#"
    [
      true,
      [
        "termcolor 1.1.0 has only an sdist on the index (it was built when installed): the rollback scripts will refuse to put it back, since reinstalling it runs its build and the plan installs wheels only (`--allow-build` writes rollback scripts that build it)"
      ]
    ]
    "#
    );

    let folder = out.join("plans/1-upgrade");
    let (code, stderr) = run_script(&ctx, &folder.join("install-pip.sh"));
    assert_eq!(code, Some(0), "{stderr}");
    let applied = pip_state(&venv);
    let (code, stderr) = run_script(&ctx, &folder.join("rollback-pip.sh"));
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(
        pip_state(&venv),
        applied,
        "the refused rollback changed the venv"
    );
    insta::assert_snapshot!(stderr, @r"
    rollback: refused; nothing was changed. These cannot be put back:
      termcolor==1.1.0: the index has only an sdist of it (it was built when installed); reinstalling it runs its build, which the plan's wheel-only rule forbids: reinstall it yourself (`pip install --no-deps 'termcolor==1.1.0'`)
    ");
}

/// `bash SCRIPT` with pip's configuration from the host left out; (exit code, stderr).
fn run_script(ctx: &TestContext, script: &Path) -> (Option<i32>, String) {
    let out = Command::new("bash")
        .arg(script)
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("PIP_NO_CACHE_DIR", "1")
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("HOME", ctx.home())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
