use miette::miette;

use super::*;
use crate::inventory::EnvironmentSource;
use crate::risk::RiskLevel;

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
        let cli = Cli::try_parse_args_from(std::iter::once("planner").chain(args.iter().copied()))
            .unwrap();
        Settings::resolve_in(cli, &EnvVars::from_pairs(env.iter().copied()), dir.path()).unwrap()
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

#[test]
fn index_credentials_are_redacted_where_the_settings_are_printed() {
    let settings = resolve(
        &[
            "resolve",
            "x",
            "--index-url",
            "https://user:secret1@example.com/simple",
            "--extra-index-url",
            "https://user:secret2@example.org/simple",
        ],
        &[],
    )
    .unwrap();
    let shown = format!("{settings:?}");
    assert!(!shown.contains("secret"), "{shown}");
    assert!(shown.contains("example.com/simple"), "{shown}");
    assert!(shown.contains("example.org/simple"), "{shown}");
}

/// `--format` is one clap enum; a command's settings take only the formats it writes, and
/// review's own are refused by name if one ever reached another command.
#[test]
fn formats_reach_the_commands_as_written() {
    for (format, expected) in [
        (cli::Format::Text, OutputFormat::Text),
        (cli::Format::Json, OutputFormat::Json),
        (cli::Format::Markdown, OutputFormat::Markdown),
    ] {
        assert_eq!(OutputFormat::new(format).unwrap(), expected);
    }
    let refused = OutputFormat::new(cli::Format::Sarif)
        .unwrap_err()
        .to_string();
    assert_eq!(
        refused,
        "--format sarif is written by `planner review` only"
    );
    assert!(OutputFormat::new(cli::Format::Github).is_err());

    let settings = resolve(&["review", "--format", "sarif"], &[]).unwrap();
    let CommandSettings::Review(review) = settings.command else {
        panic!("not review");
    };
    assert_eq!(review.format, ReviewFormat::Sarif);

    // verify's and try's shared flags reach the verification options.
    let flags = [
        "--timeout",
        "7",
        "--jobs",
        "3",
        "--no-smoke",
        "--warm-caches",
    ];
    let verify = [&["verify", "--all"][..], &flags].concat();
    let CommandSettings::Verify(verify) = resolve(&verify, &[]).unwrap().command else {
        panic!("not verify");
    };
    let trial = [&["try", "plan.json"][..], &flags].concat();
    let CommandSettings::Try(trial) = resolve(&trial, &[]).unwrap().command else {
        panic!("not try");
    };
    for run in [&verify.run, &trial.run] {
        assert_eq!((run.timeout, run.jobs), (Some(7), Some(3)));
        assert!(run.no_smoke && run.warm_caches);
    }
}
