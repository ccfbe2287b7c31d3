//! The runtime around the installed versions: GPU driver, CUDA toolkits, the variables that
//! steer the stack, and the compile caches.
//!
//! In: this machine (`/proc/driver/nvidia/version`, `nvidia-smi` when on `PATH`, the
//! `/usr/local/cuda*` folders, `CUDA_HOME`/`CUDA_PATH`, `nvcc` on `PATH`, the cache folders) and
//! the process environment ([`EnvVars`]). Out: a [`Runtime`], recorded in snapshots and the
//! inventory JSON, compared by `diff`. Nothing is written; a fact that cannot be read is absent,
//! never guessed (`gpu.driver: null` and `gpu.note` say so on a machine without a driver).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::env_vars::EnvVars;

/// Variable names whose values steer the stack, by prefix.
const PREFIXES: &[&str] = &[
    "CUDA_",
    "TORCH_",
    "TORCHINDUCTOR_",
    "TRITON_",
    "PYTORCH_",
    "XLA_",
    "JAX_",
    "NCCL_",
    "NVIDIA_",
    "PIP_",
    "UV_",
];
/// Variable names read whole.
const NAMES: &[&str] = &["LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH"];
/// A name holding one of these has its value masked.
const SECRET_WORDS: &[&str] = &["TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"];
/// At most this many files are counted per cache folder.
const MAX_CACHE_FILES: usize = 500_000;
/// At most this many Triton metadata files are opened for the version that wrote them.
const MAX_WRITER_READS: usize = 200;

/// The GPU side: driver and devices.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Gpu {
    /// The NVIDIA kernel driver's version (`None`: no driver on this machine).
    pub driver: Option<String>,
    /// The GPUs `nvidia-smi` lists: `name (compute capability X.Y)`.
    pub devices: Vec<String>,
    /// How it was learned, or `none: ...` said plainly.
    pub note: String,
}

/// One CUDA toolkit folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Toolkit {
    /// The folder (as found; symlinks kept as named).
    pub path: String,
    /// Its version from `version.json` or `version.txt`, else from its `bin/nvcc --version`
    /// (`None`: none of them readable).
    pub version: Option<String>,
    /// Where it was found: `/usr/local/cuda*`, `CUDA_HOME`, `CUDA_PATH`, `nvcc on PATH`.
    pub found_by: Vec<String>,
}

/// One compile cache folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Cache {
    /// `inductor`, `triton`, `jax`, `cupy`.
    pub kind: String,
    /// The folder (from its variable, else the library's default).
    pub path: String,
    /// Whether it exists.
    pub exists: bool,
    /// Files in it (up to 500,000).
    pub entries: u64,
    /// Their bytes.
    pub bytes: u64,
    /// The newest file's modification time (RFC 3339).
    pub newest_write: Option<String>,
    /// The versions that wrote it, where the cache records them (Triton's metadata files:
    /// `triton_version`); empty when not recorded.
    pub writers: Vec<String>,
}

/// The runtime context of one machine and process.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Runtime {
    /// Driver and GPUs.
    pub gpu: Gpu,
    /// CUDA toolkits, by path.
    pub cuda_toolkits: Vec<Toolkit>,
    /// The variables that steer the stack, by name; secret-looking values masked (`****`).
    pub variables: BTreeMap<String, String>,
    /// The compile caches.
    pub caches: Vec<Cache>,
}

/// Read this machine's runtime context.
pub(crate) fn collect(env: &EnvVars) -> Runtime {
    Runtime {
        gpu: gpu(env),
        cuda_toolkits: toolkits(env),
        variables: variables(env),
        caches: caches(env),
    }
}

