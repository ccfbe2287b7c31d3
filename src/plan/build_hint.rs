//! Whether `--allow-build` can help a target that has only source distributions here: planner
//! reads an sdist's requirements only from static metadata (`PKG-INFO` of Metadata-Version 2.2+,
//! PEP 643, with `Requires-Dist` not dynamic); without it, allowing builds still leaves nothing
//! to plan with (flash-attn: every release an sdist with Metadata-Version 2.1).
//!
//! In: a project name. Out: the sentence for the hint, from one metadata read of its newest
//! sdist (only when a resolution already failed on it).

use pep508_rs::PackageName;

use super::alternatives::Proposer;

impl Proposer<'_> {
    /// Why `--allow-build` would not help `name`: its newest non-yanked sdist's metadata cannot
    /// be read without a build. `None` when it can (or there is no sdist, or the index fails).
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
                "`--allow-build` would not help either: planner reads an sdist's requirements only \
                 from static metadata, and {name}'s newest sdist has none ({text})"
            )
        })
    }
}
