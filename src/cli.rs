//! The command line, as clap derive types. No logic lives here: each value is parsed into its
//! domain type by a clap value parser (a bad value is refused before anything runs, exit 2),
//! and [`crate::settings`] turns these types into the settings the commands read.

use std::path::PathBuf;

use clap::builder::NonEmptyStringValueParser;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use pep508_rs::Requirement;

use crate::inventory::{PythonVersion, TargetPlatform};
use crate::plan::LayerChoice;
use crate::risk::RiskLevel;
use values::{
    DATA_FORMATS, LAYERS, PLAN_FORMATS, REVIEW_FORMATS, RISK_LEVELS, format, one_of,
    python_platform, python_version, requirement, target,
};

mod values;

/// Plan upgrades of Python environments before anyone touches them.
///
/// Exit codes: 0 done (a plan was found, the check passed), 1 the user must act (no solution,
/// a check failed, a policy rejected the plan), 2 the tool failed.
#[derive(Debug, Parser)]
#[command(
    name = "planner",
    version,
    about,
    long_about = None,
    max_term_width = 100,
    propagate_version = true
)]
pub struct Cli {
    /// Silence warnings and progress bars (data on stdout is still written).
    #[arg(short, long, global = true, help_heading = "Global options")]
    pub quiet: bool,

    /// Log what is read, which index and cache entry answered, which metadata source was used
    /// and how long each stage took, on stderr; -vv for more (credentials are masked).
    #[arg(
        short,
        long,
        global = true,
        action = clap::ArgAction::Count,
        conflicts_with = "quiet",
        help_heading = "Global options"
    )]
    pub verbose: u8,

    /// When to colour the output: `auto` colours a terminal unless NO_COLOR is set (FORCE_COLOR
    /// or CLICOLOR_FORCE colour a pipe too) [default: auto].
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "WHEN",
        help_heading = "Global options"
    )]
    pub color: Option<ColorChoice>,

    /// Print the resolved settings and stop (for debugging and tests).
    #[arg(long, global = true, hide = true)]
    pub show_settings: bool,

    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parse the process's arguments (exits on a bad command line, as clap's `parse`).
    pub fn parse_args() -> Cli {
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        Cli::try_parse_args_from(&args).unwrap_or_else(|err| {
            // `--format json`: the refusal as a JSON document on stdout too (help and
            // --version are not errors).
            if err.use_stderr() && asks_for_json(&args) {
                let text = err.render().to_string();
                crate::printer::Printer::new(true).out(&crate::render::error::usage_to_json(&text));
            }
            err.exit()
        })
    }

    /// Whether the command's output is JSON (`--format json`): its errors are then written as
    /// a JSON document on stdout too.
    pub fn wants_json(&self) -> bool {
        self.command.format() == Some(Format::Json)
    }

    /// Parse these arguments, the first being the program's name. As clap's derive parsing,
    /// and diff's environments kept in the order they were given ([`DiffArgs::sides`]).
    pub fn try_parse_args_from<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let matches = Cli::command().try_get_matches_from(args)?;
        let mut cli = Cli::from_arg_matches(&matches)?;
        if let (Command::Diff(diff), Some(("diff", sub))) = (&mut cli.command, matches.subcommand())
        {
            diff.sides = diff_sides(sub);
        }
        Ok(cli)
    }
}

/// Whether raw arguments ask for `--format json` (read when clap refused them).
fn asks_for_json(args: &[std::ffi::OsString]) -> bool {
    args.windows(2)
        .any(|pair| pair[0] == "--format" && pair[1] == "json")
        || args.iter().any(|arg| arg == "--format=json")
}

