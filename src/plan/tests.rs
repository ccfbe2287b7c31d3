//! The alternatives search over a [`MemIndex`] and a synthetic inventory: each plan is checked
//! against what a person would conclude by hand.

use std::path::PathBuf;
use std::str::FromStr;

use pep508_rs::Requirement;

use super::*;
use crate::inventory::{DirectUrl, DistFormat, Environment, InstalledDist, Inventory};
use crate::metadata::CoreMetadata;
use crate::risk::{FactorKind, Policy};
use crate::solve::MemIndex;

fn installed(name: &str, version: &str, requires: &[&str]) -> InstalledDist {
    let mut text = format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n");
    for r in requires {
        text.push_str(&format!("Requires-Dist: {r}\n"));
    }
    InstalledDist {
        metadata: CoreMetadata::parse_str(&text).unwrap(),
        installer: Some("pip".into()),
        requested: true,
        direct_url: None,
        top_level: vec![name.replace('-', "_")],
        path: PathBuf::from(format!("/venv/{name}-{version}.dist-info")),
        format: DistFormat::DistInfo,
        files: None,
    }
}

fn inventory(dists: Vec<InstalledDist>) -> Inventory {
    Inventory {
        environment: Environment::synthesize("3.12.3", Some("x86_64-manylinux_2_28")).unwrap(),
        dists,
        unreadable: vec![],
    }
}

/// app 1.0 takes lib <1.6; app 2.0 pins lib==2.0; other wants lib>=1.
fn world() -> (MemIndex, Inventory) {
    let mut index = MemIndex::new();
    index
        .add("lib", "1.0", &[])
        .add("lib", "1.5", &[])
        .add("lib", "2.0", &[])
        .add("app", "1.0", &["lib>=1.0,<1.6"])
        .add("app", "2.0", &["lib==2.0"])
        .add("other", "1.0", &["lib>=1"])
        .add("other", "3.0", &["lib>=1"]);
    let inv = inventory(vec![
        installed("app", "1.0", &["lib>=1.0,<1.6"]),
        installed("lib", "1.0", &[]),
        installed("other", "1.0", &["lib>=1"]),
    ]);
    (index, inv)
}

fn request(targets: &[&str], allow_override: bool) -> ProposeRequest {
    ProposeRequest {
        targets: targets
            .iter()
            .map(|t| Requirement::from_str(t).unwrap())
            .collect(),
        allow_override,
        source: "/venv".into(),
        ..ProposeRequest::default()
    }
}

/// `propose` for `targets` under the built-in policy.
fn propose_builtin(
    index: &MemIndex,
    inv: &Inventory,
    targets: &[&str],
    allow_override: bool,
) -> Proposal {
    propose(
        index,
        inv,
        &Policy::builtin(),
        &request(targets, allow_override),
    )
    .unwrap()
}

fn versions(plan: &Plan) -> Vec<String> {
    plan.changes
        .iter()
        .map(|c| {
            format!(
                "{} {} -> {}",
                c.name,
                c.from.as_ref().map_or("-".into(), ToString::to_string),
                c.to.as_ref().map_or("-".into(), ToString::to_string)
            )
        })
        .collect()
}

#[test]
fn a_blocked_target_gets_a_conflict_and_a_move_the_blocker_plan() {
    let (index, inv) = world();
    let proposal = propose_builtin(&index, &inv, &["lib==2.0"], false);
    let conflict = proposal.conflict.as_ref().expect("a conflict");
    assert_eq!(conflict.blockers.len(), 1);
    assert_eq!(conflict.blockers[0].dependent.as_ref(), "app");
    assert_eq!(
        conflict.blockers[0].requirement.to_string(),
        "lib>=1.0,<1.6"
    );
    let kinds: Vec<PlanKind> = proposal.plans.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [PlanKind::MoveBlockers, PlanKind::NewestFitting]);
    let moved = &proposal.plans[0];
    assert_eq!(versions(moved), ["app 1.0 -> 2.0", "lib 1.0 -> 2.0"]);
    assert!(matches!(
        &moved.changes[0].reasons[0],
        Reason::Unblocks { .. }
    ));
    assert!(matches!(
        &moved.changes[1].reasons[0],
        Reason::Requested { .. }
    ));
    // `other` was not asked about and does not need to move: it keeps its version.
    assert_eq!(moved.pins[&test_plans::n("other")].to_string(), "1.0");
    assert!(moved.overrides.is_empty());
    // Without --allow-override there is no forced plan.
    assert!(
        proposal
            .plans
            .iter()
            .all(|p| p.kind != PlanKind::ForcedOverride)
    );
}

