//! Interrupts and shared caches (reliability items 29 and 30): Ctrl-C during a
//! fetch or while `--out-dir` is written exits 130 and leaves the previous files as they were;
//! two planners on one cache both succeed with the same answer; a cache entry cut short is
//! detected and fetched again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::index_server::{Fault, IndexServer};
use crate::common::{TestContext, files_under};

fn canonical_venv() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/venvs/canonical")
        .display()
        .to_string()
}

fn propose_args(server: &IndexServer, out_dir: Option<&Path>, allow_override: bool) -> Vec<String> {
    let mut args = vec![
        "propose".to_string(),
        "triton==3.7.0".to_string(),
        "--venv".to_string(),
        canonical_venv(),
        "--index-url".to_string(),
        server.url(),
    ];
    if let Some(dir) = out_dir {
        args.extend(["--out-dir".to_string(), dir.display().to_string()]);
    }
    if allow_override {
        args.push("--allow-override".to_string());
    }
    args
}

/// Every file under `dir` with its bytes.
fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files_under(dir)
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(&f).unwrap();
            (f.strip_prefix(dir).unwrap().to_path_buf(), bytes)
        })
        .collect()
}

fn interrupt(child: &mut Child) -> Option<i32> {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "planner did not stop after SIGINT"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A first run's files, to compare with after an interrupted second run.
fn first_run(
    ctx: &TestContext,
    server: &IndexServer,
    out_dir: &Path,
) -> BTreeMap<PathBuf, Vec<u8>> {
    let args = propose_args(server, Some(out_dir), true);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ctx.run(&args);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let before = contents(out_dir);
    assert!(
        before.keys().any(|p| p.ends_with("plan.json")),
        "{before:?}"
    );
    before
}

fn spawn(ctx: &TestContext, args: &[String], env: &[(&str, &str)]) -> Child {
    let mut cmd = ctx.command();
    cmd.args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd.spawn().expect("spawn planner")
}

#[test]
fn ctrl_c_during_a_fetch_exits_130_and_keeps_the_previous_files() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let out_dir = ctx.dir.path().join("out");
    let before = first_run(&ctx, &server, &out_dir);
    // A slow index: every page now takes 30 s. The second run must fetch (`--refresh`).
    server.clear_log();
    server.fault("/simple/", Fault::Stall(Duration::from_secs(30)));
    let mut args = propose_args(&server, Some(&out_dir), false);
    args.push("--refresh".to_string());
    let mut child = spawn(&ctx, &args, &[]);
    wait_for("a page request", || !server.requests("/simple/").is_empty());
    assert_eq!(interrupt(&mut child), Some(130));
    assert_eq!(contents(&out_dir), before);
}

#[test]
fn ctrl_c_while_writing_the_out_dir_exits_130_and_keeps_the_previous_files() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let out_dir = ctx.dir.path().join("out");
    let before = first_run(&ctx, &server, &out_dir);
    // Without --allow-override the proposal differs, so new files would show. Each staged
    // file takes a second (a debug-build test hook), leaving time to interrupt mid-write.
    let args = propose_args(&server, Some(&out_dir), false);
    let mut child = spawn(&ctx, &args, &[("PLANNER_TEST_WRITE_DELAY_MS", "1000")]);
    // Staged inside the folder (the journal's way) or whole beside it (the exchange's way).
    let staging = || {
        let inside = std::fs::read_dir(&out_dir).unwrap().flatten().any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".planner-staging-")
        });
        let beside = std::fs::read_dir(ctx.dir.path())
            .unwrap()
            .flatten()
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(".out.planner-swap-")
            });
        inside || beside
    };
    wait_for("the staging folder", staging);
    assert_eq!(interrupt(&mut child), Some(130));
    assert_eq!(contents(&out_dir), before);
    // Uninterrupted, the same run does replace them.
    let out = ctx.run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_ne!(contents(&out_dir), before);
    assert!(!staging());
}

#[test]
fn two_planners_sharing_one_cache_both_succeed_with_the_same_answer() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let args = || {
        let mut args = propose_args(&server, None, true);
        args.extend(["--format".to_string(), "json".to_string()]);
        args
    };
    let children: Vec<_> = (0..2)
        .map(|_| {
            let mut cmd = ctx.command();
            cmd.args(args())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for out in &outputs {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let answer = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    assert_eq!(answer(&outputs[0].stdout), answer(&outputs[1].stdout));
    // Both wrote the cache at once; it is intact: a run served from it alone gives the answer.
    let mut offline = args();
    offline.push("--offline".to_string());
    let out = ctx.run(&offline.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(answer(out.stdout.as_bytes()), answer(&outputs[0].stdout));
}

#[test]
fn a_cache_entry_cut_short_is_detected_and_fetched_again() {
    let server = IndexServer::recorded();
    let ctx = TestContext::new();
    let mut args = propose_args(&server, None, true);
    args.extend(["--format".to_string(), "json".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let warm = ctx.run(&args);
    assert_eq!(warm.code, Some(0), "{}", warm.stderr);
    // A crash (or a full disk) left every cached page cut short.
    let pages: Vec<PathBuf> = files_under(&ctx.cache())
        .into_iter()
        .filter(|p| p.components().any(|c| c.as_os_str() == "projects"))
        .collect();
    assert!(!pages.is_empty());
    for page in &pages {
        let bytes = std::fs::read(page).unwrap();
        std::fs::write(page, &bytes[..bytes.len() / 2]).unwrap();
    }
    server.clear_log();
    let again = ctx.run(&args);
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert_eq!(again.stdout, warm.stdout);
    assert!(
        !server.requests("/simple/").is_empty(),
        "the cut entries were used instead of fetched again"
    );
}

#[test]
fn ctrl_c_while_verify_runs_a_test_ends_the_test_and_leaves_nothing_in_tmpdir() {
    let ctx = TestContext::new();
    let venv = ctx.path().join("venv");
    crate::common::venv::RealVenv::create_without_pip(&venv);
    let tmp = ctx.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // The test writes its shell's pid, then becomes `sleep` (the same pid).
    let pid_file = ctx.path().join("test-pid");
    let test = format!(
        "echo $$ > '{}.part' && mv '{0}.part' '{0}' && exec sleep 120",
        pid_file.display()
    );
    let args = [
        "verify",
        "--venv",
        venv.to_str().unwrap(),
        "--all",
        "--no-smoke",
        "--test",
        &test,
    ]
    .map(String::from);
    let mut child = spawn(&ctx, &args, &[("TMPDIR", tmp.to_str().unwrap())]);
    wait_for("the test to start", || pid_file.exists());
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(interrupt(&mut child), Some(130));
    // The script runs the test in a session of its own: killing the script's group alone left
    // it running, orphaned.
    wait_for("the test to end", || !alive(&pid));
    // What the script made in TMPDIR (the script itself, its private compile caches) is removed
    // by planner: the killed script cleans up nothing.
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left behind in TMPDIR: {left:?}");
}

/// Whether process `pid` is running (a zombie is not).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}
