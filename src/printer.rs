//! All output goes through a [`Printer`]: data to stdout, diagnostics to stderr.
//!
//! A broken pipe on stdout (`planner inventory | head`) or on stderr (`planner propose … 2>&1 |
//! head`) is not an error: writes after it are dropped silently, as ripgrep and uv do (stderr's
//! once panicked in `eprintln!`, exit 101).
//!
//! Colour: [`ColorChoice`] is decided once by the settings layer (`--color`, then NO_COLOR,
//! FORCE_COLOR and CLICOLOR_FORCE); `auto` colours only a terminal. Renderers get one bool and
//! paint with [`anstyle`] styles ([`paint`]) after padding, so alignment never counts escape
//! codes.
//!
//! Width: `COLUMNS` when it holds a number (at least [`NARROWEST_TERMINAL`]), else the
//! terminal's own width when the stream is one ([`terminal_size`]), else none: output piped
//! to a file or another program is not wrapped unless `COLUMNS` asks. Renderers fit their text
//! to [`Printer::width`] with [`crate::terminal::fit`]; warnings and notes are fitted to
//! stderr's.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{self, IsTerminal, Write};

/// When output is coloured (`--color`, resolved with the environment by the settings layer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ColorChoice {
    /// Colour a stream that is a terminal.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    /// Whether a stream that is (or is not) a terminal is coloured.
    pub(crate) fn colors(self, is_terminal: bool) -> bool {
        match self {
            ColorChoice::Auto => is_terminal,
            ColorChoice::Always => true,
            ColorChoice::Never => false,
        }
    }
}

/// `text` in `style` when `color`, else as it is. Pad before painting: the escape codes this
/// adds have no width on a terminal but count in `format!`'s padding.
pub(crate) fn paint(color: bool, style: anstyle::Style, text: &str) -> String {
    if color {
        format!("{}{text}{}", style.render(), style.render_reset())
    } else {
        text.to_string()
    }
}

/// Where the command's output goes and how loud it is.
#[derive(Debug, Clone, Copy)]
pub struct Printer {
    quiet: bool,
    color: bool,
    color_err: bool,
    width: Option<usize>,
    width_err: Option<usize>,
}

/// The narrowest width planner wraps to: a smaller `COLUMNS` counts as this.
pub(crate) const NARROWEST_TERMINAL: usize = 40;

/// The width to fit a stream to: `COLUMNS`, else the terminal's (when it is one), else none.
fn width_of(
    is_terminal: bool,
    size: impl FnOnce() -> Option<(terminal_size::Width, terminal_size::Height)>,
) -> Option<usize> {
    let columns = crate::env_vars::EnvVars::process()
        .get("COLUMNS")
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0);
    let width = columns.or_else(|| {
        is_terminal
            .then(size)
            .flatten()
            .map(|(terminal_size::Width(w), _)| usize::from(w))
    })?;
    Some(width.max(NARROWEST_TERMINAL))
}

impl Printer {
    /// A printer; `quiet` silences warnings and progress (data on stdout is still written);
    /// colour on terminals.
    pub fn new(quiet: bool) -> Self {
        Printer::with_color(quiet, ColorChoice::Auto)
    }

    /// A printer that colours as `color` says.
    pub(crate) fn with_color(quiet: bool, color: ColorChoice) -> Self {
        let (out, err) = (io::stdout(), io::stderr());
        Printer {
            quiet,
            color: color.colors(out.is_terminal()),
            color_err: color.colors(err.is_terminal()),
            width: width_of(out.is_terminal(), || {
                terminal_size::terminal_size_of(io::stdout())
            }),
            width_err: width_of(err.is_terminal(), || {
                terminal_size::terminal_size_of(io::stderr())
            }),
        }
    }

    /// Whether stdout is coloured (`--color`, NO_COLOR, FORCE_COLOR, CLICOLOR_FORCE, a terminal).
    pub(crate) fn color(&self) -> bool {
        self.color
    }

    /// The width stdout's text is fitted to ([`crate::terminal::fit`]), none when it is not a
    /// terminal and `COLUMNS` is unset.
    pub(crate) fn width(&self) -> Option<usize> {
        self.width
    }

    /// Write text made for people to stdout, fitted to [`Printer::width`].
    pub(crate) fn text(&self, text: &str) {
        self.out(&crate::terminal::fit(text, self.width));
    }

    /// Whether a progress bar may be drawn on stderr (not under `-v`: it would garble the log).
    pub(crate) fn progress(&self) -> bool {
        !self.quiet && !crate::logging::verbose() && io::stderr().is_terminal()
    }

    /// Write data to stdout. A closed pipe is ignored.
    pub(crate) fn out(&self, text: &str) {
        let mut stdout = io::stdout().lock();
        let _ = stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush());
    }

    /// A warning on stderr, unless quiet.
    pub(crate) fn warn(&self, text: &str) {
        if !self.quiet {
            let yellow = anstyle::AnsiColor::Yellow.on_default().bold();
            let prefix = paint(self.color_err, yellow, "warning");
            let line = format!("{prefix}: {}", crate::terminal::escape(text));
            err_line(&crate::terminal::fit(&line, self.width_err));
        }
    }

    /// A note on stderr, unless quiet.
    pub(crate) fn note(&self, text: &str) {
        if !self.quiet {
            let text = crate::terminal::escape(text);
            err_line(&crate::terminal::fit(&text, self.width_err));
        }
    }

    /// Whether stderr is coloured.
    pub(crate) fn color_err(&self) -> bool {
        self.color_err
    }

    /// A note on stderr, unless quiet, written as it is: `text` is planner's own painting of
    /// text that was made safe before it was painted ([`crate::terminal::escape`] after
    /// painting would show the colour codes as `\u{1b}[31m` text).
    pub(crate) fn note_painted(&self, text: &str) {
        if !self.quiet {
            err_line(text);
        }
    }
}

/// One line on stderr; a closed stderr drops it (module docs).
pub(crate) fn err_line(text: &str) {
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "{text}").and_then(|()| stderr.flush());
}
