//! Portable snapshots of an environment, and `pip inspect` output read as one.
//!
//! In: an [`Inventory`] (to write), or a snapshot file (to read): `planner snapshot --out`
//! output, the output of the script `planner snapshot --script` prints (the same JSON, made on
//! a machine without the planner), or `python -m pip inspect` output as it is. Out: JSON text,
//! or an [`Inventory`] whose dists have [`DistFormat::Snapshot`].
//!
//! Each dist keeps its core metadata fields *as written* (PEP 566 JSON keys, the same shape as
//! `pip inspect`'s `metadata`), so the planner and the Python script produce equal files and
//! one reader serves both formats. The schema is documented in `docs/snapshot-json.md`.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::{MarkerEnvironment, PackageName};
use serde::{Deserialize, Serialize};

use super::integrity::{self, FileCheck};
use super::probe::PROBE_SCRIPT;
use super::runtime::Runtime;
use super::scan::{self, Candidate};
use super::target::{self, Platform};
use super::{
    DistError, DistFormat, EnvNote, Environment, EnvironmentOrigin, InstalledDist, Inventory,
    InventoryError, UnreadableDist, direct_url,
};
use crate::metadata::{CoreMetadata, MetadataError, parse_headers};
use crate::tags::{Tag, Tags};

/// The `schema` value of a planner snapshot (`docs/schemas/snapshot.json`).
pub(crate) const SCHEMA: &str = "planner-snapshot/1";
/// The `format` value of the snapshots planner wrote before the one JSON contract; still read.
pub(crate) const FORMAT: &str = "planner-snapshot";
/// The `format_version` of those snapshots.
pub(crate) const FORMAT_VERSION: u64 = 1;

/// Why a file is not a snapshot this planner reads (the [`InventoryError::Snapshot`] reason).
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// The file could not be read.
    #[error("{0}")]
    Io(std::io::Error),
    /// The file is not JSON.
    #[error("not JSON: {0}")]
    NotJson(serde_json::Error),
    /// A planner snapshot of a later schema (the value, made safe to print).
    #[error("schema `{0}` is not {SCHEMA}; this planner is too old for it")]
    NewerSchema(String),
    /// An old-style planner snapshot of another `format_version` (`None`: missing).
    #[error(
        "format_version {} is not {FORMAT_VERSION}; this planner is too old for it",
        .0.map_or("(missing)".to_string(), |v| v.to_string())
    )]
    NewerFormat(Option<u64>),
    /// A planner snapshot of the wrong shape.
    #[error("{0}")]
    Shape(serde_json::Error),
    /// `pip inspect` output of the wrong shape.
    #[error("pip inspect: {0}")]
    InspectShape(serde_json::Error),
    /// Neither kind of file.
    #[error(
        "neither a planner snapshot (`schema: planner-snapshot/1`) nor `pip inspect` output \
         (`installed` and `environment`)"
    )]
    Unknown,
    /// A snapshot's `python_version` is not a version.
    #[error("python_version: {0}")]
    PythonVersion(pep440_rs::VersionParseError),
    /// A snapshot's wheel tag does not parse.
    #[error("{0}")]
    Tag(String),
    /// `pip inspect` output of another format version.
    #[error("pip inspect format version `{0}` is not 1")]
    InspectVersion(String),
    /// `pip inspect`'s `python_full_version` is not a version.
    #[error("python_full_version: {0}")]
    PythonFullVersion(pep440_rs::VersionParseError),
    /// `pip inspect`'s markers name no platform the planner knows.
    #[error("{0}")]
    Platform(Box<InventoryError>),
}

/// The standalone Python 3.8+ script (standard library only) that prints a snapshot.
pub(crate) fn script() -> &'static str {
    PROBE_SCRIPT
}

/// Core metadata fields as written, with PEP 566 JSON keys (`pip inspect`'s `metadata`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetadataFields {
    /// `Metadata-Version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata_version: Option<String>,
    /// `Name`.
    pub name: String,
    /// `Version`.
    pub version: String,
    /// `Summary`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// `Requires-Python`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_python: Option<String>,
    /// `Requires-Dist`, in file order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires_dist: Vec<String>,
    /// `Provides-Extra`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provides_extra: Vec<String>,
    /// `Dynamic`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dynamic: Vec<String>,
}

