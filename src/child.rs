//! The one runner of short helper processes (the `keyring` command, the interpreter probe,
//! `verify.py`): each in a process group of its own, ended with all its descendants at its
//! deadline, its output read up to a cap.
//!
//! In: a [`Command`] (its program and arguments set), a deadline and a byte cap per stream. Out:
//! a [`Finished`]: how it ended, the last `cap` bytes of its stdout and the last MiB of its
//! stderr (each stream is drained to its end, so a chatty child never blocks on a full pipe;
//! a stdout cut short says so). A child that leaves a grandchild holding its pipes cannot hold
//! planner past the deadline: when the child ends (or the deadline passes, or an interrupt
//! arrives) its whole group is killed, and output still unread once the pipes' readers have
//! had until the deadline is given up. The groups alive are tracked by
//! [`crate::interrupt`], so that an interrupt that ends planner ends them too.

use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// The end of stderr kept (callers show its last lines).
const STDERR_CAP: u64 = 1024 * 1024;

/// How a child ended.
#[derive(Debug)]
pub(crate) struct Finished {
    /// Its exit status (`None`: killed at the deadline, or on an interrupt).
    pub status: Option<ExitStatus>,
    /// The last `cap` bytes of its stdout.
    pub stdout: Vec<u8>,
    /// The last `cap` bytes of its stderr.
    pub stderr: Vec<u8>,
    /// Whether stdout held more than `cap` bytes (only its end is kept).
    pub stdout_cut: bool,
}

/// Run `command` (stdin closed) to its end or `deadline`, in a process group of its own; keep
/// the last `cap` bytes of each output stream.
pub(crate) fn run(
    command: &mut Command,
    deadline: Duration,
    cap: u64,
) -> std::io::Result<Finished> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = command.spawn()?;
    let group = i32::try_from(child.id()).unwrap_or(i32::MAX);
    crate::interrupt::track_group(group);
    let (done, finished) = mpsc::channel();
    let stdout = reader(
        child.stdout.take().map(|p| Box::new(p) as _),
        cap,
        done.clone(),
    );
    let stderr = reader(
        child.stderr.take().map(|p| Box::new(p) as _),
        STDERR_CAP.min(cap),
        done,
    );
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if started.elapsed() >= deadline || crate::interrupt::pending() {
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // Whatever the child left running (a grandchild holding the pipes) ends with it.
    crate::interrupt::kill_group(group);
    if status.is_none() {
        let _ = child.wait();
    }
    crate::interrupt::untrack_group(group);
    // The pipes close once every holder is dead; a holder that left the group is not waited
    // for past the deadline.
    for _ in 0..2 {
        let left = deadline
            .saturating_sub(started.elapsed())
            .max(Duration::from_millis(50));
        if finished.recv_timeout(left).is_err() {
            break;
        }
    }
    let take = |buf: &Arc<Mutex<Tail>>| {
        let mut tail = std::mem::take(&mut *buf.lock().unwrap_or_else(|e| e.into_inner()));
        let cut = tail.cut || tail.bytes.len() as u64 > cap;
        let extra = tail
            .bytes
            .len()
            .saturating_sub(usize::try_from(cap).unwrap_or(usize::MAX));
        tail.bytes.drain(..extra);
        (tail.bytes, cut)
    };
    let (stdout, stdout_cut) = take(&stdout);
    Ok(Finished {
        status,
        stdout,
        stderr: take(&stderr).0,
        stdout_cut,
    })
}

/// The end of a stream read so far.
#[derive(Debug, Default)]
struct Tail {
    bytes: Vec<u8>,
    /// Bytes were dropped from the front.
    cut: bool,
}

/// A thread reading `pipe` to its end into a shared buffer that keeps its last `cap` bytes
/// (at most twice that in memory); says on `done` when the pipe has closed.
fn reader(
    pipe: Option<Box<dyn std::io::Read + Send>>,
    cap: u64,
    done: mpsc::Sender<()>,
) -> Arc<Mutex<Tail>> {
    let buf = Arc::new(Mutex::new(Tail::default()));
    let out = Arc::clone(&buf);
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);
    std::thread::spawn(move || {
        if let Some(mut pipe) = pipe {
            let mut block = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut block) {
                if n == 0 {
                    break;
                }
                let mut tail = out.lock().unwrap_or_else(|e| e.into_inner());
                tail.bytes.extend_from_slice(&block[..n]);
                if tail.bytes.len() > cap.saturating_mul(2).max(1 << 16) {
                    let extra = tail.bytes.len() - cap;
                    tail.bytes.drain(..extra);
                    tail.cut = true;
                }
            }
        }
        let _ = done.send(());
    });
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child that leaves a grandchild holding its pipes (a `keyring` backend, a `.pth` that
    /// starts a daemon) once held planner for the grandchild's whole life (200 s against a
    /// 30 s cap): the child's end ends its group, and the output is what the child wrote.
    #[test]
    fn a_grandchild_holding_the_pipes_does_not_hold_the_parent() {
        let started = Instant::now();
        let mut command = Command::new("sh");
        command.args(["-c", "echo answer; (sleep 30; echo late) & exit 0"]);
        let finished = run(&mut command, Duration::from_secs(20), 1024).unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(String::from_utf8_lossy(&finished.stdout), "answer\n");
        assert!(finished.status.unwrap().success());
    }

    /// A child past its deadline is killed with its descendants; output past the cap is not
    /// kept.
    #[test]
    fn a_child_past_its_deadline_is_killed_with_its_group() {
        let started = Instant::now();
        let mut command = Command::new("sh");
        command.args(["-c", "yes | head -c 100000; sh -c 'sleep 30' & sleep 30"]);
        let finished = run(&mut command, Duration::from_millis(500), 1000).unwrap();
        assert!(finished.status.is_none());
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(finished.stdout.len(), 1000);
        assert!(finished.stdout_cut);
    }
}
