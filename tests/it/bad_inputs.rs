//! The bad-input corpus: what a user types wrong, or what their machine hands over broken, each
//! answered with a clear error that names the file (line and column), the flag or the variable
//! the value came from, and a hint that works where planner is installed; each with its exit
//! code (2: the input cannot be used, 1: the user must change something first). Every case runs
//! the binary and records exit code, stdout and stderr (insta snapshots).
//!
//! Cases tested in their command's own module are not repeated here: `diff --since=-3d`
//! (diff.rs), `propose --all triton` (propose.rs); policy patterns with two `*` match
//! (`risk::glob` unit test).
//!
//! The corpus itself is data: `testdata/bad-inputs/cases.toml`, one case per input (command line,
//! files, environment, exit code, what stderr must say), run by [`corpus`]. The tests below it
//! are the cases that need more than that: a loopback server, a file left as it was, JSON,
//! whole-text snapshots.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use base64::Engine;

use crate::common::index_server::{Fault, IndexServer};
use crate::common::{Output, TestContext, run};
use crate::planner_snapshot;

fn canonical_venv() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/venvs/canonical")
}

/// A venv folder `venv` in the context's folder (where the binary runs, so it is named
/// relatively and the reports do not wrap around a temp path) holding only `pyvenv.cfg` with
/// `cfg` and the given lib/pythonX.Y folder.
fn fake_venv(ctx: &TestContext, cfg: &str, lib: Option<&str>) -> &'static str {
    let venv = ctx.path().join("venv");
    std::fs::create_dir_all(&venv).unwrap();
    std::fs::write(venv.join("pyvenv.cfg"), cfg).unwrap();
    if let Some(lib) = lib {
        std::fs::create_dir_all(venv.join("lib").join(lib).join("site-packages")).unwrap();
    }
    "venv"
}

/// Run the binary with these arguments and extra environment variables.
fn run_with(ctx: &TestContext, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = ctx.command();
    cmd.args(args).envs(env.iter().copied());
    run(&mut cmd)
}

/// The exit code is `code` and stderr says each of `needles` (compared with the report's
/// wrapping and margin undone).
fn assert_error(out: &Output, code: i32, needles: &[&str]) {
    assert_eq!(out.code, Some(code), "{}", out.snapshot());
    let flat = |text: &str| {
        let words = text.split_whitespace().filter(|w| !matches!(*w, "│" | "×"));
        words.collect::<Vec<_>>().join(" ")
    };
    let stderr = flat(&out.stderr);
    for needle in needles {
        assert!(
            stderr.contains(&flat(needle)),
            "no `{needle}` in:\n{}",
            out.stderr
        );
    }
}

/// One input of `testdata/bad-inputs/cases.toml` (its header says what each field means).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    args: Vec<String>,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    exit: i32,
    stderr: Vec<String>,
    #[serde(default)]
    absent: Vec<String>,
    #[serde(default)]
    stdout: bool,
}

#[derive(serde::Deserialize)]
struct Corpus {
    case: Vec<Case>,
}

/// `{canonical}` and `{index}` in `text`, as absolute paths.
fn placeholders(text: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    text.replace("{canonical}", &canonical_venv().display().to_string())
        .replace(
            "{index}",
            &root.join("testdata/index/simple").display().to_string(),
        )
}

/// What is wrong with `case`'s run, if anything.
fn run_case(case: &Case) -> Option<String> {
    let ctx = TestContext::new();
    for (path, content) in &case.files {
        let path = ctx.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
    }
    let args: Vec<String> = case.args.iter().map(|a| placeholders(a)).collect();
    let mut cmd = ctx.command();
    cmd.args(&args);
    for (key, value) in &case.env {
        cmd.env(key, placeholders(value));
    }
    let out = run(&mut cmd);
    let flat = |text: &str| {
        let words = text.split_whitespace().filter(|w| !matches!(*w, "│" | "×"));
        words.collect::<Vec<_>>().join(" ")
    };
    let stderr = flat(&out.stderr);
    let mut wrong = Vec::new();
    if out.code != Some(case.exit) {
        wrong.push(format!("exit {:?}, not {}", out.code, case.exit));
    }
    if !case.stdout && !out.stdout.is_empty() {
        wrong.push("data on stdout".to_string());
    }
    for needle in &case.stderr {
        if !stderr.contains(&flat(needle)) {
            wrong.push(format!("stderr does not say `{needle}`"));
        }
    }
    for secret in &case.absent {
        if out.stderr.contains(secret.as_str()) || out.stdout.contains(secret.as_str()) {
            wrong.push(format!("the output shows `{secret}`"));
        }
    }
    (!wrong.is_empty()).then(|| {
        let shown: String = out.stderr.chars().take(1500).collect();
        format!("{}: {}\n{shown}", case.name, wrong.join("; "))
    })
}

