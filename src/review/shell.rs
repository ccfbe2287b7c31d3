//! `pip install` lines in Dockerfiles (`RUN`, shell and exec form, continuation lines, heredocs)
//! and shell scripts: `--force-reinstall` / `--no-deps` installs and `==` pins, each with its
//! physical line; `&&`, `||`, `;` and `|` chains are split into their commands.

use std::str::FromStr;

use pep508_rs::Requirement;

use super::pins::{Context, ParseProblem, Pin, PinKind, Role};
use super::vars::{self, Vars};
use crate::index::DistFilename;
use crate::metadata::parse_requirement;
use crate::metadata::requirement::{has_specifier, is_exact};

/// Dockerfile instructions (anything else is a malformed instruction).
const INSTRUCTIONS: &[&str] = &[
    "ADD",
    "ARG",
    "CMD",
    "COPY",
    "ENTRYPOINT",
    "ENV",
    "EXPOSE",
    "FROM",
    "HEALTHCHECK",
    "LABEL",
    "MAINTAINER",
    "ONBUILD",
    "RUN",
    "SHELL",
    "STOPSIGNAL",
    "USER",
    "VOLUME",
    "WORKDIR",
];

/// Words that may come before the command itself (`then pip install ...`, `sudo pip ...`).
const PREFIXES: &[&str] = &[
    "sudo", "exec", "then", "do", "else", "time", "!", "command", "env",
];

/// pip options that take a value (the value is not a requirement).
const VALUE_OPTIONS: &[&str] = &[
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--python",
    "--cache-dir",
    "--trusted-host",
    "--platform",
    "--python-version",
    "--implementation",
    "--abi",
    "--src",
    "-e",
    "--editable",
    "--progress-bar",
    "--log",
    "--proxy",
    "--timeout",
    "--retries",
    "--config-settings",
    "-C",
    "--global-option",
    "--no-binary",
    "--only-binary",
    "--upgrade-strategy",
    "--report",
    "--index",
    "--default-index",
    "--extra-index",
    "--group",
    // uv's options with a value (`--index-strategy unsafe-best-match`: the value is no package).
    "--index-strategy",
    "--keyring-provider",
    "--resolution",
    "--prerelease",
    "--fork-strategy",
    "--exclude-newer",
    "--link-mode",
    "--python-platform",
    "--torch-backend",
    "--override",
    "--overrides",
    "--build-constraint",
    "--build-constraints",
    "-b",
    "--upgrade-package",
    "-P",
    "--reinstall-package",
    "--refresh-package",
    "--no-build-package",
    "--no-binary-package",
    "--no-build-isolation-package",
    "--config-file",
    "--extra",
    "-p",
    // pip's.
    "--exists-action",
    "--cert",
    "--client-cert",
    "--use-feature",
    "--use-deprecated",
    "--root-user-action",
];

/// A logical command: its text and the physical lines it spans (1-based number, text).
struct Logical {
    lines: Vec<(usize, String)>,
    text: String,
}

/// A pip install command found in a file.
#[derive(Debug, Clone, Default)]
pub(crate) struct Install {
    /// Requirements named on the line, with their physical line.
    pub requirements: Vec<(usize, Requirement)>,
    /// `--force-reinstall`, `--no-deps` when given.
    pub flags: Vec<String>,
    /// `-r FILE` / `-c FILE` values (file, is constraint), as written.
    pub files: Vec<(String, bool)>,
    /// Requirements whose text still holds a variable (`triton==${TRITON_VERSION}`).
    pub unresolved: Vec<String>,
}

