// Rules on typed objects: Kubernetes admission as faults-and-validation §3.3 lists it, the T9k
// API's documented constraints, and rules of our own, each marked "simulator policy" where no
// upstream source states it. The loader runs these after decoding; validate_object() runs them
// on objects built in code.
#include <algorithm>
#include <set>
#include <variant>

#include <fmt/format.h>

#include "scenarios/format/detail/decode.hpp"

namespace t9k::scenarios::detail {

namespace m = t9k::model;

namespace {

constexpr const char* kLabelRule =
    "a DNS-1123 label (lowercase letters, digits and '-', starting and ending with a letter or "
    "digit, at most 63 characters)";
constexpr const char* kPolicy = "simulator policy";

std::string at(const std::string& base, std::string_view rel) {
  if (base.empty()) return std::string(rel);
  if (!rel.empty() && rel.front() == '[') return base + std::string(rel);
  return child_path(base, rel);
}

// Kubernetes' IsExtendedResourceName: a domain-qualified name outside kubernetes.io.
bool is_extended_resource(const std::string& name) {
  const auto slash = name.find('/');
  if (slash == std::string::npos) return false;
  const std::string domain = name.substr(0, slash);
  return domain != "kubernetes.io" &&
         !(domain.size() > 14 && domain.compare(domain.size() - 14, 14, ".kubernetes.io") == 0);
}

class Checker {
 public:
  explicit Checker(Report& r) : r_(r) {}

  void name_label(const std::string& path, std::string_view value, bool required) {
    if (value.empty()) {
      if (required) r_.error(path, "required field is missing");
      return;
    }
    if (!is_dns1123_label(value)) {
      r_.error(path, fmt::format("found \"{}\"; allowed: {}", value, kLabelRule));
    }
  }

  void labels(const std::string& path, const m::Labels& labels, bool check_values) {
    for (const auto& [k, v] : labels) {
      const std::string p = child_path(path, k);
      if (!is_qualified_name(k)) {
        r_.error(p, fmt::format("found key \"{}\"; allowed: a qualified name ([prefix/]name; the "
                                "name at most 63 characters of letters, digits, '-', '_', '.')",
                                k));
      } else if (check_values && !is_label_value(v)) {
        r_.error(p, fmt::format("found \"{}\"; allowed: a label value (at most 63 characters of "
                                "letters, digits, '-', '_', '.', starting and ending with a "
                                "letter or digit)",
                                v));
      }
    }
  }

  void metadata(const std::string& base, const m::ObjectMeta& meta) {
    name_label(at(base, "metadata.name"), meta.name, true);
    name_label(at(base, "metadata.namespace"), meta.namespace_, false);
    labels(at(base, "metadata.labels"), meta.labels, true);
    labels(at(base, "metadata.annotations"), *meta.annotations, false);
  }

  void priority(const std::string& path, std::int32_t p) {
    // T9k documents [0, 100] (API T9kScheduler, QueueSpec); Kubernetes itself would allow up to
    // 1e9, hence "simulator policy" (faults-and-validation §3.3).
    if (p < 0 || p > 100) {
      r_.error(path, fmt::format("found {}; allowed: an integer in [0, 100] ({})", p, kPolicy));
    }
  }

  void scheduler(const std::string& base, const m::SchedulePolicy& s) {
    if (!s.t9k_scheduler) return;
    const std::string p = at(base, "spec.scheduler.t9kScheduler");
    name_label(child_path(p, "queue"), s.t9k_scheduler->queue, true);
    priority(child_path(p, "priority"), s.t9k_scheduler->priority);
  }

