//! The one logging facade: `-v` / `-vv` diagnostics on stderr through the `log` crate.
//!
//! In: the verbosity the settings layer resolved (`-q` or none: off; `-v`: planner's `debug!`;
//! `-vv`: planner's `trace!` and its libraries' `info!`; `-vvv`: everything), and the secrets
//! the index layer learns ([`register_secret`]: index URL userinfo, netrc, keyring). Out: one
//! line per record on stderr, `  0.012s DEBUG index::cache: ...`, with every registered secret
//! and every URL's userinfo masked ([`redact_text`]) and control characters escaped
//! ([`crate::terminal::escape`]).
//!
//! Why `log` and not `tracing`: `log` is already in the tree (pubgrub, reqwest and rustls log
//! through it, so `-vv` shows their records too at no cost), and planner needs levels and a
//! stderr line, not spans or subscribers; `tracing-subscriber` would add a dozen crates to a
//! build CI gives 90 minutes on 2 cores.
//!
//! Code logs with the plain macros: `log::debug!("read {}", path.display())`. A stage's timing
//! is [`Stage`]: `let _t = logging::Stage::start("solve");` logs the elapsed time when dropped.

use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use log::{Level, LevelFilter, Log, Metadata, Record};

/// How much is logged: 0 off, 1 `-v`, 2 `-vv`, 3 or more `-vvv`.
static VERBOSITY: AtomicU8 = AtomicU8::new(0);
/// Secrets to mask in every line (at least 4 characters each, so no common word is masked).
static SECRETS: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// When the logger started (line times are relative to it).
static START: OnceLock<Instant> = OnceLock::new();

struct StderrLogger;

static LOGGER: StderrLogger = StderrLogger;

/// Start logging at `verbosity` (0 off, 1 `-v`, 2 `-vv`, 3+ `-vvv`). `quiet` wins over any
/// verbosity. Calling it again only changes the verbosity.
pub(crate) fn init(verbosity: u8, quiet: bool) {
    let verbosity = if quiet { 0 } else { verbosity };
    START.get_or_init(Instant::now);
    VERBOSITY.store(verbosity, Ordering::Relaxed);
    // A second call (tests run several commands in one process) keeps the installed logger.
    let _ = log::set_logger(&LOGGER);
    log::set_max_level(match verbosity {
        0 => LevelFilter::Off,
        1 => LevelFilter::Debug,
        _ => LevelFilter::Trace,
    });
}

/// Whether `-v` or more is in effect (progress bars stay off then: they would garble the lines).
pub(crate) fn verbose() -> bool {
    VERBOSITY.load(Ordering::Relaxed) > 0
}

/// Mask `secret` in every later log line (and in [`redact_text`] output). Short values (under 4
/// characters) are ignored: masking every `a` would wreck the lines and protect nothing.
pub(crate) fn register_secret(secret: &str) {
    if secret.len() < 4 {
        return;
    }
    let mut secrets = SECRETS.lock().unwrap_or_else(|e| e.into_inner());
    if !secrets.iter().any(|s| s == secret) {
        secrets.push(secret.to_string());
    }
}

/// `text` with each of `secrets` and each registered secret replaced by `****`, and the
/// userinfo of every URL in it (`scheme://user:pass@host`) masked. For free text that may echo a
/// URL or a credential: library error messages, log lines.
pub(crate) fn redact_text(text: &str, secrets: &[&str]) -> String {
    let mut out = mask_userinfo(text);
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        out = out.replace(secret, "****");
    }
    let registered = SECRETS.lock().unwrap_or_else(|e| e.into_inner());
    for secret in registered.iter() {
        out = out.replace(secret.as_str(), "****");
    }
    out
}

/// Every `scheme://userinfo@` in `text` written as `scheme://****@`.
fn mask_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        // The authority runs to the first of / ? # or whitespace; userinfo ends at its last @.
        let end = tail
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>') || c.is_whitespace()
            })
            .unwrap_or(tail.len());
        match tail[..end].rfind('@') {
            Some(userinfo_end) => {
                out.push_str("****");
                rest = &tail[userinfo_end..];
            }
            None => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

impl Log for StderrLogger {
    fn enabled(&self, metadata: &Metadata) -> bool {
        let verbosity = VERBOSITY.load(Ordering::Relaxed);
        let ours = metadata.target().starts_with("planner");
        let most = match (verbosity, ours) {
            (0, _) => return false,
            (1, true) => Level::Debug,
            (1, false) => return false,
            (2, true) => Level::Trace,
            (2, false) => Level::Info,
            _ => Level::Trace,
        };
        metadata.level() <= most
    }

    fn log(&self, record: &Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let elapsed = START.get_or_init(Instant::now).elapsed().as_secs_f64();
        let target = record.target();
        let target = target.strip_prefix("planner::").unwrap_or(target);
        let message = redact_text(&record.args().to_string(), &[]);
        let line = format!(
            "{elapsed:>8.3}s {:<5} {target}: {}\n",
            record.level(),
            crate::terminal::escape(&message)
        );
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }

    fn flush(&self) {
        let _ = std::io::stderr().flush();
    }
}

/// A stage's wall time, logged at `debug` when dropped: `stage inventory took 0.084s`.
#[must_use = "the stage is timed until this value is dropped"]
pub(crate) struct Stage {
    name: &'static str,
    start: Instant,
}

impl Stage {
    /// Start timing `name`.
    pub(crate) fn start(name: &'static str) -> Stage {
        log::debug!(target: "planner::stage", "{name} ...");
        Stage {
            name,
            start: Instant::now(),
        }
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        log::debug!(
            target: "planner::stage",
            "{} took {:.3}s",
            self.name,
            self.start.elapsed().as_secs_f64()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_is_masked_in_free_text() {
        assert_eq!(
            mask_userinfo("GET https://alice:s3cret@pkgs.example/simple/x/ failed"),
            "GET https://****@pkgs.example/simple/x/ failed"
        );
        assert_eq!(
            mask_userinfo("token-only http://t0k3n@h:8080 and file:///a@b/c"),
            "token-only http://****@h:8080 and file:///a@b/c"
        );
        assert_eq!(mask_userinfo("no url, a@b"), "no url, a@b");
        assert_eq!(mask_userinfo("trailing ://"), "trailing ://");
    }

    #[test]
    fn registered_and_given_secrets_are_masked() {
        register_secret("hunter2-canary");
        register_secret("ab");
        let text = redact_text("pw hunter2-canary tok other-secret ab", &["other-secret"]);
        assert_eq!(text, "pw **** tok **** ab");
    }
}
