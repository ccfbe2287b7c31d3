//! The settings layer: where the command line ends.
//!
//! In: the parsed command line ([`Cli`], clap types; values such as targets, `--max-risk`,
//! `--python-version` and `--python-platform` are already domain types, parsed by clap's value
//! parsers in `cli.rs`), the process environment ([`EnvVars`]) and the config files (planner's
//! own, found by [`config::find`]; the risk policy file here; pip.conf in
//! [`IndexOptions::resolve`], because the site pip.conf belongs to the environment read). Out:
//! [`Settings`], one typed struct per command that the commands and stages read. No type from
//! `cli.rs` goes further than this module.
//!
//! Precedence, for every value that has more than one source: the flag, then the environment
//! variable, then planner's config file (then pip.conf, for the index). Where each value came
//! from is kept in [`Settings::origins`] and logged under `-v`.

pub(crate) mod config;

use std::path::{Path, PathBuf};

use miette::{IntoDiagnostic, miette};
use pep508_rs::Requirement;

use crate::cli::{self, Cli, Command, DiffSide, EnvArgs, IndexArgs};
pub(crate) use crate::env_vars::EnvVars;
use crate::index::client::ClientSettings;
use crate::index::keyring::KeyringProvider;
use crate::index::{BinaryPolicy, DEFAULT_PAGE_MAX_AGE, IndexError, IndexSettings, auth, cache};
use crate::inventory::{EnvironmentSelection, EnvironmentSource, PythonVersion, TargetPlatform};
use crate::plan::LayerChoice;
use crate::printer::ColorChoice;
use crate::risk::{Policy, RiskLevel};
use crate::solve::PrereleaseMode;

/// How data is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OutputFormat {
    /// For people.
    Text,
    /// The documented JSON schema.
    Json,
    /// For a pull request or a ticket (`propose` only).
    Markdown,
}

/// Everything one run reads.
#[derive(Debug)]
pub(crate) struct Settings {
    /// `-q`: silence warnings and progress.
    pub quiet: bool,
    /// `-v` (1), `-vv` (2), ...: how much [`crate::logging`] writes on stderr.
    pub verbose: u8,
    /// `--show-settings` (hidden): print these settings and stop.
    pub show_settings: bool,
    /// `--color`, else NO_COLOR / FORCE_COLOR / CLICOLOR_FORCE, else auto.
    pub color: ColorChoice,
    /// Where each value that has several sources came from (`policy = ml-cuda (from ...)`),
    /// logged under `-v`.
    pub origins: Vec<String>,
    /// The subcommand's settings.
    pub command: CommandSettings,
}

/// One subcommand's settings.
#[derive(Debug)]
pub(crate) enum CommandSettings {
    /// `planner propose`.
    Propose(ProposeSettings),
    /// `planner inventory`.
    Inventory(InventorySettings),
    /// `planner check`.
    Check(CheckSettings),
    /// `planner snapshot`.
    Snapshot(SnapshotSettings),
    /// `planner outdated`.
    Outdated(OutdatedSettings),
    /// `planner resolve`.
    Resolve(ResolveSettings),
    /// `planner review`.
    Review(ReviewSettings),
    /// `planner diff`.
    Diff(DiffSettings),
    /// `planner verify`.
    Verify(VerifySettings),
    /// `planner try`.
    Try(TrySettings),
    /// `planner bisect`.
    Bisect(BisectSettings),
    /// `planner completions SHELL`.
    Completions(clap_complete::Shell),
    /// `planner man [--dir DIR]`.
    Man(Option<PathBuf>),
}

impl CommandSettings {
    /// The subcommand's name, as typed.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            CommandSettings::Propose(_) => "propose",
            CommandSettings::Inventory(_) => "inventory",
            CommandSettings::Check(_) => "check",
            CommandSettings::Snapshot(_) => "snapshot",
            CommandSettings::Outdated(_) => "outdated",
            CommandSettings::Resolve(_) => "resolve",
            CommandSettings::Review(_) => "review",
            CommandSettings::Diff(_) => "diff",
            CommandSettings::Verify(_) => "verify",
            CommandSettings::Try(_) => "try",
            CommandSettings::Bisect(_) => "bisect",
            CommandSettings::Completions(_) => "completions",
            CommandSettings::Man(_) => "man",
        }
    }
}

/// How a review is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReviewFormat {
    /// For people.
    Text,
    /// The documented JSON schema (`docs/review.md`).
    Json,
    /// A pull-request comment.
    Markdown,
    /// GitHub Actions workflow annotations.
    Github,
    /// SARIF 2.1.0.
    Sarif,
}

