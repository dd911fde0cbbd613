// The runs library (runs/): a command's work executed here equals the same work planned, run in
// shards and merged (docs/scale-out.md), byte for byte; shard indexes from the engines'
// environments; plugin arguments; run_one's exit codes.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "runs/exit_codes.hpp"
#include "runs/loading.hpp"
#include "runs/plan.hpp"
#include "runs/plugin_args.hpp"
#include "runs/run_one.hpp"
#include "runs/work.hpp"
#include "scenarios/format/traces.hpp"

namespace fs = std::filesystem;
using namespace t9k::runs;

namespace {

const std::string kScenario = T9KSIM_SOURCE_DIR "/tests/scenarios/harness/passes.yaml";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every file under `dir` with its bytes.
std::map<std::string, std::string> tree(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).generic_string()] = read(e.path());
  return out;
}

fs::path fresh(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("t9ksim-runs-test-" + name);
  fs::remove_all(p);
  return p;
}

// `t9ksim run SCENARIO -r 3` as work: three replications into rep-<i>/.
Work three_replications() {
  Work w;
  w.command = "run";
  w.scenario_file = kScenario;
  w.texts.push_back(read(kScenario));
  w.inputs.emplace_back(kScenario);
  w.finish = Finish::Replications;
  w.report = false;
  w.groups.emplace_back();
  for (std::uint64_t i = 0; i < 3; ++i) {
    w.groups.front().units.push_back(w.units.size());
    w.units.push_back({"run", 0, i, "rep-" + std::to_string(i)});
  }
  return w;
}

