//! Finding the environment and learning its interpreter's facts.
//!
//! In: an [`EnvironmentSelection`] (made from `--venv`, `--from-snapshot`, `$VIRTUAL_ENV`,
//! `--python-version` and `--python-platform` by the settings layer) and, for discovery, the
//! file system (`./.venv`, `python3` on `PATH`). Out: an [`Inventory`]. The interpreter is asked
//! once (the [`probe`](super::probe), one subprocess) for markers, tags, site-packages and
//! prefix; when it cannot run (a copied venv, a venv of another machine) `pyvenv.cfg` and host
//! facts stand in, and a note says so.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::{MarkerEnvironment, MarkerEnvironmentBuilder};

use super::probe::{ProbeOutput, probe};
use super::target::{self, Os, Platform, PythonVersion, TargetPlatform};
use super::{
    EnvNote, Environment, EnvironmentOrigin, InstalledDist, Inventory, InventoryError, NoteKind,
    UnreadableDist, scan, snapshot,
};
use crate::env_vars::EnvVars;
use crate::tags::{Tag, Tags};

/// Which environment to read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum EnvironmentSource {
    /// `--venv PATH`.
    Venv(PathBuf),
    /// `--from-snapshot FILE`.
    Snapshot(PathBuf),
    /// `--python PATH`: the environment of this interpreter.
    Python(PathBuf),
    /// The active virtual environment (`$VIRTUAL_ENV`).
    ActiveVenv(PathBuf),
    /// None named: `./.venv`, else the `python3` on `PATH`.
    #[default]
    Discover,
}

impl EnvironmentSource {
    /// The path the user named on the command line (`--venv` or `--from-snapshot`).
    pub(crate) fn named(&self) -> Option<&Path> {
        match self {
            EnvironmentSource::Venv(path)
            | EnvironmentSource::Snapshot(path)
            | EnvironmentSource::Python(path) => Some(path),
            EnvironmentSource::ActiveVenv(_) | EnvironmentSource::Discover => None,
        }
    }

    /// The `--venv` path, if one was given.
    pub(crate) fn venv_flag(&self) -> Option<&Path> {
        match self {
            EnvironmentSource::Venv(path) => Some(path),
            _ => None,
        }
    }
}

/// The environment to read and the target to plan for instead of its own, all parsed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct EnvironmentSelection {
    /// Where the installed set comes from.
    pub source: EnvironmentSource,
    /// `--python-version`.
    pub python_version: Option<PythonVersion>,
    /// `--python-platform`.
    pub python_platform: Option<TargetPlatform>,
}

/// Read the selected environment (`--venv`, `--from-snapshot`, `$VIRTUAL_ENV`, else `./.venv`,
/// else the `python3` on `PATH`), then apply `--python-version` and `--python-platform`.
pub(crate) fn load(selection: &EnvironmentSelection) -> Result<Inventory, InventoryError> {
    let _stage = crate::logging::Stage::start("inventory");
    let inventory = match &selection.source {
        EnvironmentSource::Venv(path) => load_venv_from(path, "--venv")?,
        EnvironmentSource::Snapshot(path) => snapshot::load(path)?,
        EnvironmentSource::Python(python) => load_python(python)?,
        EnvironmentSource::ActiveVenv(path) => load_venv_from(path, "$VIRTUAL_ENV")?,
        EnvironmentSource::Discover if Path::new(".venv").is_dir() => {
            load_venv_from(Path::new(".venv"), "./.venv")?
        }
        EnvironmentSource::Discover => match find_on_path("python3") {
            Some(python) => {
                let note = format!(
                    "no --venv, $VIRTUAL_ENV or ./.venv: reading the environment of `{}` on PATH",
                    python.display()
                );
                load_interpreter(&python, Some(note))?
            }
            None => return Err(InventoryError::NoEnvironment),
        },
    };
    refuse_python2(&inventory, &selection.source)?;
    apply_overrides(
        inventory,
        selection.python_version.as_ref(),
        selection.python_platform.as_ref(),
    )
}

