// spec.faults.
#include "scenarios/format/detail/decoder.hpp"

#include <fmt/format.h>

namespace t9k::scenarios::detail {

namespace {

constexpr std::string_view kFaults[] = {"profile", "rates", "detectionDelay", "repairTime",
                                        "weibullShape"};
constexpr std::string_view kRates[] = {"nodeFailuresPerNodeDay", "switchFailuresPerSwitchDay",
                                       "softwareFailuresPerJobHour"};

}  // namespace

void ScenarioDecoder::faults(const Val& v, Scenario& sc) {
  MapReader f(r_, v, kFaults);
  if (auto x = read_choice(r_, f.get("profile"), kFaultProfiles)) sc.faults.profile = *x;
  const Val rates = f.get("rates");
  if (sc.faults.profile == "custom") {
    if (require(r_, rates)) {
      MapReader r(r_, rates, kRates);
      FaultRates fr;
      if (auto x = read_double(r_, r.get("nodeFailuresPerNodeDay"), 0, kMaxDouble))
        fr.node_failures_per_node_day = *x;
      if (auto x = read_double(r_, r.get("switchFailuresPerSwitchDay"), 0, kMaxDouble))
        fr.switch_failures_per_switch_day = *x;
      if (auto x = read_double(r_, r.get("softwareFailuresPerJobHour"), 0, kMaxDouble))
        fr.software_failures_per_job_hour = *x;
      sc.faults.rates = fr;
    }
  } else if (rates.present()) {
    r_.error(
        rates.mark, rates.path,
        fmt::format("found rates with profile \"{}\"; allowed: rates only with profile: custom",
                    sc.faults.profile));
  }
  sc.faults.detection_delay = duration_dist(r_, f.get("detectionDelay"));
  sc.faults.repair_time = duration_dist(r_, f.get("repairTime"));
  // Weibull inter-failure times with this shape, same mean (faults-and-validation §1.7).
  if (auto x = read_double(r_, f.get("weibullShape"), 1e-3, 1e3)) sc.faults.weibull_shape = *x;
}

}  // namespace t9k::scenarios::detail