#[test]
fn newest_fitting_keeps_the_blocker_where_it_is() {
    let (index, inv) = world();
    let proposal = propose_builtin(&index, &inv, &["lib==2.0"], false);
    let fitting = proposal
        .plans
        .iter()
        .find(|p| p.kind == PlanKind::NewestFitting)
        .expect("a newest-fitting plan");
    // app 1.0 takes lib <1.6: the newest lib that fits without moving app is 1.5.
    assert_eq!(versions(fitting), ["lib 1.0 -> 1.5"]);
    assert_eq!(fitting.targets[0].to_string(), "lib==1.5");
}

#[test]
fn the_forced_plan_overrides_only_the_blocking_edge() {
    let (index, inv) = world();
    // upstream-accepts weighs 0 in the default; weigh it so that the factor is itemized.
    let policy = Policy::from_toml_over(
        "[weights]\nupstream-accepts = -5\n",
        "test.toml",
        Some(Policy::builtin()),
    )
    .unwrap();
    let proposal = propose(&index, &inv, &policy, &request(&["lib==2.0"], true)).unwrap();
    let forced = proposal
        .plans
        .iter()
        .find(|p| p.kind == PlanKind::ForcedOverride)
        .expect("a forced plan");
    assert_eq!(versions(forced), ["lib 1.0 -> 2.0"]);
    assert_eq!(forced.overrides.len(), 1);
    let o = &forced.overrides[0];
    assert_eq!(
        (
            o.dependent.as_ref(),
            o.dependent_version.to_string().as_str()
        ),
        ("app", "1.0")
    );
    assert_eq!(o.requirement.to_string(), "lib>=1.0,<1.6");
    assert_eq!(o.replacement.to_string(), "lib==2.0");
    assert_eq!(o.version.to_string(), "2.0");
    let kinds: Vec<FactorKind> = forced.risk.factors.iter().map(|f| f.kind).collect();
    assert!(kinds.contains(&FactorKind::PinUpperBound));
    assert!(kinds.contains(&FactorKind::DistanceMajor));
    // app 2.0 accepts lib 2.0: upstream moved.
    assert!(kinds.contains(&FactorKind::UpstreamAccepts));
    // The safer plan ranks first.
    assert_eq!(proposal.plans[0].kind, PlanKind::MoveBlockers);
    assert!(proposal.plans[0].risk.score <= forced.risk.score);
}

#[test]
fn a_plain_request_is_one_plan_without_conflict() {
    let (index, inv) = world();
    let proposal = propose_builtin(&index, &inv, &["other"], true);
    assert!(proposal.conflict.is_none());
    assert_eq!(proposal.plans.len(), 1);
    assert_eq!(proposal.plans[0].kind, PlanKind::Upgrade);
    assert_eq!(versions(&proposal.plans[0]), ["other 1.0 -> 3.0"]);
    assert!(matches!(
        proposal.plans[0].changes[0].reasons[0],
        Reason::Requested { .. }
    ));
}

