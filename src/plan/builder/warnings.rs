//! The loud warnings of a plan: one change (or one accelerator-line switch) in, the sentences
//! a plan carries beside its risk out (an unmanaged or local build replaced by an index build, a
//! yanked release, a switch of accelerator lines) and the title's note of that switch.

use pep508_rs::PackageName;

use super::PlanBuilder;
use crate::inventory::DirectUrl;
use crate::plan::proposal::Change;
use crate::risk::AcceleratorSwitch;

impl PlanBuilder<'_> {
    /// How an unmanaged installed dist was installed (`None` for index installs).
    pub(super) fn unmanaged_source(&self, name: &PackageName) -> Option<String> {
        let url = self.inventory.get(name)?.direct_url.as_ref()?;
        Some(match url {
            DirectUrl::Archive { .. } => "direct URL archive".to_string(),
            DirectUrl::Directory { editable: true, .. } => "editable checkout".to_string(),
            DirectUrl::Directory { .. } => "local directory".to_string(),
            DirectUrl::Vcs { vcs, .. } => format!("{vcs} checkout"),
        })
    }

    /// The loud warnings of one change: an unmanaged or local build replaced by an index
    /// build, a yanked release.
    pub(super) fn change_warnings(&self, change: &Change) -> Vec<String> {
        let name = &change.name;
        let mut warnings = Vec::new();
        if let (Some(old), Some(new)) = (&change.from, &change.to) {
            if let Some(source) = self.unmanaged_source(name) {
                warnings.push(format!(
                    "{name} {old} was installed from a {source}, not from the index: this plan \
                     REPLACES it with the index build {new}"
                ));
            } else if old.is_local() && old.local() != new.local() {
                warnings.push(format!(
                    "{name} {old} is a local build: this plan REPLACES it with the index build \
                     {new}; make sure the index serves the variant you need"
                ));
            }
        }
        if let (Some(old), true) = (&change.from, change.from_source_only) {
            warnings.push(format!(
                "{name} {old} has only an sdist on the index (it was built when installed): the \
                 rollback scripts will refuse to put it back, since reinstalling it runs its \
                 build and the plan installs wheels only (`--allow-build` writes rollback \
                 scripts that build it)"
            ));
        }
        if let (Some(new), Some(reason)) = (&change.to, &change.yanked) {
            warnings.push(format!(
                "{name} {new} is yanked{}",
                if reason.is_empty() {
                    String::new()
                } else {
                    format!(": {}", reason.escape_default())
                }
            ));
        }
        warnings
    }
}

/// What a plan's title says of its accelerator-line switch: the lines, what it installs of the
/// new one and how many of the old one it leaves with nothing requiring them.
pub(super) fn switch_label(switch: &AcceleratorSwitch) -> String {
    let mut text = format!(
        "; switches {} -> {} (installs {} of {}",
        switch.from,
        switch.to,
        switch.brings.len(),
        switch.to
    );
    if !switch.orphaned.is_empty() {
        text.push_str(&format!(
            ", leaves {} of {} unrequired",
            switch.orphaned.len(),
            switch.from
        ));
    }
    text.push(')');
    text
}

/// The warning a plan that switches accelerator lines carries beside its risk factor.
pub(super) fn accelerator_warning(switch: &AcceleratorSwitch) -> String {
    let mut text = format!(
        "this plan leaves {} for {} (it installs {} of {}): GPU nodes built for {} may not run it",
        switch.from,
        switch.to,
        switch.brings.len(),
        switch.to,
        switch.from
    );
    if !switch.orphaned.is_empty() {
        let names: Vec<&str> = switch.orphaned.iter().map(|n| n.as_ref()).collect();
        text.push_str(&format!(
            "; afterwards nothing requires {} (left installed; remove them with `pip uninstall`)",
            names.join(", ")
        ));
    }
    text
}
