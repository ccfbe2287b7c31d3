//! Text for a terminal. Colour only when the caller asks (a TTY without `NO_COLOR`); every
//! value from metadata or the index is escaped for the terminal ([`crate::terminal::escape`]).

use std::fmt::Write as _;

use pep508_rs::{PackageName, Requirement};

use crate::plan::{
    Action, BreakKind, BrokenEdge, Change, Override, Plan, PlanKind, Proposal, Reason, said,
    said_once,
};
use crate::risk::RiskLevel;
use crate::terminal::escape as terminal;

/// The commands shown under each plan (same order as the proposal's plans).
#[derive(Debug, Clone, Default)]
pub(crate) struct PlanCommands {
    /// pip commands, ready to paste.
    pub pip: String,
    /// uv commands, ready to paste.
    pub uv: String,
    /// The folder the plan's files were written to, when `--out-dir` was given.
    pub dir: Option<String>,
}

/// The colours of planner's text, painted with [`anstyle`] through [`crate::printer::paint`]
/// (nothing when `color` is off; pad text before painting it), and the width it is fitted to
/// (none: lines as long as they come).
pub(super) struct Style {
    pub(super) color: bool,
    pub(super) width: Option<usize>,
}

impl Style {
    pub(super) fn paint(&self, style: anstyle::Style, text: &str) -> String {
        crate::printer::paint(self.color, style, text)
    }
    pub(super) fn bold(&self, text: &str) -> String {
        self.paint(anstyle::Style::new().bold(), text)
    }
    pub(super) fn dim(&self, text: &str) -> String {
        self.paint(anstyle::Style::new().dimmed(), text)
    }
    pub(super) fn level(&self, level: RiskLevel, text: &str) -> String {
        self.paint(level_style(level), text)
    }
    pub(super) fn warning(&self, text: &str) -> String {
        self.paint(anstyle::AnsiColor::Yellow.on_default().bold(), text)
    }
    pub(super) fn error(&self, text: &str) -> String {
        self.paint(anstyle::AnsiColor::Red.on_default().bold(), text)
    }
}

/// A risk level's colour: green, yellow, red, bold red.
pub(super) fn level_style(level: RiskLevel) -> anstyle::Style {
    use anstyle::AnsiColor;
    match level {
        RiskLevel::Low => AnsiColor::Green.on_default(),
        RiskLevel::Medium => AnsiColor::Yellow.on_default(),
        RiskLevel::High => AnsiColor::Red.on_default(),
        RiskLevel::Critical => AnsiColor::Red.on_default().bold(),
    }
}

