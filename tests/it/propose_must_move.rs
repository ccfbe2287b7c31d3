//! A dependency that must move along, on the real path: a real venv (`python3 -m venv` + pip) whose
//! Flask-Login 0.5.0 runs `from werkzeug.security import safe_str_cmp` (its `utils.py`, as the
//! real 0.5.0 does), a loopback PEP 691 index with the releases' real versions and upload times
//! (werkzeug 2.0.3 of 2022-02-08 defines `safe_str_cmp`; 2.3.0 of 2023-04-25 and 2.3.8 do not;
//! Flask-Login 0.6.0 of 2022-03-30 and 0.6.3 of 2023-10-30 no longer import it), the wheels
//! built here with those files. Live, on the venv of the issue (Flask 2.0.3, Werkzeug 2.0.3,
//! Flask-SQLAlchemy 2.5.1, SQLAlchemy 1.4.54, Flask-Login 0.5.0), the safe layer of `propose
//! --all` moved werkzeug to 2.3.8 and kept Flask-Login 0.5.0: `import flask_login` failed.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::common::TestContext;
use crate::common::venv::{self, RealVenv};
use crate::planner_snapshot;

/// One release: name, version, upload time, requirements, files.
pub(crate) type Release<'a> = (
    &'a str,
    &'a str,
    &'a str,
    &'a [&'a str],
    &'a [(&'a str, &'a str)],
);

const SECURITY_OLD: &str = "import hmac\n\n\ndef safe_str_cmp(a, b):\n    \
                            return hmac.compare_digest(a, b)\n\n\n\
                            def generate_password_hash(password):\n    return password\n";
const SECURITY_NEW: &str = "def generate_password_hash(password):\n    return password\n";
const LOGIN_OLD: &str = "from werkzeug.security import safe_str_cmp\n\n\n\
                         def _cookie_digest(a, b):\n    return safe_str_cmp(a, b)\n";
const LOGIN_NEW: &str = "import hmac\n\n\ndef _cookie_digest(a, b):\n    \
                         return hmac.compare_digest(a, b)\n";

fn releases() -> Vec<Release<'static>> {
    let werkzeug_old: &[(&str, &str)] = &[
        ("werkzeug/__init__.py", ""),
        ("werkzeug/security.py", SECURITY_OLD),
    ];
    let werkzeug_new: &[(&str, &str)] = &[
        ("werkzeug/__init__.py", ""),
        ("werkzeug/security.py", SECURITY_NEW),
    ];
    let login = |utils| -> &'static [(&'static str, &'static str)] {
        Box::leak(Box::new([
            (
                "flask_login/__init__.py",
                "from .utils import _cookie_digest\n",
            ),
            ("flask_login/utils.py", utils),
        ]))
    };
    vec![
        (
            "werkzeug",
            "2.0.3",
            "2022-02-08T16:06:19Z",
            &[],
            werkzeug_old,
        ),
        (
            "werkzeug",
            "2.3.0",
            "2023-04-25T18:14:54Z",
            &[],
            werkzeug_new,
        ),
        (
            "werkzeug",
            "2.3.8",
            "2023-10-24T20:57:50Z",
            &[],
            werkzeug_new,
        ),
        (
            "flask-login",
            "0.5.0",
            "2020-02-09T17:32:05Z",
            &["werkzeug"],
            login(LOGIN_OLD),
        ),
        (
            "flask-login",
            "0.6.0",
            "2022-03-30T21:16:09Z",
            &["werkzeug>=1.0.1"],
            login(LOGIN_NEW),
        ),
        (
            "flask-login",
            "0.6.3",
            "2023-10-30T14:52:09Z",
            &["werkzeug>=1.0.1"],
            login(LOGIN_NEW),
        ),
    ]
}

/// The wheels of `releases` (built in `root/wheels`) and a PEP 691 index folder serving them
/// with their upload times.
pub(crate) fn index_of(root: &Path, releases: &[Release<'_>]) -> (PathBuf, PathBuf) {
    let wheels = root.join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let index = root.join("index");
    let mut pages: std::collections::BTreeMap<&str, Vec<serde_json::Value>> = Default::default();
    for (name, version, uploaded, requires, files) in releases {
        let wheel = venv::build_wheel_with_files(&wheels, name, version, requires, &[], files);
        let file = wheel.file_name().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&wheel).unwrap();
        std::fs::create_dir_all(index.join("files")).unwrap();
        std::fs::write(index.join("files").join(&file), &bytes).unwrap();
        pages.entry(name).or_default().push(serde_json::json!({
            "filename": file,
            "url": format!("../../files/{file}"),
            "hashes": {"sha256": format!("{:x}", Sha256::digest(&bytes))},
            "upload-time": uploaded,
            "size": bytes.len(),
        }));
    }
    for (name, files) in pages {
        let page = index.join("simple").join(name);
        std::fs::create_dir_all(&page).unwrap();
        let json =
            serde_json::json!({"meta": {"api-version": "1.1"}, "name": name, "files": files});
        std::fs::write(page.join("index.json"), json.to_string()).unwrap();
    }
    (wheels, index)
}

