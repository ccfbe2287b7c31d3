//! Accelerator lines: which CUDA line a dist belongs to, and whether a plan leaves the installed
//! line for another.
//!
//! In: the inventory, the planned environment (its names, and the names its dists require under
//! the target's markers) and the plan's changes. Out:
//! [`AcceleratorSwitch`] facts for the risk model (what the plan brings of the new line, and the
//! installed libraries of the old line that nothing requires after it).
//!
//! A dist's line ([`line_of`], the one notion every part of planner uses: the switch check,
//! the same-line plans, the held-back lines, `outdated`'s line moves) is read from its name
//! (`nvidia-cublas-cu12`, `jax-cuda13-plugin`, `cupy-cuda12x`), from its local label (`torch
//! 2.11.0+cu130`), or, for an unsuffixed library released with the CUDA toolkit, from its
//! version (`nvidia-cublas 13.4.1.3`, `cuda-toolkit 13.2.2`): the CUDA major version. An
//! environment whose CUDA libraries are all unsuffixed (torch 2.10 and later from the default
//! index) so still has an installed line ([`installed_lines`]). A requirement's line
//! ([`requirement_line`]) is its name's, or for such a library the one major its specifiers
//! allow (`cuda-toolkit[cublas]==13.2.2`). A switch also counts what a toolkit of the line
//! requires as of the line (`cuda-toolkit 13.2.2` pins `nvidia-cufft==12.2.0.57.*`).
//! A CPU or ROCm build (`torch 2.9.1+cpu`, `+rocm6.4`: [`variant_of`]) is a line of its own in a
//! venv with no CUDA line: a plan that replaces it with another build switches from it, and the
//! same-line plans keep it ([`installed_variants`]).

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::{LocalSegment, Operator, Version};
use pep508_rs::{ExtraName, PackageName, Requirement};

use super::planned::applies_with;
use super::proposal::Change;
use crate::inventory::InstalledDist;
use crate::inventory::Inventory;
use crate::risk::{AcceleratorSwitch, LineKind};

/// The CUDA major version a dist is built for: from its name or its local label, else, for an
/// unsuffixed library released with the CUDA toolkit and versioned as it is (`nvidia-cublas
/// 13.4.1.3`, `nvidia-cuda-runtime 13.2.86`, `cuda-toolkit 13.2.2`, `cuda-bindings 13.5.0`),
/// the major of its version. Libraries versioned on their own (`nvidia-cufft 12.2.0.57` ships
/// with CUDA 13) get no line here.
pub(crate) fn line_of(name: &PackageName, version: &Version) -> Option<u32> {
    name_line(name.as_ref())
        .or_else(|| label_line(version))
        .or_else(|| toolkit_versioned_line(name, version))
}

/// The CUDA lines of the installed dists ([`line_of`]).
pub(crate) fn installed_lines(inventory: &Inventory) -> BTreeSet<u32> {
    (inventory.dists.iter())
        .filter_map(|d| line_of(d.name(), d.version()))
        .collect()
}

/// The CPU and ROCm builds installed ([`variant_of`]: `the CPU build`, `ROCm 6.4`), each named
/// once.
pub(crate) fn installed_variants(inventory: &Inventory) -> BTreeSet<String> {
    (inventory.dists.iter())
        .filter_map(|d| Some(variant_of(d.version())?.1))
        .collect()
}

