//! The runtime context of two environments compared: driver and GPUs, CUDA toolkits, the
//! variables that steer the stack, the compile caches.
//!
//! In: each side's [`Runtime`] (`None`: that side did not record one, as `pip inspect` output or
//! an older snapshot). Out: one [`RuntimeChange`] per fact that differs, in a fixed order
//! (driver, GPUs, toolkits, variables, caches); nothing when either side is unknown.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::inventory::runtime::{Cache, Runtime};

/// One runtime fact that differs between A and B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct RuntimeChange {
    /// `driver`, `gpus`, `cuda-toolkit`, `variable`, `cache`.
    pub what: &'static str,
    /// What it is about: the toolkit's folder, the variable's name, the cache's kind.
    pub name: String,
    /// A's value (`None`: absent in A).
    pub from: Option<String>,
    /// B's value (`None`: absent in B).
    pub to: Option<String>,
    /// What changed, in words: `added`, `removed`, `changed`, `created`, `grown`, `written
    /// by another triton` ...
    pub change: String,
}

fn change(
    what: &'static str,
    name: &str,
    from: Option<String>,
    to: Option<String>,
) -> Option<RuntimeChange> {
    let words = match (&from, &to) {
        (a, b) if a == b => return None,
        (None, Some(_)) => "added",
        (Some(_), None) => "removed",
        _ => "changed",
    };
    Some(RuntimeChange {
        what,
        name: name.to_string(),
        from,
        to,
        change: words.to_string(),
    })
}

/// What differs between A's runtime and B's (empty when either is unknown).
pub(crate) fn compare(a: Option<&Runtime>, b: Option<&Runtime>) -> Vec<RuntimeChange> {
    let (Some(a), Some(b)) = (a, b) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    out.extend(change(
        "driver",
        "NVIDIA driver",
        a.gpu.driver.clone(),
        b.gpu.driver.clone(),
    ));
    let gpus = |r: &Runtime| Some(r.gpu.devices.join(", ")).filter(|s| !s.is_empty());
    out.extend(change("gpus", "GPUs", gpus(a), gpus(b)));
    let toolkits = |r: &Runtime| -> BTreeMap<String, String> {
        r.cuda_toolkits
            .iter()
            .map(|t| {
                let version = t
                    .version
                    .clone()
                    .unwrap_or_else(|| "version unknown".into());
                (
                    t.path.clone(),
                    format!("{version} ({})", t.found_by.join(", ")),
                )
            })
            .collect()
    };
    out.extend(keyed("cuda-toolkit", &toolkits(a), &toolkits(b)));
    out.extend(keyed("variable", &a.variables, &b.variables));
    let kinds: BTreeSet<&str> = a
        .caches
        .iter()
        .chain(&b.caches)
        .map(|c| c.kind.as_str())
        .collect();
    for kind in kinds {
        let find = |r: &'_ Runtime| r.caches.iter().find(|c| c.kind == kind).cloned();
        out.extend(cache_change(kind, find(a).as_ref(), find(b).as_ref()));
    }
    out
}

fn keyed(
    what: &'static str,
    a: &BTreeMap<String, String>,
    b: &BTreeMap<String, String>,
) -> Vec<RuntimeChange> {
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter_map(|name| change(what, name, a.get(name).cloned(), b.get(name).cloned()))
        .collect()
}

/// `path: N files, M bytes, newest YYYY-..` of a cache that exists.
fn cache_text(cache: &Cache) -> Option<String> {
    cache.exists.then(|| {
        let newest = cache.newest_write.as_deref().unwrap_or("no file");
        let writers = if cache.writers.is_empty() {
            String::new()
        } else {
            format!(", written by {}", cache.writers.join(", "))
        };
        format!(
            "{}: {} files, {} bytes, newest {newest}{writers}",
            cache.path, cache.entries, cache.bytes
        )
    })
}

