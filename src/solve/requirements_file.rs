//! pip-style requirements files (`-r`, `-c`, `--override`).
//!
//! In: a path. Out: [`RequirementsFile`]: the PEP 508 requirements it holds and the constraints
//! it pulls in with `-c`. Supported: one requirement per line, `#` comments (whole-line, or after
//! whitespace), blank lines, `\` line continuations, nested `-r FILE` / `--requirement FILE` and
//! `-c FILE` / `--constraint FILE` (paths relative to the including file), and `--hash` after a
//! requirement (hashes check downloads; they do not change what resolves), `${NAME}` expanded
//! from the environment as pip expands it (an unset one is an error naming it). [`lines`] also reads
//! `-e` and file-wide options (`--index-url`, `--pre`, ...) for readers that only list pins;
//! [`RequirementsFile`] refuses them with the file and line (it cannot honour them), never
//! ignores them.

use std::path::{Path, PathBuf};

use pep508_rs::Requirement;

/// Nesting deeper than this is refused (a cycle guard besides the path check).
const MAX_DEPTH: usize = 16;

/// What a requirements file holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RequirementsFile {
    /// Requirements, in file order (nested files inlined).
    pub requirements: Vec<Requirement>,
    /// Constraints from `-c` lines.
    pub constraints: Vec<Requirement>,
}

/// Why a requirements file cannot be read.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum RequirementsFileError {
    /// The file cannot be read.
    #[error("cannot read `{}`{from}", path.display())]
    #[diagnostic(
        code(planner::requirements::read),
        help(
            "check the path of the -r/-c/--override file (relative paths are read from the current folder; in a file, from that file's folder)"
        )
    )]
    Read {
        /// The file.
        path: PathBuf,
        /// `, named on `FILE` line N` for a nested `-r`/`-c`, else empty.
        from: String,
        /// The IO error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not a requirement.
    #[error("`{}` line {line}: {message}", path.display())]
    #[diagnostic(
        code(planner::requirements::line),
        help(
            "write one PEP 508 requirement per line (`numpy>=2,<3`); `-r FILE` and `-c FILE` are the only options understood"
        )
    )]
    Line {
        /// The file.
        path: PathBuf,
        /// The 1-based line (of the first physical line of a continued line).
        line: usize,
        /// What is wrong.
        message: LineError,
    },
}

/// Why one logical line of a requirements file is not understood (what follows `FILE line N:`
/// in the error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LineError {
    /// An option this tool cannot honour (`-e`, `--index-url`, an unknown one): refused, never
    /// ignored.
    #[error("the option `{0}` is not supported here")]
    Unsupported(String),
    /// `-r` or `-c` without a file.
    #[error("`{0}` needs a file name")]
    NeedsFile(String),
    /// A per-requirement option other than `--hash` and those that change only how it builds.
    #[error("the option `{0}` is not supported after a requirement")]
    UnsupportedAfterRequirement(String),
    /// The requirement does not parse.
    #[error("`{text}` is not a valid requirement: {message}")]
    InvalidRequirement {
        /// The requirement as written.
        text: String,
        /// What the parser said.
        message: crate::metadata::RequirementError,
    },
    /// A `${NAME}` whose environment variable is unset or empty (pip expands the others).
    #[error(
        "`${{{0}}}` is not expanded: the environment variable {0} is not set (requirements \
         files take `${{NAME}}` from the environment, as in pip)"
    )]
    UnsetVariable(String),
    /// An include that leads back to a file being read (or nests too deep).
    #[error("`{0}` includes itself (directly or through other files)")]
    IncludesItself(String),
}

impl RequirementsFile {
    /// Read a file, following nested `-r` and `-c`.
    pub(crate) fn read(path: &Path) -> Result<Self, RequirementsFileError> {
        let mut out = RequirementsFile::default();
        read_into(path, &mut out, false, &mut Vec::new())?;
        Ok(out)
    }

