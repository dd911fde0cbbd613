// Synthetic workload generators (docs/scenario-format.md "generators"): arrival processes,
// bursts and a weighted class mix, each quantity drawn from its own named stream.
//
// Streams of generator G (docs/simulation-model.md "Generated workload"):
//   generators/G/arrivals                   gaps, or candidate times of a profile
//   generators/G/thinning                   acceptance of profile candidates
//   generators/G/burst-size                 one draw per burst
//   generators/G/class                      one draw per job, only with two or more classes
//   generators/G/classes/C/<quantity>       one draw per job of class C, in C's own job order
#include "workload/generator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "kernel/time.hpp"

namespace t9k::workload {

using kernel::SimDuration;
using kernel::SimTime;
namespace m = t9k::model;

namespace {

// Integer ranges (scenarios/format/decode_generators.cpp checks choices against the same bounds).
constexpr std::int64_t kMaxReplicas = 10000;
constexpr std::int64_t kMaxGpus = model::kMaxGpusPerObject;
constexpr std::int64_t kMaxLimit = 1000000;
constexpr std::int64_t kMaxBurst = 100000;

// Seconds to whole microseconds; non-positive or NaN draws are 0, huge ones capped at 1e12 s.
SimDuration to_duration(double seconds) {
  if (!(seconds > 0)) return SimDuration{0};
  return SimDuration{static_cast<std::int64_t>(std::llround(std::min(seconds, 1e12) * 1e6))};
}

// Rounded to nearest (halves away from zero) and clamped to [lo, hi]; NaN gives lo.
std::int64_t draw_int(const scenarios::IntDistribution& d, kernel::Rng& r, std::int64_t lo,
                      std::int64_t hi) {
  if (d.real) {
    const double x = std::round((*d.real)(r));
    if (!(x >= static_cast<double>(lo))) return lo;
    if (x >= static_cast<double>(hi)) return hi;
    return static_cast<std::int64_t>(x);
  }
  std::size_t i = 0;
  if (d.choices.size() > 1) {
    std::vector<double> w;
    w.reserve(d.choices.size());
    for (const auto& c : d.choices) w.push_back(c.second);
    i = kernel::Categorical(w)(r);
  }
  return std::clamp(d.choices.at(i).first, lo, hi);
}

const std::string& draw_name(const scenarios::ChoiceDistribution& d, kernel::Rng& r) {
  if (d.choices.size() == 1) return d.choices.front().first;
  std::vector<double> w;
  for (const auto& c : d.choices) w.push_back(c.second);
  return d.choices.at(kernel::Categorical(w)(r)).first;
}

std::int32_t to_int32(std::int64_t v) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, INT32_MIN, INT32_MAX));
}

// Every pod template of a job, with the replica type it belongs to, to edit (its own copy).
template <class F>
void for_each_template(m::Job& job, F&& f) {
  if (auto* g = std::get_if<m::GenericJob>(&job)) {
    for (auto& r : g->spec.replica_specs) f(r.type.str(), r.template_.edit());
  } else if (auto* p = std::get_if<m::PyTorchTrainingJob>(&job)) {
    for (auto& r : p->spec.replica_specs) f(r.type, r.template_.edit());
  } else {
    f(std::string("worker"), std::get<m::DeepSpeedJob>(job).spec.worker.template_.edit());
  }
}

std::int32_t* replicas_of(m::Job& job, const std::string& type) {
  if (auto* g = std::get_if<m::GenericJob>(&job)) {
    for (auto& r : g->spec.replica_specs) {
      if (r.type == type) return &r.replicas;
    }
  } else if (auto* p = std::get_if<m::PyTorchTrainingJob>(&job)) {
    for (auto& r : p->spec.replica_specs) {
      if (r.type == type) return &r.replicas;
    }
  } else {
    return &std::get<m::DeepSpeedJob>(job).spec.worker.replicas;
  }
  return nullptr;
}

