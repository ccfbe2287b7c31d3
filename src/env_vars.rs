//! The process environment, read once: [`EnvVars`] is the only reader of environment
//! variables in planner. In: the process's variables (or, in tests, given pairs). Out: their
//! values by name. The settings layer resolves flags against it (`run()` in src/lib.rs hands it
//! over); the few stages that need a variable at work (`PATH` to find executables and to
//! activate a venv, the test-only write delay) read [`EnvVars::process`].

use std::collections::HashMap;
use std::ffi::OsString;
use std::sync::OnceLock;

/// A snapshot of the process environment, taken once; everything that reads a variable reads
/// it from here (tests pass their own to the settings layer).
#[derive(Clone, Default)]
pub(crate) struct EnvVars {
    vars: HashMap<OsString, OsString>,
}

impl EnvVars {
    /// The variables of this process, as they were at the first call.
    pub(crate) fn process() -> &'static EnvVars {
        static PROCESS: OnceLock<EnvVars> = OnceLock::new();
        PROCESS.get_or_init(|| EnvVars {
            vars: std::env::vars_os().collect(),
        })
    }

    /// A copy of [`EnvVars::process`], for the settings layer to resolve.
    pub(crate) fn from_process() -> EnvVars {
        EnvVars::process().clone()
    }

    /// The given variables only.
    #[cfg(test)]
    pub(crate) fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> EnvVars {
        EnvVars {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v)))
                .collect(),
        }
    }

    /// A variable's value, when it is set and valid Unicode.
    pub(crate) fn get(&self, key: &str) -> Option<String> {
        self.vars
            .get(std::ffi::OsStr::new(key))?
            .to_str()
            .map(str::to_string)
    }

    /// Every variable whose name and value are valid Unicode, in no order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.vars
            .iter()
            .filter_map(|(k, v)| Some((k.to_str()?, v.to_str()?)))
    }

    /// A variable's raw value (paths need not be Unicode).
    pub(crate) fn get_os(&self, key: &str) -> Option<&OsString> {
        self.vars.get(std::ffi::OsStr::new(key))
    }
}

impl std::fmt::Debug for EnvVars {
    // Values may hold credentials (index URLs); never print them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EnvVars({} variables)", self.vars.len())
    }
}
