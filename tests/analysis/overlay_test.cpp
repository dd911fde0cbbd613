#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"

using t9k::scenarios::Diagnostic;
using t9k::scenarios::merge_overlay;

namespace {

std::string merge_ok(const std::string& base, const std::string& over) {
  std::vector<Diagnostic> errors;
  const std::string out = merge_overlay(base, over, "over.yaml", errors);
  std::string findings;
  for (const auto& e : errors) findings += e.message + "\n";
  INFO(findings);
  REQUIRE(errors.empty());
  return out;
}

}  // namespace

TEST_CASE("overlay: maps merge key by key, scalars replace, null removes", "[overlay]") {
  const std::string base = "a: 1\nb: {c: 2, d: 3}\ne: keep\ngone: 5\n";
  const std::string over = "b: {d: 30, f: 4}\na: 10\ngone: ~\nnew: x\n";
  const YAML::Node m = YAML::Load(merge_ok(base, over));
  CHECK(m["a"].as<int>() == 10);
  CHECK(m["b"]["c"].as<int>() == 2);
  CHECK(m["b"]["d"].as<int>() == 30);
  CHECK(m["b"]["f"].as<int>() == 4);
  CHECK(m["e"].as<std::string>() == "keep");
  CHECK_FALSE(m["gone"]);
  CHECK(m["new"].as<std::string>() == "x");
  // Base key order is kept; new keys follow.
  std::vector<std::string> keys;
  for (const auto& kv : m) keys.push_back(kv.first.Scalar());
  CHECK(keys == std::vector<std::string>{"a", "b", "e", "new"});
}

TEST_CASE("overlay: sequences replace unless every element is named", "[overlay]") {
  const YAML::Node m = YAML::Load(merge_ok("list: [1, 2, 3]\nmixed: [{name: a, v: 1}, {path: x.yaml}]\n",
                                           "list: [9]\nmixed: [{name: a, v: 2}]\n"));
  REQUIRE(m["list"].size() == 1);
  CHECK(m["list"][0].as<int>() == 9);
  // The base has an unnamed element, so the overlay's list replaces it whole.
  REQUIRE(m["mixed"].size() == 1);
  CHECK(m["mixed"][0]["v"].as<int>() == 2);
}

TEST_CASE("overlay: named sequences merge by name, append and delete", "[overlay]") {
  const std::string base =
      "pools:\n- {name: a100, count: 4, gpus: 8}\n- {name: cpu, count: 2}\n- {name: old, count: 1}\n";
  const std::string over = "pools:\n- {name: h100, count: 64, gpus: 8}\n- {name: a100, count: 8}\n- {name: old, $delete: true}\n";
  const YAML::Node m = YAML::Load(merge_ok(base, over));
  const YAML::Node p = m["pools"];
  REQUIRE(p.size() == 3);
  CHECK(p[0]["name"].as<std::string>() == "a100");
  CHECK(p[0]["count"].as<int>() == 8);
  CHECK(p[0]["gpus"].as<int>() == 8);  // kept from the base
  CHECK(p[1]["name"].as<std::string>() == "cpu");
  CHECK(p[2]["name"].as<std::string>() == "h100");
  CHECK(p[2]["count"].as<int>() == 64);
}

TEST_CASE("overlay: quoting survives, so strings stay strings", "[overlay]") {
  const std::string out = merge_ok("options: {preemption: \"true\", n: 8}\nx: 1\n", "x: 2\n");
  const YAML::Node m = YAML::Load(out);
  CHECK(m["options"]["preemption"].Tag() == "!");  // quoted in the output too
  CHECK(m["options"]["n"].Tag() == "?");           // plain
  CHECK(m["options"]["n"].as<int>() == 8);
}

TEST_CASE("overlay: errors name the file, line and path", "[overlay]") {
  std::vector<Diagnostic> errors;
  CHECK(merge_overlay("a: 1\n", "a: [1, 2\n", "bad.yaml", errors).empty());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].file == "bad.yaml");
  CHECK(errors[0].line >= 1);

  errors.clear();
  CHECK(merge_overlay("a: 1\n", "- 1\n- 2\n", "list.yaml", errors).empty());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message.find("one mapping document") != std::string::npos);

  errors.clear();
  CHECK(merge_overlay("q: [{name: a}]\n", "q: [{name: b, $delete: true}]\n", "del.yaml", errors).empty());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].path == "q");
  CHECK(errors[0].message.find("no element named \"b\"") != std::string::npos);

  errors.clear();
  CHECK(merge_overlay("q: [{name: a}]\n", "q: [{name: a, x: 1}, {name: a, x: 2}]\n", "dup.yaml", errors).empty());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].path == "q[1]");
  CHECK(errors[0].line == 1);
}

TEST_CASE("overlay: a what-if on a shipped scenario still loads", "[overlay]") {
  const std::string dir = std::string(T9KSIM_SOURCE_DIR) + "/scenarios/examples";
  std::ifstream in(dir + "/small-cluster.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  // What if the a100 pool had 8 nodes and we added an L40S pool, with a longer horizon?
  const std::string over =
      "spec:\n  horizon: 72h\n  cluster:\n    nodePools:\n    - {name: a100, count: 8}\n"
      "    - {name: l40s, count: 2, gpusPerNode: 8, gpuModel: NVIDIA-L40S, cpu: 192, memory: 2Ti}\n";
  const std::string merged = merge_ok(ss.str(), over);
  t9k::scenarios::LoadOptions lo;
  lo.base_dir = dir;
  const auto r = t9k::scenarios::parse_scenario(merged, "merged.yaml", lo);
  std::string findings;
  for (const auto& d : r.diagnostics) findings += t9k::scenarios::format_diagnostic(d) + "\n";
  INFO(findings);
  REQUIRE(r.ok());
  const auto& pools = r.scenario->cluster.node_pools;
  REQUIRE(pools.size() == 3);
  CHECK(pools[0].name == "a100");
  CHECK(pools[0].count == 8);
  CHECK(pools[0].gpus_per_node == 8);
  CHECK(pools[2].name == "l40s");
  CHECK(r.scenario->horizon == t9k::kernel::hours(72));
  CHECK(r.scenario->seed == 42);
}