/// The pins of a Dockerfile.
pub(crate) fn dockerfile_pins(
    file: &str,
    text: &str,
    includes: &mut Vec<Vec<(String, bool)>>,
    problems: &mut Vec<ParseProblem>,
) -> Vec<Pin> {
    let mut commands = Vec::new();
    let mut vars = Vars::new();
    let mut copies = Copies::default();
    for instruction in dockerfile_instructions(file, text, problems) {
        let (keyword, rest) = split_keyword(&instruction.text);
        if keyword.eq_ignore_ascii_case("ARG") || keyword.eq_ignore_ascii_case("ENV") {
            define(&mut vars, keyword, rest);
            continue;
        }
        copies.instruction(keyword, &vars::expand(rest, &vars));
        if !INSTRUCTIONS.contains(&keyword.to_ascii_uppercase().as_str()) {
            problems.push(ParseProblem {
                file: file.to_string(),
                line: instruction.lines.first().map(|l| l.0),
                message: format!(
                    "`{}` is not a Dockerfile instruction",
                    keyword.escape_default()
                ),
            });
            continue;
        }
        if !keyword.eq_ignore_ascii_case("RUN") {
            continue;
        }
        let body = Logical {
            lines: instruction.lines.clone(),
            text: vars::expand(rest, &vars),
        };
        if rest.trim_start().starts_with('[') {
            match serde_json::from_str::<Vec<String>>(rest.trim()) {
                Ok(argv) => commands.push((body, vec![copies.rewrite(argv)])),
                Err(err) => problems.push(ParseProblem {
                    file: file.to_string(),
                    line: instruction.lines.first().map(|l| l.0),
                    message: format!("RUN in exec form is not a JSON array of strings: {err}"),
                }),
            }
            continue;
        }
        match split_commands(&body.text) {
            Some(argvs) => {
                let argvs = argvs.into_iter().map(|a| copies.rewrite(a)).collect();
                commands.push((body, argvs));
            }
            None => problems.push(unbalanced(file, &body)),
        }
    }
    pins_of(file, &commands, includes, problems)
}

/// What a Dockerfile stage copied from the build context so far (`COPY`/`ADD`, `WORKDIR`), so
/// that `pip install -r /tmp/requirements.txt` after `COPY requirements.txt /tmp/` reads the
/// repository's `requirements.txt` (a path relative to the build context, which
/// [`super::scan`] looks for beside the Dockerfile, then at the repository's top).
#[derive(Debug, Default)]
struct Copies {
    /// The stage's working directory (`/` when none is set).
    workdir: String,
    /// (path in the image, source in the build context, whether the source is the whole
    /// context, `.`).
    copied: Vec<(String, String, bool)>,
}

impl Copies {
    fn instruction(&mut self, keyword: &str, rest: &str) {
        let keyword = keyword.to_ascii_uppercase();
        match keyword.as_str() {
            "FROM" => *self = Copies::default(),
            "WORKDIR" => self.workdir = self.absolute(rest.trim()),
            "COPY" | "ADD" => self.copy(rest),
            _ => {}
        }
    }

    fn copy(&mut self, rest: &str) {
        let words = if rest.trim_start().starts_with('[') {
            serde_json::from_str::<Vec<String>>(rest.trim()).unwrap_or_default()
        } else {
            shlex::split(rest).unwrap_or_default()
        };
        // `--from=stage` copies from another image, not from the repository.
        if words.iter().any(|w| w.starts_with("--from")) {
            return;
        }
        let words: Vec<&String> = words.iter().filter(|w| !w.starts_with("--")).collect();
        let Some((dest, sources)) = words.split_last() else {
            return;
        };
        let into_folder = sources.len() > 1 || dest.ends_with('/') || dest.ends_with('.');
        let dest = self.absolute(dest);
        for source in sources {
            let source = source.trim_start_matches("./").trim_end_matches('/');
            let folder = source == "." || source.is_empty();
            let name = source.rsplit('/').next().unwrap_or(source);
            let target = if into_folder && !folder {
                format!("{}/{name}", dest.trim_end_matches('/'))
            } else {
                dest.clone()
            };
            self.copied.push((target, source.to_string(), folder));
        }
    }

    /// `path` in the image, absolute (relative ones from the working directory), normalised.
    fn absolute(&self, path: &str) -> String {
        let joined = if path.starts_with('/') {
            path.to_string()
        } else {
            format!("{}/{path}", self.workdir)
        };
        format!("/{}", super::requirements::join("/", &joined))
    }

