//! Planner as uv and ruff ship: completions and man page, `--version` everywhere, one
//! colour rule, the config file and its precedence, the JSON contract (every command's
//! document validated against docs/schemas, the error document under `--format json`), and the
//! errors that lacked a `help:` line.

use std::path::Path;

use crate::common::schema::assert_valid;
use crate::common::{TestContext, regex_escape, repo_root};
use crate::planner_snapshot;

const CANONICAL: &str = "testdata/venvs/canonical";
const BROKEN: &str = "testdata/venvs/broken";
const INDEX: &str = "testdata/index/simple";

/// A context whose snapshots write planner's version `[VERSION]` wherever it stands
/// (`planner-propose 0.1.0` too, as `--version` and the man pages say it).
fn version_filtered() -> TestContext {
    let mut ctx = TestContext::new();
    ctx.filter(
        &format!(r"\b{}\b", regex_escape(env!("CARGO_PKG_VERSION"))),
        "[VERSION]",
    );
    ctx
}

#[test]
fn completions_man_and_version_on_every_command() {
    let ctx = version_filtered();
    for (shell, marker) in [
        ("bash", "_planner()"),
        ("zsh", "#compdef planner"),
        ("fish", "complete -c planner"),
    ] {
        let out = ctx.run(&["completions", shell]);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        assert!(out.stdout.contains(marker), "{shell}: {}", out.stdout);
        // Every subcommand and global flag is offered.
        for word in ["propose", "review", "color", "from-snapshot"] {
            assert!(out.stdout.contains(word), "{shell} lacks {word}");
        }
    }
    // The top page, whole: its title, the commands and the EXIT STATUS section.
    planner_snapshot!(ctx, "man_page", ctx.run(&["man"]));
    let dir = ctx.path().join("man");
    let out = ctx.run(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    for page in ["planner.1", "planner-propose.1", "planner-diff.1"] {
        assert!(dir.join(page).is_file(), "{page} written");
    }
    let versions: Vec<String> = [
        &["--version"][..],
        &["propose", "--version"],
        &["diff", "--version"],
    ]
    .iter()
    .map(|command| ctx.run(command).snapshot())
    .collect();
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("version_everywhere", versions.join("\n")));
}

/// Completion offers the values of `--max-risk`, `--layer` and `--format` (not file names) and
/// no hidden flag in any shell; every man page has an EXIT STATUS section.
#[test]
fn completions_offer_values_and_hide_hidden_flags() {
    let ctx = version_filtered();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = ctx.run(&["completions", shell]);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        assert!(
            !out.stdout.contains("show-settings"),
            "{shell} offers the hidden --show-settings"
        );
    }
    let bash = ctx.run(&["completions", "bash"]).stdout;
    for (flag, values) in [
        ("--max-risk", "low medium high critical"),
        ("--fail-on", "low medium high critical"),
        ("--layer", "safe group major everything"),
        ("--format", "text json markdown"),
    ] {
        let arm = format!("{flag})\n                    COMPREPLY=($(compgen -W \"{values}\"");
        assert!(
            bash.contains(&arm),
            "bash does not offer {values} for {flag}"
        );
    }
    let dir = ctx.path().join("man");
    let out = ctx.run(&["man", "--dir", dir.to_str().unwrap()]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // The top page is the one `planner man` prints (its snapshot: `man_page`); a command's
    // page, whole, has its options and the EXIT STATUS section.
    let top = std::fs::read_to_string(dir.join("planner.1")).unwrap();
    assert_eq!(top, ctx.run(&["man"]).stdout);
    for page in ["planner-propose.1", "planner-diff.1"] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap();
        ctx.insta_settings()
            .bind(|| insta::assert_snapshot!(format!("man_{page}"), text));
    }
}

/// `--help` groups the options: the command's own, then where the environment and the index
/// come from, then the global ones.
#[test]
fn help_groups_the_options() {
    let ctx = TestContext::new();
    let run = ctx.run(&["propose", "--help"]);
    let headings: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.ends_with("options:") || *l == "Options:")
        .collect();
    assert_eq!(
        headings,
        [
            "Options:",
            "Environment options:",
            "Index options:",
            "Global options:"
        ],
        "{}",
        run.stdout
    );
    // Each flag under its heading, with its help.
    planner_snapshot!(ctx, "propose_help", run);
}

