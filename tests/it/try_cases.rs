//! `planner try` cases on real venvs from the loopback index of tiny wheels: a module the plan
//! removes (the changed dist's new release does not ship it) against one a remaining dependent
//! still imports, and a venv with neither uv nor pip (the pip of an outer interpreter applies
//! the plan). After each run the original's whole tree is as it was.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::TestContext;
use crate::common::index_server::IndexServer;
use crate::common::venv::{RealVenv, python3};
use crate::try_::{assert_same_tree, path_without_uv, pip_ok, tree};

/// pkg 2.0 ships `pkg.sub` (its `pkg.sub.app` imports base); pkg 1.0 does not, and accepts
/// base 1.0 only. `client` (installed with `client`) imports `pkg.sub.app`.
struct World {
    ctx: TestContext,
    server: IndexServer,
    venv: PathBuf,
    tmp: PathBuf,
}

impl World {
    fn new(with_client: bool, without_pip: bool) -> World {
        let ctx = TestContext::new();
        let wheels = serde_json::json!([
            {"name": "base", "version": "1.0", "files": {"base/__init__.py": "V = 1\n"}},
            {"name": "base", "version": "2.0", "files": {"base/__init__.py": "V = 2\n"}},
            {"name": "pkg", "version": "1.0", "requires": ["base<2"],
             "files": {"pkg/__init__.py": "import base\n"}},
            {"name": "pkg", "version": "2.0", "requires": ["base>=2"],
             "files": {"pkg/__init__.py": "import base\n", "pkg/sub/__init__.py": "",
                       "pkg/sub/app.py": "import base\nAPP = base.V\n"}},
            {"name": "client", "version": "1.0", "requires": ["pkg"],
             "files": {"client/__init__.py": "from pkg.sub import app\n"}},
        ]);
        let server = crate::common::index_server::tiny_wheels(&ctx.path().join("index"), &wheels);
        let venv = ctx.path().join("venv");
        let wanted: &[&str] = if with_client {
            &["pkg==2.0", "client"]
        } else {
            &["pkg==2.0"]
        };
        if without_pip {
            RealVenv::create_without_pip(&venv);
            outer_pip_install(&venv, &server.url(), wanted);
        } else {
            RealVenv::create(&venv);
            pip_ok(
                &venv,
                &[&["install", "--index-url", &server.url()], wanted].concat(),
            );
        }
        let tmp = ctx.path().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        World {
            ctx,
            server,
            venv,
            tmp,
        }
    }

    /// The plan folder of `propose ARGS` whose kind is `kind`.
    fn propose(&self, args: &[&str], kind: &str) -> PathBuf {
        let out = self.ctx.path().join("plans");
        let venv = self.venv.to_str().unwrap();
        let output = self.ctx.run(
            &[
                &["propose"],
                args,
                &["--venv", venv, "--index-url", &self.server.url()],
                &["--out-dir", out.to_str().unwrap()],
            ]
            .concat(),
        );
        assert!(matches!(output.code, Some(0 | 1)), "{}", output.stderr);
        std::fs::read_dir(out.join("plans"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(kind))
            .unwrap_or_else(|| panic!("no {kind} plan:\n{}", output.stdout))
    }

    /// `try PLAN --format json` with this PATH: (exit code, report).
    fn try_plan(&self, path: &str, plan: &Path) -> (Option<i32>, serde_json::Value) {
        let output = self
            .ctx
            .command()
            .env("PATH", path)
            .env("TMPDIR", &self.tmp)
            .args(["try", plan.to_str().unwrap(), "--format", "json", "--venv"])
            .arg(&self.venv)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let json = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}):\n{stdout}\n{}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
        crate::common::schema::assert_valid(&json);
        (output.status.code(), json)
    }
}