    /// The source in the build context of the image path `word` names, when it was copied.
    fn source(&self, word: &str) -> Option<String> {
        if word.starts_with('-') || word.contains('$') {
            return None;
        }
        let path = self.absolute(word);
        // The last copy that covers it: the file itself, or a folder above it.
        self.copied
            .iter()
            .rev()
            .find_map(|(target, source, folder)| {
                if *target == path && !folder {
                    return Some(source.clone());
                }
                let rest = path.strip_prefix(target.trim_end_matches('/'))?;
                let rest = rest.strip_prefix('/')?;
                Some(match *folder {
                    true => rest.to_string(),
                    false => format!("{source}/{rest}"),
                })
            })
    }

    /// `argv` with each `-r` / `-c` file that was copied replaced by its source.
    fn rewrite(&self, mut argv: Vec<String>) -> Vec<String> {
        let file_flags = [
            "-r",
            "--requirement",
            "--requirements",
            "-c",
            "--constraint",
            "--constraints",
        ];
        for i in 1..argv.len() {
            if !file_flags.contains(&argv[i - 1].as_str()) {
                continue;
            }
            if let Some(source) = self.source(&argv[i]) {
                argv[i] = source;
            }
        }
        argv
    }
}

/// `ARG NAME=default` / `ARG NAME` (a global default kept), `ENV NAME=value ...` / `ENV NAME value`.
fn define(vars: &mut Vars, keyword: &str, rest: &str) {
    let rest = rest.trim();
    let words: Vec<String> = shlex::split(rest).unwrap_or_default();
    let pairs: Vec<(String, String)> = words.iter().filter_map(|w| vars::assignment(w)).collect();
    if !pairs.is_empty() {
        for (name, value) in pairs {
            let value = vars::expand(&value, vars);
            vars.insert(name, value);
        }
    } else if let Some((name, value)) = rest
        .split_once(char::is_whitespace)
        .filter(|_| keyword.eq_ignore_ascii_case("ENV"))
    {
        let value = vars::expand(vars::unquote(value.trim()), vars);
        vars.insert(name.to_string(), value);
    }
}

/// The pins of a shell script (`vars`: what is assigned before it runs, e.g. a Makefile's
/// variables; the script's own `NAME=value` / `export NAME=value` lines are added as read).
pub(crate) fn script_pins(
    file: &str,
    text: &str,
    includes: &mut Vec<Vec<(String, bool)>>,
    problems: &mut Vec<ParseProblem>,
) -> Vec<Pin> {
    script_pins_with(file, text, Vars::new(), includes, problems)
}

/// [`script_pins`] with variables already set.
pub(crate) fn script_pins_with(
    file: &str,
    text: &str,
    mut vars: Vars,
    includes: &mut Vec<Vec<(String, bool)>>,
    problems: &mut Vec<ParseProblem>,
) -> Vec<Pin> {
    let mut commands = Vec::new();
    for logical in join_continuations(text.lines().enumerate(), '\\', false) {
        if logical.text.trim_start().starts_with('#') {
            continue;
        }
        let code = strip_shell_comment(&logical.text);
        let bare = code.trim().strip_prefix("export ").unwrap_or(code.trim());
        // `NAME=value` or `NAME="a==1 b==2"` (one shell word: a quoted list of requirements).
        let one_word = shlex::split(bare).is_some_and(|words| words.len() == 1);
        if let Some((name, value)) = vars::assignment(bare).filter(|_| one_word) {
            let value = vars::expand(&value, &vars);
            vars.insert(name, value);
            continue;
        }
        let code = vars::expand(code, &vars);
        match split_commands(&code) {
            Some(argvs) => commands.push((logical, argvs)),
            None => problems.push(unbalanced(file, &logical)),
        }
    }
    pins_of(file, &commands, includes, problems)
}

fn unbalanced(file: &str, logical: &Logical) -> ParseProblem {
    ParseProblem {
        file: file.to_string(),
        line: logical.lines.first().map(|l| l.0),
        message: "unbalanced quotes in a shell command".to_string(),
    }
}