/// A Python 2 environment read from `source` is refused ([`InventoryError::Python2`]).
fn refuse_python2(inventory: &Inventory, source: &EnvironmentSource) -> Result<(), InventoryError> {
    let version = &inventory.environment.python_version;
    if version.release().first().is_none_or(|major| *major >= 3) {
        return Ok(());
    }
    let path = match source {
        EnvironmentSource::Venv(path)
        | EnvironmentSource::Snapshot(path)
        | EnvironmentSource::Python(path)
        | EnvironmentSource::ActiveVenv(path) => path.clone(),
        EnvironmentSource::Discover => inventory.environment.prefix.clone().unwrap_or_default(),
    };
    Err(InventoryError::Python2 {
        path,
        version: version.to_string(),
    })
}

/// Read one virtual environment (no overrides applied).
pub fn load_venv(path: &Path) -> Result<Inventory, InventoryError> {
    load_venv_from(path, "--venv")
}

fn load_venv_from(path: &Path, from: &'static str) -> Result<Inventory, InventoryError> {
    if !path.exists() {
        return Err(InventoryError::NotFound {
            path: path.to_path_buf(),
            from,
        });
    }
    let cfg = path.join("pyvenv.cfg");
    let python = interpreter_of(path);
    let layout_site_packages = layout_site_packages(path);
    if !cfg.is_file() && python.is_none() && layout_site_packages.is_empty() {
        return Err(InventoryError::NotAVenv {
            path: path.to_path_buf(),
        });
    }
    let mut notes = Vec::new();
    let environment = match python.as_deref().map(|p| (p, probe(p))) {
        Some((python, Ok(out))) => {
            let mut environment = environment_from_probe(python, out, Vec::new())?;
            // Python's own site module drops a site-packages that leads nowhere (a dangling
            // symlink, a loop), so the interpreter never names it: read it anyway, so that the
            // error says why instead of listing no dists.
            for path in &layout_site_packages {
                if !path.is_dir() && !environment.site_packages.contains(path) {
                    environment.site_packages.push(path.clone());
                }
            }
            environment
        }
        other => {
            let why = match other {
                Some((python, Err(reason))) => {
                    format!(
                        "its interpreter `{}` did not answer ({reason})",
                        python.display()
                    )
                }
                _ => "it has no interpreter (no bin/python)".to_string(),
            };
            let note = format!(
                "`{}` was read without running Python: {why}; the Python version comes from \
                 pyvenv.cfg and the platform from this host",
                path.display()
            );
            if python.is_some() {
                // A broken interpreter is worth saying on every run.
                notes.push(EnvNote::other(note));
            } else {
                // A venv without one (a copied or recorded tree) is read the same way every
                // time: said under -v only.
                log::info!("{note}");
            }
            environment_from_pyvenv_cfg(path, &cfg, layout_site_packages, notes)?
        }
    };
    let (dists, unreadable) = scan_logged(&environment)?;
    Ok(Inventory {
        environment,
        dists,
        unreadable,
    })
}