/// check, inventory and outdated with these variables and flags: each command's name, whether
/// its stdout was coloured, and its text without escape codes.
fn colour_runs(
    ctx: &TestContext,
    env: &[(&str, &str)],
    extra: &[&str],
) -> Vec<(String, bool, String)> {
    let commands: [&[&str]; 3] = [
        &["check", "--venv", BROKEN],
        &["inventory", "--venv", CANONICAL],
        &[
            "outdated",
            "--venv",
            CANONICAL,
            "--index-url",
            INDEX,
            "--offline",
        ],
    ];
    commands
        .iter()
        .map(|args| {
            let mut cmd = ctx.command();
            cmd.env_remove("NO_COLOR").args(*args).args(extra);
            for (k, v) in env {
                cmd.env(k, v);
            }
            let out = crate::common::run(&mut cmd);
            let plain = anstream::adapter::strip_str(&out.stdout).to_string();
            (args[0].to_string(), out.stdout.contains('\u{1b}'), plain)
        })
        .collect()
}

/// `--color`, NO_COLOR, FORCE_COLOR and CLICOLOR_FORCE decide colour the same way for every
/// command; the flag wins, then NO_COLOR.
#[test]
fn one_colour_rule_for_every_command() {
    let ctx = TestContext::in_repo();
    // A pipe, no variable: no colour.
    let plain = colour_runs(&ctx, &[], &[]);
    assert!(plain.iter().all(|(_, colored, _)| !colored), "{plain:?}");
    for (env, extra, expected) in [
        (&[("FORCE_COLOR", "1")][..], &[][..], true),
        (&[("CLICOLOR_FORCE", "1")], &[], true),
        (&[("FORCE_COLOR", "0")], &[], false),
        (&[("NO_COLOR", "1"), ("FORCE_COLOR", "1")], &[], false),
        (&[("NO_COLOR", "1")], &["--color", "always"], true),
        (&[("FORCE_COLOR", "1")], &["--color", "never"], false),
        (&[], &["--color", "always"], true),
    ] {
        let got = colour_runs(&ctx, env, extra);
        for ((command, colored, text), (_, _, plain_text)) in got.iter().zip(&plain) {
            assert_eq!(*colored, expected, "{command} {env:?} {extra:?}");
            // Colour changes nothing but the escape codes: same text, same columns.
            assert_eq!(text, plain_text, "{command} {env:?} {extra:?}");
        }
    }
}

