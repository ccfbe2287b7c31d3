//! Install lines in CI files and Makefiles: the shell commands of `.github/workflows/*.yml`
//! (`run:`) and `.gitlab-ci.yml` (`script:`, `before_script:`, ...), and Makefile recipes.
//!
//! In: the file's text. Out: the same pins as a shell script's ([`shell::script_pins_with`]),
//! on the file's own lines: every line that is not a command becomes blank, so line numbers
//! stay those of the file. Only lines that name an installer are kept from YAML (the rest is
//! YAML, not shell); a `\`-continued command keeps its continuation lines.

use super::pins::{ParseProblem, Pin};
use super::shell;
use super::vars::{self, Vars};

/// YAML keys whose value is shell.
const SHELL_KEYS: &[&str] = &["run", "script", "before_script", "after_script", "command"];

/// The pins of a GitHub workflow or GitLab CI file.
pub(crate) fn workflow_pins(
    file: &str,
    text: &str,
    includes: &mut Vec<Vec<(String, bool)>>,
    problems: &mut Vec<ParseProblem>,
) -> Vec<Pin> {
    // Each job runs on its own machine: its steps are one sequence, never another job's.
    let jobs = job_of_each_line(text);
    let count = jobs.iter().copied().max().unwrap_or(0);
    let mut pins = Vec::new();
    for job in 0..=count {
        let mut script = String::new();
        let mut continued = false;
        for (line, of) in text.lines().zip(&jobs) {
            let command = yaml_command(line);
            let keep =
                *of == job && (continued || names_installer(command) || is_assignment(command));
            continued = keep && command.trim_end().ends_with('\\');
            if keep {
                script.push_str(command);
            }
            script.push('\n');
        }
        pins.extend(shell::script_pins(file, &script, includes, problems));
    }
    pins
}

/// For each line, the job it belongs to: 0 before the first job (and in a file without a
/// `jobs:` map, a GitLab file's top-level keys are the jobs), then 1, 2, ... for each key
/// directly under `jobs:` (GitHub) or at the top level (GitLab).
fn job_of_each_line(text: &str) -> Vec<usize> {
    let github = text.lines().any(|l| l.trim_end() == "jobs:");
    let mut job_indent: Option<usize> = None;
    let mut under_jobs = !github;
    let mut job = 0;
    text.lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            let is_key = !trimmed.is_empty()
                && !trimmed.starts_with('#')
                && !trimmed.starts_with('-')
                && trimmed.trim_end().ends_with(':');
            if github && indent == 0 && !trimmed.is_empty() {
                under_jobs = trimmed.trim_end() == "jobs:";
            } else if under_jobs && is_key {
                let at = *job_indent.get_or_insert(indent);
                if indent == at {
                    job += 1;
                }
            }
            job
        })
        .collect()
}

/// The shell text of one YAML line: indentation, list dashes, a shell key and quotes removed.
fn yaml_command(line: &str) -> &str {
    let mut text = line.trim_start();
    while let Some(rest) = text.strip_prefix("- ") {
        text = rest.trim_start();
    }
    for key in SHELL_KEYS {
        if let Some(rest) = text.strip_prefix(key).and_then(|r| r.strip_prefix(':')) {
            text = rest.trim_start();
            break;
        }
    }
    if matches!(text, "|" | "|-" | "|+" | ">" | ">-" | ">+") {
        return "";
    }
    vars::unquote(text.trim_end())
}

fn names_installer(command: &str) -> bool {
    command.contains("pip") && command.contains("install")
}

/// A shell assignment an install line may use (`torch="torch==1.8.0 torchvision==0.9.0"`,
/// `export V=1`): one shell word `NAME=value`.
fn is_assignment(command: &str) -> bool {
    let bare = command.strip_prefix("export ").unwrap_or(command);
    shlex::split(bare).is_some_and(|words| words.len() == 1) && vars::assignment(bare).is_some()
}

/// The pins of a Makefile: its recipe lines (tab-indented; `@`, `-`, `+` prefixes dropped,
/// `$$` read as `$`), with its `NAME = value` / `:=` / `?=` variables expanded.
pub(crate) fn makefile_pins(
    file: &str,
    text: &str,
    includes: &mut Vec<Vec<(String, bool)>>,
    problems: &mut Vec<ParseProblem>,
) -> Vec<Pin> {
    let mut vars = Vars::new();
    let mut script = String::new();
    for line in text.lines() {
        if let Some(recipe) = line.strip_prefix('\t') {
            let recipe = recipe.trim_start_matches(['@', '-', '+']);
            let expanded = vars::expand(recipe, &vars).replace("$$", "$");
            script.push_str(&expanded);
        } else if let Some((name, value)) = make_assignment(line) {
            let value = vars::expand(&value, &vars);
            vars.insert(name, value);
        }
        script.push('\n');
    }
    shell::script_pins(file, &script, includes, problems)
}

