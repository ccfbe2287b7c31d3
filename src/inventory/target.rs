//! Target environments made up from a Python version and a platform, for planning on behalf
//! of a machine the planner cannot ask (`--python-version`, `--python-platform`, a copied venv
//! whose interpreter does not run, a `pip inspect` file that has no wheel tags).
//!
//! In: `3.12` / `3.12.3` and uv's platform spelling (`x86_64-manylinux_2_28`,
//! `aarch64-apple-darwin`, `x86_64-pc-windows-msvc`, `linux`, ...). Out: a full PEP 508
//! [`MarkerEnvironment`] and the wheel tags in the order `packaging.tags.sys_tags()` gives them
//! for CPython on that platform.

use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::{MarkerEnvironment, MarkerEnvironmentBuilder};

use super::{Environment, EnvironmentOrigin, InventoryError};
use crate::tags::{Tag, Tags};

/// The operating system family of a target platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Os {
    /// Linux with glibc: `manylinux_2_N` down to the architecture's floor.
    Manylinux {
        /// glibc major (2).
        major: u16,
        /// glibc minor (`28` for manylinux_2_28).
        minor: u16,
    },
    /// Linux with musl: `musllinux_1_N`.
    Musllinux {
        /// musl major (1).
        major: u16,
        /// musl minor.
        minor: u16,
    },
    /// macOS of at least this version.
    Macos {
        /// macOS major (`11`, `14`).
        major: u16,
        /// macOS minor.
        minor: u16,
    },
    /// Windows.
    Windows,
}

/// A target platform: operating system and CPU architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    /// The OS family (and glibc/macOS version).
    pub os: Os,
    /// The architecture as wheel tags spell it on Linux (`x86_64`, `aarch64`, `i686`); macOS
    /// uses `arm64` for `aarch64`, Windows `amd64`/`arm64`/`win32`.
    pub arch: String,
}

/// The glibc floor assumed when nothing better is known (manylinux2014 = glibc 2.17).
pub(super) const GLIBC_FLOOR: (u16, u16) = (2, 17);
/// The macOS version assumed for `*-apple-darwin` without an explicit version (uv's default).
pub(super) const MACOS_DEFAULT: (u16, u16) = (12, 0);