/// A venv with `pins` installed (no dependencies) from `wheels`.
pub(crate) fn venv_with(root: &Path, wheels: &Path, pins: &[&str]) -> RealVenv {
    let venv = RealVenv::create(&root.join("venv"));
    let mut args = vec!["install", "--no-deps", "--quiet", "--find-links"];
    args.push(wheels.to_str().unwrap());
    args.extend_from_slice(pins);
    venv.pip_ok(&args);
    venv
}

/// The venv (werkzeug 2.0.3, Flask-Login 0.5.0) and the index of every release.
pub(crate) fn world(root: &Path) -> (RealVenv, PathBuf) {
    let (wheels, index) = index_of(root, &releases());
    let venv = venv_with(root, &wheels, &["werkzeug==2.0.3", "flask-login==0.5.0"]);
    (venv, index)
}

fn propose(
    ctx: &TestContext,
    venv: &RealVenv,
    index: &Path,
    args: &[&str],
) -> crate::common::Output {
    let mut all = vec!["propose"];
    all.extend_from_slice(args);
    let index = index.join("simple");
    all.extend([
        "--venv",
        venv.path.to_str().unwrap(),
        "--index-url",
        index.to_str().unwrap(),
    ]);
    ctx.run(&all)
}

/// The request breaks an importer (its `import-target-missing` says so), so the
/// recommended plan moves Flask-Login to 0.6.3, the first release uploaded once werkzeug's 2.3
/// line existed (0.6.0 predates it); the plan that keeps 0.5.0 comes second, its factor intact.
#[test]
fn a_target_that_breaks_an_importer_moves_it_along() {
    let root = tempfile::tempdir().unwrap();
    let (venv, index) = world(root.path());
    let mut ctx = TestContext::new();
    // The interpreter's patch release and what its venv seeds (pip, setuptools) vary by machine.
    ctx.filter(
        r"Python 3\.\d+\.\d+, linux x86_64, \d+ dists",
        "Python 3.X, linux x86_64, N dists",
    );
    let out = propose(&ctx, &venv, &index, &["werkzeug>=2.3", "--format", "json"]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let plans = json["plans"].as_array().unwrap();
    let summary: Vec<String> = plans
        .iter()
        .map(|p| {
            let kinds: Vec<&str> = p["risk"]["factors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["kind"].as_str().unwrap())
                .collect();
            let changes: Vec<String> = p["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| format!("{} {} -> {}", c["name"], c["from"], c["to"]))
                .collect();
            format!(
                "{}: {} [{}]",
                p["kind"],
                changes.join(", "),
                kinds.join(" ")
            )
        })
        .collect();
    insta::assert_snapshot!(summary.join("\n"), @r#"
    "move-dependents": "flask-login" "0.5.0" -> "0.6.3", "werkzeug" "2.0.3" -> "2.3.8" []
    "upgrade": "werkzeug" "2.0.3" -> "2.3.8" [import-target-missing direct-dependent]
    "#);
    let text = propose(&ctx, &venv, &index, &["werkzeug>=2.3"]);
    planner_snapshot!(ctx, "werkzeug_2_3_text", text);
}

/// The safe layer of `propose --all` does not keep a change its own evidence says
/// breaks an importer, and does not take the importer into a new line either ("upgrades inside
/// their major line": Flask-Login 0.5.0 -> 0.6.3 is one, as duckdb 0.8.1 -> 1.5.6 was for pandas
/// 2.3.3): it keeps Werkzeug where it is, says why with the evidence, and the major-flask-login
/// layer moves both, Flask-Login's reason citing what it moves with.
#[test]
fn the_safe_layer_holds_a_change_whose_fix_is_a_new_line() {
    let root = tempfile::tempdir().unwrap();
    let (venv, index) = world(root.path());
    let ctx = TestContext::new();
    let out = propose(&ctx, &venv, &index, &["--all", "--format", "json"]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let plans = json["plans"].as_array().unwrap();
    let summary: Vec<String> = plans
        .iter()
        .map(|p| {
            let changes: Vec<String> = p["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    format!(
                        "{} {} -> {} {}",
                        c["name"], c["from"], c["to"], c["reasons"]
                    )
                })
                .collect();
            format!("{}: {}", p["layer"]["name"], changes.join(", "))
        })
        .collect();
    insta::assert_snapshot!(summary.join("\n"), @r#"
    "safe": 
    "major-flask-login": "flask-login" "0.5.0" -> "0.6.3" [{"kind":"upgrade-all"}], "werkzeug" "2.0.3" -> "2.3.8" [{"kind":"upgrade-all"}]
    "#);
    let safe = &plans[0];
    insta::assert_snapshot!(safe["warnings"].as_array().unwrap()[0].as_str().unwrap(), @"the safe layer keeps werkzeug at 2.0.3: werkzeug 2.3.8 would break flask-login 0.5.0 (compiled against, or importing, what werkzeug 2.3.8 no longer has), and no solution inside the safe layer moves it to a release made for it in its major line; the evidence: flask-login 0.5.0 (flask_login/utils.py, line 1) imports `safe_str_cmp` from `werkzeug.security`, which werkzeug 2.3.8 does not have; in the corpus, plans with this factor broke 29 of 29 times");
    assert!(
        plans
            .iter()
            .flat_map(|p| p["risk"]["factors"].as_array().unwrap())
            .all(|f| f["kind"] != "import-target-missing"),
        "{json:#}"
    );
}

/// The warning about a module a change drops names the dists that import it as the
/// plan leaves them: an importer the plan moves is read in its planned release (named at that
/// version, or left out when that release no longer imports it), never at its installed one.
#[test]
fn a_dropped_module_warning_reads_the_planned_importers() {
    let root = tempfile::tempdir().unwrap();
    let at = "2024-01-01T00:00:00Z";
    let imports: &[(&str, &str)] = &[("keeps_pkgr/__init__.py", "import pkg_resx\n")];
    let dropped: &[(&str, &str)] = &[("needs_pkgr/__init__.py", "import pkg_resx\n")];
    let releases: Vec<Release<'_>> = vec![
        (
            "fakesetup",
            "1.0",
            at,
            &[],
            &[("fakesetup/__init__.py", ""), ("pkg_resx/__init__.py", "")],
        ),
        (
            "fakesetup",
            "2.0",
            at,
            &[],
            &[("fakesetup/__init__.py", "")],
        ),
        ("needs-pkgr", "1.0", at, &[], dropped),
        (
            "needs-pkgr",
            "2.0",
            at,
            &[],
            &[("needs_pkgr/__init__.py", "import os\n")],
        ),
        ("keeps-pkgr", "1.0", at, &[], imports),
        ("keeps-pkgr", "2.0", at, &[], imports),
    ];
    let (wheels, index) = index_of(root.path(), &releases);
    let venv = venv_with(
        root.path(),
        &wheels,
        &["fakesetup==1.0", "needs-pkgr==1.0", "keeps-pkgr==1.0"],
    );
    let ctx = TestContext::new();
    let args = [
        "fakesetup>=2",
        "needs-pkgr>=2",
        "keeps-pkgr>=2",
        "--format",
        "json",
    ];
    let out = propose(&ctx, &venv, &index, &args);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let warnings = &json["plans"][0]["warnings"];
    assert_eq!(
        warnings,
        &serde_json::json!([
            "fakesetup 2.0 no longer installs the module `pkg_resx` (1.0 did), which installed \
             dists import: keeps-pkgr 2.0 (keeps_pkgr/__init__.py)"
        ]),
        "{:#}",
        json
    );
}

/// A move-dependents plan whose dependent's fixing release caps what it broke under: werkzeug
/// 2.2.0 still has `safe_str_cmp` and Flask-Login 0.6.3 requires `werkzeug<2.3` here, so the
/// plan that moves Flask-Login along installs werkzeug 2.2.0, not 2.3.8. Its reason names the
/// release that breaks Flask-Login 0.5.0 (werkzeug 2.3.8, the one the request planned) and the
/// import that fails there, with its line; it said "moves with werkzeug 2.2.0 (the installed
/// release imports what werkzeug 2.2.0 no longer has)", untrue of 2.2.0.
#[test]
fn a_dependent_moved_along_names_the_release_it_breaks_under() {
    let root = tempfile::tempdir().unwrap();
    let mut releases: Vec<Release<'_>> = releases()
        .into_iter()
        .filter(|r| (r.0, r.1) != ("flask-login", "0.6.3"))
        .collect();
    let login_new: &[(&str, &str)] = &[
        (
            "flask_login/__init__.py",
            "from .utils import _cookie_digest\n",
        ),
        ("flask_login/utils.py", LOGIN_NEW),
    ];
    let werkzeug_old: &[(&str, &str)] = &[
        ("werkzeug/__init__.py", ""),
        ("werkzeug/security.py", SECURITY_OLD),
    ];
    releases.push((
        "flask-login",
        "0.6.3",
        "2023-10-30T14:52:09Z",
        &["werkzeug>=1.0.1,<2.3"],
        login_new,
    ));
    releases.push((
        "werkzeug",
        "2.2.0",
        "2022-07-23T12:00:00Z",
        &[],
        werkzeug_old,
    ));
    let (wheels, index) = index_of(root.path(), &releases);
    let venv = venv_with(
        root.path(),
        &wheels,
        &["werkzeug==2.0.3", "flask-login==0.5.0"],
    );
    let mut ctx = TestContext::new();
    ctx.filter(
        r"Python 3\.\d+\.\d+, linux x86_64, \d+ dists",
        "Python 3.X, linux x86_64, N dists",
    );
    let out = propose(&ctx, &venv, &index, &["werkzeug>=2.2", "--format", "json"]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let moved: Vec<String> = (json["plans"].as_array().unwrap().iter())
        .filter(|p| p["kind"] == "move-dependents")
        .flat_map(|p| p["changes"].as_array().unwrap().iter())
        .map(|c| {
            format!(
                "{} {} -> {} {}",
                c["name"], c["from"], c["to"], c["reasons"]
            )
        })
        .collect();
    insta::assert_snapshot!(moved.join("\n"), @r#"
    "flask-login" "0.5.0" -> "0.6.3" [{"kind":"moves-with","package":"werkzeug","version":"2.3.8","how":"import","file":"flask_login/utils.py","line":1,"module":"werkzeug.security","name":"safe_str_cmp"}]
    "werkzeug" "2.0.3" -> "2.2.0" [{"kind":"requested","requirement":"werkzeug>=2.2"}]
    "#);
    let text = propose(&ctx, &venv, &index, &["werkzeug>=2.2"]);
    planner_snapshot!(ctx, "werkzeug_2_2_moved_along_text", text);
}

/// A bare target whose only newer release needs a dependent taken back years (the torch
/// recipe's `propose tokenizers`: tokenizers 0.23.3 needs transformers 4.17.0, as transformers
/// 4.57.6 requires `tokenizers<=0.23.0`). The dependent taken back breaks peft, and moving peft
/// along brings transformers back: that plan leaves the target where it is, so it is not
/// offered. The recommendation says plainly that the target stays and why (its held-back
/// line), as a plan of its own kind, `no-change`, that says nothing is installed or removed (it
/// was an `upgrade` saying "the environment already satisfies it"); the far downgrade is
/// offered after it.
#[test]
fn a_bare_target_held_back_is_never_answered_by_a_plan_that_leaves_it() {
    let root = tempfile::tempdir().unwrap();
    let transfo = |utils: &'static str| -> &'static [(&'static str, &'static str)] {
        Box::leak(Box::new([
            ("transfo/__init__.py", ""),
            ("transfo/utils.py", utils),
        ]))
    };
    let pefty: &[(&str, &str)] = &[("pefty/__init__.py", "from transfo.utils import Mixin\n")];
    let toky: &[(&str, &str)] = &[("toky/__init__.py", "")];
    let releases: Vec<Release<'_>> = vec![
        ("toky", "0.22.2", "2025-12-01T00:00:00Z", &[], toky),
        ("toky", "0.23.3", "2026-11-01T00:00:00Z", &[], toky),
        (
            "transfo",
            "1.0.0",
            "2022-03-01T00:00:00Z",
            &["toky"],
            transfo("X = 1\n"),
        ),
        (
            "transfo",
            "4.5.0",
            "2026-01-01T00:00:00Z",
            &["toky>=0.22.0,<=0.23.0"],
            transfo("class Mixin:\n    pass\n"),
        ),
        (
            "pefty",
            "0.17.1",
            "2025-08-01T00:00:00Z",
            &["transfo"],
            pefty,
        ),
        (
            "pefty",
            "0.18.1",
            "2026-01-10T00:00:00Z",
            &["transfo>=4.5"],
            pefty,
        ),
    ];
    let (wheels, index) = index_of(root.path(), &releases);
    let pins = ["toky==0.22.2", "transfo==4.5.0", "pefty==0.17.1"];
    let venv = venv_with(root.path(), &wheels, &pins);
    let mut ctx = TestContext::new();
    ctx.filter(
        r"Python 3\.\d+\.\d+, linux x86_64, \d+ dists",
        "Python 3.X, linux x86_64, N dists",
    );
    let out = propose(&ctx, &venv, &index, &["toky", "--format", "json"]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let summary: Vec<String> = json["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let changes: Vec<String> = p["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| format!("{} {} -> {}", c["name"], c["from"], c["to"]))
                .collect();
            format!("{}: {} [{}]", p["kind"], p["title"], changes.join(", "))
        })
        .collect();
    insta::assert_snapshot!(summary.join("\n"), @r#"
    "no-change": "No change: toky stays at 0.22.2; a newer release is planned only by taking back transfo 4.5.0 -> 1.0.0" []
    "upgrade": "As asked: toky" ["toky" "0.22.2" -> "0.23.3", "transfo" "4.5.0" -> "1.0.0"]
    "#);
    let text = propose(&ctx, &venv, &index, &["toky"]);
    planner_snapshot!(ctx, "toky_held_back_text", text);
}

/// The same held-back bare target where the newest release raises on import through a test of
/// another dist's version (its `__init__.py` needs numpy 2, as pyarrow 26's `lib.pyx` does) and
/// its index metadata states none: the request is solved again with what the test implies
/// (`version_implied`), and moving numpy to 2 takes transfo 4.5.0 (`numpy<2`) back to 1.0.0,
/// which breaks pefty's import. No release of toky below the failing one moves it up. That far
/// downgrade was the recommendation: the no-change plan ran on the plain request path only. Now
/// it is offered here too, and ranks first.
#[test]
fn a_bare_target_held_back_through_a_version_test_is_answered_by_no_change() {
    let root = tempfile::tempdir().unwrap();
    let transfo = |utils: &'static str| -> &'static [(&'static str, &'static str)] {
        Box::leak(Box::new([
            ("transfo/__init__.py", ""),
            ("transfo/utils.py", utils),
        ]))
    };
    let numpy = |version: &'static str| -> &'static [(&'static str, &'static str)] {
        let init = Box::leak(format!("__version__ = \"{version}\"\n").into_boxed_str());
        Box::leak(Box::new([("numpy/__init__.py", &*init)]))
    };
    let pefty: &[(&str, &str)] = &[("pefty/__init__.py", "from transfo.utils import Mixin\n")];
    let toky_new: &[(&str, &str)] = &[(
        "toky/__init__.py",
        "import numpy as np\n\nif int(np.__version__.partition('.')[0]) < 2:\n    \
         raise ImportError(\"toky requires NumPy 2\")\n",
    )];
    let toky_old: &[(&str, &str)] = &[("toky/__init__.py", "")];
    let releases: Vec<Release<'_>> = vec![
        ("toky", "0.22.2", "2025-12-01T00:00:00Z", &[], toky_old),
        ("toky", "0.23.3", "2026-11-01T00:00:00Z", &[], toky_new),
        (
            "numpy",
            "1.26.4",
            "2024-02-05T00:00:00Z",
            &[],
            numpy("1.26.4"),
        ),
        (
            "numpy",
            "2.3.0",
            "2026-06-01T00:00:00Z",
            &[],
            numpy("2.3.0"),
        ),
        (
            "transfo",
            "1.0.0",
            "2022-03-01T00:00:00Z",
            &["numpy"],
            transfo("X = 1\n"),
        ),
        (
            "transfo",
            "4.5.0",
            "2026-01-01T00:00:00Z",
            &["numpy<2"],
            transfo("class Mixin:\n    pass\n"),
        ),
        (
            "pefty",
            "0.17.1",
            "2025-08-01T00:00:00Z",
            &["transfo"],
            pefty,
        ),
    ];
    let (wheels, index) = index_of(root.path(), &releases);
    let pins = [
        "toky==0.22.2",
        "numpy==1.26.4",
        "transfo==4.5.0",
        "pefty==0.17.1",
    ];
    let venv = venv_with(root.path(), &wheels, &pins);
    let mut ctx = TestContext::new();
    ctx.filter(
        r"Python 3\.\d+\.\d+, linux x86_64, \d+ dists",
        "Python 3.X, linux x86_64, N dists",
    );
    let out = propose(&ctx, &venv, &index, &["toky", "--format", "json"]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let summary: Vec<String> = json["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let changes: Vec<String> = p["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| format!("{} {} -> {}", c["name"], c["from"], c["to"]))
                .collect();
            format!("{}: {} [{}]", p["kind"], p["title"], changes.join(", "))
        })
        .collect();
    insta::assert_snapshot!(summary.join("\n"));
    let text = propose(&ctx, &venv, &index, &["toky"]);
    planner_snapshot!(ctx, "toky_held_back_through_a_version_test_text", text);
}
