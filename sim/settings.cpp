// Typed world settings from a scenario's free-form option maps. Every option has one spelling;
// an unknown option or value is an error naming what is allowed (never a silent default).
#include <functional>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/settings.hpp"

namespace t9k::sim {

namespace {
std::string joined(const std::vector<ScenarioError::Problem>& problems) {
  std::string s;
  for (const auto& p : problems) s += (s.empty() ? "" : "; ") + p.path + ": " + p.message;
  return s;
}
const std::string kNoText;
}  // namespace

ScenarioError::ScenarioError(std::vector<Problem> problems)
    : std::invalid_argument(joined(problems)), problems_(std::move(problems)) {}
const std::string& ScenarioError::path() const {
  return problems_.empty() ? kNoText : problems_.front().path;
}
const std::string& ScenarioError::message() const {
  return problems_.empty() ? kNoText : problems_.front().message;
}

using kernel::SimDuration;

namespace {

template <class E>
E choose(const std::string& where, const std::string& value,
         const std::map<std::string, E>& allowed) {
  const auto it = allowed.find(value);
  if (it != allowed.end()) return it->second;
  std::vector<std::string> names;
  for (const auto& [n, e] : allowed) names.push_back(n);
  throw ScenarioError(
      where, fmt::format("'{}' is not allowed (allowed: {})", value, fmt::join(names, ", ")));
}

bool boolean(const std::string& where, const std::string& v) {
  return choose<bool>(where, v, {{"true", true}, {"false", false}});
}

SimDuration duration(const std::string& where, const std::string& v) {
  try {
    return kernel::parse_duration(v);
  } catch (const kernel::DurationError& e) {
    throw ScenarioError(where, e.what());
  }
}

SimDuration positive(const std::string& where, SimDuration d) {
  if (d.count() <= 0) throw ScenarioError(where, "must be longer than 0s");
  return d;
}

std::vector<std::string> list(const std::string& v) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : v) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

using Setter = std::function<void(const std::string& where, const std::string& value)>;

void apply_options(const std::string& prefix, const std::map<std::string, std::string>& given,
                   const std::map<std::string, Setter>& known) {
  for (const auto& [key, value] : given) {
    const auto it = known.find(key);
    const std::string where = prefix + "." + key;
    if (it == known.end()) {
      std::vector<std::string> names;
      for (const auto& [n, s] : known) names.push_back(n);
      throw ScenarioError(where, fmt::format("unknown option (known: {})", fmt::join(names, ", ")));
    }
    it->second(where, value);
  }
}

// spec.controllers.options (docs/controllers.md) and the plugins named for controllers.
void controller_settings(const scenarios::Scenario& sc, WorldSettings& s) {
  using CO = controllers::ControllerOptions;
  auto& co = s.controller_options;
  const std::map<std::string, Setter> controller_opts{
      {"retryableExitCodes",
       [&](auto& w, auto& v) {
         co.retryable_exit_codes = choose<CO::RetryableExitCodes>(
             w, v,
             {{"t9k", CO::RetryableExitCodes::T9kList},
              {"kubeflow", CO::RetryableExitCodes::KubeflowAtLeast128}});
       }},
      {"backoffLimitRule",
       [&](auto& w, auto& v) {
         co.backoff_limit_rule = choose<CO::BackoffLimitRule>(
             w, v,
             {{"master-fails-again", CO::BackoffLimitRule::MasterFailsAgain},
              {"kubeflow-reach-limit", CO::BackoffLimitRule::KubeflowReachLimit}});
       }},
      {"exitCodeIgnoresBackoffLimit",
       [&](auto& w, auto& v) { co.exit_code_ignores_backoff_limit = boolean(w, v); }},
      {"restartBackoff", [&](auto& w, auto& v) { co.restart_backoff = boolean(w, v); }},
      {"restartBackoffBase", [&](auto& w, auto& v) { co.restart_backoff_base = duration(w, v); }},
      {"restartBackoffCap", [&](auto& w, auto& v) { co.restart_backoff_cap = duration(w, v); }},
      {"permanentFailureScope",
       [&](auto& w, auto& v) {
         co.permanent_failure_scope = choose<CO::PermanentFailureScope>(
             w, v,
             {{"any-replica", CO::PermanentFailureScope::AnyReplica},
              {"master-only", CO::PermanentFailureScope::MasterOnly}});
       }},
      {"maxDurationHandling",
       [&](auto& w, auto& v) {
         co.max_duration = choose<CO::MaxDurationHandling>(
             w, v,
             {{"fail-replica", CO::MaxDurationHandling::FailReplica},
              {"recreate", CO::MaxDurationHandling::Recreate}});
       }},
      {"runningWhen",
       [&](auto& w, auto& v) {
         co.running_when =
             choose<CO::RunningWhen>(w, v,
                                     {{"all-pods-running", CO::RunningWhen::AllPodsRunning},
                                      {"master-running", CO::RunningWhen::MasterRunning}});
       }},
      {"genericLimitScope",
       [&](auto& w, auto& v) {
         co.generic_limit_scope =
             choose<CO::GenericLimitScope>(w, v,
                                           {{"per-replica", CO::GenericLimitScope::PerReplica},
                                            {"per-type", CO::GenericLimitScope::PerType}});
       }},
      {"elasticSuccess",
       [&](auto& w, auto& v) {
         co.elastic_success =
             choose<CO::ElasticSuccess>(w, v,
                                        {{"master", CO::ElasticSuccess::Master},
                                         {"any-replica", CO::ElasticSuccess::AnyReplica}});
       }},
      {"elasticPolicy",
       [&](auto& w, auto& v) {
         std::map<std::string, std::string> names;
         for (const auto n : policies::elastic_policy_names()) names.emplace(n, n);
         if (sc.controllers.elastic_policy_plugin)
           names.emplace("plugin", "plugin");  // {plugin: {...}}
         s.elastic_policy = choose<std::string>(w, v, names);
       }},
      {"elasticPolicyPeriod",
       [&](auto& w, auto& v) { s.elastic_policy_period = positive(w, duration(w, v)); }},
      {"elasticPolicyCooldown",
       [&](auto& w, auto& v) { s.policy_options.cooldown = duration(w, v); }},
      {"elasticPolicyCheckpointWindow",
       [&](auto& w, auto& v) { s.policy_options.checkpoint_window = duration(w, v); }},
      {"orphanTimeout", [&](auto& w, auto& v) { s.orphan_timeout = duration(w, v); }},
  };
  apply_options("spec.controllers.options", sc.controllers.options, controller_opts);
  s.plugins.controllers = sc.controller_plugins;
  s.plugins.elastic_policy = sc.controllers.elastic_policy_plugin;
}

// spec.scheduler.options (docs/scheduler.md), each problem at the option it comes from.
void scheduler_settings(const scenarios::Scenario& sc, WorldSettings& s) {
  auto& so = s.scheduler_options;
  const std::map<std::string, Setter> scheduler_opts{
      {"preemption", [&](auto& w, auto& v) { so.preemption = boolean(w, v); }},
      {"intraQueuePreemption",
       [&](auto& w, auto& v) { so.intra_queue_preemption = boolean(w, v); }},
      {"quotaMode",
       [&](auto& w, auto& v) {
         const auto m = scheduler::parse_quota_mode(v);
         if (!m)
           throw ScenarioError(
               w, fmt::format(
                      "'{}' is not allowed (allowed: gate-at-scheduling, reject-at-admission)", v));
         so.quota_mode = *m;
       }},
      {"drfDenominator",
       [&](auto& w, auto& v) {
         const auto m = scheduler::parse_drf_denominator(v);
         if (!m)
           throw ScenarioError(
               w, fmt::format("'{}' is not allowed (allowed: quota, cluster-capacity)", v));
         so.drf_denominator = *m;
       }},
      {"backfill",
       [&](auto& w, auto& v) {
         const auto m = scheduler::parse_backfill_policy(v);
         if (!m)
           throw ScenarioError(
               w, fmt::format("'{}' is not allowed (allowed: skip-and-continue, strict-fifo)", v));
         so.backfill = *m;
       }},
      {"queueSort", [&](auto&, auto& v) { so.queue_sort = list(v); }},
      {"filters", [&](auto&, auto& v) { so.filters = list(v); }},
      {"scores",
       [&](auto&, auto& v) {
         so.scores.clear();
         for (const auto& name : list(v)) so.scores.push_back({name, 1});
       }},
      {"permit", [&](auto&, auto& v) { so.permit = list(v); }},
      {"maxFeasibleNodes",
       [&](auto& w, auto& v) {
         try {
           so.max_feasible_nodes = std::stoi(v);
         } catch (const std::exception&) {
           throw ScenarioError(w, fmt::format("'{}' is not a whole number", v));
         }
       }},
      {"schedulingLatency", [&](auto& w, auto& v) { s.scheduling_latency = duration(w, v); }},
  };
  apply_options("spec.scheduler.options", sc.scheduler.options, scheduler_opts);
  if (const auto problems = so.problems(); !problems.empty()) {
    // Each at the option a scenario writes (a list option's entry is named in the message).
    std::vector<ScenarioError::Problem> found;
    for (const auto& p : problems) {
      std::string detail = p.message;
      if (p.entry) {
        detail = fmt::format("entry {}{}{}: {}", *p.entry + 1, p.entry_field.empty() ? "" : ".",
                             p.entry_field, p.message);
      }
      found.push_back({"spec.scheduler.options." + p.option, std::move(detail)});
    }
    throw ScenarioError(std::move(found));
  }
}

// spec.faults: a named profile or custom rates (faults-and-validation §1.6-1.7).
void fault_settings(const scenarios::Scenario& sc, WorldSettings& s) {
  const auto& f = sc.faults;
  if (f.profile == "custom") {
    s.faults = *named_fault_profile("h100-frontier");  // its cause mix and repair model
    s.faults.name = "custom";
    s.faults.node_failures_per_node_day = f.rates->node_failures_per_node_day;
    s.faults.switch_failures_per_switch_day = f.rates->switch_failures_per_switch_day;
    s.faults.software_failures_per_job_hour = f.rates->software_failures_per_job_hour;
  } else {
    const auto p = named_fault_profile(f.profile);
    if (!p) {
      throw ScenarioError("spec.faults.profile",
                          fmt::format("'{}' is not a known profile (allowed: {}, custom)",
                                      f.profile, fmt::join(fault_profile_names(), ", ")));
    }
    s.faults = *p;
  }
  if (f.weibull_shape) s.faults.weibull_shape = *f.weibull_shape;
}

}  // namespace

WorldSettings settings_from_scenario(const scenarios::Scenario& sc) {
  WorldSettings s;
  controller_settings(sc, s);
  scheduler_settings(sc, s);
  fault_settings(sc, s);
  return s;
}

}  // namespace t9k::sim