  void resources(const std::string& base, const m::ResourceRequirements& res) {
    for (const auto& [name, limit] : res.limits) {
      if (is_extended_resource(name) && limit.milli() % 1000 != 0) {
        r_.error(at(base, "limits." + name),
                 fmt::format("found {}; allowed: a whole number (extended resources cannot be "
                             "fractional)",
                             limit.to_string()));
      }
    }
    for (const auto& [name, request] : res.requests) {
      const std::string p = at(base, "requests." + name);
      if (is_extended_resource(name) && request.milli() % 1000 != 0) {
        r_.error(p, fmt::format("found {}; allowed: a whole number (extended resources cannot be "
                                "fractional)",
                                request.to_string()));
        continue;
      }
      const auto it = res.limits.find(name);
      if (it == res.limits.end()) continue;
      if (is_extended_resource(name) && it->second.milli() % 1000 != 0) continue;  // reported above
      if (is_extended_resource(name)) {
        if (request != it->second) {
          r_.error(p, fmt::format("found {} with limit {}; allowed: a request equal to its limit "
                                  "(extended resources cannot be overcommitted)",
                                  request.to_string(), it->second.to_string()));
        }
      } else if (request > it->second) {
        r_.error(p, fmt::format("found {}, more than its limit {}; allowed: a request <= its limit",
                                request.to_string(), it->second.to_string()));
      }
    }
  }

  void pod_template(const std::string& base, const m::PodTemplateSpec& t) {
    labels(at(base, "metadata.labels"), t.metadata.labels, true);
    labels(at(base, "spec.nodeSelector"), t.spec.node_selector, true);
    if (t.spec.containers.empty()) {
      r_.error(at(base, "spec.containers"), "found no containers; allowed: at least one container");
    }
    std::set<std::string> names;
    auto check = [&](const std::string& list, std::size_t i, const m::Container& c) {
      const std::string p = index_path(at(base, list), i);
      name_label(child_path(p, "name"), c.name, true);
      if (!c.name.empty() && !names.insert(c.name).second) {
        r_.error(child_path(p, "name"),
                 fmt::format("found \"{}\" again; allowed: container names unique within the pod",
                             c.name));
      }
      if (c.image.empty()) r_.error(child_path(p, "image"), "required field is missing");
      resources(child_path(p, "resources"), c.resources);
    };
    for (std::size_t i = 0; i < t.spec.init_containers.size(); ++i)
      check("spec.initContainers", i, t.spec.init_containers[i]);
    for (std::size_t i = 0; i < t.spec.containers.size(); ++i)
      check("spec.containers", i, t.spec.containers[i]);
    gpu_share(base, t);
  }

  // t9ksim.io/gpu-milli (simulator extension, docs/scheduler.md "Shared GPUs"): a share of one
  // GPU in thousandths. A pod asks for a share or for whole GPUs, not both, and its share (the
  // sum over its containers) is at most one GPU.
  void gpu_share(const std::string& base, const m::PodTemplateSpec& t) {
    std::int64_t share = 0;
    bool whole = false;
    for (std::size_t i = 0; i < t.spec.containers.size(); ++i) {
      const auto& res = t.spec.containers[i].resources;
      const auto q =
          m::get_resource(res.requests.count(m::kResourceGpuMilli) ? res.requests : res.limits,
                          m::kResourceGpuMilli);
      whole = whole || !m::get_resource(res.requests, m::kResourceGpu).is_zero() ||
              !m::get_resource(res.limits, m::kResourceGpu).is_zero();
      if (q.milli() % 1000 != 0) continue;  // reported as fractional
      const std::int64_t g = q.milli() / 1000;
      if (g < 0 || g > m::kGpuMilliPerGpu) {
        r_.error(
            at(index_path(at(base, "spec.containers"), i),
               std::string("resources.requests.") + m::kResourceGpuMilli),
            fmt::format("found {}; allowed: an integer in [0, 1000] (thousandths of one GPU)", g));
        return;
      }
      share += g;
    }
    if (share == 0) return;
    const std::string p = at(base, "spec.containers");
    if (whole) {
      r_.error(p,
               fmt::format(
                   "found requests of both {} and {}; allowed: whole GPUs or a share of one GPU, "
                   "not both",
                   m::kResourceGpu, m::kResourceGpuMilli));
    } else if (share > m::kGpuMilliPerGpu) {
      r_.error(p,
               fmt::format("found {} {} over the pod's containers; allowed: at most 1000 (one GPU)",
                           share, m::kResourceGpuMilli));
    }
  }

  // Replica types become part of pod names "<job>-<type>-<rank>" (spec §3.2), so they must be
  // DNS-1123 labels, and unique within the job.
  void replica_types(const std::string& base, const std::vector<std::string>& types) {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < types.size(); ++i) {
      const std::string p = child_path(index_path(at(base, "spec.replicaSpecs"), i), "type");
      name_label(p, types[i], true);
      if (!types[i].empty() && !seen.insert(types[i]).second) {
        r_.error(p, fmt::format("found \"{}\" again; allowed: replica types unique within the job",
                                types[i]));
      }
    }
  }

