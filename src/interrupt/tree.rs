//! The process groups started below a process group: a helper child that puts its own children
//! in sessions of their own (the verification script does, to kill each check whole at its
//! timeout) leaves them out of reach of a signal to its group.
//!
//! In: a process group id. Out: the ids of the other groups holding its members' descendants,
//! read from `/proc` (Linux); none elsewhere.

use std::collections::{BTreeSet, HashMap};

/// One process as `/proc/PID/stat` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Proc {
    pid: i32,
    ppid: i32,
    pgid: i32,
}

/// The groups other than `group` (and planner's own) that hold a descendant of a member of
/// `group`.
pub(super) fn groups_below(group: i32) -> BTreeSet<i32> {
    let procs = all();
    let own = i32::try_from(std::process::id()).unwrap_or(0);
    let own_group = procs.iter().find(|p| p.pid == own).map_or(0, |p| p.pgid);
    let mut groups = descendant_groups(&procs, group);
    groups.remove(&own_group);
    groups
}

/// The groups of every process descending from a member of `group`, `group` left out.
fn descendant_groups(procs: &[Proc], group: i32) -> BTreeSet<i32> {
    let mut children: HashMap<i32, Vec<&Proc>> = HashMap::new();
    for p in procs {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut work: Vec<&Proc> = procs.iter().filter(|p| p.pgid == group).collect();
    let mut seen: BTreeSet<i32> = work.iter().map(|p| p.pid).collect();
    let mut groups = BTreeSet::new();
    while let Some(p) = work.pop() {
        if p.pgid != group && p.pgid > 1 {
            groups.insert(p.pgid);
        }
        for child in children.get(&p.pid).into_iter().flatten() {
            if seen.insert(child.pid) {
                work.push(child);
            }
        }
    }
    groups
}

/// Every process `/proc` lists (none where there is no `/proc`).
fn all() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let path = std::path::PathBuf::from(format!("/proc/{pid}/stat"));
            // One line of numbers after a name of at most 16 bytes.
            let bytes = crate::bounded::read(&path, 4096).ok()?;
            parse_stat(&String::from_utf8_lossy(&bytes))
        })
        .collect()
}

/// `pid (comm) state ppid pgrp ...`: the name may hold spaces and parentheses, so the fields
/// are read after its last `)`.
fn parse_stat(stat: &str) -> Option<Proc> {
    let (head, rest) = stat.rsplit_once(')')?;
    let pid = head.split_once(" (")?.0.trim().parse().ok()?;
    let mut fields = rest.split_whitespace().skip(1);
    let ppid = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    Some(Proc { pid, ppid, pgid })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_spaces_and_parentheses_is_read_past() {
        assert_eq!(
            parse_stat("4242 (python3 (x) y) S 4200 4242 4242 0 -1 4194304"),
            Some(Proc {
                pid: 4242,
                ppid: 4200,
                pgid: 4242
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn descendants_in_sessions_of_their_own_are_found_through_any_depth() {
        let p = |pid, ppid, pgid| Proc { pid, ppid, pgid };
        let procs = [
            p(1, 0, 1),
            p(100, 1, 100),   // planner
            p(200, 100, 200), // the script, leader of its group
            p(201, 200, 200), // a fork in the same group
            p(300, 201, 300), // a check in a session of its own
            p(301, 300, 300),
            p(400, 301, 400), // its child in yet another group
            p(500, 1, 500),   // unrelated
            p(501, 500, 501),
        ];
        assert_eq!(descendant_groups(&procs, 200), BTreeSet::from([300, 400]));
        assert!(descendant_groups(&procs, 999).is_empty());
    }
}