/// What was asked, as the command line spelled it: `--all`, or the targets (`triton==3.7.0
/// numpy`).
pub(super) fn asked(proposal: &Proposal) -> String {
    if proposal.request.all {
        return "--all".to_string();
    }
    proposal
        .request
        .targets
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The whole proposal, fitted to `width` ([`crate::terminal::fit`]).
pub(crate) fn render(
    proposal: &Proposal,
    commands: &[PlanCommands],
    color: bool,
    width: Option<usize>,
) -> String {
    let style = Style { color, width };
    let mut out = String::new();
    let env = &proposal.environment;
    let what = asked(proposal);
    let _ = writeln!(
        out,
        "{} {} for {} (Python {}, {}, {} dists)",
        style.bold("planner propose"),
        terminal(&what),
        terminal(&env.source),
        env.python_version,
        terminal(&env.platform),
        env.dists
    );
    if !proposal.already_broken.is_empty() {
        out.push('\n');
        let _ = writeln!(
            out,
            "{}",
            style.warning("The environment is already broken (before any plan):")
        );
        for line in BrokenEdge::lines(&proposal.already_broken) {
            let _ = writeln!(out, "  {}", terminal(&line));
        }
    }
    if let Some(conflict) = &proposal.conflict {
        out.push('\n');
        let _ = writeln!(
            out,
            "{}",
            style.error("The request cannot be met as asked:")
        );
        for line in conflict.explanation.lines() {
            let _ = writeln!(out, "  {}", terminal(line));
        }
        for hint in &conflict.hints {
            let _ = writeln!(out, "  hint: {}", terminal(hint));
        }
        let keyed: Vec<_> = (conflict.blockers.iter())
            .map(|b| ((&b.dependent, &b.dependent_version), &b.requirement))
            .collect();
        for (blocker, words) in conflict.blockers.iter().zip(said_once(&keyed)) {
            let Some(words) = words else { continue };
            let _ = writeln!(
                out,
                "  blocked by: {} {} requires {}",
                blocker.dependent,
                blocker.dependent_version,
                terminal(&words)
            );
        }
    }
    if proposal.plans.is_empty() {
        out.push('\n');
        let _ = writeln!(out, "No plan found.");
        if proposal
            .conflict
            .as_ref()
            .is_some_and(|c| !c.blockers.is_empty())
            && !proposal.request.allow_override
        {
            let _ = writeln!(
                out,
                "hint: `--allow-override` offers a forced plan that overrides exactly the blocking requirements, with its risk."
            );
        }
    }
    for (i, plan) in proposal.plans.iter().enumerate() {
        out.push('\n');
        let label = match (i, proposal.meets_request()) {
            (0, true) => " (recommended)",
            (0, false) => " (the closest; it does NOT meet the request)",
            _ => "",
        };
        plan_text(&mut out, &style, i + 1, label, plan, commands.get(i));
    }
    crate::terminal::fit(&out, width).into_owned()
}

/// A plan's first two lines: `Plan N KIND LABEL: title` and its risk with the policy.
pub(super) fn plan_heading(
    out: &mut String,
    style: &Style,
    number: usize,
    kind: &dyn std::fmt::Display,
    label: &str,
    plan: &Plan,
) {
    let _ = writeln!(
        out,
        "{} {}{}: {}",
        style.bold(&format!("Plan {number}")),
        kind,
        label,
        terminal(&plan.title)
    );
    let _ = writeln!(
        out,
        "  risk {} (policy {})",
        style.level(
            plan.risk.level,
            &format!("{}/100 {}", plan.risk.score, plan.risk.level)
        ),
        terminal(&plan.risk.policy)
    );
}

fn plan_text(
    out: &mut String,
    style: &Style,
    number: usize,
    label: &str,
    plan: &Plan,
    commands: Option<&PlanCommands>,
) {
    plan_heading(out, style, number, &plan.kind, label, plan);
    if plan.changes.is_empty() && plan.kind == PlanKind::NoChange {
        let _ = writeln!(out, "  {}", no_change_line(plan));
    } else if plan.changes.is_empty() {
        let _ = writeln!(out, "  no changes: the environment already satisfies it");
    } else {
        let width = plan
            .changes
            .iter()
            .map(|c| c.name.as_ref().len())
            .max()
            .unwrap_or(0);
        let moves: Vec<String> = plan.changes.iter().map(movement).collect();
        let move_width = moves.iter().map(String::len).max().unwrap_or(0);
        // What the request needs first, then what repairs the environment as it was.
        for (repair, heading) in [
            (false, "changes:"),
            (true, "repairs (edges broken before this plan):"),
        ] {
            let rows: Vec<(&Change, &String)> = plan
                .changes
                .iter()
                .zip(&moves)
                .filter(|(c, _)| c.repair == repair)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(out, "  {heading}");
            for (change, movement) in rows {
                change_row(out, change, movement, width, move_width);
            }
        }
    }
    overrides_text(out, plan);
    for held in &plan.held_back {
        let by = held.reasons();
        let _ = writeln!(
            out,
            "  held back: {} stays at {} (newest {}){}",
            held.name,
            held.planned
                .as_ref()
                .map_or_else(|| "not installed".to_string(), ToString::to_string),
            held.newest,
            if by.is_empty() {
                ": no single requirement explains it".to_string()
            } else {
                terminal(&format!(": {}", by.join("; "))).into_owned()
            }
        );
    }
    plan_tail_text(out, style, plan, commands);
}

/// A plan's overrides, each declared requirement in words (its marker, which held here, dropped;
/// the extras it came through named) and said once for its dependent ([`Override::said`]): `torch
/// 2.11.0+cu130 requires triton==3.6.0; installs triton 3.7.0 instead`.
fn overrides_text(out: &mut String, plan: &Plan) {
    if plan.overrides.is_empty() {
        return;
    }
    let _ = writeln!(out, "  overrides (each breaks a declared requirement):");
    for (o, words) in Override::said(&plan.overrides) {
        let _ = writeln!(
            out,
            "    {} {} requires {}; installs {} {} instead",
            o.dependent,
            o.dependent_version,
            terminal(&words),
            o.package,
            o.version
        );
    }
}

/// What closes every plan in text: its warnings, its risk factors and, when written, its
/// commands.
pub(super) fn plan_tail_text(
    out: &mut String,
    style: &Style,
    plan: &Plan,
    commands: Option<&PlanCommands>,
) {
    for warning in &plan.warnings {
        let _ = writeln!(out, "  {} {}", style.warning("WARNING:"), terminal(warning));
    }
    factors_text(out, plan);
    unchecked_text(out, plan);
    if let Some(commands) = commands {
        commands_text(out, style, commands);
    }
}

/// One line per change: name, movement, reasons, in columns.
pub(super) fn changes_text<'c>(
    out: &mut String,
    changes: impl Iterator<Item = &'c Change> + Clone,
) {
    let width = changes
        .clone()
        .map(|c| c.name.as_ref().len())
        .max()
        .unwrap_or(0);
    let moves: Vec<String> = changes.clone().map(movement).collect();
    let move_width = moves.iter().map(String::len).max().unwrap_or(0);
    for (change, movement) in changes.zip(&moves) {
        change_row(out, change, movement, width, move_width);
    }
}

