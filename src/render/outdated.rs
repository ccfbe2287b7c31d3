//! `planner outdated` output: the report (also the JSON document of `docs/outdated-json.md`)
//! and its table for people.
//!
//! In: an [`OutdatedReport`], typed (names and versions parsed; JSON writes them normalized).
//! Out: text ([`render_text`], fitted to a terminal's width when there is one); the JSON is the
//! report itself, through [`super::json`].

use pep440_rs::Version;
use pep508_rs::PackageName;
use serde::Serialize;

use crate::plan::BreakKind;

/// The `schema` value of `planner outdated --format json` (`docs/schemas/outdated.json`).
pub(crate) const SCHEMA: &str = "planner-outdated/1";

/// The whole report (also the JSON document).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OutdatedReport {
    /// Always `planner-outdated/1`.
    pub schema: &'static str,
    /// The target Python version.
    pub python_version: Version,
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
pub(crate) struct PackageStatus {
    /// Normalized name.
    pub name: PackageName,
    /// Installed version.
    pub installed: Version,
    /// The newest final release this environment can install (tags, Requires-Python, not
    /// yanked), or `null` when none can be.
    pub newest_compatible: Option<Version>,
    /// The newest final release on the index, any platform (not yanked).
    pub newest_on_index: Option<Version>,
    /// The newest compatible release that every installed dependent accepts and whose own
    /// requirements the installed versions meet (what an upgrade of this dist alone reaches).
    pub newest_allowed: Option<Version>,
    /// Whether `newest_compatible` is newer than the installed version.
    pub outdated: bool,
    /// Installed dists whose requirements exclude `newest_compatible`.
    pub held_back_by: Vec<HeldBackBy>,
    /// The requirements of the newest release the installed dependents accept (above
    /// `newest_allowed`) that the installed versions do not meet: torchvision 0.29.2's
    /// `torch>=2.14` with torch 2.11.0 installed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<Needs>,
    /// The installed dists that the newest release above `newest_allowed` whose own
    /// requirements the installed versions meet breaks, by planner's analysis (the evidence
    /// `propose` weighs), not by any declared requirement: numpy 2.4.6 under pandas 1.5.3's
    /// compiled extensions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub breaks: Vec<Breaks>,
    /// Which index answered.
    pub index: String,
}

/// An installed dist whose requirement caps another.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct HeldBackBy {
    /// Its name.
    pub name: PackageName,
    /// Its installed version.
    pub version: Version,
    /// The requirement's version specifiers (e.g. `==2.11.0`).
    pub specifier: String,
}

/// A requirement of a newer release that an installed version does not meet.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Needs {
    /// The newer release that declares it.
    pub release: Version,
    /// The required dist.
    pub name: PackageName,
    /// Its installed version.
    pub installed: Version,
    /// The requirement's version specifiers (e.g. `>=2.14`).
    pub specifier: String,
}

/// An installed dist that a newer release breaks, by analysis: its compiled extensions or its
/// imports, not its declared requirements.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Breaks {
    /// The newer release that breaks it.
    pub release: Version,
    /// The installed dist it breaks.
    pub name: PackageName,
    /// Its installed version.
    pub installed: Version,
    /// The evidence: `abi-break` (its compiled extensions link against the dist and were
    /// released before the release's major line) or `import-target-missing` (its files import
    /// a module or a name the release no longer has).
    #[serde(serialize_with = "evidence_key")]
    pub evidence: BreakKind,
    /// For `import-target-missing`, the failing imports, one sentence each naming the file
    /// and line (the first few of the release).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<String>,
}

/// The risk factor's key for a break's evidence.
fn evidence_word(how: BreakKind) -> &'static str {
    match how {
        BreakKind::Abi => "abi-break",
        BreakKind::Import => "import-target-missing",
    }
}

fn evidence_key<S: serde::Serializer>(how: &BreakKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(evidence_word(*how))
}

/// A dist installed from outside the index.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Unmanaged {
    /// Name.
    pub name: PackageName,
    /// Installed version.
    pub installed: Version,
    /// Where it came from (`git@<commit>`, `editable`, `file`, `egg-info`).
    pub source: String,
}

/// A name and version.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct NameVersion {
    /// Name.
    pub name: PackageName,
    /// Installed version.
    pub installed: Version,
}

/// A dist whose page could not be read.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PackageError {
    /// Name.
    pub name: PackageName,
    /// Installed version.
    pub installed: Version,
    /// The error (URLs redacted).
    pub error: String,
}