  void at_least_one_replica_spec(const std::string& base, std::size_t n) {
    // "There must be at least one replica defined for a Job" (API GenericJobSpec, §3.3).
    if (n == 0) {
      r_.error(at(base, "spec.replicaSpecs"),
               "found an empty list; allowed: at least one replica spec");
    }
  }

  // `types` with their replica counts, for debug/resume specs and finish rules.
  void run_mode(const std::string& base, const m::RunMode& mode,
                const std::vector<std::pair<std::string, std::int32_t>>& types) {
    auto known = [&](const std::string& t) {
      return std::any_of(types.begin(), types.end(), [&](const auto& p) { return p.first == t; });
    };
    const std::string allowed = type_list(types);
    for (std::size_t i = 0; i < mode.debug.replica_specs.size(); ++i) {
      const auto& t = mode.debug.replica_specs[i].type;
      const std::string p =
          child_path(index_path(at(base, "spec.runMode.debug.replicaSpecs"), i), "type");
      if (t.empty()) {
        r_.error(p, "required field is missing");
      } else if (!known(t)) {
        r_.error(p, fmt::format("found replica type \"{}\"; allowed: {}", t, allowed));
      }
    }
    for (std::size_t i = 0; i < mode.pause.resume_specs.size(); ++i) {
      const auto& t = mode.pause.resume_specs[i].type;
      const std::string p =
          child_path(index_path(at(base, "spec.runMode.pause.resumeSpecs"), i), "type");
      if (t.empty()) {
        r_.error(p, "required field is missing");
      } else if (!known(t)) {
        r_.error(p, fmt::format("found replica type \"{}\"; allowed: {}", t, allowed));
      }
    }
  }

  static std::string type_list(const std::vector<std::pair<std::string, std::int32_t>>& types) {
    std::string s;
    for (const auto& [t, n] : types) {
      if (!s.empty()) s += ", ";
      s += t;
    }
    return s.empty() ? "none (no replica specs)" : s;
  }

  void finish_rules(const std::string& list, const std::vector<m::FinishRule>& rules,
                    const std::vector<std::pair<std::string, std::int32_t>>& types) {
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const std::string p = index_path(list, i);
      if (rules[i].replicas.empty()) {
        r_.error(p, "found an empty rule; allowed: at least one replica type with ranks");
      }
      for (const auto& entry : rules[i].replicas) {
        // Not a structured binding: Clang 14 cannot capture one in the lambda below.
        const std::string& type = entry.first;
        const auto& ranks = entry.second;
        const std::string tp = child_path(p, type);
        const auto it = std::find_if(types.begin(), types.end(),
                                     [&](const auto& x) { return x.first == type; });
        if (it == types.end()) {
          r_.error(tp,
                   fmt::format("found replica type \"{}\"; allowed: {}", type, type_list(types)));
          continue;
        }
        if (ranks.empty()) {
          r_.error(tp, "found an empty list; allowed: at least one rank");
        }
        for (std::size_t k = 0; k < ranks.size(); ++k) {
          if (ranks[k] >= it->second) {
            r_.error(index_path(tp, k),
                     it->second == 0
                         ? fmt::format("found rank {}; allowed: no ranks ({} has replicas: 0)",
                                       ranks[k], type)
                         : fmt::format("found rank {}; allowed: ranks 0..{} ({} has replicas: {})",
                                       ranks[k], it->second - 1, type, it->second));
          }
        }
      }
    }
  }

