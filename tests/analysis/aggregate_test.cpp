#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "analysis/aggregate.hpp"
#include "analysis/csv.hpp"
#include "analysis/outputs.hpp"
#include "tests/analysis/fixture.hpp"

namespace fs = std::filesystem;
using namespace t9k::analysis;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("t9ksim-analysis-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

void write_summary(const fs::path& dir, std::uint64_t seed, std::uint64_t rep, double wait,
                   double util) {
  fs::create_directories(dir);
  write_file_atomic(
      dir / "summary.json",
      nlohmann::json{{"version", "0.1.0"},
                     {"scenario", "s"},
                     {"scenario_hash", "0123456789abcdef"},
                     {"seed", seed},
                     {"replication", rep},
                     {"fingerprint", "f"},
                     {"horizon_s", 100.0},
                     {"invariants", {{"ok", true}, {"violations", nlohmann::json::array()}}},
                     {"metrics", {{"wait_mean_s", wait}, {"utilization_allocated", util}}}}
          .dump());
}

}  // namespace

TEST_CASE("csv: quoted fields, doubled quotes, CRLF and errors", "[aggregate]") {
  const CsvTable t =
      parse_csv("a,b,c\r\n1,\"x,y\",\"say \"\"hi\"\"\"\n2,,\"multi\nline\"", "t.csv");
  REQUIRE(t.rows.size() == 2);
  CHECK(t.field(0, "b") == "x,y");
  CHECK(t.field(0, "c") == "say \"hi\"");
  CHECK(t.field(1, "c") == "multi\nline");
  CHECK(t.number(0, "a") == 1.0);
  CHECK_FALSE(t.number(1, "b").has_value());
  CHECK_FALSE(t.number(0, "b").has_value());
  CHECK(t.field(0, "missing").empty());
  CHECK_THROWS_WITH(parse_csv("a,b\n1\n", "bad.csv"), Catch::Contains("bad.csv"));
  CHECK_THROWS(parse_csv("a\n\"open\n", "q.csv"));
}

TEST_CASE(
    "csv: cells a spreadsheet would run are guarded, numbers are not, and read back as written",
    "[aggregate]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"=1+2", "'=1+2"},
      {"+cmd", "'+cmd"},
      {"-2+3", "'-2+3"},
      {"@SUM(A1)", "'@SUM(A1)"},
      {"\tx", "'\tx"},
      {"'=x", "''=x"},
      {"-1.5", "-1.5"},
      {"+2e-3", "+2e-3"},
      {"-", "'-"},
      {"plain", "plain"},
      {"'quoted'", "'quoted'"},
      {"=a,b", "\"'=a,b\""},
      // RFC 4180 quoting (append_csv_field's scan for the characters that need it).
      {"x,y", "\"x,y\""},
      {"say \"hi\"", "\"say \"\"hi\"\"\""},
      {"a\nb", "\"a\nb\""},
      {"a\rb", "\"a\rb\""},
      {"=\"x\"", "\"'=\"\"x\"\"\""}};
  std::string text = "v\n";
  for (const auto& [cell, written] : cases) {
    CHECK(csv_field(cell) == written);
    text += csv_field(cell) + "\n";
  }
  const CsvTable t = parse_csv(text, "g.csv");
  REQUIRE(t.rows.size() == cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) CHECK(t.rows[i][0] == cases[i].first);
}

TEST_CASE("replications: mean, stddev, ci95, values, seeds", "[aggregate]") {
  const fs::path dir = fresh_dir("reps");
  // Waits 10, 20, 30 (written out of order): mean 20, s 10, ci95 = t(0.975,2)·10/√3
  // = 4.3026527·5.7735027.
  write_summary(dir / "rep-2", 7, 2, 30, 0.5);
  write_summary(dir / "rep-0", 7, 0, 10, 0.5);
  write_summary(dir / "rep-1", 7, 1, 20, 0.5);
  const auto s = write_replication_summary(dir, {dir / "rep-2", dir / "rep-0", dir / "rep-1"});
  CHECK(s.runs.front().replication == 0);
  const auto j = read_json(dir / "summary.json");
  CHECK(j["kind"] == "replications");
  CHECK(j["n"] == 3);
  CHECK(j["seeds"] == nlohmann::json::array({7}));
  CHECK(j["replication_numbers"] == nlohmann::json::array({0, 1, 2}));
  CHECK(j["runs"][1]["dir"] == "rep-1");
  const auto& w = j["metrics"]["wait_mean_s"];
  CHECK(w["mean"].get<double>() == Approx(20));
  CHECK(w["stddev"].get<double>() == Approx(10));
  CHECK(w["ci95"].get<double>() == Approx(4.3026527 * 5.7735027).epsilon(1e-6));
  CHECK(w["n"] == 3);
  CHECK(w["values"] == nlohmann::json::array({10.0, 20.0, 30.0}));
  // Constant metric: zero-width interval.
  CHECK(j["metrics"]["utilization_allocated"]["ci95"].get<double>() == 0.0);
  // Keys are sorted in the file.
  std::ifstream in(dir / "summary.json");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text.find("\"confidence\"") < text.find("\"kind\""));
  CHECK(text.find("\"kind\"") < text.find("\"metrics\""));

  CHECK_THROWS(summarize_replications({}));
  CHECK_THROWS(write_replication_summary(dir / "x", {dir / "rep-0", dir / "rep-0"}));
  CHECK_THROWS_WITH(load_run_summary(dir / "nope"), Catch::Contains("no summary.json"));
  fs::remove_all(dir);
}

