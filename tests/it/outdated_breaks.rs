//! `outdated` carries the break evidence `propose` weighs: a newer release that the
//! analysis says breaks an installed dist is not offered as "Can move to", and the row names
//! the break. On recorded real index data: the pages (real versions and upload times), core
//! metadata (real `Requires-Dist`) and the wheel bytes the import check reads of
//! `testdata/outdated-breaks/index` (see its README), served on loopback; the venvs are real
//! ones (`python3 -m venv` + pip) whose dists carry their releases' recorded requirements and
//! the files the evidence reads.
//!
//! - numpy 1.24.4 under pandas 1.5.3, whose compiled extensions name numpy's C-API module:
//!   numpy 2.4.6 crosses their ABI boundary (`abi-break`), so pandas 1.5.3 is named and "Can
//!   move to" is numpy 1.26.4, the newest 1.x. Live (copies of a real data venv, uv 0.13.9):
//!   with numpy 2.4.6 `import pandas` failed with `numpy.dtype size changed`; with 1.26.4
//!   pandas, scikit-learn and matplotlib imported.
//! - werkzeug 2.0.3 under Flask 2.0.3 and Flask-Login 0.5.0 (their real modules): werkzeug
//!   3.1.9 no longer has `url_quote` (Flask) or `safe_str_cmp` (Flask-Login), 2.3.8 not
//!   `safe_str_cmp` (`import-target-missing`): nothing to move to. Live, werkzeug 3.1.9 failed
//!   `import flask`, 2.3.8 and 2.1.0 `import flask_login`.
//! - numpy 1.26.4 under duckdb 0.8.1, which does not require numpy but whose extension (a real
//!   compiled one) names `numpy.core.multiarray` and `_ARRAY_API`: numpy 2.4.6 breaks duckdb
//!   (`abi-break`), and `propose` cites the extension.

use std::path::PathBuf;

use crate::common::TestContext;
use crate::common::index_server::IndexServer;
use crate::common::venv::RealVenv;
use crate::planner_snapshot;
use crate::propose_move_dependents::{NUMPY_EXTENSION, real_modules, venv_of};

fn index_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/outdated-breaks/index")
}

/// `outdated ARGS` on `venv` against the recorded index, as text and as JSON. With
/// `RECORD_INDEX_URL` set (`scripts/record-ranges` serving), against that instead: how the
/// wheel bytes under `sparse/` were recorded.
fn outdated(ctx: &TestContext, venv: &RealVenv) -> (crate::common::Output, serde_json::Value) {
    let server = IndexServer::start(&index_dir());
    let url = std::env::var("RECORD_INDEX_URL").unwrap_or_else(|_| server.url());
    let args = [
        "outdated",
        "--venv",
        venv.path.to_str().unwrap(),
        "--index-url",
        &url,
    ];
    let text = ctx.run(&args);
    let json = ctx.run(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(json.code, Some(0), "{}", json.stderr);
    (text, json.json())
}

/// The report's row of `name`.
fn row(report: &serde_json::Value, name: &str) -> serde_json::Value {
    report["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no {name}: {report:#}"))
        .clone()
}

/// The context, with the machine's Python version and the venv's own pip and setuptools (no
/// index page is recorded for them, and their versions are the machine's) filtered out.
fn context() -> TestContext {
    let mut ctx = TestContext::new();
    ctx.filter(r"Python 3\.\d+\.\d+", "Python 3.X");
    ctx.filter(
        r"\nNot found on the index:\n(?:  (?:pip|setuptools) [^\n]*\n)+",
        "",
    );
    ctx
}

#[test]
fn numpy_2_is_not_offered_under_a_pandas_built_for_numpy_1() {
    let root = tempfile::tempdir().unwrap();
    let none: &[(&str, &str)] = &[];
    let so: &[(&str, &str)] = &[(
        "pandas/_libs/algos.cpython-311-x86_64-linux-gnu.so",
        NUMPY_EXTENSION,
    )];
    let venv = venv_of(
        &index_dir(),
        root.path(),
        &[("numpy==1.24.4", none), ("pandas==1.5.3", so)],
    );
    let ctx = context();
    let (text, report) = outdated(&ctx, &venv);
    planner_snapshot!(ctx, "numpy_under_pandas_1_5", text);
    let numpy = row(&report, "numpy");
    assert_eq!(numpy["newest_compatible"], "2.4.6", "{numpy:#}");
    assert_eq!(numpy["newest_allowed"], "1.26.4", "{numpy:#}");
    assert_eq!(
        numpy["breaks"],
        serde_json::json!([{"release": "2.4.6", "name": "pandas", "installed": "1.5.3",
                            "evidence": "abi-break",
                            "extension": "pandas's `pandas/_libs/algos.cpython-311-x86_64-linux-gnu.so` carries `_ARRAY_API`"}])
    );
}