/// The CUDA major a requirement holds its dist to: its name's (`nvidia-cudnn-cu13`), or, for a
/// toolkit-versioned library (`cuda-toolkit[cublas]==13.2.2`, `nvidia-cuda-runtime==13.0.96`,
/// `cuda-bindings<14,>=13.0.3`), the one major every version its specifiers allow has. `None`
/// for a range over several majors (`cuda-bindings>=12`) or a bare name.
pub(crate) fn requirement_line(requirement: &Requirement) -> Option<u32> {
    if let Some(line) = name_line(requirement.name.as_ref()) {
        return Some(line);
    }
    if !toolkit_versioned(requirement.name.as_ref()) {
        return None;
    }
    let specifiers = crate::metadata::requirement::specifiers(requirement)?;
    let mut lowest: Option<u64> = None;
    let mut below: Option<u64> = None;
    for spec in specifiers.iter() {
        let release = spec.version().release();
        let major = *release.first()?;
        match spec.operator() {
            Operator::Equal | Operator::EqualStar | Operator::ExactEqual | Operator::TildeEqual => {
                lowest = Some(lowest.map_or(major, |l| l.max(major)));
                // `~=13.0` allows every 13.x; `~=13` is invalid; `==13.0.*` one major.
                below = Some(below.map_or(major + 1, |b| b.min(major + 1)));
            }
            Operator::GreaterThan | Operator::GreaterThanEqual => {
                lowest = Some(lowest.map_or(major, |l| l.max(major)));
            }
            Operator::LessThan => {
                // `<14` and `<14.0` allow nothing of 14; `<14.1` allows 14.0.
                let whole = release.iter().skip(1).all(|p| *p == 0);
                let bound = if whole { major } else { major + 1 };
                below = Some(below.map_or(bound, |b| b.min(bound)));
            }
            Operator::LessThanEqual => below = Some(below.map_or(major + 1, |b| b.min(major + 1))),
            _ => {}
        }
    }
    let (lowest, below) = (lowest?, below?);
    (below == lowest + 1)
        .then(|| u32::try_from(lowest).ok())
        .flatten()
        .filter(|m| (9..=99).contains(m))
}

/// `...-cu12`, `...-cu130`, `...cuda13...`, `...cuda12x`: the CUDA major in a name.
pub(crate) fn name_line(name: &str) -> Option<u32> {
    for part in name.split('-') {
        let digits = part
            .strip_prefix("cuda")
            .or_else(|| part.strip_prefix("cu"))
            .map(|rest| rest.trim_end_matches('x'));
        if let Some(major) = digits.and_then(cuda_major) {
            return Some(major);
        }
    }
    None
}

/// Unsuffixed NVIDIA projects whose versions follow the CUDA toolkit's, beside every
/// `nvidia-cuda-*` one (`nvidia-cuda-runtime`, `nvidia-cuda-nvrtc`, `nvidia-cuda-cccl`).
const TOOLKIT_VERSIONED: &[&str] = &[
    "cuda-toolkit",
    "cuda-bindings",
    "cuda-python",
    "nvidia-cublas",
    "nvidia-nvjitlink",
    "nvidia-nvtx",
    "nvidia-nvvm",
    "nvidia-nvfatbin",
    "nvidia-cudla",
];

/// The CUDA major a toolkit-versioned project's version names (`nvidia-cublas 13.4.1.3` -> 13).
fn toolkit_versioned_line(name: &PackageName, version: &Version) -> Option<u32> {
    if !toolkit_versioned(name.as_ref()) {
        return None;
    }
    let major = u32::try_from(*version.release().first()?).ok()?;
    Some(major).filter(|m| (9..=99).contains(m))
}

/// Whether `name` is versioned with the CUDA toolkit ([`TOOLKIT_VERSIONED`], `nvidia-cuda-*`).
fn toolkit_versioned(name: &str) -> bool {
    name.starts_with("nvidia-cuda-") || TOOLKIT_VERSIONED.contains(&name)
}

/// `+cu130`, `+cu121`: the CUDA major of a local label.
fn label_line(version: &Version) -> Option<u32> {
    version.local().iter().find_map(|segment| match segment {
        LocalSegment::String(s) => s.strip_prefix("cu").and_then(cuda_major),
        LocalSegment::Number(_) => None,
    })
}

/// `12` -> 12, `130` -> 13, `118` -> 11; anything else is not a CUDA version.
fn cuda_major(digits: &str) -> Option<u32> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let major = match digits.len() {
        1 | 2 => digits,
        3 => &digits[..2],
        _ => return None,
    };
    major.parse().ok().filter(|m| (9..=99).contains(m))
}