/// Every input of the corpus gives its exit code and a stderr that names what is wrong and
/// what to do.
#[test]
fn corpus() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/bad-inputs/cases.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let corpus: Corpus = toml::from_str(&text).unwrap();
    let mut names = std::collections::HashSet::new();
    for case in &corpus.case {
        assert!(names.insert(&case.name), "two cases named {}", case.name);
        assert!(!case.stderr.is_empty(), "{} checks no text", case.name);
    }
    let failures: Vec<String> = corpus.case.iter().filter_map(run_case).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        corpus.case.len(),
        failures.join("\n\n")
    );
}

#[test]
fn pyvenv_cfg_with_a_version_that_is_not_one() {
    let ctx = TestContext::new();
    let venv = fake_venv(
        &ctx,
        "home = /usr/bin\nversion_info = banana\n",
        Some("python3.12"),
    );
    let out = ctx.run(&["inventory", "--venv", venv]);
    assert_error(&out, 2, &["pyvenv.cfg line 2", "version_info `banana`"]);
    planner_snapshot!(ctx, out);
}

#[test]
fn pyvenv_cfg_naming_no_version_and_no_lib_folder() {
    let ctx = TestContext::new();
    let venv = fake_venv(&ctx, "home = /usr/bin\n", None);
    let out = ctx.run(&["inventory", "--venv", venv]);
    assert_error(&out, 2, &["has no `version` line", "--python-version"]);
    planner_snapshot!(ctx, out);
}

/// A Python 2 environment is refused with exit 1 (the user must make a Python 3 one), in text
/// and in JSON, before any index is asked.
#[test]
fn python2_venv_is_refused() {
    let ctx = TestContext::new();
    let venv = fake_venv(
        &ctx,
        "home = /usr/bin\nversion_info = 2.7.18.final.0\n",
        Some("python2.7"),
    );
    let out = ctx.run(&["propose", "numpy", "--venv", venv]);
    assert_error(&out, 1, &["Python 2.7.18 environment", "python3 -m venv"]);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    planner_snapshot!(ctx, out);
    let json = ctx.run(&["inventory", "--venv", venv, "--format", "json"]);
    assert_eq!(json.code, Some(1));
    let doc = json.json();
    assert_eq!(doc["exit_code"], 1);
    assert_eq!(doc["code"], "planner::inventory::python2");
}

#[test]
fn index_url_with_an_ftp_scheme() {
    let ctx = TestContext::new();
    let venv = canonical_venv().display().to_string();
    let out = ctx.run(&[
        "outdated",
        "--venv",
        &venv,
        "--index-url",
        "ftp://mirror.example/simple",
    ]);
    assert_error(&out, 2, &["in --index-url", "unsupported scheme `ftp`"]);
    // The hint is for the flag itself, not "the flag overrides it" (the snapshot holds it).
    planner_snapshot!(ctx, out);
}

/// Garbage in `PIP_INDEX_URL` is blamed on the variable, not on `--index-url` and not on a
/// "local index folder" nobody meant.
#[test]
fn garbage_in_pip_index_url_names_the_variable() {
    let ctx = TestContext::new();
    let venv = canonical_venv().display().to_string();
    let out = run_with(
        &ctx,
        &["outdated", "--venv", &venv],
        &[("PIP_INDEX_URL", "garbage here")],
    );
    assert_error(
        &out,
        2,
        &["in PIP_INDEX_URL", "`garbage here` is not an http(s) URL"],
    );
    // Never blamed "in --index-url" (the snapshot holds the whole report).
    planner_snapshot!(ctx, out);
}

