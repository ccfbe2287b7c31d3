//! `planner review` as a pull-request comment: a table worst first, then each finding's
//! details in a collapsible block. Every value is escaped for a markdown cell.

use std::fmt::Write as _;

use super::{
    blockers_text, changes_text, compare_label, finding_links, header, held_text, level_text,
    measured_line, measured_plans, more_unchecked, release_text, step_markdown, unchecked_shown,
    unresolved_text,
};
use crate::plan::Plan;
use crate::render::commands::{self, CommandOptions};
use crate::render::markdown::{cell, prose};
use crate::review::advice::{SaferSteps, safer_steps};
use crate::review::analysis::TargetVerdict;
use crate::review::{Finding, Review};

/// A pull-request comment.
pub(crate) fn markdown(review: &Review) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## planner review\n");
    let _ = writeln!(out, "{}\n", cell(&header(review)));
    for u in &review.unresolved {
        let _ = writeln!(out, "**{}**\n", cell(&unresolved_text(u)));
    }
    if review.findings.is_empty() {
        let _ = writeln!(out, "No forced or pinned versions were added or changed.\n");
    } else {
        let tried = review
            .findings
            .iter()
            .any(|f| f.targets.iter().any(|v| v.tried.is_some()));
        out.push_str(if tried {
            "| risk | where | pin | kind | breaks | safer plan | measured (--try) |\n\
             |---|---|---|---|---|---|---|\n"
        } else {
            "| risk | where | pin | kind | breaks | safer plan |\n|---|---|---|---|---|---|\n"
        });
        for f in &review.findings {
            let breaks: Vec<String> = f
                .targets
                .iter()
                .flat_map(|v| blockers_text(&v.breaks))
                .chain((f.targets.iter()).flat_map(|v| v.excludes.iter().map(held_text)))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let safer = f
                .targets
                .iter()
                .find_map(|v| v.safer.as_ref())
                .map(|p| format!("{} ({} {}/100)", p.title, p.risk.level, p.risk.score))
                .unwrap_or_else(|| "-".to_string());
            let also: String = f
                .also
                .iter()
                .map(|a| format!(" (also `{}:{}`)", cell(&a.file), a.line))
                .collect();
            let place = format!("`{}:{}`", cell(&f.pin.file), f.pin.line);
            let place = match &f.permalink {
                // A `|` (a file name may hold one; URLs keep it) would end the table cell.
                Some(url) if !url.contains(['<', '>', ' ', '|', '`']) => {
                    format!("[{place}](<{url}>)")
                }
                _ => place,
            };
            let measured = if tried {
                format!(" {} |", cell(&measured_cell(f)))
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "| **{}** | {place}{also} | `{}` | {} | {} | {} |{measured}",
                cell(&level_text(f)),
                cell(&f.pin.requirement.to_string()),
                f.pin.kind.label(),
                if breaks.is_empty() {
                    "-".to_string()
                } else {
                    cell(&breaks.join("; "))
                },
                cell(&safer)
            );
        }
        out.push('\n');
    }
    for f in &review.findings {
        markdown_details(&mut out, f);
    }
    if !review.removed.is_empty() {
        out.push_str("**Removed pins**:\n\n");
        for pin in &review.removed {
            let _ = writeln!(
                out,
                "- `{}` ({}, was at `{}:{}`)",
                cell(&pin.requirement.to_string()),
                pin.kind.label(),
                cell(&pin.file),
                pin.line
            );
        }
        out.push('\n');
    }
    if !review.problems.is_empty() {
        out.push_str("**Not reviewed** (could not be parsed; the rest was):\n\n");
        for p in &review.problems {
            let at = p.line.map(|l| format!(":{l}")).unwrap_or_default();
            let _ = writeln!(out, "- `{}{at}`: {}", cell(&p.file), cell(&p.message));
        }
        out.push('\n');
    }
    out
}

