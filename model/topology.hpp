// The cluster's network topology as a tree: spine -> switches -> racks -> nodes (a Boost.Graph
// adjacency list). The scheduler's topology-aware score and the world's fault injector (a switch
// or rack failure takes down its subtree) both read it.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// GCC 12 at -O2 with ASan reports a false -Wuninitialized inside Boost.Graph's named_graph.hpp
// (an empty boost::optional returned by value); silence it for Boost's own lines only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // a GCC-only warning; Clang warns about the unknown name
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/graph/adjacency_list.hpp>
#pragma GCC diagnostic pop

#include "model/cluster.hpp"

namespace t9k::model {

class Topology {
 public:
  enum class Level { Spine, Switch, Rack, Node };

  struct VertexData {
    Level level = Level::Spine;
    std::string name;
  };
  // Edges point from parent to child; bidirectional so a child finds its parent in O(1).
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, VertexData>;
  using Vertex = Graph::vertex_descriptor;

  Topology();

  // Idempotent adders. Adding a rack under a different switch than before, or a node under a
  // different rack, throws std::invalid_argument: a tree vertex has one parent.
  Vertex add_switch(const std::string& name);
  Vertex add_rack(const std::string& name, const std::string& switch_name);
  Vertex add_node(const std::string& name, const std::string& rack_name,
                  const std::string& switch_name);
  // Uses the node's kLabelRack / kLabelSwitch labels. A node without them is put in a rack and
  // switch of its own ("node:<name>"), so it is "far" from every other node rather than
  // accidentally close to other unlabelled nodes.
  Vertex add_node(const Node& node);
  static Topology from_nodes(const std::vector<Node>& nodes);

  const Graph& graph() const { return g_; }
  Vertex spine() const { return spine_; }
  std::optional<Vertex> find(Level level, const std::string& name) const;
  std::optional<Vertex> parent(Vertex v) const;
  Level level(Vertex v) const { return g_[v].level; }
  const std::string& name(Vertex v) const { return g_[v].name; }
  std::size_t depth(Vertex v) const;  // spine 0, switch 1, rack 2, node 3
  std::size_t child_count(Vertex v) const { return boost::out_degree(v, g_); }

  // Rack / switch names of a node; nullopt for an unknown node.
  std::optional<std::string> rack_of(const std::string& node) const;
  std::optional<std::string> switch_of(const std::string& node) const;

  Vertex lowest_common_ancestor(Vertex a, Vertex b) const;
  // Hops from the deeper of the two vertices up to their lowest common ancestor: for two nodes,
  // 0 same node, 1 same rack, 2 same switch, 3 only the spine in common.
  std::size_t distance(Vertex a, Vertex b) const;
  // Node names; nullopt if either node is unknown.
  std::optional<std::size_t> distance(const std::string& node_a, const std::string& node_b) const;

  // Every node name under a failure domain (a switch, rack or node), sorted by name.
  std::vector<std::string> subtree_nodes(Vertex v) const;
  std::vector<std::string> subtree_nodes(Level level, const std::string& name) const;

  std::size_t node_count() const { return by_name_[static_cast<int>(Level::Node)].size(); }

 private:
  Vertex add_child(Vertex parent, Level level, const std::string& name);

  Graph g_;
  Vertex spine_{};
  // Name lookup per level (switch/rack/node names are unique within a level).
  std::map<std::string, Vertex> by_name_[4];
};

}  // namespace t9k::model
