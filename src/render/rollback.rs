//! The rollback scripts of a plan folder (`rollback-pip.sh`, `rollback-uv.sh`): they put back
//! exactly what the environment had, for every dist the plan changes, adds or removes.
//!
//! In: the plan and the inventory it was made from (the installed versions, and where each
//! dist came from: `direct_url.json`), and the [`CommandOptions`] of the install commands.
//! Out: a [`Rollback`]: the steps for each installer and what cannot be put back, with why.
//!
//! - a dist the plan adds is uninstalled;
//! - a dist it changes or removes is reinstalled at its installed version, `--no-deps` and
//!   forced (`--force-reinstall` / `--reinstall-package`), so a same-version build switch is
//!   undone too and nothing else moves: from the index the plan was made with (`name==version`),
//!   or from the URL it was installed from (`name @ URL`, a wheel file or a wheel URL);
//! - what cannot be put back that way is refused, and the script stops before changing
//!   anything, naming each: an editable install, a dist built from a folder, an sdist or a VCS
//!   checkout when the plan installs wheels only (reinstalling it would run its build), a
//!   release the index has only as an sdist (the plan's `from_source_only`: installed by a
//!   build, so reinstalling it builds again), a source URL that held credentials (they are
//!   never written).

use std::fmt::Write as _;

use pep508_rs::PackageName;

use super::commands::{
    CommandOptions, index_args, pip_install, pip_uninstall, script_step, uv_install, uv_uninstall,
};
use super::safe::{self, UnsafeValue};
use crate::inventory::{DirectUrl, Inventory, NotReinstallable};
use crate::plan::Plan;

/// One plan's rollback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rollback {
    /// pip steps (argv, tokens unquoted).
    pub pip: Vec<Vec<String>>,
    /// uv steps.
    pub uv: Vec<Vec<String>>,
    /// What cannot be put back, each with why (the scripts refuse to run then).
    pub refused: Vec<NotReinstallable>,
}

/// The rollback of `plan`, made from `inventory` (the environment before it).
pub(crate) fn rollback(
    plan: &Plan,
    inventory: &Inventory,
    settings: &CommandOptions,
) -> Result<Rollback, UnsafeValue> {
    let mut reinstall = Vec::new();
    let mut reinstall_names = Vec::new();
    let mut uninstall = Vec::new();
    let mut refused = Vec::new();
    for change in &plan.changes {
        let Some(from) = &change.from else {
            uninstall.push(safe::name(&change.name)?);
            continue;
        };
        if change.from_source_only && !settings.allow_build {
            let pin = safe::pin(&change.name, from)?;
            refused.push(NotReinstallable::SourceOnly { pin });
            continue;
        }
        let source = inventory
            .get(&change.name)
            .and_then(|d| d.direct_url.as_ref());
        match requirement(&change.name, from, source, settings.allow_build)? {
            Ok(requirement) => {
                reinstall.push(requirement);
                reinstall_names.push(safe::name(&change.name)?);
            }
            Err(why) => refused.push(why),
        }
    }
    let index = index_args(settings)?;
    let mut pip = Vec::new();
    let mut uv = Vec::new();
    if !uninstall.is_empty() {
        pip.push(pip_uninstall(settings, &uninstall));
        uv.push(uv_uninstall(settings, &uninstall));
    }
    if !reinstall.is_empty() {
        let mut argv = pip_install(settings, &index);
        argv.extend(["--force-reinstall".into(), "--no-deps".into(), "--".into()]);
        argv.extend(reinstall.iter().cloned());
        pip.push(argv);
        let mut argv = uv_install(settings, &index);
        argv.push("--no-deps".into());
        for name in &reinstall_names {
            argv.extend(["--reinstall-package".into(), name.clone()]);
        }
        argv.push("--".into());
        argv.extend(reinstall.iter().cloned());
        uv.push(argv);
    }
    Ok(Rollback { pip, uv, refused })
}

/// What reinstalls `name` as it was: `Ok(Ok(requirement))`, or `Ok(Err(why not))`.
pub(crate) fn requirement(
    name: &PackageName,
    version: &pep440_rs::Version,
    source: Option<&DirectUrl>,
    allow_build: bool,
) -> Result<Result<String, NotReinstallable>, UnsafeValue> {
    let pin = safe::pin(name, version)?;
    let builds = |what: &'static str, url: &str| NotReinstallable::Builds {
        pin: pin.clone(),
        name: name.to_string(),
        what,
        url: url.to_string(),
    };
    let unwritable = |url: &str| NotReinstallable::Unwritable {
        pin: pin.clone(),
        url: url.to_string(),
    };
    Ok(match source {
        None => Ok(pin),
        Some(DirectUrl::Directory {
            url,
            editable: true,
        }) => Err(NotReinstallable::Editable {
            pin,
            url: url.clone(),
        }),
        Some(DirectUrl::Directory { url, .. }) if !allow_build => Err(builds("the folder", url)),
        Some(DirectUrl::Vcs { url, .. }) if !allow_build => Err(builds("the checkout of", url)),
        Some(DirectUrl::Archive { url, .. }) if !allow_build && !url.ends_with(".whl") => {
            Err(builds("the source archive", url))
        }
        Some(DirectUrl::Vcs {
            url,
            vcs,
            commit_id,
            ..
        }) => match safe::index_url(url) {
            Ok(url) if commit_id.bytes().all(|b| b.is_ascii_alphanumeric()) => {
                Ok(format!("{} @ {vcs}+{url}@{commit_id}", safe::name(name)?))
            }
            _ => Err(unwritable(url)),
        },
        Some(DirectUrl::Archive { url, .. } | DirectUrl::Directory { url, .. }) => {
            match safe::index_url(url) {
                Ok(url) => Ok(format!("{} @ {url}", safe::name(name)?)),
                Err(_) => Err(unwritable(url)),
            }
        }
    })
}

