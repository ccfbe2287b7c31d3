//! `propose --allow-build` on an sdist without static metadata: the index of
//! `testdata/build-sdist` (written by its `make.py`), served on loopback. `inbuild 1.0` has only
//! an sdist whose PKG-INFO is Metadata-Version 2.1 (a static read cannot trust its requirements,
//! PEP 643); its in-tree PEP 517 backend (`requires = []`, so the build needs nothing from an
//! index) prepares metadata requiring `depa>=2`. The venv is a real one holding depa 1.0.
//!
//! Without the metadata build the solver has no requirements for inbuild 1.0 and no plan; with
//! it the plan moves depa to 2.0 for inbuild, says the sdist is built, leaves the venv as it
//! was, and a second run `--offline` reads the built metadata from the cache.

use std::path::{Path, PathBuf};

use crate::common::index_server::IndexServer;
use crate::common::venv::RealVenv;
use crate::common::{Output, TestContext};

fn index_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/build-sdist/index")
}

/// The index served on loopback and a real venv beside it (holding depa 1.0 when `depa`).
struct World {
    _root: tempfile::TempDir,
    server: IndexServer,
    url: String,
    venv: RealVenv,
}

impl World {
    fn new(depa: bool) -> World {
        let root = tempfile::tempdir().unwrap();
        let server = IndexServer::start(&index_dir());
        let url = server.url();
        let venv = RealVenv::create(&root.path().join("venv"));
        if depa {
            let links = index_dir().join("wheels").display().to_string();
            let args = ["install", "--no-deps", "--quiet", "--find-links", &links];
            venv.pip_ok(&[&args[..], &["depa==1.0"]].concat());
        }
        World {
            _root: root,
            server,
            url,
            venv,
        }
    }
}

/// Every file under `dir` with its bytes, sorted: the venv's tree, to compare.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = crate::common::files_under(dir)
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(&f).unwrap_or_default();
            (f, bytes)
        })
        .collect();
    files.sort();
    files
}

/// The plans' changes and warnings, one line each (or the conflict's explanation).
fn summary(out: &Output) -> String {
    let json = out.json();
    let mut lines = vec![format!("exit {}", out.code.unwrap_or(-1))];
    for plan in json["plans"].as_array().unwrap() {
        lines.push(format!("plan: {}", plan["title"].as_str().unwrap()));
        for change in plan["changes"].as_array().unwrap() {
            lines.push(format!(
                "  {} {} -> {}",
                change["name"].as_str().unwrap(),
                change["from"].as_str().unwrap_or("-"),
                change["to"].as_str().unwrap_or("-")
            ));
        }
        for warning in plan["warnings"].as_array().unwrap() {
            lines.push(format!("  warning: {}", warning.as_str().unwrap()));
        }
    }
    if let Some(explanation) = json["conflict"]["explanation"].as_str() {
        lines.push(format!("conflict: {explanation}"));
    }
    lines.join("\n")
}

