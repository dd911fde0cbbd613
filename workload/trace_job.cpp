// The job a trace record becomes (docs/traces.md "Mapping rules").
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "model/jobs.hpp"
#include "workload/trace_cursor.hpp"

namespace t9k::workload {

namespace m = t9k::model;
using kernel::SimDuration;
using scenarios::DurationDistribution;
using scenarios::TraceFormat;

void trace_job(const scenarios::TraceEntry& e, const scenarios::TraceData& d,
               const scenarios::TraceRecord& r, kernel::SimTime submit, bool t9k_scheduler,
               scenarios::JobSubmission& out, RecentTemplates* templates) {
  const auto& mp = d.mapping;
  out.submit_time = submit;
  out.source = m::numbered(d.file_name + ':', r.line);
  out.behaviour.run_time = DurationDistribution::constant(SimDuration{r.duration_us});
  if (r.failed) out.behaviour.failure.final_exit_code = 1;

  m::Text name = r.name >= 0 ? d.names[static_cast<std::size_t>(r.name)]
                             : m::Text(m::numbered(mp.name_prefix + '-', r.line));
  m::Text raw = r.name >= 0 ? m::Text(d.raw_name(r.name)) : m::Text(std::to_string(r.line));

  std::optional<m::T9kScheduler> sched;
  if (t9k_scheduler) {
    sched = m::T9kScheduler{};
    sched->queue = !e.queue.empty() ? e.queue : scenarios::group_queue(d, r.group);
    if (r.priority >= 0) sched->priority = r.priority;
    if (d.format == TraceFormat::AlibabaOpenB && r.group >= 0) {
      sched->priority =
          scenarios::openb_qos_class(d.groups[static_cast<std::size_t>(r.group)]).priority;
    }
  }

  if (d.format == TraceFormat::K8sExport) {
    out.job = d.objects[static_cast<std::size_t>(r.object)];
    std::visit(
        [&](auto& j) {
          if (!t9k_scheduler) {
            j.spec.scheduler.t9k_scheduler.reset();
          } else if (!e.queue.empty() && j.spec.scheduler.t9k_scheduler) {
            j.spec.scheduler.t9k_scheduler->queue = e.queue;
          }
        },
        out.job);
  } else {
    const m::JobKind kind = d.format == TraceFormat::AlibabaOpenB ? m::JobKind::GenericJob
                            : r.kind >= 0                         ? static_cast<m::JobKind>(r.kind)
                                                                  : mp.kind;
    const std::int32_t per =
        d.format == TraceFormat::AlibabaOpenB ? std::max(1, r.gpus) : mp.gpus_per_pod;
    const std::int32_t pods = r.gpus > 0 ? (r.gpus + per - 1) / per : 1;
    const std::int32_t pod_gpus = std::min(r.gpus, per);
    m::SchedulePolicy policy;
    policy.t9k_scheduler = std::move(sched);
    // The template is built here, then shared with the jobs before it that have an equal one.
    m::Shared<m::PodTemplateSpec>* slot = nullptr;
    m::PodTemplateSpec built;
    m::PodTemplateSpec* tpl = &built;
    switch (kind) {
      case m::JobKind::GenericJob: {
        auto& j = out.job.emplace<m::GenericJob>();
        j.spec.scheduler = std::move(policy);
        auto& rs = j.spec.replica_specs.emplace_back();
        rs.type = "worker";
        rs.replicas = pods;
        slot = &rs.template_;
        break;
      }
      case m::JobKind::PyTorchTrainingJob: {
        auto& j = out.job.emplace<m::PyTorchTrainingJob>();
        j.spec.scheduler = std::move(policy);
        auto& rs = j.spec.replica_specs.emplace_back();
        rs.type = "worker";
        rs.replicas = pods;
        slot = &rs.template_;
        break;
      }
      case m::JobKind::DeepSpeedJob: {
        auto& j = out.job.emplace<m::DeepSpeedJob>();
        j.spec.scheduler = std::move(policy);
        j.spec.worker.replicas = pods;
        slot = &j.spec.worker.template_;
        if (pod_gpus > 0) j.spec.config->slots_per_worker = pod_gpus;
        j.spec.config->run.python = std::vector<std::string>{"train.py"};
        // Workers other than the launcher run sshd and would hold their GPUs forever (§5).
        j.spec.run_policy.clean_up_policy = m::CleanUpPolicy::All;
        break;
      }
      case m::JobKind::Plugin:  // trace readers give the three T9k kinds only
        throw std::logic_error("trace_job: a trace record as a plugin's kind");
    }
    m::Container& c = tpl->spec.containers.emplace_back();
    c.name = "trace";
    c.image = mp.image;
    if (r.gpu_milli > 0) {
      c.resources.requests[m::kResourceGpuMilli] = m::Quantity::from_units(r.gpu_milli);
      c.resources.limits[m::kResourceGpuMilli] = m::Quantity::from_units(r.gpu_milli);
    } else if (pod_gpus > 0) {
      c.resources.requests[m::kResourceGpu] = m::Quantity::from_units(pod_gpus);
      c.resources.limits[m::kResourceGpu] = m::Quantity::from_units(pod_gpus);
    }
    if (r.cpu_milli > 0)
      c.resources.requests[m::kResourceCpu] = m::Quantity::from_milli(r.cpu_milli);
    if (r.memory_mib > 0) {
      // r.memory_mib Mi, as Quantity::parse("<n>Mi") reads it (and rejects it when it overflows).
      constexpr std::int64_t kMi = 1024 * 1024;
      c.resources.requests[m::kResourceMemory] =
          r.memory_mib <= INT64_MAX / 1000 / kMi
              ? m::Quantity::from_units(r.memory_mib * kMi)
              : m::Quantity::parse(m::numbered("", r.memory_mib) + "Mi");
    }
    if (r.gpu_spec >= 0) {
      const std::string& spec = d.gpu_specs[static_cast<std::size_t>(r.gpu_spec)];
      if (spec.find('|') == std::string::npos) {
        tpl->spec.node_selector[m::kLabelGpuModel] = spec;
      } else {
        tpl->spec.node_selector[scenarios::kLabelGpuSpecPrefix +
                                scenarios::sanitize_job_name(spec, "spec")] = "true";
      }
    }
    *slot = templates ? templates->share(std::move(built)) : m::Shared(std::move(built));
  }
  auto& meta = m::metadata_of(out.job);
  meta.name = std::move(name);
  static const m::LabelKey trace_id(scenarios::kAnnotationTraceId);  // interned once
  static const m::LabelKey trace_source(scenarios::kAnnotationTraceSource);
  auto& annotations = meta.annotations.edit();
  annotations[trace_id] = std::move(raw);
  annotations[trace_source] = out.source;
}

}  // namespace t9k::workload