/// diff's positional ENVs, `--venv`, `--from-snapshot` and `--python`, by their position on the
/// command line.
fn diff_sides(matches: &ArgMatches) -> Vec<DiffSide> {
    let mut sides: Vec<(usize, DiffSide)> = Vec::new();
    type Side = fn(PathBuf) -> DiffSide;
    let kinds: [(&str, Side); 4] = [
        ("envs", DiffSide::Path),
        ("venv", DiffSide::Venv),
        ("from_snapshot", DiffSide::Snapshot),
        ("python", DiffSide::Python),
    ];
    for (id, side) in kinds {
        let (Some(indices), Some(values)) =
            (matches.indices_of(id), matches.get_many::<PathBuf>(id))
        else {
            continue;
        };
        sides.extend(indices.zip(values).map(|(i, path)| (i, side(path.clone()))));
    }
    sides.sort_by_key(|(i, _)| *i);
    sides.into_iter().map(|(_, side)| side).collect()
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Propose an upgrade plan for an environment: what changes, what it breaks, safer
    /// alternatives, and the pip/uv commands to carry it out.
    Propose(ProposeArgs),
    /// List the distributions installed in an environment.
    Inventory(InventoryArgs),
    /// Report broken requirements in an environment (like `pip check`, and more).
    Check(CheckArgs),
    /// Write a portable snapshot of an environment, or the script that makes one remotely.
    Snapshot(SnapshotArgs),
    /// Show installed distributions that have newer releases, and what holds them back.
    Outdated(OutdatedArgs),
    /// Resolve requirements against an index for a target Python and platform.
    Resolve(ResolveArgs),
    /// Review the forced and pinned versions a change adds (pyproject.toml, requirements and
    /// constraints files, lock files, pip install lines in Dockerfiles and scripts): what each
    /// breaks, its risk, and the safer plan.
    Review(ReviewArgs),
    /// What changed between two environments, or in one environment since a time.
    Diff(DiffArgs),
    /// Check that an environment still works after a plan (or any change): imports of the
    /// changed dists and of everything that depends on them, where each module comes from,
    /// `pip check` and the policy's smoke tests, run with the environment's own interpreter.
    Verify(VerifyArgs),
    /// Apply a plan in a throw-away copy of the environment and measure it (verification and
    /// your tests, before and after) before anyone touches the real one.
    Try(TryArgs),
    /// Find which changes since a known-good state broke a check: each step reverts a set of
    /// them in a throw-away copy of the venv, runs your test there, and narrows down.
    Bisect(BisectArgs),
    /// Print a shell completion script (`planner completions bash > ~/.local/share/bash-completion/completions/planner`).
    Completions(CompletionsArgs),
    /// Print planner's man page (roff), or write one page per command into a folder.
    Man(ManArgs),
}

impl Command {
    /// The command's `--format` (`None` for the commands that have none).
    pub fn format(&self) -> Option<Format> {
        Some(match self {
            Command::Propose(a) => a.format,
            Command::Diff(a) => a.format,
            Command::Try(a) => a.format,
            Command::Bisect(a) => a.format,
            Command::Inventory(a) => a.format,
            Command::Check(a) => a.format,
            Command::Outdated(a) => a.format,
            Command::Resolve(a) => a.format,
            Command::Verify(a) => a.format,
            Command::Review(a) => a.format,
            Command::Snapshot(_) | Command::Completions(_) | Command::Man(_) => return None,
        })
    }
}