impl MetadataFields {
    /// The fields of a metadata file's text (first occurrence of single-use fields wins).
    pub fn from_text(text: &str) -> Option<MetadataFields> {
        let mut fields = MetadataFields::default();
        let (mut name, mut version) = (None, None);
        for (field, value) in parse_headers(text) {
            let value = value.into_owned();
            match field.to_ascii_lowercase().as_str() {
                "metadata-version" if fields.metadata_version.is_none() => {
                    fields.metadata_version = Some(value);
                }
                "name" if name.is_none() => name = Some(value),
                "version" if version.is_none() => version = Some(value),
                "summary" if fields.summary.is_none() => fields.summary = Some(value),
                "requires-python" if fields.requires_python.is_none() => {
                    fields.requires_python = Some(value);
                }
                "requires-dist" => fields.requires_dist.push(value),
                "provides-extra" => fields.provides_extra.push(value),
                "dynamic" => fields.dynamic.push(value),
                _ => {}
            }
        }
        fields.name = name?;
        fields.version = version?;
        Some(fields)
    }

    /// The typed form of the core metadata these fields come from: what is written is
    /// rendered back into header text and parsed by the one metadata parser.
    pub fn parse(&self) -> Result<CoreMetadata, MetadataError> {
        let mut text = String::new();
        let mut line = |field: &str, value: &str| {
            text.push_str(field);
            text.push_str(": ");
            // Continuation lines keep a multi-line value inside its header.
            text.push_str(&value.replace('\n', "\n "));
            text.push('\n');
        };
        if let Some(v) = &self.metadata_version {
            line("Metadata-Version", v);
        }
        line("Name", &self.name);
        line("Version", &self.version);
        if let Some(v) = &self.summary {
            line("Summary", v);
        }
        if let Some(v) = &self.requires_python {
            line("Requires-Python", v);
        }
        for v in &self.requires_dist {
            line("Requires-Dist", v);
        }
        for v in &self.provides_extra {
            line("Provides-Extra", v);
        }
        for v in &self.dynamic {
            line("Dynamic", v);
        }
        CoreMetadata::parse_str(&text)
    }

    /// Fields re-serialized from typed metadata (when the text as written is gone).
    pub fn from_metadata(metadata: &CoreMetadata) -> MetadataFields {
        MetadataFields {
            metadata_version: Some(metadata.metadata_version.clone()).filter(|v| !v.is_empty()),
            name: metadata.display_name.clone(),
            version: metadata.version.to_string(),
            summary: metadata.summary.clone(),
            requires_python: metadata.requires_python.as_ref().map(ToString::to_string),
            requires_dist: metadata
                .requires_dist
                .iter()
                .map(ToString::to_string)
                .collect(),
            provides_extra: metadata
                .provides_extra
                .iter()
                .map(ToString::to_string)
                .collect(),
            dynamic: metadata.dynamic.clone(),
        }
    }
}

/// One dist in a planner snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SnapshotDist {
    /// The metadata folder on the machine the snapshot was taken on.
    pub path: String,
    /// `dist-info` or `egg-info`.
    pub format: String,
    /// Core metadata fields as written.
    pub metadata: MetadataFields,
    /// `INSTALLER`.
    #[serde(default)]
    pub installer: Option<String>,
    /// Whether `REQUESTED` exists.
    #[serde(default)]
    pub requested: bool,
    /// `direct_url.json` as it is.
    #[serde(default)]
    pub direct_url: Option<serde_json::Value>,
    /// Top-level import names.
    #[serde(default)]
    pub top_level: Vec<String>,
    /// An egg-info's `requires.txt`, as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub egg_requires: Option<String>,
    /// Its files against its `RECORD` on that machine (`None`: not checked, or no `RECORD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<FileCheck>,
}

