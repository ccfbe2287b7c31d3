//! Requirements and constraints files read from a revision, with `-r` / `-c` includes followed
//! inside the same revision (paths relative to the including file).

use pep508_rs::Requirement;

use super::pins::{Context, ParseProblem, Pin, PinKind};
use crate::metadata::requirement::{has_specifier, is_exact};
use crate::solve::requirements_file::{Entry, lines};

/// Nesting deeper than this is refused.
const MAX_DEPTH: usize = 16;

/// Reads files of one revision by path (from the top level); `None` when absent.
pub(crate) trait Tree {
    /// The text of `path`, or `None` when the revision has no such file.
    fn text(&self, path: &str) -> Option<String>;
}

/// A [`Tree`] of texts by path, for the tests of the readers of a tree.
#[cfg(test)]
pub(crate) struct MemTree(pub(crate) std::collections::BTreeMap<&'static str, &'static str>);

#[cfg(test)]
impl Tree for MemTree {
    fn text(&self, path: &str) -> Option<String> {
        self.0.get(path).map(|t| (*t).to_string())
    }
}

/// What one root file (and everything it includes) pins.
#[derive(Debug, Default)]
pub(crate) struct FileSet {
    /// Pins and constraints, each with file and line.
    pub pins: Vec<Pin>,
    /// The environment the root declares: every requirement reached, every versioned constraint
    /// (`-c` files, or the root itself when it is a constraints file).
    pub context: Context,
    /// Every file read (the root and its includes).
    pub files: Vec<String>,
}

/// Read `root` and its includes. `constraint`: the root itself is a constraints file.
pub(crate) fn read(
    tree: &dyn Tree,
    root: &str,
    constraint: bool,
    problems: &mut Vec<ParseProblem>,
) -> FileSet {
    let mut set = FileSet::default();
    set.context.root = root.to_string();
    set.context.resolves_whole = true;
    let mut stack = Vec::new();
    walk(tree, root, constraint, None, &mut stack, &mut set, problems);
    let context = set.context.clone();
    for pin in &mut set.pins {
        pin.context = context.clone();
    }
    set
}

/// Read `requirements` and `constraints` files as one environment (`pip install -r A -c B`),
/// anchored at `root` (the install line that names them).
pub(crate) fn read_together(
    tree: &dyn Tree,
    root: &str,
    files: &[(String, bool)],
    problems: &mut Vec<ParseProblem>,
) -> FileSet {
    let mut set = FileSet::default();
    set.context.root = root.to_string();
    set.context.resolves_whole = true;
    for (file, constraint) in files {
        let mut stack = Vec::new();
        walk(
            tree,
            file,
            *constraint,
            None,
            &mut stack,
            &mut set,
            problems,
        );
    }
    let context = set.context.clone();
    for pin in &mut set.pins {
        pin.context = context.clone();
    }
    set
}

fn walk(
    tree: &dyn Tree,
    file: &str,
    constraint: bool,
    from: Option<(&str, usize)>,
    stack: &mut Vec<String>,
    set: &mut FileSet,
    problems: &mut Vec<ParseProblem>,
) {
    let Some(text) = tree.text(file) else {
        let (file, line) = from.map_or((file, None), |(f, l)| (f, Some(l)));
        problems.push(ParseProblem {
            file: file.to_string(),
            line,
            message: "includes a file that is not in this revision".to_string(),
        });
        return;
    };
    if !set.files.iter().any(|f| f == file) {
        set.files.push(file.to_string());
    }
    stack.push(file.to_string());
    for entry in lines(&text) {
        match entry {
            Err((line, message)) => problems.push(ParseProblem {
                file: file.to_string(),
                line: Some(line),
                message: message.to_string(),
            }),
            Ok(Entry::Requirement {
                line, requirement, ..
            }) => add_requirement(set, file, line, requirement, constraint),
            // An editable project and file-wide options pin nothing.
            Ok(Entry::Editable { .. } | Entry::Option { .. }) => {}
            Ok(Entry::Include {
                line,
                constraint: nested_constraint,
                value,
            }) => {
                let nested = join(file, &value);
                if stack.contains(&nested) || stack.len() >= MAX_DEPTH {
                    problems.push(ParseProblem {
                        file: file.to_string(),
                        line: Some(line),
                        message: format!(
                            "`{value}` includes itself (directly or through other files)"
                        ),
                    });
                    continue;
                }
                walk(
                    tree,
                    &nested,
                    constraint || nested_constraint,
                    Some((file, line)),
                    stack,
                    set,
                    problems,
                );
            }
        }
    }
    stack.pop();
}