  void elastic(const std::string& base, const std::optional<m::ElasticConfig>& e) {
    if (!e || !e->enabled) return;
    const std::string p = at(base, "spec.elastic");
    // None of these three is enforced upstream (faults-and-validation §3.3): simulator policy.
    if (e->min_replicas < 1) {
      r_.error(child_path(p, "minReplicas"),
               fmt::format("found {}; allowed: an integer > 0 when elastic is enabled ({})",
                           e->min_replicas, kPolicy));
      return;
    }
    if (e->max_replicas < e->min_replicas) {
      r_.error(child_path(p, "maxReplicas"),
               fmt::format(
                   "found {}, less than minReplicas {}; allowed: maxReplicas >= minReplicas ({})",
                   e->max_replicas, e->min_replicas, kPolicy));
      return;
    }
    if (e->expected_replicas < e->min_replicas || e->expected_replicas > e->max_replicas) {
      r_.error(child_path(p, "expectedReplicas"),
               fmt::format("found {}; allowed: an integer in [minReplicas {}, maxReplicas {}] ({})",
                           e->expected_replicas, e->min_replicas, e->max_replicas, kPolicy));
    }
  }

  void job_status(const std::string& base, const m::JobStatus& st) {
    for (std::size_t i = 0; i < st.tasks.size(); ++i) {
      if (st.tasks[i].type.empty()) {
        r_.error(child_path(index_path(at(base, "status.tasks"), i), "type"),
                 "required field is missing");
      }
    }
  }

