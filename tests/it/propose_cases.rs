//! The `testdata/propose-cases/` corpus: every wrong answer `propose` gave, one line each, run on
//! recorded index data (loopback server) and real venvs made by `python3 -m venv` + pip.
//! See `testdata/propose-cases/README.md` for the line format.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::index_server::IndexServer;
use crate::common::venv::{RealVenv, build_wheel};
use crate::common::{Output, TestContext};
use crate::planner_snapshot;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/propose-cases")
}

/// One corpus line.
#[derive(Debug, serde::Deserialize)]
struct Case {
    case: String,
    venv: Vec<String>,
    args: Vec<String>,
    exit: i32,
    kind: Option<String>,
    changes: Vec<String>,
    #[serde(default)]
    no_kind: Vec<String>,
    #[serde(default)]
    stderr: Option<String>,
    #[serde(default)]
    held_back: Option<Vec<String>>,
    /// A text the conflict (explanation and hints) must contain.
    #[serde(default)]
    conflict: Option<String>,
    /// Texts the text rendering (`--format text`, stdout) must not contain.
    #[serde(default)]
    text_lacks: Vec<String>,
    /// The first plan's repair changes (names), when given.
    #[serde(default)]
    repairs: Option<Vec<String>>,
    /// The proposal's `already_broken` edges, each `dependent version requires REQ`, when given.
    #[serde(default)]
    already_broken: Option<Vec<String>>,
    /// The plans after the first, each `kind: change; change`, when given.
    #[serde(default)]
    others: Option<Vec<String>>,
    /// The first plan's title, when given.
    #[serde(default)]
    title: Option<String>,
}

fn cases() -> Vec<Case> {
    let path = corpus_dir().join("cases.jsonl");
    let text = std::fs::read_to_string(&path).expect("read cases.jsonl");
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(n, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1))
        })
        .collect()
}

/// The recorded `Requires-Dist` of `name==version` (from its wheel's `.metadata`).
fn recorded_requires(name: &str, version: &str) -> Vec<String> {
    let files = corpus_dir().join("index/files");
    let prefix = format!("{}-{version}-", name.replace('-', "_")).to_lowercase();
    let mut found: Vec<PathBuf> = std::fs::read_dir(&files)
        .expect("index/files")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let file = p.file_name().unwrap().to_string_lossy().to_lowercase();
            file.starts_with(&prefix) && file.ends_with(".whl.metadata")
        })
        .collect();
    // A pure-Python wheel's metadata when there is one (the same Requires-Dist in practice).
    found.sort_by_key(|p| !p.to_string_lossy().contains("-none-any"));
    let path = found.first().unwrap_or_else(|| {
        panic!(
            "{name}=={version} is not recorded under {}",
            files.display()
        )
    });
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.strip_prefix("Requires-Dist: "))
        .map(str::to_string)
        .collect()
}

/// A real venv with one wheel per pin, each carrying its recorded requirements.
fn make_venv(root: &Path, pins: &[String]) -> RealVenv {
    let wheels = root.join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let venv = RealVenv::create(&root.join("venv"));
    for pin in pins {
        let (name, version) = pin.split_once("==").expect("pins are name==version");
        let requires = recorded_requires(name, version);
        let requires: Vec<&str> = requires.iter().map(String::as_str).collect();
        build_wheel(&wheels, name, version, &requires, &[]);
    }
    if pins.is_empty() {
        return venv;
    }
    // By requirement through --find-links (no direct_url.json): installed "from an index".
    let links = wheels.display().to_string();
    let mut args = vec!["install", "--no-deps", "--quiet", "--find-links", &links];
    args.extend(pins.iter().map(String::as_str));
    venv.pip_ok(&args);
    venv
}

/// `name from -> to` for each change of a plan.
fn changes(plan: &Value) -> Vec<String> {
    let show = |v: &Value| v.as_str().unwrap_or("-").to_string();
    plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} {} -> {}",
                c["name"].as_str().unwrap(),
                show(&c["from"]),
                show(&c["to"])
            )
        })
        .collect()
}

