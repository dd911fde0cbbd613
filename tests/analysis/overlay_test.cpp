#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include "scenarios/format/load.hpp"
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
  const YAML::Node m =
      YAML::Load(merge_ok("list: [1, 2, 3]\nmixed: [{name: a, v: 1}, {path: x.yaml}]\n",
                          "list: [9]\nmixed: [{name: a, v: 2}]\n"));
  REQUIRE(m["list"].size() == 1);
  CHECK(m["list"][0].as<int>() == 9);
  // The base has an unnamed element, so the overlay's list replaces it whole.
  REQUIRE(m["mixed"].size() == 1);
  CHECK(m["mixed"][0]["v"].as<int>() == 2);
}

TEST_CASE("overlay: named sequences merge by name, append and delete", "[overlay]") {
  const std::string base =
      "pools:\n- {name: a100, count: 4, gpus: 8}\n- {name: cpu, count: 2}\n- {name: old, count: "
      "1}\n";
  const std::string over =
      "pools:\n- {name: h100, count: 64, gpus: 8}\n- {name: a100, count: 8}\n- {name: old, "
      "$delete: true}\n";
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
  CHECK(merge_overlay("q: [{name: a}]\n", "q: [{name: b, $delete: true}]\n", "del.yaml", errors)
            .empty());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].path == "q");
  CHECK(errors[0].message.find("no element named \"b\"") != std::string::npos);

  errors.clear();
  CHECK(merge_overlay("q: [{name: a}]\n", "q: [{name: a, x: 1}, {name: a, x: 2}]\n", "dup.yaml",
                      errors)
            .empty());
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
      "    - {name: l40s, count: 2, gpusPerNode: 8, gpuModel: NVIDIA-L40S, cpu: 192, memory: "
      "2Ti}\n";
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

// ---- --set (scenarios/format/overlay.hpp apply_sets) ----

namespace {

const char* kSetBase = R"(apiVersion: t9ksim/v1
kind: Scenario
spec:
  horizon: 1d
  cluster:
    nodePools:
    - {name: a100, count: 4}
    - {name: h100, count: 8}
  scheduler:
    queues:
    - manifest:
        kind: Queue
        metadata: {name: production}
        spec: {priority: 10, quota: {requests: {nvidia.com/gpu: 192}}}
)";

std::string set_ok(const std::vector<std::string>& sets) {
  std::vector<Diagnostic> errors;
  const std::string out = t9k::scenarios::apply_sets(kSetBase, sets, errors);
  std::string findings;
  for (const auto& e : errors) findings += e.path + ": " + e.message + "\n";
  INFO(findings);
  REQUIRE(errors.empty());
  return out;
}

std::string set_error(const std::vector<std::string>& sets) {
  std::vector<Diagnostic> errors;
  const std::string out = t9k::scenarios::apply_sets(kSetBase, sets, errors);
  CHECK(out.empty());
  REQUIRE_FALSE(errors.empty());
  return errors.front().file + " | " + errors.front().path + " | " + errors.front().message;
}

}  // namespace

