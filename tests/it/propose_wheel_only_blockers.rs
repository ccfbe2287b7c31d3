//! A blocked request whose move-the-blockers plan imports a name its planned dependency lacks,
//! on recorded real index data: the jinja2 and markupsafe pages of the wheel-only case
//! (`propose_wheel_only`) and jinja2-cli's page (1.0.1, 1.0.0 and 0.8.2, recorded 2026-12-05,
//! see `testdata/propose-cases/README.md`), on a real venv holding Jinja2 3.1.6, MarkupSafe
//! 3.0.4 (its real `markupsafe/__init__.py`) and jinja2-cli 1.0.1, which requires
//! `jinja2>=3.1`.
//!
//! `propose 'jinja2<3'`: jinja2-cli blocks it; moving the blocker back to 0.8.2 (which requires
//! any jinja2) plans Jinja2 2.11.3 beside MarkupSafe 3.0.4, and Jinja2 2.11.3's
//! `jinja2/filters.py` line 13 imports `soft_unicode`, which MarkupSafe dropped in 2.1.0. That
//! plan was recommended (risk 62, "known to fail on `import jinja2`"). The blockers are now moved
//! with `markupsafe<2.1.0`; here 2.0.1 has no wheel for this Python (CPython 3.9 wheels only),
//! so no plan is offered, and the plan keeping MarkupSafe 3.0.4 only forced. Live (CPython
//! 3.12.1, 2026-12-05, `--allow-build`) the plan is jinja2-cli 0.8.2, Jinja2 2.11.3 and
//! MarkupSafe 2.0.1 built; applied, `import jinja2` works, the `jinja2` command renders and
//! `pip check` is clean.

use crate::common::TestContext;
use crate::common::worlds::Jinja2Venv;
use crate::propose_wheel_only::interpreter_filters;

/// Each plan (kind, title, the three pins) and the warnings that name the import.
fn summary(json: &serde_json::Value) -> String {
    let mut lines = Vec::new();
    for plan in json["plans"].as_array().unwrap() {
        let pins = &plan["pins"];
        lines.push(format!(
            "{} | {} | jinja2 {} jinja2-cli {} markupsafe {}",
            plan["kind"].as_str().unwrap(),
            plan["title"].as_str().unwrap(),
            pins["jinja2"].as_str().unwrap_or("-"),
            pins["jinja2-cli"].as_str().unwrap_or("-"),
            pins["markupsafe"].as_str().unwrap_or("-"),
        ));
    }
    for warning in json["warnings"].as_array().unwrap() {
        let warning = warning.as_str().unwrap();
        if warning.contains("soft_unicode") {
            lines.push(format!("warning: {warning}"));
        }
    }
    lines.join("\n")
}

/// With `RECORD_INDEX_URL` set (`scripts/record-ranges` serving), against that instead: how
/// the wheel bytes under `sparse/` were recorded.
#[test]
fn a_blocker_move_carries_what_the_targets_import_needs() {
    let world = Jinja2Venv::new(&["jinja2-cli==1.0.1"]);
    let (venv_path, url) = (world.venv_path(), &world.url);
    let args = [
        "propose",
        "jinja2<3",
        "--venv",
        venv_path,
        "--index-url",
        url,
        "--format",
        "json",
    ];
    let ctx = TestContext::new();
    let out = ctx.run(&args);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    // Why no move of the blockers has a solution: the release that would, what it lacks here
    // (the tag this interpreter needed) and the flag that plans it.
    let mut settings = insta::Settings::clone_current();
    for (regex, with) in interpreter_filters() {
        settings.add_filter(regex, with);
    }
    let _bound = settings.bind_to_scope();
    insta::assert_snapshot!(summary(&out.json()), @"
        warning: jinja2 2.11.3 imports `soft_unicode` from `markupsafe` (jinja2/filters.py, line 13), which markupsafe 3.0.4 does not have; the newest markupsafe that has `soft_unicode` is 2.0.1 (markupsafe/__init__.py, read from MarkupSafe-2.0.1-cp39-cp39-manylinux1_x86_64.whl), so the request needs markupsafe<2.1.0; no move of the blockers (jinja2-cli 1.0.1) has a solution with it: markupsafe 2.0.1, the newest release that meets markupsafe<2.1.0, has no wheel for this interpreter and platform (CPython [VERSION] on linux x86_64: a wheel tagged [TAG], or another tag it accepts, was needed; its wheels are for other tags, such as MarkupSafe-2.0.1-cp39-cp39-manylinux1_x86_64.whl), only a source distribution (MarkupSafe-2.0.1.tar.gz); `--allow-build` plans with source distributions (it would build markupsafe 2.0.1 from its sdist at install)
    ");
    // Forced, the plan that keeps MarkupSafe 3.0.4 is offered, titled with what it goes past.
    let out = ctx.run(&[&args[..], &["--allow-override"]].concat());
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    insta::assert_snapshot!(summary(&out.json()), @"
        forced-override | Force jinja2<3 with markupsafe 3.0.4, past what its imports need (markupsafe<2.1.0): Downgrade the blocker: jinja2-cli 1.0.1 -> 0.8.2 | jinja2 2.11.3 jinja2-cli 0.8.2 markupsafe 3.0.4
        forced-override | Force jinja2<3 over jinja2-cli 1.0.1's `jinja2>=3.1` | jinja2 2.11.3 jinja2-cli 1.0.1 markupsafe 3.0.4
        warning: jinja2 2.11.3 imports `soft_unicode` from `markupsafe` (jinja2/filters.py, line 13), which markupsafe 3.0.4 does not have; the newest markupsafe that has `soft_unicode` is 2.0.1 (markupsafe/__init__.py, read from MarkupSafe-2.0.1-cp39-cp39-manylinux1_x86_64.whl), so the request needs markupsafe<2.1.0; no move of the blockers (jinja2-cli 1.0.1) has a solution with it: markupsafe 2.0.1, the newest release that meets markupsafe<2.1.0, has no wheel for this interpreter and platform (CPython [VERSION] on linux x86_64: a wheel tagged [TAG], or another tag it accepts, was needed; its wheels are for other tags, such as MarkupSafe-2.0.1-cp39-cp39-manylinux1_x86_64.whl), only a source distribution (MarkupSafe-2.0.1.tar.gz); `--allow-build` plans with source distributions (it would build markupsafe 2.0.1 from its sdist at install)
    ");
}
