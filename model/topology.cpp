#include "model/topology.hpp"

#include <algorithm>
#include <stdexcept>

namespace t9k::model {

Topology::Topology() {
  spine_ = boost::add_vertex(VertexData{Level::Spine, "spine"}, g_);
  by_name_[static_cast<int>(Level::Spine)]["spine"] = spine_;
}

Topology::Vertex Topology::add_child(Vertex parent_v, Level lvl, const std::string& name) {
  auto& index = by_name_[static_cast<int>(lvl)];
  if (const auto it = index.find(name); it != index.end()) {
    const auto p = parent(it->second);
    if (!p || *p != parent_v) {
      throw std::invalid_argument("topology: '" + name + "' is already attached under '" +
                                  (p ? g_[*p].name : std::string("?")) + "', not under '" +
                                  g_[parent_v].name + "'");
    }
    return it->second;
  }
  const Vertex v = boost::add_vertex(VertexData{lvl, name}, g_);
  boost::add_edge(parent_v, v, g_);
  index.emplace(name, v);
  return v;
}

Topology::Vertex Topology::add_switch(const std::string& name) {
  return add_child(spine_, Level::Switch, name);
}

Topology::Vertex Topology::add_rack(const std::string& name, const std::string& switch_name) {
  return add_child(add_switch(switch_name), Level::Rack, name);
}

Topology::Vertex Topology::add_node(const std::string& name, const std::string& rack_name,
                                    const std::string& switch_name) {
  return add_child(add_rack(rack_name, switch_name), Level::Node, name);
}

Topology::Vertex Topology::add_node(const Node& node) {
  const auto& labels = node.metadata.labels;
  const auto r = labels.find(kLabelRack);
  const auto s = labels.find(kLabelSwitch);
  const std::string own = "node:" + node.metadata.name.str();
  const std::string rack = r != labels.end() && !r->second.empty() ? r->second.str() : own;
  const std::string sw = s != labels.end() && !s->second.empty() ? s->second.str() : own;
  return add_node(node.metadata.name.str(), rack, sw);
}

Topology Topology::from_nodes(const std::vector<Node>& nodes) {
  Topology t;
  for (const auto& n : nodes) t.add_node(n);
  return t;
}

std::optional<Topology::Vertex> Topology::find(Level lvl, const std::string& name) const {
  const auto& index = by_name_[static_cast<int>(lvl)];
  const auto it = index.find(name);
  if (it == index.end()) return std::nullopt;
  return it->second;
}

std::optional<Topology::Vertex> Topology::parent(Vertex v) const {
  const auto [b, e] = boost::in_edges(v, g_);
  if (b == e) return std::nullopt;
  return boost::source(*b, g_);
}

std::size_t Topology::depth(Vertex v) const {
  // Every vertex sits at its level's depth (add_child only hangs a level under the one above),
  // so no walk is needed: distance() is on the scheduler's hot path.
  return static_cast<std::size_t>(g_[v].level);
}

std::optional<std::string> Topology::rack_of(const std::string& node) const {
  const auto v = find(Level::Node, node);
  if (!v) return std::nullopt;
  return g_[*parent(*v)].name;
}

std::optional<std::string> Topology::switch_of(const std::string& node) const {
  const auto v = find(Level::Node, node);
  if (!v) return std::nullopt;
  return g_[*parent(*parent(*v))].name;
}

Topology::Vertex Topology::lowest_common_ancestor(Vertex a, Vertex b) const {
  std::size_t da = depth(a), db = depth(b);
  while (da > db) {
    a = *parent(a);
    --da;
  }
  while (db > da) {
    b = *parent(b);
    --db;
  }
  while (a != b) {
    a = *parent(a);
    b = *parent(b);
  }
  return a;
}

std::size_t Topology::distance(Vertex a, Vertex b) const {
  const Vertex l = lowest_common_ancestor(a, b);
  const std::size_t dl = depth(l);
  return std::max(depth(a), depth(b)) - dl;
}

std::optional<std::size_t> Topology::distance(const std::string& node_a,
                                              const std::string& node_b) const {
  const auto a = find(Level::Node, node_a);
  const auto b = find(Level::Node, node_b);
  if (!a || !b) return std::nullopt;
  return distance(*a, *b);
}

std::vector<std::string> Topology::subtree_nodes(Vertex v) const {
  std::vector<std::string> out;
  std::vector<Vertex> stack{v};
  while (!stack.empty()) {
    const Vertex u = stack.back();
    stack.pop_back();
    if (g_[u].level == Level::Node) out.push_back(g_[u].name);
    for (auto [b, e] = boost::out_edges(u, g_); b != e; ++b) stack.push_back(boost::target(*b, g_));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Topology::subtree_nodes(Level lvl, const std::string& name) const {
  const auto v = find(lvl, name);
  if (!v) return {};
  return subtree_nodes(*v);
}

}  // namespace t9k::model