/// planner.toml or `[tool.planner]`, found walking up; flags > variables > config; `-v` says
/// where each value came from.
#[test]
fn config_file_found_walking_up_and_flags_over_variables_over_config() {
    let ctx = TestContext::new();
    let project = ctx.path().join("project");
    let deep = project.join("src/pkg");
    std::fs::create_dir_all(&deep).unwrap();
    let index = repo_root().join(INDEX);
    std::fs::write(
        project.join("pyproject.toml"),
        format!(
            "[project]\nname = \"x\"\n\n[tool.planner]\npolicy = \"ml-cuda\"\nindex-url = \"{}\"\nmax-risk = \"low\"\n",
            index.display()
        ),
    )
    .unwrap();
    let venv = repo_root().join(CANONICAL);
    let propose = |extra: &[&str], env: &[(&str, &str)]| {
        let mut cmd = ctx.command();
        cmd.current_dir(&deep).args([
            "propose",
            "triton==3.7.0",
            "--allow-override",
            "--venv",
            venv.to_str().unwrap(),
            "--offline",
            "--format",
            "json",
            "-v",
        ]);
        cmd.args(extra);
        for (k, v) in env {
            cmd.env(k, v);
        }
        crate::common::run(&mut cmd)
    };
    // What `-v` says of each setting: its value and where it came from.
    let settings = |out: &crate::common::Output| {
        let lines: Vec<&str> = out
            .stderr
            .lines()
            .filter_map(|l| l.split_once("planner: setting ").map(|(_, s)| s))
            .collect();
        lines.join("\n")
    };
    // The config's index and policy answer; its max-risk (low) fails the plan: exit 1.
    let out = propose(&[], &[]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let mut said = vec![settings(&out)];
    assert_eq!(out.json()["request"]["policy"], "ml-cuda", "{}", out.stdout);
    // A variable beats the config; a flag beats the variable.
    let out = propose(
        &[],
        &[
            ("PLANNER_MAX_RISK", "critical"),
            ("PLANNER_POLICY", "default"),
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    said.push(settings(&out));
    let out = propose(&["--max-risk", "low"], &[("PLANNER_MAX_RISK", "critical")]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    said.push(settings(&out));
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("config_then_variables_then_flags", said.join("\n\n")));
    // A nearer planner.toml wins, and an unknown key is an error naming the file.
    std::fs::write(project.join("src/planner.toml"), "max-rsik = \"low\"\n").unwrap();
    let out = propose(&[], &[]);
    assert_eq!(out.code, Some(2));
    assert_valid(&out.json());
    // The error document names the file and the key.
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("unknown_config_key", out.stdout));
    // PLANNER_NO_CONFIG=1 reads none: the index is then the public one, which --offline
    // cannot read (exit 2), so the config was what answered above.
    let out = propose(&[], &[("PLANNER_NO_CONFIG", "1")]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
}

/// Every command's JSON output validates against its schema, an error under `--format json`
/// included (`Output::json` validates every planner document a test reads; these runs make
/// sure every schema is exercised at least once).
#[test]
fn every_command_json_validates() {
    let ctx = TestContext::in_repo();
    let out_dir = ctx.path().join("plan");
    let snapshot = ctx.path().join("snap.json");
    for (args, schema) in &json_commands(out_dir.to_str().unwrap()) {
        let out = ctx.run(args);
        let doc = out.json();
        assert_eq!(doc["schema"], *schema, "{args:?}: {}", out.stderr);
        assert_valid(&doc);
        if *schema == "planner-error/1" {
            assert_eq!(out.code, Some(2));
            assert_eq!(doc["exit_code"], 2);
            assert!(doc["help"].as_str().is_some_and(|h| !h.is_empty()), "{doc}");
        }
        if *schema == "planner-snapshot/1" {
            std::fs::write(&snapshot, &out.stdout).unwrap();
        }
    }
    assert_written_plans_validate(&out_dir);
    assert_snapshots_read_back(&ctx, &snapshot);
}

/// One run of each command that prints a JSON document, with the schema it names (`propose`
/// writes its files under `out_dir`).
fn json_commands(out_dir: &str) -> Vec<(Vec<&str>, &'static str)> {
    vec![
        (
            vec!["inventory", "--venv", CANONICAL, "--format", "json"],
            "planner-inventory/1",
        ),
        (
            vec!["check", "--venv", BROKEN, "--format", "json"],
            "planner-check/1",
        ),
        (
            vec![
                "outdated",
                "--venv",
                CANONICAL,
                "--index-url",
                INDEX,
                "--offline",
                "--format",
                "json",
            ],
            "planner-outdated/1",
        ),
        (
            vec![
                "resolve",
                "--python-version",
                "3.12",
                "--python-platform",
                "x86_64-manylinux_2_28",
                "--index-url",
                INDEX,
                "--offline",
                "--format",
                "json",
                "torch==2.11.0",
                "triton==3.7.0",
            ],
            "planner-resolve/1",
        ),
        (
            vec![
                "propose",
                "triton==3.7.0",
                "--allow-override",
                "--venv",
                CANONICAL,
                "--index-url",
                INDEX,
                "--offline",
                "--format",
                "json",
                "--out-dir",
                out_dir,
            ],
            "planner-proposal/1",
        ),
        (
            vec!["snapshot", "--venv", CANONICAL, "--out", "-"],
            "planner-snapshot/1",
        ),
        (
            vec![
                "diff",
                CANONICAL,
                "testdata/venvs/canonical-forced",
                "--format",
                "json",
            ],
            "planner-diff/1",
        ),
        (
            vec!["diff", "--since", "3d", CANONICAL, "--format", "json"],
            "planner-diff-since/1",
        ),
        (
            vec!["inventory", "--venv", "/nonexistent", "--format", "json"],
            "planner-error/1",
        ),
        (
            vec!["inventory", "--python-version", "3", "--format", "json"],
            "planner-error/1",
        ),
    ]
}

/// The files propose wrote under `out_dir` validate: the proposal again, and each plan file.
fn assert_written_plans_validate(out_dir: &Path) {
    let proposal: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("proposal.json")).unwrap())
            .unwrap();
    assert_valid(&proposal);
    let mut plans = 0;
    for dir in std::fs::read_dir(out_dir.join("plans")).unwrap() {
        let plan = dir.unwrap().path().join("plan.json");
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
        assert_eq!(doc["schema"], "planner-plan/1");
        assert_valid(&doc);
        plans += 1;
    }
    assert!(plans >= 2, "{plans} plan files");
}

/// The snapshot just written reads back, as does one in the older format.
fn assert_snapshots_read_back(ctx: &TestContext, snapshot: &Path) {
    let out = ctx.run(&["inventory", "--from-snapshot", snapshot.to_str().unwrap()]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let old = Path::new("testdata/risk-corpus/bases/black221.snapshot.json");
    let out = ctx.run(&[
        "check",
        "--from-snapshot",
        old.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_ne!(out.code, Some(2), "{}", out.stderr);
}

/// The errors that had no `help:` line, the offline hint under --offline, a policy name one
/// letter off, a pyvenv.cfg version without its micro.
#[test]
fn errors_say_what_to_do() {
    let mut ctx = TestContext::in_repo();
    let file = ctx.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let file = file.to_str().unwrap().to_string();
    ctx.filter(r"\(os error \d+\)", "(os error [N])");
    let runs: Vec<(&str, Vec<&str>)> = vec![
        (
            "index_url_not_a_url",
            vec!["outdated", "--venv", CANONICAL, "--index-url", "not a url"],
        ),
        (
            "out_dir_is_a_file",
            vec![
                "propose",
                "triton==3.7.0",
                "--venv",
                CANONICAL,
                "--index-url",
                INDEX,
                "--offline",
                "--out-dir",
                &file,
            ],
        ),
        (
            "requirement_file_missing",
            vec!["resolve", "-r", "missing.txt", "--python-version", "3.12"],
        ),
        (
            "since_yesterday",
            vec!["diff", "--since", "yesterday", CANONICAL],
        ),
        (
            "offline_local_index_missing",
            vec![
                "resolve",
                "numpy",
                "--python-version",
                "3.12",
                "--offline",
                "--index-url",
                // absolute and fixed: the error's wrapping must not depend on where the
                // repository is checked out
                "/planner-test/no-such-index",
            ],
        ),
        (
            "policy_one_letter_off",
            vec![
                "propose", "numpy", "--venv", CANONICAL, "--policy", "ml-cudaa",
            ],
        ),
        (
            "verify_names_plan_and_all",
            vec!["verify", "--venv", CANONICAL],
        ),
    ];
    // Each snapshot shows exit 2 and the hint (`help:`, `hint:` or the usage), and no
    // "retry with --offline" where the run was not offline.
    for (name, args) in runs {
        let out = ctx.run(&args);
        let text = out.snapshot();
        ctx.insta_settings()
            .bind(|| insta::assert_snapshot!(name, text));
    }
}

/// A pyvenv.cfg version without a micro is said, not read silently as X.Y.0; a venv without an
/// interpreter is read without the "without running Python" note on every run (it is on -v).
#[test]
fn pyvenv_cfg_version_and_the_interpreterless_note() {
    let ctx = TestContext::new();
    let venv = ctx.path().join("venv");
    std::fs::create_dir_all(venv.join("lib/python3.12/site-packages")).unwrap();
    std::fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\nversion = 3.12\n").unwrap();
    let out = ctx.run(&["inventory", "--venv", venv.to_str().unwrap()]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 0
        ----- stdout -----
        Python 3.12.0 (linux x86_64, best tag cp312-cp312-manylinux_[GLIBC]_x86_64; from [TMP]/venv/pyvenv.cfg)
        name  version  installer  source  requested
        ----  -------  ---------  ------  ---------
        0 distributions

        ----- stderr -----
        note: pyvenv.cfg gives the Python version as `3.12`, without a micro version: read as 3.12.0
        "#);
    std::fs::write(
        venv.join("pyvenv.cfg"),
        "home = /usr/bin\nversion = 3.12.3\n",
    )
    .unwrap();
    let out = ctx.run(&["diff", venv.to_str().unwrap(), venv.to_str().unwrap()]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 0
        ----- stdout -----
        A: [TMP]/venv
        B: [TMP]/venv

        No differences.

        ----- stderr -----
        "#);

    let out = ctx.run(&["inventory", "--venv", venv.to_str().unwrap(), "-v"]);
    assert_eq!(
        out.stderr.matches("without running Python").count(),
        1,
        "{}",
        out.stderr
    );
}

/// `--python` reads an interpreter's environment wherever an environment is read, and diff
/// takes `--venv`, `--from-snapshot` and `--python` per side, in the order given.
#[test]
fn python_flag_reads_an_environment_wherever_one_is_read() {
    let ctx = TestContext::in_repo();
    let python = crate::common::venv::python3();
    for command in ["inventory", "check", "snapshot"] {
        let mut args = vec![command, "--python", python.to_str().unwrap()];
        if command == "snapshot" {
            args.extend(["--out", "-"]);
        }
        let out = ctx.run(&args);
        assert_ne!(out.code, Some(2), "{command}: {}", out.stderr);
        assert!(!out.stderr.contains("on PATH"), "{command}: {}", out.stderr);
    }
    let snap = ctx.path().join("canonical.json");
    let out = ctx.run(&[
        "snapshot",
        "--venv",
        CANONICAL,
        "--out",
        snap.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let out = ctx.run(&[
        "diff",
        "--from-snapshot",
        snap.to_str().unwrap(),
        "--venv",
        "testdata/venvs/canonical-forced",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let doc = out.json();
    assert!(
        doc["a"]
            .as_str()
            .is_some_and(|a| a.ends_with("canonical.json")),
        "{doc}"
    );
    assert!(
        doc["b"]
            .as_str()
            .is_some_and(|b| b.ends_with("canonical-forced")),
        "{doc}"
    );
    // The same sides the other way round.
    let out = ctx.run(&[
        "diff",
        "--venv",
        "testdata/venvs/canonical-forced",
        "--from-snapshot",
        snap.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let doc = out.json();
    assert!(
        doc["a"]
            .as_str()
            .is_some_and(|a| a.ends_with("canonical-forced")),
        "{doc}"
    );
}

/// The documents recorded on the GPU machine (verify reports, a try report) validate against
/// the published schemas too: the schemas describe what planner wrote on real environments,
/// not only what the tests make.
#[test]
fn recorded_documents_validate_against_their_schemas() {
    let dir = repo_root().join("testdata/gpu");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        // verify's reports recorded before its schema 2, and records trimmed for size (their
        // `note` says what was left out), are not published documents.
        let trimmed = doc["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("trimmed"));
        if crate::common::schema::schema_name(&doc).is_some()
            && doc["schema"] != "planner-verify/1"
            && !trimmed
        {
            assert_valid(&doc);
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked} recorded documents");
}

/// The validation can fail: a document of the wrong shape is refused (a check that cannot fail
/// would prove nothing).
#[test]
#[should_panic(expected = "does not match docs/schemas/check.json")]
fn a_document_of_the_wrong_shape_is_refused() {
    assert_valid(&serde_json::json!({
        "schema": "planner-check/1",
        "broken": "yes",
        "dists": 3,
        "findings": [],
        "accepted": []
    }));
}