impl Platform {
    /// Parse uv's `--python-platform` spelling.
    pub fn parse(text: &str) -> Result<Platform, InventoryError> {
        let bad = || InventoryError::UnknownPlatform {
            platform: text.to_string(),
        };
        let lower = text.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "linux" => "x86_64-unknown-linux-gnu",
            "windows" => "x86_64-pc-windows-msvc",
            "macos" => "aarch64-apple-darwin",
            other => other,
        };
        let (arch, rest) = alias.split_once('-').ok_or_else(bad)?;
        let arch = match arch {
            "x86_64" | "amd64" => "x86_64",
            "aarch64" | "arm64" => "aarch64",
            "i686" | "x86" => "i686",
            "ppc64le" | "powerpc64le" => "ppc64le",
            "s390x" => "s390x",
            "armv7" | "armv7l" => "armv7l",
            "riscv64" | "riscv64gc" => "riscv64",
            _ => return Err(bad()),
        }
        .to_string();
        let os = if rest == "unknown-linux-gnu" {
            Os::Manylinux {
                major: GLIBC_FLOOR.0,
                minor: GLIBC_FLOOR.1,
            }
        } else if rest == "unknown-linux-musl" {
            Os::Musllinux { major: 1, minor: 2 }
        } else if let Some(glibc) = rest.strip_prefix("manylinux_") {
            let (major, minor) = parse_pair(glibc, '_').ok_or_else(bad)?;
            Os::Manylinux { major, minor }
        } else if let Some(legacy) = rest.strip_prefix("manylinux") {
            let (major, minor) = match legacy {
                "2014" => (2, 17),
                "2010" => (2, 12),
                "1" => (2, 5),
                _ => return Err(bad()),
            };
            Os::Manylinux { major, minor }
        } else if let Some(musl) = rest.strip_prefix("musllinux_") {
            let (major, minor) = parse_pair(musl, '_').ok_or_else(bad)?;
            Os::Musllinux { major, minor }
        } else if rest == "apple-darwin" {
            Os::Macos {
                major: MACOS_DEFAULT.0,
                minor: MACOS_DEFAULT.1,
            }
        } else if let Some(version) = rest.strip_prefix("apple-darwin") {
            // `aarch64-apple-darwin14.0` style.
            let (major, minor) = parse_pair(version, '.')
                .or_else(|| version.parse().ok().map(|major| (major, 0)))
                .ok_or_else(bad)?;
            Os::Macos { major, minor }
        } else if rest == "pc-windows-msvc" {
            Os::Windows
        } else {
            return Err(bad());
        };
        Ok(Platform { os, arch })
    }

    /// The host this process runs on; Linux glibc is read from `ldd --version`. The second
    /// value is a note when a fact had to be assumed.
    pub fn host() -> (Platform, Option<String>) {
        let arch = match std::env::consts::ARCH {
            "x86" => "i686",
            "powerpc64" => "ppc64le",
            "arm" => "armv7l",
            other => other,
        }
        .to_string();
        match std::env::consts::OS {
            "macos" => (
                Platform {
                    os: Os::Macos {
                        major: MACOS_DEFAULT.0,
                        minor: MACOS_DEFAULT.1,
                    },
                    arch,
                },
                None,
            ),
            "windows" => (
                Platform {
                    os: Os::Windows,
                    arch,
                },
                None,
            ),
            _ => match host_glibc() {
                Some((major, minor)) => (
                    Platform {
                        os: Os::Manylinux { major, minor },
                        arch,
                    },
                    None,
                ),
                None => (
                    Platform {
                        os: Os::Manylinux {
                            major: GLIBC_FLOOR.0,
                            minor: GLIBC_FLOOR.1,
                        },
                        arch,
                    },
                    Some(format!(
                        "could not learn this host's glibc version (not a glibc system?); \
                         assuming manylinux_{}_{} (pass --python-platform to be exact)",
                        GLIBC_FLOOR.0, GLIBC_FLOOR.1
                    )),
                ),
            },
        }
    }

    /// The platform a marker environment describes, as far as markers tell (they do not say
    /// which glibc): Linux takes `glibc` (the host's, or the floor), macOS the default version.
    pub fn from_markers(
        markers: &MarkerEnvironment,
        glibc: Option<(u16, u16)>,
    ) -> Result<Platform, InventoryError> {
        let machine = markers.platform_machine().to_ascii_lowercase();
        let arch = match machine.as_str() {
            "amd64" | "x86_64" | "x64" => "x86_64",
            "arm64" | "aarch64" => "aarch64",
            "x86" | "i386" | "i686" => "i686",
            other => other,
        }
        .to_string();
        let os = match markers.sys_platform() {
            "darwin" => Os::Macos {
                major: MACOS_DEFAULT.0,
                minor: MACOS_DEFAULT.1,
            },
            "win32" => Os::Windows,
            "linux" => {
                let (major, minor) = glibc.unwrap_or(GLIBC_FLOOR);
                Os::Manylinux { major, minor }
            }
            other => {
                return Err(InventoryError::UnknownPlatform {
                    platform: format!("sys_platform {other}"),
                });
            }
        };
        Ok(Platform { os, arch })
    }

    /// Platform tags, best first, as packaging's `platform_tags()` yields them.
    pub fn platform_tags(&self) -> Vec<String> {
        let arch = self.arch.as_str();
        match &self.os {
            Os::Manylinux { major, minor } => {
                let mut out = Vec::new();
                // packaging: glibc 2.5 is the oldest for x86_64/i686, 2.17 for the others.
                let floor = if matches!(arch, "x86_64" | "i686") {
                    4
                } else {
                    16
                };
                if *major == 2 {
                    for m in ((floor + 1)..=*minor).rev() {
                        out.push(format!("manylinux_2_{m}_{arch}"));
                        let legacy = match m {
                            17 => Some("manylinux2014"),
                            12 => Some("manylinux2010"),
                            5 => Some("manylinux1"),
                            _ => None,
                        };
                        if let Some(legacy) = legacy {
                            out.push(format!("{legacy}_{arch}"));
                        }
                    }
                }
                out.push(format!("linux_{arch}"));
                out
            }
            Os::Musllinux { major, minor } => {
                let mut out: Vec<String> = (0..=*minor)
                    .rev()
                    .map(|m| format!("musllinux_{major}_{m}_{arch}"))
                    .collect();
                out.push(format!("linux_{arch}"));
                out
            }
            Os::Macos { major, minor } => {
                let arch = if arch == "aarch64" { "arm64" } else { arch };
                let formats = mac_binary_formats(arch);
                let mut out = Vec::new();
                if *major >= 11 {
                    for m in (11..=*major).rev() {
                        out.extend(formats.iter().map(|f| format!("macosx_{m}_0_{f}")));
                    }
                    for m in (4..=16).rev() {
                        if arch == "x86_64" {
                            out.extend(formats.iter().map(|f| format!("macosx_10_{m}_{f}")));
                        } else {
                            out.push(format!("macosx_10_{m}_universal2"));
                        }
                    }
                } else {
                    for m in (0..=*minor).rev() {
                        out.extend(formats.iter().map(|f| format!("macosx_10_{m}_{f}")));
                    }
                }
                out
            }
            Os::Windows => vec![
                match arch {
                    "aarch64" => "win_arm64",
                    "i686" => "win32",
                    _ => "win_amd64",
                }
                .to_string(),
            ],
        }
    }

    /// The marker values this platform implies: `(os_name, platform_machine, platform_system,
    /// sys_platform)`.
    pub fn marker_values(&self) -> (&'static str, String, &'static str, &'static str) {
        match &self.os {
            Os::Manylinux { .. } | Os::Musllinux { .. } => {
                ("posix", self.arch.clone(), "Linux", "linux")
            }
            Os::Macos { .. } => (
                "posix",
                if self.arch == "aarch64" {
                    "arm64".to_string()
                } else {
                    self.arch.clone()
                },
                "Darwin",
                "darwin",
            ),
            Os::Windows => (
                "nt",
                match self.arch.as_str() {
                    "aarch64" => "ARM64",
                    "i686" => "x86",
                    _ => "AMD64",
                }
                .to_string(),
                "Windows",
                "win32",
            ),
        }
    }
}

