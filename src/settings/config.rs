//! planner's own config file, found as ruff finds its own.
//!
//! In: the folder planner runs in and the process environment. Out: the first config found
//! walking up from that folder (`planner.toml`, whose keys are top level, else a
//! `pyproject.toml` with a `[tool.planner]` table; a pyproject.toml without one is passed
//! over), else the user's `$XDG_CONFIG_HOME/planner/planner.toml` (`~/.config/...`), else none.
//! `PLANNER_CONFIG=FILE` names the file instead; `PLANNER_NO_CONFIG=1` reads none.
//!
//! Keys (kebab-case, as uv and ruff spell theirs): `policy` (a built-in name or a TOML file,
//! relative to the config's folder), `index-url`, `extra-index-url` (a list), `cache-dir`
//! (relative to the config's folder), `max-risk`. Flags beat environment variables, which beat
//! the config file ([`super`] applies that order and logs each value's origin under `-v`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::EnvVars;

/// A config file, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Config {
    /// The file, and `[tool.planner]` when it is a pyproject.toml (for messages).
    pub origin: String,
    /// The file's folder: relative paths in it are relative to this.
    pub dir: PathBuf,
    /// The values.
    pub values: ConfigValues,
}

/// The keys of a config file; unknown keys are refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct ConfigValues {
    /// `policy`: a built-in policy's name or a TOML file.
    pub policy: Option<String>,
    /// `index-url`.
    pub index_url: Option<String>,
    /// `extra-index-url`.
    #[serde(default)]
    pub extra_index_url: Vec<String>,
    /// `cache-dir`.
    pub cache_dir: Option<PathBuf>,
    /// `max-risk`: `low`, `medium`, `high` or `critical`.
    pub max_risk: Option<String>,
}

/// A config file that exists but cannot be used.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("cannot use the config file `{origin}`: {message}")]
#[diagnostic(
    code(planner::config),
    help(
        "the keys are policy, index-url, extra-index-url, cache-dir and max-risk (docs/cli.md); \
         set PLANNER_NO_CONFIG=1 to run without the file"
    )
)]
pub(crate) struct ConfigError {
    origin: String,
    message: String,
}

/// The config that applies in `cwd` (see the module docs).
pub(crate) fn find(cwd: &Path, env: &EnvVars) -> Result<Option<Config>, ConfigError> {
    if env
        .get("PLANNER_NO_CONFIG")
        .is_some_and(|v| !v.is_empty() && v != "0")
    {
        return Ok(None);
    }
    if let Some(file) = env.get_os("PLANNER_CONFIG").filter(|v| !v.is_empty()) {
        let file = cwd.join(file);
        return read(
            &file,
            file.file_name().is_some_and(|n| n == "pyproject.toml"),
        )
        .map(Some);
    }
    for dir in cwd.ancestors() {
        let own = dir.join("planner.toml");
        if own.is_file() {
            return read(&own, false).map(Some);
        }
        let pyproject = dir.join("pyproject.toml");
        if pyproject.is_file()
            && let Some(config) = read_pyproject(&pyproject)?
        {
            return Ok(Some(config));
        }
    }
    let user_dir = env
        .get_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            env.get_os("HOME")
                .map(|home| Path::new(home).join(".config"))
        });
    match user_dir.map(|dir| dir.join("planner").join("planner.toml")) {
        Some(file) if file.is_file() => read(&file, false).map(Some),
        _ => Ok(None),
    }
}

/// Read `planner.toml` (keys at the top level) or a pyproject.toml's `[tool.planner]`.
fn read(file: &Path, pyproject: bool) -> Result<Config, ConfigError> {
    if pyproject {
        return read_pyproject(file)?.ok_or_else(|| ConfigError {
            origin: file.display().to_string(),
            message: "it has no [tool.planner] table".to_string(),
        });
    }
    let origin = file.display().to_string();
    let text = read_text(file, &origin)?;
    let values = toml::from_str(&text).map_err(|err| ConfigError {
        origin: origin.clone(),
        message: crate::toml_error::describe(&text, &err),
    })?;
    Ok(Config {
        origin,
        dir: parent(file),
        values,
    })
}