/// `--color`. A mirror of `printer::ColorChoice`, which lives below the CLI and does
/// not depend on clap; the settings layer converts it (an exhaustive match, so a variant added
/// there fails to compile until it is offered here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour a terminal, unless NO_COLOR is set; FORCE_COLOR or CLICOLOR_FORCE colour a pipe.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// `planner completions`.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `planner man`.
#[derive(Debug, Clone, Args)]
pub struct ManArgs {
    /// Write planner.1 and one page per command (planner-propose.1, ...) into this folder
    /// instead of printing planner.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// `planner review`.
#[derive(Debug, Clone, Args)]
pub struct ReviewArgs {
    /// A folder inside the git repository to review [default: the current folder].
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// The revision to compare against [default: the merge base of --head with the default
    /// branch: origin/HEAD, else main, else master].
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    /// The revision under review.
    #[arg(long, value_name = "REF", default_value = "HEAD")]
    pub head: String,
    /// Judge for this Python version (X.Y or X.Y.Z); repeat for several targets.
    #[arg(long = "python-version", value_name = "VERSION", value_parser = python_version)]
    pub python_versions: Vec<PythonVersion>,
    /// Judge for this platform, in uv's spelling (`x86_64-manylinux_2_28`); repeat for several
    /// targets (each version with each platform).
    #[arg(long = "python-platform", value_name = "PLATFORM", value_parser = python_platform)]
    pub python_platforms: Vec<TargetPlatform>,
    /// Judge against the real environment of this snapshot (`planner snapshot` or `pip
    /// inspect` output) instead of resolving each file's other requirements.
    #[arg(long, value_name = "FILE", conflicts_with = "venv")]
    pub from_snapshot: Option<PathBuf>,
    /// Judge against this virtual environment, its installed files included: what its code
    /// imports and links against is evidence of a break (`import-target-missing`,
    /// `abi-break`), so the safer plan may move the dependents along.
    #[arg(
        long,
        value_name = "PATH",
        conflicts_with_all = ["python_versions", "python_platforms"]
    )]
    pub venv: Option<PathBuf>,
    /// The risk policy: a built-in one by name (`default`, `ml-cuda`), or a TOML file read over
    /// the default [default: default].
    #[arg(long, value_name = "NAME|FILE")]
    pub policy: Option<PathBuf>,
    /// Exit 1 when a finding's risk is at or above this level (low, medium, high, critical),
    /// or when the head makes a file's requirements unresolvable.
    #[arg(long, value_name = "LEVEL", ignore_case = true, value_parser = one_of::<RiskLevel>(RISK_LEVELS))]
    pub fail_on: Option<RiskLevel>,
    /// Exit 1 as well when a changed pin could not be judged on any target.
    #[arg(long)]
    pub fail_on_unjudged: bool,
    /// Output format.
    #[arg(long, value_parser = format(REVIEW_FORMATS), default_value = "text")]
    pub format: Format,
    /// Also write SARIF 2.1.0 to this file (the same review; for code scanning).
    #[arg(long, value_name = "FILE")]
    pub sarif_file: Option<PathBuf>,
    /// With --venv: try the plan each changed pin makes (as pinned) and the safer plan, each in
    /// a throw-away copy of the venv (as `planner try` does), and show what each measured; pins
    /// that measure a regression as pinned exit 1.
    #[arg(long = "try", requires = "venv")]
    pub try_plans: bool,
    /// With --try: a test command run with `sh -c` in each copy before and after its plan;
    /// repeat for more.
    #[arg(long = "test", value_name = "CMD", value_parser = NonEmptyStringValueParser::new(), requires = "try_plans")]
    pub tests: Vec<String>,
    /// Where package metadata comes from.
    #[command(flatten)]
    pub index: IndexArgs,
}

/// `planner diff`.
#[derive(Debug, Clone, Args)]
pub struct DiffArgs {
    /// A and B: each a venv, a `planner snapshot` file or `pip inspect` output. With --since,
    /// one environment at most [default: $VIRTUAL_ENV, else ./.venv].
    #[arg(value_name = "ENV", num_args = 0..=2)]
    pub envs: Vec<PathBuf>,
    /// A virtual environment as one side; repeat for both (sides are taken in command-line
    /// order, positional ENVs among them).
    #[arg(long, value_name = "PATH")]
    pub venv: Vec<PathBuf>,
    /// A snapshot (`planner snapshot` or `pip inspect` output) as one side; repeatable.
    #[arg(long, value_name = "FILE")]
    pub from_snapshot: Vec<PathBuf>,
    /// The environment of this interpreter as one side; repeatable.
    #[arg(long, value_name = "PATH")]
    pub python: Vec<PathBuf>,
    /// The sides in command-line order (filled by [`Cli::parse_args`]).
    #[arg(skip)]
    pub sides: Vec<DiffSide>,
    /// What was installed or replaced since WHEN (a date, a timestamp, or a duration such as
    /// 3d, 12h), from the install records' file times.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Output format.
    #[arg(long, value_parser = format(PLAN_FORMATS), default_value = "text")]
    pub format: Format,
}