/// `_mac_binary_formats` of packaging for the architectures that still matter.
fn mac_binary_formats(arch: &str) -> Vec<&str> {
    match arch {
        "x86_64" => vec![
            "x86_64",
            "intel",
            "fat64",
            "fat32",
            "universal2",
            "universal",
        ],
        "arm64" => vec!["arm64", "universal2"],
        other => vec![other],
    }
}

fn parse_pair(text: &str, sep: char) -> Option<(u16, u16)> {
    let (a, b) = text.split_once(sep)?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The host's glibc version: asked of the C library this process runs on
/// (`gnu_get_libc_version`), else from `ldd --version` (first line ends in `2.36`).
pub(super) fn host_glibc() -> Option<(u16, u16)> {
    static GLIBC: std::sync::OnceLock<Option<(u16, u16)>> = std::sync::OnceLock::new();
    *GLIBC.get_or_init(|| linked_glibc().or_else(ldd_glibc))
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // glibc's own answer, through its C function (SAFETY below)
fn linked_glibc() -> Option<(u16, u16)> {
    unsafe extern "C" {
        fn gnu_get_libc_version() -> *const std::ffi::c_char;
    }
    // SAFETY: glibc returns a pointer to a static, NUL-terminated version string.
    let version = unsafe { std::ffi::CStr::from_ptr(gnu_get_libc_version()) };
    parse_pair(version.to_str().ok()?, '.')
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn linked_glibc() -> Option<(u16, u16)> {
    None
}

fn ldd_glibc() -> Option<(u16, u16)> {
    if std::env::consts::OS != "linux" {
        return None;
    }
    let output = std::process::Command::new("ldd")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    // glibc's ldd prints to stdout; musl's to stderr and names itself.
    let text = String::from_utf8_lossy(&output.stdout);
    let first = text.lines().next()?;
    if !(first.contains("GLIBC") || first.contains("GNU libc") || first.contains("glibc")) {
        return None;
    }
    let last = first.split_whitespace().last()?;
    parse_pair(last, '.')
}

/// The wheel tags of CPython `major.minor` on `platform`, best first, in the order of
/// `packaging.tags.sys_tags()`: `cpXY-cpXY-*`, `cpXY-abi3-*`, `cpXY-none-*`, older `abi3`,
/// then `pyXY-none-*`, `cpXY-none-any`, `pyXY-none-any`.
pub fn cpython_tags(major: u64, minor: u64, platform: &Platform) -> Tags {
    let platforms = platform.platform_tags();
    let cp = format!("cp{major}{minor}");
    let mut out: Vec<Tag> = Vec::new();
    let mut push = |interpreter: &str, abi: &str, platform: &str| {
        out.push(Tag {
            interpreter: interpreter.to_string(),
            abi: abi.to_string(),
            platform: platform.to_string(),
        });
    };
    let abi3 = major == 3 && minor >= 2;
    for p in &platforms {
        push(&cp, &cp, p);
    }
    if abi3 {
        for p in &platforms {
            push(&cp, "abi3", p);
        }
    }
    for p in &platforms {
        push(&cp, "none", p);
    }
    if abi3 {
        for m in (2..minor).rev() {
            let older = format!("cp{major}{m}");
            for p in &platforms {
                push(&older, "abi3", p);
            }
        }
    }
    let mut pys = vec![format!("py{major}{minor}"), format!("py{major}")];
    pys.extend((0..minor).rev().map(|m| format!("py{major}{m}")));
    for py in &pys {
        for p in &platforms {
            push(py, "none", p);
        }
    }
    push(&cp, "none", "any");
    for py in &pys {
        push(py, "none", "any");
    }
    Tags::new(out)
}

/// Parse `X.Y` or `X.Y.Z` into `(full version, X.Y)`; `X.Y` means `X.Y.0` for
/// `python_full_version`.
pub(super) fn parse_python_version(text: &str) -> Result<(Version, u64, u64), InventoryError> {
    let bad = |message: &str| InventoryError::InvalidPythonVersion {
        version: text.to_string(),
        message: message.to_string(),
    };
    let version = Version::from_str(text.trim()).map_err(|err| bad(&err.to_string()))?;
    let release = version.release();
    if release.len() < 2 || release.len() > 3 {
        return Err(bad("expected X.Y or X.Y.Z"));
    }
    if version.is_local() || version.is_post() || version.is_dev() || version.epoch() != 0 {
        return Err(bad("expected a plain release such as 3.12 or 3.12.3"));
    }
    let (major, minor) = (release[0], release[1]);
    let full = if release.len() == 2 {
        Version::new([major, minor, 0])
    } else {
        version.clone()
    };
    Ok((full, major, minor))
}

/// A CPython marker environment for `version` on `platform`; `release`/`version_string` fill
/// `platform_release`/`platform_version` (empty when unknown).
pub(super) fn cpython_markers(
    full: &Version,
    major: u64,
    minor: u64,
    platform: &Platform,
) -> Result<MarkerEnvironment, InventoryError> {
    let (os_name, machine, system, sys_platform) = platform.marker_values();
    let full_text = full.to_string();
    let short = format!("{major}.{minor}");
    MarkerEnvironment::try_from(MarkerEnvironmentBuilder {
        implementation_name: "cpython",
        implementation_version: &full_text,
        os_name,
        platform_machine: &machine,
        platform_python_implementation: "CPython",
        platform_release: "",
        platform_system: system,
        platform_version: "",
        python_full_version: &full_text,
        python_version: &short,
        sys_platform,
    })
    .map_err(|err| InventoryError::InvalidPythonVersion {
        version: full_text.clone(),
        message: err.to_string(),
    })
}

/// `--python-version`: a plain CPython release, `X.Y` or `X.Y.Z`, parsed once at the boundary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonVersion {
    /// The full version (`3.12` becomes `3.12.0`).
    pub full: Version,
    /// The major version.
    pub major: u64,
    /// The minor version.
    pub minor: u64,
    /// The text as given, for notes.
    pub given: String,
}

impl FromStr for PythonVersion {
    type Err = InventoryError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (full, major, minor) = parse_python_version(text)?;
        Ok(PythonVersion {
            full,
            major,
            minor,
            given: text.to_string(),
        })
    }
}

impl std::fmt::Display for PythonVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.given)
    }
}