/// One change in columns: name, movement, reasons.
fn change_row(out: &mut String, change: &Change, movement: &str, width: usize, move_width: usize) {
    let _ = writeln!(
        out,
        "    {:<width$}  {:<move_width$}  {}",
        change.name.as_ref(),
        movement,
        terminal(&reasons(change)),
    );
}

/// The itemized risk.
pub(super) fn factors_text(out: &mut String, plan: &Plan) {
    if !plan.risk.factors.is_empty() {
        let _ = writeln!(out, "  risk factors:");
        let width = plan
            .risk
            .factors
            .iter()
            .map(|f| f.kind.key().len())
            .max()
            .unwrap_or(0)
            .max(22);
        for factor in &plan.risk.factors {
            let _ = writeln!(
                out,
                "    {:>+4}  {:<width$} {}",
                factor.points,
                factor.kind.key(),
                terminal(&factor.detail)
            );
        }
    }
}

/// How many releases the text names what it could not check of; the JSON lists every one.
const UNCHECKED_SHOWN: usize = 3;

/// The evidence the plan could not read, one release a line (the first few, then how many
/// more and which).
fn unchecked_text(out: &mut String, plan: &Plan) {
    if plan.unchecked.is_empty() {
        return;
    }
    let _ = writeln!(out, "  not checked (so the risk is at least medium):");
    for entry in plan.unchecked.iter().take(UNCHECKED_SHOWN) {
        let _ = writeln!(out, "    {}", terminal(&entry.sentence()));
    }
    let rest: Vec<String> = (plan.unchecked.iter().skip(UNCHECKED_SHOWN))
        .map(|e| format!("{} {}", e.name, e.version))
        .collect();
    if !rest.is_empty() {
        let _ = writeln!(out, "    and {} more: {}", rest.len(), rest.join(", "));
    }
}

/// Where the plan's files are, and its pip and uv commands.
pub(super) fn commands_text(out: &mut String, style: &Style, commands: &PlanCommands) {
    match &commands.dir {
        Some(dir) => {
            let _ = writeln!(out, "  files: {}", terminal(dir));
        }
        None => {
            let _ = writeln!(
                out,
                "  {}",
                style.dim(
                    "(--out-dir DIR also writes constraints.txt for the whole environment, \
                     the plan file, install scripts and verify.py)"
                )
            );
        }
    }
    for (tool, lines) in [("with pip:", &commands.pip), ("with uv:", &commands.uv)] {
        if lines.is_empty() {
            continue;
        }
        let _ = writeln!(out, "  {}", style.dim(tool));
        for line in lines.lines() {
            command_line(out, style, line);
        }
    }
}

/// One command, indented; broken between its words with ` \` to fit the width, when there is
/// one ([`crate::terminal::shell_lines`]), so that a copy of it still runs.
fn command_line(out: &mut String, style: &Style, line: &str) {
    match style.width {
        Some(width) => {
            for part in crate::terminal::shell_lines(line, 4, 4, width) {
                let _ = writeln!(out, "{part}");
            }
        }
        None => {
            let _ = writeln!(out, "    {line}");
        }
    }
}

/// `3.6.0 -> 3.7.0`, `+ 1.0`, `- 1.0`.
pub(crate) fn movement(change: &Change) -> String {
    match (&change.from, &change.to) {
        (Some(a), Some(b)) => format!("{a} -> {b}"),
        (None, Some(b)) => format!("+ {b} (new)"),
        (Some(a), None) => format!("- {a} (removed)"),
        (None, None) => String::new(),
    }
}

