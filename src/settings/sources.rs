//! What settings are resolved from besides the command line: the environment and planner's
//! config file, with where each value came from; and the values several commands share (the
//! risk policy, `--max-risk`, the environment selection).
//!
//! In: [`EnvVars`] and the [`config::Config`] found. Out: the chosen values, their origins noted.

use std::path::{Path, PathBuf};

use miette::miette;

use super::EnvVars;
use super::config;
use crate::cli::EnvArgs;
use crate::index::auth;
use crate::inventory::{EnvironmentSelection, EnvironmentSource};
use crate::risk::{Policy, RiskLevel};

/// What settings are resolved from besides the command line: the environment and planner's
/// config file. It records where each value that has several sources came from.
pub(super) struct Sources<'a> {
    pub(super) env: &'a EnvVars,
    pub(super) config: Option<&'a config::Config>,
    pub(super) origins: std::cell::RefCell<Vec<String>>,
}

impl Sources<'_> {
    /// Record that `key` is `shown`, from `from`.
    pub(super) fn note(&self, key: &str, shown: &str, from: &str) {
        self.origins
            .borrow_mut()
            .push(format!("{key} = {shown} (from {from})"));
    }

    /// The first variable of `vars` that is set and not blank.
    pub(super) fn var(&self, vars: &[&'static str]) -> Option<&'static str> {
        vars.iter()
            .copied()
            .find(|var| self.env.get(var).is_some_and(|v| !v.trim().is_empty()))
    }

    /// An index value: the flag's, else `None` when a variable of `vars` sets it (the index
    /// settings read those), else the config file's. Returns it with what gave it.
    pub(super) fn pick<T: IndexValue>(
        &self,
        key: &str,
        flag: Option<(&str, T)>,
        vars: &[&'static str],
        config: Option<T>,
    ) -> (Option<T>, String) {
        if let Some((name, value)) = flag {
            self.note(key, &value.shown(), name);
            return (Some(value), name.to_string());
        }
        if let Some(var) = self.var(vars) {
            self.note(key, &format!("${var}"), var);
            return (None, String::new());
        }
        match (config, self.config) {
            (Some(value), Some(file)) => {
                self.note(key, &value.shown(), &file.origin);
                (Some(value), file.origin.clone())
            }
            _ => (None, String::new()),
        }
    }

    /// A path: the flag's, else the variable's, else the config file's (relative to its folder).
    pub(super) fn pick_path(
        &self,
        key: &str,
        flag: Option<(&str, PathBuf)>,
        var: &'static str,
        config: Option<PathBuf>,
    ) -> Option<PathBuf> {
        let (path, from) = if let Some((name, path)) = flag {
            (path, name.to_string())
        } else if let Some(value) = self.env.get_os(var).filter(|v| !v.is_empty()) {
            (PathBuf::from(value), var.to_string())
        } else if let (Some(path), Some(file)) = (config, self.config) {
            (file.dir.join(path), file.origin.clone())
        } else {
            return None;
        };
        self.note(key, &path.display().to_string(), &from);
        Some(path)
    }

    /// The risk policy: `--policy`, else `$PLANNER_POLICY`, else the config file's `policy`,
    /// else the built-in default; loaded.
    pub(super) fn policy(&self, flag: Option<&Path>) -> miette::Result<Policy> {
        let spec = if let Some(path) = flag {
            Some((path.to_path_buf(), "--policy".to_string()))
        } else if let Some(value) = self.env.get_os("PLANNER_POLICY").filter(|v| !v.is_empty()) {
            Some((PathBuf::from(value), "PLANNER_POLICY".to_string()))
        } else if let Some(file) = self.config
            && let Some(name) = file.values.policy.as_deref()
        {
            let spec = if crate::risk::BUILTIN_POLICIES.contains(&name) {
                PathBuf::from(name)
            } else {
                file.dir.join(name)
            };
            Some((spec, file.origin.clone()))
        } else {
            None
        };
        if let Some((spec, from)) = &spec {
            self.note("policy", &spec.display().to_string(), from);
            check_policy_name(spec)?;
        }
        Ok(Policy::load(spec.as_ref().map(|(path, _)| path.as_path()))?)
    }

    /// `--max-risk`, else `$PLANNER_MAX_RISK`, else the config file's `max-risk`.
    pub(super) fn max_risk(&self, flag: Option<RiskLevel>) -> miette::Result<Option<RiskLevel>> {
        if let Some(level) = flag {
            self.note("max-risk", &level.to_string(), "--max-risk");
            return Ok(Some(level));
        }
        let (text, from) =
            if let Some(value) = self.env.get("PLANNER_MAX_RISK").filter(|v| !v.is_empty()) {
                (value, "PLANNER_MAX_RISK".to_string())
            } else if let Some(file) = self.config
                && let Some(value) = &file.values.max_risk
            {
                (value.clone(), file.origin.clone())
            } else {
                return Ok(None);
            };
        let level = text.parse::<RiskLevel>().map_err(|err| {
            miette!(
                help = "write one of low, medium, high, critical",
                "max-risk `{}` from {from}: {err}",
                crate::terminal::field(&text)
            )
        })?;
        self.note("max-risk", &level.to_string(), &from);
        Ok(Some(level))
    }
}

/// A value [`Sources::pick`] picks, shown with credentials redacted.
pub(super) trait IndexValue {
    fn shown(&self) -> String;
}

impl IndexValue for String {
    fn shown(&self) -> String {
        auth::redact_str(self)
    }
}

impl IndexValue for Vec<String> {
    fn shown(&self) -> String {
        self.iter()
            .map(IndexValue::shown)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A `--policy` that names no file and is not a built-in name but is close to one: refused
/// with the name it resembles (`ml-cudaa` -> `ml-cuda`).
fn check_policy_name(spec: &Path) -> miette::Result<()> {
    let Some(name) = spec.to_str() else {
        return Ok(());
    };
    let builtin = crate::risk::BUILTIN_POLICIES;
    if builtin.contains(&name) || spec.exists() || name.contains('/') || name.ends_with(".toml") {
        return Ok(());
    }
    let closest = builtin
        .iter()
        .map(|b| (strsim::levenshtein(name, b), *b))
        .min()
        .filter(|(distance, b)| *distance <= 2.max(b.len() / 3));
    let Some((_, suggestion)) = closest else {
        return Ok(());
    };
    let names = builtin
        .iter()
        .map(|b| format!("`{b}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Err(miette!(
        help = format!(
            "did you mean `{suggestion}`? The built-in policies are {names}; anything else is \
             read as a TOML file's path"
        ),
        "unknown policy `{}`: neither a built-in policy nor a file",
        crate::terminal::field(name)
    ))
}

/// The environment selection: `--venv`, `--from-snapshot`, `$VIRTUAL_ENV`, else discovery.
pub(super) fn environment(args: &EnvArgs, env: &EnvVars) -> EnvironmentSelection {
    let source = if let Some(path) = &args.venv {
        EnvironmentSource::Venv(path.clone())
    } else if let Some(path) = &args.python {
        EnvironmentSource::Python(path.clone())
    } else if let Some(path) = &args.from_snapshot {
        EnvironmentSource::Snapshot(path.clone())
    } else if let Some(path) = active_venv(env) {
        EnvironmentSource::ActiveVenv(path)
    } else {
        EnvironmentSource::Discover
    };
    EnvironmentSelection {
        source,
        python_version: args.python_version.clone(),
        python_platform: args.python_platform.clone(),
    }
}

/// `$VIRTUAL_ENV`, when set and not empty.
pub(super) fn active_venv(env: &EnvVars) -> Option<PathBuf> {
    env.get_os("VIRTUAL_ENV")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}
