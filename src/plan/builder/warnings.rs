//! The loud warnings of a plan: one change (or one accelerator-line switch) in, the sentences
//! a plan carries beside its risk out (an unmanaged or local build replaced by an index build, a
//! yanked release, a switch of accelerator lines) and the title's note of that switch.

use std::collections::BTreeSet;

use pep508_rs::PackageName;

use super::PlanBuilder;
use crate::inventory::DirectUrl;
use crate::plan::clash::Clash;
use crate::plan::proposal::Change;
use crate::risk::{AcceleratorSwitch, LineKind};

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

/// The warning a plan that switches accelerator lines carries beside its risk factor. An
/// orphaned library that shares files with a planned one (`nvidia-cudnn-cu12` and
/// `nvidia-cudnn-cu13` both install `nvidia/cudnn/lib/libcudnn.so.9`; `clashes`) is never
/// simply "remove it": uninstalling it after the plan deletes the files the new line installed
/// over it (`import torch` then fails on `libcudnn.so.9`).
pub(super) fn accelerator_warning(switch: &AcceleratorSwitch, clashes: &[Clash]) -> String {
    let cost = match (switch.leaves, switch.arrives) {
        (_, LineKind::Cpu) => "the CPU build does not use the GPU".to_string(),
        (_, LineKind::Rocm) => format!("{} runs on AMD GPUs only", switch.to),
        (LineKind::Cuda, _) => format!("GPU nodes built for {} may not run it", switch.from),
        (LineKind::Rocm, _) => {
            "a CUDA build does not use AMD GPUs; an index that serves ROCm builds \
                           keeps the ROCm line"
                .to_string()
        }
        (LineKind::Cpu, _) => "the new build runs on a CPU too, but installs what it needs for \
                          NVIDIA GPUs; an index that serves CPU builds keeps the CPU line"
            .to_string(),
    };
    let mut text = format!(
        "this plan leaves {} for {} (it installs {} of {}): {cost}",
        switch.from,
        switch.to,
        switch.brings.len(),
        switch.to,
    );
    if switch.orphaned.is_empty() {
        return text;
    }
    let names: Vec<&str> = switch.orphaned.iter().map(|n| n.as_ref()).collect();
    text.push_str(&format!(
        "; afterwards nothing requires {} (left installed",
        names.join(", ")
    ));
    let sharing: Vec<&Clash> = clashes
        .iter()
        .filter(|c| c.other_kept && switch.orphaned.contains(&c.other))
        .collect();
    if sharing.is_empty() {
        text.push_str("; remove them with `pip uninstall`)");
        return text;
    }
    let olds: BTreeSet<&str> = sharing.iter().map(|c| c.other.as_ref()).collect();
    let news: BTreeSet<String> = sharing
        .iter()
        .map(|c| format!("{}=={}", c.planned, c.version))
        .collect();
    let evidence: BTreeSet<&str> = sharing.iter().map(|c| c.evidence.as_str()).collect();
    text.push_str(&format!(
        "). {} {} files with what the plan installs ({}): uninstalling them after the plan \
         deletes those files; uninstall them before it, or afterwards reinstall {} with `pip \
         install --force-reinstall --no-deps`",
        join(&olds),
        if olds.len() == 1 { "shares" } else { "share" },
        join(&evidence),
        join(&news)
    ));
    if olds.len() < switch.orphaned.len() {
        text.push_str("; the others can go with `pip uninstall`");
    }
    text
}