  void generic(const std::string& base, const m::GenericJob& j) {
    metadata(base, j.metadata);
    scheduler(base, j.spec.scheduler);
    const auto& specs = j.spec.replica_specs;
    at_least_one_replica_spec(base, specs.size());
    std::vector<std::string> types;
    std::vector<std::pair<std::string, std::int32_t>> counts;
    for (const auto& rs : specs) {
      types.push_back(rs.type.str());
      counts.emplace_back(rs.type, rs.replicas);
    }
    replica_types(base, types);
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const std::string p = index_path(at(base, "spec.replicaSpecs"), i);
      // Decoding already refuses "ExitCode" for GenericJob; objects built in code get the same
      // rule.
      if (specs[i].restart_policy.policy == m::RestartPolicyType::ExitCode) {
        r_.error(child_path(p, "restartPolicy.policy"),
                 "found \"ExitCode\"; allowed: Always, OnFailure, Never");
      }
      pod_template(child_path(p, "template"), *specs[i].template_);
    }
    finish_rules(at(base, "spec.successRules"), j.spec.success_rules, counts);
    finish_rules(at(base, "spec.failureRules"), j.spec.failure_rules, counts);
    if (j.spec.service) {
      std::set<std::string> names;
      for (std::size_t i = 0; i < j.spec.service->ports.size(); ++i) {
        const auto& port = j.spec.service->ports[i];
        const std::string p = index_path(at(base, "spec.service.ports"), i);
        if (!port.name.empty() && !names.insert(port.name).second) {
          r_.error(child_path(p, "name"),
                   fmt::format("found \"{}\" again; allowed: port names unique within the service",
                               port.name));
        }
      }
    }
    run_mode(base, *j.spec.run_mode, counts);
    job_status(base, j.status);
  }

  void pytorch(const std::string& base, const m::PyTorchTrainingJob& j) {
    metadata(base, j.metadata);
    scheduler(base, j.spec.scheduler);
    const auto& specs = j.spec.replica_specs;
    at_least_one_replica_spec(base, specs.size());
    std::vector<std::string> types;
    std::vector<std::pair<std::string, std::int32_t>> counts;
    for (const auto& rs : specs) {
      types.push_back(rs.type);
      counts.emplace_back(rs.type, rs.replicas);
    }
    replica_types(base, types);
    for (std::size_t i = 0; i < specs.size(); ++i) {
      pod_template(child_path(index_path(at(base, "spec.replicaSpecs"), i), "template"),
                   *specs[i].template_);
    }
    elastic(base, j.spec.elastic);
    if (j.spec.elastic && j.spec.elastic->enabled &&
        !(j.spec.torchrun_config && j.spec.torchrun_config->enabled)) {
      r_.warning(at(base, "spec.elastic.enabled"),
                 "elastic training is effective only in torchrun mode (spec §4.3); "
                 "spec.torchrunConfig.enabled is not true");
    }
    if (j.spec.torchrun_config) {
      const std::string& ppn = j.spec.torchrun_config->proc_per_node;
      const bool number =
          !ppn.empty() && ppn.size() <= 6 &&
          std::all_of(ppn.begin(), ppn.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
          std::stoi(ppn) > 0;
      if (!number && ppn != "gpu" && ppn != "cpu" && ppn != "auto") {
        r_.error(
            at(base, "spec.torchrunConfig.procPerNode"),
            fmt::format("found \"{}\"; allowed: a positive integer, \"gpu\", \"cpu\" or \"auto\" "
                        "(torchrun --nproc-per-node)",
                        ppn));
      }
    }
    run_mode(base, *j.spec.run_mode, counts);
    job_status(base, j.status);
  }

  static int set_count(const m::RunType& run) {
    return static_cast<int>(run.python.has_value()) + static_cast<int>(run.module.has_value()) +
           static_cast<int>(run.exec.has_value());
  }

  void deepspeed(const std::string& base, const m::DeepSpeedJob& j) {
    metadata(base, j.metadata);
    scheduler(base, j.spec.scheduler);
    const auto& run = j.spec.config->run;
    // "Exactly one of the 3 choices should be set" (API RunType, §5). customCommand replaces
    // run; in debug mode the launcher never starts (§7.1), so run may be left out there.
    if (!j.spec.config->custom_command &&
        !(j.spec.run_mode->debug.enabled && set_count(run) == 0)) {
      std::vector<std::string> set;
      if (run.python) set.emplace_back("python");
      if (run.module) set.emplace_back("module");
      if (run.exec) set.emplace_back("exec");
      const std::string p = at(base, "spec.config.run");
      if (set.empty()) {
        r_.error(p,
                 "found none of python, module, exec; allowed: exactly one of them, or "
                 "spec.config.customCommand");
      } else if (set.size() > 1) {
        std::string found;
        for (std::size_t i = 0; i < set.size(); ++i) found += (i ? " and " : "") + set[i];
        r_.error(p, fmt::format("found {}; allowed: exactly one of python, module, exec", found));
      }
    }
    pod_template(at(base, "spec.worker.template"), *j.spec.worker.template_);
    elastic(base, j.spec.elastic);
    run_mode(base, *j.spec.run_mode, {{"worker", j.spec.worker.replicas}});
    job_status(base, j.status);
  }

  void selector(const std::string& path, const m::LabelSelector& s) {
    labels(child_path(path, "matchLabels"), s.match_labels, true);
    for (std::size_t i = 0; i < s.match_expressions.size(); ++i) {
      const auto& e = s.match_expressions[i];
      const std::string p = index_path(child_path(path, "matchExpressions"), i);
      if (!is_qualified_name(e.key)) {
        r_.error(child_path(p, "key"),
                 fmt::format("found \"{}\"; allowed: a qualified label key", e.key));
      }
      const bool needs_values =
          e.op == m::SelectorOperator::In || e.op == m::SelectorOperator::NotIn;
      if (needs_values && e.values.empty()) {
        r_.error(child_path(p, "values"),
                 fmt::format("found an empty list; allowed: at least one value for operator {}",
                             m::to_string(e.op)));
      } else if (!needs_values && !e.values.empty()) {
        r_.error(child_path(p, "values"),
                 fmt::format("found {} values; allowed: no values for operator {}", e.values.size(),
                             m::to_string(e.op)));
      }
    }
  }

  void queue(const std::string& base, const m::Queue& q) {
    metadata(base, q.metadata);
    priority(at(base, "spec.priority"), q.spec.priority);
    if (q.spec.node_selector) selector(at(base, "spec.nodeSelector"), *q.spec.node_selector);
    if (q.spec.namespace_selector)
      selector(at(base, "spec.namespaceSelector"), *q.spec.namespace_selector);
  }

  void pod_group(const std::string& base, const m::PodGroup& g) {
    metadata(base, g.metadata);
    priority(at(base, "spec.priority"), g.spec.priority);
    name_label(at(base, "spec.queue"), g.spec.queue, true);
    std::set<std::string> names;
    for (std::size_t i = 0; i < g.spec.roles.size(); ++i) {
      const std::string p = child_path(index_path(at(base, "spec.roles"), i), "name");
      if (!g.spec.roles[i].name.empty() && !names.insert(g.spec.roles[i].name.str()).second) {
        r_.error(p,
                 fmt::format("found \"{}\" again; allowed: role names unique within the PodGroup",
                             g.spec.roles[i].name));
      }
    }
  }

 private:
  Report& r_;
};

}  // namespace

