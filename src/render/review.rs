//! `planner review` output: text (for a terminal), JSON (`docs/review.md`), markdown (a
//! pull-request comment: a table worst first, collapsible details, the safer plan's commands),
//! GitHub workflow annotations on the changed lines, and SARIF 2.1.0 for code scanning.
//!
//! Every value from the reviewed files is untrusted: it is escaped for the terminal, for
//! markdown cells, for workflow-command properties and data, and serialized by serde in JSON
//! and SARIF; commands are built from the parsed plan by `render::commands`.

use std::fmt::Write as _;

use serde_json::json;

use super::commands::{self, CommandOptions};
use super::markdown::cell;
use super::text::movement;
use crate::metadata::requirement;
use crate::plan::{Blocker, Change, Plan, PlanKind, Reason};
use crate::review::analysis::TargetVerdict;
use crate::review::{Finding, MeasuredPlan, Review, Unresolved};
use crate::risk::RiskLevel;
use crate::terminal::escape;

/// `low 12/100`, `high 60/100 from its breaks` (no plan could be scored where it was judged:
/// the level rests on what it breaks alone), or `not judged`.
fn level_text(finding: &Finding) -> String {
    let judged = finding.targets.iter().filter(|t| t.risk.is_some());
    let from_breaks = judged.clone().count() > 0 && judged.clone().all(|t| t.judged_from_breaks);
    match (finding.level, finding.score) {
        (Some(level), Some(score)) if from_breaks => {
            format!("{level} {score}/100 from its breaks")
        }
        (Some(level), Some(score)) => format!("{level} {score}/100"),
        _ => "not judged".to_string(),
    }
}

fn blocker_text(b: &Blocker) -> String {
    format!(
        "{} {} requires {}",
        b.dependent, b.dependent_version, b.requirement
    )
}

/// `requests==2.34.2 (requirements/base.txt:148), held with it in requirements/test.in: no
/// version meets both`.
fn held_text(h: &crate::review::analysis::Held) -> String {
    let at = h
        .line
        .map_or_else(|| h.file.clone(), |line| format!("{}:{line}", h.file));
    format!(
        "{} ({at}), held with it in {}: no version meets both",
        h.requirement, h.environment
    )
}

