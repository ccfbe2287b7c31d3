//! A plan says which evidence it could not read instead of scoring as if there were none.
//!
//! `propose 'jinja2==2.11.3' --allow-override`: online, Jinja2 2.11.3's wheel shows that its
//! `jinja2/filters.py` line 13 imports `soft_unicode`, which MarkupSafe 3 dropped (the forced
//! plan, `planned-import-missing`, risk 71 live on the h200 fixture); where that wheel cannot be
//! read, the plan is "As asked" with no such factor, and it now says so: `not checked: what
//! jinja2 2.11.3 imports (...)`, JSON `unchecked`, its level at least medium. Each reason: the
//! shipped recorded index as a local folder (metadata only: `no-wheel-file`), the loopback
//! server without range support over the recorded sparse bytes (`read-failed`), then `--offline`
//! on that run's cache (`offline-not-cached`); with the ranges served, the online run and the
//! `--offline` run after it answer alike, with no entry.

use serde_json::Value;

use crate::common::worlds::Jinja2Venv;
use crate::common::{TestContext, h200_fixtures, repo_root};

/// Per plan: kind, title, risk; then each unchecked entry.
fn summary(json: &Value) -> String {
    let mut out = String::new();
    for plan in json["plans"].as_array().unwrap() {
        out.push_str(&format!(
            "{} | {} | risk {} {}\n",
            plan["kind"].as_str().unwrap(),
            plan["title"].as_str().unwrap(),
            plan["risk"]["score"],
            plan["risk"]["level"].as_str().unwrap(),
        ));
        for entry in plan["unchecked"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "  unchecked: {} {} {} {}: {}{}\n",
                entry["name"].as_str().unwrap(),
                entry["version"].as_str().unwrap(),
                entry["evidence"],
                entry["reason"].as_str().unwrap(),
                entry["detail"].as_str().unwrap(),
                entry["hint"]
                    .as_str()
                    .map_or(String::new(), |h| format!(" (hint: {h})")),
            ));
        }
    }
    out
}