TEST_CASE("overlay set: paths relative to spec, selectors by name and index, escaped dots",
          "[overlay][set]") {
  const YAML::Node a = YAML::Load(set_ok({"cluster.nodePools[name=h100].count=56"}));
  CHECK(a["spec"]["cluster"]["nodePools"][1]["count"].as<int>() == 56);
  CHECK(a["spec"]["cluster"]["nodePools"][0]["count"].as<int>() == 4);
  // The selector reaches into a queue entry's manifest by metadata.name; spec.. resolves in it.
  const YAML::Node b = YAML::Load(
      set_ok({"scheduler.queues[name=production].spec.quota.requests.nvidia\\.com/gpu=256"}));
  CHECK(
      b["spec"]["scheduler"]["queues"][0]["manifest"]["spec"]["quota"]["requests"]["nvidia.com/gpu"]
          .as<int>() == 256);
  const YAML::Node c = YAML::Load(set_ok({"spec.cluster.nodePools[0].count=2", "horizon=7d"}));
  CHECK(c["spec"]["cluster"]["nodePools"][0]["count"].as<int>() == 2);
  CHECK(c["spec"]["horizon"].as<std::string>() == "7d");
  // Missing keys are created; YAML values keep their type; an empty value removes the field.
  const YAML::Node d = YAML::Load(
      set_ok({"faults.profile=h100-frontier", "cluster.nodePools[name=a100].gpuModel=\"8\"",
              "scheduler.queues[name=production].spec.priority="}));
  CHECK(d["spec"]["faults"]["profile"].as<std::string>() == "h100-frontier");
  CHECK(d["spec"]["cluster"]["nodePools"][0]["gpuModel"].Tag() == "!");
  CHECK_FALSE(d["spec"]["scheduler"]["queues"][0]["manifest"]["spec"]["priority"]);
  // Later assignments win.
  const YAML::Node e = YAML::Load(
      set_ok({"cluster.nodePools[name=h100].count=1", "cluster.nodePools[name=h100].count=3"}));
  CHECK(e["spec"]["cluster"]["nodePools"][1]["count"].as<int>() == 3);
}

TEST_CASE("overlay set: errors name the assignment, the path reached and what was expected",
          "[overlay][set]") {
  struct Row {
    std::string set;
    std::string expected;  // a substring of "file | path | message"
  };
  const std::vector<Row> rows = {
      {"cluster.nodePools[name=h200].count=1",
       "spec.cluster.nodePools | has no element named \"h200\" (names: a100, h100)"},
      {"cluster.nodePools[7].count=1",
       "spec.cluster.nodePools | has 2 elements; index 7 is out of range"},
      {"horizon.x=1", "spec.horizon | is not a mapping"},
      {"cluster.racks[name=a].x=1", "spec.cluster.racks | no such list"},
      {"cluster.nodePools[name=h100]count=1", "expected '.' or '['"},
      {"cluster.nodePools[foo].count=1", "expected [name=NAME] or [INDEX]"},
      {"nothing", "expected PATH=VALUE"},
      {"horizon=[1, 2", "not YAML"},
      {"horizon=*a", "anchors and aliases"},
      {"a..b=1", "empty key"},
  };
  for (const auto& r : rows) {
    INFO(r.set);
    const std::string e = set_error({r.set});
    INFO(e);
    CHECK(e.find(r.expected) != std::string::npos);
    CHECK(e.find("--set " + r.set) == 0);
  }
}

TEST_CASE("overlay set: a value the loader refuses is reported with its field path",
          "[overlay][set]") {
  std::vector<Diagnostic> errors;
  const std::string text =
      t9k::scenarios::apply_sets(kSetBase, {"cluster.nodePools[name=h100].count=many"}, errors);
  REQUIRE(errors.empty());
  const auto loaded = t9k::scenarios::parse_scenario(text, "s.yaml with --set");
  REQUIRE_FALSE(loaded.ok());
  bool named = false;
  for (const auto& d : loaded.diagnostics)
    named = named || d.path == "spec.cluster.nodePools[1].count";
  CHECK(named);
}

TEST_CASE("overlay: queue entries merge by their manifest's metadata.name", "[overlay]") {
  // A partial queue overlay used to replace the whole list and fail with "manifest.kind: required".
  const std::string over =
      "spec:\n  scheduler:\n    queues:\n    - manifest:\n        metadata: {name: production}\n"
      "        spec: {quota: {requests: {nvidia.com/gpu: 256}}}\n";
  const YAML::Node m = YAML::Load(merge_ok(kSetBase, over));
  const YAML::Node q = m["spec"]["scheduler"]["queues"][0]["manifest"];
  CHECK(m["spec"]["scheduler"]["queues"].size() == 1);
  CHECK(q["kind"].as<std::string>() == "Queue");
  CHECK(q["spec"]["priority"].as<int>() == 10);
  CHECK(q["spec"]["quota"]["requests"]["nvidia.com/gpu"].as<int>() == 256);
}