#[test]
fn an_sdist_without_static_metadata_is_built_for_its_requirements() {
    let World {
        _root,
        server: _server,
        url,
        venv,
    } = World::new(true);
    let before = tree(&venv.path);
    let ctx = TestContext::new();
    let propose = |extra: &[&str]| {
        let mut args = vec!["inbuild", "--format", "json"];
        args.extend_from_slice(extra);
        ctx.propose(&venv.path, &url, &args)
    };

    // Without `--allow-build` nothing is built: sdists are not planned.
    let out = propose(&[]);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);

    let out = propose(&["--allow-build"]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    // The build's seconds vary.
    let summary_online = summary(&out)
        .split("by pip, ")
        .enumerate()
        .map(|(i, part)| match (i, part.split_once(" s;")) {
            (0, _) | (_, None) => part.to_string(),
            (_, Some((_, rest))) => format!("[SECONDS] s;{rest}"),
        })
        .collect::<Vec<_>>()
        .join("by pip, ");
    insta::assert_snapshot!(summary_online, @"
    exit 0
    plan: As asked: inbuild
      depa 1.0 -> 2.0
      inbuild - -> 1.0
      warning: inbuild 1.0 is built from source (inbuild-1.0.tar.gz): its requirements were read from a metadata build by pip, [SECONDS] s; the commands build it at install
    ");
    assert!(tree(&venv.path) == before, "the venv changed");

    // Offline, the built metadata comes from the cache (no build runs).
    let out = propose(&["--allow-build", "--offline"]);
    insta::assert_snapshot!(summary(&out), @"
    exit 0
    plan: As asked: inbuild
      depa 1.0 -> 2.0
      inbuild - -> 1.0
      warning: inbuild 1.0 is built from source (inbuild-1.0.tar.gz): its requirements were read from a metadata build by pip, cached; the commands build it at install
    ");
    assert!(tree(&venv.path) == before, "the venv changed");
}

/// `--offline` without built metadata in the cache says so (the pages are cached by a run
/// without `--allow-build`).
#[test]
fn offline_without_built_metadata_says_so() {
    let World {
        _root,
        server: _server,
        url,
        venv,
    } = World::new(true);
    let ctx = TestContext::new();
    let out = ctx.propose(&venv.path, &url, &["inbuild", "--format", "json"]);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    let args = ["inbuild", "--format", "json", "--allow-build", "--offline"];
    let out = ctx.propose(&venv.path, &url, &args);
    insta::assert_snapshot!(summary(&out), @"
    exit 1
    conflict: Because inbuild==1.0 has metadata that cannot be read (metadata of inbuild-1.0.tar.gz is unavailable without a build: --offline, and no metadata build of it is cached (run once online with --allow-build)) and you require inbuild, your requirements are unsatisfiable.
    ");
}

/// An sdist whose `pyproject.toml` build requirements weigh more than `PLANNER_BUILD_REQUIRES_MB`
/// (500) in wheels is not built: `heavybuild` requires `bigdep`, whose one wheel the index lists
/// at 600 MiB. The refusal names the requirement and its size; nothing is downloaded for it.
#[test]
fn a_build_whose_requirements_are_too_large_is_refused() {
    let World {
        _root,
        server,
        url,
        venv,
    } = World::new(false);
    let ctx = TestContext::new();
    let args = ["heavybuild", "--format", "json", "--allow-build"];
    let out = ctx.propose(&venv.path, &url, &args);
    insta::assert_snapshot!(summary(&out), @"
    exit 1
    conflict: Because heavybuild==1.0 has metadata that cannot be read (metadata of heavybuild-1.0.tar.gz is unavailable without a build: its build requires bigdep 1.0 (600 MB), over the 500 MB of wheels planner fetches for a metadata build (PLANNER_BUILD_REQUIRES_MB raises the limit)) and you require heavybuild, your requirements are unsatisfiable.
    ");
    let fetched: Vec<String> = server
        .requests("/files/bigdep")
        .iter()
        .map(|r| format!("{r:?}"))
        .collect();
    assert_eq!(fetched, Vec::<String>::new());
    // The refusal is remembered for a day: the next run says so without reading the sdist.
    server.clear_log();
    let out = ctx.propose(&venv.path, &url, &args);
    insta::assert_snapshot!(summary(&out), @"
    exit 1
    conflict: Because heavybuild==1.0 has metadata that cannot be read (metadata of heavybuild-1.0.tar.gz is unavailable without a build: its build requires bigdep 1.0 (600 MB), over the 500 MB of wheels planner fetches for a metadata build (PLANNER_BUILD_REQUIRES_MB raises the limit) (remembered from an attempt in the last day; --refresh tries again)) and you require heavybuild, your requirements are unsatisfiable.
    ");
    assert_eq!(server.requests("/files/heavybuild").len(), 0);
}

/// An environment read from its files alone (no interpreter: a venv copied from another machine,
/// like the shared GPU fixture) cannot run a metadata build, which needs its interpreter: every
/// release says why, naming the missing interpreter, and the sdist is fetched no more than a run
/// without `--allow-build` fetches it (for its static metadata), none for a build.
#[test]
fn no_metadata_build_without_the_environments_interpreter() {
    let World {
        _root,
        server,
        url,
        venv,
    } = World::new(false);
    for entry in std::fs::read_dir(venv.path.join("bin")).unwrap().flatten() {
        if entry.file_name().to_string_lossy().starts_with("python") {
            std::fs::remove_file(entry.path()).unwrap();
        }
    }
    let unbuilt = TestContext::new().propose(&venv.path, &url, &["inbuild", "--format", "json"]);
    assert_eq!(unbuilt.code, Some(1), "{}", unbuilt.stderr);
    let fetched = server.requests("/files/inbuild").len();
    server.clear_log();
    let ctx = TestContext::new();
    let args = ["inbuild", "--format", "json", "--allow-build"];
    let out = ctx.propose(&venv.path, &url, &args);
    let said = summary(&out).replace(&venv.path.display().to_string(), "[VENV]");
    insta::assert_snapshot!(said, @"
    exit 1
    conflict: Because inbuild==1.0 has metadata that cannot be read (metadata of inbuild-1.0.tar.gz is unavailable without a build: a metadata build runs with the environment's interpreter, and [VENV]/bin/python does not exist here (an environment read from its files alone; run planner where it lives to build)) and you require inbuild, your requirements are unsatisfiable.
    ");
    assert_eq!(server.requests("/files/inbuild").len(), fetched);
}
