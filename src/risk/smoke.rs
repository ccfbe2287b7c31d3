//! Smoke tests declared by a policy (`[[smoke]]` in `policies/*.toml`).
//!
//! In: the `[[smoke]]` tables of a policy file and the folder it was read from. Out:
//! [`SmokeTest`]s with their check's Python source loaded (a file under `policies/smoke/`: the
//! built-in ones are compiled in; a user's policy names files relative to itself). The checks run
//! in `verify.py`: exit 0 passes (the last stdout line is the detail), exit 77 skips (the last
//! stdout line says why), anything else fails (the last stderr line is the error).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::glob::glob_matches;

/// The built-in checks, by the path policies name them with.
pub(crate) const BUILTIN_CHECKS: &[(&str, &str)] = &[
    (
        "smoke/torch_cuda.py",
        include_str!("../../policies/smoke/torch_cuda.py"),
    ),
    (
        "smoke/torch_cuda_label.py",
        include_str!("../../policies/smoke/torch_cuda_label.py"),
    ),
    (
        "smoke/torch_compile.py",
        include_str!("../../policies/smoke/torch_compile.py"),
    ),
    (
        "smoke/triton_kernel.py",
        include_str!("../../policies/smoke/triton_kernel.py"),
    ),
    (
        "smoke/triton_autotune.py",
        include_str!("../../policies/smoke/triton_autotune.py"),
    ),
    (
        "smoke/flex_attention.py",
        include_str!("../../policies/smoke/flex_attention.py"),
    ),
    (
        "smoke/jax_gpu.py",
        include_str!("../../policies/smoke/jax_gpu.py"),
    ),
    (
        "smoke/cupy_kernel.py",
        include_str!("../../policies/smoke/cupy_kernel.py"),
    ),
    (
        "smoke/numpy_capi.py",
        include_str!("../../policies/smoke/numpy_capi.py"),
    ),
    (
        "smoke/flask_sqlalchemy_app.py",
        include_str!("../../policies/smoke/flask_sqlalchemy_app.py"),
    ),
    (
        "smoke/django_check.py",
        include_str!("../../policies/smoke/django_check.py"),
    ),
    (
        "smoke/fastapi_request.py",
        include_str!("../../policies/smoke/fastapi_request.py"),
    ),
    (
        "smoke/pandas_duckdb.py",
        include_str!("../../policies/smoke/pandas_duckdb.py"),
    ),
    (
        "smoke/requests_get.py",
        include_str!("../../policies/smoke/requests_get.py"),
    ),
    (
        "smoke/sqlalchemy_orm.py",
        include_str!("../../policies/smoke/sqlalchemy_orm.py"),
    ),
    (
        "smoke/sphinx_build.py",
        include_str!("../../policies/smoke/sphinx_build.py"),
    ),
    (
        "smoke/celery_kombu.py",
        include_str!("../../policies/smoke/celery_kombu.py"),
    ),
    (
        "smoke/scrapy_crawl.py",
        include_str!("../../policies/smoke/scrapy_crawl.py"),
    ),
    (
        "smoke/langchain_openai_call.py",
        include_str!("../../policies/smoke/langchain_openai_call.py"),
    ),
];

/// What a smoke test needs to run at all; without it the test is "skip", never "pass".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Hardware {
    /// Any machine.
    None,
    /// A CUDA device the driver sees.
    Cuda,
}

/// Which changes select a smoke test for a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trigger {
    /// The package itself changes.
    Package,
    /// A dist that requires the package changes (pandas for numpy's C API).
    Dependents,
    /// A dist the package requires, directly or transitively, changes (sympy for torch).
    Dependencies,
    /// A member of one of the package's coupled groups changes (triton for torch).
    Coupled,
}

/// One smoke test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmokeTest {
    /// Its name (`torch-compile`); the report calls it `smoke:NAME`.
    pub name: String,
    /// The package it exercises (one `*` matches any run of characters: `cupy-cuda*`).
    pub package: String,
    /// The check's path as the policy names it.
    pub check: String,
    /// The check's Python source.
    pub code: String,
    /// What it needs.
    pub hardware: Hardware,
    /// Seconds before it is killed and failed.
    pub timeout: u32,
    /// Which changes select it.
    pub triggers: Vec<Trigger>,
}

impl SmokeTest {
    /// Whether `name` is a package this test exercises.
    pub(crate) fn matches(&self, name: &str) -> bool {
        glob_matches(&self.package, name)
    }
}

