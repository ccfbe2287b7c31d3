//! `planner diff`: the shared h200 fixture against its forced-triton variant (exactly the
//! triton change and the one broken edge), real venvs made by the tests (a downgrade that breaks
//! a requirement, a local label lost), and `--since` from install-record file times.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::common::venv::{RealVenv, build_wheel, wheels};
use crate::common::{TestContext, h200_fixtures};
use crate::planner_snapshot;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The forced variant of h200-venv, built in `dir` (the shared fixture is never touched).
fn forced_h200(dir: &Path) -> (PathBuf, PathBuf) {
    let fixtures = h200_fixtures();
    let original = fixtures.join("h200-venv");
    assert!(
        original.is_dir(),
        "the shared fixture {} is missing",
        original.display()
    );
    let venv = dir.join("h200-forced");
    copy_dir(&original, &venv);
    let sp = venv.join("lib/python3.12/site-packages");
    std::fs::remove_dir_all(sp.join("triton-3.6.0.dist-info")).unwrap();
    copy_dir(
        &fixtures.join("h200-forced-triton-3.7.0/site-packages-overlay/triton-3.7.0.dist-info"),
        &sp.join("triton-3.7.0.dist-info"),
    );
    (original, venv)
}

#[test]
fn h200_against_forced_names_exactly_the_triton_change_and_the_broken_edge() {
    let ctx = TestContext::new();
    let (a, b) = forced_h200(ctx.dir.path());
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let out = ctx.run(&["diff", a, b, "--format", "json", "-q"]);
    assert_eq!(
        out.code,
        Some(1),
        "a requirement became broken: {}",
        out.stderr
    );
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["schema"], "planner-diff/1");
    let changes = json["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert_eq!(changes[0]["name"], "triton");
    assert_eq!(changes[0]["kind"], "upgraded");
    assert_eq!(changes[0]["from"]["version"], "3.6.0");
    assert_eq!(changes[0]["to"]["version"], "3.7.0");
    let broken = json["broken"].as_array().unwrap();
    assert_eq!(broken.len(), 1, "{broken:#?}");
    assert_eq!(broken[0]["dependent"], "torch 2.11.0");
    assert_eq!(broken[0]["dependency"], "triton");
    assert_eq!(broken[0]["installed"], "3.7.0");
    assert!(
        broken[0]["requirement"]
            .as_str()
            .unwrap()
            .starts_with("triton==3.6.0")
    );
    assert_eq!(json["satisfied"].as_array().unwrap().len(), 0);

    // The other way round, the same edge becomes satisfied and nothing breaks.
    let back = ctx.run(&["diff", b, a, "--format", "json", "-q"]);
    assert_eq!(back.code, Some(0), "{}", back.stderr);
    let back: serde_json::Value = serde_json::from_str(&back.stdout).unwrap();
    assert_eq!(back["changes"][0]["kind"], "downgraded");
    assert_eq!(back["satisfied"].as_array().unwrap().len(), 1);
    assert_eq!(back["broken"].as_array().unwrap().len(), 0);

    let mut settings = insta::Settings::clone_current();
    settings.add_filter(
        &crate::review::regex_escape(&ctx.dir.path().display().to_string()),
        "[TMP]",
    );
    settings.add_filter(
        &crate::review::regex_escape(&h200_fixtures().display().to_string()),
        "[FIXTURES]",
    );
    for format in ["text", "markdown"] {
        let out = ctx.run(&["diff", a, b, "--format", format, "-q"]);
        settings.bind(|| insta::assert_snapshot!(format!("diff_h200_forced_{format}"), out.stdout));
    }
}

/// Set the modification time of every install record in `site` to `when`.
fn age_records(site: &Path, when: SystemTime) {
    for entry in std::fs::read_dir(site).unwrap().flatten() {
        let path = entry.path();
        if !path.to_string_lossy().ends_with(".dist-info") {
            continue;
        }
        for file in [path.join("RECORD"), path.join("INSTALLER"), path.clone()] {
            if let Ok(handle) = std::fs::File::open(&file) {
                handle.set_modified(when).unwrap();
            }
        }
    }
}

