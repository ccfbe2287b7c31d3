//! `planner outdated` output: the table for people; the report itself ([`OutdatedReport`],
//! built by [`crate::outdated`]) is the JSON document of `docs/outdated-json.md`.
//!
//! In: an [`OutdatedReport`], typed (names and versions parsed; JSON writes them normalized).
//! Out: text ([`render_text`], fitted to a terminal's width when there is one); the JSON is the
//! report itself, through [`super::json`].

use std::collections::BTreeMap;

use pep440_rs::Version;

use crate::outdated::report::{OutdatedReport, PackageStatus, evidence_word};
use crate::plan::BreakKind;

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
/// dist by analysis (what an upgrade of this dist alone reaches; for a dist on an accelerator
/// line that cannot move alone, what `propose` moves it to, and "Held back by" names the dists
/// it moves with);
/// "Newest here": the newest
/// this Python and platform can install; "Latest": the newest on the index for any platform.
/// Too wide for `width`, "Latest" is named beside "Newest here" only where they differ, and
/// "Held back by" goes on a line of its own under its row; no version is ever cut.
fn outdated_table(outdated: &[&PackageStatus], color: bool, width: Option<usize>) -> String {
    let version = |v: &Option<Version>| v.as_ref().map(ToString::to_string);
    let fixed = |p: &PackageStatus| {
        // A row whose check could not read what it needed claims nothing: "?", not "-".
        let can_move = match &p.not_checked {
            Some(_) => "?".to_string(),
            None => p
                .newest_allowed
                .as_ref()
                .filter(|v| *v > &p.installed)
                .map_or_else(|| "-".to_string(), ToString::to_string),
        };
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

/// What moves with a "Can move to" that `propose` planned: `torch 2.10.0 moves with triton
/// 3.6.0`, `torch 2.10.0 moves with triton 3.6.0 and 2 more`.
fn moves_with(p: &PackageStatus) -> Option<String> {
    let first = p.moves_with.first()?;
    let version = p.newest_allowed.as_ref()?;
    let to = first
        .to
        .as_ref()
        .map_or_else(|| "removed".to_string(), ToString::to_string);
    let more = match p.moves_with.len() - 1 {
        0 => String::new(),
        more => format!(" and {more} more"),
    };
    Some(format!(
        "{} {version} moves with {} {to}{more}",
        p.name, first.name
    ))
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

/// "Held back by": what a "Can move to" that `propose` planned moves with, the installed
/// requirements that exclude the newest release and what newer
/// releases need (the index's metadata), then what the newest release whose requirements are
/// met breaks (by analysis), one group per release and evidence.
fn held_back_cell(p: &PackageStatus) -> String {
    let unchecked = p
        .not_checked
        .as_ref()
        .map(|_| "not checked: a read failed (below)".to_string());
    // A move judged without its release's files: not a clean move.
    let unread = (p.newest_allowed.as_ref())
        .filter(|_| !p.unchecked.is_empty())
        .map(|v| format!("{} {v}: files not read, not fully checked (below)", p.name));
    let declared = unchecked
        .into_iter()
        .chain(unread)
        .chain(moves_with(p))
        .chain(
            p.held_back_by
                .iter()
                .map(|h| format!("{} {} ({})", h.name, h.version, h.specifier)),
        )
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
    // "pyarrow 26.0.1 (pyarrow/lib.pyx, line 42) raises on import when ...": the release.
    let fails = p.fails_on_import.iter().map(|sentence| {
        let release = sentence.split(" (").next().unwrap_or(sentence);
        format!("{release} fails on import here (by analysis)")
    });
    declared
        .chain(analysed)
        .chain(fails)
        .collect::<Vec<_>>()
        .join(", ")
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
    let broken: Vec<&&PackageStatus> = outdated
        .iter()
        .filter(|p| !p.breaks.is_empty() || !p.fails_on_import.is_empty())
        .collect();
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
                     existed{}",
                    b.name,
                    b.installed,
                    p.name,
                    p.name,
                    crate::metadata::version_line::line_floor(&b.release),
                    b.extension
                        .as_ref()
                        .map_or_else(String::new, |cite| format!(": {cite}"))
                ),
                BreakKind::Import if b.imports.is_empty() => format!(
                    "{} {} imports what {} {} no longer has",
                    b.name, b.installed, p.name, b.release
                ),
                BreakKind::ImportChain if b.imports.is_empty() => format!(
                    "{} {} imports a dist that fails to import beside {} {}",
                    b.name, b.installed, p.name, b.release
                ),
                BreakKind::CallTime if b.imports.is_empty() => format!(
                    "{} {} uses, in a function, what {} {} no longer has",
                    b.name, b.installed, p.name, b.release
                ),
                BreakKind::Import | BreakKind::ImportChain | BreakKind::CallTime => {
                    b.imports.join("; ")
                }
            };
            out.push_str(&format!("  {} {}: {why}\n", p.name, b.release));
        }
        for sentence in &p.fails_on_import {
            out.push_str(&format!("  {sentence}\n"));
        }
    }
    out
}

/// The rows whose "Can move to" was judged without its release's wheel files, by why they
/// could not be read, each with the checks not made.
fn unread_text(unread: &[&PackageStatus]) -> String {
    let mut out = String::new();
    let mut by_why: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in unread {
        for entry in &p.unchecked {
            let why = match &entry.hint {
                Some(hint) => format!("{}; {hint}", entry.detail),
                None => entry.detail.clone(),
            };
            let checks: Vec<&str> = entry.evidence.iter().map(|e| e.label()).collect();
            by_why.entry(why).or_default().push(format!(
                "{} {} -> {}: {}",
                p.name,
                p.installed,
                entry.version,
                checks.join(", ")
            ));
        }
    }
    for (why, rows) in by_why {
        let why = crate::terminal::field(&why);
        out.push_str(&format!(
            "\n\"Can move to\" judged without the release's wheel files ({why}); not checked:\n"
        ));
        for row in rows {
            out.push_str(&format!("  {row}\n"));
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
    let unchecked: Vec<&PackageStatus> = (report.packages.iter())
        .filter(|p| p.not_checked.is_some())
        .collect();
    let unread: Vec<&PackageStatus> = (report.packages.iter())
        .filter(|p| !p.unchecked.is_empty())
        .collect();
    out.push_str(&unread_text(&unread));
    if !report.errors.is_empty() || !unchecked.is_empty() {
        out.push_str("\nCould not be checked:\n");
        for e in &report.errors {
            let error = crate::terminal::field(&e.error);
            out.push_str(&format!("  {} {}: {error}\n", e.name, e.installed));
        }
        for p in unchecked {
            let error = crate::terminal::field(p.not_checked.as_deref().unwrap_or_default());
            out.push_str(&format!(
                "  {} {} (\"Can move to\"): {error}\n",
                p.name, p.installed
            ));
        }
    }
    out
}
