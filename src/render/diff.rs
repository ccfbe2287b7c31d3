//! `planner diff` output: text, JSON (`docs/diff-json.md`) and markdown, for a diff of two
//! environments and for `--since` (which always says it reconstructs history from file times).

use std::fmt::Write as _;

use super::markdown::cell;
use crate::diff::runtime;
use crate::diff::since::{EditKind, Edited, SinceReport};
use crate::diff::{ChangeKind, DistChange, EdgeChange, EnvDiff, FileDiff, UnownedDiff};
use crate::inventory::integrity::FileState;
use crate::terminal::escape;

fn kind_text(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Added => "added",
        ChangeKind::Removed => "removed",
        ChangeKind::Upgraded => "upgraded",
        ChangeKind::Downgraded => "downgraded",
        ChangeKind::SourceChanged => "source changed",
        ChangeKind::EditedInPlace => "edited in place",
    }
}

/// `edited in place: triton/runtime/autotuner.py (+14 -3 lines; 1234 -> 1290 bytes; modified
/// ...)` (the lines where both sides' text is known), or the file missing in B, or as installed
/// again in B.
fn file_line(file: &FileDiff) -> String {
    let counted = file
        .lines
        .map(|lines| format!("+{} -{} lines", lines.added, lines.removed));
    let Some(now) = &file.b else {
        let counted = counted.map(|c| format!(" ({c})")).unwrap_or_default();
        return format!("as installed again: {}{counted}", file.path);
    };
    if now.state == FileState::Missing {
        return format!("missing: {}", file.path);
    }
    let mut how = Vec::new();
    how.extend(counted);
    if let (Some(was), Some(size)) = (now.recorded_size, now.size)
        && was != size
    {
        how.push(format!("{was} -> {size} bytes"));
    }
    if let Some(modified) = &now.modified {
        how.push(format!("modified {modified}"));
    }
    let how = if how.is_empty() {
        String::new()
    } else {
        format!(" ({})", how.join("; "))
    };
    let again = if file.a.is_some() {
        " (edited again)"
    } else {
        ""
    };
    format!("edited in place{again}: {}{how}", file.path)
}

/// `added, no RECORD owns it: triton/runtime/extra.py (120 bytes; modified ...)`, or removed,
/// or changed.
fn unowned_line(file: &UnownedDiff) -> String {
    let (what, now) = match (&file.a, &file.b) {
        (None, Some(b)) => ("added", b),
        (Some(a), None) => ("removed", a),
        (Some(_), Some(b)) => ("changed", b),
        (None, None) => return format!("no RECORD owns it: {}", file.path),
    };
    let mut how = Vec::new();
    match (file.a.as_ref().and_then(|a| a.size), now.size) {
        (Some(was), Some(size)) if was != size && file.b.is_some() => {
            how.push(format!("{was} -> {size} bytes"))
        }
        (_, Some(size)) => how.push(format!("{size} bytes")),
        (_, None) => how.push("a symlink".to_string()),
    }
    if let Some(modified) = &now.modified {
        how.push(format!("modified {modified}"));
    }
    format!(
        "{what}, no RECORD owns it: {} ({})",
        file.path,
        how.join("; ")
    )
}

fn side(change: &DistChange, from: bool) -> String {
    let state = if from { &change.from } else { &change.to };
    match state {
        Some(s) if s.source == "index" => s.version.clone(),
        Some(s) => format!("{} ({})", s.version, s.source),
        None => "-".to_string(),
    }
}

fn change_line(change: &DistChange) -> String {
    let details = if change.details.is_empty() {
        String::new()
    } else {
        format!("  [{}]", change.details.join("; "))
    };
    format!(
        "{:<15} {} {} -> {}{details}",
        kind_text(change.kind),
        change.name,
        side(change, true),
        side(change, false)
    )
}

fn edge_line(edge: &EdgeChange) -> String {
    edge.message.clone()
}

/// For a terminal.
pub(crate) fn text(diff: &EnvDiff) -> String {
    let mut out = format!("A: {}\nB: {}\n\n", diff.a, diff.b);
    if diff.is_empty() {
        out.push_str("No differences.\n");
        return escape(&out).into_owned();
    }
    if !diff.changes.is_empty() {
        let _ = writeln!(out, "{} dist(s) changed:", diff.changes.len());
    }
    for change in &diff.changes {
        let _ = writeln!(out, "  {}", change_line(change));
        for file in &change.files {
            let _ = writeln!(out, "      {}", file_line(file));
        }
        for file in &change.unowned {
            let _ = writeln!(out, "      {}", unowned_line(file));
        }
    }
    for (title, edges) in [
        ("became broken", &diff.broken),
        ("became satisfied", &diff.satisfied),
    ] {
        if !edges.is_empty() {
            let _ = writeln!(out, "\nRequirements that {title} ({}):", edges.len());
            for edge in edges {
                let _ = writeln!(out, "  {}", edge_line(edge));
            }
        }
    }
    if !diff.runtime.is_empty() {
        let _ = writeln!(out, "\nRuntime ({} changed):", diff.runtime.len());
        for change in &diff.runtime {
            let _ = writeln!(out, "  {}", runtime::line(change));
        }
    }
    escape(&out).into_owned()
}