/// One side of `planner diff`, as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffSide {
    /// A positional ENV: a venv folder, or a snapshot or `pip inspect` file.
    Path(PathBuf),
    /// `--venv`.
    Venv(PathBuf),
    /// `--from-snapshot`.
    Snapshot(PathBuf),
    /// `--python`.
    Python(PathBuf),
}

/// How a command prints its output (`--format`): one set for every command. Each command takes
/// the formats it writes (`DATA_FORMATS`, `PLAN_FORMATS` or `REVIEW_FORMATS` in
/// `cli/values.rs`); clap refuses the others, naming the ones it takes (exit 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For a terminal (for humans).
    Text,
    /// The documented JSON schema (for computers).
    Json,
    /// For a pull request or a ticket.
    Markdown,
    /// GitHub Actions workflow annotations on the changed lines.
    Github,
    /// SARIF 2.1.0 (code scanning).
    Sarif,
}

/// Which environment to read.
#[derive(Debug, Clone, Args, Default)]
#[command(next_help_heading = "Environment options")]
pub struct EnvArgs {
    /// The virtual environment to read [default: $VIRTUAL_ENV, else ./.venv, else the python3
    /// on PATH].
    #[arg(long, value_name = "PATH", conflicts_with_all = ["from_snapshot", "python"])]
    pub venv: Option<PathBuf>,

    /// Read the environment from a snapshot (`planner snapshot` output, or `pip inspect` output)
    /// instead of a venv.
    #[arg(long, value_name = "FILE", conflicts_with = "python")]
    pub from_snapshot: Option<PathBuf>,

    /// Read the environment of this interpreter (a venv's bin/python, or any python3).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,

    /// Target this Python version (X.Y or X.Y.Z) instead of the environment's own: its markers
    /// and wheel tags.
    #[arg(long, value_name = "VERSION", value_parser = python_version)]
    pub python_version: Option<PythonVersion>,

    /// Target this platform instead of the environment's own, in uv's spelling
    /// (e.g. `x86_64-manylinux_2_28`, `aarch64-apple-darwin`, `x86_64-pc-windows-msvc`).
    #[arg(long, value_name = "PLATFORM", value_parser = python_platform)]
    pub python_platform: Option<TargetPlatform>,
}

/// Where package metadata comes from.
#[derive(Debug, Clone, Args, Default)]
#[command(next_help_heading = "Index options")]
pub struct IndexArgs {
    /// The package index (PEP 691 JSON or PEP 503 HTML; a local folder or file:// URL laid out
    /// as a simple index also works) [env: PIP_INDEX_URL, UV_INDEX_URL, UV_DEFAULT_INDEX;
    /// default: pip.conf, else the public index].
    #[arg(long, value_name = "URL")]
    pub index_url: Option<String>,

    /// More indexes. Unlike pip, a name is taken from the first index that has it (uv's
    /// first-index rule), which blocks dependency confusion [env: PIP_EXTRA_INDEX_URL,
    /// UV_EXTRA_INDEX_URL].
    #[arg(long, value_name = "URL")]
    pub extra_index_url: Vec<String>,

    /// The cache folder [env: PLANNER_CACHE_DIR; default: the config file's `cache-dir`, else
    /// the platform's cache folder].
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,

    /// Answer from the cache only; never touch the network.
    #[arg(long, conflicts_with = "refresh")]
    pub offline: bool,

    /// Ignore cached index data and fetch again.
    #[arg(long)]
    pub refresh: bool,

    /// Only use wheels for these packages (`:all:` for every package, `:none:` to reset).
    #[arg(long, value_name = "PKG")]
    pub only_binary: Vec<String>,

    /// Never use wheels for these packages (`:all:` for every package, `:none:` to reset).
    #[arg(long, value_name = "PKG")]
    pub no_binary: Vec<String>,

