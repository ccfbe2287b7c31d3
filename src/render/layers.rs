//! A layered `propose --all` ([`crate::plan::Layer`] on every plan) as text and as markdown pull
//! request bodies, one per layer.
//!
//! Text: the layers in one table (the safe one recommended), then each plan with only its own
//! changes (a group or major plan is built on top of the safe layer, whose changes its pins and
//! commands also hold), the held-back lines grouped by why, the itemized risk and the commands.
//! Markdown: one pull request body per layer, as a bot would open them, separated by `---`
//! (and, with `--out-dir`, each plan folder's `pr.md`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::markdown::plan_tail_markdown;
use super::markdown::{cell, prose, prose_line};
use super::text::{
    PlanCommands, Style, changes_text, movement, plan_heading, plan_tail_text, reasons,
};
use crate::plan::{Change, HeldBack, Plan, Proposal};
use crate::terminal::escape as terminal;

/// Whether `proposal` is a layered `--all` (every plan carries its layer).
pub(crate) fn is_layered(proposal: &Proposal) -> bool {
    !proposal.plans.is_empty() && proposal.plans.iter().all(|p| p.layer.is_some())
}

/// The layers for a terminal, fitted to `width` ([`crate::terminal::fit`]): the table's
/// summaries wrap under their own column.
pub(crate) fn text(
    proposal: &Proposal,
    commands: &[PlanCommands],
    color: bool,
    width: Option<usize>,
) -> String {
    let style = Style { color, width };
    let mut out = String::new();
    let env = &proposal.environment;
    let _ = writeln!(
        out,
        "{} --all for {} (Python {}, {}, {} dists), in layers",
        style.bold("planner propose"),
        terminal(&env.source),
        env.python_version,
        terminal(&env.platform),
        env.dists
    );
    out.push('\n');
    let name_width = proposal
        .plans
        .iter()
        .map(|p| layer_name(p).len())
        .max()
        .unwrap_or(0);
    let count = proposal.plans.len();
    for (i, plan) in proposal.plans.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {} {:<name_width$}  {}  {}",
            number(i, count),
            layer_name(plan),
            // Padded before it is painted: escape codes have no width on a terminal.
            style.level(
                plan.risk.level,
                &format!(
                    "{:<18}",
                    format!("{}/100 {}", plan.risk.score, plan.risk.level)
                )
            ),
            summary(plan)
        );
    }
    if count > 1 {
        // Only beside other layers: a lone layer (`--layer everything`, or a venv where only the
        // safe layer moves anything) is built on nothing and applied alone.
        let _ = writeln!(
            out,
            "  {}",
            style.dim(
                "apply the first (safe) layer first: every other plan is built on top of it; \
                 --layer everything plans every upgrade at once"
            )
        );
    }
    for (i, plan) in proposal.plans.iter().enumerate() {
        out.push('\n');
        plan_text(&mut out, &style, i, plan, commands.get(i));
    }
    crate::terminal::fit(&out, width).into_owned()
}

/// Row `i`'s number (`1.`), right-aligned to the widest of `count` rows (` 9.` beside `10.`), so
/// the columns after it line up from the tenth row on.
fn number(i: usize, count: usize) -> String {
    let width = count.to_string().len() + 1;
    format!("{:>width$}", format!("{}.", i + 1))
}

fn layer_name(plan: &Plan) -> &str {
    plan.layer.as_ref().map_or("", |l| l.name.as_str())
}

/// `53 changes`, `5 changes on top of safe`.
fn summary(plan: &Plan) -> String {
    let Some(layer) = &plan.layer else {
        return String::new();
    };
    let n = layer.own.len();
    let changes = format!("{n} change{}", if n == 1 { "" } else { "s" });
    match &layer.base {
        Some(base) => format!("{changes} on top of {base}: {}", terminal(&plan.title)),
        None => format!("{changes}: {}", terminal(&plan.title)),
    }
}

/// The plan's own changes (beyond its base).
fn own_changes(plan: &Plan) -> Vec<&Change> {
    let own = plan.layer.as_ref().map(|l| &l.own);
    plan.changes
        .iter()
        .filter(|c| own.is_none_or(|own| own.contains(&c.name)))
        .collect()
}

fn plan_text(
    out: &mut String,
    style: &Style,
    i: usize,
    plan: &Plan,
    commands: Option<&PlanCommands>,
) {
    let label = if i == 0 { " (recommended)" } else { "" };
    plan_heading(out, style, i + 1, &layer_name(plan), label, plan);
    if let Some(base) = plan.layer.as_ref().and_then(|l| l.base.as_ref()) {
        let _ = writeln!(
            out,
            "  on top of the {base} layer: its changes are in this plan's pins and commands \
             (and scored there); below, this layer's own"
        );
    }
    let own = own_changes(plan);
    if own.is_empty() {
        let _ = writeln!(out, "  no changes: the environment already satisfies it");
    } else {
        let _ = writeln!(out, "  changes:");
        changes_text(out, own.iter().copied());
    }
    for line in held_back_lines(&plan.held_back) {
        let _ = writeln!(out, "  held back: {}", terminal(&line));
    }
    plan_tail_text(out, style, plan, commands);
}

