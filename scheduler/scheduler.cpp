#include "scheduler/scheduler.hpp"

#include "scheduler/detail/cycle.hpp"

namespace t9k::scheduler {

std::string_view to_string(RejectReason r) {
  switch (r) {
    case RejectReason::QueueNotFound:
      return "QueueNotFound";
    case RejectReason::QueueClosed:
      return "QueueClosed";
    case RejectReason::QuotaExceeded:
      return "QuotaExceeded";
  }
  return "?";
}

Scheduler::Scheduler(SchedulerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
Scheduler::~Scheduler() = default;
Scheduler::Scheduler(Scheduler&&) noexcept = default;
Scheduler& Scheduler::operator=(Scheduler&&) noexcept = default;

const SchedulerOptions& Scheduler::options() const { return impl_->opt; }

Decisions Scheduler::schedule(const ClusterSnapshot& snapshot, model::SimTime now) {
  return impl_->run(snapshot, now);
}

std::vector<PendingReason> Scheduler::lazy_reasons(const ClusterSnapshot& snapshot) {
  return impl_->lazy_reasons(snapshot);
}

std::optional<Rejection> Scheduler::admit(const ClusterSnapshot& snapshot,
                                          const AdmissionRequest& request) const {
  const std::string qname = request.queue.empty() ? model::kDefaultQueue : request.queue;
  const auto q = snapshot.find_queue(qname);
  if (!q)
    return Rejection{request.pod_group, RejectReason::QueueNotFound,
                     "queue " + qname + " does not exist"};
  const auto& info = snapshot.queues()[static_cast<std::size_t>(*q)];
  if (info.closed)  // §8.8, §11 Q15: new workloads are refused; admitted ones continue
    return Rejection{request.pod_group, RejectReason::QueueClosed, "queue " + qname + " is closed"};
  if (impl_->opt.quota_mode == QuotaMode::RejectAtAdmission && info.has_quota) {
    for (const Dim d : info.quota_dims) {
      const auto& name = snapshot.resources().name(d);
      const auto& table = snapshot.resources();
      std::int64_t want = table.amount(d, model::get_resource(request.requests, name));
      // Shares of GPUs count as fractions of nvidia.com/gpu, as in the queue's `requested`.
      if (d == kDimGpu)
        want += model::get_resource(request.requests, model::kResourceGpuMilli).units_ceil();
      const std::int64_t used = at(info.requested, d);
      // As Kubernetes ResourceQuota: only the resources the new workload asks for are checked.
      if (want > 0 && used + want > at(info.quota, d))
        return Rejection{request.pod_group, RejectReason::QuotaExceeded,
                         "queue " + qname + " quota of " + name + " is " +
                             table.quantity(d, at(info.quota, d)).to_string() + "; " +
                             table.quantity(d, used).to_string() + " requested, " +
                             table.quantity(d, want).to_string() + " more asked"};
    }
  }
  return std::nullopt;
}

}  // namespace t9k::scheduler