/// "needed by jinja2 2.11.3 on import (markupsafe<2.1.0: its own jinja2/filters.py, line 13,
/// imports `soft_unicode` from `markupsafe`, ...)": one clause for all of `all` that the same
/// release imports, said where the first of them stands (`None` for the others): "(werkzeug<3.0.0:
/// its own flask_login/utils.py, line 14, imports `url_decode` from `werkzeug.urls`; line 15,
/// imports `url_encode` from `werkzeug.urls`, ...)".
fn imports_name(reason: &Reason, all: &[Reason]) -> Option<String> {
    let Reason::ImportsName {
        dependent,
        dependent_version,
        ..
    } = reason
    else {
        return None;
    };
    // One clause per importing release: the first of its reasons says them all.
    let same: Vec<&Reason> = all
        .iter()
        .filter(|r| {
            matches!(r, Reason::ImportsName { dependent: d, dependent_version: v, .. }
                if d == dependent && v == dependent_version)
        })
        .collect();
    if !same
        .first()
        .is_some_and(|first| std::ptr::eq(*first, reason))
    {
        return None;
    }
    let mut segments: Vec<String> = Vec::new();
    let mut previous: Option<(&pep508_rs::Requirement, &str)> = None;
    for r in same {
        let Reason::ImportsName {
            requirement,
            module,
            names,
            file,
            line,
            ..
        } = r
        else {
            continue;
        };
        let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        let imports = format!("line {line}, imports {} from `{module}`", names.join(", "));
        segments.push(match previous {
            Some((req, f)) if req == requirement && f == file => imports,
            Some((req, _)) if req == requirement => format!("its own {file}, {imports}"),
            _ => format!("{requirement}: its own {file}, {imports}"),
        });
        previous = Some((requirement, file));
    }
    let side = match reason {
        Reason::ImportsName { requirement, .. } => lacking(requirement),
        _ => "newer",
    };
    Some(format!(
        "needed by {dependent} {dependent_version} on import ({}, which {side} releases lack; \
         not in its index metadata)",
        segments.join("; ")
    ))
}

/// Which releases of a dist lack what an import takes, by the requirement the import implies:
/// "older" for a lower bound (`platformdirs>=2.1.0`), else "newer" (`werkzeug<3.0.0`).
fn lacking(requirement: &pep508_rs::Requirement) -> &'static str {
    let lower = crate::metadata::requirement::specifiers(requirement).is_some_and(|s| {
        s.iter()
            .all(|s| matches!(s.operator(), pep440_rs::Operator::GreaterThanEqual))
    });
    if lower { "older" } else { "newer" }
}

/// `` `a`, `b` ``.
fn quoted(names: &[String]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    names.join(", ")
}

/// A dependent moved along: the release it breaks under and, for an import or a use in a
/// function, the failing import or use.
fn moves_with(reason: &Reason) -> String {
    match reason {
        Reason::MovesWith {
            package,
            version,
            how,
            file: Some(file),
            line: Some(line),
            module: Some(module),
            name,
        } if *how == BreakKind::CallTime => {
            let uses = match name {
                Some(name) => format!("uses `{name}` of `{module}`"),
                None => format!("uses `{module}`"),
            };
            format!(
                "moves with {package}: the installed release breaks under {package} \
                 {version} when that code runs ({file}, line {line}, {uses}, which {package} \
                 {version} does not have)"
            )
        }
        Reason::MovesWith {
            package,
            version,
            how,
            file: Some(file),
            line: Some(line),
            module: Some(module),
            name,
        } if *how != BreakKind::Abi => {
            let imports = match name {
                Some(name) => format!("imports `{name}` from `{module}`"),
                None => format!("imports `{module}`"),
            };
            let fails = match how {
                BreakKind::Import => format!("which {package} {version} does not have"),
                _ => format!("which fails to import beside {package} {version}"),
            };
            format!(
                "moves with {package}: the installed release breaks under {package} \
                 {version} ({file}, line {line}, {imports}, {fails})"
            )
        }
        Reason::MovesWith {
            package,
            version,
            how,
            ..
        } => match how {
            BreakKind::Abi => format!(
                "moves with {package} {version} (the installed release's compiled \
                 extensions were built against an older {package} line)"
            ),
            BreakKind::Import => format!(
                "moves with {package} {version} (the installed release imports what \
                 {package} {version} no longer has)"
            ),
            BreakKind::ImportChain => format!(
                "moves with {package} {version} (the installed release imports a dist \
                 that fails to import beside {package} {version})"
            ),
            BreakKind::CallTime => format!(
                "moves with {package} {version} (the installed release uses, in a function, \
                 what {package} {version} no longer has)"
            ),
        },
        _ => String::new(),
    }
}

