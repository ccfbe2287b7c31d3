//! `planner bisect`'s report: the changes since the good state, every step, the culprits and
//! the `propose` that fixes them.
//!
//! In: the [`Change`]s and the [`Outcome`]. Out: a [`BisectReport`] (the JSON document
//! `planner-bisect/1`, documented in `docs/bisect-json.md`), its text and markdown, and the
//! one-line progress note of a step. Outside text (paths, test output) shown on a terminal goes
//! through [`escape`]; markdown cells through [`cell`].

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;

use crate::bisect::{BISECT_SCHEMA, Change, Culprit, Outcome, Step, StepResult, Verdict};
use crate::diff::ChangeKind;
use crate::render::safe::quote;
use crate::terminal::{command_line, escape};

/// The `planner-bisect/1` document.
#[derive(Debug, Serialize)]
pub(crate) struct BisectReport {
    /// Always [`BISECT_SCHEMA`].
    pub schema: &'static str,
    /// The venv bisected (as it is now).
    pub environment: PathBuf,
    /// Where the good state came from (`--good FILE`, or `--since WHEN` and its cut-off).
    pub good: String,
    /// With `--since`: what the reconstruction assumed, one line per dist installed since.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub assumed: Vec<String>,
    /// The check every step ran.
    pub check: CheckInfo,
    /// Every change between the good state and now.
    pub changes: Vec<Change>,
    /// The verdict, culprits and steps.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Runs one change at a time would take in the worst case (the good state, then each
    /// change reverted alone).
    pub one_at_a_time: usize,
    /// The fix: what to run for the culprits.
    pub fix: Option<Fix>,
}

/// The check.
#[derive(Debug, Serialize)]
pub(crate) struct CheckInfo {
    /// The command lines (`--test`, and `--verify`'s script run).
    pub tests: Vec<String>,
    /// `--verify`.
    pub verify: bool,
    /// `--retries`.
    pub retries: u32,
    /// `--timeout`, seconds.
    pub timeout: Option<u64>,
}

/// What to run for the culprits.
#[derive(Debug, Serialize)]
pub(crate) struct Fix {
    /// `planner propose` with each culprit held at its good version: the plan that holds it
    /// back and moves what it needs (`None` when no culprit had a good version).
    pub propose: Option<String>,
    /// Culprits that were not installed in the good state: remove them (or what pulled them
    /// in).
    pub remove: Vec<String>,
    /// Culprits edited in place since (`name==version`): reinstall the release to undo the edit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reinstall: Vec<String>,
}

impl BisectReport {
    /// The report; `fix` is derived from the culprits.
    pub(crate) fn new(
        environment: PathBuf,
        good: String,
        check: CheckInfo,
        changes: Vec<Change>,
        outcome: Outcome,
        index_url: Option<&str>,
    ) -> BisectReport {
        let one_at_a_time = changes.iter().filter(|c| c.fixed.is_none()).count() + 1;
        let fix =
            (outcome.verdict == Verdict::Found).then(|| fix(&outcome, &environment, index_url));
        BisectReport {
            schema: BISECT_SCHEMA,
            environment,
            good,
            assumed: Vec::new(),
            check,
            changes,
            outcome,
            one_at_a_time,
            fix,
        }
    }
}

fn fix(outcome: &Outcome, environment: &std::path::Path, index_url: Option<&str>) -> Fix {
    let edited = |c: &&Culprit| c.kind == ChangeKind::EditedInPlace;
    let pins: Vec<String> = outcome
        .culprits
        .iter()
        .filter(|c| !edited(c))
        .filter_map(|c| c.from.as_ref().map(|v| quote(&format!("{}=={v}", c.name))))
        .collect();
    let propose = (!pins.is_empty()).then(|| {
        let mut line = format!(
            "planner propose {} --venv {}",
            pins.join(" "),
            quote(&environment.display().to_string())
        );
        if let Some(url) = index_url {
            let _ = write!(line, " --index-url {}", quote(url));
        }
        line
    });
    Fix {
        propose,
        remove: outcome
            .culprits
            .iter()
            .filter(|c| c.from.is_none())
            .map(|c| c.name.clone())
            .collect(),
        reinstall: outcome
            .culprits
            .iter()
            .filter(edited)
            .filter_map(|c| c.to.as_ref().map(|v| format!("{}=={v}", c.name)))
            .collect(),
    }
}