    /// Parse file contents (`path` names it in errors and anchors nested paths).
    #[cfg(test)]
    pub(crate) fn parse(path: &Path, text: &str) -> Result<Self, RequirementsFileError> {
        let mut out = RequirementsFile::default();
        parse_into(path, text, &mut out, false, &mut vec![path.to_path_buf()])?;
        Ok(out)
    }
}

fn read_into(
    path: &Path,
    out: &mut RequirementsFile,
    as_constraints: bool,
    stack: &mut Vec<PathBuf>,
) -> Result<(), RequirementsFileError> {
    let text = crate::bounded::read_to_string(path, crate::bounded::USER_FILE_LIMIT).map_err(
        |source| RequirementsFileError::Read {
            path: path.to_path_buf(),
            from: String::new(),
            source,
        },
    )?;
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    stack.push(canonical);
    let result = parse_into(path, &text, out, as_constraints, stack);
    stack.pop();
    result
}

/// One logical line of a requirements file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    /// A PEP 508 requirement.
    Requirement {
        /// The 1-based line (of the first physical line of a continued line).
        line: usize,
        /// The requirement.
        requirement: Requirement,
        /// Its `--hash` values (`sha256:...`), as written.
        hashes: Vec<String>,
    },
    /// `-e PATH` / `-e URL`: an editable install (a local project, not a pin).
    Editable {
        /// The 1-based line.
        line: usize,
        /// The path or URL as written.
        value: String,
    },
    /// A file-wide option (`--index-url URL`, `--pre`, ...).
    Option {
        /// The 1-based line.
        line: usize,
        /// The option (`--index-url`).
        option: String,
        /// Its value (empty for a flag).
        value: String,
    },
    /// `-r FILE` (`constraint: false`) or `-c FILE` (`constraint: true`).
    Include {
        /// The 1-based line.
        line: usize,
        /// Whether it is a `-c` include.
        constraint: bool,
        /// The file name as written (relative to the including file).
        value: String,
    },
}

/// Options pip accepts on their own line of a requirements file (besides `-r`, `-c`, `-e`).
const FILE_OPTIONS: &[&str] = &[
    "-i",
    "--index-url",
    "--extra-index-url",
    "--no-index",
    "-f",
    "--find-links",
    "--pre",
    "--trusted-host",
    "--use-feature",
    "--require-hashes",
    "--only-binary",
    "--no-binary",
    "--prefer-binary",
    "--config-settings",
];

/// Options pip accepts after a requirement on its line.
const REQUIREMENT_OPTIONS: &[&str] = &[
    "--hash",
    "--config-settings",
    "--global-option",
    "--install-option",
];

/// The entries of one file's text, without following includes (`path` names it in errors).
/// The first line that is not understood is an error.
pub(crate) fn entries(path: &Path, text: &str) -> Result<Vec<Entry>, RequirementsFileError> {
    lines(text)
        .into_iter()
        .map(|entry| {
            entry.map_err(|(line, message)| RequirementsFileError::Line {
                path: path.to_path_buf(),
                line,
                message,
            })
        })
        .collect()
}

/// Every logical line of a file's text, each an [`Entry`] or the line and why it is not
/// understood: one bad line does not hide the others. `${NAME}` is expanded from the process
/// environment, as pip does ([`expand_variables`]).
pub(crate) fn lines(text: &str) -> Vec<Result<Entry, (usize, LineError)>> {
    lines_with(text, &|name| crate::env_vars::EnvVars::process().get(name))
}

