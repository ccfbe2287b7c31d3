//! Private compile caches for what a verification or a trial runs.
//!
//! In: a command about to run a check (a `try` `--test` command line). Out: the same command
//! with every compile cache it could warm or reuse (inductor, Triton, JAX, CuPy, torch C++
//! extensions, numba) pointed at folders of its own under one fresh temp folder, and the caches
//! that can be switched off switched off. `verify.py` does the same for its own children
//! (`CACHE_DIRS` and `CACHE_FORCED` in `src/verify/script/main.py`, the same names): a kernel the
//! baseline compiled must not let the run after the plan pass without compiling.

use std::path::Path;
use std::process::Command;

use serde::Serialize;

/// Variables naming a cache folder: each gets a fresh empty one.
pub(crate) const CACHE_DIRS: [&str; 6] = [
    "TORCHINDUCTOR_CACHE_DIR",
    "TRITON_CACHE_DIR",
    "JAX_COMPILATION_CACHE_DIR",
    "CUPY_CACHE_DIR",
    "TORCH_EXTENSIONS_DIR",
    "NUMBA_CACHE_DIR",
];

/// Variables set as they are: inductor's caches and JAX's persistent cache off.
pub(crate) const CACHE_FORCED: [(&str, &str); 2] = [
    ("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1"),
    ("JAX_ENABLE_COMPILATION_CACHE", "false"),
];

/// Which compile caches the checks ran with (`compile_caches` in a try report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum CacheMode {
    /// Fresh empty folders per run, removed afterwards (the default).
    Private,
    /// The user's own (`--warm-caches`).
    Warm,
}

impl CacheMode {
    /// `--warm-caches` or not.
    pub(crate) fn new(warm: bool) -> CacheMode {
        if warm {
            CacheMode::Warm
        } else {
            CacheMode::Private
        }
    }

    /// How a report says it, one line.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            CacheMode::Private => {
                "private: fresh empty folders for each run, removed afterwards (inductor, Triton, \
                 JAX, CuPy; --warm-caches keeps yours)"
            }
            CacheMode::Warm => {
                "yours, as they are (--warm-caches): a kernel compiled before may let a check pass \
                 without compiling"
            }
        }
    }
}

/// Point `command`'s compile caches at fresh folders under `root` (which must exist; the caller
/// removes it afterwards).
pub(crate) fn isolate(command: &mut Command, root: &Path) -> std::io::Result<()> {
    for name in CACHE_DIRS {
        let dir = root.join(name.to_ascii_lowercase());
        std::fs::create_dir(&dir)?;
        command.env(name, dir);
    }
    for (name, value) in CACHE_FORCED {
        command.env(name, value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// verify.py sets the same variables (its children and the `try` shells agree).
    #[test]
    fn the_script_isolates_the_same_caches() {
        let main = include_str!("script/main.py");
        for name in CACHE_DIRS {
            assert!(main.contains(&format!("\"{name}\"")), "{name}");
        }
        for (name, value) in CACHE_FORCED {
            assert!(main.contains(&format!("\"{name}\": \"{value}\"")), "{name}");
        }
    }
}
