//! `planner check` agrees with `pip check`: on the shared H200 fixture (nothing broken), on
//! its forced-triton variant (one broken requirement), and on real venvs; plus what pip check
//! does not say (duplicates, unreadable dists, direct URLs, local labels).

use std::collections::BTreeSet;

use crate::common::{TestContext, copy_dir, h200_fixtures, normalized, regex_escape, venv};
use crate::planner_snapshot;

/// `(kind, dependent, dependency)` of pip check's lines: "X 1 requires Y, which is not
/// installed." and "X 1 has requirement Y==2, but you have Y 3."
fn pip_findings(text: &str) -> BTreeSet<(String, String, String)> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if line.contains(", which is not installed") {
            out.insert((
                "missing-dependency".into(),
                format!("{} {}", normalized(words[0]), words[1]),
                normalized(words[3].trim_end_matches(',')),
            ));
        } else if line.contains(" has requirement ") {
            let have = line.rsplit("but you have ").next().unwrap();
            let have: Vec<&str> = have.trim_end_matches('.').split_whitespace().collect();
            out.insert((
                "version-mismatch".into(),
                format!("{} {}", normalized(words[0]), words[1]),
                format!("{} {}", normalized(have[0]), have[1]),
            ));
        }
    }
    out
}

/// The same triples from `planner check --format json`, errors only (what pip reports).
fn planner_findings(json: &serde_json::Value) -> BTreeSet<(String, String, String)> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["pip_check"] == true)
        .map(|f| {
            let dependent = format!(
                "{} {}",
                f["dependent"]["name"].as_str().unwrap(),
                f["dependent"]["version"].as_str().unwrap()
            );
            let other = match f["kind"].as_str().unwrap() {
                "missing-dependency" => f["dependency"].as_str().unwrap().to_string(),
                _ => format!(
                    "{} {}",
                    f["installed"]["name"].as_str().unwrap(),
                    f["installed"]["version"].as_str().unwrap()
                ),
            };
            (f["kind"].as_str().unwrap().to_string(), dependent, other)
        })
        .collect()
}

#[test]
fn h200_nothing_broken_like_pip() {
    let fixtures = h200_fixtures();
    let oracle = std::fs::read_to_string(fixtures.join("h200-venv/oracle/pip-check.txt")).unwrap();
    assert_eq!(oracle.trim(), "No broken requirements found.");
    let ctx = TestContext::new();
    let h200 = fixtures.join("h200-venv");
    let h200 = h200.to_str().unwrap();
    let run = ctx.run(&["check", "--venv", h200]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.stdout.lines().next(), Some(oracle.trim()));
    let json = ctx.run(&["check", "--venv", h200, "--format", "json"]);
    assert_eq!(json.code, Some(0));
    assert_eq!(json.json()["broken"], false);
    assert!(planner_findings(&json.json()).is_empty());
}