/// [`lines`], reading variables through `get`.
fn lines_with(
    text: &str,
    get: &dyn Fn(&str) -> Option<String>,
) -> Vec<Result<Entry, (usize, LineError)>> {
    let mut out = Vec::new();
    let mut logical = String::new();
    let mut start = 0;
    let physical: Vec<&str> = text.lines().collect();
    for (i, raw) in physical.iter().enumerate() {
        if logical.is_empty() {
            start = i + 1;
        }
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(stripped) = raw.strip_suffix('\\') {
            logical.push_str(stripped);
            if i + 1 < physical.len() {
                continue;
            }
        } else {
            logical.push_str(raw);
        }
        let line = expand_variables(strip_comment(&logical).trim(), get);
        logical.clear();
        if !line.is_empty() {
            out.push(logical_line(start, &line));
        }
    }
    out
}

/// `line` with each `${NAME}` (upper-case letters, digits and `_`) replaced by the variable's
/// value, as pip expands requirements files; an unset or empty variable is left as written
/// (pip does the same), and [`logical_line`] then says which one is missing.
fn expand_variables(line: &str, get: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        match variable_at(tail).and_then(|name| Some((name, get(name).filter(|v| !v.is_empty())?)))
        {
            Some((name, value)) => {
                out.push_str(&value);
                rest = &tail[name.len() + 3..];
            }
            None => {
                out.push_str("${");
                rest = &tail[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The `NAME` of a `${NAME}` at the start of `text`, when it is a name pip would expand.
fn variable_at(text: &str) -> Option<&str> {
    let inner = text.strip_prefix("${")?;
    let name = &inner[..inner.find('}')?];
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    valid.then_some(name)
}

/// The first `${NAME}` still in `line` (its variable was not set).
fn unexpanded(line: &str) -> Option<&str> {
    line.match_indices("${")
        .find_map(|(at, _)| variable_at(&line[at..]))
}

fn logical_line(start: usize, line: &str) -> Result<Entry, (usize, LineError)> {
    if line.starts_with('-') {
        let (option, value) = split_option(line);
        let value = value.to_string();
        let constraint = match option {
            "-r" | "--requirement" => false,
            "-c" | "--constraint" => true,
            "-e" | "--editable" => return Ok(Entry::Editable { line: start, value }),
            _ if FILE_OPTIONS.contains(&option) => {
                return Ok(Entry::Option {
                    line: start,
                    option: option.to_string(),
                    value,
                });
            }
            _ => {
                return Err((start, LineError::Unsupported(option.to_string())));
            }
        };
        if value.is_empty() {
            return Err((start, LineError::NeedsFile(option.to_string())));
        }
        return Ok(Entry::Include {
            line: start,
            constraint,
            value,
        });
    }
    if let Some(name) = unexpanded(line) {
        return Err((start, LineError::UnsetVariable(name.to_string())));
    }
    let (text, hashes) = requirement_options(line).map_err(|message| (start, message))?;
    let requirement = crate::metadata::parse_requirement(text).map_err(|message| {
        (
            start,
            LineError::InvalidRequirement {
                text: text.to_string(),
                message,
            },
        )
    })?;
    Ok(Entry::Requirement {
        line: start,
        requirement,
        hashes,
    })
}

/// A requirement line split into the requirement and the `--hash` values after it (other
/// per-requirement options are dropped: they change how it builds, not what it is).
fn requirement_options(line: &str) -> Result<(&str, Vec<String>), LineError> {
    let Some(at) = line.find(" --").or_else(|| line.find("\t--")) else {
        return Ok((line, Vec::new()));
    };
    let mut hashes = Vec::new();
    let mut words = line[at..].split_whitespace();
    while let Some(word) = words.next() {
        let (option, value) = match word.split_once('=') {
            Some((option, value)) => (option, value.to_string()),
            None => (word, words.next().unwrap_or_default().to_string()),
        };
        if !REQUIREMENT_OPTIONS.contains(&option) {
            return Err(LineError::UnsupportedAfterRequirement(option.to_string()));
        }
        if option == "--hash" {
            hashes.push(value);
        }
    }
    Ok((line[..at].trim(), hashes))
}

fn parse_into(
    path: &Path,
    text: &str,
    out: &mut RequirementsFile,
    as_constraints: bool,
    stack: &mut Vec<PathBuf>,
) -> Result<(), RequirementsFileError> {
    for entry in entries(path, text)? {
        match entry {
            Entry::Requirement { requirement, .. } => {
                if as_constraints {
                    out.constraints.push(requirement);
                } else {
                    out.requirements.push(requirement);
                }
            }
            Entry::Editable { line, .. } => {
                return Err(unsupported(path, line, "-e"));
            }
            Entry::Option { line, option, .. } => {
                return Err(unsupported(path, line, &option));
            }
            Entry::Include {
                line,
                constraint,
                value,
            } => {
                let nested = path
                    .parent()
                    .map_or_else(|| PathBuf::from(&value), |dir| dir.join(&value));
                let canonical = nested.canonicalize().unwrap_or_else(|_| nested.clone());
                if stack.contains(&canonical) || stack.len() >= MAX_DEPTH {
                    return Err(RequirementsFileError::Line {
                        path: path.to_path_buf(),
                        line,
                        message: LineError::IncludesItself(value),
                    });
                }
                read_into(&nested, out, as_constraints || constraint, stack).map_err(|err| {
                    match err {
                        RequirementsFileError::Read {
                            path: missing,
                            from,
                            source,
                        } if from.is_empty() => {
                            let from = format!(", named on `{}` line {line}", path.display());
                            RequirementsFileError::Read {
                                path: missing,
                                from,
                                source,
                            }
                        }
                        other => other,
                    }
                })?;
            }
        }
    }
    Ok(())
}

/// An option `resolve` cannot honour (an editable project, another index): refused, never
/// ignored.
fn unsupported(path: &Path, line: usize, option: &str) -> RequirementsFileError {
    RequirementsFileError::Line {
        path: path.to_path_buf(),
        line,
        message: LineError::Unsupported(option.to_string()),
    }
}

/// `# ...` at the start of a line or after whitespace starts a comment (pip's rule).
pub(crate) fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'#' && (i == 0 || bytes[i - 1].is_ascii_whitespace()) {
            return &line[..i];
        }
    }
    line
}

/// `-r file`, `-rfile`, `--requirement=file`, `--requirement file`.
pub(crate) fn split_option(line: &str) -> (&str, &str) {
    if let Some(rest) = line.strip_prefix("--") {
        let end = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .map_or(line.len(), |i| i + 2);
        let value = line[end..].trim_start_matches('=').trim();
        return (&line[..end], value);
    }
    if line.len() >= 2 {
        let (option, value) = line.split_at(2);
        return (option, value.trim());
    }
    (line, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `${NAME}` is expanded as pip expands it; an unset one is named in the error.
    #[test]
    fn expands_environment_variables_like_pip() {
        let get = |name: &str| match name {
            "REQ_VER" => Some("2.31.0".to_string()),
            "EMPTY" => Some(String::new()),
            _ => None,
        };
        let text =
            "requests==${REQ_VER}  # pinned\nnumpy==${lower}\ntorch==${MISSING}\nx==${EMPTY}\n";
        let entries = lines_with(text, &get);
        match &entries[0] {
            Ok(Entry::Requirement { requirement, .. }) => {
                assert_eq!(requirement.to_string(), "requests==2.31.0");
            }
            other => panic!("{other:?}"),
        }
        // Lower-case names are not variables to pip: left as written, then not a version.
        assert!(matches!(
            &entries[1],
            Err((2, LineError::InvalidRequirement { .. }))
        ));
        assert_eq!(
            entries[2],
            Err((3, LineError::UnsetVariable("MISSING".to_string())))
        );
        assert_eq!(
            entries[3],
            Err((4, LineError::UnsetVariable("EMPTY".to_string())))
        );
        assert_eq!(expand_variables("a${X}b${", &|_| Some("1".into())), "a1b${");
    }

    #[test]
    fn reads_nested_files_continuations_and_comments() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("base.txt"),
            "# top comment\nnumpy>=2 \\\n  ,<3  # inline\n\n-c constraints.txt\n--requirement=more.txt\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("constraints.txt"), "torch==2.11.0\n").unwrap();
        std::fs::write(
            dir.path().join("more.txt"),
            "requests[socks]; python_version >= '3.8'\n",
        )
        .unwrap();
        let file = RequirementsFile::read(&dir.path().join("base.txt")).unwrap();
        let reqs: Vec<String> = file.requirements.iter().map(ToString::to_string).collect();
        assert_eq!(
            reqs,
            [
                "numpy>=2,<3",
                "requests[socks] ; python_full_version >= '3.8'"
            ]
        );
        assert_eq!(file.constraints[0].to_string(), "torch==2.11.0");
    }

    #[test]
    fn rejects_unsupported_options_and_cycles() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.txt");
        std::fs::write(&path, "numpy\n--index-url https://example.invalid/simple\n").unwrap();
        let err = RequirementsFile::read(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("--index-url"), "{err}");
        std::fs::write(&path, "-r r.txt\n").unwrap();
        let err = RequirementsFile::read(&path).unwrap_err().to_string();
        assert!(err.contains("includes itself"), "{err}");
        std::fs::write(&path, "numpy>>2\n").unwrap();
        let err = RequirementsFile::read(&path).unwrap_err().to_string();
        assert!(err.contains("not a valid requirement"), "{err}");
    }

    #[test]
    fn reads_compiled_and_exported_files() {
        // The shapes `uv pip compile --generate-hashes` and `uv export` write.
        let text = "# This file was autogenerated by uv\n--index-url https://example.invalid/simple\n-e .\ncertifi==2026.10.19.post1 \\\n    --hash=sha256:aa \\\n    --hash=sha256:bb\n    # via requests\ncolorama==0.4.6 ; sys_platform == 'win32' \\\n    --hash=sha256:cc\nnot valid!\nidna==3.20 --hash sha256:dd\n";
        let found = lines(text);
        assert!(matches!(
            &found[0],
            Ok(Entry::Option { line: 2, option, .. }) if option == "--index-url"
        ));
        assert!(matches!(&found[1], Ok(Entry::Editable { line: 3, value }) if value == "."));
        let Ok(Entry::Requirement {
            line,
            requirement,
            hashes,
        }) = &found[2]
        else {
            panic!("{found:?}");
        };
        assert_eq!(
            (*line, requirement.to_string(), hashes.clone()),
            (
                4,
                "certifi==2026.10.19.post1".to_string(),
                vec!["sha256:aa".to_string(), "sha256:bb".to_string()]
            )
        );
        let Ok(Entry::Requirement { requirement, .. }) = &found[3] else {
            panic!("{found:?}");
        };
        assert_eq!(
            requirement.to_string(),
            "colorama==0.4.6 ; sys_platform == 'win32'"
        );
        // One bad line is reported with its line; the next is still read.
        assert!(matches!(&found[4], Err((10, _))));
        assert!(
            matches!(&found[5], Ok(Entry::Requirement { hashes, .. }) if hashes == &["sha256:dd"])
        );
        // `resolve` cannot honour `--index-url` or `-e`: refused, with the line.
        let err = RequirementsFile::parse(Path::new("r.txt"), &text.replace("not valid!\n", ""))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 2") && err.contains("--index-url"),
            "{err}"
        );
        // Hashes alone are fine for it.
        let file =
            RequirementsFile::parse(Path::new("r.txt"), "idna==3.20 \\\n  --hash=sha256:dd\n")
                .unwrap();
        assert_eq!(file.requirements[0].to_string(), "idna==3.20");
        let err = RequirementsFile::parse(Path::new("r.txt"), "idna==3.20 --no-deps\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("--no-deps"), "{err}");
    }
}