#[test]
fn snapshot_out_naming_a_folder() {
    let ctx = TestContext::new();
    let folder = ctx.path().join("snapshots");
    std::fs::create_dir_all(&folder).unwrap();
    let venv = canonical_venv().display().to_string();
    let out = ctx.run(&["snapshot", "--venv", &venv, "--out", "snapshots"]);
    assert_error(&out, 2, &["it is a folder", "snapshots/snapshot.json"]);
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
    planner_snapshot!(ctx, out);
}

#[test]
fn man_dir_naming_a_file() {
    let ctx = TestContext::new();
    let file = ctx.path().join("pages");
    std::fs::write(&file, "mine").unwrap();
    let out = ctx.run(&["man", "--dir", "pages"]);
    assert_error(&out, 2, &["it is a file, not a folder", "planner man >"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    planner_snapshot!(ctx, out);
}

/// A 100,000-character name is echoed shortened, with its length.
#[test]
fn a_100000_character_name_is_clipped_in_the_echo() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let name = "a".repeat(100_000);
    let venv = canonical_venv();
    let out = ctx.propose(&venv, &server.url(), &[&name]);
    assert_eq!(
        out.code,
        Some(2),
        "{}",
        &out.stderr[..out.stderr.len().min(2000)]
    );
    assert!(
        out.stderr.len() < 4000,
        "{} bytes of stderr",
        out.stderr.len()
    );
    assert!(out.stderr.contains(" characters)"), "{}", out.stderr);
    // Not a snapshot: where the report wraps depends on the port's length.
}

#[test]
fn toml_error_in_a_policy_file_has_line_and_column() {
    let ctx = TestContext::new();
    let policy = ctx.path().join("policy.toml");
    std::fs::write(&policy, "name = 'mine'\n[weights]\nmajor-upgrade = = 3\n").unwrap();
    let venv = canonical_venv();
    let out = ctx.propose(
        &venv,
        "http://127.0.0.1:9/simple/",
        &["numpy", "--policy", "policy.toml"],
    );
    assert_error(
        &out,
        2,
        &["policy.toml` is not a valid policy: line 3, column 17"],
    );
    // The wheel ships no policies/ folder: the hint does not send anyone to
    // policies/default.toml (the snapshot holds the whole report).
    planner_snapshot!(ctx, out);
}

#[test]
fn invalid_glob_in_a_policy_pattern_is_refused() {
    let ctx = TestContext::new();
    let policy = ctx.path().join("policy.toml");
    std::fs::write(
        &policy,
        "[[coupled]]\nmembers = [\"torch\", \"nvidia-[cu\"]\nreason = \"built together\"\n",
    )
    .unwrap();
    let venv = canonical_venv();
    let out = ctx.propose(
        &venv,
        "http://127.0.0.1:9/simple/",
        &["numpy", "--policy", "policy.toml"],
    );
    assert_error(
        &out,
        2,
        &[
            "line 2, column 22",
            "`nvidia-[cu` is not a valid name pattern",
        ],
    );
    planner_snapshot!(ctx, out);
}

#[test]
fn toml_error_in_the_config_file_has_line_and_column() {
    let ctx = TestContext::new();
    std::fs::write(
        ctx.path().join("planner.toml"),
        "index-url = \"x\nmax-risk = 1\n",
    )
    .unwrap();
    let venv = canonical_venv().display().to_string();
    let out = ctx.run(&["inventory", "--venv", &venv]);
    // Not a snapshot: the file is found by its absolute path, where the report wraps depends
    // on the temp folder's length.
    assert_error(
        &out,
        2,
        &[
            "planner.toml`: line 1, column 15: invalid basic string",
            "PLANNER_NO_CONFIG=1",
        ],
    );
}

/// `${VAR}` in a requirements file is expanded from the environment, as pip does; an unset one
/// is named.
#[test]
fn environment_variables_in_a_requirements_file() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let file = ctx.path().join("requirements.txt");
    std::fs::write(&file, "# pinned by CI\nidna==${IDNA_VERSION}\n").unwrap();
    let url = server.url();
    let args = [
        "resolve",
        "--index-url",
        &url,
        "--python-version",
        "3.12",
        "--python-platform",
        "x86_64-manylinux_2_28",
        "-r",
        "requirements.txt",
    ];
    let unset = ctx.run(&args);
    assert_error(
        &unset,
        2,
        &[
            "requirements.txt` line 2",
            "variable IDNA_VERSION is not set",
        ],
    );
    planner_snapshot!(
        ctx,
        "environment_variables_in_a_requirements_file_unset",
        unset
    );
    let set = run_with(&ctx, &args, &[("IDNA_VERSION", "3.19")]);
    // Resolves with `idna==3.19`, exit 0.
    planner_snapshot!(ctx, "environment_variables_in_a_requirements_file_set", set);
}