/// A real venv snapshotted, aged ten days, then changed (beta downgraded below alpha's
/// `beta>=2`, Demo_Pkg replaced by a build without its local label): `diff` against the
/// snapshot and `diff --since` name the change and the edge it broke.
#[test]
fn real_venvs_diff_and_since() {
    let mut ctx = TestContext::new();
    // Install times are the real clock's (the records are made by this run).
    ctx.filter(
        r"since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z",
        "since [INSTALLED]",
    );
    ctx.filter(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "[INSTALLED]");
    let (venv, snapshot) = snapshot_then_break(&ctx);
    let path = venv.path.to_str().unwrap();
    diff_names_the_downgrade_and_the_broken_edge(&ctx, &snapshot, path);
    since_lists_only_what_the_change_touched(&ctx, path);
    since_refuses_a_snapshot_and_a_bad_when(&ctx, &snapshot, path);
}

/// A venv with Demo_Pkg installed, snapshotted to `before.json`, its records aged ten days,
/// then changed: beta downgraded below alpha's `beta>=2`, Demo_Pkg losing its local label.
fn snapshot_then_break(ctx: &TestContext) -> (RealVenv, PathBuf) {
    let venv = RealVenv::create(&ctx.dir.path().join("venv"));
    let links = wheels().to_string_lossy().into_owned();
    venv.pip_ok(&["install", "--no-index", "--find-links", &links, "Demo_Pkg"]);
    let snapshot = ctx.dir.path().join("before.json");
    let snap = ctx.run(&[
        "snapshot",
        "--venv",
        venv.path.to_str().unwrap(),
        "--out",
        snapshot.to_str().unwrap(),
    ]);
    assert_eq!(snap.code, Some(0), "{}", snap.stderr);
    // Everything so far happened "ten days ago".
    let ten_days_ago = SystemTime::now() - Duration::from_secs(10 * 86_400);
    age_records(&venv.site_packages(), ten_days_ago);
    let extra = ctx.dir.path().join("wheels");
    std::fs::create_dir_all(&extra).unwrap();
    let plain = build_wheel(&extra, "Demo_Pkg", "0.1.0", &["alpha[fast]>=1"], &[]);
    venv.pip_ok(&["install", "--no-index", "--find-links", &links, "beta==1.0"]);
    venv.pip_ok(&[
        "install",
        "--no-index",
        "--no-deps",
        "--force-reinstall",
        plain.to_str().unwrap(),
    ]);
    (venv, snapshot)
}

/// `diff SNAPSHOT VENV`: beta downgraded, Demo_Pkg's source changed, alpha's edge broken.
fn diff_names_the_downgrade_and_the_broken_edge(ctx: &TestContext, snapshot: &Path, path: &str) {
    let out = ctx.run(&[
        "diff",
        snapshot.to_str().unwrap(),
        path,
        "--format",
        "json",
        "-q",
    ]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let changes: Vec<(String, String, Vec<String>)> = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["kind"].as_str().unwrap().to_string(),
                c["details"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            ("beta".to_string(), "downgraded".to_string(), vec![]),
            (
                "demo-pkg".to_string(),
                "source-changed".to_string(),
                vec![
                    "local label +local.7 lost".to_string(),
                    "source index -> file".to_string()
                ]
            ),
        ]
    );
    let broken = json["broken"].as_array().unwrap();
    assert_eq!(broken.len(), 1, "{broken:#?}");
    assert_eq!(broken[0]["dependent"], "alpha 1.0");
    assert_eq!(broken[0]["dependency"], "beta");
    // beta 1.0 no longer needs delta: nothing else changed, nothing became satisfied.
    assert_eq!(json["satisfied"].as_array().unwrap().len(), 0);
}