fn pins_of(
    file: &str,
    commands: &[(Logical, Vec<Vec<String>>)],
    includes: &mut Vec<Vec<(String, bool)>>,
    problems: &mut Vec<ParseProblem>,
) -> Vec<Pin> {
    let mut pins = Vec::new();
    // What the earlier install lines left: their requirements, and what they forced
    // (`--no-deps` / `--force-reinstall` replace the version, whatever requires it).
    let mut before = Context {
        root: file.to_string(),
        ..Context::default()
    };
    for (logical, argvs) in commands {
        let mut cursor = 0;
        for argv in argvs {
            let Some(install) = parse_install(argv) else {
                continue;
            };
            if !install.files.is_empty() {
                includes.push(install.files.clone());
            }
            for word in &install.unresolved {
                let line = line_for(logical, word.split('$').next().unwrap_or(word), &mut 0);
                problems.push(ParseProblem {
                    file: file.to_string(),
                    line: Some(line),
                    message: format!(
                        "`{}` is installed with a version left as a variable (no ARG default, ENV or assignment in this file gives it a value): not judged",
                        word.escape_default()
                    ),
                });
            }
            let forced = !install.flags.is_empty();
            let mut after = before.clone();
            after.installed_files.extend(install.files.iter().cloned());
            for (_, requirement) in &install.requirements {
                let role = if forced {
                    Role::Override
                } else {
                    Role::Requirement
                };
                after = after
                    .without(&requirement.name)
                    .with(role, requirement.clone());
            }
            for (_, requirement) in &install.requirements {
                let token = requirement.name.to_string();
                let line = line_for(logical, &token, &mut cursor);
                let kind = if forced {
                    Some(PinKind::PipForce)
                } else {
                    Some(if is_exact(requirement) {
                        PinKind::PipPin
                    } else {
                        PinKind::Range
                    })
                };
                if let Some(kind) = kind.filter(|_| has_specifier(requirement)) {
                    let mut context = after.clone();
                    context.line_files = install.files.clone();
                    context.line_mates = (install.requirements.iter())
                        .map(|(_, r)| r.clone())
                        .filter(|r| r.name != requirement.name)
                        .collect();
                    pins.push(Pin {
                        file: file.to_string(),
                        line,
                        kind,
                        requirement: requirement.clone(),
                        flags: install.flags.clone(),
                        context,
                    });
                }
            }
            before = after;
        }
    }
    pins
}

/// The physical line holding `token`, searching from `cursor` (then from the start).
fn line_for(logical: &Logical, token: &str, cursor: &mut usize) -> usize {
    let token = token.to_ascii_lowercase().replace('-', "_");
    let holds = |text: &str| text.to_ascii_lowercase().replace('-', "_").contains(&token);
    let found = logical.lines[*cursor..]
        .iter()
        .position(|(_, text)| holds(text))
        .map(|i| i + *cursor)
        .or_else(|| logical.lines.iter().position(|(_, text)| holds(text)));
    match found {
        Some(i) => {
            *cursor = i;
            logical.lines[i].0
        }
        None => logical.lines.first().map_or(1, |l| l.0),
    }
}

/// A `pip install` (or `python -m pip install`, `uv pip install`) command, or `None`.
pub(crate) fn parse_install(argv: &[String]) -> Option<Install> {
    let mut words = argv
        .iter()
        .map(String::as_str)
        .skip_while(|w| (w.contains('=') && !w.starts_with('-')) || PREFIXES.contains(w));
    let first = words.next()?;
    let base = first.rsplit('/').next().unwrap_or(first);
    let is_pip = |w: &str| w == "pip" || w.starts_with("pip3") || w.starts_with("pip2");
    let rest: Vec<&str> = if is_pip(base) {
        words.collect()
    } else if base.starts_with("python") {
        let rest: Vec<&str> = words.collect();
        let m = rest.iter().position(|w| *w == "-m")?;
        if !rest.get(m + 1).is_some_and(|w| is_pip(w)) {
            return None;
        }
        rest[m + 2..].to_vec()
    } else if base == "uv" {
        let rest: Vec<&str> = words.collect();
        if rest.first() != Some(&"pip") {
            return None;
        }
        rest[1..].to_vec()
    } else {
        return None;
    };
    let (command, args) = rest.split_first()?;
    if *command != "install" {
        return None;
    }
    Some(install_args(args))
}