/// The accelerator lines the plan's changes bring that the installed environment does not
/// have, each with what it brings and the old line's libraries left with nothing requiring them.
/// Empty when the environment has no accelerator line (a CPU venv gains its first one: not a
/// switch) or the plan stays on the installed lines.
pub(crate) fn switches(
    inventory: &Inventory,
    planned: &Planned<'_>,
    changes: &[Change],
) -> Vec<AcceleratorSwitch> {
    let installed = installed_lines(inventory);
    if installed.is_empty() {
        return variant_switch(inventory, planned, changes)
            .into_iter()
            .collect();
    }
    if let Some(switch) = to_variant(inventory, planned, changes, &installed) {
        return vec![switch];
    }
    let of_toolkit = toolkit_required(planned, changes);
    let mut brought: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for change in changes {
        let Some(to) = &change.to else { continue };
        let line = line_of(&change.name, to).or_else(|| of_toolkit.get(&change.name).copied());
        if let Some(line) = line.filter(|l| !installed.contains(l)) {
            brought
                .entry(line)
                .or_default()
                .push(format!("{} {to}", change.name));
        }
    }
    // A plan leaves a line when it takes away what the old line's dists were installed for
    // (something required them before and nothing does after) or moves a dist itself to
    // another line (`torch +cu130 -> +cu121`); a new-line library a planned dist always needs
    // (`nvidia-cutlass-dsl-libs-cu12` for nvidia-cutlass-dsl) beside a stack that stays is none.
    let orphaned = orphaned_of_lines(inventory, planned, &installed);
    let relabelled = changes.iter().any(|c| {
        let (Some(from), Some(to)) = (&c.from, &c.to) else {
            return false;
        };
        matches!((line_of(&c.name, from), line_of(&c.name, to)), (Some(a), Some(b)) if a != b)
    });
    if brought.is_empty() || orphaned.is_empty() && !relabelled {
        return Vec::new();
    }
    let from = cuda_names(&installed);
    brought
        .into_iter()
        .map(|(line, brings)| AcceleratorSwitch {
            leaves: LineKind::Cuda,
            from: from.clone(),
            to: format!("CUDA {line}"),
            arrives: LineKind::Cuda,
            brings,
            orphaned: orphaned.clone(),
        })
        .collect()
}

/// What a planned `cuda-toolkit` requires (its extras evaluated), each of the toolkit's line
/// (`nvidia-cufft 12.2.0.57` under `cuda-toolkit 13.2.2`).
fn toolkit_required<'p>(
    planned: &Planned<'p>,
    changes: &'p [Change],
) -> BTreeMap<&'p PackageName, u32> {
    changes
        .iter()
        .filter(|c| c.name.as_ref() == "cuda-toolkit")
        .filter_map(|c| Some((&c.name, line_of(&c.name, c.to.as_ref()?)?)))
        .flat_map(|(toolkit, line)| {
            (planned.requires.get(toolkit).into_iter().flatten()).map(move |name| (*name, line))
        })
        .collect()
}

/// The line a local label names that is not a CUDA major: `+cpu` (the CPU build), `+rocm6.4`
/// (ROCm 6.4).
pub(crate) fn variant_of(version: &Version) -> Option<(LineKind, String)> {
    let text = version.to_string();
    let (_, label) = text.split_once('+')?;
    if label == "cpu" || label.starts_with("cpu.") {
        return Some((LineKind::Cpu, "the CPU build".to_string()));
    }
    let release = label.strip_prefix("rocm")?;
    (release.starts_with(|c: char| c.is_ascii_digit()))
        .then(|| (LineKind::Rocm, format!("ROCm {release}")))
}

