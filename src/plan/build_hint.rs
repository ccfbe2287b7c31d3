//! What `--allow-build` does for a target that has only source distributions here: where its
//! newest sdist has no static metadata (`PKG-INFO` older than Metadata-Version 2.2, or
//! `Requires-Dist` dynamic, PEP 643), planner reads its requirements by a metadata build
//! (`index::build`: pip in the environment's interpreter, isolated), which the hint says.
//!
//! In: a project name. Out: the sentence for the hint, from one metadata read of its newest
//! sdist (only when a resolution already failed on it).

use pep508_rs::PackageName;

use super::alternatives::Proposer;

impl Proposer<'_> {
    /// What `--allow-build` would do for `name` when its newest non-yanked sdist's metadata
    /// cannot be read without a build. `None` when it can (or there is no sdist, or the index
    /// fails).
    pub(super) fn build_would_not_help(&self, name: &PackageName) -> Option<String> {
        let project = self.evidence.catalog.project(name).ok()??;
        let files = &project.files;
        let newest = (0..files.len())
            .filter(|&i| {
                let head = files.head(i);
                head.tags.is_none() && !head.yanked
            })
            .max_by(|&a, &b| files.head(a).version.cmp(files.head(b).version))?;
        let file = &files[newest];
        let err = self.evidence.index.metadata(&project, file).err()?;
        let text = err.to_string();
        text.contains("without a build").then(|| {
            format!(
                "planner plans with wheels only, as the commands it prints install: \
                 `--allow-build` plans with source distributions, and reads {name}'s \
                 requirements by a metadata build of its sdist in an isolated build \
                 environment (pip, up to PLANNER_BUILD_TIMEOUT seconds each), since it has no \
                 static metadata ({text})"
            )
        })
    }
}