#[test]
fn all_never_downgrades_and_keeps_unmanaged_dists() {
    let mut index = MemIndex::new();
    index
        .add("lib", "1.0", &[])
        .add("lib", "2.0", &[])
        .add("tool", "0.5", &["lib<2"])
        .add("tool", "1.0", &[])
        .add("git-dep", "9.0", &[]);
    let mut git = installed("git-dep", "0.1", &["lib>=1"]);
    git.direct_url = Some(DirectUrl::Vcs {
        url: "https://example.invalid/git-dep.git".into(),
        vcs: "git".into(),
        commit_id: "0123456789abcdef".into(),
        requested_revision: None,
    });
    let inv = inventory(vec![
        git,
        installed("lib", "1.0", &[]),
        installed("tool", "1.0", &[]),
    ]);
    let policy = Policy::builtin();
    let mut req = request(&[], false);
    req.all = true;
    // In layers: lib 2.0 is a new major line, so the safe layer keeps lib 1.0 and one major
    // plan moves it; the git checkout is in neither.
    let layered = propose(&index, &inv, &policy, &req).unwrap();
    let names: Vec<&str> = layered
        .plans
        .iter()
        .map(|p| p.layer.as_ref().unwrap().name.as_str())
        .collect();
    assert_eq!(names, ["safe", "major-lib"]);
    assert!(versions(&layered.plans[0]).is_empty());
    assert_eq!(versions(&layered.plans[1]), ["lib 1.0 -> 2.0"]);
    for plan in &layered.plans {
        assert!(!plan.pins.contains_key(&test_plans::n("git-dep")));
    }
    req.layer = Some(super::proposal::LayerKind::Everything);
    let proposal = propose(&index, &inv, &policy, &req).unwrap();
    let plan = &proposal.plans[0];
    // tool 0.5 would allow... nothing newer; tool stays at 1.0 (never down to 0.5), lib moves up,
    // and the git checkout is kept although the index has a "newer" git-dep 9.0.
    assert_eq!(versions(plan), ["lib 1.0 -> 2.0"]);
    assert!(!plan.pins.contains_key(&test_plans::n("git-dep")));
    assert!(
        proposal
            .warnings
            .iter()
            .any(|w| w.contains("git-dep 0.1") && w.contains("never replaced"))
    );
}

/// The newest release being a pre-release is the reason it is held back (not
/// "no single requirement explains it").
#[test]
fn a_newest_pre_release_is_named_as_the_reason() {
    let mut index = MemIndex::new();
    index.add("proto", "1.0", &[]).add("proto", "1.1rc1", &[]);
    let inv = inventory(vec![installed("proto", "1.0", &[])]);
    let proposal = propose_builtin(&index, &inv, &["proto"], false);
    let held = &proposal.plans[0].held_back;
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!(
        held[0].reasons(),
        [
            "1.1rc1 is a pre-release, planned only with `--prerelease allow` (or a target that names \
          a pre-release)"
        ]
    );
}

/// A target the plan moves to its newest final release is not held back by a newer
/// pre-release: live, `propose tensorflow` planning 2.21.0 said "held back: tensorflow stays at
/// 2.21.0 (newest 2.22.0rc0): 2.22.0rc0 is a pre-release".
#[test]
fn a_target_moved_to_its_newest_final_release_is_not_held_back_by_a_pre_release() {
    let mut index = MemIndex::new();
    index
        .add("proto", "1.0", &[])
        .add("proto", "1.1", &[])
        .add("proto", "1.2rc1", &[]);
    let inv = inventory(vec![installed("proto", "1.0", &[])]);
    let proposal = propose_builtin(&index, &inv, &["proto"], false);
    let plan = &proposal.plans[0];
    assert_eq!(versions(plan), ["proto 1.0 -> 1.1"]);
    assert_eq!(plan.held_back, []);
}