// GPUs per pod: every container that asks for nvidia.com/gpu gets `n` where it asks (requests
// and limits stay equal, as Kubernetes requires); a template that asks for none gets `n` as a
// limit on the first container of the varied replica type. DeepSpeed slotsPerWorker and a
// numeric torchrun procPerNode that matched the template's GPUs follow.
void set_gpus(m::Job& job, const std::string& type, std::int64_t n) {
  const auto q = m::Quantity::from_units(n);
  std::int64_t before = -1;
  for_each_template(job, [&](const std::string&, m::PodTemplateSpec& t) {
    for (auto& c : t.spec.containers) {
      for (auto* list : {&c.resources.requests, &c.resources.limits}) {
        const auto it = list->find(m::kResourceGpu);
        if (it == list->end()) continue;
        if (before < 0) before = it->second.units_ceil();
        it->second = q;
      }
    }
  });
  if (before < 0) {
    for_each_template(job, [&](const std::string& t, m::PodTemplateSpec& tpl) {
      if (t == type && !tpl.spec.containers.empty() && before < 0) {
        tpl.spec.containers.front().resources.limits[m::kResourceGpu] = q;
        before = 0;
      }
    });
    return;
  }
  if (auto* d = std::get_if<m::DeepSpeedJob>(&job)) {
    auto& slots = d->spec.config->slots_per_worker;
    if (slots && *slots == before && n > 0) slots = to_int32(n);
  }
  if (auto* p = std::get_if<m::PyTorchTrainingJob>(&job)) {
    if (p->spec.torchrun_config &&
        p->spec.torchrun_config->proc_per_node == std::to_string(before) && n > 0) {
      p->spec.torchrun_config->proc_per_node = std::to_string(n);
    }
  }
}

}  // namespace

// The streams of one class and how many jobs it has made.
struct GeneratorCursor::ClassState {
  std::int64_t index = 0;
  kernel::Rng work, replicas, elastic_min, elastic_max, elastic_expected, gpus, checkpoint,
      restart_policy, restart_limit, backoff_limit, clean_up, deadline, hazard;
  ClassState(const kernel::RngStreams& s, const std::string& base)
      : work(s.stream(base + "work")),
        replicas(s.stream(base + "replicas")),
        elastic_min(s.stream(base + "elastic-min")),
        elastic_max(s.stream(base + "elastic-max")),
        elastic_expected(s.stream(base + "elastic-expected")),
        gpus(s.stream(base + "gpus")),
        checkpoint(s.stream(base + "checkpoint-interval")),
        restart_policy(s.stream(base + "restart-policy")),
        restart_limit(s.stream(base + "restart-limit")),
        backoff_limit(s.stream(base + "backoff-limit")),
        clean_up(s.stream(base + "clean-up-policy")),
        deadline(s.stream(base + "active-deadline")),
        hazard(s.stream(base + "hazard")) {}
};

GeneratorCursor::GeneratorCursor(const scenarios::GeneratorEntry& g,
                                 const kernel::RngStreams& streams, SimTime horizon,
                                 std::string default_namespace)
    : g_(&g),
      arrivals_(streams.stream("generators/" + g.name + "/arrivals")),
      thinning_(streams.stream("generators/" + g.name + "/thinning")),
      burst_size_(streams.stream("generators/" + g.name + "/burst-size")),
      class_choice_(streams.stream("generators/" + g.name + "/class")),
      horizon_(horizon),
      t_(g.start),
      default_namespace_(std::move(default_namespace)) {
  std::vector<double> weights;
  for (const auto& c : g.classes) {
    classes_.emplace_back(streams, "generators/" + g.name + "/classes/" + c.name + "/");
    weights.push_back(c.weight);
  }
  if (g.classes.size() > 1) mix_.emplace(weights);
  if (g.arrivals.kind == scenarios::ArrivalKind::Profile) {
    const auto& a = g.arrivals;
    const double h =
        a.hour_of_day.empty() ? 1 : *std::max_element(a.hour_of_day.begin(), a.hour_of_day.end());
    const double d =
        a.day_of_week.empty() ? 1 : *std::max_element(a.day_of_week.begin(), a.day_of_week.end());
    max_rate_per_hour_ = a.rate_per_hour * h * d;
  }
  if (g.classes.empty()) done_ = true;
}

GeneratorCursor::~GeneratorCursor() = default;
GeneratorCursor::GeneratorCursor(GeneratorCursor&&) noexcept = default;

double GeneratorCursor::rate_per_hour(SimTime t) const {
  const auto& a = g_->arrivals;
  const std::int64_t us =
      std::max<std::int64_t>(0, t.time_since_epoch().count()) + a.week_offset.count();
  double r = a.rate_per_hour;
  if (!a.hour_of_day.empty())
    r *= a.hour_of_day[static_cast<std::size_t>((us / kernel::kMicrosPerHour) % 24)];
  if (!a.day_of_week.empty())
    r *= a.day_of_week[static_cast<std::size_t>((us / kernel::kMicrosPerDay) % 7)];
  return r;
}