    /// Ask the `keyring` command for index credentials not in the URL or ~/.netrc, as pip and
    /// uv do (`keyring get URL USER`) [env: PIP_KEYRING_PROVIDER, UV_KEYRING_PROVIDER; default:
    /// disabled].
    #[arg(long, value_enum, value_name = "PROVIDER")]
    pub keyring_provider: Option<KeyringProvider>,
}

/// Where index credentials may also come from. A mirror of `index::KeyringProvider`
/// (the index does not depend on clap), converted by an exhaustive match in the settings layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KeyringProvider {
    /// Never ask a keyring.
    Disabled,
    /// Run the `keyring` command found on PATH.
    Subprocess,
}

/// Pre-release policy. A mirror of `solve::PrereleaseMode` (the solver does not depend
/// on clap), converted by an exhaustive match in the settings layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum PrereleaseMode {
    /// Pre-releases only where a specifier names one or no final release matches (PEP 440).
    #[default]
    IfNecessary,
    /// Pre-releases are ordinary candidates.
    Allow,
    /// Never pre-releases.
    Disallow,
}

/// `planner inventory`.
#[derive(Debug, Clone, Args)]
pub struct InventoryArgs {
    /// Output format.
    #[arg(long, value_parser = format(DATA_FORMATS), default_value = "text")]
    pub format: Format,
    /// Which environment to read.
    #[command(flatten)]
    pub env: EnvArgs,
}

/// `planner check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// Plan files (written by `planner propose`) whose accepted overrides are not reported.
    #[arg(long, value_name = "PLAN")]
    pub accept: Vec<PathBuf>,
    /// Hash every installed file against its RECORD, binaries too (by default Python sources
    /// and text are hashed and other files compared by size).
    #[arg(long)]
    pub hash_binaries: bool,
    /// Output format.
    #[arg(long, value_parser = format(DATA_FORMATS), default_value = "text")]
    pub format: Format,
    /// Which environment to read.
    #[command(flatten)]
    pub env: EnvArgs,
}

/// `planner snapshot`.
#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["out", "script"])))]
pub struct SnapshotArgs {
    /// Write the snapshot to this file (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print a standalone Python 3.8+ script that writes the same snapshot on another machine.
    #[arg(long)]
    pub script: bool,
    /// Which environment to read.
    #[command(flatten)]
    pub env: EnvArgs,
}

/// `planner outdated`.
#[derive(Debug, Clone, Args)]
pub struct OutdatedArgs {
    /// Output format.
    #[arg(long, value_parser = format(DATA_FORMATS), default_value = "text")]
    pub format: Format,
    /// Which environment to read.
    #[command(flatten)]
    pub env: EnvArgs,
    /// Where package metadata comes from.
    #[command(flatten)]
    pub index: IndexArgs,
}

/// `planner resolve`.
#[derive(Debug, Clone, Args)]
pub struct ResolveArgs {
    /// Requirements (PEP 508).
    #[arg(value_name = "REQ", value_parser = requirement)]
    pub requirements: Vec<Requirement>,
    /// Read requirements from a file.
    #[arg(short = 'r', long = "requirement", value_name = "FILE")]
    pub requirement_files: Vec<PathBuf>,
    /// Constrain versions without adding requirements.
    #[arg(short = 'c', long = "constraint", value_name = "FILE")]
    pub constraint_files: Vec<PathBuf>,
    /// Replace every requirement on a name with the one in this file (uv's overrides).
    #[arg(long = "override", value_name = "FILE")]
    pub override_files: Vec<PathBuf>,
    /// Pre-release policy.
    #[arg(long, value_enum, default_value_t)]
    pub prerelease: PrereleaseMode,
    /// Output format.
    #[arg(long, value_parser = format(DATA_FORMATS), default_value = "text")]
    pub format: Format,
    /// Which environment to read.
    #[command(flatten)]
    pub env: EnvArgs,
    /// Where package metadata comes from.
    #[command(flatten)]
    pub index: IndexArgs,
}