/// The forced variant: h200-venv with triton-3.6.0.dist-info replaced by the overlay's
/// triton-3.7.0.dist-info, built in a temp dir (the shared fixture is never touched).
#[test]
fn h200_forced_triton_exactly_the_pip_finding() {
    let fixtures = h200_fixtures();
    let mut ctx = TestContext::new();
    let venv = ctx.path().join("h200-forced");
    copy_dir(&fixtures.join("h200-venv"), &venv);
    let sp = venv.join("lib/python3.12/site-packages");
    std::fs::remove_dir_all(sp.join("triton-3.6.0.dist-info")).unwrap();
    copy_dir(
        &fixtures.join("h200-forced-triton-3.7.0/site-packages-overlay/triton-3.7.0.dist-info"),
        &sp.join("triton-3.7.0.dist-info"),
    );
    let venv = venv.to_str().unwrap();
    let run = ctx.run(&["check", "--venv", venv, "--format", "json"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let json = run.json();
    assert_eq!(json["broken"], true);
    let errors: Vec<&serde_json::Value> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let finding = errors[0];
    assert_eq!(finding["kind"], "version-mismatch");
    assert_eq!(finding["dependent"]["name"], "torch");
    assert_eq!(finding["dependent"]["version"], "2.11.0");
    assert_eq!(finding["specifier"], "==3.6.0");
    assert_eq!(finding["installed"]["name"], "triton");
    assert_eq!(finding["installed"]["version"], "3.7.0");
    let requirement: pep508_rs::Requirement =
        finding["requirement"].as_str().unwrap().parse().unwrap();
    let declared: pep508_rs::Requirement = "triton==3.6.0; platform_system == \"Linux\""
        .parse()
        .unwrap();
    assert_eq!(requirement.to_string(), declared.to_string());
    let oracle =
        std::fs::read_to_string(fixtures.join("h200-forced-triton-3.7.0/oracle/pip-check.txt"))
            .unwrap();
    assert_eq!(planner_findings(&json), pip_findings(&oracle));
    assert_eq!(pip_findings(&oracle).len(), 1);

    let text = ctx.run(&["check", "--venv", venv]);
    ctx.filter(&regex_escape(venv), "[VENV]");
    planner_snapshot!(ctx, text, @r"
    exit_code: 1
    ----- stdout -----
    Broken requirements found.

    errors:
      - torch 2.11.0 has requirement triton==3.6.0 ; platform_system == 'Linux', but you have triton 3.7.0

    ----- stderr -----
    ");
}

#[test]
fn canonical_stack_is_clean_and_says_what_is_unusual() {
    let ctx = TestContext::in_repo();
    let run = ctx.run(&["check", "--venv", "testdata/venvs/canonical"]);
    planner_snapshot!(ctx, run, @r"
    exit_code: 0
    ----- stdout -----
    No broken requirements found.

    info:
      - flash-linear-attention 0.5.1 was installed from git@0c5dc3f0a57e (https://github.com/fla-org/flash-linear-attention), not from an index; it is never upgraded from one
      - torch 2.11.0+cu130 is a local build variant (+cu130); the public index may not have it

    ----- stderr -----
    ");
}

#[test]
fn broken_venv_findings() {
    let ctx = TestContext::in_repo();
    let run = ctx.run(&[
        "check",
        "--venv",
        "testdata/venvs/broken",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let json = run.json();
    let kinds: Vec<(String, String)> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["severity"].as_str().unwrap().to_string(),
                f["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let count = |s: &str, k: &str| kinds.iter().filter(|(a, b)| a == s && b == k).count();
    assert_eq!(count("error", "duplicate-dist"), 1);
    assert_eq!(count("error", "missing-dependency"), 1);
    assert_eq!(count("error", "version-mismatch"), 1);
    assert_eq!(
        count("warning", "missing-dependency"),
        1,
        "the extra asked for by plugin"
    );
    assert_eq!(count("warning", "unreadable-dist"), 4);
    assert_eq!(count("info", "local-version"), 1);
    // Every finding as data: markers that do not hold (win-only on Linux) and extras nobody
    // asks for (libmissing2) are none of them.
    insta::assert_json_snapshot!("broken_venv_findings_json", json["findings"]);
    let text = ctx.run(&["check", "--venv", "testdata/venvs/broken"]);
    // An unreadable dist-info is a finding on stdout, said once (not on stderr
    // again): the snapshot holds both streams.
    planner_snapshot!(ctx, text);
}

/// Real venvs: pip installs the test's own wheels; `pip check` and `planner check` agree,
/// first on a clean venv, then on one broken with `--no-deps` installs.
#[test]
fn real_venvs_agree_with_pip_check() {
    let clean = venv::clean_venv();
    let pip = clean.pip(&["check"]);
    assert!(pip.status.success());
    let mut ctx = TestContext::new();
    ctx.filter_host_python();
    let run = ctx.run(&[
        "check",
        "--venv",
        clean.path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert!(planner_findings(&run.json()).is_empty());
    // `epsilon` came from a file path; `demo-pkg` has a local label.
    planner_snapshot!(
        ctx,
        "clean_venv_notes",
        ctx.run(&["check", "--venv", clean.path.to_str().unwrap()])
    );

    let broken = venv::RealVenv::create(&ctx.path().join("broken"));
    let wheels = venv::wheels();
    let wheel = |file: &str| wheels.join(file).to_string_lossy().into_owned();
    broken.pip_ok(&[
        "install",
        "--no-deps",
        &wheel("alpha-1.0-py3-none-any.whl"),
        &wheel("beta-1.0-py3-none-any.whl"),
        &wheel("omega-1.0-py3-none-any.whl"),
        &wheel("Demo_Pkg-0.1.0+local.7-py3-none-any.whl"),
    ]);
    let pip = broken.pip(&["check"]);
    assert_eq!(pip.status.code(), Some(1));
    let expected = pip_findings(&String::from_utf8_lossy(&pip.stdout));
    assert_eq!(expected.len(), 3, "{expected:?}");
    let run = ctx.run(&[
        "check",
        "--venv",
        broken.path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(run.code, Some(1));
    assert_eq!(planner_findings(&run.json()), expected);
}

/// The README's `check --accept` example works on shipped data: the forced plan
/// of the canonical incident, written by the README's own `propose --out-dir` command, accepts
/// exactly the broken edge of `testdata/venvs/canonical-forced`, which fails without it.
#[test]
fn readme_accept_example_works_on_shipped_data() {
    let ctx = TestContext::in_repo();
    let out_dir = ctx.dir.path().join("plan");
    let out = ctx.run(&[
        "propose",
        "triton==3.7.0",
        "--allow-override",
        "--venv",
        "testdata/venvs/canonical",
        "--index-url",
        "testdata/index/simple",
        "--offline",
        "--out-dir",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    // The folder the README names.
    let plan = out_dir.join("plans/2-forced-override/plan.json");
    assert!(plan.is_file(), "{}", out.stdout);
    // `--venv` was relative: the scripts name the interpreter by its absolute path, so they work
    // from any directory.
    for script in ["install-pip.sh", "install-uv.sh"] {
        let text =
            std::fs::read_to_string(out_dir.join("plans/2-forced-override").join(script)).unwrap();
        ctx.insta_settings()
            .bind(|| insta::assert_snapshot!(format!("readme_forced_plan_{script}"), text));
    }
    let forced = "testdata/venvs/canonical-forced";
    let out = ctx.run(&["check", "--venv", forced]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 1
        ----- stdout -----
        Broken requirements found.

        errors:
          - torch 2.11.0+cu130 has requirement triton==3.6.0 ; platform_system == 'Linux', but you have triton 3.7.0

        info:
          - flash-linear-attention 0.5.1 was installed from git@0c5dc3f0a57e (https://github.com/fla-org/flash-linear-attention), not from an index; it is never upgraded from one
          - torch 2.11.0+cu130 is a local build variant (+cu130); the public index may not have it

        ----- stderr -----
        "#);
    let out = ctx.run(&[
        "check",
        "--venv",
        forced,
        "--accept",
        plan.to_str().unwrap(),
    ]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 0
        ----- stdout -----
        No broken requirements found.

        info:
          - flash-linear-attention 0.5.1 was installed from git@0c5dc3f0a57e (https://github.com/fla-org/flash-linear-attention), not from an index; it is never upgraded from one
          - torch 2.11.0+cu130 is a local build variant (+cu130); the public index may not have it

        accepted by a plan:
          - torch 2.11.0+cu130 has requirement triton==3.6.0 ; platform_system == 'Linux', but you have triton 3.7.0

        ----- stderr -----
        "#);
}

/// A file patched by hand in site-packages and a file deleted there, in a real venv that pip
/// installed: `check` names the dist, the file and when it changed, as warnings (exit 0: the
/// requirements still hold); the untouched venv has no such finding.
#[test]
fn files_edited_in_place_are_named_with_their_dist() {
    let mut ctx = TestContext::new();
    let real = venv::alpha_venv(&ctx.path().join("venv"));
    let args = [
        "check",
        "--venv",
        real.path.to_str().unwrap(),
        "--format",
        "json",
    ];
    let kinds = |run: &crate::common::Output| -> Vec<String> {
        run.json()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == "file-changed")
            .map(|f| format!("{} {} {}", f["dist"]["name"], f["path"], f["state"]))
            .collect()
    };
    assert_eq!(kinds(&ctx.run(&args)), Vec::<String>::new());
    venv::patch_alpha(&real);
    let run = ctx.run(&args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        kinds(&run),
        [
            r#""alpha" "alpha-1.0.dist-info/INSTALLER" "missing""#,
            r#""alpha" "alpha/__init__.py" "edited""#,
        ]
    );
    ctx.filter(
        r"modified \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
        "modified [MTIME]",
    );
    ctx.filter(r"\d+ -> \d+ bytes", "[SIZE] -> [SIZE] bytes");
    planner_snapshot!(
        ctx,
        ctx.run(&["check", "--venv", real.path.to_str().unwrap()])
    );
}

/// A module dropped by hand into an installed package's folder, which no `RECORD` lists, is a
/// warning naming the dist, the file, its size and time (exit 0); the interpreter's caches
/// beside it are not, and the untouched venv has no such finding.
#[test]
fn a_file_no_record_owns_in_a_package_folder_is_named() {
    let mut ctx = TestContext::new();
    ctx.filter_host_python();
    ctx.filter(
        r"modified \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
        "modified [MTIME]",
    );
    let real = venv::alpha_venv(&ctx.path().join("venv"));
    let args = [
        "check",
        "--venv",
        real.path.to_str().unwrap(),
        "--format",
        "json",
    ];
    let unowned = |run: &crate::common::Output| -> Vec<String> {
        run.json()["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kind"] == "unowned-file")
            .map(|f| {
                let digest = f["sha256"].as_str().map_or(0, str::len);
                format!("{} {} {} {digest}", f["dist"]["name"], f["path"], f["size"])
            })
            .collect()
    };
    assert_eq!(unowned(&ctx.run(&args)), Vec::<String>::new());
    let package = venv::installed_file(&real, "alpha/__init__.py")
        .parent()
        .unwrap()
        .to_path_buf();
    std::fs::write(package.join("_patch.py"), "PATCHED = True\n").unwrap();
    std::fs::create_dir_all(package.join("__pycache__")).unwrap();
    std::fs::write(package.join("__pycache__/_patch.cpython-3.pyc"), "c").unwrap();
    let run = ctx.run(&args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    crate::common::schema::assert_valid(&run.json());
    assert_eq!(unowned(&run), [r#""alpha" "alpha/_patch.py" 15 43"#]);
    planner_snapshot!(
        ctx,
        "unowned_file_in_a_package_folder",
        ctx.run(&["check", "--venv", real.path.to_str().unwrap()])
    );
}
