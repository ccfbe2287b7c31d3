//! Reading installed distributions from site-packages folders.
//!
//! In: the site-packages folders of an environment. Out: every readable `*.dist-info` and
//! legacy `*.egg-info` as an [`InstalledDist`], and every unreadable one as an
//! [`UnreadableDist`] naming its file. Name and version come from `METADATA`/`PKG-INFO`, never
//! from the folder name (tools spell folder names differently: `demo_pkg-0.1.0+local.7`).
//! Folders are read in parallel; nothing is ever written.

use std::fs;
use std::path::{Path, PathBuf};

use super::{DistError, DistFormat, InstalledDist, InventoryError, UnreadableDist, direct_url};
use crate::metadata::{self, CoreMetadata};

/// One metadata folder (or egg-info file) found in site-packages.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub path: PathBuf,
    pub format: DistFormat,
}

/// List the `*.dist-info` / `*.egg-info` entries of the folders, folder order kept, each
/// folder's entries sorted by name.
pub(crate) fn candidates(site_packages: &[PathBuf]) -> Result<Vec<Candidate>, InventoryError> {
    let mut out = Vec::new();
    for folder in site_packages {
        let entries = match fs::read_dir(folder) {
            Ok(entries) => entries,
            // Absent is fine (a layout without lib64); a symlink to nothing is not.
            Err(err)
                if err.kind() == std::io::ErrorKind::NotFound
                    && fs::symlink_metadata(folder).is_err() =>
            {
                continue;
            }
            Err(source) => {
                return Err(InventoryError::Io {
                    path: folder.clone(),
                    source,
                });
            }
        };
        let mut names: Vec<String> = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| InventoryError::Io {
                path: folder.clone(),
                source,
            })?;
            // Non-UTF-8 folder names cannot be a dist-info of a valid name; skip them.
            if let Ok(name) = entry.file_name().into_string()
                && (name.ends_with(".dist-info") || name.ends_with(".egg-info"))
            {
                names.push(name);
            }
        }
        names.sort();
        for name in names {
            let format = if name.ends_with(".dist-info") {
                DistFormat::DistInfo
            } else {
                DistFormat::EggInfo
            };
            out.push(Candidate {
                path: folder.join(&name),
                format,
            });
        }
    }
    Ok(out)
}

/// Read every dist in the folders. Unreadable dists are returned, not fatal; only a folder
/// that cannot be listed is an error. Dists come back sorted by name, then version, then path.
pub(crate) fn scan_site_packages(
    site_packages: &[PathBuf],
) -> Result<(Vec<InstalledDist>, Vec<UnreadableDist>), InventoryError> {
    // A metadata folder that vanished between listing and reading means an install ran
    // meanwhile: read everything once more rather than return half an inventory.
    let (dists, unreadable) = scan_once(site_packages)?;
    // Gone means the folder entry itself is gone: a dangling or looping symlink is still there
    // (and listed as unreadable, saying so).
    let vanished = |bad: &[UnreadableDist]| {
        bad.iter()
            .find(|b| fs::symlink_metadata(&b.path).is_err())
            .cloned()
    };
    if vanished(&unreadable).is_none() {
        return Ok((dists, unreadable));
    }
    let (dists, unreadable) = scan_once(site_packages)?;
    match vanished(&unreadable) {
        None => Ok((dists, unreadable)),
        Some(bad) => Err(InventoryError::ChangedDuringScan { path: bad.path }),
    }
}

fn scan_once(
    site_packages: &[PathBuf],
) -> Result<(Vec<InstalledDist>, Vec<UnreadableDist>), InventoryError> {
    let candidates = candidates(site_packages)?;
    let results = read_parallel(&candidates);
    let mut dists = Vec::with_capacity(results.len());
    let mut unreadable = Vec::new();
    for (candidate, result) in candidates.iter().zip(results) {
        match result {
            Ok(dist) => dists.push(dist),
            Err(reason) => unreadable.push(UnreadableDist {
                path: candidate.path.clone(),
                reason: reason.to_string(),
            }),
        }
    }
    sort_dists(&mut dists);
    Ok((dists, unreadable))
}

/// Sort by name, then version, then path (deterministic output).
pub(crate) fn sort_dists(dists: &mut [InstalledDist]) {
    dists.sort_by(|a, b| {
        a.name()
            .cmp(b.name())
            .then_with(|| a.version().cmp(b.version()))
            .then_with(|| a.path.cmp(&b.path))
    });
}

