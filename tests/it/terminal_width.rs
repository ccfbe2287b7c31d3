//! Output fitted to the terminal's width: `COLUMNS` (or the terminal's own width) wraps text at
//! word boundaries with hanging indents, fits tables, and breaks pip and uv commands between
//! their words with ` \` (so a copy still runs); piped output without `COLUMNS` is as before.
//!
//! Each case runs at 80 and 120 columns: every line fits (or is one word too long to break),
//! no word is lost or split, each command joins back to the one-line command, and the output is
//! kept as a snapshot. The `tmux_*` tests run planner in a real terminal (tmux) at 80 and 120
//! columns and keep the screen as a snapshot; they need tmux and run with `--ignored`.
//! The inputs are copied into a folder whose path has the same length everywhere, so the
//! wrapping does not depend on where the repository lies.

use std::path::Path;

use std::time::{Duration, Instant};

use crate::common::index_server::{Fault, IndexServer};
use crate::common::{Output, TestContext, copy_dir, h200_fixtures, repo_root, run};

/// A context holding `v` (the canonical venv), `f` (the canonical venv after a forced triton)
/// and `x` (the recorded index: its pages in `x/simple`, its files beside them).
fn context() -> TestContext {
    let ctx = TestContext::in_fixed_length_folder();
    let testdata = repo_root().join("testdata");
    copy_dir(&testdata.join("venvs/canonical"), &ctx.path().join("v"));
    copy_dir(
        &testdata.join("venvs/canonical-forced"),
        &ctx.path().join("f"),
    );
    copy_dir(&testdata.join("index"), &ctx.path().join("x"));
    ctx
}

/// `planner ARGS` with `COLUMNS` set to `width` (none: unset).
fn at(ctx: &TestContext, width: Option<usize>, args: &[&str]) -> Output {
    let mut cmd = ctx.command();
    cmd.args(args);
    if let Some(width) = width {
        cmd.env("COLUMNS", width.to_string());
    }
    run(&mut cmd)
}

/// Every line of `text` fits `width`, or is a single word that cannot be broken.
fn assert_fits(text: &str, width: usize) {
    for line in text.lines() {
        let words = line.split_whitespace().filter(|w| *w != "\\").count();
        assert!(
            line.chars().count() <= width || words <= 1,
            "{} columns, over {width}: {line}\n\n{text}",
            line.chars().count()
        );
    }
}

/// The words of `text`, continuation marks left out.
fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().filter(|w| *w != "\\").collect()
}

/// The one-line commands of unfitted output (indented by four, starting with the tool).
fn commands(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("python3 -m pip ") || l.starts_with("uv pip "))
        .collect()
}

/// The canonical incident at 80 and 120 columns: wrapped at words, commands broken with ` \`
/// and whole again when joined, and the same words as the unfitted output.
#[test]
fn propose_fits_80_and_120_columns() {
    let ctx = context();
    let args = [
        "propose",
        "triton==3.7.0",
        "--allow-override",
        "--venv",
        "v",
        "--index-url",
        "x/simple",
        "--offline",
    ];
    let plain = at(&ctx, None, &args);
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    assert!(plain.stdout.lines().any(|l| l.chars().count() > 120));
    for width in [80, 120] {
        let fitted = at(&ctx, Some(width), &args);
        assert_eq!(fitted.code, Some(0), "{}", fitted.stderr);
        assert_fits(&fitted.stdout, width);
        assert_fits(&fitted.stderr, width);
        assert_eq!(words(&fitted.stdout), words(&plain.stdout));
        let joined = fitted.stdout.replace(" \\\n        ", " ");
        for command in commands(&plain.stdout) {
            assert!(
                joined.contains(command),
                "{command} not in\n{}",
                fitted.stdout
            );
        }
        ctx.insta_settings().bind(|| {
            insta::assert_snapshot!(format!("propose_canonical_{width}"), fitted.stdout);
        });
    }
}

