//! `planner try`'s report: the plan, the copy, what was installed, the comparison, the tests.
//!
//! In: the plan, the [`VenvCopy`] and the [`TrialOutcome`]. Out: a [`TryReport`] (the JSON
//! document `planner-try/1`, documented in `docs/try.md`), and its text and markdown. Every
//! outside string (errors, test output, paths) shown on a terminal goes through
//! [`crate::terminal::escape`]; markdown cells through [`cell`].

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use pep440_rs::Version;
use pep508_rs::PackageName;

use super::commands;
use crate::inventory::{DirectUrl, NotReinstallable};
use crate::plan::{InstallSteps, Plan, PlanKind, Proposal, Unchecked};
use crate::risk::RiskLevel;
use crate::terminal::escape;
use crate::trial::attempt::{InstallCommands, InstallTarget, TrialText};
use crate::trial::{
    BaselineMode, CopyStats, FreshStats, Ran, TRY_SCHEMA, TestRun, TrialOutcome, Tried, VenvCopy,
    Verdict,
};

/// The `planner-try/1` document.
#[derive(Debug, Serialize)]
pub(crate) struct TryReport<'a> {
    /// Always [`TRY_SCHEMA`].
    pub schema: &'static str,
    /// The plan tried.
    pub plan: PlanInfo<'a>,
    /// The venv the copy was made of.
    pub environment: PathBuf,
    /// The trial, its copy and the original's check.
    #[serde(flatten)]
    pub tried: Tried,
    /// `-v`: the text and markdown list every module the plan removed (else one line per dist;
    /// the JSON always lists each).
    #[serde(skip)]
    pub verbose: bool,
}

/// The plan, as the report names it.
#[derive(Debug, Serialize)]
pub(crate) struct PlanInfo<'a> {
    /// The plan file.
    pub file: PathBuf,
    /// Its kind.
    pub kind: PlanKind,
    /// Its title.
    pub title: &'a str,
    /// The predicted risk score.
    pub risk: u8,
    /// Its level.
    pub level: RiskLevel,
    /// How many dists it changes.
    pub changes: usize,
    /// The static checks the plan made without their data (the plan's `unchecked`): a clean
    /// trial measures what they would have predicted, they did not.
    #[serde(skip_serializing_if = "<[Unchecked]>::is_empty")]
    pub unchecked: &'a [Unchecked],
}

impl<'a> TryReport<'a> {
    /// The report of one trial.
    pub(crate) fn new(plan: &'a Plan, file: &Path, original: &Path, tried: Tried) -> TryReport<'a> {
        TryReport {
            schema: TRY_SCHEMA,
            plan: PlanInfo {
                file: file.to_path_buf(),
                kind: plan.kind,
                title: &plan.title,
                risk: plan.risk.score,
                level: plan.risk.level,
                changes: plan.changes.len(),
                unchecked: &plan.unchecked,
            },
            environment: original.to_path_buf(),
            tried,
            verbose: false,
        }
    }

    /// See [`Tried::summary`].
    pub(crate) fn summary(&self) -> String {
        self.tried.summary()
    }

    fn verdict_word(&self) -> &'static str {
        verdict_word(&self.tried)
    }
}

/// `clean`, `REGRESSED`, `NOT TRIED`, or that the original was written.
pub(crate) fn verdict_word(tried: &Tried) -> &'static str {
    if !tried.original.changed.is_empty() {
        return "THE ORIGINAL WAS WRITTEN";
    }
    match tried.outcome.verdict {
        Verdict::Clean => "clean",
        Verdict::Regressed => "REGRESSED",
        Verdict::NotTried => "NOT TRIED",
    }
}