/// `planner review`.
#[derive(Debug)]
pub(crate) struct ReviewSettings {
    /// A folder inside the repository.
    pub path: PathBuf,
    /// `--base` (`None`: the merge base with the default branch).
    pub base: Option<String>,
    /// `--head`.
    pub head: String,
    /// `--python-version`, each.
    pub python_versions: Vec<PythonVersion>,
    /// `--python-platform`, each.
    pub python_platforms: Vec<TargetPlatform>,
    /// `--from-snapshot`.
    pub from_snapshot: Option<PathBuf>,
    /// `--venv`.
    pub venv: Option<PathBuf>,
    /// The risk policy, loaded.
    pub policy: Policy,
    /// `--fail-on`.
    pub fail_on: Option<RiskLevel>,
    /// `--fail-on-unjudged`.
    pub fail_on_unjudged: bool,
    /// Where package metadata comes from.
    pub index: IndexOptions,
    /// Output format.
    pub format: ReviewFormat,
    /// `--sarif-file`: SARIF written there too.
    pub sarif_file: Option<PathBuf>,
    /// The repository's web home from GitHub Actions (`GITHUB_SERVER_URL` and
    /// `GITHUB_REPOSITORY`), for permalinks; else the command asks `git remote get-url origin`.
    pub actions_repository: Option<(String, String)>,
}

/// One side of `planner diff`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DiffEnv {
    /// A positional ENV: a venv folder, else a snapshot or `pip inspect` file.
    Path(PathBuf),
    /// `--venv`, `--from-snapshot` or `--python`.
    Source(EnvironmentSource),
}

/// `planner diff`.
#[derive(Debug)]
pub(crate) struct DiffSettings {
    /// A and B (or, with `since`, at most one), in command-line order.
    pub envs: Vec<DiffEnv>,
    /// `--since WHEN`, as given (parsed against the clock when the command runs).
    pub since: Option<String>,
    /// The environment `--since` reads when no path is given ($VIRTUAL_ENV, ./.venv, ...).
    pub environment: EnvironmentSelection,
    /// Output format.
    pub format: OutputFormat,
}

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
        let redact = |text: &String| match url::Url::parse(text) {
            Ok(url) => auth::redact(&url),
            Err(_) => text.clone(),
        };
        f.debug_struct("IndexOptions")
            .field("index_url", &self.index_url.as_ref().map(redact))
            .field(
                "extra_index_urls",
                &self.extra_index_urls.iter().map(redact).collect::<Vec<_>>(),
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
    fn new(args: &IndexArgs, sources: &Sources<'_>) -> miette::Result<IndexOptions> {
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
            keyring: keyring_provider(args.keyring_provider, env),
            env: env.clone(),
        })
    }

    /// The index settings: these options, the environment variables and pip.conf (the site
    /// pip.conf of `venv`, else of `$VIRTUAL_ENV`).
    pub(crate) fn resolve(&self, venv: Option<&Path>) -> Result<IndexSettings, IndexError> {
        let get = |key: &str| self.env.get(key);
        let read = |path: &Path| std::fs::read_to_string(path).ok();
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
            client: ClientSettings::from_env(&get),
            netrc: auth::Netrc::load(home.as_deref(), netrc_env.as_deref()),
            keyring: self.keyring,
            binary: self.binary.clone(),
            page_max_age: get("PLANNER_INDEX_TTL")
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(DEFAULT_PAGE_MAX_AGE),
            target_tags: None,
        })
    }
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
        crate::terminal::field(text)
    ))
}

/// `--keyring-provider`, else `PIP_KEYRING_PROVIDER` / `UV_KEYRING_PROVIDER`. pip's `auto` and
/// `import` mean the keyring Python package; planner cannot import it, so they ask the `keyring`
/// command instead, which reads the same store.
fn keyring_provider(flag: Option<cli::KeyringProvider>, env: &EnvVars) -> KeyringProvider {
    if let Some(flag) = flag {
        return match flag {
            cli::KeyringProvider::Disabled => KeyringProvider::Disabled,
            cli::KeyringProvider::Subprocess => KeyringProvider::Subprocess,
        };
    }
    let value = env
        .get("PIP_KEYRING_PROVIDER")
        .or_else(|| env.get("UV_KEYRING_PROVIDER"));
    match value.as_deref().map(str::trim) {
        Some("subprocess" | "auto" | "import") => KeyringProvider::Subprocess,
        _ => KeyringProvider::Disabled,
    }
}

/// `propose --try`.
#[derive(Debug)]
pub(crate) struct ProposeTrial {
    /// `--try-top N`: only the first N plans (`None`: every plan).
    pub top: Option<usize>,
    /// `--test` command lines.
    pub tests: Vec<String>,
    /// Passed through to `verify.py`.
    pub run: crate::verify::run::RunOptions,
}