/// An installed `+cpu` or `+rocm` build the plan replaces with another build (torch
/// `2.9.1+cpu` -> the index's `2.15.0`, which requires CUDA 13's libraries): a switch from that
/// line to the CUDA line the plan brings (or to "the index's build" when it brings none), with
/// what it installs of it and the old line's dists left unrequired (`pytorch-triton-rocm`). A
/// CPU or ROCm venv gaining a CUDA library some other dist needs, its builds kept, is none.
fn variant_switch(
    inventory: &Inventory,
    planned: &Planned<'_>,
    changes: &[Change],
) -> Option<AcceleratorSwitch> {
    let ((leaves, from), new) = changes.iter().find_map(|c| {
        let old = variant_of(c.from.as_ref()?)?;
        let new = variant_of(c.to.as_ref()?);
        (new.as_ref() != Some(&old)).then_some((old, new))
    })?;
    let of_toolkit = toolkit_required(planned, changes);
    let line = |c: &Change| {
        let to = c.to.as_ref()?;
        line_of(&c.name, to).or_else(|| of_toolkit.get(&c.name).copied())
    };
    let cuda: BTreeSet<u32> = changes.iter().filter_map(line).collect();
    let relabelled = |c: &Change| c.from.as_ref().and_then(variant_of).is_some();
    let brings: Vec<String> = (changes.iter())
        .filter(|c| line(c).is_some() || relabelled(c))
        .filter_map(|c| Some(format!("{} {}", c.name, c.to.as_ref()?)))
        .collect();
    let (arrives, to) = match (cuda.iter().next_back(), new) {
        (Some(line), _) => (LineKind::Cuda, format!("CUDA {line}")),
        (None, Some(build)) => build,
        (None, None) => (LineKind::Cuda, "the index's build".to_string()),
    };
    let orphaned = orphaned(inventory, planned, |d| {
        leaves == LineKind::Rocm && d.name().as_ref().contains("rocm")
    });
    Some(AcceleratorSwitch {
        leaves,
        from,
        to,
        arrives,
        brings,
        orphaned,
    })
}

/// A dist of a CUDA environment (on `installed`) replaced by a CPU or ROCm build, or such a
/// build added (torch `2.9.1` -> `2.10.0+cpu` from an index serving both, whose `==2.10.0` the
/// `+cpu` build meets too): a switch from the CUDA line to that build, with the CUDA libraries
/// it leaves unrequired.
fn to_variant(
    inventory: &Inventory,
    planned: &Planned<'_>,
    changes: &[Change],
    installed: &BTreeSet<u32>,
) -> Option<AcceleratorSwitch> {
    let build = |c: &Change| {
        let new = variant_of(c.to.as_ref()?)?;
        (c.from.as_ref().and_then(variant_of).as_ref() != Some(&new)).then_some(new)
    };
    let (arrives, to) = changes.iter().find_map(build)?;
    let brings: Vec<String> = (changes.iter())
        .filter(|c| build(c).is_some_and(|(_, name)| name == to))
        .filter_map(|c| Some(format!("{} {}", c.name, c.to.as_ref()?)))
        .collect();
    Some(AcceleratorSwitch {
        leaves: LineKind::Cuda,
        from: cuda_names(installed),
        to,
        arrives,
        brings,
        orphaned: orphaned_of_lines(inventory, planned, installed),
    })
}

/// `CUDA 12`, `CUDA 12 and CUDA 13`: the installed lines as a switch names the one it leaves.
fn cuda_names(installed: &BTreeSet<u32>) -> String {
    let names: Vec<String> = installed.iter().map(|l| format!("CUDA {l}")).collect();
    names.join(" and ")
}

/// [`orphaned`] for the installed dists on one of the `installed` CUDA lines.
fn orphaned_of_lines(
    inventory: &Inventory,
    planned: &Planned<'_>,
    installed: &BTreeSet<u32>,
) -> Vec<PackageName> {
    orphaned(inventory, planned, |d| {
        line_of(d.name(), d.version()).is_some_and(|l| installed.contains(&l))
    })
}

