//! The evidence steps beyond the import checks say when they went without a planned release's
//! files. Each test takes a release's wheel off a loopback server of tiny wheels (its metadata
//! stays served; the wheel answers 404), asks `propose` and `outdated`, then serves the wheel
//! again and asks online and `--offline` on that cache (the answers must be the same).
//!
//! - Version checks, on the pyarrow world of `propose_version_implied` (pyarrow 26.0.1 carries
//!   the real first 46 lines of its `pyarrow/lib.pyx`, whose line 41 raises on import when
//!   numpy's major version is below 2; the venv holds numpy 1.26.4, pandas 2.2.3, pyarrow
//!   18.1.0): without the wheel, `propose 'pyarrow==26.0.1'` can only plan it beside numpy
//!   1.26.4 and says the version checks went without its files; `outdated` offers 26.0.1 and
//!   says the same. With it, line 41 is found.
//! - Call-time evidence, on the truth corpus's Twisted case (the real files of scrapy 2.8.0 and
//!   Twisted 22.10.0 and 23.8.0): without the wheel, the plan and the outdated row name the
//!   call-time check among those not made, and `try` of that plan lists them beside its
//!   measurements.

use std::path::Path;

use serde_json::Value;

use crate::common::TestContext;
use crate::common::worlds::TinyWorld;
use crate::evidence_truth::{cases, plan_folder, wheels_of};
use crate::propose_version_implied::wheels;
use crate::try_::path_without_uv;

/// Each plan: kind, title, its changes, the risk and its factors; then its unchecked entries.
fn plans(json: &Value) -> String {
    let mut out = String::new();
    for plan in json["plans"].as_array().unwrap() {
        let version = |v: &Value| v.as_str().unwrap_or("none").to_string();
        let changes: Vec<String> = (plan["changes"].as_array().unwrap().iter())
            .map(|c| {
                let name = c["name"].as_str().unwrap();
                format!("{name} {} -> {}", version(&c["from"]), version(&c["to"]))
            })
            .collect();
        let factors: Vec<&str> = (plan["risk"]["factors"].as_array().unwrap().iter())
            .map(|f| f["kind"].as_str().unwrap())
            .collect();
        out.push_str(&format!(
            "{} | {} | {} | risk {} {} ({})\n",
            plan["kind"].as_str().unwrap(),
            plan["title"].as_str().unwrap(),
            changes.join(", "),
            plan["risk"]["score"],
            plan["risk"]["level"].as_str().unwrap(),
            factors.join(", "),
        ));
        for entry in plan["unchecked"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "  unchecked: {} {} {} {}: {}\n",
                entry["name"].as_str().unwrap(),
                entry["version"].as_str().unwrap(),
                entry["evidence"],
                entry["reason"].as_str().unwrap(),
                entry["detail"].as_str().unwrap(),
            ));
        }
    }
    out
}

/// `outdated`'s row of `dist`: can move to, what breaks or fails on import, what was not
/// checked (the evidence and reason of each entry).
fn row(json: &Value, dist: &str) -> String {
    let row = (json["packages"].as_array().unwrap().iter())
        .find(|p| p["name"] == dist)
        .unwrap();
    let text = |v: &Value| v.as_str().unwrap().to_string();
    let breaks: Vec<String> = (row["breaks"].as_array().into_iter().flatten())
        .map(|b| {
            [&b["release"], &b["name"], &b["evidence"]]
                .map(text)
                .join(" ")
        })
        .collect();
    let unchecked: Vec<String> = (row["unchecked"].as_array().into_iter().flatten())
        .map(|u| {
            format!(
                "{} {} {}",
                text(&u["version"]),
                u["evidence"],
                text(&u["reason"])
            )
        })
        .collect();
    format!(
        "outdated: {dist} {} can move to {} | breaks [{}] | fails on import {} | unchecked [{}]\n",
        text(&row["installed"]),
        row["newest_allowed"],
        breaks.join("; "),
        row["fails_on_import"],
        unchecked.join("; "),
    )
}

