//! `planner review` output, one file per format: text for a terminal ([`text`]), JSON
//! (`docs/review.md`, [`json`]), markdown (a pull-request comment: a table worst first,
//! collapsible details, the safer plan's steps and commands, [`markdown`]), GitHub workflow
//! annotations on the changed lines ([`github`]) and SARIF 2.1.0 for code scanning ([`sarif`]).
//! What every format says of a finding (its level, breaks, links, the safer plan's steps from
//! [`crate::review::advice`]) is worded here.
//!
//! Every value from the reviewed files is untrusted: it is escaped for the terminal, for
//! markdown cells, for workflow-command properties and data, and serialized by serde in JSON
//! and SARIF; commands are built from the parsed plan by `render::commands`.

mod github;
mod json;
mod markdown;
mod sarif;
mod text;

pub(crate) use github::github;
pub(crate) use json::json;
pub(crate) use markdown::markdown;
pub(crate) use sarif::sarif;
pub(crate) use text::text;

use super::markdown::{cell, code};
use super::text::movement;
use crate::plan::{Blocker, Change, Plan, Unchecked, said_once};
use crate::review::advice::Step;
use crate::review::analysis::TargetVerdict;
use crate::review::pins::ProjectTool;
use crate::review::{Finding, MeasuredPlan, Review, Unresolved};

/// How many releases the text, markdown and annotations name of those a verdict was judged
/// without (their files could not be read); JSON and SARIF list every one.
const UNCHECKED_SHOWN: usize = 5;

/// The releases a verdict was judged without that its text shows: the first [`UNCHECKED_SHOWN`]
/// by name and version, and how many more there are (said by [`more_unchecked`]).
fn unchecked_shown(v: &TargetVerdict) -> (Vec<&Unchecked>, usize) {
    let mut sorted: Vec<&Unchecked> = v.unchecked.iter().collect();
    sorted.sort_by(|a, b| (&a.name, &a.version).cmp(&(&b.name, &b.version)));
    let more = sorted.len().saturating_sub(UNCHECKED_SHOWN);
    sorted.truncate(UNCHECKED_SHOWN);
    (sorted, more)
}

/// The rest of the releases [`unchecked_shown`] leaves out: `and 13 more (--format json lists
/// each)`.
fn more_unchecked(more: usize) -> String {
    format!("and {more} more (--format json lists each)")
}

/// `judged without the files of torch 2.15.0, triton 3.9.0 (could not be read)`: every release
/// (`every`), else the first few, then `and 13 more (--format json lists each)`.
fn judged_without_files(v: &TargetVerdict, every: bool) -> String {
    let (shown, more) = if every {
        (v.unchecked.iter().collect(), 0)
    } else {
        unchecked_shown(v)
    };
    let releases: Vec<String> = (shown.iter())
        .map(|u| format!("{} {}", u.name, u.version))
        .collect();
    let rest = if more > 0 {
        format!(" {}", more_unchecked(more))
    } else {
        String::new()
    };
    format!(
        "judged without the files of {} (could not be read){rest}",
        releases.join(", ")
    )
}

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

/// Each requirement of `blockers` in words, said once for its dependent ([`said_once`]): the
/// marker, which held on the target, dropped, and the extras it came through named (`torch
/// 2.11.0 requires triton==3.6.0`, not `triton==3.6.0 ; platform_system == 'Linux'`). The JSON
/// keeps the declared requirement.
fn blockers_text(blockers: &[Blocker]) -> Vec<String> {
    let keyed: Vec<_> = (blockers.iter())
        .map(|b| ((&b.dependent, &b.dependent_version), &b.requirement))
        .collect();
    (blockers.iter().zip(said_once(&keyed)))
        .filter_map(|(b, words)| {
            Some(format!(
                "{} {} requires {}",
                b.dependent, b.dependent_version, words?
            ))
        })
        .collect()
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

/// A run of a sentence: plain words, or a code span (a requirement, a command).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Words.
    Plain(String),
    /// What a reader types or finds in a file, as written.
    Code(String),
}

use Piece::{Code, Plain};

