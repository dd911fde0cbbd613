#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "app/compare_command.hpp"
#include "app/report_command.hpp"
#include "tests/analysis/fixture.hpp"

namespace fs = std::filesystem;
using t9k::app::CompareArgs;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("t9ksim-compare-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
}

const std::string kExamples = std::string(T9KSIM_SOURCE_DIR) + "/scenarios/examples";

}  // namespace

TEST_CASE("parse_variant splits NAME=OVERLAY", "[compare]") {
  CHECK(t9k::app::parse_variant("big=overlays/big.yaml") ==
        std::make_pair(std::string("big"), std::string("overlays/big.yaml")));
  CHECK(t9k::app::parse_variant("a=b=c")->second == "b=c");
  CHECK_FALSE(t9k::app::parse_variant("noequals"));
  CHECK_FALSE(t9k::app::parse_variant("=x"));
  CHECK_FALSE(t9k::app::parse_variant("x="));
}

TEST_CASE("compare runs every variant on the same replications and writes the comparison",
          "[compare]") {
  const fs::path dir = fresh_dir("run");
  write(dir / "bigger.yaml", "spec:\n  cluster:\n    nodePools:\n    - {name: a100, count: 8}\n");
  std::mutex mu;
  std::set<std::pair<std::string, std::uint64_t>> calls;  // (folder, replication)
  CompareArgs a;
  a.base = kExamples + "/small-cluster.yaml";
  a.variants = {{"bigger", (dir / "bigger.yaml").string()}};
  a.out_dir = (dir / "out").string();
  a.replications = 3;
  a.threads = 2;
  a.quiet = true;
  // A stand-in for the simulator: the variant's waits are 20 s shorter, visible in its text.
  a.run_one = [&](const std::string& text, const std::string& file, std::uint64_t rep,
                  const std::string& out, const std::string&) {
    const bool bigger = text.find("count: 8") != std::string::npos;
    {
      std::lock_guard lock(mu);
      calls.emplace(fs::path(out).parent_path().filename().string(), rep);
      CHECK(file == kExamples + "/small-cluster.yaml");
    }
    t9k::testing::write_fixture_run(out, 42, rep, bigger ? -20.0 : 0.0);
    return 0;
  };
  REQUIRE(t9k::app::compare_command(a) == 0);
  CHECK(calls.size() == 6);
  CHECK(calls.count({"base", 2}) == 1);
  CHECK(calls.count({"bigger", 0}) == 1);
  std::ifstream in(dir / "out" / "summary.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const auto j = nlohmann::json::parse(ss.str());
  CHECK(j["kind"] == "comparison");
  CHECK(j["variant_order"] == nlohmann::json::array({"base", "bigger"}));
  CHECK(j["differences"]["bigger"]["wait_mean_s"]["mean"].get<double>() == Approx(-20));
  CHECK(j["differences"]["bigger"]["wait_mean_s"]["significant"] == true);
  CHECK(fs::exists(dir / "out" / "report.html"));
  CHECK(fs::exists(dir / "out" / "bigger" / "scenario.yaml"));
  // `t9ksim report` regenerates the same page.
  const auto before = fs::file_size(dir / "out" / "report.html");
  fs::remove(dir / "out" / "report.html");
  CHECK(t9k::app::report_command((dir / "out").string()) == 0);
  CHECK(fs::file_size(dir / "out" / "report.html") == before);
  CHECK(t9k::app::report_command((dir / "nope").string()) == 2);
  fs::remove_all(dir);
}

TEST_CASE("compare rejects bad variants before running anything", "[compare]") {
  const fs::path dir = fresh_dir("bad");
  write(dir / "seed.yaml", "spec:\n  seed: 7\n");
  write(dir / "broken.yaml", "spec: [\n");
  write(dir / "invalid.yaml", "spec:\n  horizon: -5\n");
  std::atomic<int> runs{0};
  CompareArgs a;
  a.base = kExamples + "/small-cluster.yaml";
  a.out_dir = (dir / "out").string();
  a.quiet = true;
  a.run_one = [&](const std::string&, const std::string&, std::uint64_t, const std::string&,
                  const std::string&) { return ++runs, 0; };
  for (const auto& v : std::vector<std::pair<std::string, std::string>>{
           {"seed", (dir / "seed.yaml").string()},        // breaks common random numbers
           {"broken", (dir / "broken.yaml").string()},    // not YAML
           {"invalid", (dir / "invalid.yaml").string()},  // merged scenario does not validate
           {"missing", (dir / "missing.yaml").string()},
           {"base", (dir / "seed.yaml").string()},    // name taken by the base
           {"a/b", (dir / "seed.yaml").string()}}) {  // not a folder name
    INFO(v.first);
    a.variants = {v};
    CHECK(t9k::app::compare_command(a) == 2);
  }
  CHECK(runs == 0);
  a.variants = {};
  CHECK(t9k::app::compare_command(a) == 2);
  // A failing run fails the comparison, and no summary claims otherwise.
  write(dir / "ok.yaml", "spec:\n  horizon: 24h\n");
  a.variants = {{"ok", (dir / "ok.yaml").string()}};
  a.replications = 2;
  a.run_one = [&](const std::string&, const std::string&, std::uint64_t rep, const std::string& out,
                  const std::string&) {
    t9k::testing::write_fixture_run(out, 42, rep, 0);
    return rep == 1 ? 1 : 0;
  };
  CHECK(t9k::app::compare_command(a) == 1);
  CHECK_FALSE(fs::exists(dir / "out" / "summary.json"));
  fs::remove_all(dir);
}