/// The documented JSON.
pub(crate) fn json<T: serde::Serialize>(value: &T) -> Result<String, super::json::JsonError> {
    super::json::to_json(value)
}

/// For a pull request or a ticket.
pub(crate) fn markdown(diff: &EnvDiff) -> String {
    let mut out = format!(
        "## Environment diff\n\nA: `{}`  \nB: `{}`\n\n",
        cell(&diff.a),
        cell(&diff.b)
    );
    if diff.is_empty() {
        out.push_str("No differences.\n");
        return out;
    }
    if !diff.changes.is_empty() {
        out.push_str("| change | package | A | B | details |\n|---|---|---|---|---|\n");
    }
    for c in &diff.changes {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} | {} |",
            kind_text(c.kind),
            c.name,
            cell(&side(c, true)),
            cell(&side(c, false)),
            cell(
                &c.details
                    .iter()
                    .cloned()
                    .chain(c.files.iter().map(file_line))
                    .chain(c.unowned.iter().map(unowned_line))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        );
    }
    for (title, edges) in [
        ("Became broken", &diff.broken),
        ("Became satisfied", &diff.satisfied),
    ] {
        if !edges.is_empty() {
            let _ = writeln!(out, "\n**{title}**\n");
            for edge in edges {
                let _ = writeln!(out, "- {}", cell(&edge_line(edge)));
            }
        }
    }
    if !diff.runtime.is_empty() {
        let _ = writeln!(out, "\n**Runtime**\n");
        for change in &diff.runtime {
            let _ = writeln!(out, "- {}", cell(&runtime::line(change)));
        }
    }
    out
}

fn since_rows(report: &SinceReport) -> Vec<(String, String, String, Vec<String>)> {
    report
        .installed
        .iter()
        .map(|i| {
            let source = if i.now.source == "index" {
                String::new()
            } else {
                format!(" ({})", i.now.source)
            };
            let installer = i.now.installer.clone().unwrap_or_else(|| "?".to_string());
            (
                i.installed_at.strftime("%Y-%m-%d %H:%M:%S UTC").to_string(),
                format!("{} {}{source}", i.name, i.now.version),
                installer,
                i.broken.iter().map(edge_line).collect(),
            )
        })
        .collect()
}

/// `--since` for a terminal.
pub(crate) fn since_text(report: &SinceReport) -> String {
    let mut out = format!(
        "Installed or replaced in {} since {}, newest first.\nNote: {}.\n\n",
        report.environment, report.since, report.caveat
    );
    if report.is_empty() {
        out.push_str("Nothing.\n");
    }
    for (when, what, installer, broken) in since_rows(report) {
        let _ = writeln!(out, "{when}  {what}  by {installer}");
        for edge in broken {
            let _ = writeln!(out, "    broke: {edge}");
        }
    }
    if !report.edited.is_empty() {
        let _ = writeln!(
            out,
            "\nEdited in place (differs from its RECORD, or no RECORD owns it):"
        );
        for e in &report.edited {
            let when = e.modified.strftime("%Y-%m-%d %H:%M:%S UTC");
            let _ = writeln!(out, "{when}  {} {}  {}", e.name, e.version, edited_what(e));
        }
    }
    escape(&out).into_owned()
}

/// The file, with `(no RECORD owns it)` for one no `RECORD` lists.
fn edited_what(e: &Edited) -> String {
    match e.kind {
        EditKind::Edited => e.path.clone(),
        EditKind::Unowned => format!("{} (no RECORD owns it)", e.path),
    }
}

/// The files edited in place since `WHEN`, as a markdown table (empty when none).
fn since_edited_markdown(report: &SinceReport) -> String {
    let mut out = String::new();
    if report.edited.is_empty() {
        return out;
    }
    out.push_str("Edited in place (differs from its RECORD, or no RECORD owns it):\n\n");
    out.push_str("| modified at | package | file |\n|---|---|---|\n");
    for e in &report.edited {
        let when = e.modified.strftime("%Y-%m-%d %H:%M:%S UTC").to_string();
        let what = format!("{} {}", e.name, e.version);
        let unowned = if e.kind == EditKind::Unowned {
            " (no RECORD owns it)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "| {when} | {} | `{}`{unowned} |",
            cell(&what),
            cell(&e.path)
        );
    }
    out.push('\n');
    out
}

/// `--since` as markdown.
pub(crate) fn since_markdown(report: &SinceReport) -> String {
    let mut out = format!(
        "## Installed or replaced since {}\n\n`{}`, newest first.\n\n> {}.\n\n",
        report.since,
        cell(&report.environment),
        report.caveat
    );
    if report.is_empty() {
        out.push_str("Nothing.\n");
        return out;
    }
    out.push_str(&since_edited_markdown(report));
    if report.installed.is_empty() {
        return out;
    }
    out.push_str("| installed at | package | by | broke |\n|---|---|---|---|\n");
    for (when, what, installer, broken) in since_rows(report) {
        let broke = if broken.is_empty() {
            "-".to_string()
        } else {
            broken.join("; ")
        };
        let _ = writeln!(
            out,
            "| {when} | {} | {} | {} |",
            cell(&what),
            cell(&installer),
            cell(&broke)
        );
    }
    out
}
