//! A request whose plan needs a release that has no wheel here, on recorded real index data:
//! the jinja2 and markupsafe pages of `testdata/propose-cases/index` (their real releases, the
//! CPython 3.11 and 3.9 wheels of each, see `testdata/propose-cases/README.md`) and, under its
//! `sparse/`, the real wheel bytes the check reads, served on loopback; the venv is a real one
//! (`python3 -m venv` + pip) holding Jinja2 3.1.6 and MarkupSafe 3.0.4 (its real
//! `markupsafe/__init__.py`).
//!
//! `propose 'jinja2<3'`: the solver takes Jinja2 2.11.3 (it requires `MarkupSafe>=0.23`) beside
//! MarkupSafe 3.0.4, but its `jinja2/filters.py` line 13 imports `soft_unicode`, which MarkupSafe
//! dropped in 2.1.0; 2.0.1, the newest that has it, has wheels only for CPython 3.9 and older
//! here (3.10 on macOS). Live (CPython 3.12.1, 2026-12-05) pip and uv install Jinja2 2.11.3
//! beside MarkupSafe 3.0.4 and `import jinja2` fails; `pip install 'jinja2<3' 'markupsafe<2.1'
//! --only-binary :all:` finds no wheel.

use std::path::PathBuf;

use crate::common::TestContext;
use crate::common::index_server::IndexServer;
use crate::common::worlds::{Jinja2Venv, propose_cases_index};
use crate::propose_move_dependents::venv_of;

