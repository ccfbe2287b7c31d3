//! `--keyring-provider subprocess`: credentials from the `keyring` command, asked the way pip
//! and uv ask it.
//!
//! In: an index URL (no password in it) and the user name its userinfo gives, if any. Out: a
//! user name and password (registered with [`crate::logging`] for masking), or `None` when
//! `keyring` is missing, fails or knows nothing.
//!
//! The protocol (pip's `KeyRingCliProvider`, uv's `fetch_subprocess`): `keyring get SERVICE
//! USERNAME` prints the password; without a user name, `keyring get SERVICE --mode creds` (keyring
//! 25.2 and later) prints the user name and the password on two lines. SERVICE is the index URL
//! first, then its `host[:port]`. The command runs with stdin closed and at most [`TIMEOUT`] (a
//! keyring waiting for a GUI unlock must not hang a CI run); at most [`MAX_OUTPUT`] bytes of its
//! output are read; its stdout is never logged, its stderr only redacted under `-v`.

use std::process::{Command, Output};
use std::time::Duration;

use url::Url;

/// How long one `keyring get` may take.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(30);

/// How much of its stdout and stderr is read.
pub(crate) const MAX_OUTPUT: u64 = 64 * 1024;

/// Which keyring provider to ask.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum KeyringProvider {
    /// Never ask a keyring (the default, as in pip and uv).
    #[default]
    Disabled,
    /// Run the `keyring` command found on PATH.
    Subprocess,
}

/// Credentials for `index` (its URL without userinfo and its user name, if any) from the
/// `keyring` command: the URL as the service first, then its host.
pub(crate) fn fetch(index: &Url, username: Option<&str>) -> Option<(String, String)> {
    let host = index.host_str()?;
    let host = match index.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    };
    [index.as_str(), host.as_str()]
        .into_iter()
        .find_map(|service| ask(service, username))
}

/// One `keyring get` call.
fn ask(service: &str, username: Option<&str>) -> Option<(String, String)> {
    let mut command = Command::new("keyring");
    command.arg("get").arg(service);
    match username {
        Some(user) => command.arg(user),
        None => command.args(["--mode", "creds"]),
    };
    let output = match run_bounded(&mut command) {
        Ok(output) => output,
        Err(err) => {
            log::debug!("keyring: cannot run `keyring` ({err})");
            return None;
        }
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        log::debug!(
            "keyring get {service}: no credentials ({}{})",
            output.status,
            if stderr.trim().is_empty() {
                String::new()
            } else {
                format!(": {}", crate::logging::redact_text(stderr.trim(), &[]))
            }
        );
        return None;
    }
    let stdout = String::from_utf8(output.stdout).ok()?;
    let credentials = parse(&stdout, username)?;
    crate::logging::register_secret(&credentials.0);
    crate::logging::register_secret(&credentials.1);
    log::debug!(
        "keyring get {service}: credentials for {}",
        if username.is_some() {
            "the user in the URL"
        } else {
            "the user keyring names"
        }
    );
    Some(credentials)
}

/// Run `command` with stdin closed, its whole process group killed after [`TIMEOUT`]; an answer
/// over [`MAX_OUTPUT`] bytes is refused.
fn run_bounded(command: &mut Command) -> std::io::Result<Output> {
    let finished = crate::child::run(command, TIMEOUT, MAX_OUTPUT)?;
    if finished.stdout_cut {
        return Err(std::io::Error::other(format!(
            "`keyring` wrote more than {MAX_OUTPUT} bytes"
        )));
    }
    let Some(status) = finished.status else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!("`keyring` did not answer within {}s", TIMEOUT.as_secs()),
        ));
    };
    Ok(Output {
        status,
        stdout: finished.stdout,
        stderr: finished.stderr,
    })
}

/// `keyring get`'s output: the password alone (a user name was given), else the user name and
/// the password on two lines.
fn parse(stdout: &str, username: Option<&str>) -> Option<(String, String)> {
    let (username, password) = match username {
        Some(user) => (user, stdout.trim_end_matches(['\n', '\r'])),
        None => {
            let mut lines = stdout.lines();
            (lines.next()?, lines.next()?)
        }
    };
    if username.is_empty() && password.is_empty() {
        return None;
    }
    Some((username.to_string(), password.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_a_password_or_two_lines() {
        let c = parse("s3cret\n", Some("alice")).unwrap();
        assert_eq!(c, ("alice".to_string(), "s3cret".to_string()));
        let c = parse("bob\nt0ken\n", None).unwrap();
        assert_eq!(c, ("bob".to_string(), "t0ken".to_string()));
        assert!(parse("bob\n", None).is_none());
        assert!(parse("", None).is_none());
    }
}