/// `a, b, c` (in the set's order).
fn join<T: AsRef<str>>(items: &BTreeSet<T>) -> String {
    items
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<&str>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use pep440_rs::Version;

    use super::*;

    fn name(s: &str) -> PackageName {
        PackageName::from_str(s).unwrap()
    }

    /// A ROCm build replaced by the index's CUDA build says what that costs on an AMD GPU and
    /// what would keep the line, and names the ROCm triton nothing requires any more.
    #[test]
    fn leaving_rocm_says_the_cuda_build_does_not_use_amd_gpus() {
        let switch = AcceleratorSwitch {
            leaves: LineKind::Rocm,
            from: "ROCm 6.4".into(),
            to: "CUDA 13".into(),
            arrives: LineKind::Cuda,
            brings: vec!["torch 2.15.0".into(), "nvidia-nccl-cu13 2.30.7".into()],
            orphaned: vec![name("pytorch-triton-rocm")],
        };
        assert_eq!(
            accelerator_warning(&switch, &[]),
            "this plan leaves ROCm 6.4 for CUDA 13 (it installs 2 of CUDA 13): a CUDA build does \
             not use AMD GPUs; an index that serves ROCm builds keeps the ROCm line; afterwards \
             nothing requires pytorch-triton-rocm (left installed; remove them with `pip \
             uninstall`)"
        );
    }

    /// A CUDA 12 venv whose torch a plan replaces with the CPU build (`torch==2.10.0` from an
    /// index serving `2.10.0+cpu` too) says the new build does not use the GPU, never that GPU
    /// nodes "may not run it".
    #[test]
    fn arriving_at_the_cpu_build_says_it_does_not_use_the_gpu() {
        let switch = AcceleratorSwitch {
            leaves: LineKind::Cuda,
            from: "CUDA 12".into(),
            to: "the CPU build".into(),
            arrives: LineKind::Cpu,
            brings: vec!["torch 2.10.0+cpu".into()],
            orphaned: vec![],
        };
        assert_eq!(
            accelerator_warning(&switch, &[]),
            "this plan leaves CUDA 12 for the CPU build (it installs 1 of the CPU build): the CPU \
             build does not use the GPU"
        );
    }

    /// The live torch 2.9.1+cu128 recipe, `propose torch`'s CUDA 13 plan (2026-12-05):
    /// nvidia-cudnn-cu13 9.26.0.51 installs over nvidia-cudnn-cu12's files. Removed after the
    /// plan as the warning used to advise, `import torch` failed on `libcudnn.so.9`; removed
    /// before it (or the cu13 wheel reinstalled after), torch 2.15.0 imports and runs.
    #[test]
    fn an_orphan_sharing_files_is_removed_before_the_plan() {
        let switch = AcceleratorSwitch {
            leaves: LineKind::Cuda,
            from: "CUDA 12".into(),
            to: "CUDA 13".into(),
            arrives: LineKind::Cuda,
            brings: vec!["nvidia-cudnn-cu13 9.26.0.51".into()],
            orphaned: vec![name("nvidia-cudnn-cu12"), name("nvidia-curand-cu12")],
        };
        let clash = Clash {
            planned: name("nvidia-cudnn-cu13"),
            version: Version::from_str("9.26.0.51").unwrap(),
            other: name("nvidia-cudnn-cu12"),
            other_version: Version::from_str("9.10.2.21").unwrap(),
            other_kept: true,
            module: "nvidia".into(),
            evidence: "both install nvidia/cudnn/include/cudnn.h".into(),
        };
        assert_eq!(
            accelerator_warning(&switch, std::slice::from_ref(&clash)),
            "this plan leaves CUDA 12 for CUDA 13 (it installs 1 of CUDA 13): GPU nodes built \
             for CUDA 12 may not run it; afterwards nothing requires nvidia-cudnn-cu12, \
             nvidia-curand-cu12 (left installed). nvidia-cudnn-cu12 shares files with what the \
             plan installs (both install nvidia/cudnn/include/cudnn.h): uninstalling them after \
             the plan deletes those files; uninstall them before it, or afterwards reinstall \
             nvidia-cudnn-cu13==9.26.0.51 with `pip install --force-reinstall --no-deps`; the \
             others can go with `pip uninstall`"
        );
        assert_eq!(
            accelerator_warning(&switch, &[]),
            "this plan leaves CUDA 12 for CUDA 13 (it installs 1 of CUDA 13): GPU nodes built \
             for CUDA 12 may not run it; afterwards nothing requires nvidia-cudnn-cu12, \
             nvidia-curand-cu12 (left installed; remove them with `pip uninstall`)"
        );
    }
}