/// The not-checked lines of a propose text (the section's heading and its lines), and those of
/// the outdated text that name `dist` or head its not-checked section.
fn not_checked_lines(text: &str, dist: &str) -> String {
    let mut out = String::new();
    let mut on = false;
    for line in text.lines() {
        if line.contains("not checked") {
            on = true;
        } else if on && !line.starts_with("    ") && !line.starts_with(&format!("  {dist} ")) {
            on = false;
        }
        let row = line.starts_with(&format!("{dist} ")) && line.contains("files not read");
        if on || row {
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    out
}

/// `propose REQUEST` (JSON and text) and `outdated` (JSON: `dist`'s row; text) on the world.
fn answers(
    ctx: &TestContext,
    (venv, url): (&Path, &str),
    (request, dist): (&str, &str),
    extra: &[&str],
) -> (String, String) {
    let propose = |format: &[&str]| {
        let out = ctx.propose(venv, url, &[&[request], extra, format].concat());
        assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
        out
    };
    let outdated = |format: &[&str]| {
        let venv = venv.to_str().unwrap();
        let args = [
            &["outdated", "--venv", venv, "--index-url", url],
            extra,
            format,
        ]
        .concat();
        let out = ctx.run(&args);
        assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
        out
    };
    let json = [
        plans(&propose(&["--format", "json"]).json()),
        row(&outdated(&["--format", "json"]).json(), dist),
    ]
    .join("");
    let text = [
        not_checked_lines(&propose(&[]).stdout, dist),
        not_checked_lines(&outdated(&[]).stdout, dist),
    ]
    .join("");
    (json, text)
}

/// Take the wheels whose file name starts with `prefix` off the world's server (their metadata
/// stays served, `files/NAME.metadata`: the wheel answers 404); their names.
fn hide(ctx: &TestContext, prefix: &str) -> Vec<std::ffi::OsString> {
    let wheels = ctx.path().join("index/wheels");
    let hidden = ctx.path().join("hidden");
    std::fs::create_dir_all(&hidden).unwrap();
    let mut moved = Vec::new();
    for entry in std::fs::read_dir(&wheels).unwrap() {
        let name = entry.unwrap().file_name();
        if name.to_string_lossy().starts_with(prefix) {
            std::fs::rename(wheels.join(&name), hidden.join(&name)).unwrap();
            moved.push(name);
        }
    }
    moved
}

/// Serve the wheels [`hide`] took off again.
fn show(ctx: &TestContext, moved: Vec<std::ffi::OsString>) {
    let (wheels, hidden) = (ctx.path().join("index/wheels"), ctx.path().join("hidden"));
    for name in moved {
        std::fs::rename(hidden.join(&name), wheels.join(&name)).unwrap();
    }
}

/// Without pyarrow 26.0.1's wheel on the server, the plan and the outdated row say which checks
/// went without it; with it, both find line 41, online and offline alike.
#[test]
fn a_version_check_without_the_release_files_says_so() {
    let ctx = TestContext::new();
    let world = TinyWorld::new(
        &ctx,
        &wheels(),
        &["numpy==1.26.4", "pandas==2.2.3", "pyarrow==18.1.0"],
    );
    let at = (world.venv(), world.url.as_str());
    let asked = ("pyarrow==26.0.1", "pyarrow");
    let moved = hide(&ctx, "pyarrow-26.");
    assert_eq!(moved.len(), 2, "pyarrow 26.0.0 and 26.0.1");
    let (json, text) = answers(&ctx, at, asked, &[]);
    ctx.insta_settings().bind(|| {
        insta::assert_snapshot!(json, @r#"
        upgrade | As asked: pyarrow==26.0.1 | pyarrow 18.1.0 -> 26.0.1 | risk 10 medium (major-upgrade)
          unchecked: pyarrow 26.0.1 ["module-clashes","version-checks"] no-wheel-file: the index serves no wheel file for it (not found)
        outdated: pyarrow 18.1.0 can move to "26.0.1" | breaks [] | fails on import null | unchecked [26.0.1 ["version-checks"] no-wheel-file]
        "#);
        insta::assert_snapshot!(text, @r#"
          not checked (so the risk is at least medium):
            whether pyarrow 26.0.1 ships a module another dist ships, and whether it raises on import over another dist's version (a test in its own sources) (its wheel's files could not be read: the index serves no wheel file for it (not found))
        pyarrow  18.1.0     26.0.1       26.0.1       26.0.1  pyarrow 26.0.1: files not read, not fully checked (below)
        "Can move to" judged without the release's wheel files (the index serves no wheel file for it (not found)); not checked:
          pyarrow 18.1.0 -> 26.0.1: version checks
        "#);
    });

    show(&ctx, moved);
    let served = TestContext::new();
    let (online, online_text) = answers(&served, at, asked, &[]);
    let (offline, offline_text) = answers(&served, at, asked, &["--offline"]);
    assert_eq!(online, offline);
    assert_eq!(online_text, offline_text);
    served.insta_settings().bind(|| {
        insta::assert_snapshot!(online, @r#"
        upgrade | pyarrow 18.1.0 -> 26.0.1, moving numpy to what pyarrow needs on import (numpy>=2: its own pyarrow/lib.pyx, line 41) | numpy 1.26.4 -> 2.3.5, pyarrow 18.1.0 -> 26.0.1 | risk 23 low (major-upgrade, direct-dependent, major-upgrade)
        outdated: pyarrow 18.1.0 can move to "25.0.1" | breaks [] | fails on import ["pyarrow 26.0.1 (pyarrow/lib.pyx, line 41) raises on import when `int(np.__version__.partition('.')[0]) < 2`, which holds for numpy 1.26.4"] | unchecked []
        "#);
        insta::assert_snapshot!(online_text, @"");
    });
}

/// The truth corpus's Twisted case (scrapy 2.8.0's `install_shutdown_handlers` calls
/// `reactor._handleSignals()`, which Twisted 23.8.0 defines nowhere; the real files): without
/// Twisted 23.8.0's wheel on the server, `propose 'twisted==23.8.0'` cannot see the call-time
/// break and says the call-time check (and the import checks) went without the release's files;
/// `outdated` offers 23.8.0 and says the same. With the wheel served, the break is cited, online
/// and `--offline` on that cache alike.
#[test]
fn a_call_time_check_without_the_release_files_says_so() {
    let case = (cases().into_iter())
        .find(|c| c["id"] == "twisted-23.8.0-under-scrapy-2.8.0-breaks-when-a-crawl-starts")
        .unwrap();
    let ctx = TestContext::new();
    let world = TinyWorld::new(
        &ctx,
        &wheels_of(&case),
        &["twisted==22.10.0", "scrapy==2.8.0"],
    );
    let at = (world.venv(), world.url.as_str());
    let asked = ("twisted==23.8.0", "twisted");
    let moved = hide(&ctx, "twisted-23.8.0-");
    assert_eq!(moved.len(), 1);
    let (json, text) = answers(&ctx, at, asked, &[]);
    ctx.insta_settings().bind(|| {
        insta::assert_snapshot!(json, @r#"
        upgrade | As asked: twisted==23.8.0 | twisted 22.10.0 -> 23.8.0 | risk 13 medium (major-upgrade, direct-dependent)
          unchecked: twisted 23.8.0 ["removed-modules","module-clashes","version-checks","call-time"] no-wheel-file: the index serves no wheel file for it (not found)
        outdated: twisted 22.10.0 can move to "23.8.0" | breaks [] | fails on import null | unchecked [23.8.0 ["removed-modules","version-checks","call-time"] no-wheel-file]
        "#);
        insta::assert_snapshot!(text, @r#"
          not checked (so the risk is at least medium):
            whether twisted 23.8.0 still has what the installed files import from it, whether it ships a module another dist ships, whether it raises on import over another dist's version (a test in its own sources), and whether it still has what the installed files use inside functions (its wheel's files could not be read: the index serves no wheel file for it (not found))
        twisted  22.10.0    23.8.0       23.8.0       23.8.0  twisted 23.8.0: files not read, not fully checked (below)
        "Can move to" judged without the release's wheel files (the index serves no wheel file for it (not found)); not checked:
          twisted 22.10.0 -> 23.8.0: removed modules, version checks, call-time uses
        "#);
    });

    let out = ctx.path().join("out");
    let planned = ctx.propose(
        at.0,
        at.1,
        &["twisted==23.8.0", "--out-dir", out.to_str().unwrap()],
    );
    assert_eq!(planned.code, Some(0), "{}", planned.stderr);

    show(&ctx, moved);
    // `try` of the plan made without the files: the trial says which static checks it measures
    // in their stead (text and JSON), and its call-time check stands on the plan's claims only.
    let folder = plan_folder(&out, "upgrade").unwrap();
    let tmp = ctx.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let tried = |format: &str| {
        let output = (ctx.command())
            .env("PATH", path_without_uv())
            .env("TMPDIR", &tmp)
            .args([
                "try",
                folder.to_str().unwrap(),
                "--format",
                format,
                "--venv",
            ])
            .arg(at.0)
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let report: Value = serde_json::from_str(&tried("json")).unwrap();
    let entries: Vec<String> = (report["plan"]["unchecked"].as_array().unwrap().iter())
        .map(|u| format!("{} {} {}", u["name"], u["version"], u["evidence"]))
        .collect();
    let text = tried("text");
    let lines: Vec<&str> = (text.lines())
        .skip_while(|l| !l.contains("static checks without data"))
        .take(2)
        .collect();
    insta::assert_snapshot!(format!("{}\n{}", entries.join("\n"), lines.join("\n")), @r#"
    "twisted" "23.8.0" ["removed-modules","module-clashes","version-checks","call-time"]
      the plan's static checks without data (the trial measures instead):
        whether twisted 23.8.0 still has what the installed files import from it, whether it ships a module another dist ships, whether it raises on import over another dist's version (a test in its own sources), and whether it still has what the installed files use inside functions (its wheel's files could not be read: the index serves no wheel file for it (not found))
    "#);

    let served = TestContext::new();
    let (online, online_text) = answers(&served, at, asked, &[]);
    let (offline, offline_text) = answers(&served, at, asked, &["--offline"]);
    assert_eq!(online, offline);
    assert_eq!(online_text, offline_text);
    served.insta_settings().bind(|| {
        insta::assert_snapshot!(online, @r#"
        upgrade | As asked: twisted==23.8.0 | twisted 22.10.0 -> 23.8.0 | risk 43 medium (major-upgrade, call-time-target-missing, direct-dependent)
        outdated: twisted 22.10.0 can move to null | breaks [23.8.0 scrapy call-time-target-missing] | fails on import null | unchecked []
        "#);
        insta::assert_snapshot!(online_text, @"");
    });
}