/// `NAME = value`, `NAME := value`, `NAME ?= value`, `NAME ::= value`.
fn make_assignment(line: &str) -> Option<(String, String)> {
    if line.starts_with(char::is_whitespace) || line.trim_start().starts_with('#') {
        return None;
    }
    let at = line.find('=')?;
    let name = line[..at].trim_end_matches([':', '?', '+']).trim();
    let value = line[at + 1..].trim();
    let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then(|| (name.to_string(), value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::pins::PinKind;

    fn found(pins: &[Pin]) -> Vec<(usize, PinKind, String)> {
        pins.iter()
            .map(|p| (p.line, p.kind, p.requirement.to_string()))
            .collect()
    }

    #[test]
    fn github_and_gitlab_shell_lines() {
        let workflow = "name: ci\non: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v5\n      - run: pip install torch==2.11.0\n      - name: force\n        run: |\n          echo \"it's here\"\n          pip install --no-deps \\\n            triton==3.7.0\n";
        let mut problems = Vec::new();
        let pins = workflow_pins("w.yml", workflow, &mut Vec::new(), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            found(&pins),
            [
                (8, PinKind::PipPin, "torch==2.11.0".to_string()),
                (13, PinKind::PipForce, "triton==3.7.0".to_string()),
            ]
        );
        let gitlab = "test:\n  before_script:\n    - \"python -m pip install --force-reinstall filelock==3.32.5\"\n  script:\n    - pytest\n";
        let pins = workflow_pins(".gitlab-ci.yml", gitlab, &mut Vec::new(), &mut problems);
        assert_eq!(
            found(&pins),
            [(3, PinKind::PipForce, "filelock==3.32.5".to_string())]
        );
    }

    #[test]
    fn a_step_variable_holding_requirements_is_expanded() {
        let workflow = "jobs:\n  t:\n    steps:\n      - run: |\n          torch=\"\"\n          if [ \"${{ matrix.torch }}\" == \"1.8.0\" ]; then\n              torch=\"torch==1.8.0 torchvision==0.9.0\"\n          fi\n          pip install -r requirements.txt $torch --index-strategy unsafe-best-match\n";
        let mut problems = Vec::new();
        let pins = workflow_pins("w.yml", workflow, &mut Vec::new(), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            found(&pins),
            [
                (9, PinKind::PipPin, "torch==1.8.0".to_string()),
                (9, PinKind::PipPin, "torchvision==0.9.0".to_string()),
            ]
        );
    }

    #[test]
    fn each_job_is_its_own_sequence() {
        let workflow = "on: push\njobs:\n  a:\n    steps:\n      - run: pip install keras==3.12.0\n  b:\n    steps:\n      - run: pip install -r requirements.txt\n      - run: pip install --no-deps torch==1.8.0\n";
        let mut includes = Vec::new();
        let pins = workflow_pins("w.yml", workflow, &mut includes, &mut Vec::new());
        let torch = pins.iter().find(|p| p.line == 9).unwrap();
        // Job b's torch pin does not see job a's keras; it sees b's own requirements file.
        assert!(torch.context.requirements.is_empty(), "{:?}", torch.context);
        assert_eq!(
            torch.context.installed_files,
            [("requirements.txt".to_string(), false)]
        );
        assert_eq!(job_of_each_line(workflow), [0, 0, 1, 1, 1, 2, 2, 2, 2]);
    }

    #[test]
    fn makefile_recipes_with_variables() {
        let text = "TRITON ?= 3.7.0\nPIP := python3 -m pip\n\ngpu:\n\t@$(PIP) install --no-deps triton==$(TRITON)\n\tfor x in a; do echo $$x; done\nunset:\n\tpip install torch==$(TORCH)\n";
        let mut problems = Vec::new();
        let pins = makefile_pins("Makefile", text, &mut Vec::new(), &mut problems);
        assert_eq!(
            found(&pins),
            [(5, PinKind::PipForce, "triton==3.7.0".to_string())]
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].line, Some(8));
        assert!(problems[0].message.contains("variable"));
    }
}
