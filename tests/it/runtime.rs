//! The runtime context around the versions: a second CUDA toolkit named by `CUDA_HOME` (its
//! `version.json` says 12.8), `TORCH_CUDA_ARCH_LIST` set and an inductor cache filled between
//! two snapshots of one real venv; `diff` names each change, `inventory --format json` and
//! `snapshot` record them (schemas checked).

use std::path::Path;

use crate::common::{self, TestContext, venv};
use crate::planner_snapshot;

fn snapshot(ctx: &TestContext, venv: &Path, out: &Path, env: &[(&str, &Path)]) {
    let mut cmd = ctx.command();
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd.env(
        "TORCH_CUDA_ARCH_LIST",
        if env.is_empty() { "9.0" } else { "10.0" },
    );
    let run = common::run(
        cmd.args(["snapshot", "--venv"])
            .arg(venv)
            .arg("--out")
            .arg(out),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

#[test]
fn diff_names_a_second_toolkit_a_changed_variable_and_a_new_inductor_cache() {
    let mut ctx = TestContext::new();
    ctx.filter(r"newest \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "newest [MTIME]");
    let venv = &venv::clean_venv().path;
    let (before, after) = (
        ctx.path().join("before.json"),
        ctx.path().join("after.json"),
    );
    snapshot(&ctx, venv, &before, &[]);

    let toolkit = ctx.path().join("cuda-12.8");
    std::fs::create_dir_all(&toolkit).unwrap();
    std::fs::write(
        toolkit.join("version.json"),
        r#"{"cuda": {"name": "CUDA SDK", "version": "12.8.93"}}"#,
    )
    .unwrap();
    let inductor = ctx.path().join("inductor");
    std::fs::create_dir_all(inductor.join("fxgraph/ab")).unwrap();
    std::fs::write(inductor.join("fxgraph/ab/entry"), [7u8; 1000]).unwrap();
    std::fs::write(inductor.join("kernel.py"), "pass\n").unwrap();
    let env = [
        ("CUDA_HOME", toolkit.as_path()),
        ("TORCHINDUCTOR_CACHE_DIR", inductor.as_path()),
    ];
    snapshot(&ctx, venv, &after, &env);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&after).unwrap()).unwrap();
    common::schema::assert_valid(&doc);
    assert_eq!(doc["runtime"]["variables"]["TORCH_CUDA_ARCH_LIST"], "10.0");

    let run = ctx.run(&["diff", before.to_str().unwrap(), after.to_str().unwrap()]);
    planner_snapshot!(ctx, "runtime_changes", run);
    let json = ctx.run(&[
        "diff",
        before.to_str().unwrap(),
        after.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    common::schema::assert_valid(&json);
    assert_eq!(json["runtime"].as_array().unwrap().len(), 5, "{json:#}");
}

#[test]
fn inventory_json_records_the_runtime_and_masks_secrets() {
    let ctx = TestContext::new();
    let mut cmd = ctx.command();
    cmd.env("UV_PUBLISH_TOKEN", "s3cret")
        .env("PIP_INDEX_URL", "https://me:hunter2@example.invalid/simple")
        .env("NCCL_DEBUG", "INFO");
    let venv = &venv::clean_venv().path;
    let run = common::run(
        cmd.args(["inventory", "--format", "json", "--venv"])
            .arg(venv),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!run.stdout.contains("s3cret") && !run.stdout.contains("hunter2"));
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    common::schema::assert_valid(&doc);
    let runtime = &doc["runtime"];
    assert_eq!(runtime["variables"]["NCCL_DEBUG"], "INFO");
    assert_eq!(runtime["variables"]["UV_PUBLISH_TOKEN"], "****");
    // This machine has a driver or says plainly that it has none.
    assert!(
        runtime["gpu"]["driver"].is_string()
            || runtime["gpu"]["note"]
                .as_str()
                .unwrap()
                .starts_with("none: "),
        "{runtime:#}"
    );
}

#[test]
fn check_warns_about_a_triton_cache_written_by_another_triton() {
    let mut ctx = TestContext::new();
    ctx.filter_host_python();
    let wheels = ctx.path().join("wheels");
    std::fs::create_dir_all(&wheels).unwrap();
    let wheel = venv::build_wheel(&wheels, "triton", "3.6.0", &[], &[]);
    let env = venv::RealVenv::create(&ctx.path().join("venv"));
    env.pip_ok(&[
        "install",
        "--no-index",
        "--no-deps",
        wheel.to_str().unwrap(),
    ]);
    let cache = ctx.path().join("triton-cache");
    std::fs::create_dir_all(cache.join("XYZ")).unwrap();
    std::fs::write(
        cache.join("XYZ/kern.json"),
        r#"{"triton_version": "3.5.1"}"#,
    )
    .unwrap();
    let mut cmd = ctx.command();
    cmd.env("TRITON_CACHE_DIR", &cache);
    let run = common::run(cmd.args(["check", "--venv"]).arg(&env.path));
    planner_snapshot!(ctx, "triton_cache_of_another_triton", run);
}