#[test]
fn werkzeug_3_is_not_offered_under_flask_2_0() {
    let root = tempfile::tempdir().unwrap();
    let flask = real_modules("flask-2.0.3", &["flask/__init__.py", "flask/helpers.py"]);
    let werkzeug = real_modules(
        "werkzeug-2.0.3",
        &["werkzeug/security.py", "werkzeug/urls.py"],
    );
    let login = real_modules(
        "flask-login-0.5.0",
        &["flask_login/login_manager.py", "flask_login/utils.py"],
    );
    let venv = venv_of(
        &index_dir(),
        root.path(),
        &[
            ("flask==2.0.3", flask),
            ("werkzeug==2.0.3", werkzeug),
            ("flask-login==0.5.0", login),
        ],
    );
    let ctx = context();
    let (text, report) = outdated(&ctx, &venv);
    planner_snapshot!(ctx, "werkzeug_under_flask_2_0", text);
    let werkzeug = row(&report, "werkzeug");
    assert_eq!(werkzeug["newest_compatible"], "3.1.9", "{werkzeug:#}");
    assert_eq!(
        werkzeug["newest_allowed"],
        serde_json::Value::Null,
        "{werkzeug:#}"
    );
    let broken: Vec<(&str, &str)> = werkzeug["breaks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["name"].as_str().unwrap(), b["evidence"].as_str().unwrap()))
        .collect();
    assert_eq!(
        broken,
        [
            ("flask", "import-target-missing"),
            ("flask-login", "import-target-missing")
        ],
        "{werkzeug:#}"
    );
    // What does not break is still offered.
    assert_eq!(row(&report, "flask-login")["newest_allowed"], "0.6.3");
}

/// "Can move to" is found below the newest releases read one by one: celery 5.3.6 next to
/// kombu 5.3.7, where the nine newest celery releases (5.5.0 to 5.7.0) need kombu 5.5.2 or
/// newer and 5.4.0 needs `kombu>=5.3.4,<6`; the releases under the newest eight are bisected.
/// Live (uv 0.13.9, `uv pip install --dry-run celery==5.4.0`): only celery changes; `propose
/// celery==5.4.0` plans exactly that.
#[test]
fn can_move_to_is_found_below_the_newest_releases() {
    let root = tempfile::tempdir().unwrap();
    let none: &[(&str, &str)] = &[];
    let venv = venv_of(
        &index_dir(),
        root.path(),
        &[("celery==5.3.6", none), ("kombu==5.3.7", none)],
    );
    let (_, report) = outdated(&context(), &venv);
    let celery = row(&report, "celery");
    assert_eq!(celery["newest_compatible"], "5.7.0", "{celery:#}");
    assert_eq!(celery["newest_allowed"], "5.4.0", "{celery:#}");
    let needs: Vec<(&str, &str, &str)> = celery["needs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["release"].as_str().unwrap(),
                n["name"].as_str().unwrap(),
                n["specifier"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(needs, [("5.7.0", "kombu", ">=5.7.0")], "{celery:#}");
}

/// duckdb 0.8.1 does not require numpy, yet its compiled extension loads numpy's C API: it
/// names `numpy.core.multiarray` and `_ARRAY_API`. numpy 2.4.6 crosses that ABI, so duckdb is
/// named (`abi-break`) and numpy has nothing to move to; `propose 'numpy>=2'` weighs the
/// break and cites the extension; werkzeug, whose stand-in extension names numpy's module but
/// not its C API, is counted as importing numpy and never as an ABI break. The extension is a real one, compiled by
/// `testdata/outdated-breaks/extension/build.sh` (never loaded, only read). Live (python3.11,
/// pandas 2.0.3, duckdb 0.8.1, pyarrow 15.0.2, polars): with numpy 2.4.6 duckdb's query to
/// pandas failed with "resize only works on single-segment arrays", with numpy 1.26.4 it passed.
#[test]
fn numpy_2_is_not_offered_under_a_duckdb_that_imports_it_without_requiring_it() {
    let root = tempfile::tempdir().unwrap();
    let numpy: &[(&str, &str)] = &[
        ("numpy/__init__.py", "from numpy.core import multiarray\n"),
        ("numpy/core/__init__.py", ""),
        ("numpy/core/multiarray.py", ""),
    ];
    let extension = "duckdb.cpython-311-x86_64-linux-gnu.so";
    let duckdb: &[(&str, &str)] = &[(extension, "replaced below by the compiled module")];
    // Names numpy's module without carrying its C API's marker: it imports numpy, no more.
    let werkzeug: &[(&str, &str)] = &[(
        "werkzeug/_speedups.cpython-311-x86_64-linux-gnu.so",
        "\0numpy.core.multiarray\0",
    )];
    let venv = venv_of(
        &index_dir(),
        root.path(),
        &[
            ("numpy==1.26.4", numpy),
            ("duckdb==0.8.1", duckdb),
            ("werkzeug==2.0.3", werkzeug),
        ],
    );
    let compiled = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/outdated-breaks/extension/numpy_c_api.cpython-311-x86_64-linux-gnu.so");
    std::fs::copy(compiled, venv.site_packages().join(extension)).unwrap();
    let ctx = context();
    let (text, report) = outdated(&ctx, &venv);
    planner_snapshot!(ctx, "numpy_under_duckdb_0_8", text);
    let numpy = row(&report, "numpy");
    assert_eq!(numpy["newest_compatible"], "2.4.6", "{numpy:#}");
    assert_eq!(
        numpy["newest_allowed"],
        serde_json::Value::Null,
        "{numpy:#}"
    );
    assert_eq!(
        numpy["breaks"],
        serde_json::json!([{"release": "2.4.6", "name": "duckdb", "installed": "0.8.1",
                            "evidence": "abi-break",
                            "extension": "duckdb's `duckdb.cpython-311-x86_64-linux-gnu.so` carries \
                                          `_ARRAY_API`; duckdb does not require numpy, yet imports \
                                          it (duckdb.cpython-311-x86_64-linux-gnu.so, a compiled \
                                          extension module that names `numpy.core.multiarray`)"}])
    );
    let server = IndexServer::start(&index_dir());
    let url = server.url();
    let venv_path = venv.path.to_str().unwrap();
    let args = [
        "propose",
        "numpy>=2",
        "--venv",
        venv_path,
        "--index-url",
        &url,
    ];
    let plans = ctx.run(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(plans.code, Some(0), "{}", plans.stderr);
    // Each plan's title, then its abi-break and dependents factors: duckdb, not werkzeug (it imports numpy
    // too, but no extension of it carries `_ARRAY_API`).
    let mut lines = Vec::new();
    for plan in plans.json()["plans"].as_array().unwrap() {
        lines.push(plan["title"].as_str().unwrap().to_string());
        for factor in plan["risk"]["factors"].as_array().unwrap() {
            if factor["kind"] == "abi-break" || factor["kind"] == "direct-dependent" {
                lines.push(format!("  {}", factor["detail"].as_str().unwrap()));
            }
        }
    }
    insta::assert_snapshot!("numpy_under_duckdb_0_8_propose", lines.join("\n"));
}

/// lib 2.0's `lib/__init__.py` replaces itself with a lazy loader whose names come from the
/// `__all__` of the files under `lib/models/`: none lists `Thing`, which app 1.0 imports from
/// lib at module level. The files of that folder are read from lib 2.0's wheel by one range
/// read; an `--offline` run over the cache the online run filled reads them too and gives the
/// same report (it read nothing before, so it claimed nothing: "Can move to 2.0", no break).
#[test]
fn a_lazy_modules_folder_read_online_answers_offline_too() {
    let ctx = context();
    let lazy = "import sys\nfrom pathlib import Path\nfrom typing import TYPE_CHECKING\n\n\
                from ._lazy import LazyModule, define_import_structure\n\n\
                if TYPE_CHECKING:\n    from .models.other import Other\nelse:\n    \
                sys.modules[__name__] = LazyModule(\n        __name__, \
                define_import_structure(Path(__file__).parent / \"models\")\n    )\n";
    let wheels = serde_json::json!([
        {"name": "lib", "version": "1.0", "requires": [],
         "files": {"lib/__init__.py": "class Thing:\n    pass\n"}},
        {"name": "lib", "version": "2.0", "requires": [],
         "files": {"lib/__init__.py": lazy,
                   "lib/models/__init__.py": "",
                   "lib/models/other.py": "class Other:\n    pass\n\n\n__all__ = [\"Other\"]\n"}},
        {"name": "app", "version": "1.0", "requires": ["lib"],
         "files": {"app/__init__.py": "from lib import Thing\n"}},
    ]);
    let server = crate::common::index_server::tiny_wheels(&ctx.path().join("index"), &wheels);
    let venv = RealVenv::create(&ctx.path().join("venv"));
    crate::try_::pip_ok(
        &venv.path,
        &[
            "install",
            "--index-url",
            &server.url(),
            "lib==1.0",
            "app==1.0",
        ],
    );
    let args = [
        "outdated",
        "--venv",
        venv.path.to_str().unwrap(),
        "--index-url",
        &server.url(),
        "--format",
        "json",
    ];
    let online = ctx.run(&args);
    assert_eq!(online.code, Some(0), "{}", online.stderr);
    let lib = row(&online.json(), "lib");
    assert_eq!(
        (&lib["newest_allowed"], &lib["breaks"][0]["name"]),
        (&serde_json::Value::Null, &serde_json::Value::from("app")),
        "online, app's import of `Thing` is a break: {lib:#}"
    );
    let offline = ctx.run(&[&args[..], &["--offline"]].concat());
    assert_eq!(offline.code, Some(0), "{}", offline.stderr);
    assert_eq!(
        row(&offline.json(), "lib"),
        lib,
        "the same cache, the same row"
    );
}
