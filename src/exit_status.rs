//! The exit-code contract shared by every subcommand.

use std::process::ExitCode;

/// How a command ended. This is the one place the exit codes are defined:
///
/// | code | meaning |
/// |------|---------|
/// | 0 | done: the plan was found, the check passed |
/// | 1 | the user must act: no solution, a check failed, a policy rejected the plan |
/// | 2 | the tool failed: bad input, network or cache errors, a bug |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Exit 0.
    Success,
    /// Exit 1: the answer is "no" and the user must act on it.
    UserActionRequired,
    /// Exit 2: the tool could not do its job.
    Error,
}

/// The EXIT STATUS section of the man pages (roff): the table above, for `man planner`.
pub(crate) const MAN_SECTION: &str = ".SH \"EXIT STATUS\"
.TP
\\fB0\\fR
done: the plan was found, the check passed
.TP
\\fB1\\fR
the user must act: no solution, a check failed, a policy rejected the plan, a Python 2 environment
.TP
\\fB2\\fR
the tool failed: bad input, network or cache errors, a bug
";

impl ExitStatus {
    /// The numeric process exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::UserActionRequired => 1,
            ExitStatus::Error => 2,
        }
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        ExitCode::from(status.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_documented_contract() {
        assert_eq!(ExitStatus::Success.code(), 0);
        assert_eq!(ExitStatus::UserActionRequired.code(), 1);
        assert_eq!(ExitStatus::Error.code(), 2);
    }
}