/// What a `no-change` plan does: nothing, and why its targets stay (their held-back lines).
pub(crate) fn no_change_line(plan: &Plan) -> String {
    let stays: Vec<String> = plan
        .targets
        .iter()
        .filter_map(|t| Some(format!("{} stays at {}", t.name, plan.pins.get(&t.name)?)))
        .collect();
    format!(
        "no changes: nothing is installed or removed; {} (why: held back, below)",
        stays.join(", ")
    )
}

/// A requirement of `reason` in words, said once among the reasons of `all` that `keyed` gives
/// the same key and the same text without the marker ([`said_once`]): the marker (it held here)
/// dropped, the dependent's extras it came through named (`nvidia-cublas==13.4.1.3.*, through
/// its extras cublas, cusolver`). `None` for a reason an earlier one of `all` already says.
fn said_among<'a, K: PartialEq>(
    reason: &'a Reason,
    all: &'a [Reason],
    keyed: impl Fn(&'a Reason) -> Option<(K, &'a Requirement)>,
) -> Option<String> {
    let same: Vec<(&Reason, (K, &Requirement))> =
        all.iter().filter_map(|r| Some((r, keyed(r)?))).collect();
    let at = same.iter().position(|(r, _)| std::ptr::eq(*r, reason))?;
    let items: Vec<(K, &Requirement)> = same.into_iter().map(|(_, k)| k).collect();
    said_once(&items).swap_remove(at)
}

/// A `required by` reason in one part, shown once for its dependent and requirement
/// ([`said_among`]): `required by cuda-toolkit 13.2.2 (nvidia-cublas==13.4.1.3.*, through its
/// extras cublas, cusolver)`.
fn required_by(reason: &Reason, all: &[Reason]) -> Option<String> {
    let Reason::RequiredBy {
        dependent,
        dependent_version,
        ..
    } = reason
    else {
        return None;
    };
    let words = said_among(reason, all, |r| match r {
        Reason::RequiredBy {
            dependent,
            dependent_version,
            requirement,
        } => Some(((dependent, dependent_version), requirement)),
        _ => None,
    })?;
    Some(format!(
        "required by {dependent} {dependent_version} ({words})"
    ))
}

/// A `follows` reason in one part, the installed requirement said once for the dist it names
/// ([`said_among`]): `follows triton 3.9.0 (it required triton==3.6.0)`, not torch's
/// `triton==3.6.0 ; platform_system == 'Linux'`.
fn follows(reason: &Reason, all: &[Reason]) -> Option<String> {
    let Reason::Follows {
        package, version, ..
    } = reason
    else {
        return None;
    };
    let words = said_among(reason, all, |r| match r {
        Reason::Follows {
            package,
            version,
            requirement,
        } => Some(((package, version), requirement)),
        _ => None,
    })?;
    Some(format!("follows {package} {version} (it required {words})"))
}

/// A `repairs` reason in one part, the broken requirement said once for its dependent
/// ([`said_among`]): `repairs torch 2.11.0+cu130's triton==3.6.0 (triton 3.7.0 was installed)`;
/// `its` where the dependent is the dist that changes (`name`).
fn repairs(reason: &Reason, all: &[Reason], name: &PackageName) -> Option<String> {
    let Reason::Repairs {
        dependent,
        dependent_version,
        requirement,
        installed,
    } = reason
    else {
        return None;
    };
    let words = said_among(reason, all, |r| match r {
        Reason::Repairs {
            dependent,
            dependent_version,
            requirement,
            installed,
        } => Some(((dependent, dependent_version, installed), requirement)),
        _ => None,
    })?;
    let whose = if dependent == name {
        "its".to_string()
    } else {
        format!("{dependent} {dependent_version}'s")
    };
    let required = &requirement.name;
    Some(match installed {
        Some(v) => format!("repairs {whose} {words} ({required} {v} was installed)"),
        None => format!("repairs {whose} {words} ({required} was missing)"),
    })
}