fn read_parallel(candidates: &[Candidate]) -> Vec<Result<InstalledDist, DistError>> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    if threads == 1 || candidates.len() < 16 {
        return candidates.iter().map(read_dist).collect();
    }
    let chunk = candidates.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = candidates
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(read_dist).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| match handle.join() {
                Ok(results) => results,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

/// The largest `top_level.txt`, `INSTALLER` or `direct_url.json` read.
pub(crate) const MAX_SMALL_FILE_BYTES: u64 = 1 << 20;

/// Read a metadata file (a regular file only, at most the metadata size cap); the error names
/// the file and says what it is instead (`METADATA is a device, not a regular file`).
pub(crate) fn read_capped(path: &Path) -> Result<Vec<u8>, DistError> {
    read_limited(path, metadata::max_bytes() as u64)
}

fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, DistError> {
    crate::bounded::read(path, limit).map_err(|err| read_error(path, err))
}

/// `no METADATA`, or `METADATA` and what it is instead.
fn read_error(path: &Path, error: crate::bounded::ReadError) -> DistError {
    let file = file_name(path);
    match error {
        crate::bounded::ReadError::NotFound => DistError::Missing { file },
        error => DistError::Read { file, error },
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Where the core metadata of a candidate lives.
pub(crate) fn metadata_file(candidate: &Candidate) -> PathBuf {
    match candidate.format {
        DistFormat::EggInfo if !candidate.path.is_dir() => candidate.path.clone(),
        DistFormat::EggInfo => candidate.path.join("PKG-INFO"),
        _ => candidate.path.join("METADATA"),
    }
}

fn read_dist(candidate: &Candidate) -> Result<InstalledDist, DistError> {
    // A symlinked metadata folder that leads nowhere says so, not "no METADATA".
    if let Err(err) = crate::bounded::stat(&candidate.path)
        && !matches!(err, crate::bounded::ReadError::NotFound)
    {
        return Err(read_error(&candidate.path, err));
    }
    let meta_path = metadata_file(candidate);
    let bytes = read_capped(&meta_path)?;
    let is_dir = candidate.path.is_dir();
    if candidate.format == DistFormat::DistInfo && !is_dir {
        return Err(DistError::NotAFolder);
    }
    let mut metadata = CoreMetadata::parse(&bytes).map_err(|error| DistError::Metadata {
        file: file_name(&meta_path),
        error,
    })?;
    if candidate.format == DistFormat::EggInfo && is_dir && metadata.requires_dist.is_empty() {
        let requires = candidate.path.join("requires.txt");
        if let Ok(bytes) = read_capped(&requires) {
            let text = String::from_utf8(bytes).map_err(|_| DistError::RequiresNotUtf8)?;
            metadata.requires_dist = egg_requirements(&text)
                .into_iter()
                .map(|line| match line.parse() {
                    Ok(requirement) => Ok(requirement),
                    Err(err) => Err(DistError::Requirement {
                        error: Box::new(err),
                        line,
                    }),
                })
                .collect::<Result<_, _>>()?;
        }
    }
    let (installer, requested, direct_url) = if candidate.format == DistFormat::DistInfo {
        let installer = read_limited(&candidate.path.join("INSTALLER"), MAX_SMALL_FILE_BYTES)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .map(|text| text.trim().to_string())
            .filter(|text| !text.is_empty());
        let requested = candidate.path.join("REQUESTED").exists();
        let direct_url = match read_limited(
            &candidate.path.join("direct_url.json"),
            MAX_SMALL_FILE_BYTES,
        ) {
            Ok(bytes) => Some(direct_url::parse_bytes(&bytes).map_err(DistError::DirectUrlFile)?),
            Err(_) => None,
        };
        (installer, requested, direct_url)
    } else {
        (None, false, None)
    };
    let top_level = if is_dir {
        top_level(&candidate.path)
    } else {
        Vec::new()
    };
    Ok(InstalledDist {
        metadata,
        installer,
        requested,
        direct_url,
        top_level,
        path: candidate.path.clone(),
        format: candidate.format,
        files: None,
    })
}

/// Top-level import names: `top_level.txt`, else the first path components of `RECORD` (an
/// egg-info's `installed-files.txt`). A
/// `top_level.txt` line that is a path (`nvidia/cusparselt`, as nvidia-cusparselt-cu12 0.7.1
/// writes it) names its first component, the module `import` sees (`nvidia`).
pub(crate) fn top_level(folder: &Path) -> Vec<String> {
    if let Ok(text) = crate::bounded::read_text(&folder.join("top_level.txt"), MAX_SMALL_FILE_BYTES)
    {
        let mut names: Vec<String> = text
            .lines()
            .map(|line| line.trim().split(['/', '\\']).next().unwrap_or_default())
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect();
        names.sort();
        names.dedup();
        return names;
    }
    let Some(paths) = super::record::inside_paths(folder) else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for path in &paths {
        let (first, nested) = match path.split_once('/') {
            Some((first, _)) => (first, true),
            None => (path.as_str(), false),
        };
        let metadata = [".dist-info", ".data", ".egg-info"];
        if first.is_empty() || metadata.iter().any(|suffix| first.ends_with(suffix)) {
            continue;
        }
        if nested {
            names.push(first.to_string());
        } else if let Some(module) = first.strip_suffix(".py") {
            names.push(module.to_string());
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Turn an egg-info `requires.txt` (sections `[extra]`, `[:marker]`, `[extra:marker]`) into
/// `Requires-Dist` strings.
pub(crate) fn egg_requirements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut marker: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let (extra, env) = section.split_once(':').unwrap_or((section, ""));
            let mut parts = Vec::new();
            if !env.trim().is_empty() {
                parts.push(format!("({})", env.trim()));
            }
            if !extra.trim().is_empty() {
                parts.push(format!("extra == \"{}\"", extra.trim()));
            }
            marker = (!parts.is_empty()).then(|| parts.join(" and "));
            continue;
        }
        match &marker {
            Some(marker) => out.push(format!("{line}; {marker}")),
            None => out.push(line.to_string()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without `top_level.txt`, the top-level names come from the RECORD pip wrote (a quoted
    /// path holding a comma among them: testdata/record).
    #[test]
    fn top_level_names_from_a_real_record() {
        let folder =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/record/commademo-1.0.dist-info");
        assert_eq!(top_level(&folder), ["commademo"]);
    }

    /// A `top_level.txt` line that is a path names its first component: nvidia-cusparselt-cu12
    /// 0.7.1 writes `nvidia/cusparselt` (testdata/record), the module is `nvidia`, the name its
    /// CUDA 13 twin's wheel is compared under (both install `nvidia/cusparselt/lib/...`).
    #[test]
    fn top_level_path_lines_name_their_first_component() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/record/nvidia_cusparselt_cu12-0.7.1.dist-info");
        assert_eq!(
            std::fs::read_to_string(folder.join("top_level.txt")).unwrap(),
            "nvidia/cusparselt\n"
        );
        assert_eq!(top_level(&folder), ["nvidia"]);
    }

    #[test]
    fn egg_requires_sections_become_markers() {
        let text = "six\n\n[security]\npyOpenSSL>=0.14\n\n[:python_version < \"3\"]\nenum34\n\n[socks:sys_platform == \"win32\"]\nwin-inet-pton\n";
        assert_eq!(
            egg_requirements(text),
            vec![
                "six",
                "pyOpenSSL>=0.14; extra == \"security\"",
                "enum34; (python_version < \"3\")",
                "win-inet-pton; (sys_platform == \"win32\") and extra == \"socks\"",
            ]
        );
        for line in egg_requirements(text) {
            line.parse::<pep508_rs::Requirement>().unwrap();
        }
    }

    #[test]
    fn record_gives_top_level_names() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("RECORD"),
            "six.py,sha256=x,1\nfoo/__init__.py,,\nfoo/bar.py,,\nx-1.dist-info/METADATA,,\n../../bin/x,,\nx-1.data/scripts/y,,\n",
        )
        .unwrap();
        assert_eq!(top_level(dir.path()), vec!["foo", "six"]);
        fs::write(dir.path().join("top_level.txt"), "b\na\n\n").unwrap();
        assert_eq!(top_level(dir.path()), vec!["a", "b"]);
    }

    #[test]
    fn bad_dists_are_listed_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let sp = dir.path();
        fs::create_dir(sp.join("good_pkg-1.0.dist-info")).unwrap();
        fs::write(
            sp.join("good_pkg-1.0.dist-info/METADATA"),
            "Metadata-Version: 2.1\nName: Good.Pkg\nVersion: 1.0+local.7\n",
        )
        .unwrap();
        fs::create_dir(sp.join("empty-1.0.dist-info")).unwrap();
        fs::create_dir(sp.join("binary-1.0.dist-info")).unwrap();
        fs::write(
            sp.join("binary-1.0.dist-info/METADATA"),
            b"Name: bin\xff\nVersion: 1\n",
        )
        .unwrap();
        let (dists, bad) = scan_site_packages(&[sp.to_path_buf()]).unwrap();
        assert_eq!(dists.len(), 1);
        assert_eq!(dists[0].name().as_ref(), "good-pkg");
        assert_eq!(dists[0].version().to_string(), "1.0+local.7");
        assert_eq!(bad.len(), 2);
        assert!(bad.iter().any(|b| b.reason == "no METADATA"));
        assert!(bad.iter().any(|b| b.reason.contains("UTF-8")));
    }
}
