//! Which indexes to read, from the settings users already have.
//!
//! In: `--index-url` / `--extra-index-url`, the environment (`PIP_INDEX_URL`,
//! `PIP_EXTRA_INDEX_URL`, `UV_DEFAULT_INDEX`, `UV_INDEX_URL`, `UV_INDEX`, `UV_EXTRA_INDEX_URL`,
//! `PIP_CONFIG_FILE`) and pip.conf files (global, user, site). Out: an ordered list of
//! [`IndexLocation`]s searched first-index-wins.
//!
//! Precedence for the default index: `--index-url`, then `PIP_INDEX_URL`, `UV_DEFAULT_INDEX`,
//! `UV_INDEX_URL`, then pip.conf's `index-url`, then the public index. Extra indexes: the
//! command line if given, else `PIP_EXTRA_INDEX_URL`, else `UV_INDEX` + `UV_EXTRA_INDEX_URL`, else
//! pip.conf's `extra-index-url`. As in uv, extra indexes are searched before the default one,
//! and a name is taken from the first index that has it (pip instead merges every index and takes
//! the highest version, which lets a public upload shadow a private name).

use std::path::{Path, PathBuf};

use url::Url;

use super::IndexError;
use super::auth::{SecretUrl, redact};

/// The public index, used when nothing else is configured.
pub const DEFAULT_INDEX: &str = "https://pypi.org/simple/";

/// One index to search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexLocation {
    /// An http(s) index (its base URL ends in `/`).
    Http(SecretUrl),
    /// A local folder laid out as a simple index (`<root>/<name>/index.json|index.html`).
    Local(PathBuf),
}

impl IndexLocation {
    /// Parse a URL, a `file://` URL or a folder path.
    pub fn parse(text: &str) -> Result<IndexLocation, IndexError> {
        let text = text.trim();
        let invalid = |message: String| IndexError::InvalidUrl {
            url: Url::parse(text)
                .map(|u| redact(&u))
                .unwrap_or_else(|_| "(unparseable URL)".to_string()),
            message,
        };
        match Url::parse(text) {
            Ok(url) if url.scheme() == "file" => {
                let path = url
                    .to_file_path()
                    .map_err(|()| invalid("not a local path".to_string()))?;
                Ok(IndexLocation::Local(path))
            }
            Ok(mut url) if matches!(url.scheme(), "http" | "https") => {
                if url.host_str().is_none_or(str::is_empty) {
                    return Err(invalid("no host".to_string()));
                }
                if !url.path().ends_with('/') {
                    let path = format!("{}/", url.path());
                    url.set_path(&path);
                }
                url.set_fragment(None);
                Ok(IndexLocation::Http(SecretUrl::new(url)))
            }
            Ok(url) if url.scheme().len() > 1 => {
                Err(invalid(format!("unsupported scheme `{}`", url.scheme())))
            }
            // A bare path (a Windows drive letter parses as a one-letter scheme).
            _ => {
                if text.contains("://") {
                    return Err(invalid("not a valid URL".to_string()));
                }
                let path = PathBuf::from(text);
                let path = if path.is_absolute() {
                    path
                } else {
                    std::env::current_dir()
                        .map(|d| d.join(&path))
                        .unwrap_or(path)
                };
                Ok(IndexLocation::Local(path))
            }
        }
    }
}