bool GeneratorCursor::past_end(SimTime t) const {
  return t > horizon_ || (g_->stop && t > *g_->stop);
}

std::optional<SimTime> GeneratorCursor::next_arrival() {
  const auto& a = g_->arrivals;
  switch (a.kind) {
    case scenarios::ArrivalKind::Interarrival:
      t_ += to_duration(a.interarrival.seconds(arrivals_) * a.gap_scale);
      break;
    case scenarios::ArrivalKind::Poisson:
      t_ += to_duration(kernel::Exponential(a.rate_per_hour / 3600)(arrivals_));
      break;
    case scenarios::ArrivalKind::Profile: {
      // Lewis-Shedler thinning: candidates of a Poisson process at the largest rate, each kept
      // with probability rate(t) / max. Exact for the piecewise-constant profile (up to the
      // microsecond clock); no time steps.
      const kernel::Exponential gap(max_rate_per_hour_ / 3600);
      while (true) {
        t_ += to_duration(gap(arrivals_));
        if (past_end(t_)) break;
        if (thinning_.uniform01() * max_rate_per_hour_ < rate_per_hour(t_)) break;
      }
      break;
    }
    case scenarios::ArrivalKind::Times:
      while (time_index_ < a.times.size() && a.times[time_index_] < g_->start) ++time_index_;
      if (time_index_ >= a.times.size()) return std::nullopt;
      t_ = a.times[time_index_++];
      break;
  }
  if (past_end(t_)) return std::nullopt;
  return t_;
}