fn install_args(args: &[&str]) -> Install {
    let mut install = Install::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i];
        i += 1;
        match arg {
            "--force-reinstall" | "--no-deps" | "--reinstall" | "--no-dependencies" => {
                install.flags.push(arg.to_string());
            }
            "-r" | "--requirement" | "-c" | "--constraint" | "--constraints" | "--requirements" => {
                if let Some(value) = args.get(i) {
                    install.files.push((
                        value.to_string(),
                        arg.starts_with("-c") || arg.starts_with("--c"),
                    ));
                    i += 1;
                }
            }
            _ if VALUE_OPTIONS.contains(&arg) => i += 1,
            _ if arg.starts_with('-') => {}
            _ if vars::has_variable(arg) && !arg.contains('/') => {
                install.unresolved.push(arg.to_string());
            }
            _ => {
                if let Some(requirement) = requirement_of(arg) {
                    install.requirements.push((0, requirement));
                }
            }
        }
    }
    install
}

/// A requirement from an install argument: PEP 508 text, or a wheel file name or URL
/// (`triton-3.7.0-cp312-...whl` means `triton==3.7.0`).
fn requirement_of(arg: &str) -> Option<Requirement> {
    if arg.ends_with(".whl") {
        let filename = arg.rsplit('/').next()?;
        let parsed = DistFilename::from_str(filename).ok()?;
        return parse_requirement(&format!("{}=={}", parsed.name(), parsed.version())).ok();
    }
    if arg.contains('$') || arg.contains('/') || arg == "." {
        return None;
    }
    parse_requirement(arg).ok()
}

/// Split a shell command line into commands (`&&`, `||`, `;`, `|`), each as argv; `None` when
/// the quotes do not balance.
fn split_commands(text: &str) -> Option<Vec<Vec<String>>> {
    let spaced = space_operators(text);
    let words = shlex::split(&spaced)?;
    let mut commands = vec![Vec::new()];
    for word in words {
        if matches!(
            word.as_str(),
            "&&" | "||" | ";" | "|" | "(" | ")" | "{" | "}"
        ) {
            commands.push(Vec::new());
        } else if let Some(last) = commands.last_mut() {
            last.push(word);
        }
    }
    commands.retain(|c| !c.is_empty());
    Some(commands)
}

/// Put spaces around `;`, `&&`, `||` and `|` outside quotes, so `a;b` splits like `a ; b`.
fn space_operators(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), _) if c == q => {
                quote = None;
                out.push(c);
            }
            (Some(_), _) => out.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                out.push(c);
            }
            (None, '\\') => {
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            }
            (None, ';') => out.push_str(" ; "),
            (None, '&' | '|') => {
                let double = chars.peek() == Some(&c);
                if double {
                    chars.next();
                }
                out.push(' ');
                out.push(c);
                if double {
                    out.push(c);
                }
                out.push(' ');
            }
            (None, _) => out.push(c),
        }
    }
    out
}

/// `cmd # comment` -> `cmd` (a `#` at the start of a word, outside quotes).
fn strip_shell_comment(text: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for (i, c) in text.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' && prev.is_whitespace() => return &text[..i],
            None => {}
        }
        prev = c;
    }
    text
}

