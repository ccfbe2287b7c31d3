//! One child process of a trial (an install step, a `--test` command), run in the copy.
//!
//! In: the argv (or a shell command line), the copy to activate, and the interrupt flag. Out: a
//! [`Ran`]: exit code, seconds, the end of its output. The child runs in a process group of its
//! own, its stdout and stderr go to one temp file, and the parent polls it: on an interrupt the
//! whole group is killed, so nothing keeps running in a copy about to be removed; so it is when
//! a deadline ([`run_shell_within`], `planner bisect --timeout`) passes.

use std::io::{Read as _, Seek as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::interrupt::Critical;
use crate::verify::caches::CacheMode;

/// Lines of output kept for the report.
const TAIL_LINES: usize = 12;
/// The bytes of output read back for them (the end of the log).
const TAIL_BYTES: u64 = 64 * 1024;

/// How one child ended.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Ran {
    /// Its exit code (`None`: killed by a signal, or interrupted).
    pub exit: Option<i32>,
    /// Wall seconds.
    pub seconds: f64,
    /// The last lines of its stdout and stderr.
    pub tail: String,
    /// Ended because the run was interrupted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// Killed because it ran past its deadline.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
}

impl Ran {
    /// Exit 0.
    pub(crate) fn ok(&self) -> bool {
        self.exit == Some(0)
    }

    /// "exit 1", "killed by a signal".
    pub(crate) fn status_text(&self) -> String {
        match self.exit {
            Some(0) => "passed".to_string(),
            Some(code) => format!("exit {code}"),
            None if self.interrupted => "interrupted".to_string(),
            None if self.timed_out => format!("timed out after {:.0}s", self.seconds),
            None => "killed by a signal".to_string(),
        }
    }
}

/// Run `argv` with `venv` activated, its `TMPDIR` a fresh folder of its own, removed when it
/// ends: an installer killed by Ctrl-C (pip's `pip-unpack-*`, `pip-build-tracker-*`) leaves
/// nothing in the user's temp folder.
pub(crate) fn run_argv(argv: &[String], venv: &Path, critical: &Critical) -> std::io::Result<Ran> {
    let (program, args) = argv
        .split_first()
        .ok_or_else(|| std::io::Error::other("an empty command"))?;
    let tmp = crate::interrupt::Scratch::new("planner-try-tmp-")?;
    let mut command = Command::new(program);
    command.args(args).env("TMPDIR", tmp.path());
    spawn_and_wait(command, venv, critical, None)
}

/// Run a shell command line (`sh -c`) with `venv` activated; with [`CacheMode::Private`], its
/// compile caches in fresh folders of its own, removed when it ends.
pub(crate) fn run_shell(
    line: &str,
    venv: &Path,
    critical: &Critical,
    caches: CacheMode,
) -> std::io::Result<Ran> {
    let mut command = Command::new("sh");
    command.arg("-c").arg(line);
    if caches == CacheMode::Warm {
        return spawn_and_wait(command, venv, critical, None);
    }
    let root = crate::interrupt::Scratch::new("planner-try-caches-")?;
    crate::verify::caches::isolate(&mut command, root.path())?;
    spawn_and_wait(command, venv, critical, None)
}

/// [`run_shell`], its process group killed once `timeout` has passed (`timed_out` set).
pub(crate) fn run_shell_within(
    line: &str,
    venv: &Path,
    critical: &Critical,
    timeout: Option<Duration>,
) -> std::io::Result<Ran> {
    let mut command = Command::new("sh");
    command.arg("-c").arg(line);
    spawn_and_wait(command, venv, critical, timeout)
}

fn spawn_and_wait(
    mut command: Command,
    venv: &Path,
    critical: &Critical,
    timeout: Option<Duration>,
) -> std::io::Result<Ran> {
    use std::os::unix::process::CommandExt as _;
    crate::verify::run::activate(&mut command, venv);
    let mut log = tempfile::tempfile()?;
    command
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("PIP_NO_INPUT", "1")
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log.try_clone()?)
        .process_group(0);
    let started = Instant::now();
    let mut child = command.spawn()?;
    let group = child.id();
    let (exit, interrupted, timed_out) = loop {
        if let Some(status) = child.try_wait()? {
            break (status.code(), false, false);
        }
        if critical.interrupted() {
            kill_group(group);
            let _ = child.wait();
            break (None, true, false);
        }
        if timeout.is_some_and(|limit| started.elapsed() >= limit) {
            kill_group(group);
            let _ = child.wait();
            break (None, false, true);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let seconds = started.elapsed().as_secs_f64();
    // Only the end is read: a chatty test can write gigabytes.
    let len = log.seek(std::io::SeekFrom::End(0))?;
    log.seek(std::io::SeekFrom::Start(len.saturating_sub(TAIL_BYTES)))?;
    let mut bytes = Vec::new();
    log.take(TAIL_BYTES).read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n");
    Ok(Ran {
        exit,
        seconds,
        tail,
        interrupted,
        timed_out,
    })
}

/// SIGKILL a process group.
fn kill_group(group: u32) {
    if let Ok(pid) = i32::try_from(group) {
        crate::interrupt::kill_group(pid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chatty test's output was read back whole into memory (2 GB once); only its end is
    /// read now, and the report keeps its last lines.
    #[test]
    fn only_the_end_of_a_chatty_childs_output_is_read() {
        let venv = tempfile::tempdir().unwrap();
        let critical = Critical::enter();
        let line = "head -c 300000 /dev/zero | tr '\\0' x; echo; echo last";
        let ran = run_shell(line, venv.path(), &critical, CacheMode::Warm).unwrap();
        drop(critical);
        assert!(ran.ok(), "{ran:?}");
        assert!(
            ran.tail.ends_with("last"),
            "{}",
            &ran.tail[ran.tail.len() - 20..]
        );
        assert!(
            ran.tail.len() as u64 <= TAIL_BYTES,
            "{} bytes kept",
            ran.tail.len()
        );
    }

    /// A `try` test command compiles into fresh empty cache folders of its own, removed when it
    /// ends, whatever the user's environment names; two runs never share one.
    #[test]
    fn a_test_command_gets_private_empty_compile_caches() {
        let venv = tempfile::tempdir().unwrap();
        let critical = Critical::enter();
        let line = "for v in TORCHINDUCTOR_CACHE_DIR TRITON_CACHE_DIR JAX_COMPILATION_CACHE_DIR \
                    CUPY_CACHE_DIR; do d=$(printenv $v); [ -d \"$d\" ] && [ -z \"$(ls -A \"$d\")\" ] \
                    || exit 3; echo \"$v=$d\"; done; echo \"F=$TORCHINDUCTOR_FORCE_DISABLE_CACHES\"";
        let first = run_shell(line, venv.path(), &critical, CacheMode::Private).unwrap();
        let second = run_shell(line, venv.path(), &critical, CacheMode::Private).unwrap();
        drop(critical);
        assert!(first.ok() && second.ok(), "{first:?} {second:?}");
        assert!(first.tail.ends_with("F=1"), "{}", first.tail);
        let dirs = |ran: &Ran| -> Vec<String> {
            ran.tail
                .lines()
                .filter_map(|l| l.split_once('=').map(|(_, d)| d.to_string()))
                .filter(|d| d.starts_with('/'))
                .collect()
        };
        assert_eq!(dirs(&first).len(), 4, "{}", first.tail);
        for (a, b) in dirs(&first).iter().zip(dirs(&second).iter()) {
            assert_ne!(a, b);
            assert!(!Path::new(a).exists(), "{a} left behind");
        }
    }
}
