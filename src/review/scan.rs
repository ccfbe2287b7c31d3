//! One revision's forced and pinned versions: which files are read, and how.
//!
//! In: a [`Repo`] and a [`Revision`]. Out: every [`Pin`] with file and line, and every file that
//! could not be parsed ([`ParseProblem`]); one bad file never stops the others.

use super::git::{GitError, Repo, Revision};
use std::collections::BTreeSet;

use super::pins::{Context, ParseProblem, Pin, PinKind};
use super::requirements::{self, Tree};
use super::{ci, lock, pyproject, shell};

/// What one revision pins.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// Every pin, in file order.
    pub pins: Vec<Pin>,
    /// Files (or lines) that could not be parsed.
    pub problems: Vec<ParseProblem>,
    /// Every environment a file declares as a whole (requirements roots, pyproject, locks).
    pub contexts: Vec<Context>,
}

/// What kind of file a path is, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    PyProject,
    Requirements,
    Constraints,
    UvLock,
    Pylock,
    Dockerfile,
    Script,
    CiYaml,
    Makefile,
}

fn classify(path: &str) -> Option<FileKind> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    let in_requirements_dir = path.contains("requirements/");
    Some(match lower.as_str() {
        "pyproject.toml" => FileKind::PyProject,
        "uv.lock" => FileKind::UvLock,
        "pylock.toml" => FileKind::Pylock,
        n if n.starts_with("pylock.") && n.ends_with(".toml") => FileKind::Pylock,
        n if n.starts_with("constraints") && n.ends_with(".txt") => FileKind::Constraints,
        n if n.starts_with("requirements") && (n.ends_with(".txt") || n.ends_with(".in")) => {
            FileKind::Requirements
        }
        n if in_requirements_dir && n.ends_with(".txt") => FileKind::Requirements,
        n if n == "dockerfile"
            || n == "containerfile"
            || n.starts_with("dockerfile.")
            || n.ends_with(".dockerfile") =>
        {
            FileKind::Dockerfile
        }
        n if n.ends_with(".sh") || n.ends_with(".bash") => FileKind::Script,
        ".gitlab-ci.yml" | ".gitlab-ci.yaml" => FileKind::CiYaml,
        n if path.starts_with(".github/workflows/")
            && (n.ends_with(".yml") || n.ends_with(".yaml")) =>
        {
            FileKind::CiYaml
        }
        "makefile" | "gnumakefile" => FileKind::Makefile,
        n if n.ends_with(".mk") => FileKind::Makefile,
        _ => return None,
    })
}

/// Extensionless files read to look for a shell shebang, at most (a bound on `git` reads in a
/// large repository).
const MAX_SHEBANG_CANDIDATES: usize = 200;

/// An extensionless file outside dot-folders whose name is not a known non-script.
fn may_be_script(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let known = [
        "license",
        "licence",
        "readme",
        "copying",
        "authors",
        "notice",
        "owners",
        "codeowners",
        "changelog",
        "version",
        "makefile",
    ];
    !name.contains('.')
        && !path.split('/').any(|part| part.starts_with('.'))
        && !known.contains(&name.to_ascii_lowercase().as_str())
}

/// `#!/bin/sh`, `#!/usr/bin/env bash`, ... on the first line.
fn is_shell_script(text: &str) -> bool {
    let Some(first) = text.lines().next().and_then(|l| l.strip_prefix("#!")) else {
        return false;
    };
    let mut words = first.split_whitespace();
    let program = words.next().unwrap_or("");
    let program = if program.ends_with("/env") {
        words.find(|w| !w.starts_with('-')).unwrap_or("")
    } else {
        program
    };
    let base = program.rsplit('/').next().unwrap_or(program);
    matches!(base, "sh" | "bash" | "dash" | "zsh" | "ksh" | "ash")
}

struct RevTree<'a> {
    repo: &'a Repo,
    rev: &'a Revision,
}

impl Tree for RevTree<'_> {
    fn text(&self, path: &str) -> Option<String> {
        let bytes = self.repo.read(self.rev, path).ok()??;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Scan one revision. Constraints files are read last: one that a requirements file (or an
/// install line) reaches is judged with what reaches it; one nothing reaches goes with the
/// `requirements.txt` beside it, when there is one.
pub(crate) fn scan(repo: &Repo, rev: &Revision) -> Result<Scan, GitError> {
    let tree = RevTree { repo, rev };
    let mut scan = Scan::default();
    let mut reached = BTreeSet::new();
    let mut constraints = Vec::new();
    let mut candidates = 0;
    for path in repo.files(rev)? {
        let kind = match classify(&path) {
            Some(kind) => kind,
            None if may_be_script(&path) && candidates < MAX_SHEBANG_CANDIDATES => {
                candidates += 1;
                let Some(text) = file_text(repo, rev, &path, &mut Scan::default())? else {
                    continue;
                };
                if is_shell_script(&text) {
                    scan_file(
                        &tree,
                        &path,
                        FileKind::Script,
                        &text,
                        &mut scan,
                        &mut reached,
                    );
                }
                continue;
            }
            None => continue,
        };
        if kind == FileKind::Constraints {
            constraints.push(path);
            continue;
        }
        if let Some(text) = file_text(repo, rev, &path, &mut scan)? {
            scan_file(&tree, &path, kind, &text, &mut scan, &mut reached);
        }
    }
    for path in constraints.iter().filter(|p| !reached.contains(*p)) {
        let beside = requirements::join(path, "requirements.txt");
        let set = if tree.text(&beside).is_some() {
            requirements::read_together(
                &tree,
                &beside,
                &[(beside.clone(), false), (path.clone(), true)],
                &mut scan.problems,
            )
        } else {
            requirements::read(&tree, path, true, &mut scan.problems)
        };
        scan.add(set.pins, set.context);
    }
    // A file reached from two roots (or as a root and through `-c`) is reported once.
    let mut seen = BTreeSet::new();
    scan.pins.retain(|pin| {
        seen.insert((
            pin.file.clone(),
            pin.line,
            pin.kind,
            pin.requirement.to_string(),
        ))
    });
    scan.problems
        .sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    scan.problems.dedup();
    Ok(scan)
}

/// The text of `path`, or `None` (a problem reported) when it is not UTF-8.
fn file_text(
    repo: &Repo,
    rev: &Revision,
    path: &str,
    scan: &mut Scan,
) -> Result<Option<String>, GitError> {
    let Some(bytes) = repo.read(rev, path)? else {
        return Ok(None);
    };
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some(text)),
        Err(_) => {
            scan.problems.push(ParseProblem {
                file: path.to_string(),
                line: None,
                message: "not UTF-8 text".to_string(),
            });
            Ok(None)
        }
    }
}

