//! `planner outdated`: for each installed dist, the installed version, the newest this
//! environment can install (wheel tags and Requires-Python), the newest on the index, and which
//! installed dists hold it back (their requirements exclude the newer version). Dists installed
//! from outside the index (direct URLs, VCS, editables, egg-info) are listed apart and never
//! compared with index versions. JSON schema: `docs/outdated-json.md`.
//!
//! In: an [`Inventory`] and the index's [`Project`]s. Out: an [`OutdatedReport`], rendered as a
//! table or JSON. Exit 0, or 2 when some projects could not be read from the index (the rest is
//! still printed).

use std::collections::BTreeMap;
use std::sync::Arc;

use pep440_rs::Version;
use pep508_rs::{PackageName, VersionOrUrl};
use serde::Serialize;

use crate::ExitStatus;
use crate::cli::{OutdatedArgs, OutputFormat};
use crate::index::{BinaryPolicy, Index, IndexError, IndexSettings, Project, candidates};
use crate::inventory::graph::DependencyGraph;
use crate::inventory::{self, InstalledDist, Inventory};
use crate::printer::Printer;

/// The `schema` value of `planner outdated --format json`.
pub const SCHEMA: &str = "planner-outdated";
/// The `schema_version` of `planner outdated --format json`.
pub const SCHEMA_VERSION: u32 = 1;

/// Run `planner outdated`.
pub fn run(args: &OutdatedArgs, printer: &Printer) -> miette::Result<ExitStatus> {
    let inventory = inventory::load(&args.env)?;
    inventory.report(printer);
    let settings = IndexSettings::from_args(&args.index, args.env.venv.as_deref())?;
    let index = Index::new(settings, printer)?;
    let names: Vec<PackageName> = inventory
        .dists
        .iter()
        .filter(|d| !d.is_unmanaged())
        .map(|d| d.name().clone())
        .collect();
    let projects: BTreeMap<PackageName, Result<Option<Arc<Project>>, IndexError>> =
        names.iter().cloned().zip(index.projects(&names)).collect();
    index.finish_progress();
    let indexes: Vec<String> = index.indexes().iter().map(ToString::to_string).collect();
    let report = build_report(&inventory, &projects, index.binary_policy(), indexes);
    match args.format {
        OutputFormat::Json => {
            let mut text = serde_json::to_string_pretty(&report)
                .map_err(|err| miette::miette!("cannot serialize the outdated report: {err}"))?;
            text.push('\n');
            printer.out(&text);
        }
        OutputFormat::Text => printer.out(&render_text(&report)),
    }
    // Freeing a hundred thousand parsed files costs a tenth of a warm run; the process is about
    // to exit, so leave that to the OS (as uv and ripgrep do with their big structures).
    let projects = std::mem::ManuallyDrop::new(projects);
    let _index = std::mem::ManuallyDrop::new(index);
    if report.errors.is_empty() {
        return Ok(ExitStatus::Success);
    }
    // The first error, rendered with its help, says what to do; the rest are in the report.
    let first = projects
        .values()
        .find_map(|r| r.as_ref().err().cloned())
        .map(miette::Report::new);
    if let Some(first) = first {
        printer.warn(&format!(
            "{} of {} packages could not be checked; the first error:",
            report.errors.len(),
            names.len()
        ));
        return Err(first);
    }
    Ok(ExitStatus::Error)
}

/// The whole report (also the JSON document).
#[derive(Debug, Clone, Serialize)]
pub struct OutdatedReport {
    /// Always `planner-outdated`.
    pub schema: &'static str,
    /// Always 1.
    pub schema_version: u32,
    /// The target Python version.
    pub python_version: String,
    /// The indexes searched, in order (credentials redacted).
    pub indexes: Vec<String>,
    /// Every dist found on the index, sorted by name.
    pub packages: Vec<PackageStatus>,
    /// Dists installed from outside the index: never compared.
    pub unmanaged: Vec<Unmanaged>,
    /// Dists no configured index has.
    pub not_found: Vec<NameVersion>,
    /// Dists whose index page could not be read.
    pub errors: Vec<PackageError>,
}

