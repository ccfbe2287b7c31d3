//! How a plan is installed, as data: a plan's changes and the flags it was planned under in,
//! [`InstallSteps`] (defined with the plan in `proposal.rs`) out: which releases are installed (under the plan's constraints, forced over
//! their dependents' requirements, or reinstalled at the same version), which dists are removed,
//! and with which flags (the index, whether sources may be built).
//!
//! The plan file stores them (`install`); the pip and uv command lines are rendered from them
//! ([`crate::render::commands`]) and never read back. A plan file of the first schema has only
//! the rendered commands: [`InstallSteps::from_first_schema`] reads its flags from them, once,
//! when the file is read.

use super::proposal::{Action, Change, InstallSteps, Pin, PlanCommandLines};

impl InstallSteps {
    /// The steps that carry out `changes` (sorted by name, as a plan keeps them), with the
    /// index and the build rule the plan was made with.
    pub(crate) fn of(changes: &[Change], index_url: Option<String>, allow_build: bool) -> Self {
        let mut steps = InstallSteps {
            index_url,
            allow_build,
            ..InstallSteps::default()
        };
        for change in changes {
            match (&change.to, change.action) {
                (None, _) | (_, Action::Remove) => steps.remove.push(change.name.clone()),
                (Some(version), action) => {
                    let pin = Pin {
                        name: change.name.clone(),
                        version: version.clone(),
                    };
                    if change.forced {
                        steps.force.push(pin);
                    } else if action == Action::Reinstall {
                        steps.reinstall.push(pin);
                    } else {
                        steps.install.push(pin);
                    }
                }
            }
        }
        steps
    }

    /// The steps of a plan file of the first schema, which stored only the rendered commands:
    /// the changes say what is installed, the pip commands the interpreter (the first command's
    /// first token) and the flags (`--index-url URL`; no `--only-binary` on an install step when
    /// builds were allowed). `None` without commands.
    pub(crate) fn from_first_schema(
        changes: &[Change],
        commands: Option<&PlanCommandLines>,
    ) -> Option<Self> {
        let pip = &commands?.pip;
        let python = pip.first().and_then(|step| step.first()).cloned();
        let index_url = pip.iter().find_map(|step| {
            step.windows(2)
                .find(|pair| pair[0] == "--index-url")
                .map(|pair| pair[1].clone())
        });
        let installs: Vec<&Vec<String>> = pip
            .iter()
            .filter(|step| step.iter().any(|t| t == "install"))
            .collect();
        let allow_build = !installs.is_empty()
            && installs
                .iter()
                .all(|step| !step.iter().any(|t| t == "--only-binary"));
        Some(InstallSteps {
            python,
            ..InstallSteps::of(changes, index_url, allow_build)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use pep440_rs::Version;
    use pep508_rs::PackageName;

    use super::*;

    fn change(name: &str, from: Option<&str>, to: Option<&str>, action: Action) -> Change {
        Change {
            name: PackageName::from_str(name).unwrap(),
            from: from.map(|v| Version::from_str(v).unwrap()),
            to: to.map(|v| Version::from_str(v).unwrap()),
            action,
            forced: false,
            reasons: Vec::new(),
            yanked: None,
            upload_time: None,
            top_level: Vec::new(),
            repair: false,
            from_source_only: false,
        }
    }

    fn names(pins: &[Pin]) -> Vec<String> {
        pins.iter()
            .map(|p| format!("{}=={}", p.name, p.version))
            .collect()
    }

    /// Each change lands in the step that installs it the way the plan means: a forced
    /// release over its dependents, a local build replaced by a reinstall, a removal.
    #[test]
    fn each_change_has_its_step() {
        let mut forced = change("triton", Some("3.6.0"), Some("3.7.0"), Action::Upgrade);
        forced.forced = true;
        let changes = [
            change("numpy", Some("1.26.4"), Some("2.0.2"), Action::Upgrade),
            change(
                "torch",
                Some("2.11.0+cu130"),
                Some("2.11.0"),
                Action::Reinstall,
            ),
            forced,
            change("wheel", Some("0.45.1"), None, Action::Remove),
        ];
        let steps = InstallSteps::of(&changes, Some("http://127.0.0.1:1/simple".into()), true);
        assert_eq!(names(&steps.install), ["numpy==2.0.2"]);
        assert_eq!(names(&steps.reinstall), ["torch==2.11.0"]);
        assert_eq!(names(&steps.force), ["triton==3.7.0"]);
        assert_eq!(steps.remove, [PackageName::from_str("wheel").unwrap()]);
        assert_eq!(
            steps.index_url.as_deref(),
            Some("http://127.0.0.1:1/simple")
        );
        assert!(steps.allow_build);
    }

    /// A plan file of the first schema gets its flags from its pip commands; one without
    /// commands has no steps.
    #[test]
    fn a_first_schema_plan_gets_its_flags_from_its_commands() {
        let changes = [change(
            "numpy",
            Some("1.26.4"),
            Some("2.0.2"),
            Action::Upgrade,
        )];
        let argv = |tokens: &[&str]| tokens.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        let mut commands = PlanCommandLines {
            pip: vec![argv(&[
                "/venv/bin/python",
                "-m",
                "pip",
                "install",
                "--index-url",
                "http://127.0.0.1:1/simple",
                "--",
                "numpy==2.0.2",
            ])],
            uv: Vec::new(),
            files: Default::default(),
        };
        let steps = InstallSteps::from_first_schema(&changes, Some(&commands)).unwrap();
        assert_eq!(
            steps.index_url.as_deref(),
            Some("http://127.0.0.1:1/simple")
        );
        assert!(steps.allow_build);
        assert_eq!(steps.python.as_deref(), Some("/venv/bin/python"));
        assert_eq!(names(&steps.install), ["numpy==2.0.2"]);
        commands.pip[0].splice(4..4, argv(&["--only-binary", ":all:"]));
        let steps = InstallSteps::from_first_schema(&changes, Some(&commands)).unwrap();
        assert!(!steps.allow_build);
        assert_eq!(InstallSteps::from_first_schema(&changes, None), None);
    }
}
