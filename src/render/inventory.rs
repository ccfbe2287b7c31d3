//! `planner inventory` output: the table for people and the JSON document of
//! `docs/inventory-json.md`.
//!
//! In: an [`Inventory`]. Out: text ([`render_text`]) or the document ([`to_json`]), written by
//! [`super::json::to_json`].

use serde::Serialize;

use crate::inventory::{DirectUrl, DistFormat, Environment, EnvironmentOrigin, Inventory};
use crate::terminal;

/// The `schema` value of `planner inventory --format json` (`docs/schemas/inventory.json`).
pub(crate) const SCHEMA: &str = "planner-inventory/1";

/// The JSON document of `planner inventory --format json`.
#[derive(Debug, Serialize)]
pub(crate) struct InventoryJson<'a> {
    /// Always `planner-inventory/1`.
    pub schema: &'static str,
    /// The target interpreter.
    pub environment: EnvironmentJson<'a>,
    /// Installed dists, sorted by name, then version.
    pub dists: Vec<DistJson<'a>>,
    /// Dists that could not be read.
    pub unreadable: &'a [crate::inventory::UnreadableDist],
    /// This machine's runtime context (driver, GPUs, CUDA toolkits, steering variables,
    /// compile caches); absent for an inventory read from a snapshot file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<crate::inventory::runtime::Runtime>,
}

/// The `environment` object.
#[derive(Debug, Serialize)]
pub(crate) struct EnvironmentJson<'a> {
    /// Full Python version.
    pub python_version: String,
    /// How the facts were learned.
    pub origin: &'a EnvironmentOrigin,
    /// `sys.prefix`.
    pub prefix: Option<String>,
    /// Site-packages folders read.
    pub site_packages: Vec<String>,
    /// PEP 508 marker environment.
    pub markers: &'a pep508_rs::MarkerEnvironment,
    /// Wheel tags, best first.
    pub tags: &'a crate::tags::Tags,
    /// What was assumed or overridden.
    pub notes: &'a [crate::inventory::EnvNote],
}

/// One dist.
#[derive(Debug, Serialize)]
pub(crate) struct DistJson<'a> {
    /// Normalized name.
    pub name: String,
    /// `Name` as written.
    pub display_name: &'a str,
    /// Version, local label kept.
    pub version: String,
    /// `INSTALLER`.
    pub installer: Option<&'a str>,
    /// `REQUESTED` exists.
    pub requested: bool,
    /// `index`, `git@<commit>`, `editable`, `dir`, `file`, `egg-info`.
    pub source: String,
    /// PEP 610 data, parsed (URL credentials redacted).
    pub direct_url: Option<&'a DirectUrl>,
    /// `Requires-Python`.
    pub requires_python: Option<String>,
    /// `Requires-Dist`, re-serialized.
    pub requires_dist: Vec<String>,
    /// `Provides-Extra`.
    pub provides_extra: Vec<String>,
    /// Top-level import names.
    pub top_level: &'a [String],
    /// Metadata folder.
    pub path: String,
    /// `dist-info`, `egg-info` or `snapshot`.
    pub format: DistFormat,
}

/// Build the JSON document.
pub(crate) fn to_json(inventory: &Inventory) -> InventoryJson<'_> {
    let env: &Environment = &inventory.environment;
    InventoryJson {
        schema: SCHEMA,
        environment: EnvironmentJson {
            python_version: env.python_version.to_string(),
            origin: &env.origin,
            prefix: env.prefix.as_ref().map(|p| p.display().to_string()),
            site_packages: env
                .site_packages
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            markers: &env.markers,
            tags: &env.tags,
            notes: &env.notes,
        },
        dists: inventory
            .dists
            .iter()
            .map(|dist| DistJson {
                name: dist.name().to_string(),
                display_name: &dist.metadata.display_name,
                version: dist.version().to_string(),
                installer: dist.installer.as_deref(),
                requested: dist.requested,
                source: dist.source_label(),
                direct_url: dist.direct_url.as_ref(),
                requires_python: dist
                    .metadata
                    .requires_python
                    .as_ref()
                    .map(ToString::to_string),
                requires_dist: dist
                    .metadata
                    .requires_dist
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
                provides_extra: dist
                    .metadata
                    .provides_extra
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
                top_level: &dist.top_level,
                path: dist.path.display().to_string(),
                format: dist.format,
            })
            .collect(),
        unreadable: &inventory.unreadable,
        runtime: None,
    }
}

/// One line about the target environment, for human output.
pub(crate) fn describe_environment(env: &Environment) -> String {
    let origin = match &env.origin {
        EnvironmentOrigin::Interpreter { python, .. } => format!("asked {}", python.display()),
        EnvironmentOrigin::PyvenvCfg { path } => format!("from {}", path.display()),
        EnvironmentOrigin::Snapshot { path } => format!("snapshot {}", path.display()),
        EnvironmentOrigin::Synthesized => "synthesized".to_string(),
    };
    let best = env
        .tags
        .as_slice()
        .first()
        .map(|tag| tag.to_string())
        .unwrap_or_else(|| "no tags".to_string());
    format!(
        "Python {} ({} {}, best tag {best}; {origin})",
        env.python_version,
        env.markers.sys_platform(),
        env.markers.platform_machine(),
    )
}

/// The table: name, version, installer, source, requested.
pub(crate) fn render_text(inventory: &Inventory, color: bool) -> String {
    let headers = ["name", "version", "installer", "source", "requested"];
    let rows: Vec<[String; 5]> = inventory
        .dists
        .iter()
        .map(|dist| {
            [
                dist.metadata.display_name.clone(),
                dist.version().to_string(),
                dist.installer.clone().unwrap_or_else(|| "-".to_string()),
                dist.source_label(),
                if dist.requested { "yes" } else { "" }.to_string(),
            ]
        })
        .collect();
    let mut widths = headers.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    out.push_str(&describe_environment(&inventory.environment));
    out.push('\n');
    let line = |cells: &[&str]| {
        let mut line = String::new();
        for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}  "));
            }
        }
        line.trim_end().to_string() + "\n"
    };
    let bold = anstyle::Style::new().bold();
    out.push_str(&crate::printer::paint(color, bold, &line(&headers)));
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&line(&rule.iter().map(String::as_str).collect::<Vec<_>>()));
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .map(|cell| terminal::escape(cell).into_owned())
            .collect();
        out.push_str(&line(&cells.iter().map(String::as_str).collect::<Vec<_>>()));
    }
    let unreadable = if inventory.unreadable.is_empty() {
        String::new()
    } else {
        format!(", {} unreadable", inventory.unreadable.len())
    };
    out.push_str(&format!(
        "{} distributions{unreadable}\n",
        inventory.dists.len()
    ));
    out
}