/// In a newest-that-fits plan, a target the fitted version meets stays
/// "requested" (was: "tool 1.1 ... NOT what was asked (tool==1.1)").
#[test]
fn a_fitted_version_that_meets_its_target_is_requested() {
    let (mut index, mut inv) = world();
    index.add("tool", "1.0", &[]).add("tool", "1.1", &[]);
    inv.dists.push(installed("tool", "1.0", &[]));
    // No lib 1.6 exists; app 1.0 caps lib <1.6: the newest that fits is lib 1.5, tool 1.1.
    let proposal = propose_builtin(&index, &inv, &["lib==1.6", "tool==1.1"], false);
    let fitted = proposal
        .plans
        .iter()
        .find(|p| p.kind == PlanKind::NewestFitting)
        .expect("a newest-fitting plan");
    let tool = fitted.change(&test_plans::n("tool")).expect("tool moves");
    assert!(
        matches!(&tool.reasons[..], [Reason::Requested { .. }]),
        "{:?}",
        tool.reasons
    );
    let lib = fitted.change(&test_plans::n("lib")).expect("lib moves");
    assert!(
        matches!(&lib.reasons[..], [Reason::NewestFitting { .. }]),
        "{:?}",
        lib.reasons
    );
}

/// A target no release matches (`lib>=3`, newest 2.0) names no blocker and
/// offers no override, and the conflict says no release matches.
#[test]
fn a_target_no_release_matches_blames_nobody() {
    let (index, inv) = world();
    let proposal = propose_builtin(&index, &inv, &["lib>=3"], true);
    let conflict = proposal.conflict.as_ref().expect("a conflict");
    assert!(conflict.blockers.is_empty(), "{:?}", conflict.blockers);
    assert_eq!(
        conflict.hints,
        [
            "no release of lib on the index matches lib>=3 (the newest this environment can install \
          is 2.0): no blocker holds it back, and neither moving one nor an override can deliver it"
        ]
    );
    assert!(
        proposal
            .plans
            .iter()
            .all(|p| p.kind != PlanKind::ForcedOverride)
    );
}

/// A bare-name target whose newest release's own requirements cannot be met
/// (proto 2.0 needs `helper>=2`, which no release offers; nothing installed requires anything of
/// proto) is held back with the solver's reason, as `resolve proto==2.0` gives it, not "no
/// single requirement explains it".
#[test]
fn a_newest_release_whose_own_requirements_cannot_be_met_says_why() {
    let mut index = MemIndex::new();
    index
        .add("proto", "1.0", &[])
        .add("proto", "2.0", &["helper>=2"])
        .add("helper", "1.0", &[]);
    let inv = inventory(vec![installed("proto", "1.0", &[])]);
    let proposal = propose_builtin(&index, &inv, &["proto"], false);
    let held = &proposal.plans[0].held_back;
    assert_eq!(held.len(), 1, "{held:?}");
    let reasons = held[0].reasons();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].starts_with("proto 2.0 cannot be installed here: ")
            && reasons[0].contains("helper>=2"),
        "{reasons:?}"
    );
}

fn switches_line(plan: &Plan) -> bool {
    plan.risk
        .factors
        .iter()
        .any(|f| f.kind == FactorKind::AcceleratorLineSwitch)
}

