// Recorded versus simulated (analysis/replay_check.hpp, docs/traces.md "Recorded versus
// simulated").
#include <catch2/catch.hpp>

#include <string>

#include "analysis/csv.hpp"
#include "analysis/replay_check.hpp"

using namespace t9k::analysis;

TEST_CASE(
    "replay-check: per-job wait and end errors, their percentiles, and what could not be "
    "compared") {
  // Four jobs submitted at 0, 100, 200, 300 s; recorded waits 10, 20, 30 s and one unknown.
  const std::vector<RecordedJob> recorded = {
      {"demo/a", 0, 10.0, 110},           {"demo/b", 100, 120.0, 220}, {"demo/c", 200, 230.0, 330},
      {"demo/d", 300, std::nullopt, 400},  // start approximate: its wait is not compared
      {"demo/e", 400, 410.0, 500},         // never simulated (e.g. outside a window)
  };
  const auto sim = simulated_jobs(
      parse_csv("job,kind,first_running_s,end_s\n"
                "demo/a,GenericJob,20.000000,120.000000\n"   // waits 20 (+10), ends +10
                "demo/b,GenericJob,100.000000,200.000000\n"  // waits 0 (-20), ends -20
                "demo/c,GenericJob,260.000000,\n"            // waits 60 (+30), not finished
                "demo/d,GenericJob,,\n",                     // never started
                "jobs.csv"));
  const auto c = compare_replay(recorded, sim);
  REQUIRE(c.rows.size() == 5);
  CHECK(c.rows[0].wait_error_s() == Approx(10));
  CHECK(c.rows[1].wait_error_s() == Approx(-20));
  CHECK(c.rows[2].wait_error_s() == Approx(30));
  CHECK_FALSE(c.rows[3].wait_error_s());
  CHECK_FALSE(c.rows[4].found);
  // |errors| 10, 20, 30: median 20, p90 28 (linear interpolation between closest ranks).
  CHECK(c.wait.jobs == 3);
  CHECK(c.wait.median_abs_s == Approx(20));
  CHECK(c.wait.p90_abs_s == Approx(28));
  CHECK(c.wait.max_abs_s == Approx(30));
  CHECK(c.wait.mean_s == Approx(20.0 / 3));
  // Ends: +10 and -20 only.
  CHECK(c.end.jobs == 2);
  CHECK(c.end.median_abs_s == Approx(15));
  CHECK(c.end.mean_s == Approx(-5));
  CHECK(c.not_found == 1);
  CHECK(c.not_started == 1);
  CHECK(c.not_finished == 2);
  CHECK(c.wait_unknown == 1);

  const std::string csv = replay_check_csv(c);
  CHECK(csv.rfind("job,submit_s,recorded_wait_s,simulated_wait_s,wait_error_s,recorded_end_s,"
                  "simulated_end_s,end_error_s\n",
                  0) == 0);
  CHECK(
      csv.find("demo/a,0.000000,10.000000,20.000000,10.000000,110.000000,120.000000,10.000000\n") !=
      std::string::npos);
  CHECK(csv.find("demo/d,300.000000,,,,400.000000,,\n") != std::string::npos);
  const auto table = parse_csv(csv, "replay-check.csv");
  CHECK(table.rows.size() == 5);
  const std::string summary = replay_check_summary(c);
  CHECK_THAT(summary, Catch::Contains("wait (simulated - recorded): 3 jobs, |error| median 20 s"));
  CHECK_THAT(summary, Catch::Contains("1 jobs without an exact recorded start"));
  CHECK_THAT(summary, Catch::Contains(
                          "1 never started and 2 not finished in the simulation, 1 not simulated"));
}
