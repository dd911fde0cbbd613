// Restart policies and budgets (§2), success and failure rules (§3.1, §11 Q2), the master's verdict
// (§2.3, §5) and the cleanup of a finished job (§6.2).
#include "controllers/detail/slots.hpp"

#include <algorithm>
#include <iterator>
#include <span>

#include <fmt/format.h>

namespace t9k::controllers::detail {

namespace {

bool is_retryable(std::int32_t code, const ControllerOptions& opt) {  // §2.2
  if (opt.retryable_exit_codes == ControllerOptions::RetryableExitCodes::KubeflowAtLeast128)
    return code >= 128;
  const auto& set = opt.t9k_retryable_exit_codes;
  return std::find(set.begin(), set.end(), code) != set.end();
}

// One `"worker":["0","1"]` entry of a rule: string ranks, as in the UC failure message (§3.1).
void append_rule_entry(std::string& out, std::string_view type,
                       std::span<const std::int32_t> ranks) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "\"{}\":[", type);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    fmt::format_to(it, "{}\"{}\"", i ? "," : "", ranks[i]);
  out += ']';
}

// {"worker":["0"]}: the whole rule (FinishRule keeps its types ordered).
std::string rule_text(const std::map<std::string, std::vector<std::int32_t>>& replicas) {
  std::string out = "{";
  bool first_type = true;
  for (const auto& [type, ranks] : replicas) {
    if (!first_type) out += ",";
    first_type = false;
    append_rule_entry(out, type, ranks);
  }
  return out + "}";
}

std::string master_failure_message(const JobView& v,
                                   const Pod& p) {  // UC DeepSpeedJob example (§1.2)
  if (p.deletion_reason == DeletionReason::MaxDuration) {
    return fmt::format("{} {} has failed: {} exceeded the queue's maxDuration", v.kind_name,
                       v.meta->name, p.metadata.name);
  }
  return fmt::format("{} {} has failed: {} failed with exit code {}", v.kind_name, v.meta->name,
                     p.metadata.name, exit_code_of(p));
}

}  // namespace

// Does the policy ask for a new pod after this pod ended? (§2.2)
bool policy_restarts(RestartPolicyType policy, const Pod& p, const ControllerOptions& opt) {
  if (p.phase == PodPhase::Succeeded) return policy == RestartPolicyType::Always;
  switch (policy) {
    case RestartPolicyType::Never:
      return false;
    case RestartPolicyType::OnFailure:
    case RestartPolicyType::Always:
      return true;
    case RestartPolicyType::ExitCode:
      return is_retryable(exit_code_of(p), opt);
  }
  return false;
}

// §11 Q5: the n-th restart of a rank waits min(cap, base * 2^(n-1)).
SimDuration backoff_delay(std::int32_t restarts_so_far, const ControllerOptions& opt) {
  SimDuration d = opt.restart_backoff_base;
  for (std::int32_t i = 0; i < restarts_so_far && d < opt.restart_backoff_cap; ++i) d *= 2;
  return std::min(d, opt.restart_backoff_cap);
}

// Deletions once the job is terminal (level-based: repeated every reconcile until done).
// §6.1, §11 Q6: on a deadline the unfinished pods are stopped whatever the policy;
// §6.2: All deletes every pod, Unfinished the Pending/Running/Unknown ones, None nothing.
void terminal_deletions(Slots& slots, model::CleanUpPolicy policy, bool deadline) {
  for (auto& s : slots) {
    s.create = false;
    s.del.reset();
    if (!s.pod || terminating(*s.pod)) continue;
    const bool unfinished = s.pod->phase == PodPhase::Pending ||
                            s.pod->phase == PodPhase::Running || s.pod->phase == PodPhase::Unknown;
    if (deadline && unfinished) {
      s.del = DeletionReason::Deadline;
    } else if (policy == model::CleanUpPolicy::All ||
               (policy == model::CleanUpPolicy::Unfinished && unfinished)) {
      s.del = DeletionReason::Cleanup;
    }
  }
}