/// A CUDA 13 stack (torch requiring nccl-cu13, a top-level cupy-cuda13x). A new dist that always
/// needs a `-cu12` library beside it leaves no line (nothing the CUDA 13 dists were installed for
/// goes away; cupy was never required by anything); a torch that trades nccl-cu13 for nccl-cu12
/// does.
#[test]
fn a_line_switch_is_a_line_the_stack_leaves() {
    let mut index = MemIndex::new();
    index
        .add("torch", "1.0", &["nvidia-nccl-cu13"])
        .add("torch", "2.0", &["nvidia-nccl-cu12"])
        .add("nvidia-nccl-cu13", "1.0", &[])
        .add("nvidia-nccl-cu12", "1.0", &[])
        .add("cupy-cuda13x", "1.0", &[])
        .add("tool", "1.0", &[])
        .add("tool", "2.0", &["nvidia-cutlass-dsl"])
        .add(
            "nvidia-cutlass-dsl",
            "1.0",
            &["nvidia-cutlass-dsl-libs-cu12"],
        )
        .add("nvidia-cutlass-dsl-libs-cu12", "1.0", &[]);
    let inv = inventory(vec![
        installed("torch", "1.0", &["nvidia-nccl-cu13"]),
        installed("nvidia-nccl-cu13", "1.0", &[]),
        installed("cupy-cuda13x", "1.0", &[]),
        installed("tool", "1.0", &[]),
    ]);
    let tool = propose_builtin(&index, &inv, &["tool==2.0"], false);
    let first = &tool.plans[0];
    assert!(
        versions(first).contains(&"nvidia-cutlass-dsl-libs-cu12 - -> 1.0".to_string()),
        "{:?}",
        versions(first)
    );
    assert!(!switches_line(first), "{first:#?}");
    let torch = propose_builtin(&index, &inv, &["torch==2.0"], false);
    assert!(
        switches_line(&torch.plans[0]),
        "{:?}",
        versions(&torch.plans[0])
    );
    assert!(torch.plans[0].title.contains("switches CUDA 13 -> CUDA 12"));
}

/// A target's newest release that requires a version no release has (vllm 0.34.0's
/// `flashinfer-python==0.7.3` while 0.6.14 is the newest): its held-back line names that one
/// requirement and says no release meets it, not every requirement a plan could still move.
#[test]
fn a_held_back_line_names_the_requirement_no_release_meets() {
    let mut index = MemIndex::new();
    index
        .add(
            "vllm",
            "0.26.0",
            &["flashinfer-python==0.6.14", "torch==2.11.0"],
        )
        .add(
            "vllm",
            "0.34.0",
            &["flashinfer-python==0.7.3", "torch==2.14.0"],
        )
        .add("flashinfer-python", "0.6.14", &[])
        .add("torch", "2.11.0", &[])
        .add("torch", "2.14.0", &[]);
    let inv = inventory(vec![installed("torch", "2.11.0", &[])]);
    let proposal = propose_builtin(&index, &inv, &["vllm"], false);
    let first = &proposal.plans[0];
    assert!(
        versions(first).contains(&"vllm - -> 0.26.0".to_string()),
        "{:?}",
        versions(first)
    );
    let held = &first.held_back[0];
    let named: Vec<String> = held
        .blockers
        .iter()
        .map(|b| b.requirement.to_string())
        .collect();
    assert_eq!(named, ["flashinfer-python==0.7.3"], "{held:#?}");
    assert_eq!(
        held.reasons(),
        [
            "vllm 0.34.0 requires flashinfer-python==0.7.3",
            "no release of flashinfer-python this environment can install matches ==0.7.3 (the \
             newest is 0.6.14)"
        ],
        "{held:#?}"
    );
}