fn cache_change(kind: &str, a: Option<&Cache>, b: Option<&Cache>) -> Option<RuntimeChange> {
    let (from, to) = (a.and_then(cache_text), b.and_then(cache_text));
    let mut found = change("cache", kind, from, to)?;
    if let (Some(a), Some(b)) = (a, b) {
        found.change = if a.path != b.path && !a.exists && b.exists {
            "created in another folder".into()
        } else if a.path != b.path {
            "moved to another folder".into()
        } else if !b.writers.iter().all(|w| a.writers.contains(w)) && !a.writers.is_empty() {
            format!("written by another version ({})", b.writers.join(", "))
        } else if !a.exists {
            "created".into()
        } else if !b.exists {
            "removed".into()
        } else if b.bytes > a.bytes || b.entries > a.entries {
            "grown".into()
        } else {
            "written".into()
        };
    } else if found.change == "added" {
        found.change = "created".into();
    }
    Some(found)
}

/// One line for a terminal: `variable CUDA_HOME changed: /usr/local/cuda -> /opt/cuda-12.8`.
pub(crate) fn line(change: &RuntimeChange) -> String {
    let side = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".to_string());
    format!(
        "{} {} {}: {} -> {}",
        change.what,
        change.name,
        change.change,
        side(&change.from),
        side(&change.to)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::runtime::Toolkit;

    fn runtime() -> Runtime {
        let mut r = Runtime::default();
        r.gpu.driver = Some("580.159.04".into());
        r.cuda_toolkits.push(Toolkit {
            path: "/usr/local/cuda-13.0".into(),
            version: Some("13.0.88".into()),
            found_by: vec!["/usr/local/cuda*".into()],
        });
        r.variables
            .insert("CUDA_HOME".into(), "/usr/local/cuda-13.0".into());
        r.caches.push(Cache {
            kind: "inductor".into(),
            path: "/tmp/torchinductor_me".into(),
            exists: false,
            entries: 0,
            bytes: 0,
            newest_write: None,
            writers: Vec::new(),
        });
        r
    }

    #[test]
    fn each_runtime_change_is_named() {
        let a = runtime();
        let mut b = runtime();
        b.cuda_toolkits.push(Toolkit {
            path: "/opt/cuda-12.8".into(),
            version: Some("12.8.93".into()),
            found_by: vec!["CUDA_HOME".into()],
        });
        b.variables
            .insert("CUDA_HOME".into(), "/opt/cuda-12.8".into());
        b.variables
            .insert("TORCH_CUDA_ARCH_LIST".into(), "10.0".into());
        b.caches[0].exists = true;
        b.caches[0].entries = 3;
        b.gpu.driver = Some("580.160.01".into());
        let lines: Vec<String> = compare(Some(&a), Some(&b)).iter().map(line).collect();
        assert_eq!(
            lines,
            [
                "driver NVIDIA driver changed: 580.159.04 -> 580.160.01",
                "cuda-toolkit /opt/cuda-12.8 added: - -> 12.8.93 (CUDA_HOME)",
                "variable CUDA_HOME changed: /usr/local/cuda-13.0 -> /opt/cuda-12.8",
                "variable TORCH_CUDA_ARCH_LIST added: - -> 10.0",
                "cache inductor created: - -> /tmp/torchinductor_me: 3 files, 0 bytes, newest no file",
            ]
        );
        assert!(compare(Some(&a), Some(&a)).is_empty());
        assert!(compare(None, Some(&b)).is_empty());
    }

    /// A cache variable pointed at a new folder: created there when A had none at its
    /// folder, moved when A had one.
    #[test]
    fn a_cache_in_another_folder_is_created_or_moved() {
        let a = runtime();
        let mut b = runtime();
        b.caches[0].path = "/scratch/inductor".into();
        b.caches[0].exists = true;
        assert_eq!(
            compare(Some(&a), Some(&b))[0].change,
            "created in another folder"
        );
        let mut had_one = a.clone();
        had_one.caches[0].exists = true;
        assert_eq!(
            compare(Some(&had_one), Some(&b))[0].change,
            "moved to another folder"
        );
    }

    #[test]
    fn a_cache_written_by_another_triton_says_so() {
        let mut a = runtime();
        a.caches[0].exists = true;
        a.caches[0].writers = vec!["triton 3.5.1".into()];
        let mut b = a.clone();
        b.caches[0].writers = vec!["triton 3.5.1".into(), "triton 3.6.0".into()];
        let changes = compare(Some(&a), Some(&b));
        assert_eq!(
            changes[0].change,
            "written by another version (triton 3.5.1, triton 3.6.0)"
        );
    }
}