TEST_CASE("overlay set: removals of missing fields and alias bombs are refused", "[overlay][set]") {
  CHECK(set_error({"faults.profile="}).find("no such field, so nothing under it to remove") !=
        std::string::npos);
  CHECK(set_error({"horizon.x="}).find("is not a mapping") != std::string::npos);
  CHECK(set_error({"cluster.nodePools[name=h100].gpuModel="}).find("no such field to remove") !=
        std::string::npos);
  // A tab before the anchor is still a token start.
  CHECK(set_error({"x=[\t&a [\t*a]]"}).find("anchors and aliases") != std::string::npos);
  // A base with a cyclic alias is refused, not expanded.
  std::vector<Diagnostic> errors;
  const std::string out = t9k::scenarios::apply_sets("a: &x [*x]\n", {"b=1"}, errors);
  CHECK(out.empty());
  REQUIRE_FALSE(errors.empty());
  CHECK(errors.front().message.find("aliases?") != std::string::npos);
}

TEST_CASE("overlay: job entries that share a manifest are known by their as name", "[overlay]") {
  // t9ksim import writes {path: shapes.yaml, name: shape-N, as: JOB}: many entries share a
  // `name`, so matching by it would merge distinct jobs (docs/scenario-format.md "jobs").
  const std::string base =
      "spec:\n  workload:\n    jobs:\n"
      "    - {path: shapes.yaml, name: shape-0, as: a, submitAt: 1m}\n"
      "    - {path: shapes.yaml, name: shape-0, as: b, submitAt: 2m}\n";
  const std::string over = "spec:\n  workload:\n    jobs:\n    - {as: b, submitAt: 5m}\n";
  const YAML::Node m = YAML::Load(merge_ok(base, over));
  const YAML::Node jobs = m["spec"]["workload"]["jobs"];
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0]["submitAt"].as<std::string>() == "1m");
  CHECK(jobs[1]["submitAt"].as<std::string>() == "5m");
  std::vector<Diagnostic> errors;
  const YAML::Node s =
      YAML::Load(t9k::scenarios::apply_sets(base, {"workload.jobs[name=a].submitAt=9m"}, errors));
  REQUIRE(errors.empty());
  CHECK(s["spec"]["workload"]["jobs"][0]["submitAt"].as<std::string>() == "9m");
  CHECK(s["spec"]["workload"]["jobs"][1]["submitAt"].as<std::string>() == "2m");
}

// Issue 47: "--set on nvidia.com/gpu fails without an escape and no hint".
TEST_CASE(
    "overlay set: a name with dots is found unescaped when it exists, else the escape is "
    "suggested",
    "[overlay][set]") {
  // The key exists: steps nvidia + com/gpu join to it.
  const YAML::Node b = YAML::Load(
      set_ok({"scheduler.queues[name=production].spec.quota.requests.nvidia.com/gpu=256"}));
  CHECK(
      b["spec"]["scheduler"]["queues"][0]["manifest"]["spec"]["quota"]["requests"]["nvidia.com/gpu"]
          .as<int>() == 256);
  // A new label key with dots: refused with the escape, not created as nvidia: {com/gpu: ...}.
  const std::string e = set_error({"cluster.nodePools[name=h100].labels.nvidia.com/gpu.product=X"});
  CHECK(e.find("labels.nvidia | no such field; if the key is nvidia.com/gpu, write its dots as \\. "
               "(nvidia\\.com/gpu)") != std::string::npos);
  // Escaped, it is created as one key.
  const YAML::Node c =
      YAML::Load(set_ok({"cluster.nodePools[name=h100].labels.nvidia\\.com/gpu\\.product=X"}));
  CHECK(
      c["spec"]["cluster"]["nodePools"][1]["labels"]["nvidia.com/gpu.product"].as<std::string>() ==
      "X");
}
