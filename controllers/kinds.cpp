#include "controllers/kinds.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "controllers/engine.hpp"

namespace t9k::controllers {
namespace {

template <class T>
const T& job_as(const ReconcileInput& in, std::string_view kind) {
  const T* job = std::get_if<T>(&in.job);
  if (!job)
    throw std::invalid_argument(std::string(kind) + " controller given a " +
                                std::string(model::to_string(model::kind_of(in.job))));
  return *job;
}

// §4.3, §11 Q8: target = clamp(expectedReplicas, min, max), at least 1 (the master).
std::int32_t elastic_target(const model::ElasticConfig& e) {
  const std::int32_t lo = std::max(e.min_replicas, 0);
  const std::int32_t hi = std::max(e.max_replicas, lo);
  return std::max(std::clamp(e.expected_replicas, lo, hi), 1);
}

// Rank 0 of the first type is the master (§4.1) and is never scaled away: if the largest
// remainder split leaves the first type empty, it takes one replica from the largest share.
void keep_master(std::vector<std::int32_t>& shares) {
  if (shares.empty() || shares[0] > 0) return;
  auto largest = std::max_element(shares.begin(), shares.end());
  if (*largest == 0) return;
  --*largest;
  ++shares[0];
}

}  // namespace

// ---- GenericJob (§3) ----

std::string_view GenericJobController::api_version() const { return model::kBatchApiVersion; }
std::string_view GenericJobController::kind() const { return "GenericJob"; }

ReconcileResult GenericJobController::reconcile(const ReconcileInput& in) const {
  const auto& job = job_as<model::GenericJob>(in, kind());
  detail::JobView v;
  v.kind = model::JobKind::GenericJob;
  v.kind_name = kind();
  v.meta = &job.metadata;
  v.status = &job.status;
  v.types.reserve(job.spec.replica_specs.size());
  for (const auto& r : job.spec.replica_specs) {
    v.types.push_back(detail::TypeView{r.type, r.replicas, r.replicas, r.restart_policy.policy,
                                       r.restart_policy.limit, r.template_.get()});
  }
  v.clean_up = job.spec.clean_up_policy;  // §3.3: top-level cleanUpPolicy, no runPolicy
  v.run_mode = job.spec.run_mode.get();
  v.scheduler = &job.spec.scheduler;
  v.generic = &job.spec;
  return detail::reconcile_job(v, in);
}

// ---- PyTorchTrainingJob (§4) ----

std::string_view PyTorchTrainingJobController::api_version() const {
  return model::kBatchApiVersion;
}
std::string_view PyTorchTrainingJobController::kind() const { return "PyTorchTrainingJob"; }

ReconcileResult PyTorchTrainingJobController::reconcile(const ReconcileInput& in) const {
  const auto& job = job_as<model::PyTorchTrainingJob>(in, kind());
  const auto& spec = job.spec;
  detail::JobView v;
  v.kind = model::JobKind::PyTorchTrainingJob;
  v.kind_name = kind();
  v.meta = &job.metadata;
  v.status = &job.status;
  // §4.3: elastic training is effective only in torchrun mode.
  v.elastic = spec.elastic && spec.elastic->enabled && spec.torchrun_config &&
              spec.torchrun_config->enabled;
  std::vector<std::int32_t> shares, mins;
  if (v.elastic) {
    std::vector<std::int32_t> weights;
    for (const auto& r : spec.replica_specs)
      weights.push_back(r.scaling_weight.value_or(1));  // §11 Q8
    v.elastic_target = elastic_target(*spec.elastic);
    v.elastic_min = std::min(std::max(spec.elastic->min_replicas, 0), v.elastic_target);
    shares = detail::split_by_weight(v.elastic_target, weights);
    mins = detail::split_by_weight(v.elastic_min, weights);
    keep_master(shares);
    keep_master(mins);
  }
  v.types.reserve(spec.replica_specs.size());
  for (std::size_t i = 0; i < spec.replica_specs.size(); ++i) {
    const auto& r = spec.replica_specs[i];
    const std::int32_t n = v.elastic ? shares[i] : r.replicas;
    v.types.push_back(detail::TypeView{r.type, n, v.elastic ? mins[i] : n, r.restart_policy, 0,
                                       r.template_.get()});
  }
  v.has_backoff_limit = true;
  v.backoff_limit = spec.run_policy.backoff_limit;
  v.active_deadline_seconds = spec.run_policy.active_deadline_seconds;
  v.clean_up = spec.run_policy.clean_up_policy;
  v.run_mode = spec.run_mode.get();
  v.scheduler = &spec.scheduler;
  v.tensorboard = spec.tensorboard_spec ? &*spec.tensorboard_spec : nullptr;
  v.training_container = "python";  // §4.2: the container named python, else the first
  return detail::reconcile_job(v, in);
}

// ---- DeepSpeedJob (§5) ----

std::string_view DeepSpeedJobController::api_version() const { return model::kBatchApiVersion; }
std::string_view DeepSpeedJobController::kind() const { return "DeepSpeedJob"; }

ReconcileResult DeepSpeedJobController::reconcile(const ReconcileInput& in) const {
  const auto& job = job_as<model::DeepSpeedJob>(in, kind());
  const auto& spec = job.spec;
  detail::JobView v;
  v.kind = model::JobKind::DeepSpeedJob;
  v.kind_name = kind();
  v.meta = &job.metadata;
  v.status = &job.status;
  v.elastic = spec.elastic && spec.elastic->enabled;
  std::int32_t replicas = spec.worker.replicas;
  if (v.elastic) {
    v.elastic_target = elastic_target(*spec.elastic);
    v.elastic_min = std::min(std::max(spec.elastic->min_replicas, 0), v.elastic_target);
    replicas = v.elastic_target;
  }
  // §5: one replica group, worker-0 runs the launcher and is the master.
  v.types.push_back(detail::TypeView{"worker", replicas, v.elastic ? v.elastic_min : replicas,
                                     spec.worker.restart_policy, 0, spec.worker.template_.get()});
  // slotsPerWorker: processes per worker, normally the worker's GPUs (§5). The pod's requests
  // are summed only when they are needed (a map built on every reconcile otherwise).
  if (spec.config->slots_per_worker) {
    v.slots_per_worker = *spec.config->slots_per_worker;
  } else {
    const auto gpus =
        model::get_resource(model::pod_requests(spec.worker.template_->spec), model::kResourceGpu);
    v.slots_per_worker = gpus.is_zero() ? 1 : static_cast<std::int32_t>(gpus.units_ceil());
  }
  v.has_backoff_limit = true;
  v.backoff_limit = spec.run_policy.backoff_limit;
  v.active_deadline_seconds = spec.run_policy.active_deadline_seconds;
  v.clean_up = spec.run_policy.clean_up_policy;
  v.run_mode = spec.run_mode.get();
  v.scheduler = &spec.scheduler;
  v.training_container = "worker";  // §5: the container named worker, else the first
  return detail::reconcile_job(v, in);
}

namespace detail {

std::vector<std::int32_t> split_by_weight(std::int32_t total,
                                          const std::vector<std::int32_t>& weights) {
  std::vector<std::int64_t> w(weights.begin(), weights.end());
  for (auto& x : w) x = std::max<std::int64_t>(x, 0);
  std::int64_t sum = std::accumulate(w.begin(), w.end(), std::int64_t{0});
  if (sum == 0) {  // all weights zero: split evenly
    std::fill(w.begin(), w.end(), 1);
    sum = static_cast<std::int64_t>(w.size());
  }
  std::vector<std::int32_t> out(w.size(), 0);
  if (w.empty() || total <= 0) return out;
  std::vector<std::int64_t> rem(w.size());
  std::int64_t given = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    out[i] = static_cast<std::int32_t>(total * w[i] / sum);
    rem[i] = total * w[i] % sum;
    given += out[i];
  }
  std::vector<std::size_t> order(w.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rem[a] > rem[b]; });
  for (std::size_t k = 0; given < total; ++k, ++given) ++out[order[k % order.size()]];
  return out;
}

}  // namespace detail

}  // namespace t9k::controllers