/// `python3 -m pip --python VENV install ...` from the loopback index (the venv has no pip).
fn outer_pip_install(venv: &Path, index: &str, wanted: &[&str]) {
    let out = Command::new(python3())
        .args(["-m", "pip", "--disable-pip-version-check", "--no-input"])
        .arg("--python")
        .arg(venv.join("bin/python"))
        .args(["install", "--index-url", index])
        .args(wanted)
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("PIP_NO_CACHE_DIR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "outer pip: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The verdict, the regressions and the modules removed, one per line.
fn measured(code: Option<i32>, report: &serde_json::Value) -> String {
    let list = |key: &str| -> String {
        report[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|v| format!("  {}\n", v.as_str().unwrap()))
                    .collect()
            })
            .unwrap_or_default()
    };
    format!(
        "exit {code:?}, {}\nregressions:\n{}removed:\n{}",
        report["verdict"].as_str().unwrap_or("?"),
        list("regressions"),
        list("removed")
    )
}

#[test]
fn a_module_the_downgrade_removes_is_not_a_regression_unless_a_dependent_imports_it() {
    let world = World::new(false, false);
    let plan = world.propose(&["base==1.0"], "downgrade-blockers");
    let before = tree(&world.venv);
    let (code, report) = world.try_plan(&path_without_uv(), &plan);
    insta::assert_snapshot!(measured(code, &report), @r#"
        exit Some(0), clean
        regressions:
        removed:
          import:pkg.sub.app (pkg): pkg 1.0 does not ship `pkg.sub.app` (`pkg.sub` is gone), and nothing left in the environment imports it
        "#);
    assert_same_tree(&before, &world.venv, "after the try");

    let world = World::new(true, false);
    let plan = world.propose(&["base==1.0"], "downgrade-blockers");
    let before = tree(&world.venv);
    let (code, report) = world.try_plan(&path_without_uv(), &plan);
    insta::assert_snapshot!(measured(code, &report), @r#"
        exit Some(1), regressed
        regressions:
          import:client (client): ModuleNotFoundError: No module named 'pkg.sub'
          import:pkg.sub.app (pkg): pkg 1.0 does not ship `pkg.sub.app` (`pkg.sub` is gone), and `client/__init__.py`, still in the environment, imports it
        removed:
        "#);
    assert_same_tree(&before, &world.venv, "after the try");
}

#[test]
fn a_venv_with_neither_uv_nor_pip_is_tried_with_the_pip_of_the_outer_python3() {
    let probe = Command::new(python3())
        .args(["-m", "pip", "--version"])
        .output()
        .unwrap();
    if !probe.status.success() {
        return crate::common::skip("try without pip", "python3 on PATH has no pip");
    }
    let world = World::new(false, true);
    let plan = world.propose(&["base==1.0"], "downgrade-blockers");
    let before = tree(&world.venv);
    let (code, report) = world.try_plan(&path_without_uv(), &plan);
    let note = report["installer_note"].as_str().unwrap_or("");
    let pip_version = note.split_whitespace().nth(6).unwrap_or("?");
    let outer = note
        .split(" of ")
        .nth(1)
        .and_then(|rest| rest.split(" ran ").next())
        .unwrap_or("?");
    assert!(Path::new(outer).is_absolute(), "{report:#}");
    assert!(
        report["steps"][0]["argv"][0] == outer && report["steps"][0]["argv"][1] == "-B",
        "{report:#}"
    );
    insta::assert_snapshot!(
        format!(
            "{}installer: {}",
            measured(code, &report),
            note.replace(outer, "PYTHON3").replace(pip_version, "X.Y")
        ),
        @r#"
        exit Some(0), clean
        regressions:
        removed:
          import:pkg.sub.app (pkg): pkg 1.0 does not ship `pkg.sub.app` (`pkg.sub` is gone), and nothing left in the environment imports it
        installer: the copy has no pip: pip X.Y of PYTHON3 ran against it (`-m pip --python`)
        "#
    );
    assert_same_tree(&before, &world.venv, "after the try");
}