struct Env {  // sets a variable for the scope of a test
  std::string name;
  Env(const std::string& n, const std::string& v) : name(n) { ::setenv(n.c_str(), v.c_str(), 1); }
  ~Env() { ::unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("runs: planned, sharded and merged work is byte-identical to the work run here") {
  const Work w = three_replications();
  const RunOneOptions each;
  const RunOne runner = [each](const std::string& t, const std::string& f, std::uint64_t r,
                               const std::string& d,
                               const std::string&) { return run_one(t, f, r, d, each); };
  const fs::path here = fresh("here");
  REQUIRE(execute_work(w, here.string(), runner, 1, true).rc == kExitOk);

  const fs::path plan = fresh("plan");
  PlanRequest req;
  req.dir = plan.string();
  req.pilot = false;
  REQUIRE(write_plan(w, each, req, true) == kExitOk);
  std::vector<std::string> parts;
  for (std::uint64_t i = 0; i < 2; ++i) {  // two shards: units {0, 2} and {1}
    ShardArgs s;
    s.plan = plan.string();
    s.index = i;
    s.count = 2;
    s.out = fresh("part-" + std::to_string(i)).string();
    s.threads = 1;
    s.quiet = true;
    REQUIRE(shard_command(s) == kExitOk);
    parts.push_back(s.out);
  }
  MergeArgs m;
  m.plan = plan.string();
  m.parts = parts;
  m.out = fresh("merged").string();
  m.quiet = true;
  REQUIRE(merge_command(m) == kExitOk);

  const auto a = tree(here), b = tree(m.out);
  CHECK(a.size() >= 10);  // rep-0..2 with their outputs, the replications' summary
  CHECK(a.count("rep-2/jobs.csv") == 1);
  for (const auto& [name, bytes] : a) {
    INFO(name);
    REQUIRE(b.count(name) == 1);
    CHECK(b.at(name) == bytes);
  }
  CHECK(a.size() == b.size());

  SECTION("a merge missing a part is refused") {
    MergeArgs incomplete = m;
    incomplete.parts = {parts[0]};
    incomplete.out = fresh("incomplete").string();
    CHECK(merge_command(incomplete) != kExitOk);
    CHECK_FALSE(fs::exists(incomplete.out));
  }
}

TEST_CASE("runs: shard index and count from the engines' environments") {
  std::optional<std::uint64_t> index, count;
  std::string source;
  SECTION("nothing given") {
    CHECK(shard_from_environment(index, count, source).find("no shard index") == 0);
  }
  SECTION("a Kubernetes Indexed Job, with --count") {
    Env e("JOB_COMPLETION_INDEX", "3");
    count = 4;
    CHECK(shard_from_environment(index, count, source).empty());
    CHECK(index == 3u);
    CHECK(source == "JOB_COMPLETION_INDEX");
  }
  SECTION("a Slurm array starting at 1") {
    Env id("SLURM_ARRAY_TASK_ID", "5"), min("SLURM_ARRAY_TASK_MIN", "1"),
        n("SLURM_ARRAY_TASK_COUNT", "8");
    CHECK(shard_from_environment(index, count, source).empty());
    CHECK(index == 4u);
    CHECK(count == 8u);
  }
  SECTION("an index at or past the count") {
    Env e("T9KSIM_SHARD_INDEX", "2"), c("T9KSIM_SHARD_COUNT", "2");
    CHECK(shard_from_environment(index, count, source) == "shard index 2 is not below the count 2");
  }
  SECTION("given options win over the environment") {
    Env e("T9KSIM_SHARD_INDEX", "1");
    index = 0;
    count = 1;
    CHECK(shard_from_environment(index, count, source).empty());
    CHECK(index == 0u);
  }
}

TEST_CASE("runs: --plugin arguments") {
  PluginArg a;
  CHECK_FALSE(
      parse_plugin_arg("GenericJob=python3 'my plugin.py' --x", t9k::kernel::seconds(5), a));
  CHECK(a.target == "GenericJob");
  CHECK(a.plugin.command == std::vector<std::string>{"python3", "my plugin.py", "--x"});
  CHECK(parse_plugin_arg("Nothing=cmd", t9k::kernel::seconds(5), a).has_value());
  CHECK(parse_plugin_arg("GenericJob=", t9k::kernel::seconds(5), a).has_value());
  CHECK_FALSE(split_command("a 'b"));
}

TEST_CASE("runs: run_one's exit codes") {
  const fs::path out = fresh("one");
  std::string messages;
  RunOneOptions opt;
  opt.messages = &messages;
  SECTION("a scenario that does not load is a usage error, said in the messages") {
    CHECK(run_one("apiVersion: t9ksim/v1\nkind: Scenario\n", "bad.yaml", 0, out.string(), opt) ==
          kExitUsage);
    CHECK(messages.find("bad.yaml") != std::string::npos);
  }
  SECTION("a run that meets its expect block") {
    opt.check = true;
    CHECK(run_one(read(kScenario), kScenario, 0, out.string(), opt) == kExitOk);
    CHECK(fs::exists(out / "summary.json"));
    CHECK(messages.empty());
  }
}

TEST_CASE("runs: a preloaded scenario gives its last run's copy its traces' data") {
  const auto loaded = [](std::weak_ptr<const t9k::scenarios::TraceData>& data) {
    t9k::scenarios::ScenarioResult r;
    auto trace = std::make_shared<const t9k::scenarios::TraceData>();
    data = trace;
    r.scenario.emplace().workload.traces.emplace_back().data = std::move(trace);
    return r;
  };
  std::weak_ptr<const t9k::scenarios::TraceData> data;
  SECTION("told of two runs: the second copy takes it") {
    const PreloadedScenario pre("text", "name", loaded(data), 2);
    CHECK(pre.ok());
    auto first = pre.copy();
    CHECK(first.scenario->workload.traces.front().data);
    first.scenario->workload.traces.front().data.reset();  // that run is done with it
    CHECK_FALSE(data.expired());                           // kept for the second
    auto second = pre.copy();
    CHECK(second.scenario->workload.traces.front().data);
    second.scenario->workload.traces.front().data.reset();
    CHECK(data.expired());  // the preloaded scenario kept none
  }
  SECTION("runs not known: it keeps the data") {
    const PreloadedScenario pre("text", "name", loaded(data));
    for (int i = 0; i < 3; ++i) pre.copy().scenario->workload.traces.front().data.reset();
    CHECK_FALSE(data.expired());
  }
}
