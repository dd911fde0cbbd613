// model/topology: the spine -> switch -> rack -> node tree (issue 5 "Placement").
#include <catch2/catch.hpp>

#include "model/topology.hpp"

using t9k::model::Node;
using t9k::model::Topology;

namespace {
Node node(const std::string& name, const std::string& rack, const std::string& sw) {
  Node n;
  n.metadata.name = name;
  if (!rack.empty()) n.metadata.labels[t9k::model::kLabelRack] = rack;
  if (!sw.empty()) n.metadata.labels[t9k::model::kLabelSwitch] = sw;
  return n;
}
}  // namespace

TEST_CASE("topology: rack, switch and distance from node labels", "[topology]") {
  const auto t = Topology::from_nodes(
      {node("a", "r1", "s1"), node("b", "r1", "s1"), node("c", "r2", "s1"), node("d", "r3", "s2")});
  CHECK(t.node_count() == 4);
  CHECK(t.rack_of("a") == "r1");
  CHECK(t.switch_of("c") == "s1");
  CHECK_FALSE(t.rack_of("zz").has_value());
  CHECK(t.distance("a", "a") == 0u);
  CHECK(t.distance("a", "b") == 1u);  // same rack
  CHECK(t.distance("a", "c") == 2u);  // same switch
  CHECK(t.distance("a", "d") == 3u);  // only the spine
  const auto lca = t.lowest_common_ancestor(*t.find(Topology::Level::Node, "a"),
                                            *t.find(Topology::Level::Node, "c"));
  CHECK(t.level(lca) == Topology::Level::Switch);
  CHECK(t.name(lca) == "s1");
}

TEST_CASE("topology: failure-domain subtrees", "[topology]") {
  const auto t = Topology::from_nodes(
      {node("b", "r1", "s1"), node("a", "r1", "s1"), node("c", "r2", "s1"), node("d", "r3", "s2")});
  CHECK(t.subtree_nodes(Topology::Level::Switch, "s1") == std::vector<std::string>{"a", "b", "c"});
  CHECK(t.subtree_nodes(Topology::Level::Rack, "r3") == std::vector<std::string>{"d"});
  CHECK(t.subtree_nodes(t.spine()).size() == 4u);
  CHECK(t.subtree_nodes(Topology::Level::Rack, "nope").empty());
}

TEST_CASE("topology: unlabelled nodes are far from everyone, re-parenting is refused",
          "[topology]") {
  Topology t;
  t.add_node(node("x", "", ""));
  t.add_node(node("y", "", ""));
  CHECK(t.distance("x", "y") == 3u);
  t.add_node("n1", "r1", "s1");
  CHECK_NOTHROW(t.add_node("n1", "r1", "s1"));  // idempotent
  CHECK_THROWS_AS(t.add_node("n1", "r2", "s1"), std::invalid_argument);
  CHECK_THROWS_AS(t.add_rack("r1", "s9"), std::invalid_argument);
}
