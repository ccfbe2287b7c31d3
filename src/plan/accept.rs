//! Accepted overrides: the plan files `planner check --accept` reads.
//!
//! An accepted override silences exactly one broken edge: the same dependent at the same version,
//! the same declared requirement, and the same installed version of the overridden dist. Anything
//! else (a new break, the dependent upgraded, the dist moved again) is still reported.

use std::path::{Path, PathBuf};

use super::proposal::{InstallSteps, Override, PLAN_SCHEMA, PLAN_SCHEMA_1, PROPOSAL_SCHEMA, Plan};

/// Why a plan file could not be used.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum AcceptError {
    /// The file could not be read.
    #[error("cannot read the plan file `{path}`")]
    #[diagnostic(help("pass a plan.json written by `planner propose --out-dir`"))]
    Read {
        /// The file.
        path: PathBuf,
        /// The IO error.
        #[source]
        source: std::io::Error,
    },
    /// The JSON is not a plan.
    #[error("`{path}` is not a planner plan file: {message}")]
    #[diagnostic(help(
        "plan files have `\"schema\": \"{PLAN_SCHEMA}\"`; `planner propose --out-dir DIR` writes one \
         per plan under DIR/plans/"
    ))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// A whole proposal was given: which plan's overrides are accepted is ambiguous.
    #[error("`{path}` is a proposal with several plans, not a plan file")]
    #[diagnostic(help(
        "accept one plan: pass DIR/plans/<n>-<kind>/plan.json from `planner propose --out-dir DIR`"
    ))]
    Proposal {
        /// The file.
        path: PathBuf,
    },
}

/// Overrides accepted by one or more plan files.
#[derive(Debug, Clone, Default)]
pub struct AcceptedOverrides {
    overrides: Vec<(Override, PathBuf)>,
}

impl AcceptedOverrides {
    /// Read plan files.
    pub(crate) fn load(paths: &[PathBuf]) -> Result<Self, AcceptError> {
        let mut accepted = AcceptedOverrides::default();
        for path in paths {
            let text = crate::bounded::read_to_string(path, crate::bounded::USER_FILE_LIMIT)
                .map_err(|source| AcceptError::Read {
                    path: path.clone(),
                    source,
                })?;
            accepted.add_json(&text, path)?;
        }
        Ok(accepted)
    }

    /// Add the overrides of one plan file's JSON text.
    pub fn add_json(&mut self, text: &str, path: &Path) -> Result<(), AcceptError> {
        let plan = parse_plan(text, path)?;
        self.overrides
            .extend(plan.overrides.into_iter().map(|o| (o, path.to_path_buf())));
        Ok(())
    }

    /// The accepted edges, in the form `planner check` matches findings against.
    pub fn edges(&self) -> Vec<crate::inventory::check::AcceptedEdge> {
        self.overrides
            .iter()
            .map(|(o, _)| crate::inventory::check::AcceptedEdge {
                dependent: o.dependent.clone(),
                dependent_version: o.dependent_version.clone(),
                requirement: o.requirement.to_string(),
                dependency: o.package.clone(),
                installed: o.version.clone(),
            })
            .collect()
    }
}

/// Read one plan file (`planner propose --out-dir` writes one per plan).
pub(crate) fn read_plan(path: &Path) -> Result<Plan, AcceptError> {
    let text = crate::bounded::read_to_string(path, crate::bounded::USER_FILE_LIMIT).map_err(
        |source| AcceptError::Read {
            path: path.to_path_buf(),
            source,
        },
    )?;
    parse_plan(&text, path)
}

/// Parse a plan file's JSON text; a proposal or another schema is an error naming the file. A
/// plan of the first schema is read as the current one, its install steps taken from its
/// commands ([`InstallSteps::from_first_schema`]).
fn parse_plan(text: &str, path: &Path) -> Result<Plan, AcceptError> {
    let invalid = |message: String| AcceptError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|err| invalid(err.to_string()))?;
    let first = value.get("schema").and_then(|s| s.as_str()) == Some(PLAN_SCHEMA_1);
    match value.get("schema").and_then(|s| s.as_str()) {
        Some(PLAN_SCHEMA | PLAN_SCHEMA_1) => {}
        Some(PROPOSAL_SCHEMA) => {
            return Err(AcceptError::Proposal {
                path: path.to_path_buf(),
            });
        }
        Some(other) => return Err(invalid(format!("unknown schema `{other}`"))),
        None => return Err(invalid("no `schema` field".to_string())),
    }
    let mut plan: Plan = serde_json::from_value(value).map_err(|err| invalid(err.to_string()))?;
    if first {
        plan.schema = PLAN_SCHEMA.to_string();
        plan.install = InstallSteps::from_first_schema(&plan.changes, plan.commands.as_ref());
    }
    Ok(plan)
}