/// A planner snapshot (`"schema": "planner-snapshot/1"`; read from the older `format:
/// "planner-snapshot"`, `format_version: 1` too).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Snapshot {
    /// Always [`SCHEMA`] when written.
    #[serde(default)]
    pub schema: String,
    /// The full Python version.
    pub python_version: String,
    /// `sys.prefix`.
    #[serde(default)]
    pub prefix: Option<String>,
    /// The site-packages folders read.
    #[serde(default)]
    pub site_packages: Vec<String>,
    /// The PEP 508 marker environment.
    pub markers: MarkerEnvironment,
    /// Supported wheel tags, best first.
    pub tags: Vec<String>,
    /// Installed dists, sorted by normalized name, then path.
    pub dists: Vec<SnapshotDist>,
    /// Metadata folders whose core metadata could not be read as text.
    #[serde(default)]
    pub unreadable: Vec<String>,
    /// The machine's runtime context when it was taken: driver and GPUs, CUDA toolkits, the
    /// variables that steer the stack, compile caches (`None`: not recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Runtime>,
}

/// The `runtime` a planner snapshot file records (`None`: not recorded, or not a planner
/// snapshot).
pub(crate) fn load_runtime(path: &Path) -> Option<Runtime> {
    let bytes = crate::bounded::read(path, crate::bounded::USER_FILE_LIMIT).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    serde_json::from_value(value.get("runtime")?.clone()).ok()
}

fn path_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Read one metadata folder the way the Python script does (fields as written).
fn read_snapshot_dist(candidate: &Candidate) -> Option<SnapshotDist> {
    let bytes = scan::read_capped(&scan::metadata_file(candidate)).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let metadata = MetadataFields::from_text(&text)?;
    let path = &candidate.path;
    let read =
        |name: &str| crate::bounded::read_text(&path.join(name), scan::MAX_SMALL_FILE_BYTES).ok();
    let mut dist = SnapshotDist {
        path: path_string(path),
        format: match candidate.format {
            DistFormat::EggInfo => "egg-info",
            _ => "dist-info",
        }
        .to_string(),
        metadata,
        installer: None,
        requested: false,
        direct_url: None,
        top_level: Vec::new(),
        egg_requires: None,
        files: None,
    };
    if candidate.format == DistFormat::DistInfo {
        dist.installer = read("INSTALLER")
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty());
        dist.requested = path.join("REQUESTED").exists();
        dist.direct_url = read("direct_url.json").and_then(|t| serde_json::from_str(&t).ok());
        dist.top_level = scan::top_level(path);
    } else if path.is_dir() {
        dist.top_level = scan::top_level(path);
        dist.egg_requires = read("requires.txt");
    }
    Some(dist)
}

/// The snapshot of an inventory. A venv read from disk is read again the way the Python
/// script reads it (fields as written); an inventory that came from a snapshot is written
/// from its typed metadata.
pub(crate) fn build(inventory: &Inventory) -> Result<Snapshot, InventoryError> {
    let env = &inventory.environment;
    let mut dists = Vec::new();
    let mut unreadable = Vec::new();
    let from_disk = !env.site_packages.is_empty()
        && inventory
            .dists
            .iter()
            .all(|d| d.format != DistFormat::Snapshot);
    if from_disk {
        let candidates = scan::candidates(&env.site_packages)?;
        let folders: Vec<&Path> = candidates.iter().map(|c| c.path.as_path()).collect();
        let checks = integrity::check_folders(&folders, integrity::Scope::Sources);
        for (candidate, files) in candidates.iter().zip(checks) {
            match read_snapshot_dist(candidate) {
                Some(dist) => dists.push(SnapshotDist { files, ..dist }),
                None => unreadable.push(path_string(&candidate.path)),
            }
        }
    } else {
        for dist in &inventory.dists {
            dists.push(SnapshotDist {
                path: path_string(&dist.path),
                format: match dist.format {
                    DistFormat::EggInfo => "egg-info",
                    _ => "dist-info",
                }
                .to_string(),
                metadata: MetadataFields::from_metadata(&dist.metadata),
                installer: dist.installer.clone(),
                requested: dist.requested,
                direct_url: dist.direct_url.as_ref().map(direct_url_json),
                top_level: dist.top_level.clone(),
                egg_requires: None,
                files: dist.files.clone(),
            });
        }
        unreadable.extend(inventory.unreadable.iter().map(|u| path_string(&u.path)));
    }
    // Names as written: sorted by their normalized form, as the Python script sorts them (a
    // name that is no valid package name sorts by its lower-case text).
    dists.sort_by_cached_key(|d| {
        let name = &d.metadata.name;
        let key = PackageName::from_str(name)
            .map(|n| n.to_string())
            .unwrap_or_else(|_| name.to_lowercase());
        (key, d.path.clone())
    });
    unreadable.sort();
    Ok(Snapshot {
        schema: SCHEMA.to_string(),
        python_version: env.python_version.to_string(),
        prefix: env.prefix.as_deref().map(path_string),
        site_packages: env.site_packages.iter().map(|p| path_string(p)).collect(),
        markers: env.markers.clone(),
        tags: env
            .tags
            .as_slice()
            .iter()
            .map(ToString::to_string)
            .collect(),
        dists,
        unreadable,
        runtime: None,
    })
}