TEST_CASE("a single replication has no interval (null in JSON)", "[aggregate]") {
  const fs::path dir = fresh_dir("one");
  write_summary(dir / "rep-0", 1, 0, 10, 0.5);
  write_replication_summary(dir, {dir / "rep-0"});
  const auto j = read_json(dir / "summary.json");
  CHECK(j["metrics"]["wait_mean_s"]["ci95"].is_null());
  CHECK(j["metrics"]["wait_mean_s"]["mean"].get<double>() == 10);
  fs::remove_all(dir);
}

TEST_CASE("comparison: paired differences against the base", "[aggregate]") {
  const fs::path dir = fresh_dir("cmp");
  // Base waits 10, 20, 30; variant 8, 17, 29: z = {−2, −3, −1}, mean −2, s 1,
  // ci95 = 4.3026527/√3 = 2.4841377 → [−4.48, 0.48]: not significant.
  // Variant "fast" waits 5, 15, 25: z = −5 every time: significant with zero width.
  const double base[] = {10, 20, 30}, slow[] = {8, 17, 29}, fast[] = {5, 15, 25};
  std::vector<std::pair<std::string, std::vector<fs::path>>> variants{
      {"base", {}}, {"tweak", {}}, {"fast", {}}};
  for (std::uint64_t i = 0; i < 3; ++i) {
    for (auto& [name, dirs] : variants) {
      const double w = name == "base" ? base[i] : name == "tweak" ? slow[i] : fast[i];
      dirs.push_back(dir / name / ("rep-" + std::to_string(i)));
      write_summary(dirs.back(), 99, i, w, 0.5);
    }
  }
  const auto c = write_comparison_summary(dir, variants);
  REQUIRE(c.variants.size() == 3);
  CHECK(c.variants[0].vs_base.empty());
  const auto& d = c.variants[1].vs_base.at("wait_mean_s");
  CHECK(d.difference.mean == Approx(-2));
  CHECK(d.difference.half_width == Approx(2.4841377).epsilon(1e-6));
  CHECK_FALSE(d.significant);
  CHECK(c.variants[2].vs_base.at("wait_mean_s").significant);

  const auto j = read_json(dir / "summary.json");
  CHECK(j["kind"] == "comparison");
  CHECK(j["base"] == "base");
  CHECK(j["variant_order"] == nlohmann::json::array({"base", "tweak", "fast"}));
  CHECK(j["seeds"] == nlohmann::json::array({99}));
  CHECK(j["variants"]["tweak"]["metrics"]["wait_mean_s"]["mean"].get<double>() == Approx(18));
  CHECK(j["variants"]["tweak"]["runs"][0]["dir"] == "tweak/rep-0");
  CHECK(j["differences"]["tweak"]["wait_mean_s"]["values"] ==
        nlohmann::json::array({-2.0, -3.0, -1.0}));
  CHECK(j["differences"]["tweak"]["wait_mean_s"]["significant"] == false);
  CHECK(j["differences"]["fast"]["wait_mean_s"]["significant"] == true);
  CHECK_FALSE(j["differences"].contains("base"));
  // Each variant folder is a replications directory of its own.
  CHECK(read_json(dir / "tweak" / "summary.json")["kind"] == "replications");
  fs::remove_all(dir);
}