/// The planned environment as this module reads it.
pub(crate) struct Planned<'p> {
    /// Every dist after the plan.
    pub(crate) names: BTreeSet<&'p PackageName>,
    /// What each planned dist requires (markers and extras evaluated).
    pub(crate) requires: BTreeMap<&'p PackageName, BTreeSet<&'p PackageName>>,
}

/// Installed dists of the old line (`of_line`, or required by an installed `cuda-toolkit` of
/// it) given that an installed dist required before the plan and no
/// dist of the planned environment requires after it, other than dists orphaned themselves
/// (`nvidia-cublas-cu12`, which only the orphaned `nvidia-cusolver-cu12` still requires, goes
/// with it); a top-level `cupy-cuda13x` nothing ever required is not orphaned by the plan.
fn orphaned(
    inventory: &Inventory,
    planned: &Planned<'_>,
    of_line: impl Fn(&InstalledDist) -> bool,
) -> Vec<PackageName> {
    let markers = &inventory.environment.markers;
    // The extras each installed dist was asked for (`cuda-toolkit[cublas,cufft]`), so that what
    // they require counts as required (nvidia-cublas, through the toolkit's `cublas` extra).
    let mut asked: BTreeMap<&PackageName, Vec<ExtraName>> = BTreeMap::new();
    for r in (inventory.dists.iter())
        .flat_map(|d| d.metadata.requires_dist.iter())
        .filter(|r| applies_with(r, markers, &[]))
    {
        asked
            .entry(&r.name)
            .or_default()
            .extend(r.extras.iter().cloned());
    }
    let required: Vec<(&PackageName, &PackageName)> = inventory
        .dists
        .iter()
        .flat_map(|d| {
            let extras = asked.get(d.name()).map_or(&[][..], Vec::as_slice);
            (d.metadata.requires_dist.iter())
                .filter(move |r| applies_with(r, markers, extras))
                .map(move |r| (d.name(), &r.name))
        })
        .collect();
    // An installed toolkit of the lines: what it requires is of its line (`nvidia-cufft`).
    let toolkits: BTreeSet<&PackageName> = (inventory.dists.iter())
        .filter(|d| d.name().as_ref() == "cuda-toolkit" && of_line(d))
        .map(|d| d.name())
        .collect();
    let of_lines = |d: &&InstalledDist| {
        of_line(d) || (required.iter()).any(|(by, name)| toolkits.contains(by) && *name == d.name())
    };
    let candidates: BTreeSet<&PackageName> = inventory
        .dists
        .iter()
        .filter(of_lines)
        .filter(|d| {
            required.iter().any(|(_, name)| *name == d.name()) && planned.names.contains(d.name())
        })
        .map(|d| d.name())
        .collect();
    // Grown to a fixed point: a candidate is orphaned once every planned dist that still
    // requires it is orphaned.
    let mut orphans: BTreeSet<&PackageName> = BTreeSet::new();
    loop {
        let more: Vec<&PackageName> = candidates
            .iter()
            .filter(|name| !orphans.contains(*name))
            .filter(|name| {
                !planned.requires.iter().any(|(requirer, required)| {
                    !orphans.contains(requirer) && required.contains(*name)
                })
            })
            .copied()
            .collect();
        if more.is_empty() {
            break;
        }
        orphans.extend(more);
    }
    orphans.into_iter().cloned().collect()
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    fn line(name: &str, version: &str) -> Option<u32> {
        line_of(
            &PackageName::from_str(name).unwrap(),
            &Version::from_str(version).unwrap(),
        )
    }

    #[test]
    fn lines_come_from_names_and_local_labels() {
        assert_eq!(line("nvidia-cublas-cu12", "12.1.3.1"), Some(12));
        assert_eq!(line("nvidia-nccl-cu13", "2.29.7"), Some(13));
        assert_eq!(line("jax-cuda13-plugin", "0.11.2"), Some(13));
        assert_eq!(line("cupy-cuda12x", "13.6.0"), Some(12));
        assert_eq!(line("torch", "2.11.0+cu130"), Some(13));
        assert_eq!(line("torch", "2.3.1+cu121"), Some(12));
        assert_eq!(line("torch", "2.12.0"), None);
        assert_eq!(line("curl-cffi", "0.7.0"), None);
    }

    /// `+cpu` and `+rocm6.4` builds are lines of their own; CUDA labels and plain versions not.
    #[test]
    fn cpu_and_rocm_labels_are_lines() {
        let variant = |v: &str| variant_of(&Version::from_str(v).unwrap());
        assert_eq!(
            variant("2.9.1+cpu"),
            Some((LineKind::Cpu, "the CPU build".into()))
        );
        assert_eq!(
            variant("2.9.1+rocm6.4"),
            Some((LineKind::Rocm, "ROCm 6.4".into()))
        );
        assert_eq!(variant("2.11.0+cu130"), None);
        assert_eq!(variant("2.11.0"), None);
        assert_eq!(variant("1.0+rocmish"), None);
    }

    fn library(name: &str, version: &str) -> Option<u32> {
        line(name, version)
    }

    /// The unsuffixed libraries `cuda-toolkit 13.2.2` pins (torch 2.15.0's closure): those
    /// versioned with the toolkit give its major, the others (cufft, cusolver, cusparse, cufile)
    /// only through the toolkit that requires them.
    #[test]
    fn toolkit_versioned_libraries_give_their_line() {
        assert_eq!(library("nvidia-cublas", "13.4.1.3"), Some(13));
        assert_eq!(library("nvidia-cuda-runtime", "13.2.86"), Some(13));
        assert_eq!(library("nvidia-cuda-cccl", "13.3.5.0.6"), Some(13));
        assert_eq!(library("nvidia-nvjitlink", "13.5.37"), Some(13));
        assert_eq!(library("nvidia-nvtx", "13.2.86"), Some(13));
        assert_eq!(library("cuda-toolkit", "13.2.2"), Some(13));
        assert_eq!(library("cuda-bindings", "12.9.4"), Some(12));
        assert_eq!(library("nvidia-cudnn-cu13", "9.26.0.51"), Some(13));
        assert_eq!(library("nvidia-cufft", "12.2.0.57"), None);
        assert_eq!(library("nvidia-cusparse", "12.7.10.12"), None);
        assert_eq!(library("nvidia-cufile", "1.17.1.22"), None);
        assert_eq!(library("cuda-pathfinder", "1.9.1"), None);
        assert_eq!(library("torch", "2.15.0"), None);
    }

    fn required(requirement: &str) -> Option<u32> {
        requirement_line(&Requirement::from_str(requirement).unwrap())
    }

    /// torch 2.11.0's and 2.15.0's requirements: the suffixed names, and the toolkit-versioned
    /// ones whose specifiers allow one major.
    #[test]
    fn a_requirement_names_its_line_by_name_or_by_one_toolkit_major() {
        assert_eq!(required("nvidia-cudnn-cu13==9.19.0.56"), Some(13));
        assert_eq!(required("nvidia-nccl-cu12"), Some(12));
        assert_eq!(
            required("cuda-toolkit[cublas,cudart,cufft]==13.2.2; platform_system == 'Linux'"),
            Some(13)
        );
        assert_eq!(required("cuda-bindings<14,>=13.0.3"), Some(13));
        assert_eq!(required("nvidia-cuda-runtime==13.0.96"), Some(13));
        assert_eq!(required("nvidia-cublas==13.1.0.3.*"), Some(13));
        assert_eq!(required("nvidia-nvjitlink~=12.8"), Some(12));
        assert_eq!(required("cuda-bindings<=12.9.4,>=12.0"), Some(12));
        assert_eq!(required("cuda-bindings>=12"), None);
        assert_eq!(required("cuda-bindings<14.1,>=13"), None);
        assert_eq!(required("cuda-bindings"), None);
        assert_eq!(required("nvidia-cufft==12.0.0.61"), None);
        assert_eq!(required("numpy==1.26.4"), None);
    }
}