/// One requirement line: into the environment (as a requirement, or as a constraint when the
/// file is one), and a pin when it pins (constraints: any version; requirements: exact, or a
/// range).
fn add_requirement(
    set: &mut FileSet,
    file: &str,
    line: usize,
    requirement: Requirement,
    constraint: bool,
) {
    let kind = if constraint {
        has_specifier(&requirement).then_some(PinKind::Constraint)
    } else if is_exact(&requirement) {
        Some(PinKind::RequirementsPin)
    } else {
        has_specifier(&requirement).then_some(PinKind::Range)
    };
    if !constraint {
        set.context.requirements.push(requirement.clone());
    } else if kind.is_some() {
        set.context.constraints.push(requirement.clone());
    }
    if let Some(kind) = kind {
        set.pins.push(Pin {
            file: file.to_string(),
            line,
            kind,
            requirement,
            flags: Vec::new(),
            context: Context::default(),
        });
    }
}

/// `value` relative to the folder of `file`, both repository paths; `..` and `.` resolved.
pub(crate) fn join(file: &str, value: &str) -> String {
    let mut parts: Vec<&str> = if value.starts_with('/') {
        Vec::new()
    } else {
        let mut dir: Vec<&str> = file.split('/').collect();
        dir.pop();
        dir
    };
    for part in value.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn follows_includes_inside_the_revision() {
        let tree = MemTree(BTreeMap::from([
            (
                "app/requirements.txt",
                "torch==2.11.0\nnumpy>=2\n-c ../pins/gpu.txt\n-r extra.txt\n",
            ),
            ("pins/gpu.txt", "# forced\ntriton==3.7.0\n"),
            ("app/extra.txt", "filelock==4.2.12\n"),
        ]));
        let mut problems = Vec::new();
        let set = read(&tree, "app/requirements.txt", false, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        let found: Vec<(String, usize, PinKind)> = set
            .pins
            .iter()
            .map(|p| (p.file.clone(), p.line, p.kind))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "app/requirements.txt".to_string(),
                    1,
                    PinKind::RequirementsPin
                ),
                ("app/requirements.txt".to_string(), 2, PinKind::Range),
                ("pins/gpu.txt".to_string(), 2, PinKind::Constraint),
                ("app/extra.txt".to_string(), 1, PinKind::RequirementsPin),
            ]
        );
        // The constraint resolves with the requirements of the file that reaches it.
        let context = &set.pins[2].context;
        let requirements: Vec<String> = context
            .requirements
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            requirements,
            ["torch==2.11.0", "numpy>=2", "filelock==4.2.12"]
        );
        assert_eq!(context.constraints[0].to_string(), "triton==3.7.0");
        assert_eq!(context.root, "app/requirements.txt");
    }

    #[test]
    fn bad_lines_and_missing_includes_are_reported_with_their_line() {
        let tree = MemTree(BTreeMap::from([
            ("requirements.txt", "torch==2.11.0\n-c missing.txt\n"),
            ("constraints.txt", "ok==1\nnot a requirement!\n"),
        ]));
        let mut problems = Vec::new();
        read(&tree, "requirements.txt", false, &mut problems);
        read(&tree, "constraints.txt", true, &mut problems);
        assert_eq!(problems[0].file, "requirements.txt");
        assert_eq!(problems[0].line, Some(2));
        assert_eq!(problems[1].file, "constraints.txt");
        assert_eq!(problems[1].line, Some(2));
    }
}
