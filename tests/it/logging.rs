//! `-v` / `-vv`: diagnostics go to stderr through the one logging facade,
//! data on stdout is unchanged, `-q` and `-v` exclude each other, and no flag means no log.

use std::path::{Path, PathBuf};

use crate::common::TestContext;
use crate::planner_snapshot;

fn canonical_venv() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/venvs/canonical")
}

fn log_lines(stderr: &str, level: &str) -> usize {
    stderr
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some(level))
        .count()
}

#[test]
fn verbose_logs_on_stderr_and_leaves_stdout_alone() {
    let ctx = TestContext::new();
    let venv = canonical_venv().display().to_string();
    let args = ["inventory", "--venv", &venv, "--format", "json"];
    let plain = ctx.run(&args);
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    assert_eq!(log_lines(&plain.stderr, "DEBUG"), 0, "{}", plain.stderr);

    let verbose = ctx.run(&[&["-v"][..], &args].concat());
    assert_eq!(verbose.code, Some(0), "{}", verbose.stderr);
    assert_eq!(
        verbose.stdout, plain.stdout,
        "-v changed the data on stdout"
    );
    assert!(
        verbose.stderr.contains("DEBUG stage: inventory took "),
        "no stage timing in:\n{}",
        verbose.stderr
    );
    assert_eq!(log_lines(&verbose.stderr, "TRACE"), 0, "{}", verbose.stderr);

    let very = ctx.run(&[&["-vv"][..], &args].concat());
    assert_eq!(very.code, Some(0), "{}", very.stderr);
    assert_eq!(very.stdout, plain.stdout);
    assert!(
        log_lines(&very.stderr, "DEBUG") >= log_lines(&verbose.stderr, "DEBUG"),
        "-vv logged less than -v"
    );
}

#[test]
fn quiet_and_verbose_exclude_each_other() {
    let ctx = TestContext::new();
    let out = ctx.run(&["-q", "-v", "inventory"]);
    planner_snapshot!(ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        error: the argument '--quiet' cannot be used with '--verbose...'

        Usage: planner --quiet <COMMAND>

        For more information, try '--help'.
        "#);
}