/// The first `N.N(.N)` token of the driver's version file.
fn driver_version(text: &str) -> Option<String> {
    text.split_whitespace()
        .find(|t| {
            t.split('.').count() >= 2
                && t.split('.')
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(str::to_string)
}

fn gpu(env: &EnvVars) -> Gpu {
    let proc = crate::bounded::read_text(Path::new("/proc/driver/nvidia/version"), 1 << 16).ok();
    let mut gpu = Gpu {
        driver: proc.as_deref().and_then(driver_version),
        ..Gpu::default()
    };
    let smi = find_on_path(env, "nvidia-smi").and_then(|smi| {
        std::process::Command::new(smi)
            .args([
                "--query-gpu=name,compute_cap,driver_version",
                "--format=csv,noheader",
            ])
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
    });
    if let Some(out) = smi {
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if let [name, cap, driver] = fields[..] {
                gpu.devices
                    .push(format!("{name} (compute capability {cap})"));
                gpu.driver.get_or_insert_with(|| driver.to_string());
            }
        }
    }
    gpu.note = match (&gpu.driver, gpu.devices.is_empty()) {
        (None, _) => {
            "none: no NVIDIA driver (/proc/driver/nvidia/version) and no nvidia-smi".to_string()
        }
        (Some(_), true) => {
            "driver from /proc/driver/nvidia/version; nvidia-smi listed no GPU".to_string()
        }
        (Some(_), false) => {
            "driver and GPUs from /proc/driver/nvidia/version and nvidia-smi".to_string()
        }
    };
    gpu
}

fn find_on_path(env: &EnvVars, name: &str) -> Option<PathBuf> {
    let path = env.get_os("PATH")?;
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|file| file.is_file())
}

/// A toolkit folder's version: `version.json`'s `cuda.version`, else `version.txt`'s last word,
/// else what its own `bin/nvcc --version` says (toolkits installed without either file, as in
/// some container images).
fn toolkit_version(dir: &Path) -> Option<String> {
    if let Ok(text) = crate::bounded::read_text(&dir.join("version.json"), 1 << 20) {
        let value: serde_json::Value = serde_json::from_str(&text).ok()?;
        return value["cuda"]["version"].as_str().map(str::to_string);
    }
    if let Ok(text) = crate::bounded::read_text(&dir.join("version.txt"), 1 << 20) {
        return text.split_whitespace().last().map(str::to_string);
    }
    let nvcc = dir.join("bin/nvcc");
    if !nvcc.is_file() {
        return None;
    }
    let out = std::process::Command::new(nvcc)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    nvcc_version(&String::from_utf8_lossy(&out.stdout))
}

/// The version in `nvcc --version`'s last line, `Cuda compilation tools, release 12.8,
/// V12.8.93`: the word after `V` (`12.8.93`), else the release (`12.8`).
fn nvcc_version(text: &str) -> Option<String> {
    let line = text.lines().rev().find(|l| l.contains("release "))?;
    let full = line
        .split([',', ' '])
        .find_map(|w| w.strip_prefix('V'))
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()));
    let release = line.split("release ").nth(1)?.split(',').next()?.trim();
    Some(full.unwrap_or(release).to_string())
}

fn toolkits(env: &EnvVars) -> Vec<Toolkit> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir("/usr/local") {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("cuda") && entry.path().is_dir() {
                let path = entry.path().to_string_lossy().into_owned();
                found
                    .entry(path)
                    .or_default()
                    .push("/usr/local/cuda*".into());
            }
        }
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(path) = env.get(var).filter(|p| !p.is_empty()) {
            found.entry(path).or_default().push(var.into());
        }
    }
    if let Some(nvcc) = find_on_path(env, "nvcc")
        && let Some(root) = nvcc.parent().and_then(Path::parent)
    {
        let path = root.to_string_lossy().into_owned();
        found.entry(path).or_default().push("nvcc on PATH".into());
    }
    found
        .into_iter()
        .map(|(path, found_by)| Toolkit {
            version: toolkit_version(Path::new(&path)),
            path,
            found_by,
        })
        .collect()
}

