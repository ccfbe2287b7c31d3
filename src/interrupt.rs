//! Ctrl-C (SIGINT) and SIGTERM: exit 130 at once, except while output files are being written.
//!
//! In: the signals, after [`install`]. Out: the process exits 130 (as shells report a SIGINT),
//! or, inside a [`Critical`] section, the section learns of the interrupt, throws away what it
//! staged, and the command exits 130 with the previous files intact (reliability item 30).
//!
//! Nothing else needs to clean up: cache entries and output files are written to a temp file
//! and renamed, so an exit at any other point leaves either the old or the new file, never half
//! of one. The one exception is a [`Scratch`] folder a helper child works in (its compile
//! caches can take gigabytes): it is removed on the way out, after the child is killed.

use std::sync::atomic::{AtomicU8, Ordering};

use crate::env_vars::EnvVars;

mod tree;

/// The exit code after an interrupt (128 + SIGINT).
pub(crate) const EXIT_CODE: u8 = 130;

const RUNNING: u8 = 0;
const CRITICAL: u8 = 1;
const INTERRUPTED: u8 = 2;
const EXITING: u8 = 3;

static STATE: AtomicU8 = AtomicU8::new(RUNNING);

/// Handle SIGINT and SIGTERM on a thread of their own. Call once, first thing in `main`.
pub fn install() {
    let Ok(mut signals) = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
    ]) else {
        // Without a handler the default applies: the signal ends the process.
        return;
    };
    std::thread::spawn(move || {
        for _ in signals.forever() {
            on_signal();
        }
    });
}

/// Erase stderr's current line when it is a terminal: the only line planner leaves unfinished
/// there is the progress line, which must not outlive the process under the shell's prompt.
fn clear_progress_line() {
    use std::io::{IsTerminal, Write};
    let mut stderr = std::io::stderr();
    if stderr.is_terminal() {
        let _ = stderr.write_all(b"\r\x1b[2K");
        let _ = stderr.flush();
    }
}

#[allow(clippy::exit)]
fn on_signal() {
    loop {
        match STATE.compare_exchange(RUNNING, EXITING, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => {
                // Helper children run in groups of their own: the terminal's signal missed them.
                kill_tracked();
                clear_progress_line();
                std::process::exit(i32::from(EXIT_CODE))
            }
            Err(CRITICAL) => {
                if STATE
                    .compare_exchange(CRITICAL, INTERRUPTED, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
                {
                    return;
                }
            }
            // Already interrupted or exiting.
            Err(_) => return,
        }
    }
}

/// A section that must not be cut short (writing a set of output files). While one is held, an
/// interrupt is recorded instead of acted on; the holder checks [`Critical::interrupted`] and
/// rolls back. Dropping it exits 130 if an interrupt arrived after the last check.
#[derive(Debug)]
pub(crate) struct Critical(());

impl Critical {
    /// Enter the section. If an interrupt is already ending the process, this never returns.
    pub(crate) fn enter() -> Critical {
        while STATE
            .compare_exchange(RUNNING, CRITICAL, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            // Another section is held (the planner writes from one thread, so this is the
            // process exiting): wait for it.
            std::thread::park_timeout(std::time::Duration::from_millis(10));
        }
        Critical(())
    }

    /// Whether an interrupt arrived since the section was entered.
    pub(crate) fn interrupted(&self) -> bool {
        STATE.load(Ordering::SeqCst) == INTERRUPTED
    }
}

impl Drop for Critical {
    #[allow(clippy::exit)]
    fn drop(&mut self) {
        if STATE.swap(RUNNING, Ordering::SeqCst) == INTERRUPTED {
            STATE.store(EXITING, Ordering::SeqCst);
            kill_tracked();
            clear_progress_line();
            std::process::exit(i32::from(EXIT_CODE));
        }
    }
}

/// Whether an interrupt has arrived that a critical section has not yet acted on: a helper
/// child in a process group of its own ([`crate::child`]) is killed then, as the terminal's
/// signal would have killed it in planner's group.
pub(crate) fn pending() -> bool {
    STATE.load(Ordering::SeqCst) >= INTERRUPTED
}

/// The process groups of helper children running now ([`crate::child`]).
static GROUPS: std::sync::Mutex<Vec<i32>> = std::sync::Mutex::new(Vec::new());

fn groups() -> std::sync::MutexGuard<'static, Vec<i32>> {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A child's process group to kill if planner ends on an interrupt.
pub(crate) fn track_group(group: i32) {
    groups().push(group);
}

/// The group ended.
pub(crate) fn untrack_group(group: i32) {
    groups().retain(|g| *g != group);
}

/// SIGKILL a process group and the groups its members started below it (the verification
/// script runs each check in a session of its own). Each group found is stopped first, so none
/// starts another between the reading of `/proc` and the kill.
pub(crate) fn kill_group(group: i32) {
    if group <= 1 {
        return;
    }
    signal_group(group, libc::SIGSTOP);
    let mut below = std::collections::BTreeSet::new();
    // A process started while its parent was being stopped shows on the next reading.
    for _ in 0..4 {
        let new: Vec<i32> = tree::groups_below(group)
            .into_iter()
            .filter(|g| below.insert(*g))
            .collect();
        if new.is_empty() {
            break;
        }
        for g in new {
            signal_group(g, libc::SIGSTOP);
        }
    }
    signal_group(group, libc::SIGKILL);
    for g in below {
        signal_group(g, libc::SIGKILL);
    }
}

#[allow(unsafe_code)] // the unsafe call is explained by its SAFETY comment
fn signal_group(group: i32, signal: i32) {
    if group > 1 {
        // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
        unsafe {
            libc::kill(-group, signal);
        }
    }
}

/// Kill every tracked group (planner is ending on an interrupt), then remove the scratch
/// folders they worked in.
fn kill_tracked() {
    for group in groups().iter() {
        kill_group(*group);
    }
    for path in scratch_paths().drain(..) {
        let _ = std::fs::remove_dir_all(path);
    }
}

/// The [`Scratch`] folders alive now.
static SCRATCH: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

fn scratch_paths() -> std::sync::MutexGuard<'static, Vec<std::path::PathBuf>> {
    SCRATCH.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fresh folder in `$TMPDIR` for a helper child to work in, removed when dropped and, when
/// planner ends on an interrupt, after the child is killed (a killed child cleans up nothing).
#[derive(Debug)]
pub(crate) struct Scratch(tempfile::TempDir);

impl Scratch {
    /// Make one named `{prefix}*`.
    pub(crate) fn new(prefix: &str) -> std::io::Result<Scratch> {
        let dir = tempfile::Builder::new().prefix(prefix).tempdir()?;
        scratch_paths().push(dir.path().to_path_buf());
        Ok(Scratch(dir))
    }

    /// Where it is.
    pub(crate) fn path(&self) -> &std::path::Path {
        self.0.path()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        scratch_paths().retain(|p| p != self.0.path());
    }
}

/// Slow each staged output file down by `PLANNER_TEST_WRITE_DELAY_MS` milliseconds, so tests can
/// interrupt a run while it writes. Debug builds only; release builds ignore the variable.
pub(crate) fn test_write_delay() {
    if cfg!(debug_assertions)
        && let Some(ms) = EnvVars::process()
            .get("PLANNER_TEST_WRITE_DELAY_MS")
            .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}