/// `planner propose`.
#[derive(Debug)]
pub(crate) struct ProposeSettings {
    /// What to upgrade, parsed, each name once, none a direct URL.
    pub targets: Vec<Requirement>,
    /// `--all`.
    pub all: bool,
    /// `--all --layer`: one layer of a layered `--all` (`None`: every layer but `everything`).
    pub layer: Option<LayerChoice>,
    /// `--allow-override`.
    pub allow_override: bool,
    /// `--allow-build`: plans may use sdists (else `index.binary` is `--only-binary :all:`).
    pub allow_build: bool,
    /// The risk policy (`--policy FILE`, else the built-in one), loaded.
    pub policy: Policy,
    /// `--max-risk`.
    pub max_risk: Option<RiskLevel>,
    /// `--out-dir`, made absolute.
    pub out_dir: Option<PathBuf>,
    /// `--try` / `--try-top N`: try the plans in copies of the venv.
    pub trial: Option<Box<ProposeTrial>>,
    /// `--prerelease`.
    pub prerelease: PrereleaseMode,
    /// Which environment to read.
    pub environment: EnvironmentSelection,
    /// Where package metadata comes from.
    pub index: IndexOptions,
    /// `--format`.
    pub format: OutputFormat,
}

/// `planner resolve`.
#[derive(Debug)]
pub(crate) struct ResolveSettings {
    /// Requirements given as arguments, parsed.
    pub requirements: Vec<Requirement>,
    /// `-r FILE`.
    pub requirement_files: Vec<PathBuf>,
    /// `-c FILE`.
    pub constraint_files: Vec<PathBuf>,
    /// `--override FILE`.
    pub override_files: Vec<PathBuf>,
    /// `--prerelease`.
    pub prerelease: PrereleaseMode,
    /// The target: synthesized, or read from an environment.
    pub environment: EnvironmentSelection,
    /// Where package metadata comes from.
    pub index: IndexOptions,
    /// `--format`.
    pub format: OutputFormat,
}

/// `planner outdated`.
#[derive(Debug)]
pub(crate) struct OutdatedSettings {
    /// Which environment to read.
    pub environment: EnvironmentSelection,
    /// Where package metadata comes from.
    pub index: IndexOptions,
    /// `--format`.
    pub format: OutputFormat,
}

/// `planner inventory`.
#[derive(Debug)]
pub(crate) struct InventorySettings {
    /// Which environment to read.
    pub environment: EnvironmentSelection,
    /// `--format`.
    pub format: OutputFormat,
}

/// `planner check`.
#[derive(Debug)]
pub(crate) struct CheckSettings {
    /// Which environment to read.
    pub environment: EnvironmentSelection,
    /// `--accept PLAN` files.
    pub accept: Vec<PathBuf>,
    /// `--format`.
    pub format: OutputFormat,
}

/// Where `planner snapshot` writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SnapshotOutput {
    /// `--script`: print the standalone script instead.
    Script,
    /// `--out -`.
    Stdout,
    /// `--out FILE`.
    File(PathBuf),
}

/// `planner snapshot`.
#[derive(Debug)]
pub(crate) struct SnapshotSettings {
    /// Which environment to read.
    pub environment: EnvironmentSelection,
    /// Where the snapshot goes.
    pub output: SnapshotOutput,
}

/// `planner verify`.
#[derive(Debug)]
pub(crate) struct VerifySettings {
    /// Which environment to read (`--venv`, `$VIRTUAL_ENV`, discovery), unless `python` names
    /// an interpreter.
    pub environment: EnvironmentSelection,
    /// `--python`.
    pub python: Option<PathBuf>,
    /// `--plan`.
    pub plan: Option<PathBuf>,
    /// `--all`.
    pub all: bool,
    /// The policy whose smoke tests run (`--policy`, else the built-in one), loaded.
    pub policy: Policy,
    /// What is passed through to `verify.py`.
    pub run: crate::verify::run::RunOptions,
    /// `--format`.
    pub format: OutputFormat,
}

/// `planner try`.
#[derive(Debug)]
pub(crate) struct TrySettings {
    /// The plan file or plan folder.
    pub plan: PathBuf,
    /// `--venv`.
    pub venv: Option<PathBuf>,
    /// `--python`.
    pub python: Option<PathBuf>,
    /// `$VIRTUAL_ENV`, when set: the venv used when neither flag nor the plan names one.
    pub active_venv: Option<PathBuf>,
    /// `--test` command lines.
    pub tests: Vec<String>,
    /// `--keep DIR`.
    pub keep: Option<PathBuf>,
    /// `--index-url`.
    pub index_url: Option<String>,
    /// The policy whose smoke tests run, loaded.
    pub policy: Policy,
    /// `--timeout`, `--jobs`, `--no-smoke` for `verify.py`.
    pub run: crate::verify::run::RunOptions,
    /// `--format`.
    pub format: OutputFormat,
}

/// Where `planner bisect`'s good state comes from.
#[derive(Debug)]
pub(crate) enum GoodState {
    /// `--good FILE|VENV`.
    File(PathBuf),
    /// `--since WHEN`.
    Since(String),
}