/// Scan the environment's site-packages folders, saying what was read on the `-v` log.
fn scan_logged(
    environment: &Environment,
) -> Result<(Vec<InstalledDist>, Vec<UnreadableDist>), InventoryError> {
    log::debug!(
        "Python {} ({:?}); reading {}",
        environment.python_version,
        environment.origin,
        environment
            .site_packages
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (mut dists, unreadable) = scan::scan_site_packages(&environment.site_packages)?;
    super::pth::add_modules(&mut dists, environment);
    log::debug!(
        "{} distributions read, {} unreadable",
        dists.len(),
        unreadable.len()
    );
    Ok((dists, unreadable))
}

/// Read the environment of one interpreter (`--python`).
pub(crate) fn load_python(python: &Path) -> Result<Inventory, InventoryError> {
    load_interpreter(python, None)
}

/// Ask an interpreter (`--python`, or the `python3` on PATH, which `note` says) and read its
/// site-packages.
fn load_interpreter(python: &Path, note: Option<String>) -> Result<Inventory, InventoryError> {
    let out = probe(python).map_err(|reason| InventoryError::ProbeFailed {
        python: python.to_path_buf(),
        reason,
    })?;
    let environment =
        environment_from_probe(python, out, note.into_iter().map(EnvNote::other).collect())?;
    let (dists, unreadable) = scan_logged(&environment)?;
    Ok(Inventory {
        environment,
        dists,
        unreadable,
    })
}

/// The interpreter of a venv, if its file exists.
fn interpreter_of(venv: &Path) -> Option<PathBuf> {
    ["bin/python3", "bin/python", "Scripts/python.exe"]
        .iter()
        .map(|rel| venv.join(rel))
        .find(|path| path.exists())
}

/// `lib/python*/site-packages` (and `lib64`, `Lib/site-packages`) as they lie on disk.
fn layout_site_packages(venv: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for lib in ["lib", "lib64"] {
        let Ok(entries) = std::fs::read_dir(venv.join(lib)) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy().starts_with("python"))
            .map(|entry| entry.path().join("site-packages"))
            // A site-packages that is there but leads nowhere (a dangling symlink, a loop) is
            // kept, so that reading it fails saying why instead of listing no dists.
            .filter(|path| path.is_dir() || std::fs::symlink_metadata(path).is_ok())
            .collect();
        found.sort();
        for path in found {
            // lib64 is often a symlink to lib.
            let real = path.canonicalize().unwrap_or_else(|_| path.clone());
            if !out
                .iter()
                .any(|p: &PathBuf| p.canonicalize().unwrap_or_else(|_| p.clone()) == real)
            {
                out.push(path);
            }
        }
    }
    let windows = venv.join("Lib").join("site-packages");
    if windows.is_dir() && !out.contains(&windows) {
        out.push(windows);
    }
    out
}

/// Find an executable on `PATH`.
pub(crate) fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = EnvVars::process().get_os("PATH")?;
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

fn environment_from_probe(
    python: &Path,
    out: ProbeOutput,
    mut notes: Vec<EnvNote>,
) -> Result<Environment, InventoryError> {
    let python_version =
        Version::from_str(&out.python_version).map_err(|err| InventoryError::UnknownPython {
            path: python.to_path_buf(),
            reason: format!("it reports version `{}`: {err}", out.python_version),
        })?;
    let tags: Vec<Tag> = out.tags.iter().filter_map(|t| t.parse().ok()).collect();
    if out.tags_source.as_deref() == Some("fallback") {
        notes.push(EnvNote::other(format!(
            "`{}` has neither pip nor packaging; its wheel tags were generated by the probe",
            python.display()
        )));
    }
    Ok(Environment {
        python_version,
        markers: out.markers,
        tags: Tags::new(tags),
        site_packages: out.site_packages,
        pth_paths: out.pth_paths,
        prefix: Some(out.prefix),
        origin: EnvironmentOrigin::Interpreter {
            python: python.to_path_buf(),
            externally_managed: out.externally_managed,
        },
        notes,
    })
}

/// `key = value` lines of a `pyvenv.cfg`, each with its line number (from 1).
fn read_pyvenv_cfg(path: &Path) -> Vec<(String, String, usize)> {
    let Ok(text) = crate::bounded::read_text(path, 1 << 20) else {
        return Vec::new();
    };
    text.lines()
        .zip(1..)
        .filter_map(|(line, number)| line.split_once('=').map(|(k, v)| (k, v, number)))
        .map(|(k, v, number)| (k.trim().to_ascii_lowercase(), v.trim().to_string(), number))
        .collect()
}