/// `step 3: reverted a, b (+c): fail in 4.2s`: the progress note of one step.
pub(crate) fn step_line(step: &Step) -> String {
    let mut line = format!("step {}: {}", step.step, reverted_text(step));
    let _ = write!(
        line,
        ": {} in {:.1}s",
        result_word(step.result),
        step.seconds
    );
    if let Some(detail) = &step.detail {
        let _ = write!(line, " ({})", escape(detail));
    }
    line
}

fn reverted_text(step: &Step) -> String {
    let mut text = if step.reverted.is_empty() {
        "nothing reverted (as now)".to_string()
    } else {
        format!("reverted {}", step.reverted.join(", "))
    };
    if !step.kept.is_empty() {
        let _ = write!(
            text,
            " (kept {}: what the applied changes need)",
            step.kept.join(", ")
        );
    }
    text
}

fn result_word(result: StepResult) -> &'static str {
    match result {
        StepResult::Pass => "pass",
        StepResult::Fail => "FAIL",
        StepResult::Timeout => "TIMEOUT",
        StepResult::Skipped => "skipped",
    }
}

/// `name from -> to` (`(absent)` for a missing side); `name version edited in place: FILE`.
fn change_text(c: &Culprit) -> String {
    let side = |v: &Option<String>| v.clone().unwrap_or_else(|| "(absent)".to_string());
    if c.kind == ChangeKind::EditedInPlace {
        return format!(
            "{} {} edited in place: {}",
            c.name,
            side(&c.to),
            c.files.join(", ")
        );
    }
    format!("{} {} -> {}", c.name, side(&c.from), side(&c.to))
}