/// PEP 610 JSON for a parsed direct URL (the redacted URL is kept).
fn direct_url_json(url: &super::DirectUrl) -> serde_json::Value {
    use super::DirectUrl;
    match url {
        DirectUrl::Archive { url, hash } => {
            let mut info = serde_json::Map::new();
            if let Some(hash) = hash {
                info.insert("hash".into(), hash.clone().into());
                if let Some((algo, hex)) = hash.split_once('=') {
                    info.insert("hashes".into(), serde_json::json!({ algo: hex }));
                }
            }
            serde_json::json!({ "url": url, "archive_info": info })
        }
        DirectUrl::Directory { url, editable } => {
            serde_json::json!({ "url": url, "dir_info": { "editable": editable } })
        }
        DirectUrl::Vcs {
            url,
            vcs,
            commit_id,
            requested_revision,
        } => {
            let mut info = serde_json::json!({ "vcs": vcs, "commit_id": commit_id });
            if let Some(rev) = requested_revision {
                info["requested_revision"] = rev.clone().into();
            }
            serde_json::json!({ "url": url, "vcs_info": info })
        }
    }
}

/// Read a snapshot file: a planner snapshot or `pip inspect` output.
pub fn load(path: &Path) -> Result<Inventory, InventoryError> {
    log::debug!("reading the snapshot {}", path.display());
    let bytes = crate::bounded::read(path, crate::bounded::USER_FILE_LIMIT).map_err(|err| {
        InventoryError::Snapshot {
            path: path.to_path_buf(),
            reason: SnapshotError::Io(err.into_io()),
        }
    })?;
    parse(path, &bytes)
}

/// The inventory in the bytes of a snapshot file (`path` names it in errors): a planner
/// snapshot or `pip inspect` output.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Inventory, InventoryError> {
    let bad = |reason: SnapshotError| InventoryError::Snapshot {
        path: path.to_path_buf(),
        reason,
    };
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|err| bad(SnapshotError::NotJson(err)))?;
    let schema = value.get("schema").and_then(|v| v.as_str());
    if let Some(other) = schema.filter(|s| s.starts_with("planner-snapshot/") && *s != SCHEMA) {
        return Err(bad(SnapshotError::NewerSchema(
            crate::terminal::field(other).to_string(),
        )));
    }
    if schema == Some(SCHEMA) || value.get("format").and_then(|v| v.as_str()) == Some(FORMAT) {
        let version = value.get("format_version").and_then(|v| v.as_u64());
        if schema.is_none() && version != Some(FORMAT_VERSION) {
            return Err(bad(SnapshotError::NewerFormat(version)));
        }
        // Read again from the bytes, typed: an error then has its line and column.
        let snapshot: Snapshot =
            serde_json::from_slice(bytes).map_err(|err| bad(SnapshotError::Shape(err)))?;
        from_snapshot(path, snapshot).map_err(bad)
    } else if value.get("installed").is_some() && value.get("environment").is_some() {
        let inspect: PipInspect =
            serde_json::from_slice(bytes).map_err(|err| bad(SnapshotError::InspectShape(err)))?;
        from_pip_inspect(path, inspect).map_err(bad)
    } else {
        Err(bad(SnapshotError::Unknown))
    }
}