/// A step of the safer plan, in words.
fn step_words(step: &Step) -> Vec<Piece> {
    match step {
        Step::KeepInTable {
            pyproject,
            requirement,
            table,
        } => vec![
            Plain(format!("in {pyproject}, keep ")),
            Code(requirement.to_string()),
            Plain(format!(
                " in {} (once the blockers go back it breaks nothing, and they do not require it)",
                table.label()
            )),
        ],
        Step::DropFromTable {
            pyproject,
            requirement,
            table,
        } => vec![
            Plain(format!("in {pyproject}, drop ")),
            Code(requirement.to_string()),
            Plain(format!(" from {}", table.label())),
        ],
        Step::RequireRelease {
            file,
            name,
            version,
            now,
        } => vec![
            Plain(format!("in {file}, require ")),
            Code(format!("{name}=={version}")),
            Plain(format!(" where it names {name} (now {now})")),
        ],
        Step::BoundMovingAlong {
            file,
            name,
            bound,
            to,
            from,
            with: (package, version),
        } => vec![
            Plain(format!("in {file}, require ")),
            Code(format!("{name}{}{to}", bound.operator())),
            Plain(format!(
                " (now {from}; it breaks under {package} {version}, and "
            )),
            Code("uv lock".to_string()),
            Plain(" keeps a locked version it is not told to move)".to_string()),
        ],
        Step::RequireInFile {
            file,
            name,
            version,
            declared,
        } => vec![
            Plain(format!("in {file}, require ")),
            Code(format!("{name}=={version}")),
            Plain(" where it declares ".to_string()),
            Code(declared.to_string()),
        ],
        Step::Lock { tool, moves } => lock_words(*tool, moves),
    }
}

/// The lock step in the project's own tool, and what else the lock moves.
fn lock_words(tool: Option<ProjectTool>, moves: &[Change]) -> Vec<Piece> {
    let lock_then = |lock: &str, install: &str| {
        vec![
            Plain("run ".to_string()),
            Code(lock.to_string()),
            Plain(", then ".to_string()),
            Code(install.to_string()),
        ]
    };
    let mut words = match tool {
        Some(ProjectTool::Uv) => lock_then("uv lock", "uv sync"),
        Some(ProjectTool::Poetry) => lock_then("poetry lock", "poetry install"),
        Some(ProjectTool::Pdm) => lock_then("pdm lock", "pdm install"),
        None => vec![
            Plain("install the project again with ".to_string()),
            Code("pip install .".to_string()),
        ],
    };
    if !moves.is_empty() {
        let moves: Vec<String> = moves
            .iter()
            .map(|c| format!("{} {}", c.name, movement(c)))
            .collect();
        words.push(Plain(format!(" (it moves {})", moves.join(", "))));
    }
    words
}

/// A step in plain text, its code spans in backticks.
fn step_text(step: &Step) -> String {
    step_words(step)
        .into_iter()
        .map(|piece| match piece {
            Plain(words) => words,
            Code(code) => format!("`{code}`"),
        })
        .collect()
}

