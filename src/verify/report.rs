//! The report `verify.py` prints (schema `planner-verify/2`, documented in `docs/verify.md`).
//!
//! In: the script's JSON. Out: a typed [`VerifyReport`] for rendering and the exit status. Only
//! the fields planner reads are typed; `--format json` prints the whole document.

use serde::{Deserialize, Serialize};

/// `schema` of a report.
pub(crate) const REPORT_SCHEMA: &str = "planner-verify/2";

/// What a run of the script did (`mode` in the report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum VerifyMode {
    /// Checked the environment as it is (no baseline, or one used by itself).
    Check,
    /// Recorded a baseline before the plan is applied (`--baseline`).
    Baseline,
    /// Compared with a baseline recorded before (`--compare`): only regressions fail.
    Compare,
}

/// One report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct VerifyReport {
    /// Always [`REPORT_SCHEMA`].
    pub schema: String,
    /// What the run did.
    pub mode: VerifyMode,
    /// The plan verified (kind and title), if any.
    pub plan: Option<PlanInfo>,
    /// `--all`.
    #[serde(default)]
    pub all: bool,
    /// The interpreter's version.
    pub python: String,
    /// The interpreter.
    pub executable: String,
    /// What the CUDA driver said (`None` when no selected smoke test needs CUDA).
    pub cuda: Option<Cuda>,
    /// Where `import torch` loaded the CUDA libraries from (`None`: torch not installed, or
    /// `--no-smoke`).
    #[serde(default)]
    pub cuda_libraries: Option<CudaLibraries>,
    /// The baseline used or recorded by itself (`None`: none).
    #[serde(default)]
    pub baseline: Option<BaselineInfo>,
    /// Failures that could not be compared with a baseline (a plain run after the change).
    #[serde(default)]
    pub uncompared: Vec<String>,
    /// `--all`: the time budget of the imports below the top level, and what it left out.
    #[serde(default)]
    pub budget: Option<Budget>,
    /// The compile caches the checks ran with (`None`: a report from before they were private).
    #[serde(default)]
    pub caches: Option<Caches>,
    /// Wall seconds.
    pub seconds: f64,
    /// Nothing failed (with `--compare`: nothing regressed).
    pub ok: bool,
    /// Counts.
    pub summary: Summary,
    /// Every failed check, with its package and the last line of its error.
    pub failed: Vec<Failed>,
    /// Every check.
    pub checks: Vec<Check>,
}

/// The plan a report is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PlanInfo {
    /// The plan kind.
    pub kind: String,
    /// Its title.
    pub title: String,
}

/// The CUDA driver's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Cuda {
    /// Devices seen.
    pub devices: u32,
    /// What the probe said.
    pub detail: String,
}

/// The CUDA libraries a child's `import torch` loaded (its `/proc/self/maps`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CudaLibraries {
    /// Each library: `library`, `path`, `from` (`venv`, `driver`, `outside`).
    #[serde(default)]
    pub loaded: Vec<serde_json::Value>,
    /// The paths loaded from outside the venv's site-packages and the driver's folder.
    #[serde(default)]
    pub outside: Vec<String>,
    /// What the probe said.
    #[serde(default)]
    pub detail: Option<String>,
}

/// The baseline of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct BaselineInfo {
    /// Where it is.
    pub file: String,
    /// This run recorded it (the plan's changes were not installed yet).
    pub recorded: bool,
    /// This run compared with it.
    pub compared: bool,
    /// Found or recorded by itself, not asked for with `--baseline`/`--compare`.
    pub automatic: bool,
}

/// The compile caches of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Caches {
    /// Fresh empty folders of this run, removed afterwards; false with `--warm-caches`.
    pub private: bool,
    /// Each cache variable as the checks saw it (`None`: unset).
    #[serde(default)]
    pub variables: std::collections::BTreeMap<String, Option<String>>,
}

/// How far `--all` went below the top level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Budget {
    /// The seconds allowed.
    pub seconds: f64,
    /// Imports below the top level that ran.
    pub deep_imported: usize,
    /// Imports below the top level left out when the budget was spent.
    pub deep_left: usize,
    /// Of those, the imports stopped while they ran, at the budget's end.
    #[serde(default)]
    pub deep_stopped: usize,
}

/// Counts of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Summary {
    /// Checks run.
    pub checks: usize,
    /// Passed.
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Skipped.
    pub skipped: usize,
    /// Failures that did not fail in the baseline (`--compare` only).
    #[serde(default)]
    pub regressions: Option<usize>,
    /// Failures that already failed in the baseline (`--compare` only).
    #[serde(default)]
    pub pre_existing: Option<usize>,
}

/// One failed check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Failed {
    /// The check's name (`import:pandas`).
    pub check: String,
    /// The dist it belongs to.
    pub package: Option<String>,
    /// The last line of its error.
    pub error: String,
    /// With `--compare`: whether it passed (or did not run) before.
    #[serde(default)]
    pub regression: Option<bool>,
}

/// A check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum CheckStatus {
    /// It ran and passed.
    Pass,
    /// It ran and failed.
    Fail,
    /// It could not run here (no CUDA device, not installed); never counted as passed.
    Skip,
}

/// One check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Check {
    /// `version:NAME`, `import:MODULE`, `call-time:MODULE` (or `MODULE.NAME`), `pip-check`,
    /// `smoke:NAME` or `test:COMMAND`.
    pub name: String,
    /// `version`, `import`, `call-time`, `pip-check`, `smoke` or `test`.
    pub kind: String,
    /// The outcome.
    pub status: CheckStatus,
    /// The dist it belongs to.
    pub package: Option<String>,
    /// Why it was selected (imports: `changed`, `overridden-dependent`, `dependent`,
    /// `importer`, `installed`; smoke tests: the triggering change).
    #[serde(default)]
    pub why: Option<String>,
    /// The last line of its error (failures).
    #[serde(default)]
    pub error: Option<String>,
    /// What it found (passes and skips).
    #[serde(default)]
    pub detail: Option<String>,
    /// A skip: the module is removed by the plan (the changed dist's new release does not ship
    /// it and nothing left in the environment imports it).
    #[serde(default)]
    pub removed: bool,
}

/// Why the script's output is not a report.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReportError {
    /// Not JSON, or not a report's shape.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// JSON of another schema.
    #[error("not a `{REPORT_SCHEMA}` report")]
    Schema,
}

impl VerifyReport {
    /// Parse the script's JSON.
    pub(crate) fn parse(text: &str) -> Result<(VerifyReport, serde_json::Value), ReportError> {
        let value: serde_json::Value = serde_json::from_str(text)?;
        if value.get("schema").and_then(|s| s.as_str()) != Some(REPORT_SCHEMA) {
            return Err(ReportError::Schema);
        }
        let report = serde_json::from_value(value.clone())?;
        Ok((report, value))
    }

    /// Skipped checks.
    pub(crate) fn skipped(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.status == CheckStatus::Skip)
    }
}
