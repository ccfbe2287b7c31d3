//! The dependency graph of an installed set.
//!
//! In: an [`Inventory`]. Out: a [`DependencyGraph`] (petgraph), one node per installed dist and
//! one edge per `Requires-Dist` whose marker holds in the inventory's environment. Extras are
//! followed only where some installed dist asks for them (`torch` requiring
//! `cuda-toolkit[cublas]` turns on `cuda-toolkit`'s `cublas` requirements), transitively.
//! Requirements on names that are not installed are kept as [`MissingEdge`]s.
//!
//! Reverse queries answer "who requires triton, and with which specifier".

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use pep508_rs::{ExtraName, PackageName, Requirement};
use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};

use super::{InstalledDist, Inventory};

/// One requirement edge: `dependent` requires `dependency` through `requirement`.
#[derive(Debug, Clone)]
pub struct Edge<'a> {
    /// The dist that declares the requirement.
    pub dependent: &'a InstalledDist,
    /// The requirement as declared.
    pub requirement: &'a Requirement,
    /// The installed dist the requirement names.
    pub dependency: &'a InstalledDist,
    /// The extra of `dependent` that turned this requirement on (`None`: a base requirement,
    /// the ones `pip check` looks at).
    pub via_extra: Option<ExtraName>,
}

/// A requirement (whose marker holds) on a name that is not installed.
#[derive(Debug, Clone)]
pub(crate) struct MissingEdge<'a> {
    /// The dist that declares the requirement.
    pub dependent: &'a InstalledDist,
    /// The requirement as declared.
    pub requirement: &'a Requirement,
    /// The extra of `dependent` that turned it on, if any.
    pub via_extra: Option<ExtraName>,
}

#[derive(Debug, Clone)]
struct EdgeData {
    requirement: usize,
    via_extra: Option<ExtraName>,
}

/// The dependency graph: nodes are indexes into `inventory.dists`.
#[derive(Debug)]
pub struct DependencyGraph<'a> {
    inventory: &'a Inventory,
    graph: DiGraph<usize, EdgeData>,
    /// The node of each name (the first dist of that name when there are duplicates).
    nodes: HashMap<PackageName, NodeIndex>,
    missing: Vec<(usize, usize, Option<ExtraName>)>,
    /// The extras each name is asked for (what the tests check).
    #[cfg(test)]
    extras: BTreeMap<PackageName, BTreeSet<ExtraName>>,
}

impl<'a> DependencyGraph<'a> {
    /// Build the graph of an inventory in its own environment.
    pub fn build(inventory: &'a Inventory) -> DependencyGraph<'a> {
        let env = &inventory.environment.markers;
        let mut graph = DiGraph::with_capacity(inventory.dists.len(), inventory.dists.len() * 4);
        let mut nodes = HashMap::new();
        let mut node_of_dist = Vec::with_capacity(inventory.dists.len());
        for (i, dist) in inventory.dists.iter().enumerate() {
            let node = graph.add_node(i);
            node_of_dist.push(node);
            nodes.entry(dist.name().clone()).or_insert(node);
        }
        let mut missing = Vec::new();
        let mut extras: BTreeMap<PackageName, BTreeSet<ExtraName>> = BTreeMap::new();
        // (dist index, extra): base requirements first, then each extra once it is asked for.
        let mut work: VecDeque<(usize, Option<ExtraName>)> =
            (0..inventory.dists.len()).map(|i| (i, None)).collect();
        while let Some((i, extra)) = work.pop_front() {
            let dist = &inventory.dists[i];
            for (r, requirement) in dist.metadata.requires_dist.iter().enumerate() {
                let holds = match &extra {
                    None => requirement.evaluate_markers(env, &[]),
                    // Only what the extra adds: base requirements were done in the base pass.
                    Some(extra) => {
                        requirement.evaluate_markers(env, std::slice::from_ref(extra))
                            && !requirement.evaluate_markers(env, &[])
                    }
                };
                if !holds {
                    continue;
                }
                for asked in &requirement.extras {
                    if extras
                        .entry(requirement.name.clone())
                        .or_default()
                        .insert(asked.clone())
                    {
                        // Every dist of that name provides the extra's requirements.
                        for (j, other) in inventory.dists.iter().enumerate() {
                            if other.name() == &requirement.name {
                                work.push_back((j, Some(asked.clone())));
                            }
                        }
                    }
                }
                if &requirement.name == dist.name() {
                    // `pkg[all]` requiring `pkg[a,b]`: only turns on extras.
                    continue;
                }
                match nodes.get(&requirement.name) {
                    Some(&target) => {
                        graph.add_edge(
                            node_of_dist[i],
                            target,
                            EdgeData {
                                requirement: r,
                                via_extra: extra.clone(),
                            },
                        );
                    }
                    None => missing.push((i, r, extra.clone())),
                }
            }
        }
        DependencyGraph {
            inventory,
            graph,
            nodes,
            missing,
            #[cfg(test)]
            extras,
        }
    }

    /// The inventory the graph was built from.
    pub(crate) fn inventory(&self) -> &'a Inventory {
        self.inventory
    }

