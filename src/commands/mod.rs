//! The subcommands: each wires the pipeline stages together for one job.

pub(crate) mod bisect;
pub(crate) mod check;
pub(crate) mod diff;
pub(crate) mod inventory;
pub(crate) mod outdated;
pub(crate) mod propose;
pub(crate) mod resolve;
pub(crate) mod review;
pub(crate) mod snapshot;
pub(crate) mod try_;
pub(crate) mod verify;

use crate::exit_status::ExitStatus;
use crate::index::Index;

/// One line for each file the index served this run that failed an integrity check or a cap
/// no real release reaches, then what it means; empty when there was none.
pub(crate) fn suspect_lines(index: &Index) -> Vec<String> {
    let replies = index.suspect_replies();
    if replies.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<String> = replies
        .iter()
        .map(|r| format!("the index served a file that failed planner's checks: {r}"))
        .collect();
    lines.push(
        "the answer was reached without those releases; find out why the index serves them (a \
         tampering proxy, a mirror out of step, a hostile index) before acting on it"
            .to_string(),
    );
    lines
}

/// `status`, made "the user must act" (exit 1) where it was "done" and the index served
/// suspect files ([`suspect_lines`]).
pub(crate) fn at_least_user_action(status: ExitStatus, suspect: &[String]) -> ExitStatus {
    match status {
        ExitStatus::Success if !suspect.is_empty() => ExitStatus::UserActionRequired,
        status => status,
    }
}