/// A rollback script for one installer's steps; `python_default` and the index URL come from
/// `$PLANNER_PYTHON` / `$PLANNER_INDEX_URL` as in the install scripts.
pub(crate) fn script(
    rollback: &Rollback,
    steps: &[Vec<String>],
    python_default: &std::path::Path,
    installer: &str,
) -> String {
    let mut out = String::new();
    out.push_str("#!/usr/bin/env bash\n");
    let _ = writeln!(
        out,
        "# Written by planner: put back, with {installer}, every dist the plan changes, adds or \
         removes, as it was when the plan was made. Review it before running."
    );
    out.push_str("set -euo pipefail\n");
    // As in the install scripts: the defaults are single-quoted literals assigned first.
    let _ = writeln!(
        out,
        "PYTHON_DEFAULT={}",
        safe::literal_os(python_default.as_os_str())
    );
    let shown = python_default.display().to_string();
    out.push_str("PYTHON=\"${PLANNER_PYTHON:-$PYTHON_DEFAULT}\"\n");
    let index_url = steps.iter().find_map(|step| {
        step.windows(2)
            .find(|pair| pair[0] == "--index-url")
            .map(|pair| pair[1].clone())
    });
    if let Some(url) = &index_url {
        let _ = writeln!(out, "INDEX_URL_DEFAULT={}", safe::literal(url));
        out.push_str("INDEX_URL=\"${PLANNER_INDEX_URL:-$INDEX_URL_DEFAULT}\"\n");
    }
    if !rollback.refused.is_empty() {
        out.push_str(
            "echo 'rollback: refused; nothing was changed. These cannot be put back:' >&2\n",
        );
        for why in &rollback.refused {
            let _ = writeln!(out, "echo {} >&2", safe::quote(&format!("  {why}")));
        }
        out.push_str("exit 2\n");
        return out;
    }
    if steps.is_empty() {
        out.push_str("echo 'rollback: the plan changes nothing; nothing to put back' >&2\n");
        return out;
    }
    for step in steps {
        out.push_str(&script_step(step, &shown, index_url.as_deref()));
        out.push('\n');
    }
    out.push_str("echo 'rollback: done' >&2\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(source: Option<DirectUrl>, allow_build: bool) -> Result<String, NotReinstallable> {
        let name: PackageName = "pkg".parse().unwrap();
        let version = "1.2".parse().unwrap();
        requirement(&name, &version, source.as_ref(), allow_build).unwrap()
    }

    #[test]
    fn what_can_be_put_back_and_what_is_refused() {
        assert_eq!(req(None, false), Ok("pkg==1.2".to_string()));
        let wheel = DirectUrl::Archive {
            url: "file:///w/pkg-1.2-py3-none-any.whl".into(),
            hash: None,
        };
        assert_eq!(
            req(Some(wheel), false),
            Ok("pkg @ file:///w/pkg-1.2-py3-none-any.whl".to_string())
        );
        let editable = DirectUrl::Directory {
            url: "file:///src/pkg".into(),
            editable: true,
        };
        let why = req(Some(editable), true).unwrap_err().to_string();
        assert!(why.contains("editable install of file:///src/pkg"), "{why}");
        assert!(why.contains("pip install --no-deps -e /src/pkg"), "{why}");
        let vcs = DirectUrl::Vcs {
            url: "https://example.invalid/r.git".into(),
            vcs: "git".into(),
            commit_id: "abc123".into(),
            requested_revision: None,
        };
        assert!(
            req(Some(vcs.clone()), false)
                .unwrap_err()
                .to_string()
                .contains("runs its build")
        );
        assert_eq!(
            req(Some(vcs), true),
            Ok("pkg @ git+https://example.invalid/r.git@abc123".to_string())
        );
        let secret = DirectUrl::Archive {
            url: "https://****@example.invalid/pkg-1.2-py3-none-any.whl".into(),
            hash: None,
        };
        assert!(
            req(Some(secret), false)
                .unwrap_err()
                .to_string()
                .contains("credentials")
        );
    }
}
