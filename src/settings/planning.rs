//! The settings of the commands that plan or judge against the index: `propose`, `resolve`,
//! `outdated` and `review`.
//!
//! In: their clap arguments and the [`Sources`]. Out: [`ProposeSettings`], [`ResolveSettings`],
//! [`OutdatedSettings`], [`ReviewSettings`].

use std::path::PathBuf;

use miette::{IntoDiagnostic, miette};
use pep508_rs::Requirement;

use super::OutputFormat;
use super::index::IndexOptions;
use super::sources::{Sources, environment};
use crate::cli;
use crate::index::BinaryPolicy;
use crate::inventory::{EnvironmentSelection, PythonVersion, TargetPlatform};
use crate::plan::LayerChoice;
use crate::risk::{Policy, RiskLevel};
use crate::solve::PrereleaseMode;

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
    /// The GitHub API compare links' tags are checked on: `GITHUB_API_URL` with `GITHUB_TOKEN`
    /// (GitHub Actions sets both; `None` unless both are set).
    pub github_api: Option<crate::review::forge::GitHubApi>,
    /// `--try`: the plans tried in copies of the `--venv`.
    pub trial: Option<Box<ReviewTrial>>,
}

/// `review --try`.
#[derive(Debug)]
pub(crate) struct ReviewTrial {
    /// `--test` command lines.
    pub tests: Vec<String>,
    /// Passed through to `verify.py`.
    pub run: crate::verify::run::RunOptions,
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

pub(super) fn propose(
    args: cli::ProposeArgs,
    sources: &Sources<'_>,
) -> miette::Result<ProposeSettings> {
    let env = sources.env;
    if args.targets.is_empty() && !args.all {
        return Err(miette!(
            help = "name what to upgrade (`planner propose triton==3.7.0`, `planner propose numpy`), \
                    or pass --all",
            "nothing to propose: no target and no --all"
        ));
    }
    check_targets(&args.targets)?;
    if args.all && !args.targets.is_empty() {
        return Err(miette!(
            help = "drop the targets to see the layers of `--all` (each dist moves as far as its \
                    layer allows), or drop --all to plan the targets",
            "--all takes no targets: it plans everything that can move, in layers"
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
        format: OutputFormat::new(args.format)?,
    })
}

/// Each target names its package once (the parser refused direct URLs).
pub(super) fn review(
    args: cli::ReviewArgs,
    sources: &Sources<'_>,
) -> miette::Result<ReviewSettings> {
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
        trial: args.try_plans.then(|| {
            Box::new(ReviewTrial {
                tests: args.tests.clone(),
                run: crate::verify::run::RunOptions::default(),
            })
        }),
        actions_repository: sources
            .env
            .get("GITHUB_SERVER_URL")
            .zip(sources.env.get("GITHUB_REPOSITORY")),
        github_api: crate::review::forge::GitHubApi::from_env(&|name| sources.env.get(name)),
    })
}

impl From<cli::Format> for ReviewFormat {
    fn from(format: cli::Format) -> Self {
        match format {
            cli::Format::Text => ReviewFormat::Text,
            cli::Format::Json => ReviewFormat::Json,
            cli::Format::Markdown => ReviewFormat::Markdown,
            cli::Format::Github => ReviewFormat::Github,
            cli::Format::Sarif => ReviewFormat::Sarif,
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
