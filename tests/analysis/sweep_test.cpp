// Sweeps (analysis/sweep.hpp, app/sweep_command.hpp): --vary value lists, metric names by group,
// sweep.csv rows with intervals clipped to the metric's range.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis/intervals.hpp"
#include "analysis/sweep.hpp"

using namespace t9k;

TEST_CASE("sweep: --vary values from ranges, duration ranges and lists", "[sweep]") {
  struct Row {
    std::string spec;
    std::vector<std::string> values;
  };
  const std::vector<Row> rows = {
      {"40:96:8", {"40", "48", "56", "64", "72", "80", "88", "96"}},
      {"1:2:0.25", {"1", "1.25", "1.5", "1.75", "2"}},
      {"0:0.3:0.1", {"0", "0.1", "0.2", "0.3"}},
      {"40:50:8", {"40", "48"}},
      {"5:5:1", {"5"}},
      {"1h:3h:1h", {"1h", "2h", "3h"}},
      {"greedy,fixed, goodput", {"greedy", "fixed", "goodput"}},
      {"{a: 1, b: 2},{a: 3}", {"{a: 1, b: 2}", "{a: 3}"}},
      {"\"a,b\",c", {"\"a,b\"", "c"}},
      {"56", {"56"}},
      // FROM:TO of two numbers steps by 1, as size's --param (one syntax; issue 47).
      {"1:4", {"1", "2", "3", "4"}},
      {"0.5:2", {"0.5", "1.5"}},
      {"\"1:4\"", {"\"1:4\""}},
  };
  for (const auto& r : rows) {
    INFO(r.spec);
    std::string error;
    CHECK(analysis::sweep_values(r.spec, error) == r.values);
    CHECK(error.empty());
  }
  struct Bad {
    std::string spec;
    std::string message;
  };
  for (const auto& b : std::vector<Bad>{{"10:1:1", "FROM is greater than TO"},
                                        {"1h:4h", "a range of durations needs a step"},
                                        {"4:1", "FROM is greater than TO"},
                                        {"1:10:0", "step must be greater than 0"},
                                        {"1:10:-1", "step must be greater than 0"},
                                        {"0:100000:1", "at most 1000"},
                                        {"a:b:c", "three numbers or three durations"},
                                        {"1,,2", "empty value"}}) {
    INFO(b.spec);
    std::string error;
    CHECK(analysis::sweep_values(b.spec, error).empty());
    CHECK(error.find(b.message) != std::string::npos);
  }
}

TEST_CASE("sweep: metric names split into group, value and metric", "[sweep]") {
  const auto a = analysis::split_metric_name("wait_p90_s");
  CHECK((a.group == "cluster" && a.value.empty() && a.metric == "wait_p90_s"));
  const auto b = analysis::split_metric_name("queue/production/wait_p90_s");
  CHECK((b.group == "queue" && b.value == "production" && b.metric == "wait_p90_s"));
  const auto c = analysis::split_metric_name("class/gen-a/jobs_submitted");
  CHECK((c.group == "class" && c.value == "gen-a" && c.metric == "jobs_submitted"));
}

TEST_CASE("sweep: sweep.csv has one row per point, group and metric, intervals clipped at 0",
          "[sweep]") {
  analysis::SweepSummary s;
  s.parameters = {"cluster.nodePools[name=h100].count"};
  for (const char* v : {"8", "16"}) {
    analysis::SweepPoint p;
    p.values = {v};
    analysis::MetricSummary ms;
    ms.values = {0, 0, 30};
    ms.interval = analysis::mean_interval(ms.values);
    p.replications.metrics["queue/prod/wait_p90_s"] = ms;
    analysis::MetricSummary one;
    one.values = {0.5};
    one.interval = analysis::mean_interval(one.values);
    p.replications.metrics["utilization_allocated"] = one;
    s.points.push_back(p);
  }
  const std::string csv = analysis::sweep_csv(s);
  const std::string header =
      "point,cluster.nodePools[name=h100].count,group,group_value,metric,n,mean,sd,half_width,low,"
      "high\n";
  REQUIRE(csv.starts_with(header));
  // 2 points x 2 metrics.
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
  CHECK(csv.find("0,8,queue,prod,wait_p90_s,3,10,") != std::string::npos);
  // The lower bound of 10 ± 43 is clipped at 0; one replication has no interval.
  CHECK(csv.find(",0,") != std::string::npos);
  CHECK(csv.find("1,16,cluster,,utilization_allocated,1,0.5,,,,\n") != std::string::npos);
  const auto iv = analysis::mean_interval(std::vector<double>{0, 0, 30});
  CHECK(iv.lower() < 0);
  CHECK(analysis::interval_low("wait_p90_s", iv) == 0);
  // Utilisations are also clipped at 100 %.
  const auto u = analysis::mean_interval(std::vector<double>{0.2, 0.9, 1.0});
  CHECK(u.upper() > 1);
  CHECK(analysis::interval_high("queue/a/utilization_allocated", u) == 1);
  CHECK(analysis::interval_high("wait_p90_s", u) == u.upper());
}

// Issue 48 item 4: legends and axes name parameters by short, distinct labels.
TEST_CASE("sweep: parameters get short labels that tell them apart", "[sweep]") {
  struct Row {
    std::vector<std::string> paths;
    std::vector<std::string> labels;
  };
  const std::vector<Row> rows = {
      {{"cluster.nodePools[name=h100].count"}, {"count"}},
      {{"horizon"}, {"horizon"}},
      // An escaped dot is part of its segment, shown unescaped.
      {{"cluster.nodePools[name=h100].count",
        "scheduler.queues[name=production].spec.quota.requests.nvidia\\.com/gpu"},
       {"count", "nvidia.com/gpu"}},
      // Two counts: each lengthened until they differ; brackets join without a dot.
      {{"cluster.nodePools[name=h100].count", "cluster.nodePools[name=a100].count"},
       {"nodePools[name=h100].count", "nodePools[name=a100].count"}},
      // A dot inside brackets does not split.
      {{"a[x=1.5].count", "a[x=2.5].count"}, {"a[x=1.5].count", "a[x=2.5].count"}},
      // Only the labels that coincide grow.
      {{"x.a.count", "y.a.count", "z.size"}, {"x.a.count", "y.a.count", "size"}},
  };
  for (const auto& r : rows) {
    INFO(r.paths.front());
    CHECK(analysis::parameter_labels(r.paths) == r.labels);
  }
}