/// One dist compared with the index.
#[derive(Debug, Clone, Serialize)]
pub struct PackageStatus {
    /// Normalized name.
    pub name: String,
    /// Installed version.
    pub installed: String,
    /// The newest final release this environment can install (tags, Requires-Python, not
    /// yanked), or `null` when none can be.
    pub newest_compatible: Option<String>,
    /// The newest final release on the index, any platform (not yanked).
    pub newest_on_index: Option<String>,
    /// The newest compatible release that every installed dependent accepts.
    pub newest_allowed: Option<String>,
    /// Whether `newest_compatible` is newer than the installed version.
    pub outdated: bool,
    /// Installed dists whose requirements exclude `newest_compatible`.
    pub held_back_by: Vec<HeldBackBy>,
    /// Which index answered.
    pub index: String,
}

/// An installed dist whose requirement caps another.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct HeldBackBy {
    /// Its name.
    pub name: String,
    /// Its installed version.
    pub version: String,
    /// The requirement's version specifiers (e.g. `==2.11.0`).
    pub specifier: String,
}

/// A dist installed from outside the index.
#[derive(Debug, Clone, Serialize)]
pub struct Unmanaged {
    /// Name.
    pub name: String,
    /// Installed version.
    pub installed: String,
    /// Where it came from (`git@<commit>`, `editable`, `file`, `egg-info`).
    pub source: String,
}

/// A name and version.
#[derive(Debug, Clone, Serialize)]
pub struct NameVersion {
    /// Name.
    pub name: String,
    /// Installed version.
    pub installed: String,
}

/// A dist whose page could not be read.
#[derive(Debug, Clone, Serialize)]
pub struct PackageError {
    /// Name.
    pub name: String,
    /// Installed version.
    pub installed: String,
    /// The error (URLs redacted).
    pub error: String,
}

/// Compare the inventory with the index pages.
pub fn build_report(
    inventory: &Inventory,
    projects: &BTreeMap<PackageName, Result<Option<Arc<Project>>, IndexError>>,
    policy: &BinaryPolicy,
    indexes: Vec<String>,
) -> OutdatedReport {
    let graph = DependencyGraph::build(inventory);
    let env = &inventory.environment;
    let mut report = OutdatedReport {
        schema: SCHEMA,
        schema_version: SCHEMA_VERSION,
        python_version: env.python_version.to_string(),
        indexes,
        packages: Vec::new(),
        unmanaged: Vec::new(),
        not_found: Vec::new(),
        errors: Vec::new(),
    };
    for dist in &inventory.dists {
        let name = dist.name().to_string();
        let installed = dist.version().to_string();
        if dist.is_unmanaged() {
            report.unmanaged.push(Unmanaged {
                name,
                installed,
                source: dist.source_label(),
            });
            continue;
        }
        match projects.get(dist.name()) {
            None | Some(Ok(None)) => report.not_found.push(NameVersion { name, installed }),
            Some(Err(err)) => report.errors.push(PackageError {
                name,
                installed,
                error: err.to_string(),
            }),
            Some(Ok(Some(project))) => {
                report
                    .packages
                    .push(compare(dist, project, &graph, env, policy));
            }
        }
    }
    report
}

fn compare(
    dist: &InstalledDist,
    project: &Project,
    graph: &DependencyGraph<'_>,
    env: &inventory::Environment,
    policy: &BinaryPolicy,
) -> PackageStatus {
    let all = candidates(project, env, policy);
    let is_final = |v: &Version| !v.any_prerelease();
    let newest_compatible = all
        .iter()
        .find(|c| c.is_usable() && is_final(&c.version))
        .map(|c| c.version.clone());
    let newest_on_index = project
        .files
        .iter()
        .filter(|f| f.yanked.is_none() && is_final(f.filename.version()))
        .map(|f| f.filename.version())
        .max()
        .cloned();
    // Requirements of installed dependents (whose markers hold) on this name.
    let dependents = graph.dependents(dist.name());
    let accepts = |version: &Version| {
        dependents.iter().all(|(_, req)| match &req.version_or_url {
            Some(VersionOrUrl::VersionSpecifier(specs)) => specs.contains(version),
            _ => true,
        })
    };
    let mut held_back_by = Vec::new();
    if let Some(newest) = &newest_compatible
        && newest > dist.version()
    {
        for (dependent, req) in &dependents {
            if let Some(VersionOrUrl::VersionSpecifier(specs)) = &req.version_or_url
                && !specs.contains(newest)
            {
                let entry = HeldBackBy {
                    name: dependent.name().to_string(),
                    version: dependent.version().to_string(),
                    specifier: specs.to_string(),
                };
                if !held_back_by.contains(&entry) {
                    held_back_by.push(entry);
                }
            }
        }
    }
    let newest_allowed = all
        .iter()
        .find(|c| c.is_usable() && is_final(&c.version) && accepts(&c.version))
        .map(|c| c.version.to_string());
    PackageStatus {
        name: dist.name().to_string(),
        installed: dist.version().to_string(),
        outdated: newest_compatible
            .as_ref()
            .is_some_and(|v| v > dist.version()),
        newest_compatible: newest_compatible.map(|v| v.to_string()),
        newest_on_index: newest_on_index.map(|v| v.to_string()),
        newest_allowed,
        held_back_by,
        index: project.index.clone(),
    }
}