/// `--since`: only what the change touched, newest first, with the edge beta broke; eleven
/// days back, the whole venv.
fn since_lists_only_what_the_change_touched(ctx: &TestContext, path: &str) {
    let since = ctx.run(&["diff", "--since", "3d", path, "--format", "json", "-q"]);
    assert_eq!(since.code, Some(1), "{}", since.stderr);
    let json: serde_json::Value = serde_json::from_str(&since.stdout).unwrap();
    insta::assert_snapshot!("since_caveat", json["caveat"].as_str().unwrap());
    let installed: Vec<&str> = json["installed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(installed, ["demo-pkg", "beta"]);
    assert_eq!(json["installed"][1]["broken"][0]["dependent"], "alpha 1.0");
    assert_eq!(json["installed"][0]["broken"].as_array().unwrap().len(), 0);
    let text = ctx.run(&["diff", "--since", "3d", path, "-q"]);
    planner_snapshot!(ctx, text, @r#"
        exit_code: 1
        ----- stdout -----
        Installed or replaced in [TMP]/venv since [INSTALLED], newest first.
        Note: reconstructed from install-record file times (dist-info folder, RECORD, INSTALLER): removed dists and replaced versions leave no trace, and copying or touching the environment changes the times.

        [INSTALLED]  demo-pkg 0.1.0 (file)  by pip
        [INSTALLED]  beta 1.0  by pip
            broke: alpha 1.0 has requirement beta>=2, but you have beta 1.0

        ----- stderr -----
        "#);
    // Eleven days back, the whole venv shows up.
    let all = ctx.run(&["diff", "--since", "11d", path, "--format", "json", "-q"]);
    let all: serde_json::Value = serde_json::from_str(&all.stdout).unwrap();
    assert!(all["installed"].as_array().unwrap().len() >= 6, "{all:#}");
}

/// A snapshot has no install records; a bad WHEN is named.
fn since_refuses_a_snapshot_and_a_bad_when(ctx: &TestContext, snapshot: &Path, path: &str) {
    let snap_since = ctx.run(&["diff", "--since", "3d", snapshot.to_str().unwrap()]);
    planner_snapshot!(ctx, snap_since, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::diff::since_snapshot

          × `[TMP]/before.json` is a snapshot: it has no install records, so
          │ --since needs a venv
          help: pass the venv itself, or compare two snapshots with `planner diff A B`
        "#);
    let bad = ctx.run(&["diff", "--since", "yesterday", path]);
    planner_snapshot!(ctx, bad, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::diff::since

          × `yesterday` is not a date (2025-11-30), a timestamp (2025-11-30T12:00:00Z)
          │ or a duration (3d, 12h, 90m, 2w)
          help: a duration counts back from now (`--since 1d` for the last 24 hours,
                `--since 2w`); a date is read in this machine's time zone
        "#);
    // A negative duration is a cut-off in the future: refused, not answered "Nothing.".
    for future in ["--since=-3d", "--since=2999-01-01"] {
        let run = ctx.run(&["diff", future, path]);
        assert_eq!(run.code, Some(2), "{future}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{future}");
        assert!(
            run.stderr.contains("in the future"),
            "{future}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("planner::diff::since_future"),
            "{}",
            run.stderr
        );
    }
}

/// Real `pip inspect` output before and after `pip install requests==2.34.2`
/// (testdata/diff): each added dependency says what brought it; the note about the missing
/// wheel tags suggests no flag `diff` does not take.
#[test]
fn added_dists_say_why_and_notes_suggest_no_foreign_flags() {
    let ctx = TestContext::new();
    let data = crate::common::repo_root().join("testdata/diff");
    let (a, b) = (
        data.join("pip-inspect-before.json"),
        data.join("pip-inspect-after.json"),
    );
    let out = ctx.run(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    // urllib3 says requests brought it; requests itself was asked for (nothing in B requires
    // it); the note on stderr names no flag `diff` does not take.
    planner_snapshot!(ctx, out, @r#"
        exit_code: 0
        ----- stdout -----
        A: [REPO]/testdata/diff/pip-inspect-before.json
        B: [REPO]/testdata/diff/pip-inspect-after.json

        4 dist(s) changed:
          added           certifi - -> 2026.10.19.post1  [via requests]
          added           charset-normalizer - -> 3.5.3  [via requests]
          added           requests - -> 2.34.2
          added           urllib3 - -> 2.8.0  [via requests]

        ----- stderr -----
        note: `[REPO]/testdata/diff/pip-inspect-before.json` is `pip inspect` output (pip 23.2.1): it has no wheel tags; they were generated for CPython 3.12 on x86_64 Linux, glibc [GLIBC] (this host's)
        note: `[REPO]/testdata/diff/pip-inspect-after.json` is `pip inspect` output (pip 23.2.1): it has no wheel tags; they were generated for CPython 3.12 on x86_64 Linux, glibc [GLIBC] (this host's)
        "#);
}

/// A file edited in place after `WHEN`, and a file dropped into the package folder that no
/// `RECORD` owns, are listed by `diff --since`, with their dist and time, in text and JSON.
#[test]
fn since_lists_a_file_edited_in_place() {
    let ctx = TestContext::new();
    let real = crate::common::venv::alpha_venv(&ctx.path().join("venv"));
    crate::common::venv::patch_alpha(&real);
    let module = crate::common::venv::installed_file(&real, "alpha/__init__.py");
    std::fs::write(module.with_file_name("extra.py"), "HELPER = 1\n").unwrap();
    // The venv was made seconds ago: everything in it is newer than an hour.
    let args = ["diff", "--since", "1h", real.path.to_str().unwrap()];
    let run = ctx.run(&args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let (_, edited) = run
        .stdout
        .split_once("\nEdited in place (differs from its RECORD, or no RECORD owns it):\n")
        .unwrap_or_else(|| panic!("no edited section:\n{}", run.stdout));
    let mut lines: Vec<&str> = edited.lines().map(|l| &l[l.len().min(25)..]).collect();
    // Newest first: the two files may share a second, or not.
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "alpha 1.0  alpha/__init__.py",
            "alpha 1.0  alpha/extra.py (no RECORD owns it)"
        ],
        "{edited}"
    );
    let json = ctx.run(&[&args[..], &["--format", "json"]].concat()).json();
    crate::common::schema::assert_valid(&json);
    let mut edited: Vec<String> = json["edited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{} {} {} {}", e["name"], e["version"], e["path"], e["kind"]))
        .collect();
    edited.sort_unstable();
    assert_eq!(
        edited,
        [
            r#""alpha" "1.0" "alpha/__init__.py" "edited""#,
            r#""alpha" "1.0" "alpha/extra.py" "unowned""#
        ]
    );
}

/// A file edited by hand after its dist was downgraded is named under the downgrade's line, in
/// text and JSON (its lines are not counted: A's text is another release's).
#[test]
fn an_edit_after_a_version_change_is_named_under_it() {
    let ctx = TestContext::new();
    let real = crate::common::venv::alpha_venv(&ctx.path().join("venv"));
    let good = ctx.path().join("good.json");
    let venv = real.path.to_str().unwrap();
    let run = ctx.run(&["snapshot", "--venv", venv, "--out", good.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let find_links = wheels().to_string_lossy().into_owned();
    real.pip_ok(&[
        "install",
        "--no-index",
        "--no-deps",
        "--find-links",
        &find_links,
        "beta==1.0",
    ]);
    let module = crate::common::venv::installed_file(&real, "beta/__init__.py");
    let mut text = std::fs::read_to_string(&module).unwrap();
    text.push_str("# patched by hand\n");
    std::fs::write(&module, text).unwrap();
    let args = ["diff", good.to_str().unwrap(), venv];
    let json = ctx.run(&[&args[..], &["--format", "json"]].concat()).json();
    crate::common::schema::assert_valid(&json);
    let beta = json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "beta")
        .unwrap_or_else(|| panic!("no beta change: {json}"));
    assert_eq!(beta["kind"], "downgraded");
    assert_eq!(beta["files"][0]["path"], "beta/__init__.py");
    assert_eq!(beta["files"][0]["a"], serde_json::Value::Null);
    assert_eq!(beta["files"][0]["b"]["state"], "edited");
    let out = ctx.run(&args).stdout;
    let (_, under) = out
        .split_once("downgraded      beta 2.1 -> 1.0")
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        under.starts_with("\n      edited in place: beta/__init__.py ("),
        "{out}"
    );
}