/// `name planned (newest N): dependent version requires requirement; ...` for each held-back
/// entry of a plan.
fn held_back(plan: &Value) -> Vec<String> {
    plan["held_back"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let by: Vec<String> = h["blockers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| {
                    format!(
                        "{} {} requires {}",
                        b["dependent"].as_str().unwrap(),
                        b["dependent_version"].as_str().unwrap(),
                        b["requirement"].as_str().unwrap()
                    )
                })
                .collect();
            format!(
                "{} {} (newest {}): {}",
                h["name"].as_str().unwrap(),
                h["planned"].as_str().unwrap_or("-"),
                h["newest"].as_str().unwrap(),
                by.join("; ")
            )
        })
        .collect()
}

/// Every plan of every case: a reason names what really happens in the plan. A change that
/// "follows" a dist or is "required by" one names a dist the plan moves (or adds) to that
/// version; the reason a change "follows chardet 5.2.0" is false when chardet does not move.
fn untrue_reasons(plan: &Value) -> Result<(), String> {
    let changes = plan["changes"].as_array().unwrap();
    let moves_to = |name: &str, version: &str| {
        changes
            .iter()
            .any(|c| c["name"] == name && c["to"].as_str() == Some(version))
    };
    // No two changes explain each other ("billiard: required by celery 5.7.0", "celery:
    // follows billiard 4.3.2").
    let explained_by = |change: &Value| -> Vec<String> {
        change["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| match r["kind"].as_str() {
                Some("follows") => r["package"].as_str().map(str::to_string),
                Some("required-by") => r["dependent"].as_str().map(str::to_string),
                _ => None,
            })
            .collect()
    };
    for a in changes {
        for b in changes {
            let (a_name, b_name) = (a["name"].as_str().unwrap(), b["name"].as_str().unwrap());
            if explained_by(a).iter().any(|n| n == b_name)
                && explained_by(b).iter().any(|n| n == a_name)
            {
                return Err(format!(
                    "{}: {a_name} and {b_name} give each other as the reason",
                    plan["kind"]
                ));
            }
        }
    }
    for change in changes {
        for reason in change["reasons"].as_array().unwrap() {
            let (name, version) = match reason["kind"].as_str() {
                Some("follows") => (&reason["package"], &reason["version"]),
                _ => continue,
            };
            let (name, version) = (name.as_str().unwrap(), version.as_str().unwrap());
            if !moves_to(name, version) {
                return Err(format!(
                    "{} {}: \"follows {name} {version}\", but the plan does not move {name}",
                    plan["kind"], change["name"]
                ));
            }
        }
    }
    Ok(())
}

/// Every plan's JSON carries the pip and uv commands, with the interpreter by
/// its absolute path, and they install under the rule the plan was made with: wheels only
/// (`--only-binary :all:`, `--no-build`) unless `--allow-build`.
fn command_rule(plan: &Value, allow_build: bool) -> Result<(), String> {
    let commands = &plan["commands"];
    let steps = |tool: &str| -> Vec<Vec<String>> {
        commands[tool]
            .as_array()
            .into_iter()
            .flatten()
            .map(|step| {
                step.as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t.as_str().unwrap().to_string())
                    .collect()
            })
            .collect()
    };
    let (pip, uv) = (steps("pip"), steps("uv"));
    let changes = !plan["changes"].as_array().unwrap().is_empty();
    if changes && (pip.is_empty() || uv.is_empty()) {
        return Err(format!(
            "{}: no pip or uv commands in the JSON",
            plan["kind"]
        ));
    }
    for step in pip
        .iter()
        .filter(|s| s.get(3).is_some_and(|t| t == "install"))
    {
        if !step[0].starts_with('/') {
            return Err(format!("pip runs a relative interpreter: {step:?}"));
        }
        let wheels_only = step
            .windows(2)
            .any(|w| w[0] == "--only-binary" && w[1] == ":all:");
        if wheels_only == allow_build {
            return Err(format!("pip step against the plan's build rule: {step:?}"));
        }
    }
    for step in uv
        .iter()
        .filter(|s| s.get(2).is_some_and(|t| t == "install"))
    {
        if step.contains(&"--no-build".to_string()) == allow_build {
            return Err(format!("uv step against the plan's build rule: {step:?}"));
        }
    }
    Ok(())
}

