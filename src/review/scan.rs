//! One revision's forced and pinned versions: which files are read, and how.
//!
//! In: a [`Repo`] and a [`Revision`]. Out: every [`Pin`] with file and line, and every file that
//! could not be parsed ([`ParseProblem`]); one bad file never stops the others.

use super::git::{GitError, Repo, Revision};
use std::collections::BTreeSet;

use super::pins::{Context, ParseProblem, Pin, PinKind, ProjectTool};
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
    /// `poetry.lock` or `pdm.lock`: read with the `pyproject.toml` beside it.
    ProjectLock(PinKind),
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
        "poetry.lock" => FileKind::ProjectLock(PinKind::PoetryLock),
        "pdm.lock" => FileKind::ProjectLock(PinKind::PdmLock),
        n if n.starts_with("pylock.") && n.ends_with(".toml") => FileKind::Pylock,
        // `constraints.txt`, `common_constraints.txt`, `constraints-gpu.txt`.
        n if n.contains("constraints") && n.ends_with(".txt") => FileKind::Constraints,
        n if n.starts_with("requirements") && (n.ends_with(".txt") || n.ends_with(".in")) => {
            FileKind::Requirements
        }
        // pip-tools inputs (`requirements/base.in`) as well as their compiled outputs.
        n if in_requirements_dir && (n.ends_with(".txt") || n.ends_with(".in")) => {
            FileKind::Requirements
        }
        n if is_dockerfile(n) => FileKind::Dockerfile,
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

