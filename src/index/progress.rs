//! The "reading the index n/m" spinner on stderr.
//!
//! In: the [`Printer`] (whether progress is shown at all) and one start and one finish event per
//! page or metadata fetch. Out: a line on stderr that counts them, cleared before results print.
//! Silent (no bar at all) under `-q` or when stderr is not a terminal.

use crate::printer::Printer;

/// A progress bar over index fetches, or nothing when the printer shows no progress.
pub(super) struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    /// A bar on stderr when `printer` shows progress, else a silent one.
    pub(super) fn new(printer: &Printer) -> Progress {
        Progress(printer.progress().then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(0),
                indicatif::ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} reading the index {pos}/{len}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
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
}