scenarios::JobSubmission GeneratorCursor::make_job(std::size_t cls, SimTime at) {
  const scenarios::JobClass& c = g_->classes[cls];
  ClassState& st = classes_[cls];
  scenarios::JobSubmission s;
  s.job = c.template_job;
  s.submit_time = at;
  s.behaviour = c.behaviour;
  s.source = fmt::format("generator {} class {}", g_->name, c.name);
  auto& meta = m::metadata_of(s.job);
  meta.name = fmt::format("{}-{}", c.prefix, st.index++);
  if (meta.namespace_.empty()) meta.namespace_ = default_namespace_;
  // The amount of work is drawn here and fixed, so the expanded workload shows it exactly.
  if (s.behaviour.run_time) {
    s.behaviour.run_time = scenarios::DurationDistribution::constant(
        to_duration(s.behaviour.run_time->seconds(st.work)));
  } else if (s.behaviour.work) {
    s.behaviour.work =
        scenarios::DurationDistribution::constant(to_duration(s.behaviour.work->seconds(st.work)));
  }
  if (c.replicas) {
    if (auto* r = replicas_of(s.job, c.replica_type))
      *r = to_int32(draw_int(*c.replicas, st.replicas, 1, kMaxReplicas));
  }
  if (c.elastic) {
    std::optional<m::ElasticConfig>* e = nullptr;
    if (auto* p = std::get_if<m::PyTorchTrainingJob>(&s.job)) e = &p->spec.elastic;
    if (auto* d = std::get_if<m::DeepSpeedJob>(&s.job)) e = &d->spec.elastic;
    if (e) {
      if (!*e || !(*e)->enabled) {
        const std::int32_t n = std::max(
            1, replicas_of(s.job, c.replica_type) ? *replicas_of(s.job, c.replica_type) : 1);
        *e = m::ElasticConfig{true, 1, n, n};
      }
      auto& ec = **e;
      // Drawn in this order from separate streams; then max >= min and min <= expected <= max.
      if (c.elastic->min_replicas)
        ec.min_replicas =
            to_int32(draw_int(*c.elastic->min_replicas, st.elastic_min, 1, kMaxReplicas));
      if (c.elastic->max_replicas)
        ec.max_replicas =
            to_int32(draw_int(*c.elastic->max_replicas, st.elastic_max, 1, kMaxReplicas));
      if (c.elastic->expected_replicas) {
        ec.expected_replicas =
            to_int32(draw_int(*c.elastic->expected_replicas, st.elastic_expected, 1, kMaxReplicas));
      }
      ec.min_replicas = std::max(1, ec.min_replicas);
      ec.max_replicas = std::max(ec.max_replicas, ec.min_replicas);
      ec.expected_replicas = std::clamp(ec.expected_replicas, ec.min_replicas, ec.max_replicas);
    }
  }
  if (c.gpus) set_gpus(s.job, c.replica_type, draw_int(*c.gpus, st.gpus, 0, kMaxGpus));
  if (c.checkpoint_interval) {
    s.behaviour.checkpoint_interval = std::max<SimDuration>(
        kernel::seconds(1), to_duration(c.checkpoint_interval->seconds(st.checkpoint)));
  }
  if (c.restart_policy) {
    const auto p =
        m::parse_enum<m::RestartPolicyType>(draw_name(*c.restart_policy, st.restart_policy))
            .value();
    if (auto* g = std::get_if<m::GenericJob>(&s.job)) {
      for (auto& r : g->spec.replica_specs) r.restart_policy.policy = p;
    } else if (auto* pt = std::get_if<m::PyTorchTrainingJob>(&s.job)) {
      for (auto& r : pt->spec.replica_specs) r.restart_policy = p;
    } else {
      std::get<m::DeepSpeedJob>(s.job).spec.worker.restart_policy = p;
    }
  }
  if (c.restart_limit) {
    const auto n = to_int32(draw_int(*c.restart_limit, st.restart_limit, 0, kMaxLimit));
    if (auto* g = std::get_if<m::GenericJob>(&s.job)) {
      for (auto& r : g->spec.replica_specs) r.restart_policy.limit = n;
    }
  }
  m::RunPolicy* run_policy = nullptr;
  if (auto* p = std::get_if<m::PyTorchTrainingJob>(&s.job)) run_policy = &p->spec.run_policy;
  if (auto* d = std::get_if<m::DeepSpeedJob>(&s.job)) run_policy = &d->spec.run_policy;
  if (c.backoff_limit && run_policy)
    run_policy->backoff_limit =
        to_int32(draw_int(*c.backoff_limit, st.backoff_limit, 0, kMaxLimit));
  if (c.clean_up_policy) {
    const auto p =
        m::parse_enum<m::CleanUpPolicy>(draw_name(*c.clean_up_policy, st.clean_up)).value();
    if (run_policy) {
      run_policy->clean_up_policy = p;
    } else {
      std::get<m::GenericJob>(s.job).spec.clean_up_policy = p;
    }
  }
  if (c.active_deadline && run_policy) {
    // Whole seconds, at least 1 (the API wants a positive integer).
    const auto us = to_duration(c.active_deadline->seconds(st.deadline)).count();
    run_policy->active_deadline_seconds = std::max<std::int64_t>(1, (us + 500'000) / 1'000'000);
  }
  if (c.hazard_per_hour) {
    const double h = (*c.hazard_per_hour)(st.hazard);
    s.behaviour.failure.hazard_per_hour = h > 0 ? std::min(h, 1e6) : 0;
  }
  return s;
}

void GeneratorCursor::fill() {
  // Every job of the next instant: arrivals that land on the same microsecond join it, and the
  // instant's jobs go out sorted by job key, the order the world submits explicit jobs in.
  if (!lookahead_ && !arrivals_done_) {
    lookahead_ = next_arrival();
    if (!lookahead_) arrivals_done_ = true;
  }
  if (!lookahead_) return;
  const SimTime at = *lookahead_;
  while (lookahead_ && *lookahead_ == at) {
    std::int64_t n = 1;
    if (g_->burst_size) n = draw_int(*g_->burst_size, burst_size_, 1, kMaxBurst);
    for (std::int64_t i = 0; i < n; ++i) {
      if (g_->count && emitted_ >= *g_->count) break;
      const std::size_t cls = mix_ ? (*mix_)(class_choice_) : 0;
      buffer_.push_back(make_job(cls, at));
      ++emitted_;
    }
    if (g_->count && emitted_ >= *g_->count) {
      arrivals_done_ = true;
      lookahead_.reset();
      break;
    }
    lookahead_ = next_arrival();
    if (!lookahead_) arrivals_done_ = true;
  }
  // make_job gave every job a namespace, so this is the job key the world orders by.
  std::sort(buffer_.begin(), buffer_.end(), [&](const auto& a, const auto& b) {
    return submission_key(a, default_namespace_) < submission_key(b, default_namespace_);
  });
  std::reverse(buffer_.begin(), buffer_.end());  // popped from the back
}

bool GeneratorCursor::next(std::optional<scenarios::JobSubmission>& out) {
  out.reset();
  if (done_) return false;
  if (buffer_.empty()) fill();
  if (buffer_.empty()) {
    done_ = true;
    return false;
  }
  out.emplace(std::move(buffer_.back()));
  buffer_.pop_back();
  return true;
}

}  // namespace t9k::workload
