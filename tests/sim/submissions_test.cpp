// Submissions through the whole world: jobs enter in (submit time, job key) order whatever the
// order they are listed in, explicit jobs and generators merged.
#include "tests/sim/support.hpp"

#include "sim/world.hpp"

using namespace t9k;
using namespace t9k::sim;
using namespace t9k::sim::testing;

TEST_CASE("submissions: same-instant jobs enter in job-key order, merged with generators",
          "[sim][submissions]") {
  const std::string generator = R"(    generators:
    - name: gen
      times: [30m, 1h, 1h]
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: GenericJob
        metadata: {name: gen}
        spec:
          scheduler: {t9kScheduler: {queue: default}}
          replicaSpecs: [{type: w, template: {spec: {containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}}}]}}}]
      behaviour: {runTime: 10m}
)";
  auto sc = scenario_with(generic_job_yaml("d", 1, 1) + generic_job_yaml("b", 1, 1) +
                          generic_job_yaml("c", 1, 1) + generic_job_yaml("a", 1, 1) + generator);
  sc.workload.jobs.at(2).submit_time = kernel::SimTime{kernel::minutes(45)};  // "c" later
  std::vector<std::string> order;
  std::vector<kernel::SimTime> times;
  World w(sc, 0, [&](const model::TimedChange& c) {
    if (const auto* s = std::get_if<model::JobSubmitted>(&c.change)) {
      order.push_back(s->name);
      times.push_back(c.time);
    }
  });
  w.run();
  REQUIRE(order.size() == 7);
  // a, b, d at time 0 in key order; the generator's job at 30 min; c at 45 min; two more at 1 h.
  CHECK(std::vector<std::string>(order.begin(), order.begin() + 3) ==
        std::vector<std::string>{"default/a", "default/b", "default/d"});
  CHECK(times.at(0) == kernel::SimTime{});
  CHECK(times.at(2) == kernel::SimTime{});
  CHECK(order.at(4) == "default/c");
  CHECK(times.at(4) == kernel::SimTime{kernel::minutes(45)});
  CHECK(times.at(3) == kernel::SimTime{kernel::minutes(30)});
  CHECK(times.at(6) == kernel::SimTime{kernel::hours(1)});
  CHECK(order.at(5) < order.at(6));
}