/// `outdated` at 80 and 120 columns: the table is narrower ("Latest" beside "Newest here" only
/// where it differs, "held back by" on a line of its own under its row); at 160 it keeps its six
/// columns. No version is cut.
#[test]
fn outdated_table_fits_80_and_120_columns() {
    let ctx = context();
    let args = [
        "outdated",
        "--venv",
        "v",
        "--index-url",
        "x/simple",
        "--offline",
    ];
    let plain = at(&ctx, None, &args);
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    for width in [80, 120] {
        let fitted = at(&ctx, Some(width), &args);
        assert_eq!(fitted.code, Some(0), "{}", fitted.stderr);
        assert_fits(&fitted.stdout, width);
        // Every name and version of the unfitted table (below its header) is still there, whole.
        let shown = words(&fitted.stdout);
        let rows: String = plain
            .stdout
            .lines()
            .skip(2)
            .map(|l| format!("{l}\n"))
            .collect();
        for word in words(&rows) {
            assert!(
                shown.contains(&word),
                "`{word}` lost at {width}:\n{}",
                fitted.stdout
            );
        }
        ctx.insta_settings().bind(|| {
            insta::assert_snapshot!(format!("outdated_canonical_{width}"), fitted.stdout);
        });
    }
    // At 80 the snapshot `outdated_canonical_80` holds `Newest here (latest)` as one column and
    // `held back by torch 2.11.0+cu130 (==13.0.2)` on a line of its own under its row.
    let wide = at(&ctx, Some(160), &args).stdout;
    assert!(
        wide.lines().next().unwrap().ends_with("Held back by"),
        "{wide}"
    );
}

/// The `--all` layer table: each summary wraps under its own column at 80 and 120 columns.
#[test]
fn layer_table_fits_80_and_120_columns() {
    let ctx = TestContext::in_fixed_length_folder();
    copy_dir(&h200_fixtures().join("h200-venv"), &ctx.path().join("h"));
    copy_dir(&repo_root().join("testdata/index"), &ctx.path().join("x"));
    let args = [
        "propose",
        "--all",
        "--venv",
        "h",
        "--index-url",
        "x/simple",
        "--offline",
    ];
    let plain = at(&ctx, None, &args);
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    for width in [80, 120] {
        let fitted = at(&ctx, Some(width), &args);
        assert_fits(&fitted.stdout, width);
        assert_eq!(words(&fitted.stdout), words(&plain.stdout));
        // The table: from the heading to the line that says which layer to apply first.
        let table: String = fitted
            .stdout
            .lines()
            .take_while(|l| !l.trim_start().starts_with("apply the first"))
            .map(|l| format!("{l}\n"))
            .collect();
        // Where the first row's summary starts: after its last run of spaces.
        let first = table.lines().nth(2).unwrap_or_default();
        let summary_column = first.rfind("  ").unwrap_or_default() + 2;
        for line in table
            .lines()
            .skip(3)
            .filter(|l| !l.trim_start().starts_with(char::is_numeric))
        {
            assert_eq!(
                line.len() - line.trim_start().len(),
                summary_column,
                "a continuation not under the summaries:\n{table}"
            );
        }
        ctx.insta_settings().bind(|| {
            insta::assert_snapshot!(format!("layer_table_h200_{width}"), table);
        });
    }
}

/// `check` and `diff` wrap their long lines at words with a hanging indent.
#[test]
fn check_and_diff_fit_80_columns() {
    let ctx = context();
    for args in [&["check", "--venv", "f"][..], &["diff", "v", "f"][..]] {
        let plain = at(&ctx, None, args);
        assert!(
            plain.stdout.lines().any(|l| l.chars().count() > 80),
            "{}",
            plain.stdout
        );
        let fitted = at(&ctx, Some(80), args);
        assert_eq!(fitted.code, plain.code);
        assert_fits(&fitted.stdout, 80);
        assert_eq!(words(&fitted.stdout), words(&plain.stdout));
        ctx.insta_settings().bind(|| {
            insta::assert_snapshot!(format!("{}_canonical_forced_80", args[0]), fitted.stdout);
        });
    }
}

/// The `resolve` arguments whose output has a long `# override:` line: torch 2.11.0 with
/// triton 3.7.0 forced over its pin (`r.txt` and `o.txt` in the context's folder).
const RESOLVE: [&str; 12] = [
    "resolve",
    "-r",
    "r.txt",
    "--override",
    "o.txt",
    "--index-url",
    "x/simple",
    "--offline",
    "--python-version",
    "3.12",
    "--python-platform",
    "x86_64-manylinux_2_28",
];

/// `r.txt` and `o.txt` for [`RESOLVE`].
fn resolve_files(ctx: &TestContext) {
    std::fs::write(ctx.path().join("r.txt"), "torch==2.11.0\n").unwrap();
    std::fs::write(ctx.path().join("o.txt"), "triton==3.7.0\n").unwrap();
}