/// A pyproject.toml's `[tool.planner]`, or `None` when it has none.
fn read_pyproject(file: &Path) -> Result<Option<Config>, ConfigError> {
    #[derive(Deserialize)]
    struct Pyproject {
        tool: Option<Tool>,
    }
    // Typed from the text, so an error in the table says its line and column.
    #[derive(Deserialize)]
    struct Tool {
        planner: Option<ConfigValues>,
    }
    let origin = format!("{} [tool.planner]", file.display());
    let text = read_text(file, &origin)?;
    let error = |message: String| ConfigError {
        origin: origin.clone(),
        message,
    };
    let parsed: Pyproject =
        toml::from_str(&text).map_err(|err| error(crate::toml_error::describe(&text, &err)))?;
    let Some(values) = parsed.tool.and_then(|tool| tool.planner) else {
        return Ok(None);
    };
    Ok(Some(Config {
        origin,
        dir: parent(file),
        values,
    }))
}

fn read_text(file: &Path, origin: &str) -> Result<String, ConfigError> {
    crate::bounded::read_text(file, 1 << 20).map_err(|err| ConfigError {
        origin: origin.to_string(),
        message: err.to_string(),
    })
}

fn parent(file: &Path) -> PathBuf {
    file.parent().map(Path::to_path_buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> EnvVars {
        EnvVars::from_pairs(pairs.iter().copied())
    }

    #[test]
    fn found_walking_up_and_pyprojects_without_a_table_are_passed_over() {
        let root = tempfile::tempdir().unwrap();
        let deep = root.path().join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(
            root.path().join("a/pyproject.toml"),
            "[project]\nname = 'x'\n",
        )
        .unwrap();
        std::fs::write(
            root.path().join("pyproject.toml"),
            "[tool.planner]\npolicy = 'ml-cuda'\nmax-risk = 'high'\n",
        )
        .unwrap();
        let none = env(&[("HOME", "/nonexistent")]);
        let config = find(&deep, &none).unwrap().unwrap();
        assert_eq!(config.values.policy.as_deref(), Some("ml-cuda"));
        assert_eq!(config.values.max_risk.as_deref(), Some("high"));
        assert!(config.origin.ends_with("pyproject.toml [tool.planner]"));
        // planner.toml in a nearer folder wins.
        std::fs::write(
            root.path().join("a/planner.toml"),
            "index-url = 'https://x.invalid/'\n",
        )
        .unwrap();
        let config = find(&deep, &none).unwrap().unwrap();
        assert_eq!(
            config.values.index_url.as_deref(),
            Some("https://x.invalid/")
        );
        assert_eq!(config.values.policy, None);
        assert_eq!(config.dir, root.path().join("a"));
        // PLANNER_NO_CONFIG reads none.
        let off = env(&[("HOME", "/nonexistent"), ("PLANNER_NO_CONFIG", "1")]);
        assert_eq!(find(&deep, &off).unwrap(), None);
    }

    #[test]
    fn unknown_keys_are_refused_with_the_file_named() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("planner.toml"), "polcy = 'ml-cuda'\n").unwrap();
        let err = find(root.path(), &env(&[])).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("planner.toml") && text.contains("polcy"),
            "{text}"
        );
    }

    #[test]
    fn the_user_config_is_the_last_resort() {
        let root = tempfile::tempdir().unwrap();
        let xdg = root.path().join("xdg");
        std::fs::create_dir_all(xdg.join("planner")).unwrap();
        std::fs::write(xdg.join("planner/planner.toml"), "cache-dir = 'c'\n").unwrap();
        let work = root.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let vars = env(&[("XDG_CONFIG_HOME", xdg.to_str().unwrap())]);
        let config = find(&work, &vars).unwrap().unwrap();
        assert_eq!(config.values.cache_dir, Some(PathBuf::from("c")));
        assert_eq!(config.dir, xdg.join("planner"));
    }
}