/// The parts of one dist as a snapshot or `pip inspect` holds them.
struct DistParts<'a> {
    path: PathBuf,
    fields: &'a MetadataFields,
    egg_requires: Option<&'a str>,
    installer: Option<String>,
    requested: bool,
    direct: Option<&'a serde_json::Value>,
    top_level: Vec<String>,
}

fn dist_from_fields(parts: DistParts<'_>) -> Result<InstalledDist, DistError> {
    let DistParts {
        path,
        fields,
        egg_requires,
        installer,
        requested,
        direct,
        top_level,
    } = parts;
    let mut fields = fields.clone();
    if let Some(requires) = egg_requires
        && fields.requires_dist.is_empty()
    {
        fields.requires_dist = scan::egg_requirements(requires);
    }
    let metadata = fields.parse()?;
    let direct_url = direct
        .filter(|v| !v.is_null())
        .map(direct_url::parse)
        .transpose()
        .map_err(DistError::DirectUrl)?;
    Ok(InstalledDist {
        metadata,
        installer,
        requested,
        direct_url,
        top_level,
        path,
        format: DistFormat::Snapshot,
        files: None,
    })
}

fn from_snapshot(path: &Path, snapshot: Snapshot) -> Result<Inventory, SnapshotError> {
    let python_version =
        Version::from_str(&snapshot.python_version).map_err(SnapshotError::PythonVersion)?;
    let tags = snapshot
        .tags
        .iter()
        .map(|t| t.parse::<Tag>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(SnapshotError::Tag)?;
    let mut dists = Vec::new();
    let mut unreadable: Vec<UnreadableDist> = snapshot
        .unreadable
        .iter()
        .map(|p| UnreadableDist {
            path: PathBuf::from(p),
            reason: "its metadata could not be read on the machine the snapshot was taken on"
                .to_string(),
        })
        .collect();
    for dist in &snapshot.dists {
        let result = dist_from_fields(DistParts {
            path: PathBuf::from(&dist.path),
            fields: &dist.metadata,
            egg_requires: dist.egg_requires.as_deref(),
            installer: dist.installer.clone(),
            requested: dist.requested,
            direct: dist.direct_url.as_ref(),
            top_level: dist.top_level.clone(),
        });
        match result {
            Ok(d) => dists.push(InstalledDist {
                files: dist.files.clone(),
                ..d
            }),
            Err(reason) => unreadable.push(UnreadableDist {
                path: PathBuf::from(&dist.path),
                reason: reason.to_string(),
            }),
        }
    }
    scan::sort_dists(&mut dists);
    Ok(Inventory {
        environment: Environment {
            python_version,
            markers: snapshot.markers,
            tags: Tags::new(tags),
            site_packages: Vec::new(),
            pth_paths: Vec::new(),
            prefix: snapshot.prefix.map(PathBuf::from),
            origin: EnvironmentOrigin::Snapshot {
                path: path.to_path_buf(),
            },
            notes: Vec::new(),
        },
        dists,
        unreadable,
    })
}

/// `pip inspect` v1 (pip >= 22.2).
#[derive(Debug, Deserialize)]
struct PipInspect {
    version: String,
    #[serde(default)]
    pip_version: Option<String>,
    installed: Vec<PipInspectDist>,
    environment: MarkerEnvironment,
}

#[derive(Debug, Deserialize)]
struct PipInspectDist {
    metadata: MetadataFields,
    #[serde(default)]
    metadata_location: Option<String>,
    #[serde(default)]
    installer: Option<String>,
    #[serde(default)]
    requested: bool,
    #[serde(default)]
    direct_url: Option<serde_json::Value>,
}

fn from_pip_inspect(path: &Path, inspect: PipInspect) -> Result<Inventory, SnapshotError> {
    if inspect.version != "1" {
        return Err(SnapshotError::InspectVersion(inspect.version));
    }
    let markers = inspect.environment;
    let python_version = Version::from_str(&markers.python_full_version().to_string())
        .map_err(SnapshotError::PythonFullVersion)?;
    let release = python_version.release();
    let (major, minor) = (
        release.first().copied().unwrap_or(3),
        release.get(1).copied().unwrap_or(0),
    );
    let glibc = if markers.sys_platform() == "linux" {
        target::host_glibc()
    } else {
        None
    };
    let platform = Platform::from_markers(&markers, glibc)
        .map_err(|err| SnapshotError::Platform(Box::new(err)))?;
    let tags = target::cpython_tags(major, minor, &platform);
    let mut notes = vec![EnvNote::platform_guess(format!(
        "`{}` is `pip inspect` output{}: it has no wheel tags; they were generated for CPython \
         {major}.{minor} on {} (pass --python-platform to be exact)",
        path.display(),
        inspect
            .pip_version
            .as_deref()
            .map(|v| format!(" (pip {v})"))
            .unwrap_or_default(),
        platform_words(&platform, glibc.is_some()),
    ))];
    notes.dedup();
    let mut dists = Vec::new();
    let mut unreadable = Vec::new();
    for (i, item) in inspect.installed.iter().enumerate() {
        let dist_path = PathBuf::from(
            item.metadata_location
                .clone()
                .unwrap_or_else(|| format!("{}#installed[{i}]", path.display())),
        );
        match dist_from_fields(DistParts {
            path: dist_path.clone(),
            fields: &item.metadata,
            egg_requires: None,
            installer: item.installer.clone(),
            requested: item.requested,
            direct: item.direct_url.as_ref(),
            top_level: Vec::new(),
        }) {
            Ok(d) => dists.push(d),
            Err(reason) => unreadable.push(UnreadableDist {
                path: dist_path,
                reason: reason.to_string(),
            }),
        }
    }
    scan::sort_dists(&mut dists);
    Ok(Inventory {
        environment: Environment {
            python_version,
            markers,
            tags,
            site_packages: Vec::new(),
            pth_paths: Vec::new(),
            prefix: None,
            origin: EnvironmentOrigin::Snapshot {
                path: path.to_path_buf(),
            },
            notes,
        },
        dists,
        unreadable,
    })
}

fn platform_words(platform: &Platform, host_glibc: bool) -> String {
    match &platform.os {
        target::Os::Manylinux { major, minor } => format!(
            "{} Linux, glibc {major}.{minor} ({})",
            platform.arch,
            if host_glibc {
                "this host's"
            } else {
                "assumed floor"
            }
        ),
        target::Os::Musllinux { major, minor } => {
            format!("{} Linux, musl {major}.{minor}", platform.arch)
        }
        target::Os::Macos { major, minor } => {
            format!("{} macOS {major}.{minor}", platform.arch)
        }
        target::Os::Windows => format!("{} Windows", platform.arch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_through_the_metadata_parser() {
        let text = "Metadata-Version: 2.4\nName: torch\nVersion: 2.11.0+cu130\nSummary: a\n  b\nRequires-Dist: triton==3.6.0; platform_system == \"Linux\"\nProvides-Extra: optree\n\nbody\nName: no\n";
        let fields = MetadataFields::from_text(text).unwrap();
        assert_eq!(fields.summary.as_deref(), Some("a\nb"));
        assert_eq!(
            fields.requires_dist,
            vec!["triton==3.6.0; platform_system == \"Linux\""]
        );
        let metadata = fields.parse().unwrap();
        assert_eq!(metadata.version.to_string(), "2.11.0+cu130");
        assert_eq!(metadata.summary.as_deref(), Some("a\nb"));
        assert_eq!(metadata.requires_dist[0].name.as_ref(), "triton");
    }

    #[test]
    fn direct_url_json_parses_back() {
        let url = crate::inventory::DirectUrl::Vcs {
            url: "https://github.com/a/b".into(),
            vcs: "git".into(),
            commit_id: "abc".into(),
            requested_revision: Some("main".into()),
        };
        assert_eq!(direct_url::parse(&direct_url_json(&url)).unwrap(), url);
        let archive = crate::inventory::DirectUrl::Archive {
            url: "file:///x.whl".into(),
            hash: Some("sha256=ab".into()),
        };
        assert_eq!(
            direct_url::parse(&direct_url_json(&archive)).unwrap(),
            archive
        );
    }
}