/// `inventory`'s heading and `resolve`'s comments wrap at 80 columns; a wrapped comment goes on
/// as a comment, so the output still reads as a requirements file (every line a comment or a
/// `name==version` pin).
#[test]
fn inventory_and_resolve_fit_80_columns() {
    let ctx = context();
    resolve_files(&ctx);
    for args in [&["inventory", "--venv", "v"][..], &RESOLVE[..]] {
        let plain = at(&ctx, None, args);
        assert_eq!(plain.code, Some(0), "{}", plain.stderr);
        assert!(
            plain.stdout.lines().any(|l| l.chars().count() > 80),
            "{}",
            plain.stdout
        );
        let fitted = at(&ctx, Some(80), args);
        assert_eq!(fitted.code, Some(0), "{}", fitted.stderr);
        assert_fits(&fitted.stdout, 80);
        let no_marks = |text: &str| -> Vec<String> {
            words(text)
                .into_iter()
                .filter(|w| *w != "#")
                .map(str::to_string)
                .collect()
        };
        assert_eq!(no_marks(&fitted.stdout), no_marks(&plain.stdout));
        ctx.insta_settings().bind(|| {
            insta::assert_snapshot!(format!("{}_canonical_80", args[0]), fitted.stdout);
        });
    }
    // A wrapped comment (`#   ` at a line's start) is in the `resolve_canonical_80` snapshot.
    let resolved = at(&ctx, Some(80), &RESOLVE).stdout;
    for line in resolved.lines() {
        let pin = line
            .split_once("==")
            .is_some_and(|(n, v)| !n.is_empty() && !v.is_empty() && !line.contains(' '));
        assert!(
            line.starts_with('#') || line.starts_with("    #") || pin,
            "{line}"
        );
    }
}