/// Whether a variable's value is shown: not when its name holds a secret word.
fn mask(name: &str, value: &str) -> String {
    let upper = name.to_ascii_uppercase();
    if SECRET_WORDS.iter().any(|w| upper.contains(w)) {
        return "****".to_string();
    }
    crate::logging::redact_text(value, &[])
}

fn variables(env: &EnvVars) -> BTreeMap<String, String> {
    env.iter()
        .filter(|(name, _)| NAMES.contains(name) || PREFIXES.iter().any(|p| name.starts_with(p)))
        .map(|(name, value)| (name.to_string(), mask(name, value)))
        .collect()
}

/// The user name torch puts in its inductor cache folder (`getpass.getuser()`).
fn user(env: &EnvVars) -> Option<String> {
    ["LOGNAME", "USER", "LNAME", "USERNAME"]
        .iter()
        .find_map(|v| env.get(v).filter(|u| !u.is_empty()))
}

/// The compile cache folders (from their variables, else the libraries' defaults), read.
pub(crate) fn caches(env: &EnvVars) -> Vec<Cache> {
    let home = env.get("HOME").map(PathBuf::from);
    let at = |var: &str, default: Option<PathBuf>| env.get(var).map(PathBuf::from).or(default);
    let folders = [
        (
            "inductor",
            at(
                "TORCHINDUCTOR_CACHE_DIR",
                user(env).map(|u| std::env::temp_dir().join(format!("torchinductor_{u}"))),
            ),
        ),
        (
            "triton",
            at(
                "TRITON_CACHE_DIR",
                home.as_ref().map(|h| h.join(".triton/cache")),
            ),
        ),
        (
            "jax",
            at(
                "JAX_COMPILATION_CACHE_DIR",
                home.as_ref().map(|h| h.join(".cache/jax")),
            ),
        ),
        (
            "cupy",
            at(
                "CUPY_CACHE_DIR",
                home.as_ref().map(|h| h.join(".cupy/kernel_cache")),
            ),
        ),
    ];
    folders
        .into_iter()
        .filter_map(|(kind, path)| Some(cache(kind, &path?)))
        .collect()
}

fn cache(kind: &str, path: &Path) -> Cache {
    let mut cache = Cache {
        kind: kind.to_string(),
        path: path.to_string_lossy().into_owned(),
        exists: path.is_dir(),
        entries: 0,
        bytes: 0,
        newest_write: None,
        writers: Vec::new(),
    };
    let mut newest = None;
    let mut writers = std::collections::BTreeSet::new();
    let mut reads = 0;
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                continue;
            }
            if kind.is_dir() {
                stack.push(entry.path());
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            cache.entries += 1;
            cache.bytes += meta.len();
            newest = newest.max(meta.modified().ok());
            if entry.file_name().to_string_lossy().ends_with(".json") && reads < MAX_WRITER_READS {
                reads += 1;
                writers.extend(writer(&entry.path()));
            }
            if cache.entries as usize >= MAX_CACHE_FILES {
                stack.clear();
                break;
            }
        }
    }
    // Whole seconds, as the snapshot script writes them.
    cache.newest_write = newest
        .and_then(|t| jiff::Timestamp::try_from(t).ok())
        .and_then(|t| jiff::Timestamp::from_second(t.as_second()).ok())
        .map(|t| t.to_string());
    cache.writers = writers.into_iter().collect();
    cache
}