/// Run one case; `Err` says how its answer differs from the expected one.
fn run_case(case: &Case, venv: &RealVenv, index: &str) -> Result<(), String> {
    let ctx = TestContext::new();
    let venv_path = venv.path.display().to_string();
    let mut args = vec!["propose"];
    args.extend(case.args.iter().map(String::as_str));
    args.extend([
        "--venv",
        &venv_path,
        "--index-url",
        index,
        "--format",
        "json",
    ]);
    let out = ctx.run(&args);
    let context = |why: String| format!("{why}\nstdout:\n{}\nstderr:\n{}", out.stdout, out.stderr);
    exit_and_stderr_match(case, &out).map_err(context)?;
    if case.exit == 2 {
        // The tool refused or failed: no proposal to compare, only the exit code and stderr.
        return Ok(());
    }
    let proposal: Value = serde_json::from_str(&out.stdout)
        .map_err(|e| context(format!("stdout is not JSON ({e})")))?;
    first_plan_matches(case, &proposal).map_err(context)?;
    conflict_and_broken_match(case, &proposal).map_err(context)?;
    every_plan_keeps_the_rules(case, &proposal).map_err(context)?;
    if !case.text_lacks.is_empty() {
        // The same run in text: `--format json` left off.
        text_lacks(case, &ctx.run(&args[..args.len() - 2]))?;
    }
    Ok(())
}