/// A quoted netrc password is one token: `"pa ss"` reaches the index as `pa ss`.
#[test]
fn netrc_quoted_password_reaches_the_index_whole() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let basic = base64::engine::general_purpose::STANDARD.encode("alice:pa ss");
    server.fault("/", Fault::RequireAuth(format!("Basic {basic}")));
    std::fs::write(
        ctx.home().join(".netrc"),
        "machine 127.0.0.1\n  login alice\n  password \"pa ss\"\n",
    )
    .unwrap();
    let venv = canonical_venv().display().to_string();
    let out = ctx.run(&["outdated", "--venv", &venv, "--index-url", &server.url()]);
    // The index answered: exit 0 and nothing on stderr (no 401).
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    insta::assert_snapshot!(out.stderr, @"");
    let authorized = server
        .log()
        .iter()
        .filter(|l| l.headers.contains_key("authorization"))
        .count();
    assert!(authorized > 0, "no request carried the netrc credentials");
}

/// `PIP_CONFIG_FILE=/dev/null` switches every pip.conf off, as it does for pip: a broken
/// `extra-index-url` in the user's pip.conf no longer counts.
#[test]
fn pip_config_file_dev_null_switches_pip_conf_off() {
    let ctx = TestContext::new();
    let server = IndexServer::recorded();
    let conf = ctx.home().join(".config/pip/pip.conf");
    std::fs::create_dir_all(conf.parent().unwrap()).unwrap();
    std::fs::write(
        &conf,
        "[global]\nextra-index-url = ftp://old.example/simple\n",
    )
    .unwrap();
    let venv = canonical_venv().display().to_string();
    let args = ["outdated", "--venv", &venv, "--index-url", &server.url()];
    let with_conf = ctx.run(&args);
    assert_error(&with_conf, 2, &["pip/pip.conf", "unsupported scheme `ftp`"]);
    let off = run_with(&ctx, &args, &[("PIP_CONFIG_FILE", "/dev/null")]);
    // Exit 0 and nothing on stderr: pip.conf is never read nor named.
    assert_eq!(off.code, Some(0), "{}", off.stderr);
    insta::assert_snapshot!(off.stderr, @"");
}

/// stderr closed by its reader (`planner … 2>&1 | head`): the run ends with its own exit code,
/// its later lines dropped, never a panic (exit 101, as `eprintln!` gave). The reader (`true`)
/// has exited before planner starts, so every write meets a closed pipe.
#[test]
fn a_closed_stderr_is_not_a_crash() {
    let ctx = TestContext::new();
    let planner = env!("CARGO_BIN_EXE_planner");
    let canonical = canonical_venv().display().to_string();
    let index = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/index/simple")
        .display()
        .to_string();
    let cases = [
        // An error: the report goes to stderr.
        ("inventory --venv missing".to_string(), 2),
        // Warnings on stderr (the git-installed dist kept, no interpreter), the plan on stdout.
        (
            format!("propose numpy --venv '{canonical}' --index-url '{index}' --offline"),
            0,
        ),
    ];
    for (args, code) in cases {
        let template = ctx.command();
        let mut bash = std::process::Command::new("bash");
        bash.env_clear().current_dir(ctx.path());
        for (key, value) in template.get_envs() {
            if let Some(value) = value {
                bash.env(key, value);
            }
        }
        let script =
            format!("(sleep 0.5; '{planner}' {args}) 2>&1 | true; exit \"${{PIPESTATUS[0]}}\"");
        let status = bash.arg("-c").arg(&script).status().unwrap();
        assert_eq!(status.code(), Some(code), "{args}");
    }
}
