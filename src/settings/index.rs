//! Where package metadata comes from, as the flags, the environment and planner's config file
//! say ([`IndexOptions`]); [`IndexOptions::resolve`] adds pip.conf once the environment is known.
//!
//! In: the index flags (`IndexArgs`) and the [`Sources`]. Out: [`IndexOptions`], and from it the
//! index stage's [`IndexSettings`].

use std::path::{Path, PathBuf};

use miette::miette;

use super::EnvVars;
use super::sources::{IndexValue, Sources};
use crate::cli::{self, IndexArgs};
use crate::index::client::{ClientSettings, env_value};
use crate::index::keyring::KeyringProvider;
use crate::index::{
    BinaryPolicy, BuildSettings, DEFAULT_PAGE_MAX_AGE, IndexError, IndexSettings, auth, cache,
};

/// Where package metadata comes from, before the environment is known: the flags and the
/// environment; [`IndexOptions::resolve`] adds pip.conf and builds [`IndexSettings`].
#[derive(Clone)]
pub(crate) struct IndexOptions {
    /// `--index-url`, else the config file's `index-url` when no variable names an index.
    pub index_url: Option<String>,
    /// What gave `index_url`: `--index-url` or the config file.
    pub index_url_source: String,
    /// `--extra-index-url`, else the config file's when no variable names one.
    pub extra_index_urls: Vec<String>,
    /// What gave `extra_index_urls`.
    pub extra_index_urls_source: String,
    /// `--cache-dir`, else `$PLANNER_CACHE_DIR`, else the config file's `cache-dir`.
    pub cache_dir: Option<PathBuf>,
    /// `--offline`.
    pub offline: bool,
    /// `--refresh`.
    pub refresh: bool,
    /// `--only-binary` / `--no-binary`, built once.
    pub binary: BinaryPolicy,
    /// `--keyring-provider`, else `PIP_KEYRING_PROVIDER` / `UV_KEYRING_PROVIDER`.
    pub keyring: KeyringProvider,
    /// The environment the index settings read.
    pub env: EnvVars,
}

impl std::fmt::Debug for IndexOptions {
    // URLs given on the command line may carry credentials: print them redacted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexOptions")
            .field("index_url", &self.index_url.as_ref().map(IndexValue::shown))
            .field(
                "extra_index_urls",
                &self
                    .extra_index_urls
                    .iter()
                    .map(IndexValue::shown)
                    .collect::<Vec<_>>(),
            )
            .field("cache_dir", &self.cache_dir)
            .field("offline", &self.offline)
            .field("refresh", &self.refresh)
            .field("binary", &self.binary)
            .field("keyring", &self.keyring)
            .field("env", &self.env)
            .finish()
    }
}

impl IndexOptions {
    pub(super) fn new(args: &IndexArgs, sources: &Sources<'_>) -> miette::Result<IndexOptions> {
        let env = sources.env;
        let config = sources.config.map(|c| &c.values);
        let (index_url, index_url_source) = sources.pick(
            "index-url",
            args.index_url.clone().map(|url| ("--index-url", url)),
            &["PIP_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX_URL"],
            config.and_then(|c| c.index_url.clone()),
        );
        let extra = (!args.extra_index_url.is_empty())
            .then(|| ("--extra-index-url", args.extra_index_url.clone()));
        let config_extra = config
            .map(|c| c.extra_index_url.clone())
            .filter(|list| !list.is_empty());
        let (extra_index_urls, extra_index_urls_source) = sources.pick(
            "extra-index-url",
            extra,
            &["PIP_EXTRA_INDEX_URL", "UV_INDEX", "UV_EXTRA_INDEX_URL"],
            config_extra,
        );
        let cache_dir = sources.pick_path(
            "cache-dir",
            args.cache_dir.clone().map(|dir| ("--cache-dir", dir)),
            "PLANNER_CACHE_DIR",
            config.and_then(|c| c.cache_dir.clone()),
        );
        let cache_from = if args.cache_dir.is_some() {
            "--cache-dir"
        } else if env.get("PLANNER_CACHE_DIR").is_some_and(|v| !v.is_empty()) {
            "PLANNER_CACHE_DIR"
        } else {
            "the config file's `cache-dir`"
        };
        check_cache_dir(cache_dir.as_deref(), cache_from)?;
        for url in index_url
            .iter()
            .chain(&extra_index_urls.clone().unwrap_or_default())
        {
            check_index_location(url)?;
        }
        Ok(IndexOptions {
            index_url,
            index_url_source,
            extra_index_urls: extra_index_urls.unwrap_or_default(),
            extra_index_urls_source,
            cache_dir,
            offline: args.offline,
            refresh: args.refresh,
            binary: BinaryPolicy::new(&args.only_binary, &args.no_binary),
            keyring: keyring_provider(args.keyring_provider, env)?,
            env: env.clone(),
        })
    }