fn changes_text(plan: &Plan) -> String {
    plan.changes
        .iter()
        .map(|c| format!("{} {}", c.name, movement(c)))
        .collect::<Vec<_>>()
        .join(", ")
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

/// The safer plan in the terms of a project's own files, for a pin of `pyproject.toml` or
/// `uv.lock`: which declarations to drop or raise, then the project's lock step (`None` for
/// other files, whose safer plan is its pip commands).
fn project_steps(finding: &Finding, plan: &Plan, verdict: &TargetVerdict) -> Option<Vec<String>> {
    use crate::review::pins::PinKind;
    let pin = &finding.pin;
    let pyproject = match pin.kind {
        PinKind::UvOverride | PinKind::UvConstraint | PinKind::ProjectPin | PinKind::GroupPin => {
            pin.file.clone()
        }
        PinKind::Range if pin.file.ends_with("pyproject.toml") => pin.file.clone(),
        PinKind::UvLock => pin.file.replace("uv.lock", "pyproject.toml"),
        _ => return None,
    };
    let mut steps = Vec::new();
    let table = match pin.kind {
        PinKind::UvOverride => Some("[tool.uv] override-dependencies"),
        PinKind::UvConstraint => Some("[tool.uv] constraint-dependencies"),
        _ => None,
    };
    // An override that breaks no declared requirement (the safer plan only moves dependents
    // along) still delivers the pin: it stays. So does one whose blockers go back: the older
    // releases accept the pin without requiring it, so without it `uv lock` keeps the lock's.
    if let Some(table) = table
        && !verdict.breaks.is_empty()
    {
        steps.push(if plan.kind == PlanKind::DowngradeBlockers {
            format!(
                "in {pyproject}, keep `{}` in {table} (once the blockers go back it breaks nothing, and they do not require it)",
                pin.requirement
            )
        } else {
            format!("in {pyproject}, drop `{}` from {table}", pin.requirement)
        });
    }
    for blocker in &verdict.breaks {
        let Some(change) = plan.changes.iter().find(|c| c.name == blocker.dependent) else {
            continue;
        };
        if let Some(to) = &change.to {
            // In a workspace, the member that declares it.
            let declaring = pin.context.declared_in(&change.name, &pyproject);
            steps.push(format!(
                "in {declaring}, require `{}=={to}` where it names {} (now {})",
                change.name, change.name, blocker.dependent_version
            ));
        }
    }
    steps.extend(plan.changes.iter().filter_map(|change| {
        moves_along_step(pin.context.declared_in(&change.name, &pyproject), change)
    }));
    let others: Vec<String> = plan
        .changes
        .iter()
        .filter(|c| !verdict.breaks.iter().any(|b| b.dependent == c.name))
        .filter(|c| moves_with(c).is_none())
        .map(|c| format!("{} {}", c.name, movement(c)))
        .collect();
    let mut lock = lock_step(pin);
    if !others.is_empty() {
        lock.push_str(&format!(" (it moves {})", others.join(", ")));
    }
    steps.push(lock);
    Some(steps)
}

/// The last step of a project's safer plan, in the project's own tool: uv's for its own tables
/// and lock, else the tool whose lock file is beside the `pyproject.toml` (none: the project is
/// installed again as it is, which resolves its requirements then).
fn lock_step(pin: &crate::review::pins::Pin) -> String {
    use crate::review::pins::{PinKind, ProjectTool};
    let uv_own = matches!(
        pin.kind,
        PinKind::UvOverride | PinKind::UvConstraint | PinKind::UvLock
    );
    match (uv_own, pin.context.tool) {
        (true, _) | (false, Some(ProjectTool::Uv)) => "run `uv lock`, then `uv sync`",
        (false, Some(ProjectTool::Poetry)) => "run `poetry lock`, then `poetry install`",
        (false, Some(ProjectTool::Pdm)) => "run `pdm lock`, then `pdm install`",
        (false, None) => "install the project again with `pip install .`",
    }
    .to_string()
}

/// For a file pip installs (requirements, constraints, install lines): where the file itself
/// declares a dist the safer plan moves with a version it rules out (`flask==3.1.3` beside the
/// pin, when the plan takes flask to 2.1.3), require the planned version there; else the file
/// keeps the dist where the pin breaks it and does not resolve. Empty when nothing it declares
/// stands in the way.
fn file_steps(finding: &Finding, plan: &Plan) -> Vec<String> {
    let context = &finding.pin.context;
    plan.changes
        .iter()
        .filter(|change| &change.name != finding.pin.name())
        .filter_map(|change| {
            let to = change.to.as_ref()?;
            let declared = context
                .requirements
                .iter()
                .chain(&context.constraints)
                .find(|r| r.name == change.name && requirement::excludes(r, to))?;
            Some(format!(
                "in {}, require `{}=={to}` where it declares `{declared}`",
                context.root, change.name
            ))
        })
        .collect()
}

/// The step that requires a dependent moving along with another dist's planned release at its
/// new release: `>=` when it goes forward, `<=` when it goes back (a `>=` would let `uv lock`
/// keep the newer locked release that breaks); `None` for other changes.
fn moves_along_step(pyproject: &str, change: &Change) -> Option<String> {
    let (Some(from), Some(to), Some(with)) = (&change.from, &change.to, moves_with(change)) else {
        return None;
    };
    let bound = if to < from { "<=" } else { ">=" };
    Some(format!(
        "in {pyproject}, require `{}{bound}{to}` (now {from}; it breaks under {with}, and `uv lock` keeps a locked version it is not told to move)",
        change.name
    ))
}

/// `numpy 2.2.0` for a change that moves along with another dist's planned release.
fn moves_with(change: &Change) -> Option<String> {
    change.reasons.iter().find_map(|r| match r {
        Reason::MovesWith {
            package, version, ..
        } => Some(format!("{package} {version}")),
        _ => None,
    })
}

/// `idna 2.4 was uploaded 2017-02-19 (3570 days ago)`, for an exact pin the index knows.
fn release_text(f: &Finding) -> Option<String> {
    let r = f.release.as_ref()?;
    let name = f.pin.name();
    Some(match (r.uploaded, r.age_days) {
        (Some(at), Some(days)) => format!(
            "{name} {} was uploaded {} ({days} day{} ago)",
            r.version,
            at.strftime("%Y-%m-%d"),
            if days == 1 { "" } else { "s" }
        ),
        _ => format!("{name} {}: the index gives no upload time", r.version),
    })
}

/// `compare v2.3...v2.4` and, when the tag names are a guess, what was guessed.
fn compare_label(c: &crate::review::links::Compare) -> (String, Option<&'static str>) {
    (
        format!("compare {}...{}", c.from, c.to),
        c.guessed
            .then_some("tag names guessed as `vX`: the project's URLs show none; it may tag `X`"),
    )
}

/// The links of a finding as `(label, url)`: release notes, the compare view, the line.
fn finding_links(f: &Finding) -> Vec<(String, String)> {
    let mut links = Vec::new();
    if let Some(r) = &f.release {
        for note in &r.notes {
            links.push((note.label.clone(), note.url.clone()));
        }
        if let Some(c) = &r.compare {
            let (label, guess) = compare_label(c);
            let label = match guess {
                Some(_) => format!("{label} (tags guessed)"),
                None => label,
            };
            links.push((label, c.url.clone()));
        }
    }
    if let Some(url) = &f.permalink {
        links.push(("the line".to_string(), url.clone()));
    }
    links
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

/// `DOES NOT RESOLVE requirements.txt on Python 3.12 ...: why`, or `NOT JUDGED ...` where index
/// data is missing.
fn unresolved_text(u: &Unresolved) -> String {
    if u.missing.is_some() {
        return format!("NOT JUDGED {} on {}: {}", u.environment, u.target, u.reason);
    }
    let base = match (u.at_base, u.base_unknown) {
        (true, _) => " (nor at the base)",
        (false, true) => " (the base's index data is missing: whether it did is not known)",
        (false, false) => " (the base did)",
    };
    format!(
        "DOES NOT RESOLVE {} on {}{base}: {}",
        u.environment, u.target, u.reason
    )
}

fn header(review: &Review) -> String {
    let short = |c: &str| c.chars().take(12).collect::<String>();
    format!(
        "{} forced or pinned version(s) added or changed: base {} ({}) -> head {} ({}); judged for {}",
        review.findings.len(),
        review.base.name,
        short(&review.base.commit),
        review.head.name,
        short(&review.head.commit),
        review.targets.join(", ")
    )
}

/// For a terminal.
pub(crate) fn text(review: &Review) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}\n", escape(&header(review)));
    for u in &review.unresolved {
        let _ = writeln!(out, "{}\n", escape(&unresolved_text(u)));
    }
    for finding in &review.findings {
        let pin = &finding.pin;
        let was = finding
            .was
            .as_ref()
            .map(|w| format!(" (was {w})"))
            .unwrap_or_default();
        let line = format!(
            "{:<16} {}:{}  {}  {}{was}",
            level_text(finding).to_uppercase(),
            pin.file,
            pin.line,
            pin.kind.label(),
            pin.requirement
        );
        let _ = writeln!(out, "{}", escape(&line));
        for also in &finding.also {
            let _ = writeln!(
                out,
                "{}",
                escape(&format!(
                    "  also at {}:{} ({})",
                    also.file,
                    also.line,
                    also.kind.label()
                ))
            );
        }
        if let Some(release) = release_text(finding) {
            let _ = writeln!(out, "{}", escape(&format!("  release: {release}")));
        }
        for (label, url) in finding_links(finding) {
            let _ = writeln!(out, "{}", escape(&format!("  {label}: {url}")));
        }
        for verdict in &finding.targets {
            let _ = write!(out, "{}", escape(&verdict_text(verdict)));
            let steps = verdict.safer.as_ref().map(|plan| {
                project_steps(finding, plan, verdict).unwrap_or_else(|| file_steps(finding, plan))
            });
            for step in steps.unwrap_or_default() {
                let _ = writeln!(out, "{}", escape(&format!("      - {step}")));
            }
        }
        out.push('\n');
    }
    for pin in &review.removed {
        let _ = writeln!(
            out,
            "{}",
            escape(&format!(
                "removed: {}:{}  {}  {}",
                pin.file,
                pin.line,
                pin.kind.label(),
                pin.requirement
            ))
        );
    }
    for problem in &review.problems {
        let at = problem.line.map(|l| format!(":{l}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{}",
            escape(&format!(
                "not reviewed: {}{at}: {}",
                problem.file, problem.message
            ))
        );
    }
    out
}

fn verdict_text(v: &TargetVerdict) -> String {
    let mut out = format!("  on {}:\n", v.target);
    if let Some(note) = &v.note {
        let _ = writeln!(out, "    not judged: {note}");
    }
    if let Some(remark) = &v.remark {
        let _ = writeln!(out, "    {remark}");
    }
    for b in &v.breaks {
        let _ = writeln!(out, "    breaks: {}", blocker_text(b));
    }
    for h in &v.excludes {
        let _ = writeln!(out, "    excludes: {}", held_text(h));
    }
    for b in &v.narrows {
        let _ = writeln!(out, "    narrows: {}", blocker_text(b));
    }
    if let Some(risk) = &v.risk {
        let _ = writeln!(
            out,
            "    risk: {} {}/100 ({} policy)",
            risk.level, risk.score, risk.policy
        );
        for factor in &risk.factors {
            let _ = writeln!(out, "      {:+4}  {}", factor.points, factor.detail);
        }
    }
    if let Some(plan) = &v.safer {
        let _ = writeln!(
            out,
            "    safer: {} (risk {} {}/100): {}",
            plan.title,
            plan.risk.level,
            plan.risk.score,
            changes_text(plan)
        );
    }
    for (what, measured) in measured_plans(v) {
        let _ = writeln!(out, "    tried {what}: {}", measured_line(measured));
        for r in &measured.tried.outcome.regressions {
            let _ = writeln!(out, "      FAIL {r}");
        }
        for r in &measured.tried.outcome.removed {
            let _ = writeln!(
                out,
                "      gone {r} (removed by the plan, not a regression)"
            );
        }
        if let Some(note) = &measured.tried.outcome.installer_note {
            let _ = writeln!(out, "      installer: {note}");
        }
    }
    out
}

/// `review --try`: the plans tried on this target, named ("as pinned", "safer").
fn measured_plans(v: &TargetVerdict) -> Vec<(&'static str, &MeasuredPlan)> {
    let Some(tried) = &v.tried else {
        return Vec::new();
    };
    [("as pinned", &tried.pinned), ("safer", &tried.safer)]
        .into_iter()
        .filter_map(|(what, m)| Some((what, m.as_ref()?)))
        .collect()
}

/// "REGRESSED: 2 regression(s) in 48 checks and 0 test(s), 3.2s".
fn measured_line(m: &MeasuredPlan) -> String {
    format!("{}: {}", super::trial::verdict_word(&m.tried), m.summary)
}

/// The markdown table's `measured` cell: the pinned plan's verdict, then the safer plan's.
fn measured_cell(f: &Finding) -> String {
    let words: Vec<String> = f
        .targets
        .iter()
        .flat_map(measured_plans)
        .map(|(what, m)| format!("{what}: {}", super::trial::verdict_word(&m.tried)))
        .collect();
    if words.is_empty() {
        "-".to_string()
    } else {
        words.join("; ")
    }
}

/// The documented JSON.
pub(crate) fn json(review: &Review) -> Result<String, super::json::JsonError> {
    super::json::to_json(review)
}

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
                .flat_map(|v| v.breaks.iter().map(blocker_text))
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
        for b in &v.breaks {
            let _ = writeln!(out, "- breaks: {}", cell(&blocker_text(b)));
        }
        for h in &v.excludes {
            let _ = writeln!(out, "- excludes: {}", cell(&held_text(h)));
        }
        for b in &v.narrows {
            let _ = writeln!(out, "- narrows: {}", cell(&blocker_text(b)));
        }
        if let Some(risk) = &v.risk {
            let _ = writeln!(out, "\n| points | factor |\n|---:|---|");
            for factor in &risk.factors {
                let _ = writeln!(out, "| {:+} | {} |", factor.points, cell(&factor.detail));
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
            match project_steps(f, plan, v) {
                Some(steps) => {
                    for (i, step) in steps.iter().enumerate() {
                        let _ = writeln!(out, "{}. {}", i + 1, cell(step));
                    }
                }
                None => {
                    let steps = file_steps(f, plan);
                    for (i, step) in steps.iter().enumerate() {
                        let _ = writeln!(out, "{}. {}", i + 1, cell(step));
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

/// Escape workflow-command data (`%`, CR, LF).
fn gh_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow-command property (data escapes plus `:` and `,`).
fn gh_property(text: &str) -> String {
    gh_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn gh_level(level: Option<RiskLevel>) -> &'static str {
    match level {
        Some(RiskLevel::High | RiskLevel::Critical) => "error",
        Some(RiskLevel::Medium) | None => "warning",
        Some(RiskLevel::Low) => "notice",
    }
}

/// One sentence per finding for annotations and SARIF.
fn finding_message(f: &Finding) -> String {
    let mut parts = vec![format!(
        "{} {} ({}).",
        f.pin.kind.label(),
        f.pin.requirement,
        level_text(f)
    )];
    for v in &f.targets {
        let mut bits = Vec::new();
        bits.extend(
            v.breaks
                .iter()
                .map(|b| format!("breaks {}", blocker_text(b))),
        );
        bits.extend(
            v.excludes
                .iter()
                .map(|h| format!("excludes {}", held_text(h))),
        );
        if let Some(plan) = &v.safer {
            bits.push(format!("safer: {}: {}", plan.title, changes_text(plan)));
        }
        if let Some(note) = &v.note {
            bits.push(format!("not judged: {note}"));
        }
        if !bits.is_empty() {
            parts.push(format!("On {}: {}.", v.target, bits.join("; ")));
        }
    }
    if let Some(release) = release_text(f) {
        parts.push(format!("{release}."));
    }
    let links: Vec<String> = finding_links(f)
        .into_iter()
        .filter(|(label, _)| label != "the line")
        .map(|(label, url)| format!("{label} {url}"))
        .collect();
    if !links.is_empty() {
        parts.push(format!("Links: {}", links.join(" , ")));
    }
    parts.join(" ")
}

/// GitHub workflow annotations, one per finding, on its line.
pub(crate) fn github(review: &Review) -> String {
    let mut out = String::new();
    for u in &review.unresolved {
        let _ = writeln!(
            out,
            "::{} file={},title={}::{}",
            if u.at_base || u.missing.is_some() {
                "warning"
            } else {
                "error"
            },
            gh_property(&u.file),
            gh_property(match u.missing {
                Some(_) => "planner: not judged",
                None => "planner: does not resolve",
            }),
            gh_data(&unresolved_text(u))
        );
    }
    for f in &review.findings {
        let title = format!("planner: {} ({})", f.pin.requirement, level_text(f));
        let _ = writeln!(
            out,
            "::{} file={},line={},title={}::{}",
            gh_level(f.level),
            gh_property(&f.pin.file),
            f.pin.line,
            gh_property(&title),
            gh_data(&finding_message(f))
        );
    }
    for p in &review.problems {
        let line = p.line.map(|l| format!(",line={l}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "::warning file={}{line},title={}::{}",
            gh_property(&p.file),
            gh_property("planner: not reviewed"),
            gh_data(&p.message)
        );
    }
    out
}

/// The SARIF rules: (id, name, description).
const RULES: [(&str, &str, &str); 4] = [
    (
        "planner/breaks-requirement",
        "PinBreaksRequirement",
        "A forced or pinned version violates another package's declared requirement.",
    ),
    (
        "planner/pinned-version",
        "PinnedVersion",
        "A forced or pinned version was added or changed; it breaks nothing declared.",
    ),
    (
        "planner/unparsable-file",
        "UnparsableFile",
        "A dependency file could not be parsed, so its pins were not reviewed.",
    ),
    (
        "planner/unresolvable",
        "Unresolvable",
        "The requirements a file declares do not resolve together with the head's pins.",
    ),
];

fn sarif_level(level: Option<RiskLevel>) -> &'static str {
    match level {
        Some(RiskLevel::High | RiskLevel::Critical) => "error",
        Some(RiskLevel::Medium) | None => "warning",
        Some(RiskLevel::Low) => "note",
    }
}

/// SARIF 2.1.0.
pub(crate) fn sarif(review: &Review) -> Result<String, super::json::JsonError> {
    let rules: Vec<serde_json::Value> = RULES
        .iter()
        .map(|(id, name, text)| {
            json!({
                "id": id,
                "name": name,
                "shortDescription": {"text": text},
                "fullDescription": {"text": text},
                "help": {"text": "See docs/review.md: each finding carries the requirement it breaks, its risk and the safer plan."},
                "defaultConfiguration": {"level": "warning"}
            })
        })
        .collect();
    let location = |file: &str, line: Option<usize>| {
        let mut physical = json!({"artifactLocation": {"uri": file, "uriBaseId": "%SRCROOT%"}});
        if let Some(line) = line {
            physical["region"] = json!({"startLine": line});
        }
        json!([{"physicalLocation": physical}])
    };
    let mut results = Vec::new();
    for f in &review.findings {
        let rule = usize::from(!f.breaks());
        results.push(json!({
            "ruleId": RULES[rule].0,
            "ruleIndex": rule,
            "level": sarif_level(f.level),
            "message": {"text": finding_message(f)},
            "locations": location(&f.pin.file, Some(f.pin.line)),
            "partialFingerprints": {"plannerPin/v1": format!("{}:{}:{}", f.pin.file, f.pin.kind.label(), f.pin.requirement)},
            "properties": {"risk-level": f.level, "risk-score": f.score, "kind": f.pin.kind}
        }));
    }
    for u in &review.unresolved {
        results.push(json!({
            "ruleId": RULES[3].0,
            "ruleIndex": 3,
            "level": if u.at_base || u.missing.is_some() { "warning" } else { "error" },
            "message": {"text": unresolved_text(u)},
            "locations": location(&u.file, None)
        }));
    }
    for p in &review.problems {
        results.push(json!({
            "ruleId": RULES[2].0,
            "ruleIndex": 2,
            "level": "warning",
            "message": {"text": p.message},
            "locations": location(&p.file, p.line)
        }));
    }
    let doc = json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "planner",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the repository's top level"}}},
            "properties": {"base": review.base.commit, "head": review.head.commit},
            "results": results
        }]
    });
    super::json::to_json(&doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_plans::{n, v};
    use crate::plan::{BreakKind, Reason};

    /// A dependent moving along with `werkzeug 2.0.3`, from `from` to `to`.
    fn along(from: &str, to: &str) -> Change {
        let mut change = crate::plan::test_plans::move_blockers().changes[0].clone();
        change.name = n("flask-login");
        change.from = Some(v(from));
        change.to = Some(v(to));
        change.reasons = vec![Reason::MovesWith {
            package: n("werkzeug"),
            version: v("2.0.3"),
            how: BreakKind::Import,
        }];
        change
    }

    /// A dependent that moves forward is required at its new release or later; one that moves
    /// back at its new release or earlier, never with a `>=` that the newer lock satisfies.
    #[test]
    fn a_dependent_moving_along_is_bounded_in_its_direction() {
        let step = |from, to| moves_along_step("pyproject.toml", &along(from, to)).unwrap();
        assert!(
            step("0.5.0", "0.6.3")
                .starts_with("in pyproject.toml, require `flask-login>=0.6.3` (now 0.5.0;"),
        );
        assert!(
            step("0.6.3", "0.5.0")
                .starts_with("in pyproject.toml, require `flask-login<=0.5.0` (now 0.6.3;"),
        );
        let mut blocker = along("0.6.3", "0.5.0");
        blocker.reasons.clear();
        assert_eq!(moves_along_step("pyproject.toml", &blocker), None);
    }
}