/// With `RECORD_INDEX_URL` set (`scripts/record-ranges` serving), against that instead: how
/// the wheel bytes under `sparse/` were recorded.
#[test]
fn a_request_whose_import_needs_a_release_without_a_wheel_cannot_be_met() {
    let world = Jinja2Venv::new(&[]);
    let (venv_path, url) = (world.venv_path(), &world.url);
    let args = [
        "propose",
        "jinja2<3",
        "--venv",
        venv_path,
        "--index-url",
        url,
    ];
    let ctx = TestContext::new();
    let out = ctx.run(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    assert_eq!(json["plans"], serde_json::json!([]), "{}", out.stdout);
    let explanation = json["conflict"]["explanation"].as_str().unwrap();
    let why = "jinja2 2.11.3 imports `soft_unicode` from `markupsafe` (jinja2/filters.py, line \
               13), which markupsafe 3.0.4 does not have; the newest markupsafe that has \
               `soft_unicode` is 2.0.1 (markupsafe/__init__.py, read from \
               MarkupSafe-2.0.1-cp39-cp39-manylinux1_x86_64.whl), so the request needs \
               markupsafe<2.1.0.";
    assert!(explanation.starts_with(why), "{explanation}");
    assert!(
        explanation.contains(
            "there is no version of markupsafe>=0.23, <2.1.0 (2.0.1 has no wheel for this \
             environment, only a source distribution, which --only-binary forbids)"
        ),
        "{explanation}"
    );
    assert!(
        explanation.ends_with(
            "And because jinja2 2.11.3 needs markupsafe<2.1.0 on import (its own \
             jinja2/filters.py, line 13, imports `soft_unicode` from `markupsafe`; neither the \
             request nor its index metadata states it), your requirements are unsatisfiable."
        ),
        "{explanation}"
    );
    // The release that would meet it, what it lacks here (the tag this interpreter needed) and
    // the flag that plans it.
    let lack = explanation.lines().nth(1).unwrap_or_default();
    insta::with_settings!({filters => interpreter_filters()}, {
        insta::assert_snapshot!(lack, @"
            markupsafe 2.0.1, the newest release that meets markupsafe<2.1.0, has no wheel for this interpreter and platform (CPython [VERSION] on linux x86_64: a wheel tagged [TAG], or another tag it accepts, was needed; its wheels are for other tags, such as MarkupSafe-2.0.1-cp39-cp39-manylinux1_x86_64.whl), only a source distribution (MarkupSafe-2.0.1.tar.gz); `--allow-build` plans with source distributions (it would build markupsafe 2.0.1 from its sdist at install).
        ");
    });
    let hints = json["conflict"]["hints"].to_string();
    assert!(
        hints.contains("`--allow-build` plans with source distributions"),
        "{hints}"
    );
    // The text says the same on stdout.
    let text = ctx.run(&args);
    assert!(text.stdout.contains(why), "{}", text.stdout);
    assert!(text.stdout.contains("No plan found."), "{}", text.stdout);
}

/// The same request pinned and forced: `propose 'jinja2==2.11.3' --allow-override`. The
/// unforced request cannot be met (the conflict says why, as above); forced, the plan is
/// Jinja2 2.11.3 beside MarkupSafe 3.0.4, a forced-override plan whose risk names the import
/// that fails. Live (CPython 3.12.1, 2026-12-05) it said "No plan found" (exit 1); applied,
/// `import jinja2` fails as the factor says. Beside it, the release closest to 2.11.3 that fits
/// with what its imports need (3.1.5: the recorded page holds 2.11.3, 3.1.5 and 3.1.6): the
/// request that cannot be met gets the fitting plan the other requests that cannot be had get.
#[test]
fn a_forced_request_past_what_its_import_needs_is_a_forced_plan() {
    let world = Jinja2Venv::new(&[]);
    let (venv_path, url) = (world.venv_path(), &world.url);
    let args = [
        "propose",
        "jinja2==2.11.3",
        "--allow-override",
        "--venv",
        venv_path,
        "--index-url",
        url,
        "--format",
        "json",
    ];
    let out = TestContext::new().run(&args);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let plans = json["plans"].as_array().unwrap();
    let summary: Vec<(&str, &str, &str, &str)> = plans
        .iter()
        .map(|p| {
            (
                p["kind"].as_str().unwrap(),
                p["title"].as_str().unwrap(),
                p["pins"]["jinja2"].as_str().unwrap(),
                p["pins"]["markupsafe"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "forced-override",
                "Force jinja2==2.11.3 with markupsafe 3.0.4, past what its imports need \
                 (markupsafe<2.1.0: no release this environment can install)",
                "2.11.3",
                "3.0.4"
            ),
            (
                "newest-fitting",
                "Closest that fits: jinja2==3.1.5 (asked: jinja2==2.11.3)",
                "3.1.5",
                "3.0.4"
            )
        ],
        "{}",
        out.stdout
    );
    let factors: Vec<(&str, &str)> = (plans[0]["risk"]["factors"].as_array().unwrap().iter())
        .map(|f| {
            (
                f["kind"].as_str().unwrap(),
                f["detail"].as_str().unwrap_or(""),
            )
        })
        .filter(|(kind, _)| *kind == "planned-import-missing")
        .collect();
    assert_eq!(
        factors,
        [(
            "planned-import-missing",
            "jinja2 2.11.3 imports `soft_unicode` from `markupsafe` (jinja2/filters.py, line 13), \
             which markupsafe 3.0.4 does not have"
        )],
        "{}",
        out.stdout
    );
    let explanation = json["conflict"]["explanation"].as_str().unwrap();
    assert!(
        explanation.ends_with(
            "And because you require jinja2==2.11.3 and jinja2 2.11.3 needs markupsafe<2.1.0 on \
             import (its own jinja2/filters.py, line 13, imports `soft_unicode` from \
             `markupsafe`; neither the request nor its index metadata states it), your \
             requirements are unsatisfiable."
        ),
        "{explanation}"
    );
}

/// The same check where a release that has the name does have a wheel: `propose flask==2.2.2`
/// on a venv with Flask 3.1.2 and Werkzeug 3.1.9 (recorded real pages, the real wheel bytes the
/// check reads under `sparse/`, Werkzeug 3.1.9's real `werkzeug/urls.py` installed). Flask
/// 2.2.2 requires `Werkzeug>=2.2.2`, so the solver keeps Werkzeug 3.1.9, but its
/// `flask/app.py` line 30 imports `url_quote` from `werkzeug.urls`, which Werkzeug 3.0.0
/// dropped; 2.3.8, the newest that has it, is the 17th release below 3.1.9 and has a wheel for
/// every Python. The plan offered is the request with `werkzeug<3.0.0`, and the warning says
/// why. Live (2026-12-05, CPython 3.11.7) `uv pip install flask==2.2.2` keeps Werkzeug 3.1.9
/// and `import flask` fails; with werkzeug 2.3.8 it imports.
#[test]
fn a_request_whose_import_needs_an_older_release_with_a_wheel_takes_it() {
    let root = tempfile::tempdir().unwrap();
    let venv = flask_venv(root.path(), &[]);
    let server = IndexServer::start(&propose_cases_index());
    let url = std::env::var("RECORD_INDEX_URL").unwrap_or_else(|_| server.url());
    let venv_path = venv.path.to_str().unwrap();
    let args = [
        "propose",
        "flask==2.2.2",
        "--venv",
        venv_path,
        "--index-url",
        &url,
        "--format",
        "json",
    ];
    let out = TestContext::new().run(&args);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let first = &json["plans"][0];
    assert_eq!(first["pins"]["flask"], "2.2.2", "{}", out.stdout);
    assert_eq!(first["pins"]["werkzeug"], "2.3.8", "{}", out.stdout);
    let why = "flask 2.2.2 imports `url_quote` from `werkzeug.urls` (flask/app.py, line 30), \
               which werkzeug 3.1.9 does not have; the newest werkzeug that has `url_quote` is \
               2.3.8 (werkzeug/urls.py, read from werkzeug-2.3.8-py3-none-any.whl), so the \
               request needs werkzeug<3.0.0";
    let warnings = json["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().is_some_and(|w| w.ends_with(why))),
        "{warnings:?}"
    );
    // Werkzeug's change cites Flask 2.2.2's own import, not the resolution.
    let reasons = first["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "werkzeug")
        .map(|c| c["reasons"].to_string());
    insta::assert_snapshot!(reasons.unwrap_or_default(), @r#"[{"kind":"imports-name","dependent":"flask","dependent_version":"2.2.2","requirement":"werkzeug<3.0.0","module":"werkzeug.urls","names":["url_quote"],"file":"flask/app.py","line":30}]"#);
    // No plan keeps the import that fails.
    for plan in json["plans"].as_array().unwrap() {
        assert_ne!(plan["pins"]["werkzeug"], "3.1.9", "{}", out.stdout);
    }
}

/// A real venv holding Flask 3.1.2 and what it requires (each provider's real modules that
/// Flask 2.2.2 and Flask-Login 0.6.2 import names from), and `extra` pins.
fn flask_venv(root: &std::path::Path, extra: &[&str]) -> crate::common::venv::RealVenv {
    let real = |dist: &str, path: &str| {
        let at = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/imports")
            .join(dist)
            .join(path);
        (path.to_string(), std::fs::read_to_string(at).unwrap())
    };
    let mut files = vec![
        (
            "werkzeug==3.1.9",
            vec![
                real("werkzeug-3.1.9", "werkzeug/__init__.py"),
                real("werkzeug-3.1.9", "werkzeug/urls.py"),
            ],
        ),
        (
            "markupsafe==3.0.4",
            vec![real("markupsafe-3.0.4", "markupsafe/__init__.py")],
        ),
        (
            "jinja2==3.1.6",
            vec![real("jinja2-3.1.6", "jinja2/__init__.py")],
        ),
        (
            "itsdangerous==2.2.0",
            vec![real("itsdangerous-2.2.0", "itsdangerous/__init__.py")],
        ),
        (
            "click==8.5.1",
            vec![real("click-8.5.1", "click/__init__.py")],
        ),
        (
            "blinker==1.9.0",
            vec![real("blinker-1.9.0", "blinker/__init__.py")],
        ),
        (
            "flask==3.1.2",
            vec![real("flask-3.1.2", "flask/__init__.py")],
        ),
    ];
    files.extend(extra.iter().map(|pin| (*pin, vec![])));
    let borrowed: Vec<Vec<(&str, &str)>> = files
        .iter()
        .map(|(_, f)| f.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect())
        .collect();
    let pins: Vec<(&str, &[(&str, &str)])> = files
        .iter()
        .zip(&borrowed)
        .map(|((pin, _), f)| (*pin, f.as_slice()))
        .collect();
    venv_of(&propose_cases_index(), root, &pins)
}

/// Each plan (kind, title, the pins of `names`), each warning that names an import, and the
/// reasons of werkzeug's and flask's changes in each plan.
fn flask_summary(json: &serde_json::Value, names: &[&str]) -> String {
    let mut lines = Vec::new();
    for plan in json["plans"].as_array().unwrap() {
        let pins: Vec<String> = names
            .iter()
            .map(|n| format!("{n} {}", plan["pins"][n].as_str().unwrap_or("-")))
            .collect();
        lines.push(format!(
            "{} | {} | {}",
            plan["kind"].as_str().unwrap(),
            plan["title"].as_str().unwrap(),
            pins.join(" ")
        ));
        for change in plan["changes"].as_array().unwrap() {
            let name = change["name"].as_str().unwrap();
            if ["werkzeug", "flask"].contains(&name) {
                for reason in change["reasons"].as_array().unwrap() {
                    lines.push(format!("  {name}: {reason}"));
                }
            }
        }
    }
    for warning in json["warnings"].as_array().unwrap() {
        let warning = warning.as_str().unwrap();
        if warning.contains(" imports `") {
            lines.push(format!("warning: {warning}"));
        }
    }
    lines.join("\n")
}

/// A planned release that imports several names its dependency's planned release lacks:
/// `propose flask-login==0.6.2` beside Flask 3.1.2 and Werkzeug 3.1.9 (Flask-Login 0.6.2's
/// real page and metadata, recorded 2026-12-05; the wheel bytes the check reads under
/// `sparse/`). Its `flask_login/utils.py` imports `url_decode` (line 14) and `url_encode`
/// (line 15) from `werkzeug.urls`, both gone in Werkzeug 3.0.0. Each is searched and cited
/// (only the first was), and the request is solved with what all of them need (Werkzeug 2.3.8
/// takes Flask back with it: Flask 3.1.2 requires `Werkzeug>=3.1`; the solve that plans Flask
/// 2.2.2 is checked again, and its `url_quote` is met by Werkzeug 2.3.8). Live (2026-12-05,
/// CPython 3.11.7) the plan is Flask-Login 0.6.2, Flask 2.3.3 and Werkzeug 2.3.8: the recorded
/// Flask page holds 3.1.3, 3.1.2 and 2.2.2 only.
#[test]
fn every_name_a_planned_release_imports_and_its_dependency_lacks_is_cited_and_solved_for() {
    let root = tempfile::tempdir().unwrap();
    let venv = flask_venv(root.path(), &["flask-login==0.6.3"]);
    let server = IndexServer::start(&propose_cases_index());
    let url = std::env::var("RECORD_INDEX_URL").unwrap_or_else(|_| server.url());
    let args = [
        "propose",
        "flask-login==0.6.2",
        "--venv",
        venv.path.to_str().unwrap(),
        "--index-url",
        &url,
        "--format",
        "json",
    ];
    let out = TestContext::new().run(&args);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    insta::assert_snapshot!(flask_summary(&out.json(), &["flask-login", "flask", "werkzeug"]), @r#"
        upgrade | As asked: flask-login==0.6.2 | flask-login 0.6.2 flask 2.2.2 werkzeug 2.3.8
          flask: {"kind":"unblocks-import","dependent":"flask-login","dependent_version":"0.6.2","requirement":"werkzeug<3.0.0","module":"werkzeug.urls","names":["url_decode"],"file":"flask_login/utils.py","line":14,"blocking":"werkzeug>=3.1.0"}
          werkzeug: {"kind":"imports-name","dependent":"flask-login","dependent_version":"0.6.2","requirement":"werkzeug<3.0.0","module":"werkzeug.urls","names":["url_decode"],"file":"flask_login/utils.py","line":14}
          werkzeug: {"kind":"imports-name","dependent":"flask-login","dependent_version":"0.6.2","requirement":"werkzeug<3.0.0","module":"werkzeug.urls","names":["url_encode"],"file":"flask_login/utils.py","line":15}
        warning: flask-login 0.6.2 imports `url_decode` from `werkzeug.urls` (flask_login/utils.py, line 14), which werkzeug 3.1.9 does not have; the newest werkzeug that has `url_decode` is 2.3.8 (werkzeug/urls.py, read from werkzeug-2.3.8-py3-none-any.whl); flask-login 0.6.2 imports `url_encode` from `werkzeug.urls` (flask_login/utils.py, line 15), which werkzeug 3.1.9 does not have; the newest werkzeug that has `url_encode` is 2.3.8 (werkzeug/urls.py, read from werkzeug-2.3.8-py3-none-any.whl), so the request needs werkzeug<3.0.0
    "#); // In text, werkzeug's change says both imports in one "needed by" clause (it repeated the
    // whole clause for each).
    let text = TestContext::new().run(&args[..args.len() - 2]);
    let werkzeug: Vec<&str> = (text.stdout.lines())
        .map(str::trim)
        .filter(|l| l.starts_with("werkzeug "))
        .collect();
    insta::assert_snapshot!(werkzeug.join("\n"), @"werkzeug     3.1.9 -> 2.3.8  needed by flask-login 0.6.2 on import (werkzeug<3.0.0: its own flask_login/utils.py, line 14, imports `url_decode` from `werkzeug.urls`; line 15, imports `url_encode` from `werkzeug.urls`, which newer releases lack; not in its index metadata)");
}

/// The newest (here the closest) plan that fits is checked for the imports it needs too:
/// `propose flask==2.2.6` (no such release) on the Flask 3.1.2 venv. The closest recorded
/// release that fits is Flask 2.2.2 (the recorded page holds 3.1.3, 3.1.2 and 2.2.2), whose
/// `flask/app.py` line 30 imports `url_quote`, which Werkzeug 3.1.9 lacks: the plan takes
/// Werkzeug 2.3.8 with it, and never offers Flask 2.2.2 beside Werkzeug 3.1.9 (it was offered,
/// failing on `import flask`).
#[test]
fn the_plan_that_fits_is_planned_with_what_its_imports_need() {
    let root = tempfile::tempdir().unwrap();
    let venv = flask_venv(root.path(), &[]);
    let server = IndexServer::start(&propose_cases_index());
    let url = std::env::var("RECORD_INDEX_URL").unwrap_or_else(|_| server.url());
    let args = [
        "propose",
        "flask==2.2.6",
        "--venv",
        venv.path.to_str().unwrap(),
        "--index-url",
        &url,
        "--format",
        "json",
    ];
    let out = TestContext::new().run(&args);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    insta::assert_snapshot!(flask_summary(&out.json(), &["flask", "werkzeug"]), @r#"
        newest-fitting | Closest that fits: flask==2.2.2 (asked: flask==2.2.6) | flask 2.2.2 werkzeug 2.3.8
          flask: {"kind":"newest-fitting","asked":"flask==2.2.6","closest":true}
          werkzeug: {"kind":"imports-name","dependent":"flask","dependent_version":"2.2.2","requirement":"werkzeug<3.0.0","module":"werkzeug.urls","names":["url_quote"],"file":"flask/app.py","line":30}
        warning: flask 2.2.2 imports `url_quote` from `werkzeug.urls` (flask/app.py, line 30), which werkzeug 3.1.9 does not have; the newest werkzeug that has `url_quote` is 2.3.8 (werkzeug/urls.py, read from werkzeug-2.3.8-py3-none-any.whl), so the request needs werkzeug<3.0.0; the closest that fits is planned with it
    "#);
}

/// A request that solves as asked but whose planned release's import need cannot be met with
/// it: `propose flask-login==0.6.2` on the Flask 3.1.2 venv beside an application installed
/// from a file (kept as it is) that requires `flask>=3` and Flask-Login, as a project installed
/// with `pip install -e .` is. Flask-Login 0.6.2's `flask_login/utils.py` line 14 imports
/// `url_decode`, gone in Werkzeug 3.0.0, and every recorded Flask 3 requires `Werkzeug>=3`.
/// The conflict names what blocks the implied `werkzeug<3.0.0` (Flask 3.1.2's requirement); the
/// move of that blocker and the release of the target that fits are searched (no plan came at
/// all): the blocker cannot move (the application holds Flask at 3), the closer releases 0.6.1
/// and 0.5.0 need Werkzeug 2 on import too, and the newest Flask-Login that fits is the one
/// installed, each said in a warning. Flask-Login 0.5.0 and 0.6.1 (page, metadata and the wheel
/// bytes read) were recorded on 2026-12-05 for these tests.
#[test]
fn a_request_whose_import_need_an_installed_dist_blocks_gets_the_blocker_and_the_fit_searched() {
    let root = tempfile::tempdir().unwrap();
    let venv = app_venv(root.path(), "flask-login==0.6.3");
    let out = propose_flask_login(&venv);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    insta::assert_snapshot!(unmet_summary(&out.json()), @r#"
        plans: []
        blockers: [{"dependent":"flask","dependent_version":"3.1.2","requirement":"werkzeug>=3.1.0"}]
        no move of the blockers of werkzeug<3.0.0 (flask 3.1.2) has a solution with it
        flask-login 0.6.1, 0.5.0, closer to what was asked, fit only beside releases that lack what they import, and are passed over
        the newest flask-login that fits without moving anything else is 0.6.3, already installed
    "#);
}

/// The same application venv with Flask-Login 0.5.0 (broken beside Werkzeug 3: it imports
/// `safe_str_cmp`): the release of the target that fits is planned, Flask-Login 0.6.3, past
/// 0.6.1, the closer release, whose own `flask_login/utils.py` imports `url_decode` too (it was
/// "No plan found"). Live (2026-12-05, CPython 3.11.7, with an app installed with `pip install
/// -e`) the same plan; applied with `install-uv.sh --verify`: 8 passed, 0 regressions, and the
/// app's `login_user` works.
#[test]
fn a_request_whose_import_need_cannot_be_met_gets_the_release_that_fits() {
    let root = tempfile::tempdir().unwrap();
    let venv = app_venv(root.path(), "flask-login==0.5.0");
    let out = propose_flask_login(&venv);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    insta::assert_snapshot!(unmet_summary(&out.json()), @r#"
        plans: "newest-fitting" | "Closest that fits: flask-login==0.6.3 (asked: flask-login==0.6.2)"
        blockers: [{"dependent":"flask","dependent_version":"3.1.2","requirement":"werkzeug>=3.1.0"}]
        no move of the blockers of werkzeug<3.0.0 (flask 3.1.2) has a solution with it
        flask-login 0.6.1, closer to what was asked, fits only beside releases that lack what it imports, and is passed over
    "#);
}

/// A release asked by version is read for its imports when it moves up too: `propose
/// flask-login==0.6.2` from Flask-Login 0.5.0 beside Flask 3.1.2 and Werkzeug 3.1.9 (no
/// application holding Flask). It was planned alone, risk 0, and `import flask_login` failed
/// (`url_decode`); now with Werkzeug 2.3.8 and Flask back to 2.2.2 (live: 2.3.3, applied:
/// 52 passed, 0 regressions, `login_user` works).
#[test]
fn a_release_asked_by_version_is_read_for_its_imports_when_it_moves_up() {
    let root = tempfile::tempdir().unwrap();
    let venv = flask_venv(root.path(), &["flask-login==0.5.0"]);
    let out = propose_flask_login(&venv);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    insta::assert_snapshot!(flask_summary(&out.json(), &["flask-login", "flask", "werkzeug"]), @r#"
        upgrade | As asked: flask-login==0.6.2 | flask-login 0.6.2 flask 2.2.2 werkzeug 2.3.8
          flask: {"kind":"unblocks-import","dependent":"flask-login","dependent_version":"0.6.2","requirement":"werkzeug<3.0.0","module":"werkzeug.urls","names":["url_decode"],"file":"flask_login/utils.py","line":14,"blocking":"werkzeug>=3.1.0"}
          werkzeug: {"kind":"imports-name","dependent":"flask-login","dependent_version":"0.6.2","requirement":"werkzeug<3.0.0","module":"werkzeug.urls","names":["url_decode"],"file":"flask_login/utils.py","line":14}
          werkzeug: {"kind":"imports-name","dependent":"flask-login","dependent_version":"0.6.2","requirement":"werkzeug<3.0.0","module":"werkzeug.urls","names":["url_encode"],"file":"flask_login/utils.py","line":15}
        warning: flask-login 0.6.2 imports `url_decode` from `werkzeug.urls` (flask_login/utils.py, line 14), which werkzeug 3.1.9 does not have; the newest werkzeug that has `url_decode` is 2.3.8 (werkzeug/urls.py, read from werkzeug-2.3.8-py3-none-any.whl); flask-login 0.6.2 imports `url_encode` from `werkzeug.urls` (flask_login/utils.py, line 15), which werkzeug 3.1.9 does not have; the newest werkzeug that has `url_encode` is 2.3.8 (werkzeug/urls.py, read from werkzeug-2.3.8-py3-none-any.whl), so the request needs werkzeug<3.0.0
    "#);
}

/// Two targets asked by version whose import need one of them blocks: `propose
/// 'flask-login==0.6.2' 'flask==3.1.2'` on the Flask 3.1.2 venv with Flask-Login 0.6.3. Flask
/// 3.1.2 requires `Werkzeug>=3.1`, and Flask-Login 0.6.2's `flask_login/utils.py` line 14 needs
/// Werkzeug 2 (`url_decode`). Only flask, the target that blocks, is relaxed, and the title names
/// it; flask-login stays as asked (both were relaxed: "Newest that fits: flask-login==0.6.3,
/// flask==3.1.3"). Live (2026-12-06, CPython 3.11.7): flask 2.3.3 with Werkzeug 2.3.8, applied
/// with `install-uv.sh --verify`: 52 passed, 0 regressions, `login_user` works; the recorded
/// Flask page holds 3.1.3, 3.1.2 and 2.2.2 only.
#[test]
fn of_two_targets_asked_by_version_the_one_that_blocks_the_other_s_import_is_relaxed() {
    let root = tempfile::tempdir().unwrap();
    let venv = flask_venv(root.path(), &["flask-login==0.6.3"]);
    let server = IndexServer::start(&propose_cases_index());
    let url = std::env::var("RECORD_INDEX_URL").unwrap_or_else(|_| server.url());
    let args = [
        "propose",
        "flask-login==0.6.2",
        "flask==3.1.2",
        "--venv",
        venv.path.to_str().unwrap(),
        "--index-url",
        &url,
        "--format",
        "json",
    ];
    let out = TestContext::new().run(&args);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    insta::assert_snapshot!(flask_summary(&out.json(), &["flask-login", "flask", "werkzeug"]), @r#"
        newest-fitting | Newest that fits: flask==2.2.2 in place of flask==3.1.2, whose werkzeug>=3.1.0 blocks what flask-login 0.6.2 imports (werkzeug<3.0.0); flask-login==0.6.2 as asked | flask-login 0.6.2 flask 2.2.2 werkzeug 2.3.8
          flask: {"kind":"newest-fitting","asked":"flask==3.1.2"}
          werkzeug: {"kind":"imports-name","dependent":"flask-login","dependent_version":"0.6.2","requirement":"werkzeug<3.0.0","module":"werkzeug.urls","names":["url_decode"],"file":"flask_login/utils.py","line":14}
          werkzeug: {"kind":"imports-name","dependent":"flask-login","dependent_version":"0.6.2","requirement":"werkzeug<3.0.0","module":"werkzeug.urls","names":["url_encode"],"file":"flask_login/utils.py","line":15}
        warning: flask-login 0.6.2 imports `url_decode` from `werkzeug.urls` (flask_login/utils.py, line 14), which werkzeug 3.1.9 does not have; the newest werkzeug that has `url_decode` is 2.3.8 (werkzeug/urls.py, read from werkzeug-2.3.8-py3-none-any.whl); flask-login 0.6.2 imports `url_encode` from `werkzeug.urls` (flask_login/utils.py, line 15), which werkzeug 3.1.9 does not have; the newest werkzeug that has `url_encode` is 2.3.8 (werkzeug/urls.py, read from werkzeug-2.3.8-py3-none-any.whl), so the request needs werkzeug<3.0.0; the newest that fits is planned with it
    "#);
}

/// A bare target that moves up beside a dependency the plan keeps as installed is read for its
/// imports: `propose banks` on Banks 0.4.1 (which imports no platformdirs) beside Platformdirs
/// 2.0.2 (its real `platformdirs.py`). Banks 2.5.1 declares `platformdirs` with no bound, and
/// its `banks/config.py` line 10 imports `user_data_path`, which Platformdirs 2.1.0 added: the
/// plan moves platformdirs up with it, citing the line (it was banks alone, risk 10, and
/// `import banks` failed; uv does the same). Live (2026-12-06, CPython 3.11.7, Banks 0.4.1 with
/// its requirements installed) the same plan; applied with `install-uv.sh --verify`: 59
/// passed, 0 regressions, `import banks` works. Recorded pages, metadata and the wheel bytes read
/// (`testdata/import-later/index`, see its README); litellm, which Banks 0.4.1 requires, is
/// left out of the venv.
#[test]
fn a_bare_target_moved_up_beside_a_kept_dependency_lacking_what_it_imports_moves_it_too() {
    let root = tempfile::tempdir().unwrap();
    let index = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/import-later/index");
    let platformdirs = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/imports/platformdirs-2.0.2/platformdirs.py"),
    )
    .unwrap();
    let files: &[(&str, &str)] = &[("platformdirs.py", &platformdirs)];
    let pins: Vec<(&str, &[(&str, &str)])> = vec![
        ("banks==0.4.1", &[]),
        ("jinja2==3.1.6", &[]),
        ("markupsafe==3.0.4", &[]),
        ("platformdirs==2.0.2", files),
    ];
    let venv = venv_of(&index, root.path(), &pins);
    let server = IndexServer::start(&index);
    let url = std::env::var("RECORD_INDEX_URL").unwrap_or_else(|_| server.url());
    let args = [
        "propose",
        "banks",
        "--venv",
        venv.path.to_str().unwrap(),
        "--index-url",
        &url,
        "--format",
        "json",
    ];
    let out = TestContext::new().run(&args);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let mut lines = Vec::new();
    for plan in json["plans"].as_array().unwrap() {
        lines.push(format!(
            "{} | {} | banks {} platformdirs {}",
            plan["kind"].as_str().unwrap(),
            plan["title"].as_str().unwrap(),
            plan["pins"]["banks"],
            plan["pins"]["platformdirs"]
        ));
        for change in plan["changes"].as_array().unwrap() {
            if change["name"] == "platformdirs" {
                lines.push(format!("  platformdirs: {}", change["reasons"]));
            }
        }
        for factor in plan["risk"]["factors"].as_array().into_iter().flatten() {
            if factor["kind"] == "planned-import-missing" {
                lines.push(format!("  factor: {}", factor["detail"]));
            }
        }
    }
    insta::assert_snapshot!(lines.join("\n"), @r#"
        upgrade | As asked: banks | banks "2.5.1" platformdirs "4.14.9"
          platformdirs: [{"kind":"imports-name","dependent":"banks","dependent_version":"2.5.1","requirement":"platformdirs>=2.1.0","module":"platformdirs","names":["user_data_path"],"file":"banks/config.py","line":10}]
    "#);
}

/// [`flask_venv`] with `flask_login` and an application installed from its wheel's path
/// (direct_url.json: kept as it is, never replaced) that requires `flask>=3` and Flask-Login.
fn app_venv(root: &std::path::Path, flask_login: &str) -> crate::common::venv::RealVenv {
    let venv = flask_venv(root, &[flask_login]);
    let wheels = root.join("app");
    std::fs::create_dir_all(&wheels).unwrap();
    let requires = ["flask>=3", "flask-login"];
    let app = crate::common::venv::build_wheel(&wheels, "myapp", "1.0", &requires, &[]);
    venv.pip_ok(&["install", "--no-deps", "--quiet", app.to_str().unwrap()]);
    venv
}

/// `propose flask-login==0.6.2 --format json` on `venv` against the recorded index.
fn propose_flask_login(venv: &crate::common::venv::RealVenv) -> crate::common::Output {
    let server = IndexServer::start(&propose_cases_index());
    let url = std::env::var("RECORD_INDEX_URL").unwrap_or_else(|_| server.url());
    let args = [
        "propose",
        "flask-login==0.6.2",
        "--venv",
        venv.path.to_str().unwrap(),
        "--index-url",
        &url,
        "--format",
        "json",
    ];
    TestContext::new().run(&args)
}

/// Each plan (kind, title), the conflict's blockers and the warnings (but the one that says the
/// application is kept).
fn unmet_summary(json: &serde_json::Value) -> String {
    let plans: Vec<String> = (json["plans"].as_array().unwrap().iter())
        .map(|p| format!("{} | {}", p["kind"], p["title"]))
        .collect();
    let warnings: Vec<&str> = (json["warnings"].as_array().unwrap().iter())
        .filter_map(|w| w.as_str())
        .filter(|w| !w.contains("installed from"))
        .collect();
    format!(
        "plans: {}\nblockers: {}\n{}",
        if plans.is_empty() {
            "[]".to_string()
        } else {
            plans.join("; ")
        },
        json["conflict"]["blockers"],
        warnings.join("\n")
    )
}

/// What a sentence naming the wheel tag this interpreter needs says of the test's Python (its
/// version and glibc differ between machines), as `[VERSION]` and `[TAG]`.
pub(crate) fn interpreter_filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r"CPython \d+\.\d+\.\d+", "CPython [VERSION]"),
        (r"a wheel tagged \S+, or", "a wheel tagged [TAG], or"),
    ]
}