/// Why a dist changes, in one line.
pub(crate) fn reasons(change: &Change) -> String {
    let mut parts: Vec<String> = change
        .reasons
        .iter()
        .filter_map(|reason| {
            Some(match reason {
                Reason::Requested { requirement } => format!("requested ({requirement})"),
                Reason::UpgradeAll => "--all".to_string(),
                Reason::RequiredBy { .. } => required_by(reason, &change.reasons)?,
                Reason::Unblocks { target, blocking } => {
                    format!(
                        "needed to unblock {target} (it required {})",
                        said(blocking)
                    )
                }
                Reason::Follows { .. } => follows(reason, &change.reasons)?,
                Reason::Repairs { .. } => repairs(reason, &change.reasons, &change.name)?,
                Reason::CoupledRule {
                    anchor,
                    version,
                    rule,
                } => format!("follows {anchor} {version} ({rule})"),
                Reason::MovesWith { .. } => moves_with(reason),
                Reason::NeededOnImport {
                    dependent,
                    dependent_version,
                    requirement,
                    file,
                    line,
                } => format!(
                    "needed by {dependent} {dependent_version} on import ({requirement}: its own \
                 {file}, line {line}, raises below it; not in its index metadata)"
                ),
                Reason::ImportsName { .. } => imports_name(reason, &change.reasons)?,
                Reason::UnblocksImport {
                    dependent,
                    dependent_version,
                    requirement,
                    module,
                    names,
                    file,
                    line,
                    blocking,
                } => format!(
                    "needed to unblock what {dependent} {dependent_version} imports \
                     ({requirement}: its own {file}, line {line}, imports {} from `{module}`, \
                     which {} releases lack; not in its index metadata); it required {}",
                    quoted(names),
                    lacking(requirement),
                    said(blocking)
                ),
                Reason::Override { replacement } => format!("OVERRIDE ({replacement})"),
                Reason::NewestFitting { asked, closest } => {
                    let which = if *closest { "closest" } else { "newest" };
                    format!("the {which} that fits, NOT what was asked ({asked})")
                }
                Reason::Resolution => "moved by the resolution".to_string(),
            })
        })
        .collect();
    if change.action == Action::Reinstall {
        parts.push("another build of the same version".to_string());
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_plans;

    /// cuda-toolkit 13.2.2 requires nvidia-cublas through two of its extras: one part, its
    /// requirement without the marker, both extras named (live `propose torchvision` on the h200
    /// fixture printed each with its three-platform marker).
    #[test]
    fn required_by_shows_a_requirement_once_with_its_extras() {
        use crate::plan::Reason;
        let r = |s: &str| crate::metadata::parse_requirement(s).unwrap();
        let by = |requirement: &str| Reason::RequiredBy {
            dependent: "cuda-toolkit".parse().unwrap(),
            dependent_version: "13.2.2".parse().unwrap(),
            requirement: r(requirement),
        };
        let mut change = test_plans::proposal().plans[0].changes[0].clone();
        change.reasons = vec![
            by(
                "nvidia-cublas==13.4.1.3.* ; (platform_machine == 'x86_64' and sys_platform == \
                'linux' and extra == 'cublas') or (sys_platform == 'win32' and extra == 'cublas')",
            ),
            by("nvidia-cublas==13.4.1.3.* ; sys_platform == 'linux' and extra == 'cusolver'"),
            Reason::RequiredBy {
                dependent: "torch".parse().unwrap(),
                dependent_version: "2.15.0".parse().unwrap(),
                requirement: r("nvidia-cublas ; platform_system == 'Linux'"),
            },
        ];
        assert_eq!(
            reasons(&change),
            "required by cuda-toolkit 13.2.2 (nvidia-cublas==13.4.1.3.*, through its extras \
             cublas, cusolver); required by torch 2.15.0 (nvidia-cublas)"
        );
    }

    /// The unblocking reasons say the blocking requirement as `required by` does: torch's
    /// `triton==3.6.0 ; platform_system == 'Linux'` without its marker, an extra named.
    #[test]
    fn unblocking_reasons_drop_the_marker_and_name_the_extra() {
        use crate::plan::Reason;
        let r = |s: &str| crate::metadata::parse_requirement(s).unwrap();
        let mut change = test_plans::proposal().plans[0].changes[0].clone();
        change.reasons = vec![Reason::Unblocks {
            target: r("triton==3.7.0"),
            blocking: r("triton==3.6.0 ; platform_system == 'Linux'"),
        }];
        assert_eq!(
            reasons(&change),
            "needed to unblock triton==3.7.0 (it required triton==3.6.0)"
        );
        change.reasons = vec![Reason::UnblocksImport {
            dependent: "flask-login".parse().unwrap(),
            dependent_version: "0.6.2".parse().unwrap(),
            requirement: r("werkzeug<3.0.0"),
            module: "werkzeug.urls".to_string(),
            names: vec!["url_decode".to_string()],
            file: "flask_login/utils.py".to_string(),
            line: 14,
            blocking: r("werkzeug>=3.1.0 ; python_version >= '3.9' and extra == 'async'"),
        }];
        let text = reasons(&change);
        assert!(
            text.ends_with("; it required werkzeug>=3.1.0, through its extra async"),
            "{text}"
        );
    }

    /// `follows` says the installed requirement as `required by` does: torch 2.11.0's
    /// `triton==3.6.0 ; platform_system == 'Linux'` without its marker (`propose nvidia-nvtx` on
    /// the h200 fixture's venv and the recorded index printed the marker in each of torch's six
    /// `follows`), and a requirement met through two extras once, with both named.
    #[test]
    fn follows_drops_the_marker_and_names_the_extras_once() {
        use crate::plan::Reason;
        let r = |s: &str| crate::metadata::parse_requirement(s).unwrap();
        let follows = |package: &str, version: &str, requirement: &str| Reason::Follows {
            package: package.parse().unwrap(),
            version: version.parse().unwrap(),
            requirement: r(requirement),
        };
        let mut change = test_plans::proposal().plans[0].changes[0].clone();
        change.reasons = vec![
            follows(
                "triton",
                "3.9.0",
                "triton==3.6.0 ; platform_system == 'Linux'",
            ),
            follows(
                "nvidia-cublas",
                "13.4.1.3",
                "nvidia-cublas==13.1.0.3.* ; sys_platform == 'linux' and extra == 'cublas'",
            ),
            follows(
                "nvidia-cublas",
                "13.4.1.3",
                "nvidia-cublas==13.1.0.3.* ; sys_platform == 'linux' and extra == 'cusolver'",
            ),
        ];
        assert_eq!(
            reasons(&change),
            "follows triton 3.9.0 (it required triton==3.6.0); follows nvidia-cublas 13.4.1.3 (it \
             required nvidia-cublas==13.1.0.3.*, through its extras cublas, cusolver)"
        );
    }

    /// `repairs` says the broken requirement without its marker (`propose numpy` on
    /// `testdata/venvs/canonical-forced` printed `repairs torch 2.11.0+cu130's triton==3.6.0 ;
    /// platform_system == 'Linux'`), an extra named, each requirement of a dependent once.
    #[test]
    fn repairs_drops_the_marker_and_names_the_extras_once() {
        use crate::plan::Reason;
        let r = |s: &str| crate::metadata::parse_requirement(s).unwrap();
        let v = |s: &str| s.parse::<pep440_rs::Version>().unwrap();
        let torch = "triton==3.6.0 ; platform_system == 'Linux'";
        let repairs =
            |dependent: &str, version: &str, requirement: &str, installed| Reason::Repairs {
                dependent: dependent.parse().unwrap(),
                dependent_version: v(version),
                requirement: r(requirement),
                installed,
            };
        let mut change = test_plans::proposal().plans[0].changes[0].clone();
        let was = Some(v("3.7.0"));
        change.name = "triton".parse().unwrap();
        change.reasons = vec![
            repairs("torch", "2.11.0+cu130", torch, was.clone()),
            repairs(
                "fla-core",
                "0.5.1",
                "triton>=3.6 ; python_version >= '3.9' and extra == 'tests'",
                was.clone(),
            ),
            repairs("fla-core", "0.5.1", "triton>=3.6 ; extra == 'bench'", was),
        ];
        assert_eq!(
            reasons(&change),
            "repairs torch 2.11.0+cu130's triton==3.6.0 (triton 3.7.0 was installed); repairs \
             fla-core 0.5.1's triton>=3.6, through its extras tests, bench (triton 3.7.0 was \
             installed)"
        );
        // Its own requirement, on a dist that was missing.
        change.name = "torch".parse().unwrap();
        change.reasons = vec![repairs("torch", "2.11.0+cu130", torch, None)];
        assert_eq!(
            reasons(&change),
            "repairs its triton==3.6.0 (triton was missing)"
        );
    }

    /// The overrides section says the declared requirement without its marker (torch's
    /// `triton==3.6.0; platform_system == "Linux"` in the canonical forced plan), an extra named,
    /// and one override per dependent and requirement.
    #[test]
    fn overrides_drop_the_marker_and_name_the_extras_once() {
        use crate::plan::Override;
        let r = |s: &str| crate::metadata::parse_requirement(s).unwrap();
        let mut proposal = test_plans::proposal();
        let plan = (proposal.plans.iter_mut())
            .find(|p| !p.overrides.is_empty())
            .expect("the forced plan");
        let torch = plan.overrides[0].clone();
        let cublas = |extra: &str| Override {
            dependent: "cuda-toolkit".parse().unwrap(),
            dependent_version: "13.0.2".parse().unwrap(),
            requirement: r(&format!(
                "nvidia-cublas==13.1.0.3.* ; sys_platform == 'linux' and extra == '{extra}'"
            )),
            package: "nvidia-cublas".parse().unwrap(),
            version: "13.4.1.3".parse().unwrap(),
            replacement: r("nvidia-cublas==13.4.1.3"),
            ..torch.clone()
        };
        plan.overrides = vec![torch.clone(), cublas("cublas"), cublas("cusolver")];
        let text = render(&proposal, &[], false, None);
        let section = text
            .split("  overrides (each breaks a declared requirement):\n")
            .nth(1)
            .expect("an overrides section");
        let lines: Vec<&str> = section.lines().take(3).collect();
        assert_eq!(
            lines,
            [
                "    torch 2.11.0+cu130 requires triton==3.6.0; installs triton 3.7.0 instead",
                "    cuda-toolkit 13.0.2 requires nvidia-cublas==13.1.0.3.*, through its extras \
                 cublas, cusolver; installs nvidia-cublas 13.4.1.3 instead",
                "  risk factors:",
            ],
            "{text}"
        );
    }

    #[test]
    fn canonical_proposal_text() {
        let proposal = test_plans::proposal();
        let text = render(&proposal, &[], false, None);
        insta::assert_snapshot!(text);
        assert!(!text.contains('\u{1b}'));
        let colored = render(&proposal, &[], true, None);
        assert!(colored.contains("\u{1b}[31m57/100 high\u{1b}[0m"));
    }

    /// A broken environment is named, each edge without the marker that held, and repairs are
    /// listed apart.
    #[test]
    fn already_broken_and_repairs_are_apart() {
        use crate::plan::{BrokenEdge, Reason};
        let v = |s: &str| s.parse::<pep440_rs::Version>().unwrap();
        let r = |s: &str| crate::metadata::parse_requirement(s).unwrap();
        let mut proposal = test_plans::proposal();
        proposal.already_broken.push(BrokenEdge {
            dependent: "requests".parse().unwrap(),
            dependent_version: v("2.25.1"),
            requirement: r("chardet<5,>=3.0.2"),
            installed: Some(v("5.2.0")),
        });
        proposal.already_broken.push(BrokenEdge {
            dependent: "torch".parse().unwrap(),
            dependent_version: v("2.11.0+cu130"),
            requirement: r("triton==3.6.0 ; platform_system == 'Linux'"),
            installed: Some(v("3.7.0")),
        });
        let plan = &mut proposal.plans[0];
        let mut repair = plan.changes[0].clone();
        repair.name = "requests".parse().unwrap();
        repair.from = Some(v("2.25.1"));
        repair.to = Some(v("2.34.2"));
        repair.repair = true;
        repair.forced = false;
        repair.reasons = vec![Reason::Repairs {
            dependent: "requests".parse().unwrap(),
            dependent_version: v("2.25.1"),
            requirement: r("chardet<5,>=3.0.2"),
            installed: Some(v("5.2.0")),
        }];
        plan.changes.push(repair);
        let text = render(&proposal, &[], false, None);
        assert!(
            text.contains(
                "The environment is already broken (before any plan):\n  requests 2.25.1 \
                 requires chardet>=3.0.2,<5, but chardet 5.2.0 is installed\n  torch \
                 2.11.0+cu130 requires triton==3.6.0, but triton 3.7.0 is installed\n"
            ),
            "{text}"
        );
        let repairs = text
            .split("repairs (edges broken before this plan):\n")
            .nth(1)
            .expect("a repairs section");
        let first: Vec<&str> = repairs
            .lines()
            .next()
            .unwrap()
            .split("  ")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        assert_eq!(
            first,
            [
                "requests",
                "2.25.1 -> 2.34.2",
                "repairs its chardet>=3.0.2,<5 (chardet 5.2.0 was installed)"
            ],
            "{text}"
        );
        // Not among the changes the request needs.
        let changes = text.split("repairs (edges").next().unwrap();
        assert!(!changes.contains("requests  "), "{text}");
    }

    #[test]
    fn hostile_text_is_escaped() {
        let mut proposal = test_plans::proposal();
        proposal.plans[0]
            .warnings
            .push("evil\u{1b}[2J\u{202e}".into());
        let text = render(&proposal, &[], false, None);
        assert!(!text.contains('\u{202e}') && !text.contains("\u{1b}[2J"));
    }
}