/// The exit code, and the stderr text the case expects (diagnostics are wrapped to the
/// terminal: compared with the line breaks and miette's margin folded into single spaces).
fn exit_and_stderr_match(case: &Case, out: &Output) -> Result<(), String> {
    if out.code != Some(case.exit) {
        return Err(format!("exit {:?}, expected {}", out.code, case.exit));
    }
    let fold = |text: &str| {
        text.replace('│', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    if let Some(text) = &case.stderr
        && !fold(&out.stderr).contains(&fold(text))
    {
        return Err(format!("stderr lacks {text:?}"));
    }
    Ok(())
}

/// The first plan's kind, changes, title, held-back lines and repairs, and the other plans'
/// changes.
fn first_plan_matches(case: &Case, proposal: &Value) -> Result<(), String> {
    let plans = proposal["plans"].as_array().cloned().unwrap_or_default();
    let first = plans.first();
    let kind = first.and_then(|p| p["kind"].as_str()).map(str::to_string);
    if kind != case.kind {
        return Err(format!("first plan {kind:?}, expected {:?}", case.kind));
    }
    let got = first.map(changes).unwrap_or_default();
    if got != case.changes {
        return Err(format!("changes {got:?}, expected {:?}", case.changes));
    }
    if let Some(expected) = &case.title {
        let got = first.and_then(|p| p["title"].as_str()).unwrap_or_default();
        if got != expected {
            return Err(format!("title {got:?}, expected {expected:?}"));
        }
    }
    if let Some(expected) = &case.held_back {
        let got = first.map(held_back).unwrap_or_default();
        if &got != expected {
            return Err(format!("held back {got:?}, expected {expected:?}"));
        }
    }
    if let Some(expected) = &case.repairs {
        let got: Vec<String> = first
            .and_then(|p| p["changes"].as_array())
            .into_iter()
            .flatten()
            .filter(|c| c["repair"] == true)
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect();
        if &got != expected {
            return Err(format!("repairs {got:?}, expected {expected:?}"));
        }
    }
    if let Some(expected) = &case.others {
        let got: Vec<String> = plans
            .iter()
            .skip(1)
            .map(|p| format!("{}: {}", p["kind"].as_str().unwrap(), changes(p).join("; ")))
            .collect();
        if &got != expected {
            return Err(format!("other plans {got:?}, expected {expected:?}"));
        }
    }
    Ok(())
}

/// The conflict's explanation and hints hold the case's text; the already-broken edges are the
/// case's.
fn conflict_and_broken_match(case: &Case, proposal: &Value) -> Result<(), String> {
    if let Some(text) = &case.conflict {
        let conflict = &proposal["conflict"];
        let mut words = conflict["explanation"].as_str().unwrap_or("").to_string();
        for hint in conflict["hints"].as_array().into_iter().flatten() {
            words.push('\n');
            words.push_str(hint.as_str().unwrap_or(""));
        }
        if !words.contains(text.as_str()) {
            return Err(format!("the conflict lacks {text:?}"));
        }
    }
    if let Some(expected) = &case.already_broken {
        let got: Vec<String> = proposal["already_broken"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| {
                format!(
                    "{} {} requires {}",
                    e["dependent"].as_str().unwrap(),
                    e["dependent_version"].as_str().unwrap(),
                    e["requirement"].as_str().unwrap()
                )
            })
            .collect();
        if &got != expected {
            return Err(format!("already broken {got:?}, expected {expected:?}"));
        }
    }
    Ok(())
}

/// Every plan gives true reasons and follows the request's build rule, and none is of a kind
/// the case rules out.
fn every_plan_keeps_the_rules(case: &Case, proposal: &Value) -> Result<(), String> {
    let allow_build = proposal["request"]["allow_build"] == true;
    for plan in proposal["plans"].as_array().into_iter().flatten() {
        untrue_reasons(plan)?;
        command_rule(plan, allow_build)?;
        if case.no_kind.iter().any(|k| plan["kind"] == k.as_str()) {
            return Err(format!("a {} plan was offered", plan["kind"]));
        }
    }
    Ok(())
}

/// The text output (the same run without `--format json`) has none of the case's `text_lacks`.
fn text_lacks(case: &Case, out: &Output) -> Result<(), String> {
    for lacks in &case.text_lacks {
        if out.stdout.contains(lacks.as_str()) {
            return Err(format!(
                "the text output has {lacks:?}\nstdout:\n{}",
                out.stdout
            ));
        }
    }
    Ok(())
}

/// Every corpus line gives its expected answer (all lines run; the failures are listed).
#[test]
fn corpus() {
    let cases = cases();
    assert!(!cases.is_empty());
    let mut by_venv: BTreeMap<Vec<String>, Vec<&Case>> = BTreeMap::new();
    for case in &cases {
        let mut pins = case.venv.clone();
        pins.sort();
        by_venv.entry(pins).or_default().push(case);
    }
    let server = IndexServer::start(&corpus_dir().join("index"));
    let index = server.url();
    let root = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (n, (pins, cases)) in by_venv.iter().enumerate() {
        let venv = make_venv(&root.path().join(n.to_string()), pins);
        for case in cases {
            if let Err(why) = run_case(case, &venv, &index) {
                failures.push(format!("--- {}: {why}", case.case));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases give a wrong answer:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// `--offline` with a cache that lacks a page the solver needs fails (exit 2)
/// saying how to fill the cache, never "retry with --offline".
#[test]
fn offline_cache_miss_never_suggests_offline() {
    let root = tempfile::tempdir().unwrap();
    let venv = make_venv(root.path(), &[]);
    let server = IndexServer::start(&corpus_dir().join("index"));
    let index = server.url();
    let ctx = TestContext::new();
    let venv_path = venv.path.display().to_string();
    let base = ["--venv", venv_path.as_str(), "--index-url", index.as_str()];
    let mut online = vec!["propose", "requests"];
    online.extend(base);
    let out = ctx.run(&online);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    // requests is cached now; its `socks` extra needs pysocks, which is not.
    let mut offline = vec!["propose", "requests[socks]", "--offline"];
    offline.extend(base);
    let out = ctx.run(&offline);
    // It names pysocks and says to run once without `--offline` (not to retry with it).
    planner_snapshot!(ctx, out, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::solve::index

          × could not read `pysocks` from the index
          ╰─▶ offline: the project page of pysocks is not in the cache
              (http://127.0.0.1:[PORT]/simple/pysocks/)
          help: run once without `--offline` to fill the cache (same --cache-dir)
        "#);
}