/// The table for humans: outdated dists only (like `pip list --outdated`), then the dists not
/// compared.
pub fn render_text(report: &OutdatedReport) -> String {
    let mut out = String::new();
    let outdated: Vec<&PackageStatus> = report.packages.iter().filter(|p| p.outdated).collect();
    if outdated.is_empty() {
        out.push_str(&format!(
            "All {} packages found on the index are up to date for Python {}.\n",
            report.packages.len(),
            report.python_version
        ));
    } else {
        let mut rows = vec![[
            "Package".to_string(),
            "Installed".to_string(),
            "Compatible".to_string(),
            "Latest".to_string(),
            "Held back by".to_string(),
        ]];
        for p in &outdated {
            let held = p
                .held_back_by
                .iter()
                .map(|h| format!("{} {} ({})", h.name, h.version, h.specifier))
                .collect::<Vec<_>>()
                .join(", ");
            rows.push([
                p.name.clone(),
                p.installed.clone(),
                p.newest_compatible.clone().unwrap_or_default(),
                p.newest_on_index.clone().unwrap_or_default(),
                held,
            ]);
        }
        let widths: Vec<usize> = (0..4)
            .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        for (n, row) in rows.iter().enumerate() {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                if i < 4 {
                    line.push_str(&format!("{cell:<width$}  ", width = widths[i]));
                } else {
                    line.push_str(cell);
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
            if n == 0 {
                let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
                out.push_str(&format!("{}  {}\n", rule.join("  "), "-".repeat(12)));
            }
        }
        let held = outdated
            .iter()
            .filter(|p| !p.held_back_by.is_empty())
            .count();
        out.push_str(&format!(
            "\n{} of {} packages are outdated; {held} held back by installed requirements.\n",
            outdated.len(),
            report.packages.len()
        ));
    }
    let newer_elsewhere: Vec<&PackageStatus> = report
        .packages
        .iter()
        .filter(|p| {
            let parse = |s: Option<&str>| s.and_then(|v| v.parse::<Version>().ok());
            let on_index = parse(p.newest_on_index.as_deref());
            !p.outdated
                && on_index > parse(Some(&p.installed))
                && on_index > parse(p.newest_compatible.as_deref())
        })
        .collect();
    if !newer_elsewhere.is_empty() {
        out.push_str("\nNewer on the index but not installable here (tags or Requires-Python):\n");
        for p in newer_elsewhere {
            out.push_str(&format!(
                "  {} {} (index has {})\n",
                p.name,
                p.installed,
                p.newest_on_index.as_deref().unwrap_or("")
            ));
        }
    }
    if !report.unmanaged.is_empty() {
        out.push_str("\nInstalled from outside the index (not compared):\n");
        for u in &report.unmanaged {
            out.push_str(&format!("  {} {} ({})\n", u.name, u.installed, u.source));
        }
    }
    if !report.not_found.is_empty() {
        out.push_str("\nNot found on the index:\n");
        for n in &report.not_found {
            out.push_str(&format!("  {} {}\n", n.name, n.installed));
        }
    }
    if !report.errors.is_empty() {
        out.push_str("\nCould not be checked:\n");
        for e in &report.errors {
            out.push_str(&format!("  {} {}: {}\n", e.name, e.installed, e.error));
        }
    }
    out
}
