//! `planner bisect --since WHEN`: the good state reconstructed.
//!
//! In: the environment now, the cut-off, and the index. Out: a [`Reconstructed`] inventory:
//! every dist installed or replaced since the cut-off (by its install records' file times,
//! [`crate::diff::since`]) is put back at the newest release of its project that is older than
//! what is installed now and that the index had before the cut-off (the earliest upload time
//! of its files); a dist with no such release is taken as added since. Everything else is as it
//! is now.
//!
//! This is a reconstruction, not a record: a removed dist leaves no trace, a dist reinstalled at
//! the same version looks replaced, and the version that was installed may have been older than
//! the newest one uploaded before the cut-off. The notes say what was assumed, per dist.

use std::collections::BTreeMap;

use jiff::Timestamp;
use pep440_rs::Version;
use pep508_rs::PackageName;

use crate::diff::since::{self, SinceError};
use crate::index::{DistFile, DistFilename, IndexError, IndexSource};
use crate::inventory::Inventory;

/// Why the good state could not be reconstructed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReconstructError {
    /// The install records could not be read.
    #[error(transparent)]
    Since(#[from] SinceError),
    /// The index could not list a project.
    #[error("{name}: {error}")]
    Project {
        /// The project.
        name: PackageName,
        /// The index's error.
        error: Box<IndexError>,
    },
    /// The index could not give a release's metadata.
    #[error("{name} {version}: {error}")]
    Metadata {
        /// The project.
        name: PackageName,
        /// The release.
        version: Version,
        /// The index's error.
        error: Box<IndexError>,
    },
    /// The index gives no upload times: it cannot say what was there before the cut-off.
    #[error(
        "the index gives no upload time for {file}: --since cannot tell what was installed \
         before the cut-off (pass --good SNAPSHOT)"
    )]
    NoUploadTime {
        /// A file of the release asked about.
        file: String,
    },
}

/// The good state, and what was assumed to make it.
#[derive(Debug)]
pub(crate) struct Reconstructed {
    /// The environment as it was before the cut-off (as far as can be told).
    pub good: Inventory,
    /// One line per dist installed since: what it was taken to be before.
    pub notes: Vec<String>,
}

/// Reconstruct the state of `now` before `cutoff` from the index's upload times.
pub(crate) fn reconstruct(
    now: &Inventory,
    cutoff: Timestamp,
    index: &dyn IndexSource,
) -> Result<Reconstructed, ReconstructError> {
    let report = since::since("now", now, cutoff)?;
    let mut good = now.clone();
    let mut notes = Vec::new();
    for installed in &report.installed {
        let Some(dist) = now
            .dists
            .iter()
            .find(|d| d.name().as_ref() == installed.name)
        else {
            continue;
        };
        let name = dist.name().clone();
        let project = index
            .project(&name)
            .map_err(|err| ReconstructError::Project {
                name: name.clone(),
                error: Box::new(err),
            })?;
        let Some(project) = project else {
            notes.push(format!(
                "{name} {}: installed since, but not on the index: kept as it is",
                dist.version()
            ));
            continue;
        };
        let current = dist.version().clone().without_local();
        match before(
            &project.files.iter().cloned().collect::<Vec<_>>(),
            &current,
            cutoff,
        )? {
            Some((version, file)) => {
                let metadata =
                    index
                        .metadata(&project, &file)
                        .map_err(|err| ReconstructError::Metadata {
                            name: name.clone(),
                            version: version.clone(),
                            error: Box::new(err),
                        })?;
                notes.push(format!(
                    "{name}: {} installed since; taken to be {version} before (the newest older \
                     release uploaded before the cut-off)",
                    dist.version()
                ));
                if let Some(old) = good.dists.iter_mut().find(|d| d.name() == &name) {
                    old.metadata = (*metadata).clone();
                    old.direct_url = None;
                }
            }
            None => {
                notes.push(format!(
                    "{name}: {} installed since, and no older release was uploaded before the \
                     cut-off: taken as added since",
                    dist.version()
                ));
                good.dists.retain(|d| d.name() != &name);
            }
        }
    }
    Ok(Reconstructed { good, notes })
}

/// The newest version below `current` whose first file was uploaded before `cutoff`, with a
/// file to read its metadata from (a wheel when there is one). A pre-release is taken only when
/// `current` is one (pip and uv install pre-releases only when asked: twisted 24.2.0rc1,
/// uploaded between 23.10.0 and 24.3.0, was not what a user of 24.3.0 had before). An index
/// that gives no upload times cannot answer: an error that says so.
fn before(
    files: &[DistFile],
    current: &Version,
    cutoff: Timestamp,
) -> Result<Option<(Version, DistFile)>, ReconstructError> {
    let mut releases: BTreeMap<&Version, Vec<&DistFile>> = BTreeMap::new();
    for file in files.iter().filter(|f| f.yanked.is_none()) {
        let version = file.filename.version();
        if *version < *current && (!version.any_prerelease() || current.any_prerelease()) {
            releases.entry(version).or_default().push(file);
        }
    }
    for (version, files) in releases.iter().rev() {
        let times: Vec<Timestamp> = files.iter().filter_map(|f| f.upload_time).collect();
        if times.is_empty() {
            return Err(ReconstructError::NoUploadTime {
                file: files[0].filename_str(),
            });
        }
        if times.iter().min().is_some_and(|t| *t < cutoff) {
            let file = files
                .iter()
                .find(|f| matches!(f.filename, DistFilename::Wheel(_)))
                .unwrap_or(&files[0]);
            return Ok(Some(((*version).clone(), (*file).clone())));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recorded twisted page (real versions and upload times, testdata/bisect-since).
    fn twisted() -> Vec<DistFile> {
        let page = crate::index::parse::simple_json(
            include_bytes!("../../testdata/bisect-since/simple/twisted/index.json"),
            &url::Url::parse("http://127.0.0.1/simple/twisted/").unwrap(),
        )
        .unwrap();
        page.files.iter().cloned().collect()
    }

    fn version(text: &str) -> Version {
        text.parse().unwrap()
    }

    /// twisted 24.3.0 installed since 2024-02-25: the release before it is 23.10.0, not
    /// 24.2.0rc1 (uploaded 2024-02-21, a pre-release nobody installs unasked); a pre-release
    /// installed now may have followed one.
    #[test]
    fn a_pre_release_is_never_taken_as_the_previous_version() {
        let files = twisted();
        let cutoff: Timestamp = "2024-02-25T00:00:00Z".parse().unwrap();
        let found = before(&files, &version("24.3.0"), cutoff).unwrap();
        assert_eq!(found.map(|(v, _)| v), Some(version("23.10.0")));
        let cutoff: Timestamp = "2026-10-28T00:00:00Z".parse().unwrap();
        let found = before(&files, &version("26.10.0rc2"), cutoff).unwrap();
        assert_eq!(found.map(|(v, _)| v), Some(version("24.3.0")));
        let found = before(&files, &version("26.10.0"), cutoff).unwrap();
        assert_eq!(found.map(|(v, _)| v), Some(version("24.3.0")));
    }
}
