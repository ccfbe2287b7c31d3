//! The live-index acceptance corpus: `cargo test --features live-index --test live`.
//!
//! Each line of `tests/live/cases.jsonl` is a request an ML engineer makes and what the answer
//! must be, semantically ("no recommended plan downgrades torch or leaves CUDA 13", "torch==2.12.0
//! gives a plan"), asked of today's live index: on the h200 fixture (`testdata/fixtures`,
//! as in `tests/it`), or on a CPU venv
//! built here from the live index with `python3 -m venv` and pip, or with uv. Never run by CI (the network
//! and today's index); the cases it caught are recorded under `testdata/` and tested there
//! (`tests/it/propose_ml.rs`). `PLANNER_LIVE_CASES=jax,tf-` runs only the cases whose name holds
//! one of those parts (each CPU venv takes room: a torch one pulls ~4 GB of CUDA wheels); a case
//! whose venv cannot be built fails alone, the others still run. A case with `"command":
//! "outdated"` asks `outdated` instead: its rows' "Can move to", the files its breaks cite, and
//! with `offline_same` an `--offline` run over the cache the online run filled answering alike.

#![forbid(unsafe_code)]
// Tests read and write their own fixtures directly (clippy.toml bans that in src/).
#![allow(clippy::disallowed_methods)]
// The corpus reports each case as it is judged (a live run takes minutes), on stderr.
#![allow(clippy::print_stderr)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A CPU venv with `pins`, built once per set under the target folder: with `python3 -m venv`
/// and pip, or with `uv venv` and `uv pip install` (`by_uv`: no pip inside, `INSTALLER` uv,
/// `REQUESTED` on every dist, a `lib64` link), as the two kinds of venv users have. `python`
/// (uv only) is the interpreter uv finds for `-p` (`3.12`: jax 0.11 and later need it).
/// `venv_by`: `uv` (no pip in the venv), `uv-seed` (uv with pip seeded: what `--allow-build`
/// builds with), else pip under `python3`. `forced` (uv only) is installed after `pins` with
/// `--no-deps`, breaking what requires otherwise (numpy 2 forced under numba 0.58.1).
fn cpu_venv(
    pins: &[String],
    forced: &[String],
    venv_by: &str,
    python: &str,
) -> Result<PathBuf, String> {
    let by_uv = venv_by.starts_with("uv");
    let named: Vec<String> = pins
        .iter()
        .cloned()
        .chain(forced.iter().map(|f| format!("forced-{f}")))
        .collect();
    let key: String = named
        .join("_")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    // A long pin list (a whole freeze list) is named by its hash: a folder name has a limit.
    let key = if key.len() > 200 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        named.hash(&mut hasher);
        format!("{}-{:016x}", &key[..40], hasher.finish())
    } else {
        key
    };
    let key = if by_uv {
        format!("{venv_by}{python}-{key}")
    } else {
        key
    };
    let path = repo().join("target/live-venvs").join(key);
    if path.join("bin/python").exists() {
        return Ok(path);
    }
    // Built beside its place and renamed when whole: a venv whose install failed is never taken
    // for a built one by the next run.
    let partial = partial_of(&path);
    // A partial folder a failed run left behind is rebuilt from nothing.
    let _ = std::fs::remove_dir_all(&partial);
    if by_uv {
        run(Command::new("uv")
            .args(["venv", "-q", "-p", python])
            .args((venv_by == "uv-seed").then_some("--seed"))
            .arg(&partial))?;
        run(Command::new("uv")
            .args(["pip", "install", "-q", "--no-build", "--python"])
            .arg(partial.join("bin/python"))
            .arg("--")
            .args(pins))?;
        if !forced.is_empty() {
            run(Command::new("uv")
                .args([
                    "pip",
                    "install",
                    "-q",
                    "--no-build",
                    "--no-deps",
                    "--python",
                ])
                .arg(partial.join("bin/python"))
                .arg("--")
                .args(forced))?;
        }
    } else {
        run(Command::new("python3").args(["-m", "venv"]).arg(&partial))?;
        run(Command::new(partial.join("bin/python"))
            .args(["-m", "pip", "install", "-q", "--only-binary", ":all:", "--"])
            .args(pins))?;
    }
    std::fs::rename(&partial, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// The folder a venv is built in before it is renamed to `path`: `path`'s whole name and
/// `.partial`. (`Path::with_extension` cut a name at its last dot: every `uv3.12-...` venv was
/// built in the one `uv3.partial`, so two runs at once built into each other's folder.)
fn partial_of(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    path.with_file_name(name)
}

/// Runs `command`; `Err` names it and how it failed.
fn run(command: &mut Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    match command.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("{shown}: {status}")),
        Err(e) => Err(format!("{shown}: {e}")),
    }
}

