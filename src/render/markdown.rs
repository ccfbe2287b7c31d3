//! Markdown for a pull request or a ticket: one section per plan, a table of changes, the
//! itemized risk, and the commands in fenced blocks.

use std::fmt::Write as _;

use super::text::{PlanCommands, asked, movement, no_change_line, reasons};
use crate::plan::{BrokenEdge, Override, Plan, PlanKind, Proposal};

/// Text safe inside a markdown table cell or paragraph: pipes, backticks, `<` (no HTML) and
/// newlines escaped, control and bidi characters escaped.
pub(crate) fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in crate::terminal::escape(text).chars() {
        match c {
            '|' => out.push_str("\\|"),
            '`' => out.push_str("\\`"),
            '<' => out.push_str("&lt;"),
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// A markdown code span of `text`, shown as written: its fence longer than any run of
/// backticks in it (padded where it starts or ends with one), newlines as spaces, control and
/// bidi characters escaped. Backslashes are literal inside a code span, so nothing else is.
pub(crate) fn code(text: &str) -> String {
    let text = crate::terminal::escape(text).replace(['\n', '\r'], " ");
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// planner's own prose (risk factors, reasons) for a markdown table cell: the code spans it
/// writes (text between single backticks) stay code spans through [`code`], their pipes escaped
/// (GFM reads `\|` in a cell as a pipe, code spans included); the rest is escaped as by
/// [`cell`]. A backtick without a partner, or two with nothing between, is escaped text.
pub(crate) fn prose(text: &str) -> String {
    spans(text, true)
}

/// planner's own prose for a paragraph (a warning): as [`prose`], pipes in code spans kept.
pub(crate) fn prose_line(text: &str) -> String {
    spans(text, false)
}

/// `text` with its single-backtick code spans as code spans, the rest escaped.
fn spans(text: &str, in_cell: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        if len == 0 {
            out.push_str(&cell(&rest[..open + 2]));
            rest = &rest[open + 2..];
            continue;
        }
        out.push_str(&cell(&rest[..open]));
        let span = code(&rest[open + 1..open + 1 + len]);
        out.push_str(&if in_cell {
            span.replace('|', "\\|")
        } else {
            span
        });
        rest = &rest[open + 2 + len..];
    }
    out.push_str(&cell(rest));
    out
}

/// The whole proposal as markdown.
pub(crate) fn render(proposal: &Proposal, commands: &[PlanCommands]) -> String {
    let mut out = String::new();
    head(&mut out, proposal);
    if proposal.plans.is_empty() {
        out.push_str("No plan found.\n");
    }
    for (i, plan) in proposal.plans.iter().enumerate() {
        plan_markdown(&mut out, proposal, i, plan);
        plan_tail_markdown(&mut out, plan, commands.get(i));
    }
    out
}

/// What comes before the plans: the request, the environment, the warnings, what was broken
/// before any plan and why the request cannot be had as asked.
fn head(out: &mut String, proposal: &Proposal) {
    let what = asked(proposal);
    let env = &proposal.environment;
    let _ = writeln!(out, "## Upgrade proposal: {}\n", cell(&what));
    let _ = writeln!(
        out,
        "Environment: {} (Python {}, {}, {} dists). Risk policy: {}.\n",
        cell(&env.source),
        env.python_version,
        cell(&env.platform),
        env.dists,
        cell(&proposal.request.policy)
    );
    for warning in &proposal.warnings {
        let _ = writeln!(out, "> **Warning:** {}\n", prose_line(warning));
    }
    if !proposal.already_broken.is_empty() {
        let _ = writeln!(
            out,
            "### The environment is already broken (before any plan)\n"
        );
        for line in BrokenEdge::lines(&proposal.already_broken) {
            let _ = writeln!(out, "- {}", cell(&line));
        }
        out.push('\n');
    }
    if let Some(conflict) = &proposal.conflict {
        let _ = writeln!(out, "### Why it cannot be done as asked\n");
        out.push_str("```text\n");
        for line in conflict.explanation.lines() {
            let _ = writeln!(
                out,
                "{}",
                crate::terminal::escape(line).replace("```", "'''")
            );
        }
        out.push_str("```\n\n");
    }
}

/// Plan `i`'s heading, its risk, its changes as a table, its overrides and its held-back lines.
fn plan_markdown(out: &mut String, proposal: &Proposal, i: usize, plan: &Plan) {
    let _ = writeln!(
        out,
        "### Plan {}{}: {} ({})\n",
        i + 1,
        match (i, proposal.meets_request()) {
            (0, true) => " (recommended)",
            (0, false) => " (the closest; it does NOT meet the request)",
            _ => "",
        },
        cell(&plan.title),
        plan.kind
    );
    let _ = writeln!(
        out,
        "**Risk: {}/100, {}**\n",
        plan.risk.score, plan.risk.level
    );
    if plan.changes.is_empty() && plan.kind == PlanKind::NoChange {
        let _ = writeln!(out, "{}\n", prose(&no_change_line(plan)));
    }
    if !plan.changes.is_empty() {
        out.push_str("| package | change | why |\n|---|---|---|\n");
        for change in &plan.changes {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                change.name,
                cell(&movement(change)),
                prose(&if change.repair {
                    format!("repair (broken before the plan): {}", reasons(change))
                } else {
                    reasons(change)
                })
            );
        }
        out.push('\n');
    }
    if !plan.overrides.is_empty() {
        out.push_str("Overrides (each breaks a declared requirement):\n\n");
        for (o, words) in Override::said(&plan.overrides) {
            let _ = writeln!(
                out,
                "- {} {} requires {}; installs {} {} instead",
                o.dependent,
                o.dependent_version,
                cell(&words),
                o.package,
                o.version
            );
        }
        out.push('\n');
    }
    for held in &plan.held_back {
        let by = held.reasons();
        let _ = writeln!(
            out,
            "- Held back: {} (newest {}): {}",
            held.name,
            held.newest,
            prose_line(&by.join("; "))
        );
    }
}

/// What closes every plan in markdown: its warnings, its risk factors as a table and, when
/// written, its commands.
pub(super) fn plan_tail_markdown(out: &mut String, plan: &Plan, commands: Option<&PlanCommands>) {
    for warning in &plan.warnings {
        let _ = writeln!(out, "> **Warning:** {}\n", prose_line(warning));
    }
    if !plan.risk.factors.is_empty() {
        out.push_str("| points | factor | detail |\n|---:|---|---|\n");
        for factor in &plan.risk.factors {
            let _ = writeln!(
                out,
                "| {:+} | {} | {} |",
                factor.points,
                factor.kind.key(),
                prose(&factor.detail)
            );
        }
        out.push('\n');
    }
    if !plan.unchecked.is_empty() {
        out.push_str("Not checked (so the risk is at least medium):\n\n");
        for entry in &plan.unchecked {
            let _ = writeln!(out, "- {}", prose_line(&entry.sentence()));
        }
        out.push('\n');
    }
    if let Some(commands) = commands {
        for (label, body) in [("pip", &commands.pip), ("uv", &commands.uv)] {
            if !body.is_empty() {
                let _ = writeln!(out, "With {label}:\n\n```sh\n{body}```\n");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_plans;

    #[test]
    fn canonical_proposal_markdown() {
        let md = render(&test_plans::proposal(), &[]);
        insta::assert_snapshot!(md);
    }

    /// The already-broken list says each edge as the text does: without the marker, which held
    /// (the canonical forced venv's `triton==3.6.0 ; platform_system == 'Linux'`).
    #[test]
    fn already_broken_drops_the_marker() {
        use test_plans::{n, r, v};
        let mut proposal = test_plans::proposal();
        proposal.already_broken.push(crate::plan::BrokenEdge {
            dependent: n("torch"),
            dependent_version: v("2.11.0+cu130"),
            requirement: r("triton==3.6.0 ; platform_system == 'Linux'"),
            installed: Some(v("3.7.0")),
        });
        let md = render(&proposal, &[]);
        assert!(
            md.contains(
                "### The environment is already broken (before any plan)\n\n- torch \
                 2.11.0+cu130 requires triton==3.6.0, but triton 3.7.0 is installed\n\n"
            ),
            "{md}"
        );
    }

    /// The markdown overrides say the declared requirement as the text does: without its marker,
    /// an extra named, once per dependent and requirement.
    #[test]
    fn overrides_drop_the_marker_and_name_the_extras_once() {
        let r = |s: &str| crate::metadata::parse_requirement(s).unwrap();
        let mut proposal = test_plans::proposal();
        let plan = (proposal.plans.iter_mut())
            .find(|p| !p.overrides.is_empty())
            .expect("the forced plan");
        let torch = plan.overrides[0].clone();
        let cublas = |extra: &str| crate::plan::Override {
            dependent: "cuda-toolkit".parse().unwrap(),
            dependent_version: "13.0.2".parse().unwrap(),
            requirement: r(&format!(
                "nvidia-cublas==13.1.0.3.* ; sys_platform == 'linux' and extra == '{extra}'"
            )),
            package: "nvidia-cublas".parse().unwrap(),
            version: "13.4.1.3".parse().unwrap(),
            ..torch.clone()
        };
        plan.overrides = vec![torch.clone(), cublas("cublas"), cublas("cusolver")];
        let md = render(&proposal, &[]);
        let section = md
            .split("Overrides (each breaks a declared requirement):\n\n")
            .nth(1)
            .expect("an overrides list");
        let lines: Vec<&str> = section.lines().take(3).collect();
        assert_eq!(
            lines,
            [
                "- torch 2.11.0+cu130 requires triton==3.6.0; installs triton 3.7.0 instead",
                "- cuda-toolkit 13.0.2 requires nvidia-cublas==13.1.0.3.*, through its extras \
                 cublas, cusolver; installs nvidia-cublas 13.4.1.3 instead",
                "",
            ],
            "{md}"
        );
    }

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(cell("a|b`c<d>\ne"), "a\\|b\\`c&lt;d> e");
    }

    #[test]
    fn planners_code_spans_stay_code_spans() {
        assert_eq!(
            prose("breaks `<3` of a|b, `x|y`"),
            "breaks `<3` of a\\|b, `x\\|y`"
        );
        assert_eq!(prose_line("`x|y` and `a`b`"), "`x|y` and `a`b\\`");
        assert_eq!(prose("a ``` b"), "a \\`\\`\\` b");
    }
}