/// The held-back lines, grouped: what moves in another layer's plan (one line per plan), what
/// waits for age (one line), what one dependent pins (one line per dependent), then the rest
/// one by one.
pub(crate) fn held_back_lines(held_back: &[HeldBack]) -> Vec<String> {
    let mut elsewhere: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut young = Vec::new();
    let mut young_days = 0;
    let mut pinned: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut lines = Vec::new();
    for held in held_back {
        let at = held
            .planned
            .as_ref()
            .map_or_else(|| "not installed".to_string(), ToString::to_string);
        if let (Some(see), true) = (&held.see, held.needs.is_empty()) {
            elsewhere
                .entry(see)
                .or_default()
                .push(format!("{} {at} (newest {})", held.name, held.newest));
        } else if let (Some(w), true) = (&held.waiting, held.needs.is_empty()) {
            young_days = w.min_days;
            young.push(format!("{} {} ({} days)", held.name, w.version, w.days));
        } else if let ([blocker], true) = (
            held.blockers.as_slice(),
            held.unmatched.is_empty() && held.needs.is_empty(),
        ) && blocker.dependent != held.name
        {
            pinned
                .entry(format!(
                    "{} {}",
                    blocker.dependent, blocker.dependent_version
                ))
                .or_default()
                .push(format!("{} {at} (newest {})", held.name, held.newest));
        } else {
            let by = held.reasons();
            lines.push(format!(
                "{} stays at {at} (newest {}): {}",
                held.name,
                held.newest,
                if by.is_empty() {
                    "no single requirement explains it".to_string()
                } else {
                    by.join("; ")
                }
            ));
        }
    }
    let mut out: Vec<String> = pinned
        .into_iter()
        .map(|(by, names)| format!("{by}'s requirements hold {}", names.join(", ")))
        .collect();
    out.extend(lines);
    if !young.is_empty() {
        out.push(format!(
            "released fewer than {young_days} days ago (the safe layer waits): {}",
            young.join(", ")
        ));
    }
    out.extend(
        elsewhere
            .into_iter()
            .map(|(see, names)| format!("moves in the {see} plan: {}", names.join(", "))),
    );
    out
}

/// One pull request body per layer, separated by `---`.
pub(crate) fn markdown(proposal: &Proposal, commands: &[PlanCommands]) -> String {
    proposal
        .plans
        .iter()
        .enumerate()
        .map(|(i, plan)| pull_request(proposal, i, plan, commands.get(i)))
        .collect::<Vec<_>>()
        .join("\n---\n\n")
}

/// The pull request body for one layer (also `pr.md` in its plan folder).
pub(crate) fn pull_request(
    proposal: &Proposal,
    i: usize,
    plan: &Plan,
    commands: Option<&PlanCommands>,
) -> String {
    let mut out = String::new();
    let env = &proposal.environment;
    let _ = writeln!(
        out,
        "<!-- planner propose --all, layer {} of {}: {} -->",
        i + 1,
        proposal.plans.len(),
        cell(layer_name(plan))
    );
    let _ = writeln!(
        out,
        "## {}: {}\n",
        cell(layer_name(plan)),
        cell(&plan.title)
    );
    let _ = writeln!(
        out,
        "**Risk: {}/100, {}** (policy {}){}. Environment: {} (Python {}, {}, {} dists).\n",
        plan.risk.score,
        plan.risk.level,
        cell(&plan.risk.policy),
        if i == 0 { "; recommended first" } else { "" },
        cell(&env.source),
        env.python_version,
        cell(&env.platform),
        env.dists
    );
    if let Some(base) = plan.layer.as_ref().and_then(|l| l.base.as_ref()) {
        let _ = writeln!(
            out,
            "Built on top of the **{}** layer: merge that one first. Its changes are in this \
             plan's constraints and commands too, and scored there; the table lists this \
             layer's own.\n",
            cell(base)
        );
    }
    let own = own_changes(plan);
    if !own.is_empty() {
        out.push_str("| package | change | why |\n|---|---|---|\n");
        for change in own {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                change.name,
                cell(&movement(change)),
                prose(&reasons(change))
            );
        }
        out.push('\n');
    }
    let held = held_back_lines(&plan.held_back);
    if !held.is_empty() {
        out.push_str("<details><summary>Held back</summary>\n\n");
        for line in held {
            let _ = writeln!(out, "- {}", prose_line(&line));
        }
        out.push_str("\n</details>\n\n");
    }
    plan_tail_markdown(&mut out, plan, commands);
    out.push_str(
        "After applying: run the plan folder's `verify.py` with the environment's interpreter \
         (`propose --all --out-dir DIR` writes it), or `install-pip.sh --verify`.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::number;

    /// The `--all` table's numbers take the width of the widest, so the layer names after them
    /// start in one column from the tenth row on.
    #[test]
    fn row_numbers_line_up_past_nine() {
        assert_eq!(number(0, 3), "1.");
        assert_eq!(number(8, 12), " 9.");
        assert_eq!(number(9, 12), "10.");
        assert_eq!(number(8, 12).len(), number(11, 12).len());
    }
}
