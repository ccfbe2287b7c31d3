//! The "reading the index" spinner on stderr.
//!
//! In: the [`Printer`] (whether progress is shown at all) and one start and one finish event per
//! page or metadata fetch. Out: a line on stderr that counts them, cleared before results print
//! and whenever the index is dropped (a failure included). The solver finds what to fetch as it
//! goes, so there is no total to show: the line says how many fetches are done so far and how
//! many are in flight, never an `n/m` whose `m` grows with `n`. Silent (no bar at all) under
//! `-q`, `-v`, or when stderr is not a terminal. The line stops two columns short of the
//! terminal's edge ([`ShortOfTheEdge`]), so the `^C` a terminal echoes lands on it and Ctrl-C's
//! exit clears both (`crate::interrupt`).

use std::time::Duration;

use crate::printer::Printer;

/// A progress bar over index fetches, or nothing when the printer shows no progress.
pub(super) struct Progress(Option<indicatif::ProgressBar>);

/// The spinner's line: done so far, in flight (started, not done).
const TEMPLATE: &str = "{spinner} reading the index: {pos} fetched so far, {in_flight} in flight";

impl Progress {
    /// A bar on stderr when `printer` shows progress, else a silent one.
    pub(super) fn new(printer: &Printer) -> Progress {
        Progress(printer.progress().then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(0),
                indicatif::ProgressDrawTarget::term_like(Box::new(ShortOfTheEdge(
                    console::Term::stderr(),
                ))),
            );
            let in_flight = |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let started = state.len().unwrap_or(0);
                let _ = write!(w, "{}", started.saturating_sub(state.pos()));
            };
            bar.set_style(
                indicatif::ProgressStyle::with_template(TEMPLATE)
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner())
                    .with_key("in_flight", in_flight),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        }))
    }

    /// One more fetch begun.
    pub(super) fn started(&self) {
        if let Some(bar) = &self.0 {
            bar.inc_length(1);
        }
    }

    /// One fetch done.
    pub(super) fn finished(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }

    /// Hide the bar (before printing results).
    pub(super) fn clear(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }

    /// Run `f` (a warning written to stderr) with the bar out of the way, so the two never
    /// share a line.
    pub(super) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.0 {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

/// stderr as indicatif sees it, two columns narrower than it is. indicatif pads its line to the
/// terminal's width and leaves the cursor at the edge, where an echoed `^C` wraps onto a line
/// of its own and the exit's clearing of the current line misses the progress line.
#[derive(Debug)]
struct ShortOfTheEdge(console::Term);

impl indicatif::TermLike for ShortOfTheEdge {
    fn width(&self) -> u16 {
        self.0.size().1.saturating_sub(2).max(1)
    }
    fn height(&self) -> u16 {
        self.0.size().0
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_up(n)
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_down(n)
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_right(n)
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_left(n)
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.0.write_line(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.0.write_str(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.0.clear_line()
    }
    fn flush(&self) -> std::io::Result<()> {
        self.0.flush()
    }
}