/// `Dockerfile`, `Dockerfile.gpu`, `Dockerfile-cpu`, `gpu.Dockerfile`, `Containerfile...`
/// (lower-cased), but never a `.dockerignore` (`Dockerfile.dockerignore` is an ignore list).
fn is_dockerfile(name: &str) -> bool {
    !name.ends_with(".dockerignore")
        && (name.starts_with("dockerfile")
            || name.starts_with("containerfile")
            || name.ends_with(".dockerfile")
            || name.ends_with(".containerfile"))
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
    let mut projects = Vec::new();
    let files = repo.files(rev)?;
    for path in &files {
        let path = path.clone();
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
        if kind == FileKind::PyProject {
            if let Some(text) = file_text(repo, rev, &path, &mut scan)? {
                projects.extend(pyproject::read(&path, &text, &mut scan.problems));
            }
            continue;
        }
        if let Some(text) = file_text(repo, rev, &path, &mut scan)? {
            scan_file(&tree, &path, kind, &text, &mut scan, &mut reached);
        }
    }
    for (mut pins, workspace) in workspaces(projects) {
        for pin in &mut pins {
            pin.context.tool = ProjectTool::of(&pin.context.root, &files, workspace);
        }
        let context = pins.first().map(|p| p.context.clone()).unwrap_or_default();
        scan.add(pins, context);
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
    // A file reached from two roots (or as a root and through `-c`) is reported once; a
    // constraint is kept once per environment that reaches it (each is judged, the worst
    // stands: `-c constraints.txt` of a `.in` that also holds `-r base.txt`'s pins).
    let mut seen = BTreeSet::new();
    scan.pins.retain(|pin| {
        let root = (pin.kind == PinKind::Constraint).then(|| pin.context.root.clone());
        seen.insert((
            pin.file.clone(),
            pin.line,
            pin.kind,
            pin.requirement.to_string(),
            root,
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
        FileKind::ProjectLock(kind) => {
            // Problems of the pyproject.toml are reported where it is read on its own.
            let beside = tree.text(&requirements::join(path, "pyproject.toml"));
            let declared = beside
                .and_then(|text| pyproject::read(path, &text, &mut Vec::new()))
                .map(|project| project.declared());
            lock::project_lock_pins(path, text, kind, declared, problems)
        }
        FileKind::Dockerfile => shell::dockerfile_pins(path, text, &mut includes, problems),
        FileKind::Script => shell::script_pins(path, text, &mut includes, problems),
        FileKind::CiYaml => ci::workflow_pins(path, text, &mut includes, problems),
        FileKind::Makefile => ci::makefile_pins(path, text, &mut includes, problems),
    };
    let pins = with_installed_files(tree, path, pins);
    let context = pins.first().map(|p| p.context.clone()).unwrap_or_default();
    scan.add(pins, context);
    // `pip install -r FILE -c FILE` in a Dockerfile or script: read the files of one line as
    // one environment, as the file's neighbours (the build context is the Dockerfile's folder).
    for files in includes {
        let files = included(tree, path, &files);
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

/// The pins of every `pyproject.toml`, one list per environment: a uv workspace's root with the
/// members its `[tool.uv.workspace]` globs name (folders beside the root's file, `exclude` left
/// out), each other project alone; each with whether it is a uv workspace.
fn workspaces(mut projects: Vec<pyproject::Project>) -> Vec<(Vec<Pin>, bool)> {
    let mut out = Vec::new();
    let roots: Vec<usize> = (0..projects.len())
        .filter(|i| !projects[*i].members.is_empty())
        .collect();
    let mut taken = vec![false; projects.len()];
    let mut groups = Vec::new();
    for root in roots {
        let folder = (projects[root].file.rsplit_once('/'))
            .map_or_else(String::new, |(dir, _)| format!("{dir}/"));
        let globs = |patterns: &[String]| -> Option<globset::GlobSet> {
            let mut set = globset::GlobSetBuilder::new();
            for pattern in patterns {
                let full = format!("{folder}{}", pattern.trim_end_matches('/'));
                set.add(
                    globset::GlobBuilder::new(&full)
                        .literal_separator(true)
                        .build()
                        .ok()?,
                );
            }
            set.build().ok()
        };
        let (Some(members), Some(exclude)) = (
            globs(&projects[root].members),
            globs(&projects[root].exclude),
        ) else {
            continue;
        };
        let mine: Vec<usize> = (0..projects.len())
            .filter(|i| *i != root && !taken[*i])
            .filter(|i| {
                let dir = projects[*i].file.trim_end_matches("pyproject.toml");
                let dir = dir.trim_end_matches('/');
                members.is_match(dir) && !exclude.is_match(dir)
            })
            .collect();
        taken[root] = true;
        for i in &mine {
            taken[*i] = true;
        }
        groups.push((root, mine));
    }
    let mut slots: Vec<Option<pyproject::Project>> = projects.drain(..).map(Some).collect();
    for (root, mine) in groups {
        let Some(root) = slots[root].take() else {
            continue;
        };
        let members = mine.iter().filter_map(|i| slots[*i].take()).collect();
        out.push((pyproject::workspace(root, members), true));
    }
    out.extend(
        slots
            .into_iter()
            .flatten()
            .map(|p| (pyproject::workspace(p, Vec::new()), false)),
    );
    out
}

/// The `-r` / `-c` files an install line of `path` names that the revision has: beside `path`
/// (a Dockerfile's build context, a script's folder), else from the repository's top (where CI
/// jobs run, and the context `docker build -f sub/Dockerfile .` sends).
fn included(tree: &dyn Tree, path: &str, files: &[(String, bool)]) -> Vec<(String, bool)> {
    files
        .iter()
        .filter_map(|(value, constraint)| {
            [
                requirements::join(path, value),
                requirements::join("", value),
            ]
            .into_iter()
            .find(|file| tree.text(file).is_some())
            .map(|file| (file, *constraint))
        })
        .collect()
}

/// Each pin of a Dockerfile, script or CI job in the environment its earlier steps made: what
/// an earlier `pip install -r FILE -c FILE` installed is added to the pin's context (minus the
/// names the later steps install again), so a `--no-deps X==v` after
/// `pip install -r requirements.txt` is judged against what that file installed.
fn with_installed_files(tree: &dyn Tree, path: &str, mut pins: Vec<Pin>) -> Vec<Pin> {
    for pin in &mut pins {
        if pin.context.installed_files.is_empty() {
            continue;
        }
        // The files of the pin's own command resolve with it (one `pip install -r A x<2`);
        // those of earlier steps are what it installs over.
        let (own, earlier): (Vec<_>, Vec<_>) = (pin.context.installed_files.iter().cloned())
            .partition(|file| pin.context.line_files.contains(file));
        let earlier = installed_by(tree, path, &earlier);
        let own = installed_by(tree, path, &own);
        // A name a later step installs again is the later step's (pip replaces it).
        let later: BTreeSet<_> = (pin.context.requirements.iter())
            .chain(&pin.context.overrides)
            .map(|r| r.name.clone())
            .chain([pin.name().clone()])
            .collect();
        let earlier = later
            .iter()
            .fold(earlier, |context, name| context.without(name));
        // The command's own files are installed by it: the pin must resolve with them.
        let name = pin.name().clone();
        let mates = (own.requirements.iter()).filter(|r| r.name != name);
        pin.context.line_mates.extend(mates.cloned());
        for context in [own, earlier] {
            pin.context.requirements.splice(0..0, context.requirements);
            pin.context.constraints.splice(0..0, context.constraints);
            pin.context.overrides.splice(0..0, context.overrides);
        }
    }
    pins
}

/// What `pip install` of the `-r` / `-c` `files` (as an install line of `path` names them)
/// declares. Problems in these files are reported where they are read as their own environment.
fn installed_by(tree: &dyn Tree, path: &str, files: &[(String, bool)]) -> Context {
    let files = included(tree, path, files);
    requirements::read_together(tree, path, &files, &mut Vec::new()).context
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::requirements::MemTree;
    use super::*;

    #[test]
    fn a_forced_pin_is_judged_with_what_earlier_steps_installed_from_files() {
        let tree = MemTree(BTreeMap::from([
            (
                "docker/requirements.txt",
                "torch==2.1.0\nxformers==0.0.22\nnumpy<2\n",
            ),
            ("docker/constraints.txt", "pillow<11\n"),
            ("docker/late.txt", "requests\n"),
            ("base.txt", "fastapi<1\n"),
        ]));
        // `base.txt` is not beside the Dockerfile: read from the repository's top.
        let text = "FROM python:3.12\n\
            RUN pip install -r requirements.txt -c constraints.txt -r base.txt\n\
            RUN pip install --no-deps xformers==0.0.28\n\
            RUN pip install -r late.txt\n";
        let mut includes = Vec::new();
        let pins =
            shell::dockerfile_pins("docker/Dockerfile", text, &mut includes, &mut Vec::new());
        let pins = with_installed_files(&tree, "docker/Dockerfile", pins);
        assert_eq!(pins.len(), 1);
        let strings = |list: &[pep508_rs::Requirement]| -> Vec<String> {
            list.iter().map(ToString::to_string).collect()
        };
        let context = &pins[0].context;
        // The file's torch and numpy are there; its own xformers is replaced by the pin; the
        // file a later step installs is not.
        assert_eq!(
            strings(&context.requirements),
            ["torch==2.1.0", "numpy<2", "fastapi<1"]
        );
        assert_eq!(strings(&context.constraints), ["pillow<11"]);
        assert_eq!(strings(&context.overrides), ["xformers==0.0.28"]);
    }

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
        // pip-tools layouts: `.in` inputs, and constraints files by any prefix.
        assert_eq!(
            classify("requirements/base.in"),
            Some(FileKind::Requirements)
        );
        assert_eq!(
            classify("requirements/common_constraints.txt"),
            Some(FileKind::Constraints)
        );
        for name in [
            "utils/docker/Dockerfile-cpu",
            "Dockerfile_arm64",
            "Containerfile.gpu",
        ] {
            assert_eq!(classify(name), Some(FileKind::Dockerfile), "{name}");
        }
        for name in [
            "Dockerfile.dockerignore",
            ".dockerignore",
            "docker/gpu.dockerignore",
        ] {
            assert_eq!(classify(name), None, "{name}");
        }
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