impl Scan {
    fn add(&mut self, pins: Vec<Pin>, context: Context) {
        self.pins.extend(pins);
        if context.resolves_whole && !context.is_empty() {
            self.contexts.retain(|c| c.root != context.root);
            self.contexts.push(context);
        }
    }

    /// The environment declared by `root`, when this revision has it.
    pub(crate) fn context(&self, root: &str) -> Option<&Context> {
        self.contexts.iter().find(|c| c.root == root)
    }
}

fn scan_file(
    tree: &dyn Tree,
    path: &str,
    kind: FileKind,
    text: &str,
    scan: &mut Scan,
    reached: &mut BTreeSet<String>,
) {
    let problems = &mut scan.problems;
    let mut includes = Vec::new();
    let pins = match kind {
        FileKind::PyProject => pyproject::pins(path, text, problems),
        FileKind::Requirements | FileKind::Constraints => {
            let set = requirements::read(tree, path, kind == FileKind::Constraints, problems);
            reached.extend(set.files.iter().filter(|f| *f != path).cloned());
            scan.add(set.pins, set.context);
            return;
        }
        FileKind::UvLock => lock::pins(path, text, PinKind::UvLock, problems),
        FileKind::Pylock => lock::pins(path, text, PinKind::Pylock, problems),
        FileKind::Dockerfile => shell::dockerfile_pins(path, text, &mut includes, problems),
        FileKind::Script => shell::script_pins(path, text, &mut includes, problems),
        FileKind::CiYaml => ci::workflow_pins(path, text, &mut includes, problems),
        FileKind::Makefile => ci::makefile_pins(path, text, &mut includes, problems),
    };
    let context = pins.first().map(|p| p.context.clone()).unwrap_or_default();
    scan.add(pins, context);
    // `pip install -r FILE -c FILE` in a Dockerfile or script: read the files of one line as
    // one environment, as the file's neighbours (the build context is the Dockerfile's folder).
    for files in includes {
        let files: Vec<(String, bool)> = files
            .iter()
            .map(|(value, constraint)| (requirements::join(path, value), *constraint))
            .filter(|(file, _)| tree.text(file).is_some())
            .collect();
        if files.is_empty() {
            continue;
        }
        let words: Vec<String> = files
            .iter()
            .map(|(file, c)| format!("{} {file}", if *c { "-c" } else { "-r" }))
            .collect();
        let root = format!("{path}: pip install {}", words.join(" "));
        let set = requirements::read_together(tree, &root, &files, &mut scan.problems);
        reached.extend(set.files.iter().cloned());
        scan.add(set.pins, set.context);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        assert_eq!(classify("a/pyproject.toml"), Some(FileKind::PyProject));
        assert_eq!(
            classify("requirements-dev.txt"),
            Some(FileKind::Requirements)
        );
        assert_eq!(
            classify("requirements/gpu.txt"),
            Some(FileKind::Requirements)
        );
        assert_eq!(
            classify("ci/constraints-gpu.txt"),
            Some(FileKind::Constraints)
        );
        assert_eq!(
            classify("docker/Dockerfile.gpu"),
            Some(FileKind::Dockerfile)
        );
        assert_eq!(classify("gpu.Dockerfile"), Some(FileKind::Dockerfile));
        assert_eq!(classify("scripts/setup.sh"), Some(FileKind::Script));
        assert_eq!(classify("pylock.gpu.toml"), Some(FileKind::Pylock));
        assert_eq!(classify("README.md"), None);
        assert_eq!(classify(".github/workflows/ci.yml"), Some(FileKind::CiYaml));
        assert_eq!(classify(".gitlab-ci.yml"), Some(FileKind::CiYaml));
        assert_eq!(classify("docker/ci.yml"), None);
        assert_eq!(classify("Makefile"), Some(FileKind::Makefile));
        assert_eq!(classify("mk/gpu.mk"), Some(FileKind::Makefile));
        assert!(may_be_script("bin/setup-gpu"));
        assert!(!may_be_script("LICENSE") && !may_be_script(".git-hooks/x"));
        assert!(is_shell_script("#!/usr/bin/env bash\npip install x\n"));
        assert!(is_shell_script("#!/bin/sh -e\n"));
        assert!(!is_shell_script("#!/usr/bin/env python3\n"));
    }
}