/// The plan's body in text, from its heading to its commands.
fn plan_body(text: &str) -> String {
    text.lines()
        .skip_while(|l| !l.starts_with("Plan 1"))
        .take_while(|l| !l.starts_with("  (--out-dir"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The brief's command on the shipped recorded index (a folder of metadata, no wheel of
/// Jinja2 2.11.3): the plan as asked, at least medium, saying what it could not read and why.
#[test]
fn a_metadata_only_index_leaves_the_imports_unchecked_and_says_so() {
    let ctx = TestContext::new();
    let venv = h200_fixtures().join("h200-venv");
    let index = repo_root().join("testdata/index/simple");
    let args = [
        "propose",
        "jinja2==2.11.3",
        "--allow-override",
        "--venv",
        venv.to_str().unwrap(),
        "--index-url",
        index.to_str().unwrap(),
        "--offline",
    ];
    let text = ctx.run(&args);
    assert_eq!(text.code, Some(0), "{}\n{}", text.stdout, text.stderr);
    insta::assert_snapshot!(plan_body(&text.stdout), @r#"
    Plan 1 upgrade (recommended): As asked: jinja2==2.11.3
      risk 21/100 medium (policy default)
      changes:
        jinja2  3.1.6 -> 2.11.3  requested (jinja2==2.11.3)
      risk factors:
          +6  downgrade              jinja2 goes back from 3.1.6 to 2.11.3; in the corpus, plans with this factor broke 21 of 33 times
          +6  direct-dependent       2 installed dists require jinja2: torch, torch-geometric; in the corpus, plans with this factor broke 49 of 100 times
          +9  transitive-dependent   14 more installed dists reach jinja2 through others; in the corpus, plans with this factor broke 10 of 17 times
      not checked (so the risk is at least medium):
        what jinja2 2.11.3 imports, whether it ships a module another dist ships, whether it raises on import over another dist's version (a test in its own sources), and whether it ships generated modules the planned protobuf refuses (its wheel's files could not be read: the local index holds no wheel file for it, only its metadata)
    "#);
    let json = ctx.run(&[&args[..], &["--format", "json"]].concat());
    insta::assert_snapshot!(summary(&json.json()), @r#"
    upgrade | As asked: jinja2==2.11.3 | risk 21 medium
      unchecked: jinja2 2.11.3 ["planned-imports","module-clashes","version-checks","generated-code"] no-wheel-file: the local index holds no wheel file for it, only its metadata
    "#);
}

/// A server that ignores `Range` over a wheel it holds only in part (the recorded sparse
/// bytes): the read fails, and the plan names the error; `--offline` after that run (same
/// cache: the pages and metadata are there, the wheel's files are not) names the cache.
#[test]
fn a_failed_read_and_then_offline_each_say_why() {
    let world = Jinja2Venv::new(&[]);
    world.server.set_ranges(false);
    let ctx = TestContext::new();
    let args = [
        "propose",
        "jinja2==2.11.3",
        "--allow-override",
        "--venv",
        world.venv_path(),
        "--index-url",
        &world.url,
        "--format",
        "json",
    ];
    let online = ctx.run(&args);
    assert_eq!(online.code, Some(0), "{}\n{}", online.stdout, online.stderr);
    ctx.insta_settings().bind(|| {
        insta::assert_snapshot!(summary(&online.json()), @r#"
        upgrade | As asked: jinja2==2.11.3 | risk 6 medium
          unchecked: jinja2 2.11.3 ["planned-imports","module-clashes","version-checks"] read-failed: the read failed: http://127.0.0.1:[PORT]/files/Jinja2-2.11.3-py2.py3-none-any.whl answered 416
        "#);
    });
    let offline = ctx.run(&[&args[..], &["--offline"]].concat());
    assert_eq!(
        offline.code,
        Some(0),
        "{}\n{}",
        offline.stdout,
        offline.stderr
    );
    insta::assert_snapshot!(summary(&offline.json()), @r#"
    upgrade | As asked: jinja2==2.11.3 | risk 6 medium
      unchecked: jinja2 2.11.3 ["planned-imports","module-clashes","version-checks"] offline-not-cached: --offline and not in the cache (hint: run once without --offline to fill the cache)
    "#);
}

/// With the ranges served, the online run reads Jinja2 2.11.3's files (the forced plan) and
/// the `--offline` run after it answers the same plans from the cache, the forced plan with no
/// entry. The closest release that fits (Jinja2 3.1.5) has no wheel file on this server: online
/// the read is refused (not found), and the `--offline` run says the same, from what the online
/// run left in the cache (it said "not in the cache; run once without --offline", which would
/// not have helped).
#[test]
fn offline_after_an_online_run_answers_alike_with_nothing_unchecked() {
    let world = Jinja2Venv::new(&[]);
    let ctx = TestContext::new();
    let args = [
        "propose",
        "jinja2==2.11.3",
        "--allow-override",
        "--venv",
        world.venv_path(),
        "--index-url",
        &world.url,
        "--format",
        "json",
    ];
    let online = ctx.run(&args);
    assert_eq!(online.code, Some(0), "{}\n{}", online.stdout, online.stderr);
    let offline = ctx.run(&[&args[..], &["--offline"]].concat());
    assert_eq!(
        offline.code,
        Some(0),
        "{}\n{}",
        offline.stdout,
        offline.stderr
    );
    assert_eq!(summary(&offline.json()), summary(&online.json()));
    insta::assert_snapshot!(summary(&offline.json()), @r#"
    forced-override | Force jinja2==2.11.3 with markupsafe 3.0.4, past what its imports need (markupsafe<2.1.0: no release this environment can install) | risk 56 high
    newest-fitting | Closest that fits: jinja2==3.1.5 (asked: jinja2==2.11.3) | risk 6 medium
      unchecked: jinja2 3.1.5 ["planned-imports","module-clashes","version-checks"] no-wheel-file: the index serves no wheel file for it (not found)
    "#);
}