fn environment_from_pyvenv_cfg(
    venv: &Path,
    cfg: &Path,
    site_packages: Vec<PathBuf>,
    mut notes: Vec<EnvNote>,
) -> Result<Environment, InventoryError> {
    let values = read_pyvenv_cfg(cfg);
    let get = |key: &str| {
        values
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(k, v, line)| (k.clone(), v.clone(), *line))
    };
    // uv writes `version_info`, venv writes `version`; both are the full version.
    let cfg_line = get("version_info").or_else(|| get("version"));
    let from_cfg = cfg_line.as_ref().map(|(_, v, _)| v.clone());
    let from_layout = site_packages.iter().find_map(|sp| {
        let dir = sp.parent()?.file_name()?.to_str()?;
        dir.strip_prefix("python").map(str::to_string)
    });
    let Some(version_text) = from_cfg.clone().or(from_layout) else {
        return Err(InventoryError::UnknownPython {
            path: venv.to_path_buf(),
            reason: "its interpreter cannot run, its pyvenv.cfg has no `version` line and no \
                     lib/pythonX.Y folder names one"
                .to_string(),
        });
    };
    // Keep `3.12.3` (drop `3.12.3.final.0`-style suffixes some tools write).
    let version_text = version_text
        .split('.')
        .take(3)
        .collect::<Vec<_>>()
        .join(".");
    let exact = version_text.split('.').count() == 3;
    let mut environment =
        Environment::synthesize(&version_text, None).map_err(|err| match err {
            InventoryError::InvalidPythonVersion { message, .. } => InventoryError::UnknownPython {
                path: venv.to_path_buf(),
                reason: match &cfg_line {
                    Some((key, value, line)) => format!(
                        "its pyvenv.cfg line {line}: {key} `{}` is not a Python version ({})",
                        crate::terminal::field(value),
                        crate::terminal::field(&message)
                    ),
                    None => format!(
                        "the lib/python{} folder names no Python version ({})",
                        crate::terminal::field(&version_text),
                        crate::terminal::field(&message)
                    ),
                },
            },
            other => other,
        })?;
    if let (Some(note), Some(best)) = (notes.last_mut(), environment.tags.as_slice().first()) {
        note.text
            .push_str(&format!(" (wheel platform `{}`)", best.platform));
    }
    if from_cfg.is_none() {
        notes.push(EnvNote::other(format!(
            "pyvenv.cfg names no version; Python {version_text} comes from the lib/ folder name"
        )));
    } else if !exact {
        notes.push(EnvNote::other(format!(
            "pyvenv.cfg gives the Python version as `{}`, without a micro version: read as {}",
            crate::terminal::field(&version_text),
            environment.python_version
        )));
    }
    if site_packages.is_empty() {
        return Err(InventoryError::NoSitePackages {
            path: venv.to_path_buf(),
            version: version_text
                .split('.')
                .take(2)
                .collect::<Vec<_>>()
                .join("."),
        });
    }
    notes.append(&mut environment.notes);
    environment.notes = notes;
    environment.site_packages = site_packages;
    environment.prefix = Some(venv.to_path_buf());
    environment.origin = EnvironmentOrigin::PyvenvCfg {
        path: cfg.to_path_buf(),
    };
    Ok(environment)
}

/// The platform the best-ranked tags describe (`manylinux_2_36_x86_64` → Linux glibc 2.36).
pub(crate) fn platform_from_tags(tags: &Tags) -> Option<Platform> {
    for tag in tags.as_slice() {
        let p = tag.platform.as_str();
        if let Some(rest) = p.strip_prefix("manylinux_") {
            let mut parts = rest.splitn(3, '_');
            let major = parts.next()?.parse().ok()?;
            let minor = parts.next()?.parse().ok()?;
            let arch = parts.next()?.to_string();
            return Some(Platform {
                os: Os::Manylinux { major, minor },
                arch,
            });
        }
        if let Some(rest) = p.strip_prefix("musllinux_") {
            let mut parts = rest.splitn(3, '_');
            let major = parts.next()?.parse().ok()?;
            let minor = parts.next()?.parse().ok()?;
            let arch = parts.next()?.to_string();
            return Some(Platform {
                os: Os::Musllinux { major, minor },
                arch,
            });
        }
        if let Some(rest) = p.strip_prefix("macosx_") {
            let mut parts = rest.splitn(3, '_');
            let major = parts.next()?.parse().ok()?;
            let minor = parts.next()?.parse().ok()?;
            let arch = match parts.next()? {
                "arm64" => "aarch64",
                other => other,
            }
            .to_string();
            return Some(Platform {
                os: Os::Macos { major, minor },
                arch,
            });
        }
        if let Some(arch) = p.strip_prefix("win_") {
            let arch = match arch {
                "arm64" => "aarch64",
                _ => "x86_64",
            };
            return Some(Platform {
                os: Os::Windows,
                arch: arch.to_string(),
            });
        }
        if p == "win32" {
            return Some(Platform {
                os: Os::Windows,
                arch: "i686".to_string(),
            });
        }
        if let Some(arch) = p.strip_prefix("linux_") {
            return Some(Platform {
                os: Os::Manylinux {
                    major: target::GLIBC_FLOOR.0,
                    minor: target::GLIBC_FLOOR.1,
                },
                arch: arch.to_string(),
            });
        }
    }
    None
}

