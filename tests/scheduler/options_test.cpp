// SchedulerOptions: named plugins and gap options, validated with clear errors (issue 5 point 1).
#include <catch2/catch.hpp>

#include "scheduler/scheduler.hpp"

using namespace t9k::scheduler;

TEST_CASE("options: the defaults are valid and follow §11", "[options]") {
  const SchedulerOptions o;
  CHECK(o.validate().empty());
  CHECK(o.quota_mode == QuotaMode::GateAtScheduling);    // §11 Q14
  CHECK(o.drf_denominator == DrfDenominator::Quota);     // §11 Q18
  CHECK(o.backfill == BackfillPolicy::SkipAndContinue);  // §11 Q11
  CHECK_FALSE(o.preemption);                             // §8.6: must be enabled
  CHECK_FALSE(o.intra_queue_preemption);                 // §11 Q9
}

TEST_CASE("options: unknown plugin names are reported with field path and allowed names",
          "[options]") {
  SchedulerOptions o;
  o.scores = {{"binpack", 1}, {"spread", 0}};
  o.filters = {"node-ready"};
  o.permit = {"gang", "gang"};
  o.queue_sort = {"fifo"};
  const auto problems = o.validate();
  REQUIRE(problems.size() == 5);
  CHECK(problems[0] ==
        "scheduler.queueSort[0]: unknown queue sort plugin 'fifo' (allowed: "
        "queue-priority, dominant-resource-share)");
  CHECK(problems[1].find("must include 'node-resources-fit'") != std::string::npos);
  CHECK(problems[2] ==
        "scheduler.scores[0]: unknown score plugin 'binpack' (allowed: bin-pack, "
        "spread, topology)");
  CHECK(problems[3] == "scheduler.scores[1].weight: 0 is outside [1, 100]");
  CHECK(problems[4] == "scheduler.permit[1]: permit plugin 'gang' listed twice");
  CHECK_THROWS_AS(Scheduler(o), OptionsError);
  try {
    Scheduler s(o);
  } catch (const OptionsError& e) {
    CHECK(e.problems() == problems);
    CHECK(std::string(e.what()).find("binpack") != std::string::npos);
  }
}

TEST_CASE("options: intra-queue preemption needs preemption, feasible-node limit non-negative",
          "[options]") {
  SchedulerOptions o;
  o.intra_queue_preemption = true;
  o.max_feasible_nodes = -1;
  const auto problems = o.validate();
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].find("maxFeasibleNodes") != std::string::npos);
  CHECK(problems[1].find("requires scheduler.preemption") != std::string::npos);
}

TEST_CASE("options: enum spellings round-trip", "[options]") {
  for (auto v : {QuotaMode::GateAtScheduling, QuotaMode::RejectAtAdmission})
    CHECK(parse_quota_mode(to_string(v)) == v);
  for (auto v : {DrfDenominator::Quota, DrfDenominator::ClusterCapacity})
    CHECK(parse_drf_denominator(to_string(v)) == v);
  for (auto v : {BackfillPolicy::SkipAndContinue, BackfillPolicy::StrictFifo})
    CHECK(parse_backfill_policy(to_string(v)) == v);
  CHECK_FALSE(parse_backfill_policy("fifo").has_value());
}

TEST_CASE("options: each problem names the scenario option it comes from", "[options]") {
  SchedulerOptions o;
  o.filters = {"node-resources-fit", "bogus"};
  o.max_feasible_nodes = -1;
  o.intra_queue_preemption = true;
  const auto problems = o.problems();
  REQUIRE(problems.size() == 3);
  CHECK(problems[0].option == "filters");
  CHECK(problems[0].path() == "scheduler.filters[1]");
  CHECK(problems[0].entry ==
        std::optional<std::size_t>{1});  // the list entry, without reading the path
  CHECK(problems[0].entry_field.empty());
  CHECK(problems[1].option == "maxFeasibleNodes");
  CHECK_FALSE(problems[1].entry.has_value());
  CHECK(problems[2].option == "intraQueuePreemption");
  // validate() is the same problems as text.
  const auto text = o.validate();
  REQUIRE(text.size() == problems.size());
  for (std::size_t i = 0; i < text.size(); ++i) CHECK(text[i] == problems[i].text());

  // A field of an entry: the entry and the field.
  SchedulerOptions w;
  w.scores = {{"bin-pack", 1}, {"spread", 0}};
  const auto weight = w.problems();
  REQUIRE(weight.size() == 1);
  CHECK(weight[0].option == "scores");
  CHECK(weight[0].entry == std::optional<std::size_t>{1});
  CHECK(weight[0].entry_field == "weight");
  CHECK(weight[0].path() == "scheduler.scores[1].weight");
  CHECK(weight[0].text() == "scheduler.scores[1].weight: 0 is outside [1, 100]");
}