/// A step in markdown: its words escaped, its code spans as code spans.
fn step_markdown(step: &Step) -> String {
    step_words(step)
        .into_iter()
        .map(|piece| match piece {
            Plain(words) => cell(&words),
            Code(text) => code(&text),
        })
        .collect()
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

/// One sentence per finding for annotations and SARIF; `every`: name every release it was
/// judged without (SARIF, data), else the first few ([`unchecked_shown`]).
fn finding_message(f: &Finding, every: bool) -> String {
    let mut parts = vec![format!(
        "{} {} ({}).",
        f.pin.kind.label(),
        f.pin.requirement,
        level_text(f)
    )];
    for v in &f.targets {
        let mut bits = Vec::new();
        bits.extend(
            blockers_text(&v.breaks)
                .into_iter()
                .map(|b| format!("breaks {b}")),
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
        if !v.unchecked.is_empty() {
            bits.push(judged_without_files(v, every));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_plans::{n, v};

    /// A review of `nvidia-cublas==13.4.1.3` in `constraints.txt` that breaks cuda-toolkit
    /// 13.0.2's `nvidia-cublas==13.1.0.3.*`, declared once per extra (cublas, cusolver) with a
    /// platform marker, and narrows nvidia-cudnn-cu13's `nvidia-cublas ; platform_system ==
    /// 'Linux'`.
    fn cublas_review() -> Review {
        use crate::review::pins::{Context, Pin, PinKind};
        use crate::review::{RevisionInfo, analysis::TargetVerdict};
        let r = |s: &str| crate::metadata::parse_requirement(s).unwrap();
        let blocker = |dependent: &str, version: &str, requirement: &str| Blocker {
            dependent: n(dependent),
            dependent_version: v(version),
            requirement: r(requirement),
        };
        let cublas = |extra: &str| {
            let marker = format!("sys_platform == 'linux' and extra == '{extra}'");
            blocker(
                "cuda-toolkit",
                "13.0.2",
                &format!("nvidia-cublas==13.1.0.3.* ; {marker}"),
            )
        };
        let verdict = TargetVerdict {
            target: "Python 3.12 x86_64-manylinux_2_28".to_string(),
            breaks: vec![cublas("cublas"), cublas("cusolver")],
            narrows: vec![blocker(
                "nvidia-cudnn-cu13",
                "9.19.0.56",
                "nvidia-cublas ; platform_system == 'Linux'",
            )],
            excludes: Vec::new(),
            moves: false,
            risk: None,
            safer: None,
            pinned: None,
            tried: None,
            note: None,
            missing_data: false,
            unchecked: Vec::new(),
            judged_from_breaks: false,
            remark: None,
        };
        let revision = |name: &str| RevisionInfo {
            name: name.to_string(),
            commit: "0".repeat(40),
        };
        Review {
            schema: crate::review::REVIEW_SCHEMA,
            base: revision("main"),
            head: revision("pr"),
            targets: vec![verdict.target.clone()],
            findings: vec![Finding {
                pin: Pin {
                    file: "constraints.txt".to_string(),
                    line: 2,
                    kind: PinKind::Constraint,
                    requirement: r("nvidia-cublas==13.4.1.3"),
                    flags: Vec::new(),
                    context: Context::default(),
                },
                was: None,
                level: None,
                score: None,
                targets: vec![verdict],
                also: Vec::new(),
                release: None,
                permalink: None,
            }],
            removed: Vec::new(),
            unresolved: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// Every format says a broken or narrowed requirement without its marker (it held on the
    /// target; `breaks: torch 2.11.0 requires triton==3.6.0 ; platform_system == 'Linux'` was
    /// the review of the test repository's triton pin), the extras it came through named, and a
    /// dependent's requirement declared once per extra once; JSON keeps each as declared.
    #[test]
    fn breaks_drop_the_marker_and_name_the_extras_once() {
        let review = cublas_review();
        let breaks = "cuda-toolkit 13.0.2 requires nvidia-cublas==13.1.0.3.*, through its extras \
                      cublas, cusolver";
        let narrows = "nvidia-cudnn-cu13 9.19.0.56 requires nvidia-cublas";
        let text = text(&review);
        assert!(
            text.contains(&format!("    breaks: {breaks}\n    narrows: {narrows}\n")),
            "{text}"
        );
        assert_eq!(text.matches("breaks:").count(), 1, "{text}");
        let md = markdown(&review);
        assert!(
            md.contains(&format!("| constraint | {breaks} | - |")),
            "{md}"
        );
        assert!(
            md.contains(&format!("- breaks: {breaks}\n- narrows: {narrows}\n")),
            "{md}"
        );
        assert_eq!(md.matches("- breaks:").count(), 1, "{md}");
        let annotations = github(&review);
        assert!(
            annotations.contains(&format!(
                "On Python 3.12 x86_64-manylinux_2_28: breaks {breaks}."
            )),
            "{annotations}"
        );
        let sarif = sarif(&review).unwrap();
        assert!(sarif.contains(&format!("breaks {breaks}.")), "{sarif}");
        let json = json(&review).unwrap();
        for extra in ["cublas", "cusolver"] {
            let declared = format!(
                "nvidia-cublas==13.1.0.3.* ; sys_platform == 'linux' and extra == '{extra}'"
            );
            assert!(json.contains(&declared), "{json}");
        }
    }

    /// A dependent that moves forward is required at its new release or later; one that moves
    /// back at its new release or earlier.
    #[test]
    fn a_dependent_moving_along_is_worded_with_its_bound() {
        let step = |bound, from: &str, to: &str| {
            step_text(&Step::BoundMovingAlong {
                file: "pyproject.toml".to_string(),
                name: n("flask-login"),
                bound,
                to: v(to),
                from: v(from),
                with: (n("werkzeug"), v("2.0.3")),
            })
        };
        assert_eq!(
            step(crate::review::advice::Bound::AtLeast, "0.5.0", "0.6.3"),
            "in pyproject.toml, require `flask-login>=0.6.3` (now 0.5.0; it breaks under werkzeug \
             2.0.3, and `uv lock` keeps a locked version it is not told to move)"
        );
        assert!(
            step(crate::review::advice::Bound::AtMost, "0.6.3", "0.5.0")
                .starts_with("in pyproject.toml, require `flask-login<=0.5.0` (now 0.6.3;"),
        );
    }

    /// Markdown shows a step's code spans as code, not as escaped backticks; a value holding a
    /// backtick cannot close its span early, and its words are still escaped.
    #[test]
    fn a_markdown_step_keeps_its_code_spans() {
        let lock = Step::Lock {
            tool: Some(ProjectTool::Uv),
            moves: Vec::new(),
        };
        assert_eq!(step_markdown(&lock), "run `uv lock`, then `uv sync`");
        assert_eq!(step_text(&lock), "run `uv lock`, then `uv sync`");
        let bound = Step::BoundMovingAlong {
            file: "a|b/pyproject.toml".to_string(),
            name: n("flask-login"),
            bound: crate::review::advice::Bound::AtLeast,
            to: v("0.6.3"),
            from: v("0.5.0"),
            with: (n("werkzeug"), v("2.0.3")),
        };
        assert!(
            step_markdown(&bound)
                .starts_with("in a\\|b/pyproject.toml, require `flask-login>=0.6.3` (now")
        );
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(code("a<b\nc"), "`a<b c`");
    }
}
