//! The clock: what "now" is for the index cache's freshness and fetch times and for the age of
//! a release (the young-release risk factor). In: the `PLANNER_NOW` environment variable, handed
//! to [`pin`] by `run()` in src/lib.rs (an RFC 3339 timestamp such as `2026-12-01T00:00:00Z`). Out:
//! [`now`], that pinned instant, or the wall clock when nothing is pinned. The integration
//! tests pin it (tests/it/common/mod.rs) so that their output does not depend on the day they
//! run. Waits on the network (`Retry-After` dates, timeouts) keep the wall clock.

use std::sync::OnceLock;

use jiff::Timestamp;

static PINNED: OnceLock<Timestamp> = OnceLock::new();

/// `PLANNER_NOW` is set but is not a timestamp.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("PLANNER_NOW=`{value}` is not a timestamp: {message}")]
#[diagnostic(help("use an RFC 3339 timestamp such as 2026-12-01T00:00:00Z, or unset PLANNER_NOW"))]
pub(crate) struct ClockError {
    /// The value as set.
    pub value: String,
    /// Why it does not parse.
    pub message: String,
}

/// Pin the clock to `value`, the `PLANNER_NOW` variable, when it is set (once per process;
/// later calls keep the first).
pub(crate) fn pin(value: Option<&str>) -> Result<(), ClockError> {
    let Some(value) = value else {
        return Ok(());
    };
    let at: Timestamp = value.trim().parse().map_err(|e: jiff::Error| ClockError {
        value: value.to_string(),
        message: e.to_string(),
    })?;
    let _ = PINNED.set(at);
    Ok(())
}

/// The pinned instant, else the wall clock.
pub(crate) fn now() -> Timestamp {
    PINNED.get().copied().unwrap_or_else(Timestamp::now)
}