/// A `[[smoke]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct SmokeFile {
    name: String,
    package: String,
    check: String,
    #[serde(default = "no_hardware")]
    hardware: Hardware,
    #[serde(default = "default_timeout")]
    timeout: u32,
    #[serde(default = "default_triggers")]
    triggers: Vec<Trigger>,
}

fn no_hardware() -> Hardware {
    Hardware::None
}

fn default_timeout() -> u32 {
    300
}

fn default_triggers() -> Vec<Trigger> {
    vec![Trigger::Package]
}

/// Load the checks of a policy's `[[smoke]]` tables: relative to `dir` (a user's policy file's
/// folder) when that file exists there, else the built-in check of that path.
pub(super) fn load(
    tables: Vec<SmokeFile>,
    dir: Option<&Path>,
) -> Result<Vec<SmokeTest>, (String, String)> {
    let mut out: Vec<SmokeTest> = Vec::with_capacity(tables.len());
    for table in tables {
        if out.iter().any(|s| s.name == table.name) {
            return Err((
                table.name,
                "two [[smoke]] tables have this name".to_string(),
            ));
        }
        let code = read_check(&table.check, dir).ok_or_else(|| {
            let message = format!(
                "its check `{}` is neither a file next to the policy nor a built-in check ({})",
                table.check,
                BUILTIN_CHECKS
                    .iter()
                    .map(|(path, _)| *path)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            (table.name.clone(), message)
        })?;
        out.push(SmokeTest {
            name: table.name,
            package: table.package.to_lowercase(),
            check: table.check,
            code,
            hardware: table.hardware,
            timeout: table.timeout.max(1),
            triggers: table.triggers,
        });
    }
    Ok(out)
}

pub(super) fn read_check(check: &str, dir: Option<&Path>) -> Option<String> {
    if let Some(dir) = dir {
        let path: PathBuf = dir.join(check);
        if let Ok(code) = crate::bounded::read_to_string(&path, crate::bounded::USER_FILE_LIMIT) {
            return Some(code);
        }
    }
    BUILTIN_CHECKS
        .iter()
        .find(|(path, _)| *path == check)
        .map(|(_, code)| (*code).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::risk::Policy;

    #[test]
    fn builtin_policies_load_every_builtin_check() {
        for spec in [None, Some(Path::new("ml-cuda"))] {
            let policy = Policy::load(spec).unwrap();
            let used: Vec<&str> = policy.smoke.iter().map(|s| s.check.as_str()).collect();
            for (path, code) in BUILTIN_CHECKS {
                assert!(used.contains(path), "{}: {path} unused", policy.name);
                assert!(code.contains("import"), "{path}");
            }
            let label = policy
                .smoke
                .iter()
                .find(|s| s.name == "torch-cuda-label")
                .unwrap();
            assert_eq!(label.hardware, Hardware::None);
            assert!(policy.smoke.iter().any(|s| s.matches("cupy-cuda13x")));
        }
    }

    #[test]
    fn a_user_policy_names_its_own_checks_and_typos_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("mine")).unwrap();
        std::fs::write(dir.path().join("mine/ok.py"), "import sys\n").unwrap();
        let text = "[[smoke]]\nname = \"mine\"\npackage = \"pkg\"\ncheck = \"mine/ok.py\"\n\
                    hardware = \"cuda\"\ntimeout = 5\ntriggers = [\"package\", \"dependents\"]\n";
        let file = dir.path().join("policy.toml");
        std::fs::write(&file, text).unwrap();
        let policy = Policy::load(Some(&file)).unwrap();
        assert_eq!(
            policy.smoke.len(),
            1,
            "a [[smoke]] list replaces the default's"
        );
        let smoke = &policy.smoke[0];
        assert_eq!(smoke.code, "import sys\n");
        assert_eq!(smoke.hardware, Hardware::Cuda);
        assert_eq!(smoke.triggers, [Trigger::Package, Trigger::Dependents]);

        for (bad, needle) in [
            (text.replace("mine/ok.py", "mine/nope.py"), "mine/nope.py"),
            (text.replace("\"cuda\"", "\"tpu\""), "tpu"),
            (text.replace("dependents", "dependants"), "dependants"),
            (text.replace("timeout", "timeuot"), "timeuot"),
        ] {
            std::fs::write(&file, &bad).unwrap();
            let err = Policy::load(Some(&file)).unwrap_err();
            let shown = format!("{err}: {err:?}");
            assert!(shown.contains(needle), "{shown}");
            assert!(shown.contains("policy.toml"), "{shown}");
        }
    }
}
