//! Reading two revisions of a repository with `git` itself: no checkout, nothing written to the
//! work tree or the index (`git ls-tree` and `git cat-file` only read objects).
//!
//! In: a directory inside a repository and revision names. Out: [`Repo`], whose [`Revision`]s
//! list tracked files and return their bytes at that commit.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Why the repository or a revision cannot be read.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum GitError {
    /// `git` could not be started.
    #[error("cannot run `git`: {source}")]
    #[diagnostic(
        code(planner::review::git),
        help("install git; review reads both revisions with git itself")
    )]
    Spawn {
        /// The IO error.
        #[source]
        source: std::io::Error,
    },
    /// The path is not inside a git repository.
    #[error("`{}` is not inside a git repository", path.display())]
    #[diagnostic(
        code(planner::review::not_a_repo),
        help("run review in a git checkout, or pass its path: `planner review PATH`")
    )]
    NotARepo {
        /// The path given.
        path: PathBuf,
    },
    /// A revision does not name a commit.
    #[error("unknown revision `{rev}` in `{}`", repo.display())]
    #[diagnostic(
        code(planner::review::unknown_ref),
        help("name a branch, tag or commit that exists locally (`git fetch` it first in CI)")
    )]
    UnknownRef {
        /// The revision as given.
        rev: String,
        /// The repository.
        repo: PathBuf,
    },
    /// No default base could be found.
    #[error("no --base given and no default branch found (tried origin/HEAD, main, master)")]
    #[diagnostic(
        code(planner::review::no_base),
        help(
            "pass --base REF (in CI: the pull request's base, e.g. `origin/${{{{ github.base_ref }}}}`)"
        )
    )]
    NoDefaultBase,
    /// A git command failed.
    #[error("`git {command}` failed: {stderr}")]
    #[diagnostic(code(planner::review::git))]
    Failed {
        /// The arguments.
        command: String,
        /// What git said.
        stderr: String,
    },
}

/// A repository, read through `git -C <top level>`.
#[derive(Debug, Clone)]
pub(crate) struct Repo {
    /// The work tree's top level.
    pub root: PathBuf,
    /// The folder reviewed, relative to the top level (`""` for the whole repository).
    pub prefix: String,
}

/// One commit of a [`Repo`].
#[derive(Debug, Clone)]
pub(crate) struct Revision {
    /// The name given (`main`, `HEAD`, a commit).
    pub name: String,
    /// The full commit id.
    pub commit: String,
}

impl Repo {
    /// Open the repository that contains `path`.
    pub(crate) fn open(path: &Path) -> Result<Repo, GitError> {
        let out = git_in(path, &["rev-parse", "--show-toplevel", "--show-prefix"])?;
        if !out.status.success() {
            return Err(GitError::NotARepo {
                path: path.to_path_buf(),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        let root = PathBuf::from(lines.next().unwrap_or_default());
        let prefix = lines.next().unwrap_or_default().to_string();
        Ok(Repo { root, prefix })
    }

    /// Resolve a revision name to a commit.
    pub(crate) fn revision(&self, name: &str) -> Result<Revision, GitError> {
        let spec = format!("{name}^{{commit}}");
        let out = git_in(
            &self.root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &spec,
            ],
        )?;
        if !out.status.success() || name.starts_with('-') {
            return Err(GitError::UnknownRef {
                rev: name.to_string(),
                repo: self.root.clone(),
            });
        }
        Ok(Revision {
            name: name.to_string(),
            commit: String::from_utf8_lossy(&out.stdout).trim().to_string(),
        })
    }

    /// The default base: the merge base of `head` with the default branch (origin/HEAD, else
    /// main, else master).
    pub(crate) fn default_base(&self, head: &Revision) -> Result<Revision, GitError> {
        let mut candidates = Vec::new();
        let out = git_in(
            &self.root,
            &["symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"],
        )?;
        if out.status.success() {
            candidates.push(String::from_utf8_lossy(&out.stdout).trim().to_string());
        }
        candidates.extend(["main", "master", "origin/main", "origin/master"].map(String::from));
        for name in candidates {
            let Ok(branch) = self.revision(&name) else {
                continue;
            };
            let out = git_in(&self.root, &["merge-base", &branch.commit, &head.commit])?;
            if out.status.success() {
                return Ok(Revision {
                    name: format!("merge-base({name}, {})", head.name),
                    commit: String::from_utf8_lossy(&out.stdout).trim().to_string(),
                });
            }
        }
        Err(GitError::NoDefaultBase)
    }

    /// Every file tracked at `rev` under the reviewed folder (paths from the top level).
    pub(crate) fn files(&self, rev: &Revision) -> Result<Vec<String>, GitError> {
        let mut args = vec![
            "ls-tree",
            "-r",
            "-z",
            "--name-only",
            "--full-tree",
            rev.commit.as_str(),
        ];
        if !self.prefix.is_empty() {
            args.extend(["--", self.prefix.as_str()]);
        }
        let out = self.run(&args)?;
        Ok(out
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect())
    }

    /// The URL of the remote `name` (`git remote get-url`), when it has one.
    pub(crate) fn remote_url(&self, name: &str) -> Option<String> {
        let out = git_in(&self.root, &["remote", "get-url", "--", name]).ok()?;
        let url = String::from_utf8(out.stdout).ok()?;
        (out.status.success() && !url.trim().is_empty()).then(|| url.trim().to_string())
    }

    /// The bytes of `path` at `rev`, or `None` when it does not exist there.
    pub(crate) fn read(&self, rev: &Revision, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let object = format!("{}:{path}", rev.commit);
        let out = git_in(&self.root, &["cat-file", "-e", &object])?;
        if !out.status.success() {
            return Ok(None);
        }
        self.run(&["cat-file", "blob", &object]).map(Some)
    }

    fn run(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        let out = git_in(&self.root, args)?;
        if !out.status.success() {
            return Err(GitError::Failed {
                command: args.join(" "),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(out.stdout)
    }
}

fn git_in(dir: &Path, args: &[&str]) -> Result<Output, GitError> {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        // Read-only: never take the index lock for a refresh, never page.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_PAGER", "cat")
        .args(args)
        .output()
        .map_err(|source| GitError::Spawn { source })
}