/// The verdict in one sentence.
fn headline(report: &BisectReport) -> String {
    let o = &report.outcome;
    let culprits: Vec<String> = o.culprits.iter().map(change_text).collect();
    let needed = if o.needed.is_empty() {
        String::new()
    } else {
        format!(
            " (and what it needs, which comes with it as one unit: {})",
            o.needed
                .iter()
                .map(change_text)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    match o.verdict {
        Verdict::Found if culprits.len() == 1 => format!(
            "The failure comes with {} alone{needed}: with only that change applied to the good \
             state the check fails, with nothing applied it passes.",
            culprits[0]
        ),
        Verdict::Found => format!(
            "The failure comes with {} together{needed}: with only these applied to the good \
             state the check fails{}.",
            culprits.join(" and "),
            if o.minimal {
                ", and with any one of them left out it passes"
            } else {
                " (not every smaller set could be built and run: they may not all be needed)"
            }
        ),
        Verdict::GoodFails if !report.assumed.is_empty() => {
            "The check fails in the reconstructed good state too. --since can only guess each \
             dist's earlier version (the newest older release uploaded before the cut-off; see \
             `assumed`): an upgrade that jumped several releases is not undone by it. Pass the \
             real good state with --good (a snapshot or `pip inspect` output) if you have one. \
             Stopped."
                .to_string()
        }
        Verdict::GoodFails => "The check fails in the good state too: the changes since then are \
             not what broke it (or the check fails for another reason). Stopped."
            .to_string(),
        Verdict::GoodUnknown => {
            "The good state could not be built, so nothing can be compared with it (see step 1)."
                .to_string()
        }
        Verdict::CurrentPasses => {
            "The check passes with every change applied (the environment as it is now): there is \
             no failure to bisect."
                .to_string()
        }
        Verdict::Inconclusive => {
            "No set of changes was isolated: states that could not be built, or a flaky check \
             (try --retries), stood in the way."
                .to_string()
        }
        Verdict::NoChanges => {
            "Nothing that can be reverted changed since the good state.".to_string()
        }
    }
}

/// The report for a terminal.
pub(crate) fn text(report: &BisectReport) -> String {
    let mut out = String::new();
    let o = &report.outcome;
    let _ = writeln!(
        out,
        "Bisect of {} against {}",
        escape(&report.environment.display().to_string()),
        escape(&report.good)
    );
    for line in &report.assumed {
        let _ = writeln!(out, "  assumed: {}", escape(line));
    }
    let _ = writeln!(
        out,
        "\n{} change(s) since the good state:",
        report.changes.len()
    );
    for change in &report.changes {
        let _ = write!(out, "  {}", escape(&change.label()));
        if let Some(why) = &change.fixed {
            let _ = write!(out, "  (kept in every step: {})", escape(why));
        }
        if !change.overrides.is_empty() {
            let _ = write!(
                out,
                "  (a forced override, against: {}; installed that way, --no-deps, in every step that applies it)",
                escape(&change.overrides.join("; "))
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "\nSteps:");
    for step in &o.steps {
        let _ = writeln!(out, "  {}", step_line(step));
    }
    let _ = writeln!(
        out,
        "\n{} check run(s); one change at a time would take up to {}.",
        o.runs, report.one_at_a_time
    );
    let _ = writeln!(out, "\n{}", headline(report));
    for c in o.culprits.iter().filter(|c| !c.overrides.is_empty()) {
        let _ = writeln!(
            out,
            "{} is a forced override: it was installed against {}.",
            escape(&change_text(c)),
            escape(&c.overrides.join("; "))
        );
    }
    if let Some(fix) = &report.fix {
        if let Some(propose) = &fix.propose {
            let _ = writeln!(
                out,
                "\nTo hold it back and see what has to move with it:\n{}",
                command_line(2, &escape(propose))
            );
        }
        for spec in &fix.reinstall {
            let command = format!("pip install --force-reinstall --no-deps {}", quote(spec));
            let _ = writeln!(
                out,
                "\n{} was edited in place: reinstall the release to undo it:\n{}",
                escape(spec),
                command_line(2, &escape(&command))
            );
        }
        for name in &fix.remove {
            let _ = writeln!(
                out,
                "\n{name} was not installed in the good state: uninstall it, or hold back what \
                 pulled it in."
            );
        }
    }
    out
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// The report as markdown (an incident ticket, a pull request).
pub(crate) fn markdown(report: &BisectReport) -> String {
    let mut out = String::new();
    let o = &report.outcome;
    let _ = writeln!(out, "### planner bisect: {}\n", verdict_word(o.verdict));
    let _ = writeln!(out, "{}\n", headline(report));
    let _ = writeln!(
        out,
        "Environment `{}`, good state {}, check `{}`.\n",
        cell(&report.environment.display().to_string()),
        cell(&report.good),
        cell(&report.check.tests.join("` and `"))
    );
    let _ = writeln!(out, "| change | from | to | |\n|---|---|---|---|");
    for c in &report.changes {
        let culprit = o.culprits.iter().any(|k| k.name == c.name.as_ref());
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(c.name.as_ref()),
            cell(c.from.as_deref().unwrap_or("(absent)")),
            cell(c.to.as_deref().unwrap_or("(absent)")),
            if culprit {
                "**culprit**".to_string()
            } else {
                c.fixed.as_deref().map(cell).unwrap_or_default()
            }
        );
    }
    let _ = writeln!(
        out,
        "\n| step | reverted | result | seconds |\n|---|---|---|---|"
    );
    for step in &o.steps {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.1} |",
            step.step,
            cell(&reverted_text(step)),
            cell(&match &step.detail {
                Some(d) => format!("{} ({d})", result_word(step.result)),
                None => result_word(step.result).to_string(),
            }),
            step.seconds
        );
    }
    let _ = writeln!(
        out,
        "\n{} check run(s); one change at a time would take up to {}.",
        o.runs, report.one_at_a_time
    );
    if let Some(propose) = report.fix.as_ref().and_then(|f| f.propose.as_ref()) {
        let _ = writeln!(out, "\nFix: `{}`", propose.replace('`', "'"));
    }
    out
}

fn verdict_word(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Found => "culprit found",
        Verdict::GoodFails => "the good state fails too",
        Verdict::GoodUnknown => "the good state could not be built",
        Verdict::CurrentPasses => "nothing fails now",
        Verdict::Inconclusive => "inconclusive",
        Verdict::NoChanges => "no changes",
    }
}