/// The table for humans: outdated dists only (like `pip list --outdated`), then the dists not
/// compared; fitted to `width` when there is one ([`crate::terminal::fit`]).
pub(crate) fn render_text(report: &OutdatedReport, color: bool, width: Option<usize>) -> String {
    let mut out = String::new();
    let outdated: Vec<&PackageStatus> = report.packages.iter().filter(|p| p.outdated).collect();
    if outdated.is_empty() {
        out.push_str(&format!(
            "All {} packages found on the index are up to date for Python {}.\n",
            report.packages.len(),
            report.python_version
        ));
    } else {
        out.push_str(&outdated_table(&outdated, color, width));
        out.push_str(&outdated_summary(report, &outdated));
    }
    out.push_str(&not_compared(report));
    crate::terminal::fit(&out, width).into_owned()
}

/// The fewest columns the "Held back by" column keeps in the wide table before it moves to a
/// line of its own under each row.
const HELD_BACK_NARROWEST: usize = 30;

/// The outdated dists' table. "Can move to": the newest release every installed dependent
/// accepts, whose own requirements the installed versions meet and that breaks no installed
/// dist by analysis (what an upgrade of this dist alone reaches); "Newest here": the newest
/// this Python and platform can install; "Latest": the newest on the index for any platform.
/// Too wide for `width`, "Latest" is named beside "Newest here" only where they differ, and
/// "Held back by" goes on a line of its own under its row; no version is ever cut.
fn outdated_table(outdated: &[&PackageStatus], color: bool, width: Option<usize>) -> String {
    let version = |v: &Option<Version>| v.as_ref().map(ToString::to_string);
    let fixed = |p: &PackageStatus| {
        let can_move = p
            .newest_allowed
            .as_ref()
            .filter(|v| *v > &p.installed)
            .map_or_else(|| "-".to_string(), ToString::to_string);
        [
            p.name.to_string(),
            p.installed.to_string(),
            can_move,
            version(&p.newest_compatible).unwrap_or_default(),
            version(&p.newest_on_index).unwrap_or_default(),
        ]
    };
    let rows: Vec<([String; 5], String)> = outdated
        .iter()
        .map(|p| (fixed(p), held_back_cell(p)))
        .collect();
    let header = [
        "Package",
        "Installed",
        "Can move to",
        "Newest here",
        "Latest",
    ]
    .map(String::from);
    let wide = table_widths(&header, rows.iter().map(|(r, _)| r));
    let wide_width: usize = wide.iter().map(|w| w + 2).sum();
    if width.is_none_or(|w| wide_width + HELD_BACK_NARROWEST <= w) {
        let mut lines = vec![(header, "Held back by".to_string())];
        lines.extend(rows);
        return table(&lines, &wide, color, false);
    }
    let merged = |[name, installed, can_move, here, latest]: [String; 5]| -> [String; 4] {
        let newest = match (here.is_empty(), here == latest || latest.is_empty()) {
            (_, true) => here,
            (true, false) => format!("- (latest {latest})"),
            (false, false) => format!("{here} (latest {latest})"),
        };
        [name, installed, can_move, newest]
    };
    let header = [
        "Package",
        "Installed",
        "Can move to",
        "Newest here (latest)",
    ]
    .map(String::from);
    let rows: Vec<([String; 4], String)> = rows
        .into_iter()
        .map(|(r, held)| (merged(r), held))
        .collect();
    let widths = table_widths(&header, rows.iter().map(|(r, _)| r));
    let mut lines = vec![(header, String::new())];
    lines.extend(rows);
    table(&lines, &widths, color, true)
}

/// Each column's width: its widest cell, header included.
fn table_widths<'r, const N: usize>(
    header: &[String; N],
    rows: impl Iterator<Item = &'r [String; N]>,
) -> [usize; N] {
    let mut widths = header.each_ref().map(|h| h.chars().count());
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    widths
}