/// `--python-platform`: a [`Platform`] and the spelling the user gave (for notes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetPlatform {
    /// The parsed platform.
    pub platform: Platform,
    /// The text as given.
    pub given: String,
}

impl FromStr for TargetPlatform {
    type Err = InventoryError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(TargetPlatform {
            platform: Platform::parse(text)?,
            given: text.to_string(),
        })
    }
}

impl std::fmt::Display for TargetPlatform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.given)
    }
}

impl Environment {
    /// A target environment with no installed set, from `--python-version X.Y[.Z]` and
    /// uv-style `--python-platform` (the host when `None`: Linux glibc from `ldd --version`,
    /// else the manylinux_2_17 floor, with a note saying so). A shorthand for
    /// [`Environment::for_target`] that parses both texts.
    pub fn synthesize(
        python_version: &str,
        python_platform: Option<&str>,
    ) -> Result<Environment, InventoryError> {
        let version = PythonVersion::from_str(python_version)?;
        let platform = python_platform.map(Platform::parse).transpose()?;
        Environment::for_target(&version, platform.as_ref())
    }

    /// A target environment with no installed set, for `version` on `platform` (the host when
    /// `None`, with a note saying what was assumed).
    pub(crate) fn for_target(
        version: &PythonVersion,
        platform: Option<&Platform>,
    ) -> Result<Environment, InventoryError> {
        let mut notes = Vec::new();
        let platform = match platform {
            Some(platform) => platform.clone(),
            None => {
                let (platform, note) = Platform::host();
                notes.extend(note.map(super::EnvNote::platform_guess));
                platform
            }
        };
        let (full, major, minor) = (&version.full, version.major, version.minor);
        let markers = cpython_markers(full, major, minor, &platform)?;
        let tags = cpython_tags(major, minor, &platform);
        Ok(Environment {
            python_version: full.clone(),
            markers,
            tags,
            site_packages: Vec::new(),
            pth_paths: Vec::new(),
            prefix: None,
            origin: EnvironmentOrigin::Synthesized,
            notes,
        })
    }
}