TEST_CASE("comparison refuses runs that are not on common random numbers", "[aggregate]") {
  const fs::path dir = fresh_dir("crn");
  write_summary(dir / "a0", 1, 0, 1, 0.5);
  write_summary(dir / "a1", 1, 1, 2, 0.5);
  write_summary(dir / "b0", 2, 0, 1, 0.5);  // another seed
  write_summary(dir / "b1", 2, 1, 2, 0.5);
  write_summary(dir / "c0", 1, 0, 1, 0.5);  // one replication only
  CHECK_THROWS_WITH(write_comparison_summary(
                        dir, {{"base", {dir / "a0", dir / "a1"}}, {"v", {dir / "b0", dir / "b1"}}}),
                    Catch::Contains("common random numbers"));
  CHECK_THROWS(
      write_comparison_summary(dir, {{"base", {dir / "a0", dir / "a1"}}, {"v", {dir / "c0"}}}));
  fs::remove_all(dir);
}

TEST_CASE("steady state: MSER-5 warm-up, utilisation and Jain's index from timeseries.csv",
          "[aggregate]") {
  // Cluster capacity 10; allocated 0 for the first 10 buckets (warm-up), then 8. Two queues:
  // after the warm-up q1 holds 6 and q2 2: Jain = 64 / (2·40) = 0.8.
  std::string ts =
      "time_s,scope,allocated_gpus,productive_gpus,capacity_gpus,pending_jobs,running_jobs\n";
  for (int b = 0; b < 40; ++b) {
    const bool warm = b >= 10;
    ts +=
        fmt::format("{},cluster,{},{},10,{},0\n", b * 60, warm ? 8 : 0, warm ? 4 : 0, warm ? 1 : 5);
    ts += fmt::format("{},queue:q1,{},0,0,{},0\n", b * 60, warm ? 6 : 0, warm ? 0 : 3);
    ts += fmt::format("{},\"queue:q,2\",{},0,0,{},0\n", b * 60, warm ? 2 : 0, warm ? 1 : 2);
  }
  const SteadyState s = steady_state(ts);
  CHECK(s.warmup_s == Approx(600));  // 10 buckets of 60 s
  CHECK(s.utilization_allocated == Approx(0.8));
  CHECK(s.utilization_productive == Approx(0.4));
  CHECK(s.pending_jobs == Approx(1));
  CHECK(s.fairness_jain == Approx(0.8));
}

TEST_CASE("the fixture's runs load with derived metrics", "[aggregate]") {
  const fs::path dir = fresh_dir("fixture");
  t9k::testing::write_fixture_run(dir, 42, 1, 0);
  const RunSummary r = load_run_summary(dir);
  CHECK(r.seed == 42);
  CHECK(r.replication == 1);
  CHECK(r.scenario == std::string("fixture ") + t9k::testing::kHostileJob);
  CHECK(r.metrics.at("wait_mean_s") == Approx(67));
  // The ramp covers 10 of 60 buckets of 300 s: MSER-5 drops at least the first two batches.
  CHECK(r.metrics.at("warmup_s") >= 3000);
  CHECK(r.metrics.at("steady_utilization_allocated") == Approx(16.1 / 32).epsilon(0.02));
  fs::remove_all(dir);
}

