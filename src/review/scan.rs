//! One revision's forced and pinned versions: which files are read, and how.
//!
//! In: a [`Repo`] and a [`Revision`]. Out: every [`Pin`] with file and line, and every file that
//! could not be parsed ([`ParseProblem`]); one bad file never stops the others.

use super::git::{GitError, Repo, Revision};
use super::pins::{ParseProblem, Pin, PinKind};
use super::requirements::{self, Tree};
use super::{lock, pyproject, shell};

/// What one revision pins.
#[derive(Debug, Default)]
pub struct Scan {
    /// Every pin, in file order.
    pub pins: Vec<Pin>,
    /// Files (or lines) that could not be parsed.
    pub problems: Vec<ParseProblem>,
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
        _ => return None,
    })
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

/// Scan one revision.
pub fn scan(repo: &Repo, rev: &Revision) -> Result<Scan, GitError> {
    let tree = RevTree { repo, rev };
    let mut scan = Scan::default();
    for path in repo.files(rev)? {
        let Some(kind) = classify(&path) else {
            continue;
        };
        let Some(bytes) = repo.read(rev, &path)? else {
            continue;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            scan.problems.push(ParseProblem {
                file: path.clone(),
                line: None,
                message: "not UTF-8 text".to_string(),
            });
            continue;
        };
        scan_file(&tree, &path, kind, &text, &mut scan);
    }
    // A file reached from two roots (or as a root and through `-c`) is reported once.
    let mut seen = std::collections::BTreeSet::new();
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

fn scan_file(tree: &dyn Tree, path: &str, kind: FileKind, text: &str, scan: &mut Scan) {
    let problems = &mut scan.problems;
    let mut includes = Vec::new();
    let pins = match kind {
        FileKind::PyProject => pyproject::pins(path, text, problems),
        FileKind::Requirements => requirements::read(tree, path, false, problems).pins,
        FileKind::Constraints => requirements::read(tree, path, true, problems).pins,
        FileKind::UvLock => lock::pins(path, text, PinKind::UvLock, problems),
        FileKind::Pylock => lock::pins(path, text, PinKind::Pylock, problems),
        FileKind::Dockerfile => shell::dockerfile_pins(path, text, &mut includes, problems),
        FileKind::Script => shell::script_pins(path, text, &mut includes, problems),
    };
    scan.pins.extend(pins);
    // `pip install -r FILE -c FILE` in a Dockerfile or script: read them as the file's
    // neighbours (the build context is the Dockerfile's folder).
    for (value, constraint) in includes {
        let file = requirements::join(path, &value);
        if tree.text(&file).is_some() {
            let set = requirements::read(tree, &file, constraint, &mut scan.problems);
            scan.pins.extend(set.pins);
        }
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
    }
}
