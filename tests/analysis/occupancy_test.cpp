// The node timeline's record (analysis/occupancy.hpp, docs/outputs.md "occupancy.csv"): rows of
// nodes, and each queue's GPUs, capacity down and cordoned, averaged per period.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "analysis/csv.hpp"
#include "analysis/occupancy.hpp"

using t9k::analysis::Occupancy;
namespace model = t9k::model;

namespace {

model::SimTime at_h(double h) {
  return model::SimTime{model::SimDuration{static_cast<std::int64_t>(h * 3600e6)}};
}

std::vector<std::string> names(const std::string& pool, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(pool + "-" + std::to_string(i));
  return out;
}

}  // namespace

TEST_CASE("occupancy: a row per node up to 64, runs of a pool's nodes beyond", "[occupancy]") {
  const auto small = Occupancy::layout({{"h100", names("h100", 32)}});
  CHECK(small.labels.size() == 32);
  CHECK(small.labels[3] == "h100-3");
  CHECK(small.row_of.at("h100-31") == 31);
  // 10,000 nodes: 157 per row, 64 rows, the last shorter.
  const auto fleet = Occupancy::layout({{"h100", names("h100", 10000)}});
  REQUIRE(fleet.labels.size() == 64);
  CHECK(fleet.labels.front() == "h100-0…h100-156");
  CHECK(fleet.labels.back() == "h100-9891…h100-9999");
  CHECK(fleet.row_of.at("h100-157") == 1);
  // Rows never span pools: 100 + 28 nodes in runs of 2.
  const auto two = Occupancy::layout({{"a", names("a", 100)}, {"b", names("b", 28)}});
  CHECK(two.labels.size() == 64);
  CHECK(two.labels[50] == "b-0…b-1");
}

TEST_CASE("occupancy: GPUs per queue, down and cordoned, averaged per period", "[occupancy]") {
  Occupancy o(at_h(4), model::SimDuration{3600LL * 1000000});  // four hourly periods
  o.set_layout(Occupancy::layout({{"n", names("n", 2)}}));
  o.node(at_h(0), "n-0", 8000, 8000, false);
  o.node(at_h(0), "n-1", 8000, 8000, false);
  o.pod(at_h(0.5), "n-0", "research", 4000);  // half of the first hour
  o.pod(at_h(1), "n-0", "", 1000);            // a default-scheduler pod
  o.pod(at_h(2.5), "n-0", "research", -4000);
  o.node(at_h(1), "n-1", 0, 8000, false);    // down for two hours
  o.node(at_h(3), "n-1", 8000, 8000, true);  // back, cordoned
  o.finish();
  CHECK(o.csv() ==
        "start_s,row,capacity_gpus,down_gpus,cordoned_gpus,queue,allocated_gpus\n"
        "0.000000,n-0,8.000,0.000,0.000,research,2.000\n"
        "0.000000,n-1,8.000,0.000,0.000,,0.000\n"
        "3600.000000,n-0,8.000,0.000,0.000,,1.000\n"
        "3600.000000,n-0,8.000,0.000,0.000,research,4.000\n"
        "3600.000000,n-1,0.000,8.000,0.000,,0.000\n"
        "7200.000000,n-0,8.000,0.000,0.000,,1.000\n"
        "7200.000000,n-0,8.000,0.000,0.000,research,2.000\n"
        "7200.000000,n-1,0.000,8.000,0.000,,0.000\n"
        "10800.000000,n-0,8.000,0.000,0.000,,1.000\n"
        "10800.000000,n-1,8.000,0.000,8.000,,0.000\n");
  // 4 GPUs for 2 h and 1 GPU for 3 h, in milli-GPU × µs.
  CHECK(o.allocated_area() ==
        static_cast<model::Int128>(4000LL * 2 * 3600000000LL + 1000LL * 3 * 3600000000LL));
}

TEST_CASE("occupancy: at most 168 periods, whole multiples of the bucket", "[occupancy]") {
  const Occupancy week(at_h(24 * 7), model::SimDuration{15LL * 60 * 1000000});
  CHECK(week.period() == model::SimDuration{3600LL * 1000000});  // 672 buckets -> hourly
  const Occupancy day(at_h(24), model::SimDuration{60LL * 1000000});
  CHECK(day.period().count() % (60LL * 1000000) == 0);
  CHECK(24 * 3600 / (day.period().count() / 1000000) <= 168);
}

TEST_CASE("occupancy: a file larger than one piece is written whole, line for line",
          "[occupancy]") {
  // 64 nodes over many periods: several times kFlushBytes, so the file goes out in pieces.
  Occupancy o(at_h(24 * 30), model::SimDuration{3600LL * 1000000});
  o.set_layout(Occupancy::layout({{"n", names("n", 64)}}));
  for (int i = 0; i < 64; ++i) o.node(at_h(0), "n-" + std::to_string(i), 8000, 8000, false);
  o.pod(at_h(1), "n-7", "research", 2000);
  o.finish();
  const std::string csv = o.csv();
  REQUIRE(csv.size() > 3 * t9k::analysis::kFlushBytes);
  std::size_t lines = 0;
  std::size_t start = 0;
  while (start < csv.size()) {
    const auto end = csv.find('\n', start);
    REQUIRE(end != std::string::npos);  // the last line is whole
    const std::string line = csv.substr(start, end - start);
    CHECK(std::count(line.begin(), line.end(), ',') == 6);
    start = end + 1;
    ++lines;
  }
  const auto periods = static_cast<std::size_t>(
      (at_h(24 * 30).time_since_epoch() + o.period() - model::SimDuration{1}) / o.period());
  CHECK(periods > 100);
  CHECK(lines == 1 + periods * 64);  // every period and row once: no piece lost or repeated
}