/// `triton_version` of a Triton cache metadata file, when it records one.
fn writer(path: &Path) -> Option<String> {
    let text = crate::bounded::read_text(path, 1 << 20).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value["triton_version"]
        .as_str()
        .map(|v| format!("triton {v}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `probe.py`, the standalone snapshot script that runs where planner does not, reads the
    /// runtime variables as [`variables`] does: its tuples hold these lists, in this order.
    #[test]
    fn the_probe_reads_and_masks_the_same_variables() {
        let script = include_str!("probe.py");
        let tuple = |name: &str| -> Vec<&str> {
            let start = script
                .find(&format!("\n{name} = ("))
                .unwrap_or_else(|| panic!("no {name} in probe.py"));
            let body = &script[start..];
            let body = &body[..body.find(')').unwrap()];
            body.split('"').skip(1).step_by(2).collect()
        };
        assert_eq!(tuple("RUNTIME_PREFIXES"), PREFIXES);
        assert_eq!(tuple("RUNTIME_NAMES"), NAMES);
        assert_eq!(tuple("SECRET_WORDS"), SECRET_WORDS);
    }

    #[test]
    fn the_driver_version_is_the_first_dotted_number() {
        let text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  2 2025\n\
                    GCC version:  gcc version 13.3.0";
        assert_eq!(driver_version(text).as_deref(), Some("580.159.04"));
        assert_eq!(driver_version("nothing here"), None);
    }

    #[test]
    fn steering_variables_are_kept_and_secrets_masked() {
        let env = EnvVars::from_pairs([
            ("CUDA_HOME", "/opt/cuda-12.8"),
            ("TORCH_CUDA_ARCH_LIST", "9.0;10.0"),
            ("PIP_INDEX_URL", "https://me:tok123@example.invalid/simple"),
            ("UV_PUBLISH_TOKEN", "abc"),
            ("HOME", "/root"),
        ]);
        let vars = variables(&env);
        assert_eq!(vars.len(), 4, "{vars:?}");
        assert_eq!(vars["CUDA_HOME"], "/opt/cuda-12.8");
        assert_eq!(vars["UV_PUBLISH_TOKEN"], "****");
        assert!(!vars["PIP_INDEX_URL"].contains("tok123"), "{vars:?}");
    }

    #[test]
    fn a_toolkit_named_by_cuda_home_has_its_version_json_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("version.json"),
            r#"{"cuda": {"name": "CUDA SDK", "version": "12.8.93"}}"#,
        )
        .unwrap();
        let home = dir.path().to_str().unwrap();
        let found = toolkits(&EnvVars::from_pairs([("CUDA_HOME", home)]));
        let ours = found.iter().find(|t| t.path == home).unwrap();
        assert_eq!(ours.version.as_deref(), Some("12.8.93"));
        assert_eq!(ours.found_by, ["CUDA_HOME"]);
    }

    /// A toolkit with neither `version.json` nor `version.txt` (as on some container images)
    /// has its version from its own `bin/nvcc --version`.
    #[test]
    fn a_toolkit_without_version_files_asks_its_nvcc() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let nvcc = dir.path().join("bin/nvcc");
        std::fs::create_dir_all(nvcc.parent().unwrap()).unwrap();
        std::fs::write(
            &nvcc,
            "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n\
             echo 'Cuda compilation tools, release 13.0, V13.0.88'\n\
             echo 'Build cuda_13.0.r13.0/compiler.36424714_0'\n",
        )
        .unwrap();
        std::fs::set_permissions(&nvcc, std::fs::Permissions::from_mode(0o755)).unwrap();
        let home = dir.path().to_str().unwrap();
        let found = toolkits(&EnvVars::from_pairs([("CUDA_HOME", home)]));
        let ours = found.iter().find(|t| t.path == home).unwrap();
        assert_eq!(ours.version.as_deref(), Some("13.0.88"));
        assert_eq!(
            nvcc_version("Cuda compilation tools, release 12.8\n").as_deref(),
            Some("12.8")
        );
    }

    #[test]
    fn a_cache_folder_is_counted_with_its_writer() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ab")).unwrap();
        std::fs::write(
            dir.path().join("ab/k.json"),
            r#"{"triton_version": "3.6.0"}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("ab/k.cubin"), [0u8; 100]).unwrap();
        let cache = cache("triton", dir.path());
        assert!(cache.exists);
        assert_eq!(cache.entries, 2);
        assert_eq!(cache.bytes, 100 + 27);
        assert!(cache.newest_write.is_some());
        assert_eq!(cache.writers, ["triton 3.6.0"]);
    }
}