/// `verify --all` of a real venv at 60 columns: its heading (the interpreter's path) and the
/// compile-cache line wrap at words, nothing lost.
#[test]
fn verify_fits_60_columns() {
    let venv = crate::common::venv::clean_venv();
    let ctx = TestContext::new();
    let path = venv.path.display().to_string();
    let args = ["verify", "--venv", &path, "--all"];
    let plain = at(&ctx, None, &args);
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    assert!(
        plain.stdout.lines().any(|l| l.chars().count() > 60),
        "{}",
        plain.stdout
    );
    let fitted = at(&ctx, Some(60), &args);
    assert_eq!(fitted.code, Some(0), "{}", fitted.stderr);
    assert_fits(&fitted.stdout, 60);
    // The same words, the run's seconds (`1.5s:`) left out.
    let untimed = |text: &str| -> Vec<String> {
        words(text)
            .into_iter()
            .filter(|w| {
                !(w.starts_with(|c: char| c.is_ascii_digit())
                    && w.contains('.')
                    && w.trim_end_matches(':').ends_with('s'))
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(untimed(&fitted.stdout), untimed(&plain.stdout));
}

/// tmux, when it is installed: a server of this test's own (`-L`), removed at the end.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn new(name: &str) -> Tmux {
        Tmux {
            socket: format!("planner-{name}-{}", std::process::id()),
        }
    }

    /// `tmux ARGS` on this test's server; its stdout.
    fn run(&self, cwd: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .current_dir(cwd)
            .output()
            .expect("tmux");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Start `planner COMMAND` in a fresh `width`-column window with a cleared environment;
    /// the window prints `[exit N]` when it ends (its shell outlives a Ctrl-C).
    fn start(&self, cwd: &Path, width: usize, command: &str) {
        let planner = env!("CARGO_BIN_EXE_planner");
        let path = std::env::var("PATH").unwrap_or_default();
        let script = format!(
            "trap : INT; env -i PATH='{path}' HOME='{home}' PLANNER_CACHE_DIR='{cache}' NO_COLOR=1 TERM=xterm \
             {planner} {command}; echo \"[exit $?]\"; tmux -L {socket} wait-for -S done; sleep 60",
            home = cwd.join("home").display(),
            cache = cwd.join("cache").display(),
            socket = self.socket,
        );
        let width = width.to_string();
        self.run(
            cwd,
            &[
                "new-session",
                "-d",
                "-s",
                "w",
                "-x",
                &width,
                "-y",
                "50",
                "sh",
                "-c",
                &script,
            ],
        );
        self.run(cwd, &["set-option", "-t", "w", "history-limit", "10000"]);
    }

    /// The screen with its scrollback, trailing blanks trimmed.
    fn capture(&self, cwd: &Path) -> String {
        let screen = self.run(
            cwd,
            &["capture-pane", "-p", "-t", "w", "-S", "-", "-E", "-"],
        );
        let lines: Vec<&str> = screen.lines().map(str::trim_end).collect();
        let end = lines
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i + 1);
        lines[..end].join("\n")
    }

    /// Wait for the command to end, then the screen; the window is closed.
    fn finish(&self, cwd: &Path) -> String {
        self.run(cwd, &["wait-for", "done"]);
        let screen = self.capture(cwd);
        self.run(cwd, &["kill-session", "-t", "w"]);
        screen
    }

    /// Run `planner COMMAND` at `width` columns to its end; the screen.
    fn screen(&self, cwd: &Path, width: usize, command: &str) -> String {
        self.start(cwd, width, command);
        self.finish(cwd)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = std::process::Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// In a real terminal at 80 and 120 columns, propose, outdated, inventory and resolve print
/// what `COLUMNS` gives
/// (the width is the terminal's own), no line wraps on the screen, and the progress line is
/// gone when the command ends.
#[test]
#[ignore = "needs tmux: cargo test --test it terminal_width -- --ignored"]
fn tmux_propose_and_outdated_at_80_and_120_columns() {
    let ctx = context();
    resolve_files(&ctx);
    let resolve = RESOLVE.join(" ");
    let tmux = Tmux::new("width");
    for (name, args) in [
        (
            "propose",
            "propose triton==3.7.0 --allow-override --venv v --index-url x/simple --offline",
        ),
        (
            "outdated",
            "outdated --venv v --index-url x/simple --offline",
        ),
        ("inventory", "inventory --venv v"),
        ("resolve", &resolve),
    ] {
        for width in [80, 120] {
            let screen = tmux.screen(ctx.path(), width, args);
            assert!(screen.ends_with("[exit 0]"), "{screen}");
            assert!(!screen.contains("reading the index"), "{screen}");
            assert!(
                screen.lines().all(|l| l.chars().count() <= width),
                "{screen}"
            );
            let piped = at(&ctx, Some(width), &args.split(' ').collect::<Vec<_>>());
            for line in piped.stdout.lines().filter(|l| !l.trim().is_empty()) {
                assert!(
                    screen.contains(line.trim_end()),
                    "`{line}` not on the screen:\n{screen}"
                );
            }
            ctx.insta_settings().bind(|| {
                insta::assert_snapshot!(format!("tmux_{name}_{width}"), screen);
            });
        }
    }
}

/// A slow index: every request waits `stall` (the progress line is on the screen meanwhile).
fn slow_index(stall: Duration) -> IndexServer {
    let server = IndexServer::recorded();
    server.fault("/", Fault::Stall(stall));
    server
}

/// Wait (up to a minute) until the screen shows `text`.
fn wait_for_screen(tmux: &Tmux, cwd: &Path, text: &str) -> String {
    let start = Instant::now();
    loop {
        let screen = tmux.capture(cwd);
        if screen.contains(text) || start.elapsed() > Duration::from_secs(60) {
            return screen;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// In a terminal, the progress line counts what is done so far (no total that grows with
/// it), and is gone when a run fails after it began reading the index, and when Ctrl-C ends a
/// run in the middle of it.
#[test]
#[ignore = "needs tmux: cargo test --test it terminal_width -- --ignored"]
fn tmux_progress_is_honest_and_cleared_on_failure_and_ctrl_c() {
    let ctx = context();
    let server = slow_index(Duration::from_millis(300));
    let tmux = Tmux::new("progress");
    let command = format!(
        "propose no-such-project --venv v --index-url {}",
        server.url()
    );
    tmux.start(ctx.path(), 100, &command);
    let during = wait_for_screen(&tmux, ctx.path(), "reading the index");
    assert!(during.contains("fetched so far"), "{during}");
    let failed = tmux.finish(ctx.path());
    assert!(failed.ends_with("[exit 1]"), "{failed}");
    assert!(failed.contains("No plan found."), "{failed}");
    assert!(!failed.contains("reading the index"), "{failed}");
    // Ctrl-C while the line is up.
    let server = slow_index(Duration::from_secs(5));
    let command = format!("propose numpy --venv v --index-url {}", server.url());
    tmux.start(ctx.path(), 100, &command);
    let during = wait_for_screen(&tmux, ctx.path(), "reading the index");
    assert!(during.contains("in flight"), "{during}");
    tmux.run(ctx.path(), &["send-keys", "-t", "w", "C-c"]);
    let interrupted = tmux.finish(ctx.path());
    assert!(interrupted.ends_with("[exit 130]"), "{interrupted}");
    assert!(!interrupted.contains("reading the index"), "{interrupted}");
}