impl std::fmt::Display for IndexLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexLocation::Http(url) => write!(f, "{url}"),
            IndexLocation::Local(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The resolved index configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexConfig {
    /// Indexes in search order: extras first, the default last.
    pub indexes: Vec<IndexLocation>,
}

/// The pip.conf files pip reads, in override order (later wins). `PIP_CONFIG_FILE` replaces
/// the user file when it exists, as in pip; set to the null device (`/dev/null`), it switches
/// every pip.conf off, as it does for pip.
pub(crate) fn pip_conf_files(
    get: &dyn Fn(&str) -> Option<String>,
    venv: Option<&Path>,
) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let env_file = get("PIP_CONFIG_FILE").map(PathBuf::from);
    if env_file
        .as_deref()
        .is_some_and(|f| f == Path::new("/dev/null") || f == Path::new("nul"))
    {
        return files;
    }
    // Global.
    let xdg_dirs = get("XDG_CONFIG_DIRS").unwrap_or_else(|| "/etc/xdg".to_string());
    for dir in xdg_dirs.split(':').filter(|d| !d.is_empty()) {
        files.push(Path::new(dir).join("pip").join("pip.conf"));
    }
    files.push(PathBuf::from("/etc/pip.conf"));
    // User.
    if !env_file.as_ref().is_some_and(|f| f.exists()) {
        if let Some(home) = get("HOME") {
            files.push(Path::new(&home).join(".pip").join("pip.conf"));
        }
        let config_home = get("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| get("HOME").map(|h| Path::new(&h).join(".config")));
        if let Some(dir) = config_home {
            files.push(dir.join("pip").join("pip.conf"));
        }
    }
    // Site.
    if let Some(venv) = venv
        .map(Path::to_path_buf)
        .or_else(|| get("VIRTUAL_ENV").map(PathBuf::from))
    {
        files.push(venv.join("pip.conf"));
    }
    if let Some(f) = env_file {
        files.push(f);
    }
    files
}

/// `index-url` and `extra-index-url` from pip.conf text: `[global]`, overridden by `[install]`.
/// Read as pip reads it, as an INI file (the `configparser` crate, Python's rules: `=` or `:`,
/// `#`/`;` comment lines, indented continuation lines, case-insensitive keys, `_` read as `-`
/// and `i` as `index-url`); the error names the line when the text is not INI.
fn pip_conf_values(text: &str) -> Result<(Option<String>, Option<String>), String> {
    let mut ini = configparser::ini::Ini::new();
    ini.set_multiline(true);
    let sections = ini.read(text.to_string())?;
    let value = |section: &str, wanted: &str| {
        let keys = sections.get(section)?;
        keys.iter()
            .filter(|(key, _)| {
                let key = key.replace('_', "-");
                key == wanted || (wanted == "index-url" && key == "i")
            })
            .find_map(|(_, value)| value.clone())
            .map(|value| value.trim().to_string())
    };
    let index = value("install", "index-url").or_else(|| value("global", "index-url"));
    let extra = value("install", "extra-index-url").or_else(|| value("global", "extra-index-url"));
    Ok((index, extra))
}

/// Parse one index location, an error naming `source` (the flag, variable or file it came
/// from) with a hint for that kind of source. A value that is no URL must name an existing
/// folder: otherwise a typo in `PIP_INDEX_URL` would read as a missing local index.
fn parse_from(source: &str, text: &str) -> Result<IndexLocation, IndexError> {
    let config_error = |message: String| {
        let hint = if source.starts_with("--") {
            format!(
                "give {source} an http(s):// URL of a simple index (`https://host/simple/`), \
                 a file:// URL or a local folder laid out as one"
            )
        } else if !source.contains(['/', '\\', ' ']) {
            format!(
                "fix or unset the environment variable {source} (pip and uv read it too); \
                 `--index-url` on the command line overrides it"
            )
        } else {
            format!(
                "fix or remove that setting in {source}; `--index-url` on the command line \
                 overrides it"
            )
        };
        IndexError::Config {
            source_name: source.to_string(),
            message,
            hint,
        }
    };
    match IndexLocation::parse(text) {
        Err(IndexError::InvalidUrl { url, message }) => {
            Err(config_error(format!("`{url}`: {message}")))
        }
        Ok(IndexLocation::Local(path)) if !path.is_dir() => Err(config_error(format!(
            "`{}` is not an http(s) URL, and no folder of that name exists",
            text.trim()
        ))),
        other => other,
    }
}

fn split_list(value: &str) -> Vec<String> {
    value
        .split_whitespace()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Resolve the configuration from `--index-url` and `--extra-index-url` (as given, each with
/// what gave it: the flag, or planner's config file when neither flag nor variable is set),
/// the environment and pip.conf. `get` reads environment variables; `read` reads a file (absent
/// files give `None`); `venv` is the environment whose site pip.conf counts.
pub(crate) fn resolve(
    index_url: Option<(&str, &str)>,
    (extra_source, extra_index_urls): (&str, &[String]),
    get: &dyn Fn(&str) -> Option<String>,
    read: &dyn Fn(&Path) -> Option<String>,
    venv: Option<&Path>,
) -> Result<IndexConfig, IndexError> {
    let env = |key: &str| get(key).filter(|v| !v.trim().is_empty());
    let mut conf_index: Option<(String, String)> = None;
    let mut conf_extra: Option<(String, String)> = None;
    for file in pip_conf_files(get, venv) {
        if let Some(text) = read(&file) {
            let source = file.display().to_string();
            let (index, extra) = pip_conf_values(&text).map_err(|message| IndexError::Config {
                source_name: source.clone(),
                message: format!("it is not an INI file: {message}"),
                hint: format!("fix {source} (pip cannot read it either), or set PIP_CONFIG_FILE=/dev/null to run without any pip.conf"),
            })?;
            if let Some(i) = index {
                conf_index = Some((source.clone(), i));
            }
            if let Some(e) = extra {
                conf_extra = Some((source, e));
            }
        }
    }
    let parse = |source: &str, text: &str| parse_from(source, text);
    let default = if let Some((source, url)) = index_url {
        parse(source, url)?
    } else if let Some(url) = env("PIP_INDEX_URL") {
        parse("PIP_INDEX_URL", &url)?
    } else if let Some(url) = env("UV_DEFAULT_INDEX") {
        parse("UV_DEFAULT_INDEX", &url)?
    } else if let Some(url) = env("UV_INDEX_URL") {
        parse("UV_INDEX_URL", &url)?
    } else if let Some((source, url)) = &conf_index {
        parse(source, url)?
    } else {
        parse("the built-in default", DEFAULT_INDEX)?
    };
    let mut extras = Vec::new();
    if !extra_index_urls.is_empty() {
        for url in extra_index_urls {
            extras.push(parse(extra_source, url)?);
        }
    } else if let Some(list) = env("PIP_EXTRA_INDEX_URL") {
        for url in split_list(&list) {
            extras.push(parse("PIP_EXTRA_INDEX_URL", &url)?);
        }
    } else if env("UV_INDEX").is_some() || env("UV_EXTRA_INDEX_URL").is_some() {
        for key in ["UV_INDEX", "UV_EXTRA_INDEX_URL"] {
            for url in split_list(&env(key).unwrap_or_default()) {
                // UV_INDEX entries may be `name=url`.
                let url = match url.split_once('=') {
                    Some((name, rest)) if !name.contains(':') && !name.contains('/') => {
                        rest.to_string()
                    }
                    _ => url,
                };
                extras.push(parse(key, &url)?);
            }
        }
    } else if let Some((source, list)) = &conf_extra {
        for url in split_list(list) {
            extras.push(parse(source, &url)?);
        }
    }
    let mut indexes = Vec::new();
    for index in extras.into_iter().chain([default]) {
        if !indexes.contains(&index) {
            indexes.push(index);
        }
    }
    Ok(IndexConfig { indexes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The two command-line flags.
    #[derive(Default)]
    struct Flags {
        index_url: Option<String>,
        extra_index_url: Vec<String>,
    }

    fn run(
        args: Flags,
        env: &[(&str, &str)],
        files: &[(&str, &str)],
    ) -> Result<Vec<String>, IndexError> {
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let files: HashMap<PathBuf, String> = files
            .iter()
            .map(|(k, v)| (PathBuf::from(k), v.to_string()))
            .collect();
        let get = |k: &str| env.get(k).cloned();
        let read = |p: &Path| files.get(p).cloned();
        let url = args.index_url.as_deref().map(|url| ("--index-url", url));
        let extras = ("--extra-index-url", args.extra_index_url.as_slice());
        Ok(resolve(url, extras, &get, &read, None)?
            .indexes
            .iter()
            .map(ToString::to_string)
            .collect())
    }

    #[test]
    fn default_is_the_public_index() {
        assert_eq!(run(Flags::default(), &[], &[]).unwrap(), [DEFAULT_INDEX]);
    }

    #[test]
    fn command_line_beats_environment_beats_pip_conf() {
        let conf = "[global]\nindex-url = https://conf.example/simple\nextra-index-url =\n  https://e1.example/simple\n  https://e2.example/simple\n";
        let files = [("/home/u/.config/pip/pip.conf", conf)];
        let home = [("HOME", "/home/u")];
        assert_eq!(
            run(Flags::default(), &home, &files).unwrap(),
            [
                "https://e1.example/simple/",
                "https://e2.example/simple/",
                "https://conf.example/simple/"
            ]
        );
        let env = [
            ("HOME", "/home/u"),
            ("PIP_INDEX_URL", "https://env.example/simple"),
        ];
        assert_eq!(
            run(Flags::default(), &env, &files).unwrap().last().unwrap(),
            "https://env.example/simple/"
        );
        let args = Flags {
            index_url: Some("https://cli.example/simple".to_string()),
            extra_index_url: vec!["https://x.example/simple".to_string()],
        };
        assert_eq!(
            run(args, &env, &files).unwrap(),
            ["https://x.example/simple/", "https://cli.example/simple/"]
        );
    }

    #[test]
    fn uv_variables_and_pip_config_file() {
        let env = [
            ("UV_DEFAULT_INDEX", "https://uv.example/simple"),
            (
                "UV_EXTRA_INDEX_URL",
                "https://a.example/simple https://b.example/simple",
            ),
        ];
        assert_eq!(
            run(Flags::default(), &env, &[]).unwrap(),
            [
                "https://a.example/simple/",
                "https://b.example/simple/",
                "https://uv.example/simple/"
            ]
        );
        let files = [
            (
                "/home/u/.config/pip/pip.conf",
                "[global]\nindex-url=https://user.example/s\n",
            ),
            (
                "/tmp/pip.conf",
                "[install]\nindex_url: https://envfile.example/s\n",
            ),
        ];
        let env = [("HOME", "/home/u"), ("PIP_CONFIG_FILE", "/tmp/pip.conf")];
        // PIP_CONFIG_FILE is read last; the user file is skipped only when it exists on disk.
        assert_eq!(
            run(Flags::default(), &env, &files).unwrap(),
            ["https://envfile.example/s/"]
        );
        // Read as INI (pip's configparser rules): `i`, `_` for `-`, `:` delimiters.
        assert_eq!(
            pip_conf_values(
                "[global]\n; note\ni: https://i.example/s\n[install]\nextra_index_url=\n  https://x.example/s\n  https://y.example/s\n"
            ),
            Ok((
                Some("https://i.example/s".to_string()),
                Some("https://x.example/s\nhttps://y.example/s".to_string())
            ))
        );
        let broken = [(
            "/tmp/pip.conf",
            "[global\nindex-url = https://x.example/s\n",
        )];
        let env = [("PIP_CONFIG_FILE", "/tmp/pip.conf")];
        let err = run(Flags::default(), &env, &broken)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("/tmp/pip.conf: it is not an INI file: line 1"),
            "{err}"
        );
        // The null device switches every pip.conf off, the user's too (pip's `os.devnull`).
        let env = [("HOME", "/home/u"), ("PIP_CONFIG_FILE", "/dev/null")];
        assert_eq!(
            run(Flags::default(), &env, &files).unwrap(),
            [DEFAULT_INDEX]
        );
    }

    #[test]
    fn bad_urls_name_their_source_without_secrets() {
        let env = [("PIP_INDEX_URL", "ftp://u:hunter22@x.example/simple")];
        let err = run(Flags::default(), &env, &[]).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("PIP_INDEX_URL"), "{text}");
        assert!(!text.contains("hunter22"), "{text}");
    }

    #[test]
    fn folders_and_file_urls_are_local() {
        assert_eq!(
            IndexLocation::parse("file:///srv/simple").unwrap(),
            IndexLocation::Local(PathBuf::from("/srv/simple"))
        );
        assert_eq!(
            IndexLocation::parse("/srv/simple").unwrap(),
            IndexLocation::Local(PathBuf::from("/srv/simple"))
        );
    }
}
