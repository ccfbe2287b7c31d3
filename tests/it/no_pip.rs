//! An environment without pip of its own, as `uv venv` makes them: `VENV/bin/python -m pip`
//! stops there with "No module named pip", so the pip commands `propose` writes run the pip of
//! `python3` against the venv (`python3 -m pip --python VENV/bin/python`), and say so. Found live:
//! on a venv built by uv, `install-pip.sh` of the `flask>=3` plan failed before installing
//! anything. The venv here is a real one, made with `python3 -m venv --without-pip`.

use std::process::Command;

use crate::common::index_server::IndexServer;
use crate::common::venv::{RealVenv, python3};
use crate::common::{TestContext, skip};

#[test]
fn a_venv_without_pip_gets_pip_commands_that_run_there() {
    let mut ctx = TestContext::new();
    ctx.filter_host_python();
    let venv = RealVenv::create_without_pip(&ctx.path().join("uv-like venv")).path;
    let python = venv.join("bin/python");
    let python_text = python.display().to_string();

    // The oracle: the venv's own interpreter has no pip; the outer pip reaches the venv.
    let own = Command::new(&python)
        .args(["-m", "pip", "--version"])
        .output();
    assert!(!own.unwrap().status.success(), "the venv has a pip");
    let outer = Command::new(python3())
        .args(["-m", "pip", "--python", &python_text, "list"])
        .output()
        .unwrap();
    if !outer.status.success() {
        return skip(
            "a_venv_without_pip_gets_pip_commands_that_run_there",
            "the pip of python3 has no --python (pip 22.3 or newer)",
        );
    }

    let server = IndexServer::recorded();
    let out_dir = ctx.path().join("out");
    let run = ctx.run(&[
        "propose",
        "packaging",
        "--venv",
        venv.to_str().unwrap(),
        "--index-url",
        &server.url(),
        "--format",
        "json",
        "--out-dir",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let doc = run.json();
    // The warning names the venv's interpreter and what its pip commands run instead.
    let warnings = serde_json::to_string_pretty(&doc["warnings"]).unwrap();
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("no_pip_warnings", warnings));
    let pip = &doc["plans"][0]["commands"]["pip"][0];
    let start: Vec<&str> = (0..6).filter_map(|i| pip[i].as_str()).collect();
    assert_eq!(
        start,
        ["python3", "-m", "pip", "--python", &python_text, "install"],
        "{pip}"
    );
    assert!(
        doc["plans"][0]["commands"]["uv"][0]
            .to_string()
            .starts_with("[\"uv\",\"pip\",\"install\",\"--python\"")
    );

    let plan_dir = std::fs::read_dir(out_dir.join("plans"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    // The outer pip reaches the venv (`python3 -m pip --python "$PYTHON"`), and the script
    // says why in a comment.
    let script = std::fs::read_to_string(plan_dir.join("install-pip.sh")).unwrap();
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!("no_pip_install_pip_sh", script));

    // Carried out for real: the script installs the planned packaging into the venv.
    let ran = Command::new("bash")
        .arg(plan_dir.join("install-pip.sh"))
        .output()
        .unwrap();
    assert!(ran.status.success(), "{ran:?}");
    let planned = pip
        .as_array()
        .unwrap()
        .iter()
        .find_map(|t| t.as_str()?.strip_prefix("packaging=="))
        .unwrap();
    let installed = Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('packaging'))",
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&installed.stdout).trim(), planned);
}
