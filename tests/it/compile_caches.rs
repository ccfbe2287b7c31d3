//! Compile caches during `planner try` and `planner verify`, on a real venv built here: every
//! run (the baseline, the verification after the plan, each `--test` command) sees each cache
//! variable naming a fresh empty folder of its own, never the user's and never the baseline's,
//! removed afterwards; `--warm-caches` keeps the user's, and the report says which.
//!
//! The real case: a `try` baseline filled torch's default inductor cache, so
//! `torch.compile(flex_attention)` after a plan that broke it (Jinja2 2.11.3) passed without
//! compiling. Here `lib` stands in for the compiler: each import records what it saw and writes
//! a "kernel" into the inductor cache folder, as a compile would.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::TestContext;
use crate::common::index_server::IndexServer;
use crate::try_::{path_without_uv, pip_ok};

const DIRS: [&str; 4] = [
    "TORCHINDUCTOR_CACHE_DIR",
    "TRITON_CACHE_DIR",
    "JAX_COMPILATION_CACHE_DIR",
    "CUPY_CACHE_DIR",
];

/// `lib`'s `__init__.py` at version `v`: records the cache variables it saw (each folder's
/// entries before it wrote, whether it existed) in `$CACHE_PROBE_DIR`, then "compiles".
fn probe(v: u32) -> String {
    format!(
        r#"import json, os, sys
V = {v}
_out = os.environ.get("CACHE_PROBE_DIR")
if _out:
    _seen = {{}}
    for _name in {names:?}:
        _d = os.environ.get(_name)
        _seen[_name] = [_d, bool(_d) and os.path.isdir(_d), sorted(os.listdir(_d)) if _d and os.path.isdir(_d) else None]
    for _name in ("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "JAX_ENABLE_COMPILATION_CACHE", "TORCHINDUCTOR_COMPILE_THREADS"):
        _seen[_name] = [os.environ.get(_name), None, None]
    _who = os.environ.get("CACHE_PROBE_WHO", "verify")
    with open(os.path.join(_out, "%s-%d-%d.json" % (_who, V, os.getpid())), "w") as _f:
        json.dump({{"v": V, "who": _who, "seen": _seen}}, _f)
    _k = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if _k and os.path.isdir(_k):
        open(os.path.join(_k, "kernel-v%d-%d" % (V, os.getpid())), "w").close()
"#,
        names = DIRS
    )
}

/// One import's record: who ran it (`verify` or `test`), `lib`'s version, what it saw.
type Record = (String, u64, serde_json::Value);

struct World {
    ctx: TestContext,
    _server: IndexServer,
    venv: PathBuf,
    plan: PathBuf,
    probes: PathBuf,
    user_cache: PathBuf,
}

impl World {
    fn new() -> World {
        let mut ctx = TestContext::new();
        ctx.filter_host_python();
        let wheels = serde_json::json!([
            {"name": "lib", "version": "1.0", "files": {"lib/__init__.py": probe(1)}},
            {"name": "lib", "version": "1.1", "files": {"lib/__init__.py": probe(2)}},
        ]);
        let server = crate::common::index_server::tiny_wheels(&ctx.path().join("index"), &wheels);
        let venv = ctx.path().join("venv");
        crate::common::venv::RealVenv::create(&venv);
        pip_ok(
            &venv,
            &["install", "--index-url", &server.url(), "lib==1.0"],
        );
        let out_dir = ctx.path().join("plans");
        let out = ctx.propose(
            &venv,
            &server.url(),
            &["lib==1.1", "--out-dir", out_dir.to_str().unwrap()],
        );
        assert!(matches!(out.code, Some(0 | 1)), "{}", out.stderr);
        let plan = std::fs::read_dir(out_dir.join("plans"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with("upgrade"))
            .unwrap_or_else(|| panic!("no upgrade plan:\n{}", out.stdout));
        // The user's own inductor cache, already warm.
        let user_cache = ctx.path().join("user-inductor-cache");
        std::fs::create_dir_all(&user_cache).unwrap();
        std::fs::write(user_cache.join("kernel-compiled-before"), "").unwrap();
        let probes = ctx.path().join("probes");
        World {
            ctx,
            _server: server,
            venv,
            plan,
            probes,
            user_cache,
        }
    }

    fn command(&self) -> Command {
        std::fs::remove_dir_all(&self.probes).ok();
        std::fs::create_dir_all(&self.probes).unwrap();
        let mut cmd = self.ctx.command();
        cmd.env("PATH", path_without_uv())
            .env("CACHE_PROBE_DIR", &self.probes)
            .env("TORCHINDUCTOR_CACHE_DIR", &self.user_cache);
        cmd
    }

    fn try_plan(&self, extra: &[&str]) -> serde_json::Value {
        let out = self
            .command()
            .args(["try", self.plan.to_str().unwrap(), "--format", "json"])
            .args(["--test", "CACHE_PROBE_WHO=test python -c 'import lib'"])
            .args(extra)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        crate::common::schema::assert_valid(&report);
        report
    }

    /// Every record the imports left: (who, version, {variable: [value, existed, entries]}).
    fn records(&self) -> Vec<Record> {
        let mut out: Vec<_> = std::fs::read_dir(&self.probes)
            .unwrap()
            .flatten()
            .map(|e| {
                let r: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
                (
                    r["who"].as_str().unwrap().to_string(),
                    r["v"].as_u64().unwrap(),
                    r["seen"].clone(),
                )
            })
            .collect();
        out.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        out
    }
}

/// The cache folders the runs of one kind saw, asserting each was private, existed, and held
/// no kernel from another version or from the user's cache.
fn private_dirs(records: &[Record], user: &Path) -> Vec<BTreeSet<String>> {
    records
        .iter()
        .map(|(who, v, seen)| {
            assert_eq!(seen["TORCHINDUCTOR_FORCE_DISABLE_CACHES"][0], "1", "{seen}");
            assert_eq!(seen["JAX_ENABLE_COMPILATION_CACHE"][0], "false", "{seen}");
            if who == "verify" {
                // verify.py's own checks compile in their own process (no worker pool).
                assert_eq!(seen["TORCHINDUCTOR_COMPILE_THREADS"][0], "1", "{seen}");
            }
            DIRS.iter()
                .map(|name| {
                    let [dir, existed, entries] = [0, 1, 2].map(|i| &seen[*name][i]);
                    let dir = dir
                        .as_str()
                        .unwrap_or_else(|| panic!("{who} v{v}: {name} unset"));
                    assert_ne!(Path::new(dir), user, "{who} v{v}: {name} is the user's");
                    assert_eq!(existed, true, "{who} v{v}: {name}={dir} missing");
                    for entry in entries.as_array().unwrap() {
                        let entry = entry.as_str().unwrap();
                        assert!(
                            entry.starts_with(&format!("kernel-v{v}-")),
                            "{who} v{v}: {name}={dir} was not fresh: it held {entry}"
                        );
                    }
                    assert!(!Path::new(dir).exists(), "{dir} left behind");
                    dir.to_string()
                })
                .collect()
        })
        .collect()
}

#[test]
fn try_compiles_into_private_empty_caches_before_and_after_unless_warm() {
    let world = World::new();
    let report = world.try_plan(&[]);
    assert_eq!(report["verdict"], "clean", "{report:#}");
    assert_eq!(report["compile_caches"], "private");
    assert_eq!(report["report"]["caches"]["private"], true);
    let records = world.records();
    let kinds: Vec<(&str, u64)> = records.iter().map(|r| (r.0.as_str(), r.1)).collect();
    for kind in [("test", 1), ("test", 2), ("verify", 1), ("verify", 2)] {
        assert!(kinds.contains(&kind), "no {kind:?} run recorded: {kinds:?}");
    }
    let dirs = private_dirs(&records, &world.user_cache);
    // No two runs share a folder: the baseline's is not the after run's, nor a test's.
    let runs: Vec<(&Record, &BTreeSet<String>)> = records.iter().zip(&dirs).collect();
    for (i, (a, da)) in runs.iter().enumerate() {
        for (b, db) in &runs[i + 1..] {
            if (&a.0, a.1) != (&b.0, b.1) {
                assert!(
                    da.is_disjoint(db),
                    "{} v{} and {} v{} share {da:?}",
                    a.0,
                    a.1,
                    b.0,
                    b.1
                );
            }
        }
    }
    // The user's warm cache was not touched.
    let user: Vec<_> = std::fs::read_dir(&world.user_cache)
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(user.len(), 1, "{user:?}");

    // --warm-caches: every run sees the user's cache, with what was compiled before, and the
    // report says so.
    let report = world.try_plan(&["--warm-caches"]);
    assert_eq!(report["compile_caches"], "warm");
    assert_eq!(report["report"]["caches"]["private"], false);
    let records = world.records();
    assert!(records.len() >= 4, "{records:?}");
    for (who, v, seen) in &records {
        let inductor = &seen["TORCHINDUCTOR_CACHE_DIR"];
        assert_eq!(
            Path::new(inductor[0].as_str().unwrap()),
            world.user_cache,
            "{who} v{v}"
        );
        assert!(
            inductor[2]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e == "kernel-compiled-before"),
            "{who} v{v}: {inductor}"
        );
        assert!(
            seen["TORCHINDUCTOR_FORCE_DISABLE_CACHES"][0].is_null(),
            "{seen}"
        );
        assert!(seen["TORCHINDUCTOR_COMPILE_THREADS"][0].is_null(), "{seen}");
    }
}

/// `planner verify` says which caches its checks ran with, and by default they are private.
#[test]
fn verify_reports_private_compile_caches() {
    let world = World::new();
    let out = world
        .command()
        .args([
            "verify",
            "--venv",
            world.venv.to_str().unwrap(),
            "--all",
            "--plain",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    world
        .ctx
        .insta_settings()
        .bind(|| insta::assert_snapshot!("verify_all_private_caches", stdout));
    let records = world.records();
    assert!(!records.is_empty());
    private_dirs(&records, &world.user_cache);
}