fn markdown_details(out: &mut String, f: &Finding) {
    let _ = writeln!(
        out,
        "<details><summary><code>{}</code> at <code>{}:{}</code>: {}</summary>\n",
        cell(&f.pin.requirement.to_string()),
        cell(&f.pin.file),
        f.pin.line,
        cell(&level_text(f))
    );
    let links: Vec<String> = finding_links(f)
        .iter()
        .map(|(label, url)| md_link(label, url))
        .collect();
    if let Some(release) = release_text(f) {
        let _ = writeln!(out, "Release: {}\n", cell(&release));
    }
    if !links.is_empty() {
        let _ = writeln!(out, "Links: {}\n", links.join(" · "));
    }
    if let Some((_, Some(guess))) = f
        .release
        .as_ref()
        .and_then(|r| r.compare.as_ref())
        .map(compare_label)
    {
        let _ = writeln!(out, "_The compare link's {guess}._\n");
    }
    for v in &f.targets {
        let _ = writeln!(out, "**{}**\n", cell(&v.target));
        if let Some(note) = &v.note {
            let _ = writeln!(out, "- not judged: {}", cell(note));
        }
        if let Some(remark) = &v.remark {
            let _ = writeln!(out, "- {}", cell(remark));
        }
        let (shown, more) = unchecked_shown(v);
        for entry in shown {
            let _ = writeln!(out, "- judged without: {}", cell(&entry.sentence()));
        }
        if more > 0 {
            let _ = writeln!(out, "- {}", more_unchecked(more));
        }
        for b in blockers_text(&v.breaks) {
            let _ = writeln!(out, "- breaks: {}", cell(&b));
        }
        for h in &v.excludes {
            let _ = writeln!(out, "- excludes: {}", cell(&held_text(h)));
        }
        for b in blockers_text(&v.narrows) {
            let _ = writeln!(out, "- narrows: {}", cell(&b));
        }
        if let Some(risk) = &v.risk {
            let _ = writeln!(out, "\n| points | factor |\n|---:|---|");
            for factor in &risk.factors {
                let _ = writeln!(out, "| {:+} | {} |", factor.points, prose(&factor.detail));
            }
            let _ = writeln!(
                out,
                "| **{}** | **{}** ({} policy) |",
                risk.score,
                risk.level,
                cell(&risk.policy)
            );
        }
        if let Some(plan) = &v.safer {
            let _ = writeln!(
                out,
                "\nSafer: **{}** (risk {} {}/100): {}\n",
                cell(&plan.title),
                plan.risk.level,
                plan.risk.score,
                cell(&changes_text(plan)),
            );
            match safer_steps(f, plan, v) {
                SaferSteps::Project(steps) => {
                    for (i, step) in steps.iter().enumerate() {
                        let _ = writeln!(out, "{}. {}", i + 1, step_markdown(step));
                    }
                }
                SaferSteps::File(steps) => {
                    for (i, step) in steps.iter().enumerate() {
                        let _ = writeln!(out, "{}. {}", i + 1, step_markdown(step));
                    }
                    if !steps.is_empty() {
                        out.push('\n');
                    }
                    let _ = writeln!(out, "```sh\n{}```", plan_commands(plan));
                }
            }
        }
        markdown_measured(out, v);
        out.push('\n');
    }
    out.push_str("</details>\n\n");
}

/// `review --try`: what each plan measured, its regressions and the modules it removed.
fn markdown_measured(out: &mut String, v: &TargetVerdict) {
    for (what, m) in measured_plans(v) {
        let _ = writeln!(
            out,
            "\nMeasured {what} (`planner try`, {}): **{}**\n",
            cell(&m.title),
            cell(&measured_line(m))
        );
        for r in &m.tried.outcome.regressions {
            let _ = writeln!(out, "- regression: `{}`", cell(&r.replace('`', "'")));
        }
        for r in &m.tried.outcome.removed {
            let _ = writeln!(
                out,
                "- removed by the plan (not a regression): `{}`",
                cell(&r.replace('`', "'"))
            );
        }
        if let Some(note) = &m.tried.outcome.installer_note {
            let _ = writeln!(out, "- installer: {}", cell(note));
        }
    }
}

/// The pip commands of a plan, one per line (values re-serialized and quoted).
fn plan_commands(plan: &Plan) -> String {
    let settings = CommandOptions {
        python: "python3".to_string(),
        index_url: None,
        files_dir: None,
        constraints: false,
        allow_build: false,
        pip_outside: false,
    };
    match commands::install_files(plan, &settings) {
        Ok(files) => commands::inline_steps(&files, &files.pip),
        Err(err) => format!("# not printed: {err}\n"),
    }
}

/// The markdown table's `measured` cell: the pinned plan's verdict, then the safer plan's.
fn measured_cell(f: &Finding) -> String {
    let words: Vec<String> = f
        .targets
        .iter()
        .flat_map(measured_plans)
        .map(|(what, m)| format!("{what}: {}", crate::render::trial::verdict_word(&m.tried)))
        .collect();
    if words.is_empty() {
        "-".to_string()
    } else {
        words.join("; ")
    }
}

/// A markdown link whose label and destination cannot break out of it (plain text when the URL
/// holds what a `<...>` destination may not).
fn md_link(label: &str, url: &str) -> String {
    let label = cell(label).replace('[', "\\[").replace(']', "\\]");
    if url.contains(['<', '>', ' ', '\n', '\r', '`']) {
        return label;
    }
    format!("[{label}](<{url}>)")
}
