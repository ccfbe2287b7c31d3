//! All output goes through a [`Printer`]: data to stdout, diagnostics to stderr.
//!
//! A broken pipe on stdout (`planner inventory | head`) is not an error: writes after it are
//! dropped silently, as ripgrep and uv do.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{self, IsTerminal, Write};

/// Where the command's output goes and how loud it is.
#[derive(Debug, Clone, Copy)]
pub struct Printer {
    quiet: bool,
    color: bool,
}

impl Printer {
    /// A printer; `quiet` silences warnings and progress (data on stdout is still written).
    pub fn new(quiet: bool) -> Self {
        let color =
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stdout().is_terminal();
        Printer { quiet, color }
    }

    /// Whether stdout is a terminal that accepts colour (`NO_COLOR` respected).
    pub fn color(&self) -> bool {
        self.color
    }

    /// Whether warnings and progress are silenced.
    pub fn quiet(&self) -> bool {
        self.quiet
    }

    /// Whether a progress bar may be drawn on stderr (not under `-v`: it would garble the log).
    pub fn progress(&self) -> bool {
        !self.quiet && !crate::logging::verbose() && io::stderr().is_terminal()
    }

    /// Write data to stdout. A closed pipe is ignored.
    pub fn out(&self, text: &str) {
        let mut stdout = io::stdout().lock();
        let _ = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush());
    }

    /// A warning on stderr, unless quiet.
    pub fn warn(&self, text: &str) {
        if !self.quiet {
            let prefix = if io::stderr().is_terminal() && self.color {
                "\u{1b}[33mwarning\u{1b}[0m"
            } else {
                "warning"
            };
            eprintln!("{prefix}: {}", crate::terminal::escape(text));
        }
    }

    /// A note on stderr, unless quiet.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            eprintln!("{}", crate::terminal::escape(text));
        }
    }
}