/// Apply `--python-version` / `--python-platform` to a read environment: markers and tags are
/// rebuilt for the target; the installed set is kept.
pub(crate) fn apply_overrides(
    mut inventory: Inventory,
    python_version: Option<&PythonVersion>,
    python_platform: Option<&TargetPlatform>,
) -> Result<Inventory, InventoryError> {
    if python_version.is_none() && python_platform.is_none() {
        return Ok(inventory);
    }
    let env = &inventory.environment;
    let (full, major, minor) = match python_version {
        Some(version) => (version.full.clone(), version.major, version.minor),
        None => {
            let release = env.python_version.release();
            let major = release.first().copied().unwrap_or(3);
            let minor = release.get(1).copied().unwrap_or(0);
            (env.python_version.clone(), major, minor)
        }
    };
    let old_version = env.python_version.clone();
    let mut notes = std::mem::take(&mut inventory.environment.notes);
    if let Some(target) = python_platform {
        // Notes that asked for --python-platform are answered now.
        notes.retain(|note| note.kind != NoteKind::PlatformGuess);
        notes.push(EnvNote::other(format!("planning for platform `{target}`")));
    }
    if let Some(version) = python_version {
        notes.push(EnvNote::other(format!(
            "planning for Python {version} instead of the environment's {old_version}"
        )));
    }
    let env = &inventory.environment;
    let platform = match python_platform {
        Some(target) => target.platform.clone(),
        None => match platform_from_tags(&env.tags) {
            Some(platform) => platform,
            None => Platform::from_markers(&env.markers, target::host_glibc())?,
        },
    };
    let base = target::cpython_markers(&full, major, minor, &platform)?;
    let same_platform = base.sys_platform() == env.markers.sys_platform()
        && base.platform_machine() == env.markers.platform_machine();
    let markers = if python_platform.is_some() && !same_platform {
        base
    } else {
        // The platform is the environment's own: keep what it said about it (release, ...).
        let old = &env.markers;
        let full_text = full.to_string();
        let short = format!("{major}.{minor}");
        MarkerEnvironment::try_from(MarkerEnvironmentBuilder {
            implementation_name: old.implementation_name(),
            implementation_version: &full_text,
            os_name: old.os_name(),
            platform_machine: old.platform_machine(),
            platform_python_implementation: old.platform_python_implementation(),
            platform_release: old.platform_release(),
            platform_system: old.platform_system(),
            platform_version: old.platform_version(),
            python_full_version: &full_text,
            python_version: &short,
            sys_platform: old.sys_platform(),
        })
        .map_err(|err| InventoryError::InvalidPythonVersion {
            version: full_text.clone(),
            message: err.to_string(),
        })?
    };
    let tags = target::cpython_tags(major, minor, &platform);
    let environment = &mut inventory.environment;
    environment.python_version = full;
    environment.markers = markers;
    environment.tags = tags;
    environment.notes = notes;
    Ok(inventory)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_from_real_tags() {
        let tags = Tags::new(vec![
            "cp312-cp312-manylinux_2_36_x86_64".parse().unwrap(),
            "py3-none-any".parse().unwrap(),
        ]);
        assert_eq!(
            platform_from_tags(&tags),
            Some(Platform {
                os: Os::Manylinux {
                    major: 2,
                    minor: 36
                },
                arch: "x86_64".into()
            })
        );
        let mac = Tags::new(vec!["cp312-cp312-macosx_14_0_arm64".parse().unwrap()]);
        assert_eq!(
            platform_from_tags(&mac).unwrap().os,
            Os::Macos {
                major: 14,
                minor: 0
            }
        );
    }

    #[test]
    fn missing_and_non_venv_paths_are_errors() {
        let err = load_venv(Path::new("/nonexistent/planner-venv")).unwrap_err();
        assert!(matches!(err, InventoryError::NotFound { .. }));
        let dir = tempfile::tempdir().unwrap();
        let err = load_venv(dir.path()).unwrap_err();
        assert!(matches!(err, InventoryError::NotAVenv { .. }));
    }

    /// A venv whose interpreter exists but cannot answer (a copy from another machine):
    /// the pyvenv.cfg fallback, and the note says why.
    #[cfg(unix)]
    #[test]
    fn an_interpreter_that_fails_falls_back_to_pyvenv_cfg() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let venv = dir.path();
        std::fs::write(venv.join("pyvenv.cfg"), "version = 3.11.9\n").unwrap();
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        let python = venv.join("bin/python3");
        std::fs::write(
            &python,
            "#!/bin/sh\necho 'cannot execute binary file' >&2\nexit 126\n",
        )
        .unwrap();
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::create_dir_all(venv.join("lib/python3.11/site-packages")).unwrap();
        let inventory = load_venv(venv).unwrap();
        let env = &inventory.environment;
        assert_eq!(env.python_version.to_string(), "3.11.9");
        assert!(matches!(env.origin, EnvironmentOrigin::PyvenvCfg { .. }));
        assert!(
            env.notes[0].text.contains("did not answer"),
            "{:?}",
            env.notes
        );
        assert!(
            env.notes[0].text.contains("cannot execute binary file"),
            "{:?}",
            env.notes
        );
        assert!(inventory.dists.is_empty());
    }

    #[test]
    fn pyvenv_cfg_fallback_and_overrides() {
        let dir = tempfile::tempdir().unwrap();
        let venv = dir.path();
        std::fs::write(
            venv.join("pyvenv.cfg"),
            "home = /usr/bin\nversion_info = 3.12.3\n",
        )
        .unwrap();
        let sp = venv.join("lib/python3.12/site-packages/x-1.dist-info");
        std::fs::create_dir_all(&sp).unwrap();
        std::fs::write(sp.join("METADATA"), "Name: x\nVersion: 1\n").unwrap();
        let inventory = load_venv(venv).unwrap();
        assert_eq!(inventory.environment.python_version.to_string(), "3.12.3");
        assert!(matches!(
            inventory.environment.origin,
            EnvironmentOrigin::PyvenvCfg { .. }
        ));
        // No interpreter at all: said under -v only, not on every run.
        assert!(
            inventory
                .environment
                .notes
                .iter()
                .all(|n| !n.text.contains("without running Python")),
            "{:?}",
            inventory.environment.notes
        );
        assert_eq!(inventory.dists.len(), 1);

        let version = PythonVersion::from_str("3.13").unwrap();
        let platform = TargetPlatform::from_str("aarch64-manylinux_2_28").unwrap();
        let over = apply_overrides(inventory, Some(&version), Some(&platform)).unwrap();
        let env = &over.environment;
        assert_eq!(env.markers.python_version().to_string(), "3.13");
        assert_eq!(env.markers.platform_machine(), "aarch64");
        assert_eq!(
            env.tags.as_slice()[0].to_string(),
            "cp313-cp313-manylinux_2_28_aarch64"
        );
        assert!(env.notes.iter().any(|n| n.text.contains("Python 3.13")));
    }
}