/// `planner bisect`.
#[derive(Debug)]
pub(crate) struct BisectSettings {
    /// The good state.
    pub good: GoodState,
    /// `--venv`.
    pub venv: Option<PathBuf>,
    /// `--python`.
    pub python: Option<PathBuf>,
    /// `$VIRTUAL_ENV`, when set: the venv used when neither flag names one.
    pub active_venv: Option<PathBuf>,
    /// `--test` command lines.
    pub tests: Vec<String>,
    /// `--verify`.
    pub verify: bool,
    /// `--retries`.
    pub retries: u32,
    /// `--timeout`.
    pub timeout: Option<std::time::Duration>,
    /// `--keep DIR`.
    pub keep: Option<PathBuf>,
    /// `--index-url` (for the installer).
    pub index_url: Option<String>,
    /// The index, for `--since`'s upload times.
    pub index: IndexOptions,
    /// The policy whose smoke tests `--verify` runs, loaded.
    pub policy: Policy,
    /// `--format`.
    pub format: OutputFormat,
}

fn bisect(args: cli::BisectArgs, sources: &Sources<'_>) -> miette::Result<BisectSettings> {
    let env = sources.env;
    let good = match (args.good, args.since) {
        (Some(file), _) => GoodState::File(file),
        (None, Some(when)) => GoodState::Since(when),
        (None, None) => {
            return Err(miette!(
                help = "pass --good SNAPSHOT (a `planner snapshot` file, `pip inspect` output or a venv) or --since 3d",
                "which state was good? bisect needs --good or --since"
            ));
        }
    };
    if args.timeout == Some(0) {
        return Err(miette!(
            "--timeout 0 would kill every check at once; give seconds"
        ));
    }
    Ok(BisectSettings {
        good,
        venv: args.venv,
        python: args.python,
        active_venv: env
            .get_os("VIRTUAL_ENV")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        tests: args.tests,
        verify: args.verify,
        retries: args.retries,
        timeout: args.timeout.map(std::time::Duration::from_secs),
        keep: args.keep,
        index: IndexOptions::new(
            &IndexArgs {
                index_url: args.index_url.clone(),
                ..IndexArgs::default()
            },
            sources,
        )?,
        index_url: args.index_url,
        policy: sources.policy(args.policy.as_deref())?,
        format: args.format.into(),
    })
}

impl Settings {
    /// Resolve the command line against the environment and the config files (planner's own
    /// found from the current folder).
    pub(crate) fn resolve(cli: Cli, env: &EnvVars) -> miette::Result<Settings> {
        let cwd = std::env::current_dir().into_diagnostic()?;
        Settings::resolve_in(cli, env, &cwd)
    }

    /// [`Settings::resolve`], with planner's config file looked for from `cwd` up.
    pub(crate) fn resolve_in(cli: Cli, env: &EnvVars, cwd: &Path) -> miette::Result<Settings> {
        let config = config::find(cwd, env)?;
        let sources = Sources {
            env,
            config: config.as_ref(),
            origins: std::cell::RefCell::new(Vec::new()),
        };
        if let Some(config) = &config {
            sources.note("config", &config.origin, "the nearest config file");
        }
        let color = color_choice(cli.color, &sources);
        let command = command(cli.command, &sources)?;
        Ok(Settings {
            quiet: cli.quiet,
            verbose: cli.verbose,
            show_settings: cli.show_settings,
            color,
            origins: sources.origins.into_inner(),
            command,
        })
    }
}

/// One subcommand's settings.
fn command(command: Command, sources: &Sources<'_>) -> miette::Result<CommandSettings> {
    let env = sources.env;
    Ok(match command {
        Command::Propose(args) => CommandSettings::Propose(propose(args, sources)?),
        Command::Resolve(args) => CommandSettings::Resolve(ResolveSettings {
            requirements: args.requirements,
            requirement_files: args.requirement_files,
            constraint_files: args.constraint_files,
            override_files: args.override_files,
            prerelease: args.prerelease.into(),
            environment: environment(&args.env, env),
            index: IndexOptions::new(&args.index, sources)?,
            format: args.format.into(),
        }),
        Command::Review(args) => CommandSettings::Review(review(args, sources)?),
        Command::Diff(args) => CommandSettings::Diff(DiffSettings {
            envs: diff_envs(&args),
            since: args.since,
            environment: environment(&EnvArgs::default(), env),
            format: args.format.into(),
        }),
        Command::Outdated(args) => CommandSettings::Outdated(OutdatedSettings {
            environment: environment(&args.env, env),
            index: IndexOptions::new(&args.index, sources)?,
            format: args.format.into(),
        }),
        Command::Inventory(args) => CommandSettings::Inventory(InventorySettings {
            environment: environment(&args.env, env),
            format: args.format.into(),
        }),
        Command::Check(args) => CommandSettings::Check(CheckSettings {
            environment: environment(&args.env, env),
            accept: args.accept,
            format: args.format.into(),
        }),
        Command::Verify(args) => CommandSettings::Verify(VerifySettings {
            environment: environment(
                &EnvArgs {
                    venv: args.venv,
                    ..EnvArgs::default()
                },
                env,
            ),
            python: args.python,
            plan: args.plan,
            all: args.all,
            policy: sources.policy(args.policy.as_deref())?,
            run: crate::verify::run::RunOptions {
                baseline: args.baseline,
                compare: args.compare,
                report: args.report,
                timeout: args.timeout,
                jobs: args.jobs,
                no_smoke: args.no_smoke,
                budget: args.budget,
                no_fork: args.no_fork,
                plain: args.plain,
                tests: args.tests,
                baseline_file: None,
                activate: None,
            },
            format: args.format.into(),
        }),
        Command::Try(args) => CommandSettings::Try(TrySettings {
            plan: args.plan,
            venv: args.venv,
            python: args.python,
            active_venv: env
                .get_os("VIRTUAL_ENV")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            tests: args.tests,
            keep: args.keep,
            index_url: args.index_url,
            policy: sources.policy(args.policy.as_deref())?,
            run: crate::verify::run::RunOptions {
                timeout: args.timeout,
                jobs: args.jobs,
                no_smoke: args.no_smoke,
                ..Default::default()
            },
            format: args.format.into(),
        }),
        Command::Bisect(args) => CommandSettings::Bisect(bisect(args, sources)?),
        Command::Snapshot(args) => CommandSettings::Snapshot(SnapshotSettings {
            environment: environment(&args.env, env),
            output: match (args.script, args.out) {
                (true, _) => SnapshotOutput::Script,
                (false, Some(path)) if path.as_os_str() != "-" => SnapshotOutput::File(path),
                (false, _) => SnapshotOutput::Stdout,
            },
        }),
        Command::Completions(args) => CommandSettings::Completions(args.shell),
        Command::Man(args) => CommandSettings::Man(args.dir),
    })
}