    fn dist(&self, node: NodeIndex) -> &'a InstalledDist {
        &self.inventory.dists[self.graph[node]]
    }

    fn edge(&self, edge: petgraph::graph::EdgeReference<'_, EdgeData>) -> Edge<'a> {
        use petgraph::visit::EdgeRef;
        let dependent = self.dist(edge.source());
        let data = edge.weight();
        Edge {
            dependent,
            requirement: &dependent.metadata.requires_dist[data.requirement],
            dependency: self.dist(edge.target()),
            via_extra: data.via_extra.clone(),
        }
    }

    /// Every edge, sorted by dependent name, then dependency name.
    pub fn edges(&self) -> Vec<Edge<'a>> {
        let mut edges: Vec<Edge<'a>> = self
            .graph
            .edge_references()
            .map(|edge| self.edge(edge))
            .collect();
        edges.sort_by(|a, b| {
            (a.dependent.name(), a.dependency.name())
                .cmp(&(b.dependent.name(), b.dependency.name()))
        });
        edges
    }

    /// Who requires `name`, and with which requirement (sorted by dependent name). A dist that
    /// requires it twice (two markers) appears twice.
    pub(crate) fn dependents(
        &self,
        name: &PackageName,
    ) -> Vec<(&'a InstalledDist, &'a Requirement)> {
        self.dependent_edges(name)
            .into_iter()
            .map(|edge| (edge.dependent, edge.requirement))
            .collect()
    }

    /// The edges into `name`, with the extra that turned each on.
    pub(crate) fn dependent_edges(&self, name: &PackageName) -> Vec<Edge<'a>> {
        let Some(&node) = self.nodes.get(name) else {
            return Vec::new();
        };
        let mut out: Vec<Edge<'a>> = self
            .graph
            .edges_directed(node, Direction::Incoming)
            .map(|edge| self.edge(edge))
            .collect();
        out.sort_by(|a, b| {
            a.dependent
                .name()
                .cmp(b.dependent.name())
                .then_with(|| a.requirement.to_string().cmp(&b.requirement.to_string()))
        });
        out
    }

    /// What `name` requires: each requirement whose marker holds, with the installed dist it
    /// names (`None` when that is not installed). Sorted by requirement name.
    pub(crate) fn dependencies(
        &self,
        name: &PackageName,
    ) -> Vec<(&'a Requirement, Option<&'a InstalledDist>)> {
        let Some(&node) = self.nodes.get(name) else {
            return Vec::new();
        };
        let index = self.graph[node];
        let mut out: Vec<(&'a Requirement, Option<&'a InstalledDist>)> = self
            .graph
            .edges_directed(node, Direction::Outgoing)
            .map(|edge| {
                let edge = self.edge(edge);
                (edge.requirement, Some(edge.dependency))
            })
            .collect();
        out.extend(
            self.missing
                .iter()
                .filter(|(i, _, _)| *i == index)
                .map(|(i, r, _)| (&self.inventory.dists[*i].metadata.requires_dist[*r], None)),
        );
        out.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        out
    }

    /// Every dist that depends on `name` directly or transitively, sorted by name.
    pub(crate) fn transitive_dependents(&self, name: &PackageName) -> Vec<&'a InstalledDist> {
        let Some(&start) = self.nodes.get(name) else {
            return Vec::new();
        };
        let mut seen = vec![false; self.graph.node_count()];
        seen[start.index()] = true;
        let mut queue = VecDeque::from([start]);
        let mut out = Vec::new();
        while let Some(node) = queue.pop_front() {
            for next in self.graph.neighbors_directed(node, Direction::Incoming) {
                if !seen[next.index()] {
                    seen[next.index()] = true;
                    out.push(self.dist(next));
                    queue.push_back(next);
                }
            }
        }
        out.sort_by(|a, b| a.name().cmp(b.name()));
        out
    }

    /// How many dists depend on `name`, directly or transitively.
    pub(crate) fn transitive_dependents_count(&self, name: &PackageName) -> usize {
        self.transitive_dependents(name).len()
    }

    /// Requirements (whose markers hold) on names that are not installed, sorted by dependent.
    pub(crate) fn missing(&self) -> Vec<MissingEdge<'a>> {
        let mut out: Vec<MissingEdge<'a>> = self
            .missing
            .iter()
            .map(|(i, r, extra)| {
                let dependent = &self.inventory.dists[*i];
                MissingEdge {
                    dependent,
                    requirement: &dependent.metadata.requires_dist[*r],
                    via_extra: extra.clone(),
                }
            })
            .collect();
        out.sort_by(|a, b| {
            a.dependent
                .name()
                .cmp(b.dependent.name())
                .then_with(|| a.requirement.name.cmp(&b.requirement.name))
        });
        out
    }

    /// The extras of `name` that some installed dist asks for (transitively).
    #[cfg(test)]
    pub(crate) fn requested_extras(&self, name: &PackageName) -> Vec<&ExtraName> {
        self.extras
            .get(name)
            .map(|set| set.iter().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::str::FromStr;

    use super::*;
    use crate::inventory::{DistFormat, Environment};
    use crate::metadata::CoreMetadata;

    /// An inventory on synthesized CPython 3.12 / x86_64 Linux from `(name, version,
    /// requires, extras)`.
    pub(crate) fn inventory(dists: &[(&str, &str, &[&str], &[&str])]) -> Inventory {
        let environment = Environment::synthesize("3.12.3", Some("x86_64-manylinux_2_28")).unwrap();
        let dists = dists
            .iter()
            .map(|(name, version, requires, extras)| {
                let mut text = format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n");
                for r in *requires {
                    text.push_str(&format!("Requires-Dist: {r}\n"));
                }
                for e in *extras {
                    text.push_str(&format!("Provides-Extra: {e}\n"));
                }
                InstalledDist {
                    metadata: CoreMetadata::parse_str(&text).unwrap(),
                    installer: Some("pip".into()),
                    requested: false,
                    direct_url: None,
                    top_level: Vec::new(),
                    path: format!("/sp/{name}-{version}.dist-info").into(),
                    format: DistFormat::DistInfo,
                    files: None,
                }
            })
            .collect::<Vec<_>>();
        let mut inventory = Inventory {
            environment,
            dists,
            unreadable: Vec::new(),
        };
        crate::inventory::scan::sort_dists(&mut inventory.dists);
        inventory
    }

    fn name(s: &str) -> PackageName {
        PackageName::from_str(s).unwrap()
    }

    #[test]
    fn reverse_queries_name_the_specifier() {
        let inv = inventory(&[
            (
                "torch",
                "2.11.0+cu130",
                &["triton==3.6.0; platform_system == \"Linux\"", "filelock"],
                &[],
            ),
            ("triton", "3.6.0", &[], &[]),
            (
                "flash-linear-attention",
                "0.5.1",
                &["fla-core==0.5.1", "transformers>=4.45.0"],
                &[],
            ),
            (
                "fla-core",
                "0.5.1",
                &["einops", "torch>=2.5; extra == \"cuda\""],
                &["cuda"],
            ),
            ("filelock", "3.0", &[], &[]),
            ("einops", "0.8", &[], &[]),
            ("winonly", "1", &["triton; sys_platform == \"win32\""], &[]),
        ]);
        let graph = DependencyGraph::build(&inv);
        let who = graph.dependents(&name("triton"));
        assert_eq!(who.len(), 1);
        assert_eq!(who[0].0.name().as_ref(), "torch");
        assert_eq!(
            who[0].1.to_string(),
            "triton==3.6.0 ; platform_system == 'Linux'"
        );
        // torch is required only through fla-core's `cuda` extra, which nobody asks for.
        assert!(graph.dependents(&name("torch")).is_empty());
        assert_eq!(graph.transitive_dependents_count(&name("einops")), 2);
        let deps = graph.dependencies(&name("flash-linear-attention"));
        assert_eq!(deps.len(), 2);
        assert_eq!(deps[0].1.unwrap().name().as_ref(), "fla-core");
        assert!(deps[1].1.is_none(), "transformers is not installed");
        assert_eq!(graph.missing().len(), 1);
    }

    #[test]
    fn extras_are_followed_transitively_only_when_asked_for() {
        let inv = inventory(&[
            ("app", "1", &["lib[fast]"], &[]),
            (
                "lib",
                "1",
                &[
                    "speed; extra == \"fast\"",
                    "slow; extra == \"slow\"",
                    "lib[extra2]; extra == \"fast\"",
                    "more; extra == \"extra2\"",
                ],
                &["fast", "slow", "extra2"],
            ),
            ("speed", "1", &[], &[]),
            ("more", "1", &[], &[]),
        ]);
        let graph = DependencyGraph::build(&inv);
        let extras: Vec<String> = graph
            .requested_extras(&name("lib"))
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(extras, ["extra2", "fast"]);
        let edge = &graph.dependent_edges(&name("more"))[0];
        assert_eq!(edge.dependent.name().as_ref(), "lib");
        assert_eq!(edge.via_extra.as_ref().unwrap().as_ref(), "extra2");
        assert_eq!(graph.dependents(&name("speed")).len(), 1);
        // `slow` is not asked for: not an edge, not missing.
        assert!(graph.missing().is_empty());
    }
}