void check_object(Report& r, const Object& object, const std::string& base) {
  Checker c(r);
  std::visit(
      [&](const auto& o) {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, m::GenericJob>) c.generic(base, o);
        if constexpr (std::is_same_v<T, m::PyTorchTrainingJob>) c.pytorch(base, o);
        if constexpr (std::is_same_v<T, m::DeepSpeedJob>) c.deepspeed(base, o);
        if constexpr (std::is_same_v<T, m::Queue>) c.queue(base, o);
        if constexpr (std::is_same_v<T, m::PodGroup>) c.pod_group(base, o);
        // A plugin's kind: only its metadata is the simulator's to check.
        if constexpr (std::is_same_v<T, m::PluginJob>) c.metadata(base, o.metadata);
      },
      object);
}

}  // namespace t9k::scenarios::detail

namespace t9k::scenarios {

std::vector<Diagnostic> validate_object(const Object& object, const std::string& file) {
  std::vector<Diagnostic> out;
  detail::Report r(file, out);
  try {
    detail::check_object(r, object, "");
  } catch (const detail::BudgetExceeded&) {
  }
  return out;
}

}  // namespace t9k::scenarios

namespace t9k::scenarios::detail {

std::vector<TemplateAt> templates_of(const model::Job& job) {
  std::vector<TemplateAt> out;
  std::visit(
      [&](const auto& j) {
        using T = std::decay_t<decltype(j)>;
        if constexpr (std::is_same_v<T, model::DeepSpeedJob>) {
          out.push_back({j.spec.worker.template_.get(), "spec.worker.template"});
        } else {
          for (std::size_t i = 0; i < j.spec.replica_specs.size(); ++i) {
            out.push_back({j.spec.replica_specs[i].template_.get(),
                           fmt::format("spec.replicaSpecs[{}].template", i)});
          }
        }
      },
      job);
  return out;
}

}  // namespace t9k::scenarios::detail

namespace t9k::scenarios {

using detail::templates_of;

std::vector<Diagnostic> lint_objects(const std::vector<LoadedObject>& objects) {
  std::vector<Diagnostic> out;
  for (const auto& lo : objects) {
    if (!is_job(lo.object)) continue;
    const model::Job job = to_job(lo.object);
    const std::string base = lo.path.empty() ? "" : lo.path + ".";
    const auto warn = [&](const std::string& path, std::string message) {
      out.push_back(Diagnostic{Severity::Warning, lo.file, lo.line, 0, lo.document, base + path,
                               std::move(message)});
    };
    // §5: a DeepSpeedJob's workers other than the launcher run sshd; when the launcher ends they
    // keep their accelerators until cleanUpPolicy removes them (222 of 543 GPU-hours idle in one
    // shipped example).
    if (const auto* ds = std::get_if<model::DeepSpeedJob>(&job)) {
      if (ds->spec.worker.replicas > 1 &&
          ds->spec.run_policy.clean_up_policy == model::CleanUpPolicy::None) {
        warn("spec.runPolicy.cleanUpPolicy",
             fmt::format("a DeepSpeedJob with {} workers and cleanUpPolicy None (the default): "
                         "when the launcher "
                         "ends, the other workers' sshd pods keep their resources until the job is "
                         "deleted; set "
                         "cleanUpPolicy: All (or Unfinished)",
                         ds->spec.worker.replicas));
      }
    }
    // An elastic PyTorchTrainingJob without torchrun is warned about by the loader itself (§4.3).
    // §8: the T9k scheduler places and counts quota by requests; a container without any takes
    // nothing from its node or queue, so nodes can be overcommitted without anyone seeing it.
    if (model::scheduler_of(job).t9k_scheduler) {
      for (const auto& t : templates_of(job)) {
        for (std::size_t c = 0; c < t.tpl->spec.containers.size(); ++c) {
          const auto& res = t.tpl->spec.containers[c].resources;
          if (res.requests.empty() && res.limits.empty()) {
            warn(fmt::format("{}.spec.containers[{}].resources", t.path, c),
                 "no resource requests or limits under the T9k scheduler: the pod takes no "
                 "capacity from its "
                 "node or quota from its queue, so nodes can be overcommitted; request what it "
                 "uses");
          }
        }
      }
    }
  }
  return out;
}

}  // namespace t9k::scenarios