TEST_CASE("pooled percentiles: every run's jobs together, as the runs count them",
          "[aggregate][pooled]") {
  // Two runs (horizon 100 s). Run 0: waits 0, 10, 20 in queue a; a job that never started and
  // ended at 70 s (submitted at 10: waited 60); a rejected job (no wait). Run 1: waits 30 and 40
  // in queue b, one never started by the horizon (submitted at 50: waited 50), a reason with a
  // comma and a newline.
  const fs::path root = fresh_dir("pooled");
  const std::string header =
      "job,kind,queue,submit_s,first_running_s,end_s,wait_s,jct_s,phase,reason\n";
  write_summary(root / "rep-0", 1, 0, 0, 0);
  write_summary(root / "rep-1", 1, 1, 0, 0);
  write_file_atomic(root / "rep-0" / "jobs.csv",
                    header +
                        "d/a0,GenericJob,a,0,0,50,0,50,Succeeded,\n"
                        "d/a1,GenericJob,a,0,10,60,10,60,Succeeded,\n"
                        "d/a2,DeepSpeedJob,a,0,20,80,20,80,Succeeded,\n"
                        "d/a3,GenericJob,a,10,,70,,,Failed,deadline\n"
                        "d/a4,GenericJob,a,10,,10,,,Rejected,quota\n");
  write_file_atomic(root / "rep-1" / "jobs.csv",
                    header +
                        "d/b0,GenericJob,b,0,30,90,30,90,Succeeded,\n"
                        "d/b1,GenericJob,b,0,40,,40,,Running,\"x, y\nz\"\n"
                        "d/b2,GenericJob,,50,,,,,Pending,\n");
  const auto one = write_replication_summary(root / "one", {root / "rep-0"});
  // Run 0's waits 0, 10, 20, 60: p50 15, p90 rank 2.7 -> 20 + 0.7 x 40 = 48.
  CHECK(one.pooled_jobs == 5);
  CHECK(one.pooled.at("pooled_wait_p50_s") == Approx(15));
  CHECK(one.pooled.at("pooled_wait_p90_s") == Approx(48));
  // JCTs 50, 60, 80 (the failed and rejected jobs have none).
  CHECK(one.pooled.at("pooled_jct_p50_s") == Approx(60));
  CHECK(one.pooled.at("kind/DeepSpeedJob/pooled_wait_p50_s") == Approx(20));
  const auto both = write_replication_summary(root / "both", {root / "rep-0", root / "rep-1"});
  // Waits 0, 10, 20, 60, 30, 40, 50 -> sorted 0 10 20 30 40 50 60: p50 30, p90 rank 5.4 -> 54.
  CHECK(both.pooled_jobs == 8);
  CHECK(both.pooled.at("pooled_wait_p50_s") == Approx(30));
  CHECK(both.pooled.at("pooled_wait_p90_s") == Approx(54));
  CHECK(both.pooled.at("queue/b/pooled_wait_p50_s") == Approx(35));
  CHECK(both.pooled.at("queue/a/pooled_wait_p90_s") == Approx(48));
  CHECK(both.pooled.count("queue//pooled_wait_p50_s") == 0);  // no queue: the cluster only
  // Kept in summary.json and read back.
  const auto j = read_json(root / "both" / "summary.json");
  CHECK(j.at("pooled").at("jobs") == 8);
  CHECK(j.at("pooled").at("metrics").at("pooled_wait_p90_s").get<double>() == Approx(54));
  ReplicationSummary back;
  read_pooled(j, back);
  CHECK(back.pooled == both.pooled);
  // A run without its jobs.csv: no pooled figures at all, rather than some runs' only.
  fs::remove(root / "rep-1" / "jobs.csv");
  const auto partial =
      write_replication_summary(root / "partial", {root / "rep-0", root / "rep-1"});
  CHECK(partial.pooled.empty());
  CHECK_FALSE(read_json(root / "partial" / "summary.json").contains("pooled"));
  fs::remove_all(root);
}

TEST_CASE("pooled percentiles: a jobs.csv longer than one chunk, a quoted newline at the seam",
          "[aggregate][pooled]") {
  // 9,000 jobs waiting 0..8999 s (read in chunks of 8,192 rows); row 8,191 has a reason with a
  // newline, so its record spans the chunk's last line.
  const fs::path root = fresh_dir("pooled-chunks");
  write_summary(root / "rep-0", 1, 0, 0, 0);
  std::string csv = "job,kind,queue,submit_s,first_running_s,end_s,wait_s,jct_s,phase,reason\n";
  for (int i = 0; i < 9000; ++i) {
    csv += "d/j" + std::to_string(i) + ",GenericJob,a,0," + std::to_string(i) + ",," +
           std::to_string(i) + ",,Running," + (i == 8191 ? "\"line one\nline two\"" : "") + "\n";
  }
  write_file_atomic(root / "rep-0" / "jobs.csv", csv);
  const auto s = write_replication_summary(root / "agg", {root / "rep-0"});
  CHECK(s.pooled_jobs == 9000);
  // Waits 0..8999: p50 at rank 4499.5, p90 at 8099.1, p99 at 8909.01.
  CHECK(s.pooled.at("pooled_wait_p50_s") == Approx(4499.5));
  CHECK(s.pooled.at("pooled_wait_p90_s") == Approx(8099.1));
  CHECK(s.pooled.at("pooled_wait_p99_s") == Approx(8909.01));
  CHECK(s.pooled.count("pooled_jct_p50_s") == 0);  // nothing ended
  // An unterminated quote is an error naming the file, not rows silently dropped.
  write_file_atomic(root / "rep-0" / "jobs.csv", csv + "d/x,GenericJob,a,0,1,,1,,Running,\"open\n");
  CHECK_THROWS_WITH(write_replication_summary(root / "bad", {root / "rep-0"}),
                    Catch::Contains("jobs.csv"));
  fs::remove_all(root);
}