/// The line `try` prints (stderr) once the copy exists.
pub(crate) fn copy_line(copy: &VenvCopy) -> String {
    let s = &copy.stats;
    if let Some(fresh) = &s.fresh {
        return format!(
            "{}, from {}, in {} in {:.1}s: {}",
            fresh_words(fresh),
            escape(&fresh.base_python.display().to_string()),
            escape(&copy.root.display().to_string()),
            s.seconds,
            escape(&fresh.why)
        );
    }
    let how = match s.method {
        crate::trial::CopyMethod::Reflink => "copy-on-write clones".to_string(),
        crate::trial::CopyMethod::Hardlink => {
            format!("{} hard links, {} real copies", s.linked, s.copied)
        }
        crate::trial::CopyMethod::Copy | crate::trial::CopyMethod::Fresh => {
            "real copies (no hard link possible there)".to_string()
        }
    };
    format!(
        "copied {} to {}: {} files ({how}, {:.1} MB written) in {:.2}s",
        escape(&copy.original.display().to_string()),
        escape(&copy.root.display().to_string()),
        s.files,
        s.bytes_copied as f64 / 1e6,
        s.seconds
    )
}

/// "built fresh: 41 dists from exact pins, 1 copied as it is (app), 1 reinstalled from its
/// direct_url.json (lib @ file:///...)".
fn fresh_words(fresh: &FreshStats) -> String {
    let mut out = format!("built fresh: {} dists from exact pins", fresh.pinned);
    if !fresh.copied.is_empty() {
        let _ = write!(
            out,
            ", {} copied as they are ({})",
            fresh.copied.len(),
            escape(&fresh.copied.join(", "))
        );
    }
    if !fresh.reinstalled.is_empty() {
        let _ = write!(
            out,
            ", {} reinstalled from direct_url.json ({})",
            fresh.reinstalled.len(),
            escape(&fresh.reinstalled.join(", "))
        );
    }
    out
}

/// The report's line about the copy (text), or the fresh venv that stands in for it.
fn copy_summary(c: &CopyStats) -> String {
    match &c.fresh {
        Some(fresh) => format!(
            "no copy: {} in {:.2}s ({})",
            fresh_words(fresh),
            c.seconds,
            escape(&fresh.why)
        ),
        None => format!(
            "{:?}, {} files ({} linked, {} copied) in {:.2}s",
            c.method, c.files, c.linked, c.copied, c.seconds
        ),
    }
}

/// Where the baseline ran and of what, one line; `None` before any check ran.
fn baseline_line(o: &TrialOutcome) -> Option<String> {
    let second = o.baseline_copy.as_ref().map(copy_summary);
    match (&o.baseline, o.baseline_mode) {
        (None, BaselineMode::Needed) => o.verify.map(|_| {
            "baseline: none needed, every check and test passed after the plan (one that passes \
             cannot have regressed)"
                .to_string()
        }),
        (None, _) => None,
        (Some(b), BaselineMode::Needed) => Some(format!(
            "baseline in a second copy ({}), of only the {} check(s) and {} test(s) that did not \
             pass after the plan: {} failing before the plan",
            second.unwrap_or_default(),
            b.checks,
            o.tests.iter().filter(|t| t.before.is_some()).count(),
            b.failed
        )),
        (Some(b), mode) => Some(format!(
            "baseline {}: {} checks, {} failing before the plan",
            match second {
                Some(c) if mode == BaselineMode::Beside => {
                    format!("in a second copy, beside the install ({c})")
                }
                _ => "in the copy".to_string(),
            },
            b.checks,
            b.failed
        )),
    }
}

/// A test's status before the plan; "not needed" when it passed after it and the baseline took
/// only what did not.
fn before_text(test: &TestRun) -> String {
    test.before
        .as_ref()
        .map_or("not needed".to_string(), Ran::status_text)
}

