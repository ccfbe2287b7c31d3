//! Digests and times of files on disk, and the pool that computes them on every core.
//!
//! In: paths of regular files. Out: sha256 digests as `RECORD` writes them (urlsafe base64
//! without padding), modification times in whole seconds, and [`in_parallel`] to run either
//! over many files.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine;
use sha2::{Digest, Sha256};

/// A file's modification time, RFC 3339 in whole seconds (as the snapshot script writes it).
pub(crate) fn modified(meta: &std::fs::Metadata) -> Option<String> {
    meta.modified()
        .ok()
        .and_then(|t| jiff::Timestamp::try_from(t).ok())
        .and_then(|t| jiff::Timestamp::from_second(t.as_second()).ok())
        .map(|t| t.to_string())
}

/// The sha256 of a regular file, streamed (never held in memory), as `RECORD` writes digests.
pub(crate) fn sha256_of(path: &Path) -> Option<String> {
    let mut file = crate::bounded::open_regular(path).ok()?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buffer[..n]),
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(hasher.finalize()))
}

/// `f` over `items` on every core, results in the items' order.
pub(crate) fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    in_parallel_on(cores, items, f)
}

/// `f` over `items` on at most `threads` threads (at least one), results in the items' order.
pub(crate) fn in_parallel_on<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.min(items.len()).max(1);
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            match worker.join() {
                Ok(done) => done.into_iter().for_each(|(i, r)| slots[i] = Some(r)),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    slots.into_iter().flatten().collect()
}