/// `planner propose`.
#[derive(Debug, Clone, Args)]
pub struct ProposeArgs {
    /// What to upgrade (PEP 508: `triton==3.7.0`, `numpy>=2`; a bare name means the newest the
    /// environment can take).
    #[arg(value_name = "TARGET", value_parser = target)]
    pub targets: Vec<Requirement>,
    /// Upgrade everything that can move, in layers: the safe one (recommended), one plan per
    /// coupled group, one per major upgrade. Takes no TARGET (plan a target on its own).
    #[arg(long)]
    pub all: bool,
    /// With --all: only this layer (`safe`, `group`, `major`, or `everything` at once).
    #[arg(long, value_name = "LAYER", requires = "all", value_parser = one_of::<LayerChoice>(LAYERS))]
    pub layer: Option<LayerChoice>,
    /// Also offer a forced override when a target cannot be had otherwise.
    #[arg(long)]
    pub allow_override: bool,
    /// Also plan with source distributions (sdists), which the printed commands then build.
    /// Without it, plans use wheels only, as the commands install them (`--only-binary :all:`,
    /// `uv --no-build`), and `--no-binary` is refused.
    #[arg(long)]
    pub allow_build: bool,
    /// The risk policy: a built-in one by name (`default`, `ml-cuda`), or a TOML file read over
    /// the default [default: default].
    #[arg(long, value_name = "NAME|FILE")]
    pub policy: Option<PathBuf>,
    /// Exit 1 when the recommended plan's risk is above this level (low, medium, high,
    /// critical).
    #[arg(long, value_name = "LEVEL", ignore_case = true, value_parser = one_of::<RiskLevel>(RISK_LEVELS))]
    pub max_risk: Option<RiskLevel>,
    /// Write the plan file, constraints, overrides, commands and verify script here.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Try each plan in a throw-away copy of the venv (as `planner try` does) and show what it
    /// measured beside its risk; recommends the lowest-risk plan that measured clean.
    #[arg(long = "try")]
    pub try_plans: bool,
    /// Try only the first N plans (implies --try).
    #[arg(long, value_name = "N")]
    pub try_top: Option<usize>,
    /// With --try: a test command run with `sh -c` in each copy before and after its plan;
    /// repeat for more.
    #[arg(long = "test", value_name = "CMD", value_parser = NonEmptyStringValueParser::new())]
    pub tests: Vec<String>,
    /// Pre-release policy.
    #[arg(long, value_enum, default_value_t)]
    pub prerelease: PrereleaseMode,
    /// Output format.
    #[arg(long, value_parser = format(PLAN_FORMATS), default_value = "text")]
    pub format: Format,
    /// Which environment to read.
    #[command(flatten)]
    pub env: EnvArgs,
    /// Where package metadata comes from.
    #[command(flatten)]
    pub index: IndexArgs,
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// Every value offered for `--max-risk`, `--fail-on` and `--layer` parses.
    #[test]
    fn offered_values_parse() {
        for value in RISK_LEVELS {
            assert!(RiskLevel::from_str(value).is_ok(), "{value}");
        }
        for value in LAYERS {
            assert!(LayerChoice::from_str(value).is_ok(), "{value}");
        }
    }

    /// The `--format` values a command offers (and `--help` and completion list), in order.
    fn offered_formats(command: &str) -> Vec<String> {
        let cli = Cli::command();
        let sub = cli.find_subcommand(command).expect("a command");
        let arg = sub.get_arguments().find(|a| a.get_id() == "format");
        let values = arg.expect("--format").get_possible_values();
        values.iter().map(|v| v.get_name().to_string()).collect()
    }

