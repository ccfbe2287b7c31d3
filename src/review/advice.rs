//! The safer plan of a finding in the terms of the reviewed files: which declarations to drop,
//! keep or raise, and the step that installs the result.
//!
//! In: a [`Finding`], the safer [`Plan`] of one of its targets and that target's verdict. Out:
//! [`SaferSteps`], typed [`Step`]s: a pin of a project's own files (`pyproject.toml`, `uv.lock`)
//! gets edits of those files and the project's lock step; a pin of a file pip installs
//! (requirements, constraints, install lines) gets the edits of that file the plan needs, and
//! the plan's pip commands do the rest. `render::review` words them for each output format.

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::Finding;
use super::analysis::TargetVerdict;
use super::pins::{Pin, PinKind, ProjectTool};
use crate::metadata::requirement;
use crate::plan::{Change, Plan, PlanKind, Reason};

/// The safer plan's steps, by the kind of file the pin is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SaferSteps {
    /// A pin of a project's own files: edits of them, the lock step last.
    Project(Vec<Step>),
    /// A pin of a file pip installs: the edits the file needs (often none); the plan's pip
    /// commands install the rest.
    File(Vec<Step>),
}

impl SaferSteps {
    /// The steps, whatever the file.
    pub(crate) fn steps(&self) -> &[Step] {
        match self {
            SaferSteps::Project(steps) | SaferSteps::File(steps) => steps,
        }
    }
}

/// One step of a safer plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Keep the pin in its uv table: once the blockers go back it breaks nothing, and they do
    /// not require it.
    KeepInTable {
        /// The `pyproject.toml`.
        pyproject: String,
        /// The pin.
        requirement: Requirement,
        /// Its table.
        table: UvTable,
    },
    /// Drop the pin from its uv table.
    DropFromTable {
        /// The `pyproject.toml`.
        pyproject: String,
        /// The pin.
        requirement: Requirement,
        /// Its table.
        table: UvTable,
    },
    /// Require a dependent the pin breaks at its planned release, where the file names it.
    RequireRelease {
        /// The file that declares the dependent (a workspace member, or the project).
        file: String,
        /// The dependent.
        name: PackageName,
        /// Its planned release.
        version: Version,
        /// Its release now.
        now: Version,
    },
    /// Bound a dependent that moves along with another dist's planned release, in the
    /// direction it moves (a `>=` on a move back would let `uv lock` keep the newer locked
    /// release that breaks).
    BoundMovingAlong {
        /// The file that declares the dependent.
        file: String,
        /// The dependent.
        name: PackageName,
        /// Forward (`>=`) or back (`<=`).
        bound: Bound,
        /// Its planned release.
        to: Version,
        /// Its release now.
        from: Version,
        /// The dist and release it moves along with.
        with: (PackageName, Version),
    },
    /// Require a dist at its planned release where the pip-installed file declares it with a
    /// version the plan rules out.
    RequireInFile {
        /// The file.
        file: String,
        /// The dist.
        name: PackageName,
        /// Its planned release.
        version: Version,
        /// What the file declares.
        declared: Requirement,
    },
    /// Lock and install the project with its own tool.
    Lock {
        /// The tool (`None`: no lock file, the project is installed again with pip).
        tool: Option<ProjectTool>,
        /// The other changes the lock makes (not a blocker's, not one moving along).
        moves: Vec<Change>,
    },
}

/// The uv table an override or constraint pin is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UvTable {
    /// `[tool.uv] override-dependencies`.
    Override,
    /// `[tool.uv] constraint-dependencies`.
    Constraint,
}

impl UvTable {
    /// `[tool.uv] override-dependencies`.
    pub(crate) fn label(self) -> &'static str {
        match self {
            UvTable::Override => "[tool.uv] override-dependencies",
            UvTable::Constraint => "[tool.uv] constraint-dependencies",
        }
    }
}

/// The direction of a bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// `>=`: the dependent moves forward.
    AtLeast,
    /// `<=`: the dependent moves back.
    AtMost,
}

impl Bound {
    /// `>=` or `<=`.
    pub(crate) fn operator(self) -> &'static str {
        match self {
            Bound::AtLeast => ">=",
            Bound::AtMost => "<=",
        }
    }
}

/// The steps of the safer plan `plan` of `finding` on the target of `verdict`.
pub(crate) fn safer_steps(finding: &Finding, plan: &Plan, verdict: &TargetVerdict) -> SaferSteps {
    match project_steps(finding, plan, verdict) {
        Some(steps) => SaferSteps::Project(steps),
        None => SaferSteps::File(file_steps(finding, plan)),
    }
}

