//! `--allow-build` on the [`Index`]: an sdist's built metadata from the cache, else from a
//! metadata build by pip (`super::super::build`), with the checks that come before one (offline,
//! a project given up on, build requirements too large to download).

use std::path::Path;
use std::sync::Arc;

use pep508_rs::VersionOrUrl;

use super::super::build::{self, BuiltSdist};
use super::super::cache::Bucket;
use super::super::client::{BodyKind, RequestOptions};
use super::super::{DistFile, IndexError, IndexSource, Project, metadata_fetch};
use super::{Index, entry};
use crate::metadata::CoreMetadata;

/// How long a failed metadata build is remembered (seconds): a day.
const FAILED_FOR: i64 = 24 * 3600;

impl Index {
    /// The built metadata of the sdist `file` of `project` (cached under `key`), else why it
    /// cannot be had.
    pub(super) fn build_metadata(
        &self,
        python: &Path,
        project: &Project,
        file: &DistFile,
        key: &str,
    ) -> Result<Arc<CoreMetadata>, IndexError> {
        let inner = &self.inner;
        let note = |seconds| BuiltSdist {
            name: project.name.clone(),
            version: file.filename.version().clone(),
            file: file.filename_str(),
            seconds,
        };
        if !inner.refresh
            && let Some((_, body)) = inner.cache.read(Bucket::Metadata, key)
            && let Ok(metadata) = metadata_fetch::check(file, &file.url, &body)
        {
            log::debug!("{}: built metadata from the cache", file.filename_str());
            inner.builds.record(note(None));
            return Ok(Arc::new(metadata));
        }
        let failed_key = format!("{key}#failed");
        if !inner.refresh
            && let Some((meta, body)) = inner.cache.read(Bucket::Metadata, &failed_key)
            && crate::clock::now().as_second() < meta.fetched_at.saturating_add(FAILED_FOR)
        {
            inner.builds.failed(&project.name);
            return Err(build::unavailable(
                file,
                format!(
                    "{} (remembered from an attempt in the last day; --refresh tries again)",
                    String::from_utf8_lossy(&body)
                ),
            ));
        }
        if inner.offline {
            return Err(build::unavailable(
                file,
                "--offline, and no metadata build of it is cached (run once online with \
                 --allow-build)",
            ));
        }
        if !python.exists() {
            // Not the sdist's failure: every release would fail the same way, so none is tried.
            return Err(build::unavailable(
                file,
                format!(
                    "a metadata build runs with the environment's interpreter, and {} does not \
                     exist here (an environment read from its files alone; run planner where it \
                     lives to build)",
                    python.display()
                ),
            ));
        }
        if inner.builds.given_up(&project.name) {
            return Err(build::unavailable(
                file,
                format!(
                    "{} metadata builds of {} failed in this run, and no more are tried",
                    build::FAILURES_PER_PROJECT,
                    project.name
                ),
            ));
        }
        let attempt = self.download_and_build(python, file);
        if let Err(IndexError::MetadataUnavailable { reason, .. }) = &attempt
            && (reason.starts_with(build::BUILD_FAILED) || reason.starts_with(build::TOO_LARGE))
        {
            // A build that failed on its own (not a timeout, not the network) fails again the
            // same way: remembered for a day, so that the next run does not wait on it again.
            let fetched_at = crate::clock::now().as_second();
            let meta = entry(failed_key, None, fetched_at, FAILED_FOR as u64);
            inner.cache.write(Bucket::Metadata, meta, reason.as_bytes());
        }
        let (bytes, seconds) = attempt.inspect_err(|_| inner.builds.failed(&project.name))?;
        let metadata = metadata_fetch::check(file, &file.url, &bytes)?;
        let fetched_at = crate::clock::now().as_second();
        let meta = entry(key.to_string(), None, fetched_at, u64::MAX / 4);
        inner.cache.write(Bucket::Metadata, meta, &bytes);
        log::debug!("{}: built metadata in {seconds:.1} s", file.filename_str());
        inner.builds.record(note(Some(seconds)));
        Ok(Arc::new(metadata))
    }