    /// One `--format` enum: each command offers the formats it writes, and the parser refuses
    /// the others naming those it takes (exit 2), as each command's own enum did.
    #[test]
    fn each_command_offers_its_formats() {
        for command in ["inventory", "check", "outdated", "resolve", "verify"] {
            assert_eq!(offered_formats(command), ["text", "json"], "{command}");
        }
        for command in ["propose", "diff", "try", "bisect"] {
            assert_eq!(
                offered_formats(command),
                ["text", "json", "markdown"],
                "{command}"
            );
        }
        let all = ["text", "json", "markdown", "github", "sarif"];
        assert_eq!(offered_formats("review"), all);

        let refused = Cli::try_parse_args_from(["planner", "verify", "--all", "--format", "sarif"])
            .expect_err("verify writes no SARIF");
        assert_eq!(refused.kind(), clap::error::ErrorKind::InvalidValue);
        let text = refused.to_string();
        assert!(
            text.contains("invalid value 'sarif' for '--format <FORMAT>'"),
            "{text}"
        );
        assert!(text.contains("[possible values: text, json]"), "{text}");

        let review = Cli::try_parse_args_from(["planner", "review", "--format", "github"]);
        assert_eq!(
            review.expect("review").command.format(),
            Some(Format::Github)
        );
        let diff = Cli::try_parse_args_from(["planner", "diff", "a", "b"]).expect("diff");
        assert_eq!(diff.command.format(), Some(Format::Text));
        assert!(!diff.wants_json());
        let try_ = Cli::try_parse_args_from(["planner", "try", "plan.json", "--format", "json"]);
        assert!(try_.expect("try").wants_json());
    }
}

/// `planner verify`.
#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(true).args(["plan", "all"])))]
pub struct VerifyArgs {
    /// The virtual environment to verify [default: $VIRTUAL_ENV, else ./.venv, else the python3
    /// on PATH].
    #[arg(long, value_name = "PATH", conflicts_with = "python")]
    pub venv: Option<PathBuf>,

    /// The interpreter whose environment to verify.
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,

    /// The plan that was carried out (a plan.json written by `planner propose --out-dir`): its
    /// versions, its changed dists and their dependents, its accepted overrides.
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,

    /// Check every installed dist's imports and every smoke test whose package is installed.
    #[arg(long)]
    pub all: bool,

    /// The risk policy whose smoke tests run: a built-in one by name (`default`, `ml-cuda`), or
    /// a TOML file read over the default [default: default].
    #[arg(long, value_name = "NAME|FILE")]
    pub policy: Option<PathBuf>,

    /// Record the checks as a baseline in FILE (before the plan is applied); exits 0.
    #[arg(long, value_name = "FILE", conflicts_with = "compare")]
    pub baseline: Option<PathBuf>,

    /// Compare with a baseline recorded earlier: only regressions fail.
    #[arg(long, value_name = "FILE")]
    pub compare: Option<PathBuf>,

    /// Also write the JSON report to FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// How the verification runs.
    #[command(flatten)]
    pub run: VerifyRunArgs,

    /// With --all: seconds the whole check may take; imports below the top level start only
    /// while they last (top-level imports, smoke tests and pip check always run) [default: 30].
    #[arg(long, value_name = "SECONDS")]
    pub budget: Option<u32>,

    /// Import each module in a fresh interpreter, not forked from a warm parent per dist.
    #[arg(long)]
    pub no_fork: bool,

    /// No automatic baseline: neither record one when the plan's changes are not installed yet
    /// nor compare with the one next to the plan.
    #[arg(long, conflicts_with_all = ["baseline", "compare"])]
    pub plain: bool,

    /// Your own check (a test suite, a training smoke step), run by the shell: with --baseline
    /// and --compare, a command that passed before and fails after is a regression. Repeatable.
    #[arg(long = "test", value_name = "CMD", value_parser = NonEmptyStringValueParser::new())]
    pub tests: Vec<String>,

    /// Output format.
    #[arg(long, value_parser = format(DATA_FORMATS), default_value = "text")]
    pub format: Format,
}

/// How verification runs, for `verify` and `try`.
#[derive(Debug, Clone, Args)]
pub struct VerifyRunArgs {
    /// Seconds one import may take [default: 180].
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u32>,