fn venv_of(case: &Value) -> Result<PathBuf, String> {
    let strings = |list: &Value| -> Vec<String> {
        list.as_array()
            .into_iter()
            .flatten()
            .map(|p| p.as_str().unwrap().to_string())
            .collect()
    };
    match &case["venv"] {
        Value::String(s) if s == "h200" => Ok(repo().join("testdata/fixtures/h200-venv")),
        pins @ Value::Array(_) => cpu_venv(
            &strings(pins),
            &strings(&case["forced"]),
            case["venv_by"].as_str().unwrap_or("pip"),
            case["python"].as_str().unwrap_or("python3"),
        ),
        other => Err(format!("venv: {other}")),
    }
}

fn propose(venv: &Path, args: &[String], cache: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_planner"))
        .arg("propose")
        .args(args)
        .arg("--venv")
        .arg(venv)
        .arg("--cache-dir")
        .arg(cache)
        .args(["--format", "json"])
        .output()
        .expect("run planner");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn pins(plan: &Value) -> BTreeMap<String, String> {
    plan["pins"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// A version's release as numbers (local label and suffixes dropped), for "not lower".
fn release(v: &str) -> Vec<u64> {
    v.split('+')
        .next()
        .unwrap()
        .split('.')
        .map_while(|s| s.parse().ok())
        .collect()
}

/// What is wrong with the answer to `case` (empty: right).
fn judge(case: &Value, code: Option<i32>, proposal: &Value) -> Vec<String> {
    let mut wrong = Vec::new();
    if let Some(exit) = case["exit"].as_i64()
        && code != Some(exit as i32)
    {
        wrong.push(format!("exit {code:?}, expected {exit}"));
    }
    let plans = proposal["plans"].as_array().cloned().unwrap_or_default();
    if case["no_plan"] == true {
        wrong.extend(judge_no_plan(case, &plans, proposal));
        return wrong;
    }
    let Some(first) = plans.first() else {
        wrong.push("no plan".into());
        return wrong;
    };
    let first_pins = pins(first);
    if let Some(kind) = case["first_kind"].as_str()
        && first["kind"] != kind
    {
        wrong.push(format!("first plan is {}, expected {kind}", first["kind"]));
    }
    for (name, prefix) in case["first_pins"].as_object().into_iter().flatten() {
        let got = first_pins.get(name).cloned().unwrap_or_default();
        if !got.starts_with(prefix.as_str().unwrap()) {
            wrong.push(format!("first plan pins {name} {got}, expected {prefix}"));
        }
    }
    let changes = first["changes"].as_array().cloned().unwrap_or_default();
    for name in case["keeps"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap();
        if let Some(c) = changes.iter().find(|c| c["name"] == name)
            && let (Some(from), Some(to)) = (c["from"].as_str(), c["to"].as_str())
            && release(to) < release(from)
        {
            wrong.push(format!("first plan lowers {name} {from} -> {to}"));
        }
    }
    for name in case["first_changes"].as_array().into_iter().flatten() {
        if !changes.iter().any(|c| c["name"] == *name) {
            wrong.push(format!("first plan does not move {name}"));
        }
    }
    if case["no_switch"] == true
        && first["risk"]["factors"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|f| f["kind"] == "accelerator-line-switch")
    {
        wrong.push("the first plan leaves the CUDA line".into());
    }
    for (name, prefix) in case["some_plan_pins"].as_object().into_iter().flatten() {
        let prefix = prefix.as_str().unwrap();
        if !plans.iter().any(|p| {
            pins(p)
                .get(name)
                .is_some_and(|v| v.starts_with(prefix) && v != "2.11.0")
        }) {
            wrong.push(format!("no plan pins {name} {prefix}*"));
        }
    }
    let same: Vec<&str> = case["same_version"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if same.len() > 1 {
        let versions: Vec<Option<&String>> = same.iter().map(|n| first_pins.get(*n)).collect();
        if versions.windows(2).any(|w| w[0] != w[1]) {
            wrong.push(format!("{same:?} differ: {versions:?}"));
        }
    }
    // How the first plan's pip steps start (a venv without pip needs the outer pip).
    if let Some(start) = case["pip_starts"].as_array() {
        for step in first["commands"]["pip"].as_array().into_iter().flatten() {
            let head: Vec<&Value> = step.as_array().into_iter().flatten().collect();
            if head.len() < start.len()
                || head[..start.len()].iter().zip(start).any(|(a, b)| *a != b)
            {
                wrong.push(format!("a pip step starts {step}, expected {start:?}"));
            }
        }
    }
    let text = proposal.to_string();
    for lack in case["text_lacks"].as_array().into_iter().flatten() {
        if text.contains(lack.as_str().unwrap()) {
            wrong.push(format!("says {lack}"));
        }
    }
    for has in case["text_has"].as_array().into_iter().flatten() {
        if !text.contains(has.as_str().unwrap()) {
            wrong.push(format!("does not say {has}"));
        }
    }
    let hints = proposal["conflict"]["hints"].to_string();
    for lack in case["hints_lack"].as_array().into_iter().flatten() {
        if hints.contains(lack.as_str().unwrap()) {
            wrong.push(format!("hints list {lack}: {hints}"));
        }
    }
    wrong
}

/// What is wrong with the answer to a `no_plan` case: a plan offered, the conflict lacking one
/// of `conflict_has`, the answer lacking one of `text_has` or saying one of `text_lacks`.
fn judge_no_plan(case: &Value, plans: &[Value], proposal: &Value) -> Vec<String> {
    let mut wrong = Vec::new();
    if !plans.is_empty() {
        wrong.push(format!("{} plans, expected none", plans.len()));
    }
    let conflict = proposal["conflict"].to_string();
    for has in case["conflict_has"].as_array().into_iter().flatten() {
        if !conflict.contains(has.as_str().unwrap()) {
            wrong.push(format!("the conflict does not say {has}: {conflict}"));
        }
    }
    // What the warnings say of why there is no plan.
    let text = proposal.to_string();
    for has in case["text_has"].as_array().into_iter().flatten() {
        if !text.contains(has.as_str().unwrap()) {
            wrong.push(format!("does not say {has}"));
        }
    }
    for lack in case["text_lacks"].as_array().into_iter().flatten() {
        if text.contains(lack.as_str().unwrap()) {
            wrong.push(format!("says {lack}"));
        }
    }
    wrong
}

/// `planner outdated --format json` on `venv` (`--offline` when asked), with its exit code.
fn outdated(venv: &Path, cache: &Path, offline: bool) -> (Option<i32>, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_planner"))
        .arg("outdated")
        .arg("--venv")
        .arg(venv)
        .arg("--cache-dir")
        .arg(cache)
        .args(["--format", "json"])
        .args(offline.then_some("--offline"))
        .output()
        .expect("run planner");
    (
        out.status.code(),
        serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What the text's "Can move to" says of a report row: `?` (not checked), the version, or `-`.
fn can_move_to(row: &Value) -> String {
    if row["not_checked"].is_string() {
        return "?".to_string();
    }
    let installed = row["installed"].as_str().unwrap_or("");
    match row["newest_allowed"].as_str() {
        Some(v) if release(v) > release(installed) => v.to_string(),
        _ => "-".to_string(),
    }
}

/// What is wrong with an `outdated` case (`"command": "outdated"`): the exit code, each of
/// `rows` (name: the "Can move to" it must start with), each of `breaks_cite` (name: a text
/// its breaks' `extension` must hold), and with `offline_same`, an `--offline` run over the
/// cache the online run filled that differs from it.
fn judge_outdated(case: &Value, venv: &Path, cache: &Path) -> Vec<String> {
    let mut wrong = Vec::new();
    let (code, report, stderr) = outdated(venv, cache, false);
    if let Some(exit) = case["exit"].as_i64()
        && code != Some(exit as i32)
    {
        wrong.push(format!("exit {code:?}, expected {exit}: {}", stderr.trim()));
    }
    let packages = report["packages"].as_array().cloned().unwrap_or_default();
    let row = |name: &str| packages.iter().find(|p| p["name"] == name).cloned();
    for (name, want) in case["rows"].as_object().into_iter().flatten() {
        let got = row(name).map_or_else(|| "(no row)".to_string(), |r| can_move_to(&r));
        if !got.starts_with(want.as_str().unwrap()) {
            wrong.push(format!("{name} can move to {got}, expected {want}"));
        }
    }
    for (name, cite) in case["breaks_cite"].as_object().into_iter().flatten() {
        let breaks = row(name)
            .map(|r| r["breaks"].to_string())
            .unwrap_or_default();
        if !breaks.contains(cite.as_str().unwrap()) {
            wrong.push(format!("{name}'s breaks do not cite {cite}: {breaks}"));
        }
    }
    if case["offline_same"] == true {
        let (offline_code, offline, _) = outdated(venv, cache, true);
        if (offline_code, &offline["packages"]) != (code, &report["packages"]) {
            wrong.push("--offline over the same cache answers otherwise".into());
        }
    }
    wrong
}

/// Whether the case `name` runs: every case, or those whose name holds one of the
/// comma-separated parts of `PLANNER_LIVE_CASES` (`jax,tf-`: a slice, as the disk allows).
fn selected(name: &str) -> bool {
    match std::env::var("PLANNER_LIVE_CASES") {
        Ok(parts) if !parts.trim().is_empty() => parts
            .split(',')
            .any(|part| !part.is_empty() && name.contains(part.trim())),
        _ => true,
    }
}

#[test]
fn live_ml_corpus() {
    let text = std::fs::read_to_string(repo().join("tests/live/cases.jsonl")).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let case: Value = serde_json::from_str(line).unwrap();
        let args: Vec<String> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        let name = case["case"].as_str().unwrap();
        if !selected(name) {
            continue;
        }
        count += 1;
        let venv = match venv_of(&case) {
            Ok(venv) => venv,
            Err(why) => {
                eprintln!("FAIL  {name}: the venv could not be built");
                failures.push(format!("{name}: the venv could not be built: {why}"));
                continue;
            }
        };
        let (wrong, stderr) = if case["command"] == "outdated" {
            (judge_outdated(&case, &venv, cache.path()), String::new())
        } else {
            let (code, stdout, stderr) = propose(&venv, &args, cache.path());
            let proposal: Value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
            (judge(&case, code, &proposal), stderr)
        };
        if wrong.is_empty() {
            eprintln!("pass  {name}");
        } else {
            eprintln!("FAIL  {name}: {}", wrong.join("; "));
            failures.push(format!("{name}: {}\n{}", wrong.join("; "), stderr.trim()));
        }
    }
    assert!(
        count > 0,
        "no case's name holds a part of PLANNER_LIVE_CASES"
    );
    assert!(
        failures.is_empty(),
        "{} of {count} live cases wrong:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Two venvs' build folders never meet: keys holding a Python version (`uv3.12-...`) keep
/// their whole name.
#[test]
fn each_venv_is_built_in_a_folder_of_its_own() {
    let root = Path::new("/live-venvs");
    let a = partial_of(&root.join("uv3.12-jinja2--3-1-6"));
    let b = partial_of(&root.join("uv3.12-numpy--1-26-4"));
    assert_eq!(a, root.join("uv3.12-jinja2--3-1-6.partial"));
    assert_eq!(b, root.join("uv3.12-numpy--1-26-4.partial"));
    assert_eq!(
        partial_of(&root.join("torch--2-9-1")),
        root.join("torch--2-9-1.partial")
    );
}