/// The report for a terminal.
pub(crate) fn text(report: &TryReport<'_>) -> String {
    let mut out = String::new();
    let o = &report.tried.outcome;
    let _ = writeln!(
        out,
        "try {} ({}), risk {}/100 {}, in {} {}",
        report.plan.kind,
        escape(report.plan.title),
        report.plan.risk,
        report.plan.level,
        if report.tried.copy.fresh.is_some() {
            "a fresh venv standing in for"
        } else {
            "a copy of"
        },
        escape(&report.environment.display().to_string())
    );
    let _ = writeln!(out, "  copy: {}", copy_summary(&report.tried.copy));
    out.push_str(&unchecked_text(report.plan.unchecked));
    if let Some(note) = &o.installer_note {
        let _ = writeln!(out, "  installer: {}", escape(note));
    }
    if let Some(line) = baseline_line(o) {
        let _ = writeln!(out, "  {line}");
        let _ = writeln!(out, "  compile caches: {}", caches_words(o.compile_caches));
    }
    for step in &o.steps {
        let _ = writeln!(
            out,
            "  {} {}: {} ({:.1}s)",
            installer_word(o.installer),
            escape(&step_label(&step.argv)),
            step.ran.status_text(),
            step.ran.seconds
        );
    }
    for test in &o.tests {
        let after = test
            .after
            .as_ref()
            .map_or("not run".to_string(), |a| a.status_text());
        let _ = writeln!(
            out,
            "  test `{}`: before {}, after {}",
            escape(&test.command),
            before_text(test),
            after
        );
    }
    if !o.regressions.is_empty() {
        out.push_str("regressions (passed before the plan, fail after it):\n");
        for r in &o.regressions {
            let _ = writeln!(out, "  FAIL {}", escape(r));
        }
    }
    if !o.removed.is_empty() {
        out.push_str("removed by the plan (not regressions: nothing left imports them):\n");
        for line in removed_lines(&o.removed, report.verbose) {
            let _ = writeln!(out, "  gone {}", escape(&line));
        }
    }
    let before: Vec<_> = o
        .failed
        .iter()
        .filter(|f| f.regression == Some(false))
        .collect();
    if !before.is_empty() {
        let _ = writeln!(
            out,
            "failing before too (not blamed on the plan): {}",
            before
                .iter()
                .map(|f| escape(&f.check).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if o.verdict == Verdict::NotTried
        && let Some(step) = o.steps.last().filter(|s| !s.ran.ok())
    {
        out.push_str("  the failed step's output ends:\n");
        for line in step.ran.tail.lines() {
            let _ = writeln!(out, "    {}", escape(line));
        }
    }
    let _ = writeln!(
        out,
        "tried: {}: {}",
        escape(&report.summary()),
        report.verdict_word()
    );
    out.push_str(&original_line(report));
    out
}

/// The plan's static checks that went without their data, one line each (nothing when none).
fn unchecked_text(unchecked: &[Unchecked]) -> String {
    let mut out = String::new();
    if !unchecked.is_empty() {
        out.push_str("  the plan's static checks without data (the trial measures instead):\n");
        for entry in unchecked {
            let _ = writeln!(out, "    {}", escape(&entry.sentence()));
        }
    }
    out
}

/// How the trial's compile caches were kept, one line.
fn caches_words(caches: crate::verify::caches::CacheMode) -> &'static str {
    match caches {
        crate::verify::caches::CacheMode::Private => {
            "private: the baseline, the run after the plan and each test compiled into fresh empty \
             folders of their own (--warm-caches keeps yours)"
        }
        warm => warm.describe(),
    }
}

fn original_line(report: &TryReport<'_>) -> String {
    let env = escape(&report.environment.display().to_string()).into_owned();
    if report.tried.copy.fresh.is_some() {
        format!("the original {env} was only read (nothing of it is linked into a fresh venv)\n")
    } else if report.tried.original.changed.is_empty() {
        format!(
            "the original {env} was not written ({} hard-linked files checked)\n",
            report.tried.original.checked
        )
    } else {
        let mut out = format!(
            "WARNING: {} file(s) of the original {env} changed through a hard link:\n",
            report.tried.original.changed.len()
        );
        for path in report.tried.original.changed.iter().take(20) {
            let _ = writeln!(out, "  {}", escape(&path.display().to_string()));
        }
        out
    }
}

fn installer_word(installer: crate::trial::Installer) -> &'static str {
    match installer {
        crate::trial::Installer::Uv => "uv",
        crate::trial::Installer::Pip => "pip",
    }
}

/// `install --force-reinstall --no-deps sympy==1.12`: a step's verb, the flags that say what
/// kind of step it is, and its requirements (the interpreter and file paths left out).
fn step_label(argv: &[String]) -> String {
    let verb = argv
        .iter()
        .find(|t| *t == "install" || *t == "uninstall")
        .cloned()
        .unwrap_or_default();
    let flags = argv.iter().filter(|t| {
        ["--force-reinstall", "--no-deps", "--reinstall-package"].contains(&t.as_str())
    });
    let requirements = argv.iter().skip_while(|t| *t != "--").skip(1);
    std::iter::once(&verb)
        .chain(flags)
        .chain(requirements)
        .cloned()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A markdown table cell: pipes and newlines cannot end it.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// The report as markdown (a pull request comment or a ticket).
pub(crate) fn markdown(report: &TryReport<'_>) -> String {
    let mut out = String::new();
    let o = &report.tried.outcome;
    let _ = writeln!(
        out,
        "### planner try: {} ({})\n",
        cell(report.plan.title),
        report.verdict_word()
    );
    let _ = writeln!(out, "| | |\n|---|---|");
    let _ = writeln!(
        out,
        "| plan | {} (`{}`), risk {}/100 {} |",
        report.plan.kind,
        cell(&report.plan.file.display().to_string()),
        report.plan.risk,
        report.plan.level
    );
    let _ = writeln!(out, "| measured | {} |", cell(&report.summary()));
    let _ = writeln!(
        out,
        "| copy | {} |",
        cell(&copy_summary(&report.tried.copy))
    );
    let _ = writeln!(
        out,
        "| installer | {}{} |",
        installer_word(o.installer),
        o.installer_note
            .as_deref()
            .map(|n| format!(": {}", cell(n)))
            .unwrap_or_default()
    );
    let _ = writeln!(
        out,
        "| original | {} |",
        if report.tried.original.changed.is_empty() {
            format!(
                "not written ({} linked files checked)",
                report.tried.original.checked
            )
        } else {
            format!(
                "**{} file(s) changed**",
                report.tried.original.changed.len()
            )
        }
    );
    if !report.plan.unchecked.is_empty() {
        out.push_str(
            "\n**The plan's static checks without data** (the trial measures instead):\n\n",
        );
        for entry in report.plan.unchecked {
            let _ = writeln!(out, "- {}", entry.sentence().replace('`', "'"));
        }
    }
    if !o.regressions.is_empty() {
        out.push_str("\n**Regressions** (passed before the plan, fail after it):\n\n");
        for r in &o.regressions {
            let _ = writeln!(out, "- `{}`", r.replace('`', "'"));
        }
    }
    if !o.removed.is_empty() {
        out.push_str(
            "\n**Removed by the plan** (not regressions: nothing left in the environment imports \
             them):\n\n",
        );
        for line in removed_lines(&o.removed, report.verbose) {
            let _ = writeln!(out, "- `{}`", line.replace('`', "'"));
        }
    }
    if !o.tests.is_empty() {
        out.push_str("\n| test | before | after |\n|---|---|---|\n");
        for t in &o.tests {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                cell(&t.command.replace('`', "'")),
                before_text(t),
                t.after
                    .as_ref()
                    .map_or("not run".into(), |a| a.status_text())
            );
        }
    }
    out
}

/// `propose --try`: the plan the measurements recommend, the lowest risk that measured clean
/// (ties: the proposal's order). `None` when none did.
pub(crate) fn recommended(proposal: &Proposal, tried: &[Option<Tried>]) -> Option<usize> {
    proposal
        .plans
        .iter()
        .zip(tried)
        .enumerate()
        .filter(|(_, (_, t))| t.as_ref().is_some_and(Tried::clean))
        .min_by_key(|(i, (plan, _))| (plan.risk.score, *i))
        .map(|(i, _)| i)
}

/// `propose --try --format json`: the proposal with `tried` in each plan tried (the trial
/// without the whole verify report) and `tried_recommendation` (1-based, or null).
pub(crate) fn proposal_json(
    proposal: &Proposal,
    tried: &[Option<Tried>],
) -> Result<serde_json::Value, serde_json::Error> {
    let mut value = serde_json::to_value(proposal)?;
    if let Some(plans) = value.get_mut("plans").and_then(|p| p.as_array_mut()) {
        for (plan, one) in plans.iter_mut().zip(tried) {
            if let (Some(object), Some(one)) = (plan.as_object_mut(), one) {
                let mut one = one.clone();
                one.outcome.report = None;
                let mut measured = serde_json::to_value(&one)?;
                measured["summary"] = one.summary().into();
                object.insert("tried".into(), measured);
            }
        }
    }
    value["tried_recommendation"] = recommended(proposal, tried).map(|i| i + 1).into();
    Ok(value)
}

/// The lines for the modules a plan removed (each `import:MOD (DIST): why`): with `verbose`,
/// one per module; else one per dist, a dist with one module as its line, one with more as
/// `DIST: N modules its new release does not ship ...`, naming the first three (scipy 1.18.1 ->
/// 1.17.1 removes about 50 modules of `scipy._external`; 50 lines said one thing).
pub(crate) fn removed_lines(removed: &[String], verbose: bool) -> Vec<String> {
    if verbose {
        return removed.to_vec();
    }
    let mut by_dist: Vec<(&str, Vec<&String>)> = Vec::new();
    for line in removed {
        let dist = line
            .split_once(" (")
            .and_then(|(_, rest)| rest.split_once("): "))
            .map_or("", |(dist, _)| dist);
        match by_dist.iter_mut().find(|(d, _)| *d == dist) {
            Some((_, lines)) => lines.push(line),
            None => by_dist.push((dist, vec![line])),
        }
    }
    by_dist
        .into_iter()
        .map(|(dist, lines)| {
            if lines.len() == 1 {
                return lines[0].clone();
            }
            let modules: Vec<String> = lines
                .iter()
                .take(3)
                .map(|l| {
                    let check = l.split_once(" (").map_or(l.as_str(), |(c, _)| c);
                    format!("`{}`", check.trim_start_matches("import:"))
                })
                .collect();
            let more = lines.len().saturating_sub(3);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!(
                "{dist}: {} modules its new release does not ship and nothing left in the \
                 environment imports: {}{more} (-v or --format json lists each)",
                lines.len(),
                modules.join(", ")
            )
        })
        .collect()
}

/// `propose --try`: each plan's risk beside what it measured, and the recommendation.
pub(crate) fn proposal_text(proposal: &Proposal, tried: &[Option<Tried>]) -> String {
    let mut out =
        String::from("\nMeasured in throw-away copies of the environment (planner try):\n");
    for (i, (plan, one)) in proposal.plans.iter().zip(tried).enumerate() {
        let measured = match one {
            Some(one) => format!("{}: {}", verdict_word(one), one.summary()),
            None => "not tried (--try-top)".to_string(),
        };
        let _ = writeln!(
            out,
            "  Plan {} {:<16} risk {:>3}/100 {:<8}  tried: {}",
            i + 1,
            plan.kind.to_string(),
            plan.risk.score,
            plan.risk.level.to_string(),
            escape(&measured)
        );
        for r in one
            .iter()
            .flat_map(|o| o.outcome.regressions.iter().take(5))
        {
            let _ = writeln!(out, "      FAIL {}", escape(r));
        }
        let removed = one
            .iter()
            .flat_map(|o| removed_lines(&o.outcome.removed, false));
        for r in removed.take(5) {
            let _ = writeln!(
                out,
                "      gone {} (removed by the plan, not a regression)",
                escape(&r)
            );
        }
        if let Some(note) = one.as_ref().and_then(|o| o.outcome.installer_note.as_ref()) {
            let _ = writeln!(out, "      installer: {}", escape(note));
        }
    }
    match recommended(proposal, tried) {
        Some(i) => {
            let _ = writeln!(
                out,
                "Recommended after trying: Plan {} ({}), the lowest-risk plan that measured clean.",
                i + 1,
                proposal.plans[i].kind
            );
        }
        None => out.push_str("No plan tried measured clean: none is recommended.\n"),
    }
    out
}

/// `propose --try --format markdown`: the same as a table.
pub(crate) fn proposal_markdown(proposal: &Proposal, tried: &[Option<Tried>]) -> String {
    let mut out = String::from(
        "\n### Measured in throw-away copies (planner try)\n\n| plan | risk | tried |\n|---|---|---|\n",
    );
    for (i, (plan, one)) in proposal.plans.iter().zip(tried).enumerate() {
        let measured = match one {
            Some(one) => format!("{}: {}", verdict_word(one), one.summary()),
            None => "not tried".to_string(),
        };
        let _ = writeln!(
            out,
            "| {} {} | {}/100 {} | {} |",
            i + 1,
            plan.kind,
            plan.risk.score,
            plan.risk.level,
            cell(&measured)
        );
    }
    match recommended(proposal, tried) {
        Some(i) => {
            let _ = writeln!(
                out,
                "\n**Recommended after trying:** plan {} ({}), the lowest-risk plan that measured clean.",
                i + 1,
                proposal.plans[i].kind
            );
        }
        None => out.push_str("\n**No plan tried measured clean.**\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::removed_lines;

    /// scipy 1.18.1 -> 1.17.1 under scikit-learn 1.9.1 (a real `try`): 51 modules removed, one
    /// line for scipy; a dist with one removed module keeps its line; `-v` lists each.
    #[test]
    fn removed_modules_are_one_line_per_dist_unless_verbose() {
        let scipy = |module: &str| {
            format!(
                "import:{module} (scipy): scipy 1.17.1 does not ship `{module}` (`scipy._external` \
                 is gone), and nothing left in the environment imports it"
            )
        };
        let mut removed: Vec<String> = [
            "scipy._external.array_api_compat._internal",
            "scipy._external.array_api_compat.common._helpers",
            "scipy._external.array_api_compat.common._linalg",
            "scipy._external.array_api_compat.numpy",
        ]
        .iter()
        .map(|m| scipy(m))
        .collect();
        let pkg = "import:pkg.sub.app (pkg): pkg 1.0 does not ship `pkg.sub.app`, and nothing left \
                   in the environment imports it";
        removed.push(pkg.to_string());
        assert_eq!(
            removed_lines(&removed, false),
            [
                "scipy: 4 modules its new release does not ship and nothing left in the \
                 environment imports: `scipy._external.array_api_compat._internal`, \
                 `scipy._external.array_api_compat.common._helpers`, \
                 `scipy._external.array_api_compat.common._linalg` and 1 more (-v or --format \
                 json lists each)",
                pkg,
            ]
        );
        assert_eq!(removed_lines(&removed, true), removed);
    }
}

/// The render stage's side of a trial ([`TrialText`]): the pip and uv commands a copy gets from
/// a plan's install steps ([`commands::steps_files`]), checked pins and reinstall requirements
/// for a fresh venv, and the line saying how the copy was made ([`copy_line`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TrialWriter;

impl TrialText for TrialWriter {
    fn copy_line(&self, copy: &VenvCopy) -> String {
        copy_line(copy)
    }

    fn install(
        &self,
        plan: &Plan,
        steps: &InstallSteps,
        target: &InstallTarget,
    ) -> miette::Result<InstallCommands> {
        let files = commands::steps_files(
            plan,
            steps,
            &commands::CommandOptions {
                python: target.python.clone(),
                files_dir: Some(target.files_dir.clone()),
                constraints: true,
                pip_outside: target.pip_outside,
                ..commands::CommandOptions::default()
            },
        )?;
        Ok(InstallCommands {
            pip: files.pip,
            uv: files.uv,
            constraints: files.constraints,
            overrides: files.overrides,
        })
    }

    fn pin(&self, name: &PackageName, version: &Version) -> miette::Result<String> {
        Ok(super::safe::pin(name, version)?)
    }

    fn reinstall(
        &self,
        name: &PackageName,
        version: &Version,
        source: Option<&DirectUrl>,
    ) -> miette::Result<Result<String, NotReinstallable>> {
        Ok(super::rollback::requirement(name, version, source, true)?)
    }
}