/// Dockerfile instructions: continuation lines joined (comment lines inside them skipped),
/// heredoc bodies (`RUN <<EOF`) joined as one shell script.
fn dockerfile_instructions(
    file: &str,
    text: &str,
    problems: &mut Vec<ParseProblem>,
) -> Vec<Logical> {
    let escape = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| {
            l.replace(' ', "")
                .to_ascii_lowercase()
                .strip_prefix("#escape=")
                .and_then(|v| v.chars().next())
        })
        .unwrap_or('\\');
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while lines.peek().is_some() {
        let Some(mut logical) = join_continuations(&mut lines, escape, true)
            .into_iter()
            .next()
        else {
            break;
        };
        if let Some(marker) = heredoc_marker(&logical.text) {
            let mut body = Vec::new();
            let mut closed = false;
            for (i, line) in lines.by_ref() {
                if line.trim() == marker {
                    closed = true;
                    break;
                }
                body.push((i + 1, line.to_string()));
            }
            if !closed {
                problems.push(ParseProblem {
                    file: file.to_string(),
                    line: logical.lines.first().map(|l| l.0),
                    message: format!("the heredoc `<<{marker}` is never closed"),
                });
            }
            let script: String = body.iter().map(|(_, l)| format!("{l}\n")).collect();
            let keyword = split_keyword(&logical.text).0.to_string();
            for sub in join_continuations(script.lines().enumerate(), '\\', false) {
                let offset = body.first().map_or(0, |b| b.0 - 1);
                out.push(Logical {
                    lines: sub
                        .lines
                        .iter()
                        .map(|(n, t)| (n + offset, t.clone()))
                        .collect(),
                    text: format!("{keyword} {}", strip_shell_comment(&sub.text)),
                });
            }
            logical.text = format!("{keyword} true");
        }
        out.push(logical);
    }
    out
}

fn heredoc_marker(text: &str) -> Option<String> {
    let at = text.find("<<")?;
    let rest = text[at + 2..].trim_start_matches('-');
    let marker: String = rest
        .trim_matches(|c| c == '"' || c == '\'')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!marker.is_empty()).then_some(marker)
}

/// Join `escape`-continued lines into logical lines. With `one`, stop after the first logical
/// line that is not blank or a comment (Dockerfile: one instruction at a time).
fn join_continuations<'a>(
    lines: impl IntoIterator<Item = (usize, &'a str)>,
    escape: char,
    one: bool,
) -> Vec<Logical> {
    let mut out = Vec::new();
    let mut current = Logical {
        lines: Vec::new(),
        text: String::new(),
    };
    for (i, raw) in lines {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = raw.trim();
        if current.lines.is_empty() && (trimmed.is_empty() || (one && trimmed.starts_with('#'))) {
            continue;
        }
        if !current.lines.is_empty() && one && trimmed.starts_with('#') {
            continue;
        }
        current.lines.push((i + 1, raw.to_string()));
        match trimmed.strip_suffix(escape) {
            Some(head) => {
                current.text.push_str(head);
                current.text.push(' ');
            }
            None => {
                current.text.push_str(trimmed);
                out.push(std::mem::replace(
                    &mut current,
                    Logical {
                        lines: Vec::new(),
                        text: String::new(),
                    },
                ));
                if one {
                    return out;
                }
            }
        }
    }
    if !current.lines.is_empty() {
        out.push(current);
    }
    out
}