/// What settings are resolved from besides the command line: the environment and planner's
/// config file. It records where each value that has several sources came from.
struct Sources<'a> {
    env: &'a EnvVars,
    config: Option<&'a config::Config>,
    origins: std::cell::RefCell<Vec<String>>,
}

impl Sources<'_> {
    /// Record that `key` is `shown`, from `from`.
    fn note(&self, key: &str, shown: &str, from: &str) {
        self.origins
            .borrow_mut()
            .push(format!("{key} = {shown} (from {from})"));
    }

    /// The first variable of `vars` that is set and not blank.
    fn var(&self, vars: &[&'static str]) -> Option<&'static str> {
        vars.iter()
            .copied()
            .find(|var| self.env.get(var).is_some_and(|v| !v.trim().is_empty()))
    }

    /// An index value: the flag's, else `None` when a variable of `vars` sets it (the index
    /// settings read those), else the config file's. Returns it with what gave it.
    fn pick<T: IndexValue>(
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
    fn pick_path(
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
    fn policy(&self, flag: Option<&Path>) -> miette::Result<Policy> {
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
    fn max_risk(&self, flag: Option<RiskLevel>) -> miette::Result<Option<RiskLevel>> {
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
trait IndexValue {
    fn shown(&self) -> String;
}

impl IndexValue for String {
    fn shown(&self) -> String {
        match url::Url::parse(self) {
            Ok(url) => auth::redact(&url),
            Err(_) => self.clone(),
        }
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

/// `--color`, else NO_COLOR (never), else FORCE_COLOR or CLICOLOR_FORCE (always), else auto.
fn color_choice(flag: Option<cli::ColorChoice>, sources: &Sources<'_>) -> ColorChoice {
    let set = |var: &str| sources.env.get(var).is_some_and(|v| !v.is_empty());
    let forced = |var: &str| set(var) && sources.env.get(var).as_deref() != Some("0");
    let (choice, from) = match flag {
        Some(cli::ColorChoice::Always) => (ColorChoice::Always, "--color"),
        Some(cli::ColorChoice::Never) => (ColorChoice::Never, "--color"),
        Some(cli::ColorChoice::Auto) => (ColorChoice::Auto, "--color"),
        None if set("NO_COLOR") => (ColorChoice::Never, "NO_COLOR"),
        None if forced("FORCE_COLOR") => (ColorChoice::Always, "FORCE_COLOR"),
        None if forced("CLICOLOR_FORCE") => (ColorChoice::Always, "CLICOLOR_FORCE"),
        None => return ColorChoice::Auto,
    };
    sources.note("color", &format!("{choice:?}").to_lowercase(), from);
    choice
}

/// diff's sides in command-line order (positional ENVs, `--venv`, `--from-snapshot`,
/// `--python`, as [`Cli::parse_args`] ordered them).
fn diff_envs(args: &cli::DiffArgs) -> Vec<DiffEnv> {
    args.sides
        .iter()
        .map(|side| match side {
            DiffSide::Path(path) => DiffEnv::Path(path.clone()),
            DiffSide::Venv(path) => DiffEnv::Source(EnvironmentSource::Venv(path.clone())),
            DiffSide::Snapshot(path) => DiffEnv::Source(EnvironmentSource::Snapshot(path.clone())),
            DiffSide::Python(path) => DiffEnv::Source(EnvironmentSource::Python(path.clone())),
        })
        .collect()
}

/// The environment selection: `--venv`, `--from-snapshot`, `$VIRTUAL_ENV`, else discovery.
fn environment(args: &EnvArgs, env: &EnvVars) -> EnvironmentSelection {
    let source = if let Some(path) = &args.venv {
        EnvironmentSource::Venv(path.clone())
    } else if let Some(path) = &args.python {
        EnvironmentSource::Python(path.clone())
    } else if let Some(path) = &args.from_snapshot {
        EnvironmentSource::Snapshot(path.clone())
    } else if let Some(path) = env.get_os("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
        EnvironmentSource::ActiveVenv(PathBuf::from(path))
    } else {
        EnvironmentSource::Discover
    };
    EnvironmentSelection {
        source,
        python_version: args.python_version.clone(),
        python_platform: args.python_platform.clone(),
    }
}

fn propose(args: cli::ProposeArgs, sources: &Sources<'_>) -> miette::Result<ProposeSettings> {
    let env = sources.env;
    if args.targets.is_empty() && !args.all {
        return Err(miette!(
            help = "name what to upgrade (`planner propose triton==3.7.0`, `planner propose numpy`), \
                    or pass --all",
            "nothing to propose: no target and no --all"
        ));
    }
    check_targets(&args.targets)?;
    if args.layer.is_some() && !args.targets.is_empty() {
        return Err(miette!(
            help = "drop the targets to see the layers of `--all`, or drop --layer to plan the \
                    targets with everything else that can move",
            "--layer picks a layer of `propose --all` without targets"
        ));
    }
    let policy = sources.policy(args.policy.as_deref())?;
    let max_risk = sources.max_risk(args.max_risk)?;
    let out_dir = match &args.out_dir {
        Some(dir) => Some(std::path::absolute(dir).into_diagnostic()?),
        None => None,
    };
    let mut index = IndexOptions::new(&args.index, sources)?;
    if !args.allow_build {
        if !args.index.no_binary.is_empty() {
            return Err(miette!(
                help = "add --allow-build to plan with source distributions (the commands then \
                        build them), or drop --no-binary",
                "--no-binary needs --allow-build: propose plans with wheels only by default"
            ));
        }
        // The rule the printed commands install under (`--only-binary :all:`, `--no-build`).
        index.binary = BinaryPolicy::new(&[":all:".to_string()], &[]);
    }
    if !args.tests.is_empty() && !args.try_plans && args.try_top.is_none() {
        return Err(miette!(
            help = "add --try (or --try-top N) to run the tests in a copy of the venv per plan",
            "--test runs only with --try"
        ));
    }
    let trial = (args.try_plans || args.try_top.is_some()).then(|| {
        Box::new(ProposeTrial {
            top: args.try_top,
            tests: args.tests.clone(),
            run: crate::verify::run::RunOptions::default(),
        })
    });
    Ok(ProposeSettings {
        environment: environment(&args.env, env),
        index,
        targets: args.targets,
        all: args.all,
        layer: args.layer,
        allow_override: args.allow_override,
        allow_build: args.allow_build,
        policy,
        max_risk,
        out_dir,
        trial,
        prerelease: args.prerelease.into(),
        format: args.format.into(),
    })
}

/// Each target names its package once (the parser refused direct URLs).
fn review(args: cli::ReviewArgs, sources: &Sources<'_>) -> miette::Result<ReviewSettings> {
    if args.from_snapshot.is_some()
        && (args.python_versions.len() > 1 || args.python_platforms.len() > 1)
    {
        return Err(miette!(
            help = "review one snapshot for one target, or drop --from-snapshot to judge several",
            "--from-snapshot takes at most one --python-version and one --python-platform"
        ));
    }
    Ok(ReviewSettings {
        path: args.path.unwrap_or_else(|| PathBuf::from(".")),
        base: args.base,
        head: args.head,
        python_versions: args.python_versions,
        python_platforms: args.python_platforms,
        from_snapshot: args.from_snapshot,
        venv: args.venv,
        policy: sources.policy(args.policy.as_deref())?,
        fail_on: args.fail_on,
        fail_on_unjudged: args.fail_on_unjudged,
        index: IndexOptions::new(&args.index, sources)?,
        format: args.format.into(),
        sarif_file: args.sarif_file,
        actions_repository: sources
            .env
            .get("GITHUB_SERVER_URL")
            .zip(sources.env.get("GITHUB_REPOSITORY")),
    })
}

impl From<cli::ReviewFormat> for ReviewFormat {
    fn from(format: cli::ReviewFormat) -> Self {
        match format {
            cli::ReviewFormat::Text => ReviewFormat::Text,
            cli::ReviewFormat::Json => ReviewFormat::Json,
            cli::ReviewFormat::Markdown => ReviewFormat::Markdown,
            cli::ReviewFormat::Github => ReviewFormat::Github,
            cli::ReviewFormat::Sarif => ReviewFormat::Sarif,
        }
    }
}

fn check_targets(targets: &[Requirement]) -> miette::Result<()> {
    for (i, requirement) in targets.iter().enumerate() {
        if targets[..i].iter().any(|p| p.name == requirement.name) {
            return Err(miette!(
                help = "combine the specifiers into one target: `name>=1,<2`",
                "`{}` is named twice among the targets",
                requirement.name
            ));
        }
    }
    Ok(())
}

impl From<cli::PrereleaseMode> for PrereleaseMode {
    fn from(mode: cli::PrereleaseMode) -> Self {
        match mode {
            cli::PrereleaseMode::IfNecessary => PrereleaseMode::IfNecessary,
            cli::PrereleaseMode::Allow => PrereleaseMode::Allow,
            cli::PrereleaseMode::Disallow => PrereleaseMode::Disallow,
        }
    }
}

impl From<cli::OutputFormat> for OutputFormat {
    fn from(format: cli::OutputFormat) -> Self {
        match format {
            cli::OutputFormat::Text => OutputFormat::Text,
            cli::OutputFormat::Json => OutputFormat::Json,
        }
    }
}

impl From<cli::PlanFormat> for OutputFormat {
    fn from(format: cli::PlanFormat) -> Self {
        match format {
            cli::PlanFormat::Text => OutputFormat::Text,
            cli::PlanFormat::Json => OutputFormat::Json,
            cli::PlanFormat::Markdown => OutputFormat::Markdown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(args: &[&str], env: &[(&str, &str)]) -> miette::Result<Settings> {
        let cli = Cli::try_parse_args_from(std::iter::once("planner").chain(args.iter().copied()))
            .map_err(|err| miette!("{err}"))?;
        // No config file: a folder with none above it.
        let none = std::path::Path::new("/");
        Settings::resolve_in(cli, &EnvVars::from_pairs(env.iter().copied()), none)
    }

    #[test]
    fn the_environment_is_chosen_at_the_boundary() {
        let settings = resolve(&["inventory"], &[("VIRTUAL_ENV", "/v")]).unwrap();
        let CommandSettings::Inventory(inventory) = settings.command else {
            panic!("not inventory");
        };
        assert_eq!(
            inventory.environment.source,
            EnvironmentSource::ActiveVenv("/v".into())
        );
        let settings = resolve(&["inventory", "--venv", "/w"], &[("VIRTUAL_ENV", "/v")]).unwrap();
        let CommandSettings::Inventory(inventory) = settings.command else {
            panic!("not inventory");
        };
        assert_eq!(
            inventory.environment.source,
            EnvironmentSource::Venv("/w".into())
        );
        let settings = resolve(&["inventory"], &[("VIRTUAL_ENV", "")]).unwrap();
        let CommandSettings::Inventory(inventory) = settings.command else {
            panic!("not inventory");
        };
        assert_eq!(inventory.environment.source, EnvironmentSource::Discover);
    }

    #[test]
    fn values_are_domain_types_or_refused_by_the_parser() {
        let settings = resolve(
            &[
                "propose",
                "numpy>=2",
                "--max-risk",
                "HIGH",
                "--python-version",
                "3.12",
                "--python-platform",
                "aarch64-manylinux_2_28",
            ],
            &[],
        )
        .unwrap();
        let CommandSettings::Propose(propose) = settings.command else {
            panic!("not propose");
        };
        assert_eq!(propose.targets[0].name.as_ref(), "numpy");
        assert_eq!(propose.max_risk, Some(RiskLevel::High));
        let version = propose.environment.python_version.unwrap();
        assert_eq!(version.full.to_string(), "3.12.0");
        assert_eq!(
            propose.environment.python_platform.unwrap().platform.arch,
            "aarch64"
        );
        for bad in [
            &["propose", "numpy", "--max-risk", "extreme"][..],
            &["propose", "numpy>>2"],
            &["resolve", "torch>>2"],
            &["inventory", "--python-version", "3"],
            &["inventory", "--python-platform", "sparc-sun-solaris"],
        ] {
            let err = resolve(bad, &[]).unwrap_err().to_string();
            assert!(err.contains("invalid value"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn targets_are_checked_as_a_whole() {
        let err = resolve(&["propose"], &[]).unwrap_err();
        assert!(err.to_string().contains("nothing to propose"));
        let err = resolve(&["propose", "numpy", "NumPy>=2"], &[]).unwrap_err();
        assert!(err.to_string().contains("named twice"), "{err}");
        let err = resolve(&["propose", "x @ https://example.invalid/x.whl"], &[]).unwrap_err();
        assert!(err.to_string().contains("direct URL"), "{err}");
    }

    #[test]
    fn index_settings_read_the_captured_environment() {
        let settings = resolve(
            &["outdated", "--only-binary", ":all:"],
            &[
                ("PIP_INDEX_URL", "https://env.example/simple"),
                ("PLANNER_INDEX_TTL", "5"),
                ("HOME", "/nonexistent-home"),
            ],
        )
        .unwrap();
        let CommandSettings::Outdated(outdated) = settings.command else {
            panic!("not outdated");
        };
        let index = outdated.index.resolve(None).unwrap();
        assert_eq!(index.indexes[0].to_string(), "https://env.example/simple/");
        assert_eq!(index.page_max_age, 5);
        assert_eq!(index.binary, outdated.index.binary);
    }

    #[test]
    fn colour_flag_beats_no_color_which_beats_force_color() {
        let color = |args: &[&str], env: &[(&str, &str)]| {
            let mut all = vec!["inventory"];
            all.extend_from_slice(args);
            resolve(&all, env).unwrap().color
        };
        assert_eq!(color(&[], &[]), ColorChoice::Auto);
        assert_eq!(color(&[], &[("NO_COLOR", "1")]), ColorChoice::Never);
        assert_eq!(color(&[], &[("NO_COLOR", "")]), ColorChoice::Auto);
        assert_eq!(color(&[], &[("FORCE_COLOR", "1")]), ColorChoice::Always);
        assert_eq!(color(&[], &[("FORCE_COLOR", "0")]), ColorChoice::Auto);
        assert_eq!(color(&[], &[("CLICOLOR_FORCE", "1")]), ColorChoice::Always);
        assert_eq!(
            color(&[], &[("NO_COLOR", "1"), ("FORCE_COLOR", "1")]),
            ColorChoice::Never
        );
        assert_eq!(
            color(&["--color", "always"], &[("NO_COLOR", "1")]),
            ColorChoice::Always
        );
        assert_eq!(
            color(&["--color", "never"], &[("FORCE_COLOR", "1")]),
            ColorChoice::Never
        );
    }

    #[test]
    fn diff_sides_keep_command_line_order() {
        let settings = resolve(
            &[
                "diff",
                "--from-snapshot",
                "a.json",
                "b",
                "--python",
                "/p/python",
            ],
            &[],
        )
        .unwrap();
        let CommandSettings::Diff(diff) = settings.command else {
            panic!("not diff");
        };
        assert_eq!(
            diff.envs,
            [
                DiffEnv::Source(EnvironmentSource::Snapshot("a.json".into())),
                DiffEnv::Path("b".into()),
                DiffEnv::Source(EnvironmentSource::Python("/p/python".into())),
            ]
        );
        let settings = resolve(&["inventory", "--python", "/p/python"], &[]).unwrap();
        let CommandSettings::Inventory(inventory) = settings.command else {
            panic!("not inventory");
        };
        assert_eq!(
            inventory.environment.source,
            EnvironmentSource::Python("/p/python".into())
        );
    }

    #[test]
    fn config_values_lose_to_variables_and_flags() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("planner.toml"),
            "max-risk = 'low'\ncache-dir = 'c'\nindex-url = 'https://config.invalid/simple/'\n",
        )
        .unwrap();
        let at = |args: &[&str], env: &[(&str, &str)]| {
            let cli =
                Cli::try_parse_args_from(std::iter::once("planner").chain(args.iter().copied()))
                    .unwrap();
            Settings::resolve_in(cli, &EnvVars::from_pairs(env.iter().copied()), dir.path())
                .unwrap()
        };
        let settings = at(&["propose", "numpy"], &[]);
        let CommandSettings::Propose(propose) = &settings.command else {
            panic!("not propose");
        };
        assert_eq!(propose.max_risk, Some(RiskLevel::Low));
        assert_eq!(propose.index.cache_dir, Some(dir.path().join("c")));
        assert_eq!(
            propose.index.index_url.as_deref(),
            Some("https://config.invalid/simple/")
        );
        assert!(
            settings
                .origins
                .iter()
                .any(|o| o.starts_with("max-risk = low (from ") && o.ends_with("planner.toml)")),
            "{:?}",
            settings.origins
        );
        let settings = at(
            &["propose", "numpy", "--cache-dir", "/flag"],
            &[
                ("PLANNER_MAX_RISK", "high"),
                ("PLANNER_CACHE_DIR", "/env"),
                ("PIP_INDEX_URL", "https://env.invalid/simple/"),
            ],
        );
        let CommandSettings::Propose(propose) = &settings.command else {
            panic!("not propose");
        };
        assert_eq!(propose.max_risk, Some(RiskLevel::High));
        assert_eq!(propose.index.cache_dir, Some(PathBuf::from("/flag")));
        // The variable names the index: the index settings read it, not the config.
        assert_eq!(propose.index.index_url, None);
        let index = propose.index.resolve(None).unwrap();
        assert_eq!(index.indexes[0].to_string(), "https://env.invalid/simple/");
    }

    #[test]
    fn shown_settings_hide_credentials() {
        let settings = resolve(
            &[
                "outdated",
                "--index-url",
                "https://me:s3cret@example.invalid/simple/",
            ],
            &[(
                "PIP_EXTRA_INDEX_URL",
                "https://you:hunter2@example.invalid/",
            )],
        )
        .unwrap();
        let shown = format!("{settings:#?}");
        assert!(shown.contains("example.invalid"), "{shown}");
        assert!(
            !shown.contains("s3cret") && !shown.contains("hunter2"),
            "{shown}"
        );
    }
}