/// The safer plan in the terms of a project's own files, for a pin of `pyproject.toml` or
/// `uv.lock`: which declarations to drop or raise, then the project's lock step (`None` for
/// other files, whose safer plan is its pip commands).
fn project_steps(finding: &Finding, plan: &Plan, verdict: &TargetVerdict) -> Option<Vec<Step>> {
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
        PinKind::UvOverride => Some(UvTable::Override),
        PinKind::UvConstraint => Some(UvTable::Constraint),
        _ => None,
    };
    // An override that breaks no declared requirement (the safer plan only moves dependents
    // along) still delivers the pin: it stays. So does one whose blockers go back: the older
    // releases accept the pin without requiring it, so without it `uv lock` keeps the lock's.
    if let Some(table) = table
        && !verdict.breaks.is_empty()
    {
        let (pyproject, requirement) = (pyproject.clone(), pin.requirement.clone());
        steps.push(if plan.kind == PlanKind::DowngradeBlockers {
            Step::KeepInTable {
                pyproject,
                requirement,
                table,
            }
        } else {
            Step::DropFromTable {
                pyproject,
                requirement,
                table,
            }
        });
    }
    for blocker in &verdict.breaks {
        let Some(change) = plan.changes.iter().find(|c| c.name == blocker.dependent) else {
            continue;
        };
        if let Some(to) = &change.to {
            // In a workspace, the member that declares it.
            let declaring = pin.context.declared_in(&change.name, &pyproject);
            steps.push(Step::RequireRelease {
                file: declaring.to_string(),
                name: change.name.clone(),
                version: to.clone(),
                now: blocker.dependent_version.clone(),
            });
        }
    }
    steps.extend(plan.changes.iter().filter_map(|change| {
        moves_along_step(pin.context.declared_in(&change.name, &pyproject), change)
    }));
    let moves: Vec<Change> = plan
        .changes
        .iter()
        .filter(|c| !verdict.breaks.iter().any(|b| b.dependent == c.name))
        .filter(|c| moves_with(c).is_none())
        .cloned()
        .collect();
    steps.push(Step::Lock {
        tool: lock_tool(pin),
        moves,
    });
    Some(steps)
}

/// The tool of a project's last step: uv for its own tables and lock, else the tool whose lock
/// file is beside the `pyproject.toml` (none: the project is installed again as it is, which
/// resolves its requirements then).
fn lock_tool(pin: &Pin) -> Option<ProjectTool> {
    let uv_own = matches!(
        pin.kind,
        PinKind::UvOverride | PinKind::UvConstraint | PinKind::UvLock
    );
    if uv_own {
        Some(ProjectTool::Uv)
    } else {
        pin.context.tool
    }
}

/// For a file pip installs (requirements, constraints, install lines): where the file itself
/// declares a dist the safer plan moves with a version it rules out (`flask==3.1.3` beside the
/// pin, when the plan takes flask to 2.1.3), require the planned version there; else the file
/// keeps the dist where the pin breaks it and does not resolve. Empty when nothing it declares
/// stands in the way.
fn file_steps(finding: &Finding, plan: &Plan) -> Vec<Step> {
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
            Some(Step::RequireInFile {
                file: context.root.clone(),
                name: change.name.clone(),
                version: to.clone(),
                declared: declared.clone(),
            })
        })
        .collect()
}

/// The step that requires a dependent moving along with another dist's planned release at its
/// new release: `>=` when it goes forward, `<=` when it goes back (a `>=` would let `uv lock`
/// keep the newer locked release that breaks); `None` for other changes.
fn moves_along_step(pyproject: &str, change: &Change) -> Option<Step> {
    let (Some(from), Some(to), Some(with)) = (&change.from, &change.to, moves_with(change)) else {
        return None;
    };
    let bound = if to < from {
        Bound::AtMost
    } else {
        Bound::AtLeast
    };
    Some(Step::BoundMovingAlong {
        file: pyproject.to_string(),
        name: change.name.clone(),
        bound,
        to: to.clone(),
        from: from.clone(),
        with,
    })
}

/// The dist and release a change moves along with (`numpy 2.2.0`), if it does.
pub(crate) fn moves_with(change: &Change) -> Option<(PackageName, Version)> {
    change.reasons.iter().find_map(|r| match r {
        Reason::MovesWith {
            package, version, ..
        } => Some((package.clone(), version.clone())),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::BreakKind;
    use crate::plan::test_plans::{n, v};

    /// A dependent moving along with `werkzeug 2.0.3`, from `from` to `to`.
    pub(crate) fn along(from: &str, to: &str) -> Change {
        let mut change = crate::plan::test_plans::move_blockers().changes[0].clone();
        change.name = n("flask-login");
        change.from = Some(v(from));
        change.to = Some(v(to));
        change.reasons = vec![Reason::MovesWith {
            package: n("werkzeug"),
            version: v("2.0.3"),
            how: BreakKind::Import,
            file: None,
            line: None,
            module: None,
            name: None,
        }];
        change
    }

    /// A dependent that moves forward is required at its new release or later; one that moves
    /// back at its new release or earlier, never with a `>=` that the newer lock satisfies.
    #[test]
    fn a_dependent_moving_along_is_bounded_in_its_direction() {
        let bound = |from, to| match moves_along_step("pyproject.toml", &along(from, to)) {
            Some(Step::BoundMovingAlong { bound, .. }) => bound,
            other => panic!("{other:?}"),
        };
        assert_eq!(bound("0.5.0", "0.6.3"), Bound::AtLeast);
        assert_eq!(bound("0.6.3", "0.5.0"), Bound::AtMost);
        let mut blocker = along("0.6.3", "0.5.0");
        blocker.reasons.clear();
        assert_eq!(moves_along_step("pyproject.toml", &blocker), None);
    }
}