    /// Fetch the sdist (checked against the index's hashes), refuse it when its build
    /// requirements are too large, else run pip's metadata build on it.
    fn download_and_build(
        &self,
        python: &Path,
        file: &DistFile,
    ) -> Result<(Vec<u8>, f64), IndexError> {
        let name = file.filename_str();
        let inner = self.inner.clone();
        let url = file.url.clone();
        let reply = self.runtime.block_on(async move {
            let options = RequestOptions {
                body: BodyKind::Sdist,
                ..RequestOptions::default()
            };
            inner.client.get(&url, &options).await
        })?;
        if reply.status != 200 {
            return Err(build::unavailable(
                file,
                format!("the sdist could not be fetched (HTTP {})", reply.status),
            ));
        }
        metadata_fetch::verify_download(file, &reply.body)?;
        if let Some(reason) = self.too_large_to_build(&name, &reply.body) {
            return Err(build::unavailable(file, reason));
        }
        let dir = tempfile::tempdir().map_err(|e| IndexError::Io {
            path: "(a temporary folder)".to_string(),
            message: e.to_string(),
        })?;
        let path = dir.path().join(&name);
        std::fs::write(&path, &reply.body).map_err(|e| IndexError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        eprintln_building(&self.inner.printer, &name);
        let timeout = self.inner.build.timeout;
        build::run_pip(python, &path, &self.inner.indexes, timeout)
            .map_err(|reason| build::unavailable(file, reason))
    }

    /// Why the sdist's build requirements are too large to fetch for a metadata build (the
    /// newest wheel that fits this environment of each, summed), or `None`.
    fn too_large_to_build(&self, name: &str, sdist: &[u8]) -> Option<String> {
        let requires = build::build_requires(name, sdist)?;
        let mut total = 0u64;
        let mut named = Vec::new();
        for requirement in &requires {
            let Ok(Some(project)) = self.project(&requirement.name) else {
                continue;
            };
            let Some((version, size)) = self.largest_wheel(&project, requirement) else {
                continue;
            };
            total += size;
            named.push(format!(
                "{} {version} ({} MB)",
                requirement.name,
                size / (1024 * 1024)
            ));
        }
        let limit = self.inner.build.max_requires_bytes;
        (total > limit).then(|| {
            format!(
                "{} {}, over the {} MB of wheels planner fetches for a \
                 metadata build (PLANNER_BUILD_REQUIRES_MB raises the limit)",
                build::TOO_LARGE,
                named.join(", "),
                limit / (1024 * 1024)
            )
        })
    }

    /// The newest release of `project` that `requirement` accepts and that has a wheel for
    /// this environment (any wheel when no environment is known), with its largest such wheel's
    /// size.
    fn largest_wheel(
        &self,
        project: &Project,
        requirement: &pep508_rs::Requirement,
    ) -> Option<(pep440_rs::Version, u64)> {
        let accepts = |version: &pep440_rs::Version| match &requirement.version_or_url {
            Some(VersionOrUrl::VersionSpecifier(spec)) => spec.contains(version),
            _ => !version.any_prerelease(),
        };
        let fits = |tags: &[crate::tags::Tag]| match &self.inner.target_tags {
            Some(target) => tags.iter().any(|t| target.rank(t).is_some()),
            None => true,
        };
        let mut best: Option<(pep440_rs::Version, u64)> = None;
        for (i, head) in project.files.heads().enumerate() {
            let Some(tags) = head.tags else { continue };
            if head.yanked || !accepts(head.version) || !fits(tags) {
                continue;
            }
            let size = project.files[i].size.unwrap_or(0);
            best = match best {
                Some((v, s)) if &v > head.version => Some((v, s)),
                Some((v, s)) if &v == head.version => Some((v, s.max(size))),
                _ => Some((head.version.clone(), size)),
            };
        }
        best
    }
}

/// Say on stderr that a build runs (it may take a while), unless quiet.
fn eprintln_building(printer: &crate::printer::Printer, name: &str) {
    printer.note(&format!(
        "reading the requirements of {name} by a metadata build (pip)"
    ));
}