/// `--python-version` with `--python-platform`: one target environment per pair, each version
/// on this host's platform when no platform is given, labelled `Python 3.12
/// x86_64-manylinux_2_28` (or `(this host's platform)`); made one at a time, in order.
pub(crate) fn each_target<'a>(
    versions: &'a [PythonVersion],
    platforms: &'a [TargetPlatform],
) -> impl Iterator<Item = Result<(String, Environment), InventoryError>> + 'a {
    let platforms: Vec<Option<&TargetPlatform>> = if platforms.is_empty() {
        vec![None]
    } else {
        platforms.iter().map(Some).collect()
    };
    versions.iter().flat_map(move |version| {
        platforms.clone().into_iter().map(move |platform| {
            let environment = Environment::for_target(version, platform.map(|p| &p.platform))?;
            let label = format!(
                "Python {} {}",
                version.given,
                platform.map_or("(this host's platform)", |p| p.given.as_str())
            );
            Ok((label, environment))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(tags: &Tags) -> Vec<String> {
        tags.as_slice().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn manylinux_2_28_x86_64_matches_packaging_order() {
        let env = Environment::synthesize("3.12", Some("x86_64-manylinux_2_28")).unwrap();
        let tags = strings(&env.tags);
        assert_eq!(tags[0], "cp312-cp312-manylinux_2_28_x86_64");
        assert_eq!(tags[1], "cp312-cp312-manylinux_2_27_x86_64");
        // Legacy aliases follow their glibc version.
        let i = tags
            .iter()
            .position(|t| t == "cp312-cp312-manylinux_2_17_x86_64")
            .unwrap();
        assert_eq!(tags[i + 1], "cp312-cp312-manylinux2014_x86_64");
        let platforms = 28 - 5 + 1 + 3 + 1; // 2_28..2_5, three legacy aliases, linux
        assert_eq!(tags[platforms - 1], "cp312-cp312-linux_x86_64");
        assert_eq!(tags[platforms], "cp312-abi3-manylinux_2_28_x86_64");
        assert_eq!(tags[2 * platforms], "cp312-none-manylinux_2_28_x86_64");
        assert_eq!(tags[3 * platforms], "cp311-abi3-manylinux_2_28_x86_64");
        assert!(tags.contains(&"cp32-abi3-manylinux1_x86_64".to_string()));
        assert!(!tags.contains(&"cp31-abi3-linux_x86_64".to_string()));
        let any = tags.iter().position(|t| t == "cp312-none-any").unwrap();
        assert_eq!(tags[any - 1], "py30-none-linux_x86_64");
        assert_eq!(tags[any + 1], "py312-none-any");
        assert_eq!(tags[any + 2], "py3-none-any");
        assert_eq!(tags.last().unwrap(), "py30-none-any");
        // cp: 3 + 10 older abi3 versions; py: 14 versions; any: 15.
        assert_eq!(tags.len(), platforms * (3 + 10 + 14) + 15);
        assert_eq!(env.markers.sys_platform(), "linux");
        assert_eq!(env.markers.python_full_version().to_string(), "3.12.0");
        assert_eq!(env.python_version.to_string(), "3.12.0");
        assert!(env.notes.is_empty());
    }

    #[test]
    fn uv_aliases() {
        let gnu = Platform::parse("x86_64-unknown-linux-gnu").unwrap();
        assert_eq!(
            gnu.os,
            Os::Manylinux {
                major: 2,
                minor: 17
            }
        );
        assert_eq!(Platform::parse("linux").unwrap(), gnu);
        assert_eq!(
            Platform::parse("aarch64-manylinux2014").unwrap(),
            Platform::parse("aarch64-manylinux_2_17").unwrap()
        );
        let tags = gnu.platform_tags();
        assert_eq!(tags[0], "manylinux_2_17_x86_64");
        assert_eq!(tags[1], "manylinux2014_x86_64");
        assert_eq!(tags.last().unwrap(), "linux_x86_64");
        let arm = Platform::parse("aarch64-manylinux_2_28")
            .unwrap()
            .platform_tags();
        assert_eq!(arm.first().unwrap(), "manylinux_2_28_aarch64");
        assert_eq!(arm[arm.len() - 2], "manylinux2014_aarch64");
        assert!(Platform::parse("sparc-sun-solaris").is_err());
        assert!(Platform::parse("x86_64-manylinux_two").is_err());
    }

    #[test]
    fn macos_and_windows() {
        let env = Environment::synthesize("3.11.4", Some("aarch64-apple-darwin")).unwrap();
        let tags = strings(&env.tags);
        assert_eq!(tags[0], "cp311-cp311-macosx_12_0_arm64");
        assert_eq!(tags[1], "cp311-cp311-macosx_12_0_universal2");
        assert_eq!(tags[2], "cp311-cp311-macosx_11_0_arm64");
        assert!(tags.contains(&"cp311-cp311-macosx_10_9_universal2".to_string()));
        assert!(!tags.contains(&"cp311-cp311-macosx_10_9_arm64".to_string()));
        assert_eq!(env.markers.platform_machine(), "arm64");
        assert_eq!(env.markers.sys_platform(), "darwin");
        assert_eq!(env.markers.python_full_version().to_string(), "3.11.4");

        let intel = Platform::parse("x86_64-apple-darwin")
            .unwrap()
            .platform_tags();
        assert_eq!(
            &intel[..6],
            &[
                "macosx_12_0_x86_64",
                "macosx_12_0_intel",
                "macosx_12_0_fat64",
                "macosx_12_0_fat32",
                "macosx_12_0_universal2",
                "macosx_12_0_universal"
            ]
        );
        assert!(intel.contains(&"macosx_10_9_x86_64".to_string()));

        let win = Environment::synthesize("3.12", Some("x86_64-pc-windows-msvc")).unwrap();
        let tags = strings(&win.tags);
        assert_eq!(tags[0], "cp312-cp312-win_amd64");
        assert_eq!(tags[1], "cp312-abi3-win_amd64");
        assert_eq!(win.markers.os_name(), "nt");
        assert_eq!(win.markers.sys_platform(), "win32");
        assert_eq!(win.markers.platform_system(), "Windows");
    }

    #[test]
    fn rejects_bad_versions() {
        assert!(Environment::synthesize("3", None).is_err());
        assert!(Environment::synthesize("three", None).is_err());
        assert!(Environment::synthesize("3.12.1.4", None).is_err());
        assert!(Environment::synthesize("3.12+cu1", None).is_err());
    }

    #[test]
    fn host_default_is_a_real_platform() {
        let env = Environment::synthesize("3.12", None).unwrap();
        assert!(!env.tags.as_slice().is_empty());
        if cfg!(target_os = "linux") {
            assert_eq!(env.markers.sys_platform(), "linux");
            // Either the glibc was read, or the note says it was assumed.
            let first = env.tags.as_slice()[0].to_string();
            assert!(first.starts_with("cp312-cp312-manylinux_2_"));
            if first == "cp312-cp312-manylinux_2_17_x86_64" {
                assert!(!env.notes.is_empty() || host_glibc() == Some((2, 17)));
            }
        }
    }
}