fn split_keyword(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    match text.find(char::is_whitespace) {
        Some(i) => (&text[..i], &text[i..]),
        None => (text, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(pins: &[Pin]) -> Vec<(usize, PinKind, String, Vec<String>)> {
        pins.iter()
            .map(|p| (p.line, p.kind, p.requirement.to_string(), p.flags.clone()))
            .collect()
    }

    #[test]
    fn dockerfile_run_continuations_and_chains() {
        let text = "FROM python:3.12\n# comment\nRUN pip install torch==2.11.0 numpy && \\\n    echo hi; \\\n    python3 -m pip install --force-reinstall --no-deps \\\n      triton==3.7.0\nRUN [\"pip\", \"install\", \"filelock==4.2.12\"]\nRUN uv pip install --no-deps /wheels/triton-3.7.0-cp312-cp312-manylinux_2_28_x86_64.whl\n";
        let mut problems = Vec::new();
        let pins = dockerfile_pins("Dockerfile", text, &mut Vec::new(), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        let flags = vec!["--force-reinstall".to_string(), "--no-deps".to_string()];
        assert_eq!(
            found(&pins),
            [
                (3, PinKind::PipPin, "torch==2.11.0".to_string(), vec![]),
                (6, PinKind::PipForce, "triton==3.7.0".to_string(), flags),
                (7, PinKind::PipPin, "filelock==4.2.12".to_string(), vec![]),
                (
                    8,
                    PinKind::PipForce,
                    "triton==3.7.0".to_string(),
                    vec!["--no-deps".to_string()]
                ),
            ]
        );
        let context: Vec<String> = pins[1]
            .context
            .requirements
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(context, ["torch==2.11.0", "numpy"]);
    }

    #[test]
    fn heredocs_and_scripts() {
        let text =
            "FROM x\nRUN <<EOF\nset -e\npip install --no-deps triton==3.7.0  # forced\nEOF\n";
        let mut problems = Vec::new();
        let pins = dockerfile_pins("Dockerfile", text, &mut Vec::new(), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(pins[0].line, 4);
        let script = "#!/bin/sh\nset -e\nif true; then pip3 install 'torch==2.11.0'; fi\n";
        let pins = script_pins("setup.sh", script, &mut Vec::new(), &mut problems);
        assert_eq!(
            found(&pins),
            [(3, PinKind::PipPin, "torch==2.11.0".to_string(), vec![])]
        );
    }

    #[test]
    fn files_copied_into_the_image_are_read_from_the_build_context() {
        let text = "FROM python:3.12\n\
            COPY requirements_docker.txt requirements_versions.txt /tmp/\n\
            WORKDIR /app\n\
            COPY deps/constraints.txt c.txt\n\
            COPY docker/ ./d\n\
            RUN pip install -r /tmp/requirements_docker.txt -r /tmp/requirements_versions.txt \\\n\
              -c c.txt -r d/dev.txt -r other.txt\n";
        let mut includes = Vec::new();
        dockerfile_pins("Dockerfile", text, &mut includes, &mut Vec::new());
        let files: Vec<&str> = includes[0].iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            files,
            [
                "requirements_docker.txt",
                "requirements_versions.txt",
                "deps/constraints.txt",
                "docker/dev.txt",
                "other.txt"
            ]
        );
    }

    #[test]
    fn a_variable_holding_a_requirement_list_and_uv_flag_values() {
        let script = "torch=\"torch==1.8.0 torchvision==0.9.0\"\n\
            pip install $torch\n\
            uv pip install --index-strategy unsafe-best-match --resolution lowest-direct numpy==2.1.0\n";
        let mut problems = Vec::new();
        let pins = script_pins("ci.sh", script, &mut Vec::new(), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        let names: Vec<(usize, String)> = pins
            .iter()
            .map(|p| (p.line, p.requirement.to_string()))
            .collect();
        assert_eq!(
            names,
            [
                (2, "torch==1.8.0".to_string()),
                (2, "torchvision==0.9.0".to_string()),
                (3, "numpy==2.1.0".to_string()),
            ]
        );
        // The flag values are no requirement of the environment either.
        let context: Vec<String> = (pins[2].context.requirements.iter())
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            context,
            ["torch==1.8.0", "torchvision==0.9.0", "numpy==2.1.0"]
        );
    }

    #[test]
    fn malformed_instructions_are_reported_with_their_line() {
        let text = "FROM x\nRUN pip install 'triton==3.7.0\nBOGUS thing\nRUN [\"pip\", \nRUN pip install torch==2.11.0\n";
        let mut problems = Vec::new();
        let pins = dockerfile_pins("docker/Dockerfile", text, &mut Vec::new(), &mut problems);
        let lines: Vec<Option<usize>> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [Some(2), Some(3), Some(4)], "{problems:?}");
        assert_eq!(pins.len(), 1);
        assert_eq!(pins[0].line, 5);
    }
}