/// The rows (the first is the header, in bold, with a rule under it), each cell padded to its
/// column's width, then the "held back by" text: as the last column, or `under` each row on
/// a line of its own.
fn table<const N: usize>(
    rows: &[([String; N], String)],
    widths: &[usize; N],
    color: bool,
    under: bool,
) -> String {
    let mut out = String::new();
    for (n, (cells, held)) in rows.iter().enumerate() {
        let mut line = String::new();
        for (cell, width) in cells.iter().zip(widths) {
            line.push_str(&format!("{cell:<width$}  "));
        }
        if !under {
            line.push_str(held);
        }
        let line = line.trim_end();
        if n == 0 {
            let bold = anstyle::Style::new().bold();
            out.push_str(&crate::printer::paint(color, bold, line));
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            let last = if under {
                String::new()
            } else {
                format!("  {}", "-".repeat(12))
            };
            out.push_str(&format!("\n{}{last}\n", rule.join("  ")));
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if under && !held.is_empty() {
            out.push_str(&format!("    held back by {held}\n"));
        }
    }
    out
}

/// "Held back by": the installed requirements that exclude the newest release and what newer
/// releases need (the index's metadata), then what the newest release whose requirements are
/// met breaks (by analysis), one group per release and evidence.
fn held_back_cell(p: &PackageStatus) -> String {
    let declared = p
        .held_back_by
        .iter()
        .map(|h| format!("{} {} ({})", h.name, h.version, h.specifier))
        .chain(p.needs.iter().map(|n| {
            format!(
                "{} {} needs {}{} ({} installed)",
                p.name, n.release, n.name, n.specifier, n.installed
            )
        }));
    let mut groups: Vec<(&Version, BreakKind, Vec<String>)> = Vec::new();
    for b in &p.breaks {
        let dependent = format!("{} {}", b.name, b.installed);
        match groups
            .iter_mut()
            .find(|(release, how, _)| *release == &b.release && *how == b.evidence)
        {
            Some((.., names)) => names.push(dependent),
            None => groups.push((&b.release, b.evidence, vec![dependent])),
        }
    }
    let analysed = groups.into_iter().map(|(release, how, names)| {
        format!(
            "{} {release} breaks {} ({}, by analysis)",
            p.name,
            names.join(", "),
            evidence_word(how)
        )
    });
    declared.chain(analysed).collect::<Vec<_>>().join(", ")
}

/// The count of outdated and held back dists, and where the reasons came from when the
/// analysis found breaks; then the failing imports it found.
fn outdated_summary(report: &OutdatedReport, outdated: &[&PackageStatus]) -> String {
    let held = outdated
        .iter()
        .filter(|p| !p.held_back_by.is_empty() || !p.needs.is_empty())
        .count();
    let mut out = format!(
        "\n{} of {} packages are outdated; {held} held back by installed requirements.\n",
        outdated.len(),
        report.packages.len()
    );
    let broken: Vec<&&PackageStatus> = outdated.iter().filter(|p| !p.breaks.is_empty()).collect();
    if broken.is_empty() {
        return out;
    }
    out.push_str(&format!(
        "{} of them would break an installed dist, by planner's analysis of the installed files \
         and the index's release dates and wheels (the evidence `planner propose` weighs; the \
         other reasons are the index's metadata):\n",
        broken.len()
    ));
    for p in broken {
        for b in &p.breaks {
            let why = match b.evidence {
                BreakKind::Abi => format!(
                    "{} {} ships compiled extensions that use {}'s C API, built before {} {}.x \
                     existed",
                    b.name,
                    b.installed,
                    p.name,
                    p.name,
                    crate::plan::line_floor(&b.release)
                ),
                BreakKind::Import if b.imports.is_empty() => format!(
                    "{} {} imports what {} {} no longer has",
                    b.name, b.installed, p.name, b.release
                ),
                BreakKind::Import => b.imports.join("; "),
            };
            out.push_str(&format!("  {} {}: {why}\n", p.name, b.release));
        }
    }
    out
}

/// The dists newer on the index but not installable here, installed from outside the index,
/// not found, or not checked.
fn not_compared(report: &OutdatedReport) -> String {
    let mut out = String::new();
    let newer_elsewhere: Vec<&PackageStatus> = report
        .packages
        .iter()
        .filter(|p| {
            let on_index = p.newest_on_index.as_ref();
            !p.outdated && on_index > Some(&p.installed) && on_index > p.newest_compatible.as_ref()
        })
        .collect();
    if !newer_elsewhere.is_empty() {
        out.push_str("\nNewer on the index but not installable here (tags or Requires-Python):\n");
        for p in newer_elsewhere {
            let on_index = p.newest_on_index.as_ref().map(ToString::to_string);
            out.push_str(&format!(
                "  {} {} (index has {})\n",
                p.name,
                p.installed,
                on_index.unwrap_or_default()
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
            let error = crate::terminal::field(&e.error);
            out.push_str(&format!("  {} {}: {error}\n", e.name, e.installed));
        }
    }
    out
}