    /// Imports run at once [default: every core].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,

    /// Skip the smoke tests.
    #[arg(long)]
    pub no_smoke: bool,

    /// Keep your compile caches (inductor, Triton, JAX, CuPy). By default every verification run
    /// compiles into fresh empty cache folders, removed afterwards, so that a kernel compiled
    /// before cannot let a check pass.
    #[arg(long)]
    pub warm_caches: bool,
}

/// `planner try`.
#[derive(Debug, Clone, Args)]
pub struct TryArgs {
    /// The plan: a plan.json, or a plan folder written by `planner propose --out-dir`.
    #[arg(value_name = "PLAN")]
    pub plan: PathBuf,

    /// The virtual environment to copy [default: the venv the plan was made for, else
    /// $VIRTUAL_ENV, else ./.venv].
    #[arg(long, value_name = "PATH", conflicts_with = "python")]
    pub venv: Option<PathBuf>,

    /// The interpreter whose environment to copy (a venv's bin/python).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,

    /// A test command, run with `sh -c` in the copy (activated) before and after the plan;
    /// repeat for more. A test that passed before and fails after is a regression.
    #[arg(long = "test", value_name = "CMD", value_parser = NonEmptyStringValueParser::new())]
    pub tests: Vec<String>,

    /// Make the copy in DIR (a new folder) and keep it afterwards.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,

    /// The index to install from [default: the one the plan was made with].
    #[arg(long, value_name = "URL")]
    pub index_url: Option<String>,

    /// The risk policy whose smoke tests run: a built-in one by name (`default`, `ml-cuda`), or
    /// a TOML file read over the default [default: default].
    #[arg(long, value_name = "NAME|FILE")]
    pub policy: Option<PathBuf>,

    /// How the verification runs.
    #[command(flatten)]
    pub run: VerifyRunArgs,

    /// Output format.
    #[arg(long, value_parser = format(PLAN_FORMATS), default_value = "text")]
    pub format: Format,
}

/// `planner bisect`.
#[derive(Debug, Clone, Args)]
pub struct BisectArgs {
    /// The known-good state: a `planner snapshot` file, `pip inspect` output, or a venv.
    #[arg(long, value_name = "SNAPSHOT", required_unless_present = "since")]
    pub good: Option<PathBuf>,

    /// The good state is the environment as it was before WHEN (a date, a timestamp, or a
    /// duration such as 3d, 12h), reconstructed from install records and the index's upload
    /// times.
    #[arg(long, value_name = "WHEN", conflicts_with = "good")]
    pub since: Option<String>,

    /// The virtual environment that fails now [default: $VIRTUAL_ENV, else ./.venv].
    #[arg(long, value_name = "PATH", conflicts_with = "python")]
    pub venv: Option<PathBuf>,

    /// The interpreter whose environment fails now (a venv's bin/python).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,

    /// The check: a command run with `sh -c` in each copy (activated); repeat for more, all
    /// must pass.
    #[arg(long = "test", value_name = "CMD", value_parser = NonEmptyStringValueParser::new(), required_unless_present = "verify")]
    pub tests: Vec<String>,

    /// Use planner's verification (every dist's imports, `pip check`, the policy's smoke
    /// tests) as the check, with the --test commands if any.
    #[arg(long)]
    pub verify: bool,

    /// Run a failing check up to N more times; a pass on any run counts (for flaky tests).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub retries: u32,

    /// Seconds one run of the check may take; a run that takes longer is killed and counts as
    /// failing.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,

    /// Keep each step's copy in DIR/step-N (a new folder).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,

    /// The index to install the good versions from (and, with --since, to read upload times
    /// from) [default: the installer's own configuration].
    #[arg(long, value_name = "URL")]
    pub index_url: Option<String>,

    /// The risk policy whose smoke tests --verify runs: `default`, `ml-cuda`, or a TOML file.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_parser = format(PLAN_FORMATS), default_value = "text")]
    pub format: Format,
}