/// `--all` on torch with its `-cu12` library: the torch-stack layer moves torch to its newest
/// release still on CUDA 12 (2.2); the newest torch (2.3, on CUDA 13) is offered after it as
/// `torch-stack-switch`, its title saying the switch. `helper` 1.1, which only torch 2.3
/// accepts, is held back in the safe layer pointing to the switch, never to the layer that
/// stays.
#[test]
fn the_stack_layer_stays_on_the_installed_cuda_line_before_a_switch() {
    let mut index = MemIndex::new();
    index
        .add("torch", "2.1", &["nvidia-nccl-cu12==12.1", "helper==1.0"])
        .add("torch", "2.2", &["nvidia-nccl-cu12==12.2", "helper==1.0"])
        .add("torch", "2.3", &["nvidia-nccl-cu13==13.0", "helper>=1.1"])
        .add("helper", "1.0", &[])
        .add("helper", "1.1", &[])
        .add("nvidia-nccl-cu12", "12.1", &[])
        .add("nvidia-nccl-cu12", "12.2", &[])
        .add("nvidia-nccl-cu13", "13.0", &[]);
    let inv = inventory(vec![
        installed("torch", "2.1", &["nvidia-nccl-cu12==12.1", "helper==1.0"]),
        installed("nvidia-nccl-cu12", "12.1", &[]),
        installed("helper", "1.0", &[]),
    ]);
    let mut req = request(&[], false);
    req.all = true;
    let layered = propose(&index, &inv, &Policy::builtin(), &req).unwrap();
    let names: Vec<&str> = layered
        .plans
        .iter()
        .map(|p| p.layer.as_ref().unwrap().name.as_str())
        .collect();
    assert_eq!(names, ["safe", "torch-stack", "torch-stack-switch"]);
    let stay = &layered.plans[1];
    assert_eq!(
        versions(stay),
        ["nvidia-nccl-cu12 12.1 -> 12.2", "torch 2.1 -> 2.2"]
    );
    assert!(!switches_line(stay), "{stay:#?}");
    assert_eq!(
        stay.title,
        "Move the torch stack on CUDA 12: torch 2.1 -> 2.2 (the newest torch on CUDA 12)"
    );
    let switch = &layered.plans[2];
    assert!(switches_line(switch), "{:?}", versions(switch));
    let helper = layered.plans[0]
        .held_back
        .iter()
        .find(|h| h.name.as_ref() == "helper")
        .expect("helper is held back");
    assert_eq!(
        helper.see.as_deref(),
        Some("torch-stack-switch"),
        "{helper:?}"
    );
    assert!(
        switch.title.contains("switches CUDA 12 -> CUDA 13"),
        "{}",
        switch.title
    );
}

/// A light dist held back only because its newest release takes another installed light dist
/// back (tensorflow 2.21.0's `h5py<3.15` under h5py 3.16.0): a layer moves it, taking that dist
/// back inside its line; one whose newest release is in a newer major line and takes a dist
/// back (sphinx 9.0.4's `docutils<0.23` under sphinx 7 and docutils 0.23.1) gets no such layer:
/// that is a major move, never a held-back one.
#[test]
fn a_held_back_dist_moves_in_a_layer_that_takes_a_light_dist_back_inside_its_line() {
    let mut index = MemIndex::new();
    index
        .add("tf", "2.20", &["h5py>=3.11"])
        .add("tf", "2.21", &["h5py>=3.11,<3.15"])
        .add("h5py", "3.14", &[])
        .add("h5py", "3.16", &[])
        .add("docs", "7.2", &["markup<0.24"])
        .add("docs", "9.0", &["markup<0.23"])
        .add("markup", "0.22", &[])
        .add("markup", "0.23", &[]);
    let inv = inventory(vec![
        installed("tf", "2.20", &["h5py>=3.11"]),
        installed("h5py", "3.16", &[]),
        installed("docs", "7.2", &["markup<0.24"]),
        installed("markup", "0.23", &[]),
    ]);
    let mut req = request(&[], false);
    req.all = true;
    let layered = propose(&index, &inv, &Policy::builtin(), &req).unwrap();
    let names: Vec<&str> = layered
        .plans
        .iter()
        .map(|p| p.layer.as_ref().unwrap().name.as_str())
        .collect();
    assert_eq!(names, ["safe", "tf-held-back"]);
    let held = &layered.plans[1];
    assert_eq!(versions(held), ["h5py 3.16 -> 3.14", "tf 2.20 -> 2.21"]);
    assert_eq!(
        held.title,
        "Move tf with what holds it back: tf 2.20 -> 2.21; takes h5py back 3.16 -> 3.14 \
         (tf 2.21 requires h5py>=3.11,<3.15)"
    );
    let tf = layered.plans[0]
        .held_back
        .iter()
        .find(|h| h.name.as_ref() == "tf")
        .expect("tf is held back");
    assert_eq!(tf.see.as_deref(), Some("tf-held-back"), "{tf:?}");
}