    /// The index settings: these options, the environment variables and pip.conf (the site
    /// pip.conf of `venv`, else of `$VIRTUAL_ENV`).
    pub(crate) fn resolve(&self, venv: Option<&Path>) -> Result<IndexSettings, IndexError> {
        let get = |key: &str| self.env.get(key);
        let read = |path: &Path| {
            crate::bounded::read_to_string(path, crate::bounded::USER_FILE_LIMIT).ok()
        };
        let config = crate::index::config::resolve(
            self.index_url
                .as_deref()
                .map(|url| (self.index_url_source.as_str(), url)),
            (
                self.extra_index_urls_source.as_str(),
                self.extra_index_urls.as_slice(),
            ),
            &get,
            &read,
            venv,
        )?;
        let home = get("HOME").map(PathBuf::from);
        let netrc_env = get("NETRC").map(PathBuf::from);
        Ok(IndexSettings {
            indexes: config.indexes,
            cache_dir: self.cache_dir.clone().or_else(|| cache::default_dir(&get)),
            offline: self.offline,
            refresh: self.refresh,
            client: ClientSettings::from_env(&get)?,
            netrc: auth::Netrc::load(home.as_deref(), netrc_env.as_deref()),
            keyring: self.keyring,
            binary: self.binary.clone(),
            page_max_age: env_value(&get, "PLANNER_INDEX_TTL", "a number of seconds", |_| true)?
                .unwrap_or(DEFAULT_PAGE_MAX_AGE),
            target_tags: None,
            build: build_settings(&get)?,
        })
    }
}

/// `--allow-build`'s bounds: `PLANNER_BUILD_TIMEOUT` (seconds) and `PLANNER_BUILD_REQUIRES_MB`;
/// the interpreter is set by the command that builds.
fn build_settings(get: &dyn Fn(&str) -> Option<String>) -> Result<BuildSettings, IndexError> {
    let defaults = BuildSettings::default();
    let seconds = env_value(get, "PLANNER_BUILD_TIMEOUT", "a number of seconds", |s| {
        *s > 0
    })?;
    let mb = env_value::<u64>(get, "PLANNER_BUILD_REQUIRES_MB", "a number of MB", |_| true)?;
    Ok(BuildSettings {
        python: None,
        timeout: seconds.map_or(defaults.timeout, std::time::Duration::from_secs),
        max_requires_bytes: mb.map_or(defaults.max_requires_bytes, |mb| mb * 1024 * 1024),
    })
}

/// An index given as neither a URL nor an existing path (`--index-url 'not a url'`) is refused
/// here, before it is read as a folder that does not exist for every package.
fn check_index_location(text: &str) -> miette::Result<()> {
    if url::Url::parse(text).is_ok() || Path::new(text).exists() {
        return Ok(());
    }
    Err(miette!(
        help = "pass an http(s) URL (`https://pkgs.example.com/simple/`), or the folder (or \
                file:// URL) of a local simple index",
        "the index `{}` is neither a URL nor an existing folder",
        crate::terminal::field(&crate::index::auth::redact_str(text))
    ))
}

/// A cache folder that exists as something else (a file) is refused: every cache write would
/// fail, unseen, and each run fetch everything again.
fn check_cache_dir(dir: Option<&Path>, from: &str) -> miette::Result<()> {
    match dir {
        Some(dir) if dir.exists() && !dir.is_dir() => Err(miette!(
            code = "planner::index::cache_dir",
            help = "name a folder (planner makes it when it is missing), or unset it for the \
                    default cache folder",
            "the cache folder `{}` (from {from}) is a file, not a folder",
            crate::terminal::field(&dir.display().to_string())
        )),
        _ => Ok(()),
    }
}

/// `--keyring-provider`, else `PIP_KEYRING_PROVIDER` / `UV_KEYRING_PROVIDER`. pip's `auto` and
/// `import` mean the keyring Python package; planner cannot import it, so they ask the `keyring`
/// command instead, which reads the same store. Any other value is an error naming the
/// variable, as pip's own "invalid choice" (it used to mean `disabled` without a word).
fn keyring_provider(
    flag: Option<cli::KeyringProvider>,
    env: &EnvVars,
) -> miette::Result<KeyringProvider> {
    if let Some(flag) = flag {
        return Ok(match flag {
            cli::KeyringProvider::Disabled => KeyringProvider::Disabled,
            cli::KeyringProvider::Subprocess => KeyringProvider::Subprocess,
        });
    }
    let Some((var, value)) = ["PIP_KEYRING_PROVIDER", "UV_KEYRING_PROVIDER"]
        .into_iter()
        .find_map(|var| Some((var, env.get(var)?)))
    else {
        return Ok(KeyringProvider::Disabled);
    };
    match value.trim() {
        "subprocess" | "auto" | "import" => Ok(KeyringProvider::Subprocess),
        "disabled" | "" => Ok(KeyringProvider::Disabled),
        other => Err(miette!(
            code = "planner::index::keyring_provider",
            help = "set {var} to one of auto, disabled, import, subprocess (as pip takes it), or \
                    unset it",
            "{var} `{}` is not a keyring provider",
            crate::terminal::field(other)
        )),
    }
}