// §3.1 and §11 Q2 for GenericJob; failure is evaluated before success.
std::optional<Verdict> decide_generic(const JobView& v, const Slots& slots) {
  auto find = [&](const std::string& type, std::int32_t rank) -> const Slot* {
    for (const auto& s : slots) {
      if (s.desired && v.types[s.type_index].type == type && s.rank == rank) return &s;
    }
    return nullptr;
  };
  auto all_named = [&](const model::FinishRule& rule, Outcome want) {
    bool any = false;
    for (const auto& [type, ranks] : rule.replicas) {
      for (auto rank : ranks) {
        const Slot* s = find(type, rank);
        if (!s || s->outcome != want) return false;
        any = true;
      }
    }
    return any;  // an empty rule names nothing and is never fulfilled
  };
  const auto& spec = *v.generic;
  const Slot* first_failed = nullptr;
  for (const auto& s : slots) {
    if (s.desired && s.outcome == Outcome::FailedFinal) {
      first_failed = &s;
      break;
    }
  }
  if (spec.failure_rules.empty()) {
    if (first_failed) {  // §11 Q2: any replica failing terminally; the message names it as a rule
      std::string text = "The job is failed with rule: {";
      append_rule_entry(text, v.types[first_failed->type_index].type,
                        std::span(&first_failed->rank, 1));
      text += '}';
      return Verdict{JobPhase::Failed, fixed("Failed"), std::move(text)};
    }
  } else {
    for (const auto& rule : spec.failure_rules) {
      if (all_named(rule, Outcome::FailedFinal)) {
        return Verdict{JobPhase::Failed, fixed("Failed"),
                       "The job is failed with rule: " + rule_text(rule.replicas)};
      }
    }
  }
  // UC-1500: restarts exhausted and no success rule can still be fulfilled.
  if (first_failed) {
    bool reachable = false;
    for (const auto& rule : spec.success_rules) {
      bool ok = !rule.replicas.empty();
      for (const auto& [type, ranks] : rule.replicas) {
        for (auto rank : ranks) {
          const Slot* s = find(type, rank);
          if (!s || s->outcome == Outcome::FailedFinal) ok = false;
        }
      }
      reachable = reachable || ok;
    }
    if (!reachable) {  // with no successRules the default "all replicas" rule is unreachable too
      return Verdict{
          JobPhase::Failed, fixed("Failed"),
          fmt::format("The job is failed because the restarts of {} are exhausted and no success "
                      "rule can be fulfilled",
                      first_failed->name)};
    }
  }
  if (spec.success_rules.empty()) {  // §11 Q2: all replicas succeeded
    bool any = false, all = true;
    for (const auto& s : slots) {
      if (!s.desired) continue;
      any = true;
      all = all && s.outcome == Outcome::SucceededFinal;
    }
    if (any && all) return Verdict{JobPhase::Succeeded, {}, fixed(kMsgSucceeded)};
  } else {
    for (const auto& rule : spec.success_rules) {
      if (all_named(rule, Outcome::SucceededFinal)) {
        return Verdict{JobPhase::Succeeded, {}, fixed(kMsgSucceeded)};
      }
    }
  }
  return std::nullopt;
}

// §4.1, §5, §11 Q7 for PyTorchTrainingJob and DeepSpeedJob.
std::optional<Verdict> decide_master(const JobView& v, const Slots& slots,
                                     const ControllerOptions& opt, const Pod* backoff_limit_pod) {
  const Slot* master = nullptr;
  for (const auto& s : slots) {
    if (s.desired && s.type_index == 0 && s.rank == 0) master = &s;
  }
  if (master && master->outcome == Outcome::FailedFinal) {
    return Verdict{JobPhase::Failed, fixed("Failed"), master_failure_message(v, *master->pod)};
  }
  if (opt.permanent_failure_scope == ControllerOptions::PermanentFailureScope::AnyReplica) {
    for (const auto& s : slots) {
      if (s.desired && s.outcome == Outcome::FailedFinal) {
        return Verdict{JobPhase::Failed, fixed("Failed"), master_failure_message(v, *s.pod)};
      }
    }
  }
  if (backoff_limit_pod) {  // §11 Q4 Kubeflow option
    return Verdict{
        JobPhase::Failed, fixed("BackoffLimitExceeded"),
        fmt::format("{} {} has failed because it has reached the specified backoff limit",
                    v.kind_name, v.meta->name)};
  }
  if (master && master->outcome == Outcome::SucceededFinal) {
    return Verdict{JobPhase::Succeeded, {}, fixed(kMsgSucceeded)};
  }
  if (v.elastic && opt.elastic_success == ControllerOptions::ElasticSuccess::AnyReplica) {
    for (const auto& s : slots) {
      if (s.desired && s.outcome == Outcome::SucceededFinal) {
        return Verdict{JobPhase::Succeeded, {}, fixed(kMsgSucceeded)};
      }
    }
  }
  return std::nullopt;
}

}  // namespace t9k::controllers::detail
