#include "expect/checker.hpp"

#include <type_traits>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kernel/time.hpp"
#include "scenarios/format/serialize.hpp"

namespace t9k::expect {

namespace {

std::string at_text(model::SimTime t) { return kernel::format_duration(t.time_since_epoch()); }

std::string bounds_text(const scenarios::TimeBounds& b) {
  return fmt::format("[{}, {}]", b.min ? kernel::format_duration(*b.min) : "0s",
                     b.max ? kernel::format_duration(*b.max) : "+inf");
}

bool within(const scenarios::TimeBounds& b, model::SimTime t) {
  const auto d = t.time_since_epoch();
  return (!b.min || d >= *b.min) && (!b.max || d <= *b.max);
}

std::string int_bounds_text(const scenarios::IntBounds& b) {
  return fmt::format("[{}, {}]", b.min ? std::to_string(*b.min) : "-inf",
                     b.max ? std::to_string(*b.max) : "+inf");
}

bool within(const scenarios::IntBounds& b, std::int64_t v) {
  return (!b.min || v >= *b.min) && (!b.max || v <= *b.max);
}

std::string describe(const scenarios::EventExpectation& e) {
  std::string s = "{type: " + e.type;
  auto add = [&](const char* k, const std::optional<std::string>& v) {
    if (v) s += fmt::format(", {}: {}", k, *v);
  };
  add("job", e.job);
  add("pod", e.pod);
  add("phase", e.phase);
  add("reason", e.reason);
  add("node", e.node);
  if (e.exit_code) s += fmt::format(", exitCode: {}", *e.exit_code);
  if (e.at) s += fmt::format(", at: {}", bounds_text(*e.at));
  return s + "}";
}

// The value at `path` (a.b[0].c[key=value].d) in `doc`, or nullopt when there is none.
std::optional<nlohmann::json> field_at(const nlohmann::json& doc, std::string_view path) {
  const nlohmann::json* at = &doc;
  std::size_t i = 0;
  while (i < path.size()) {
    const std::size_t start = i;
    while (i < path.size() && path[i] != '.' && path[i] != '[') ++i;
    const std::string key(path.substr(start, i - start));
    if (!at->is_object() || !at->contains(key)) return std::nullopt;
    at = &(*at)[key];
    while (i < path.size() && path[i] == '[') {
      const auto close = path.find(']', i);
      const std::string_view sel = path.substr(i + 1, close - i - 1);
      i = close + 1;
      if (!at->is_array()) return std::nullopt;
      const auto eq = sel.find('=');
      const nlohmann::json* next = nullptr;
      if (eq == std::string_view::npos) {
        std::size_t n = 0;
        for (const char c : sel) {
          if (c < '0' || c > '9') return std::nullopt;
          n = n * 10 + static_cast<std::size_t>(c - '0');
        }
        if (n < at->size()) next = &(*at)[n];
      } else {
        const std::string k(sel.substr(0, eq));
        const std::string v(sel.substr(eq + 1));
        for (const auto& item : *at) {
          if (!item.is_object() || !item.contains(k)) continue;
          const auto& x = item[k];
          if ((x.is_string() && x.get<std::string>() == v) || (!x.is_string() && x.dump() == v)) {
            next = &item;
            break;
          }
        }
      }
      if (!next) return std::nullopt;
      at = next;
    }
    if (i < path.size() && path[i] == '.') ++i;
  }
  return *at;
}

std::string scalar_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

bool ExpectationChecker::needs_objects() const {
  for (const auto& j : expect_.jobs) {
    if (!j.fields.empty()) return true;
  }
  return false;
}

std::string ExpectationChecker::Event::describe() const {
  std::string s = fmt::format("t={} {}", at_text(t), type);
  if (!job.empty()) s += " job=" + job;
  if (!pod.empty()) s += " pod=" + pod;
  if (!node.empty()) s += " node=" + node;
  if (!phase.empty()) s += " phase=" + phase;
  if (exit_code) s += fmt::format(" exitCode={}", *exit_code);
  if (!reason.empty()) s += " reason=" + reason;
  return s;
}

ExpectationChecker::ExpectationChecker(const scenarios::Expectations& expect,
                                       std::string default_namespace)
    : expect_(expect), ns_prefix_(std::move(default_namespace) + "/") {}

std::string ExpectationChecker::short_name(const std::string& key) const {
  return key.starts_with(ns_prefix_) ? key.substr(ns_prefix_.size()) : key;
}

ExpectationChecker::PodRecord* ExpectationChecker::pod_record(JobRecord& job,
                                                              const std::string& pod_key) {
  const auto it = pod_slots_.find(pod_key);
  if (it == pod_slots_.end()) return nullptr;
  auto& gens = job.pods[it->second.second];
  return gens.empty() ? nullptr : &gens.back();
}

void ExpectationChecker::on_change(const model::TimedChange& tc) {
  if (std::holds_alternative<model::JobLeft>(tc.change)) return;  // not an event of the job's
  Event ev;
  ev.t = tc.time;
  std::optional<model::JobId> job;
  std::visit(
      [&](const auto& c) {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, model::JobSubmitted>) {
          ev.type = "JobSubmitted";
          if (jobs_.size() <= c.job) jobs_.resize(c.job + 1);
          jobs_[c.job].name = short_name(c.name);
          job = c.job;
        } else if constexpr (std::is_same_v<T, model::JobRejected>) {
          ev.type = "JobRejected";
          ev.phase = "Rejected";
          ev.reason = c.reason;
          job = c.job;
          jobs_.at(c.job).first_at.try_emplace("Rejected", tc.time);
        } else if constexpr (std::is_same_v<T, model::JobPhaseChanged>) {
          ev.type = "JobPhaseChanged";
          ev.phase = std::string(model::to_string(c.phase));
          ev.reason = c.reason;
          job = c.job;
          jobs_.at(c.job).first_at.try_emplace(ev.phase, tc.time);
        } else if constexpr (std::is_same_v<T, model::PodCreated>) {
          ev.type = "PodCreated";
          ev.pod = short_name(c.pod);
          job = c.job;
          const std::pair<std::string, std::int32_t> slot{c.replica_type, c.rank};
          jobs_.at(c.job).pods[slot].emplace_back();
          pod_slots_[c.pod] = {c.job, slot};
        } else if constexpr (std::is_same_v<T, model::PodBound>) {
          ev.type = "PodBound";
          ev.pod = short_name(c.pod);
          ev.node = c.node;
          job = c.job;
        } else if constexpr (std::is_same_v<T, model::PodRunning>) {
          ev.type = "PodRunning";
          ev.pod = short_name(c.pod);
          job = c.job;
          if (auto* p = pod_record(jobs_.at(c.job), c.pod)) p->phase = "Running";
        } else if constexpr (std::is_same_v<T, model::PodReleased>) {
          ev.type = "PodReleased";
          ev.pod = short_name(c.pod);
          ev.node = c.node;
          ev.phase = std::string(model::to_string(c.phase));
          ev.exit_code = c.exit_code;
          if (c.reason) ev.reason = std::string(model::to_string(*c.reason));
          job = c.job;
          if (auto* p = pod_record(jobs_.at(c.job), c.pod)) {
            const bool terminated =
                c.phase == model::PodPhase::Succeeded || c.phase == model::PodPhase::Failed;
            // Deleted before its containers ended: the replica phase Deleted (spec §1.3).
            p->phase = c.reason && !terminated ? "Deleted" : ev.phase;
            p->exit_code = c.exit_code;
            if (c.reason) p->deletion_reason = ev.reason;
          }
        } else if constexpr (std::is_same_v<T, model::PodDeleted>) {
          ev.type = "PodDeleted";
          ev.pod = short_name(c.pod);
          ev.reason = std::string(model::to_string(c.reason));
          job = c.job;
          if (auto* p = pod_record(jobs_.at(c.job), c.pod)) {
            p->deletion_reason = ev.reason;
            if (p->phase != "Succeeded" && p->phase != "Failed") p->phase = "Deleted";
          }
        } else if constexpr (std::is_same_v<T, model::TrainingChanged>) {
          ev.type = "TrainingChanged";
          job = c.job;
        } else if constexpr (std::is_same_v<T, model::ProgressLost>) {
          ev.type = "ProgressLost";
          ev.reason = std::string(model::to_string(c.cause));
          job = c.job;
        } else if constexpr (std::is_same_v<T, model::ProgressCommitted>) {
          ev.type = "ProgressCommitted";
          job = c.job;
        } else if constexpr (std::is_same_v<T, model::NodeChanged>) {
          ev.type = "NodeChanged";
          ev.node = c.node;
          ev.reason = c.cause;
        } else if constexpr (std::is_same_v<T, model::QueueChanged>) {
          ev.type = "QueueChanged";
          ev.reason = c.closed ? "closed" : "open";
        } else if constexpr (std::is_same_v<T, model::PodUnknown>) {
          ev.type = "PodUnknown";
          ev.pod = short_name(c.pod);
          ev.node = c.node;
          ev.phase = "Unknown";
          job = c.job;
          if (auto* p = pod_record(jobs_.at(c.job), c.pod)) p->phase = "Unknown";
        } else if constexpr (std::is_same_v<T, model::JobStatusChanged>) {
          ev.type = "JobStatusChanged";
          job = c.job;
        } else if constexpr (std::is_same_v<T, model::JobPending>) {
          ev.type = "JobPending";
          ev.reason = std::string(model::to_string(c.cause));
          job = c.job;
        }
      },
      tc.change);
  if (job) {
    ev.job = jobs_.at(*job).name;
    jobs_[*job].events.push_back(events_.size());
  }
  events_.push_back(std::move(ev));
}

std::string ExpectationChecker::recent(const JobRecord& job, std::size_t n) const {
  std::string s;
  const std::size_t from = job.events.size() > n ? job.events.size() - n : 0;
  for (std::size_t i = from; i < job.events.size(); ++i)
    s += "\n      " + events_[job.events[i]].describe();
  return s.empty() ? "\n      (no events)" : s;
}

std::vector<std::string> ExpectationChecker::check(
    const std::vector<sim::JobOutcome>& outcomes, const std::map<std::string, double>& metrics,
    const std::vector<scenarios::Object>& objects) const {
  std::vector<std::string> diff;
  for (std::size_t i = 0; i < expect_.jobs.size(); ++i) check_job(i, outcomes, objects, diff);
  check_metrics(metrics, diff);
  check_events(diff);
  return diff;
}

void ExpectationChecker::check_job(std::size_t i, const std::vector<sim::JobOutcome>& outcomes,
                                   const std::vector<scenarios::Object>& objects,
                                   std::vector<std::string>& diff) const {
  const std::string end = events_.empty() ? "0s" : at_text(events_.back().t);
  const auto& e = expect_.jobs[i];
  const std::string path = fmt::format("expect.jobs[{}] ({})", i, e.job);
  const sim::JobOutcome* o = nullptr;
  for (const auto& x : outcomes) {
    if (x.name == e.job || x.name == ns_prefix_ + e.job) o = &x;
  }
  const JobRecord* rec = nullptr;
  for (const auto& r : jobs_) {
    if (r.name == e.job) rec = &r;
  }
  if (!o || !rec) {
    diff.push_back(fmt::format("{}: job {} was not submitted in the run", path, e.job));
    return;
  }
  const std::string history = fmt::format("; its last events:{}", recent(*rec, 8));
  const std::string phase =
      o->rejected ? "Rejected" : (o->phase ? std::string(model::to_string(*o->phase)) : "<none>");
  if (e.phase && phase != *e.phase) {
    diff.push_back(fmt::format("{}.phase: expected {}, observed {} at the end ({}){}", path,
                               *e.phase, phase, end, history));
  }
  if (e.reason && o->reason != *e.reason) {
    diff.push_back(fmt::format("{}.reason: expected \"{}\", observed \"{}\"{}", path, *e.reason,
                               o->reason, history));
  }
  auto bounds = [&](const char* what, const std::optional<scenarios::IntBounds>& b,
                    std::int64_t v) {
    if (b && !within(*b, v)) {
      diff.push_back(fmt::format("{}.{}: expected in {}, observed {}{}", path, what,
                                 int_bounds_text(*b), v, history));
    }
  };
  bounds("restartCount", e.restart_count, o->restarts);
  bounds("backoffCount", e.backoff_count, o->backoff_count);
  for (const auto& [ph, tb] : e.phase_at) {
    const auto it = rec->first_at.find(ph);
    if (it == rec->first_at.end()) {
      diff.push_back(fmt::format("{}.phaseAt.{}: expected in {}, observed never{}", path, ph,
                                 bounds_text(tb), history));
    } else if (!within(tb, it->second)) {
      diff.push_back(fmt::format("{}.phaseAt.{}: expected in {}, observed {}{}", path, ph,
                                 bounds_text(tb), at_text(it->second), history));
    }
  }
  if (!e.fields.empty()) {
    const scenarios::Object* obj = nullptr;
    for (const auto& o : objects) {
      if (!scenarios::is_job(o)) continue;
      const auto& meta = scenarios::metadata_of(o);
      if (meta.name == e.job || model::object_key(meta.namespace_, meta.name) == e.job) obj = &o;
    }
    const auto doc = obj ? nlohmann::json::parse(scenarios::to_json(*obj)) : nlohmann::json();
    for (const auto& [fpath, want] : e.fields) {
      const auto got = field_at(doc, fpath);
      if (!got) {
        diff.push_back(fmt::format(
            "{}.fields[\"{}\"]: expected \"{}\", observed no such field in the final {}{}", path,
            fpath, want, obj ? "object" : "objects (none for the job)", history));
      } else if (scalar_text(*got) != want) {
        diff.push_back(fmt::format("{}.fields[\"{}\"]: expected \"{}\", observed \"{}\"{}", path,
                                   fpath, want, scalar_text(*got), history));
      }
    }
  }
  check_pods(e, *rec, path, history, diff);
}

void ExpectationChecker::check_pods(const scenarios::JobExpectation& e, const JobRecord& job,
                                    const std::string& path, const std::string& history,
                                    std::vector<std::string>& diff) const {
  for (std::size_t k = 0; k < e.pods.size(); ++k) {
    const auto& pe = e.pods[k];
    const std::string ppath =
        fmt::format("{}.pods[{}] ({} rank {}{})", path, k, pe.replica_type, pe.rank,
                    pe.generation ? fmt::format(" generation {}", *pe.generation) : "");
    const auto it = job.pods.find({pe.replica_type, pe.rank});
    const std::size_t count = it == job.pods.end() ? 0 : it->second.size();
    if (pe.pods && !within(*pe.pods, static_cast<std::int64_t>(count))) {
      diff.push_back(fmt::format("{}.pods: expected in {}, observed {}{}", ppath,
                                 int_bounds_text(*pe.pods), count, history));
    }
    if (!pe.phase && !pe.exit_code && !pe.deletion_reason) continue;
    const std::size_t gen =
        pe.generation ? static_cast<std::size_t>(*pe.generation) : (count ? count - 1 : 0);
    if (gen >= count) {
      diff.push_back(fmt::format("{}: no such pod (the rank had {} pod{}){}", ppath, count,
                                 count == 1 ? "" : "s", history));
      continue;
    }
    const PodRecord& p = it->second[gen];
    if (pe.phase && p.phase != *pe.phase) {
      diff.push_back(
          fmt::format("{}.phase: expected {}, observed {}{}", ppath, *pe.phase, p.phase, history));
    }
    if (pe.exit_code && p.exit_code != pe.exit_code) {
      diff.push_back(fmt::format("{}.exitCode: expected {}, observed {}{}", ppath, *pe.exit_code,
                                 p.exit_code ? std::to_string(*p.exit_code) : "none", history));
    }
    if (pe.deletion_reason && p.deletion_reason != *pe.deletion_reason) {
      diff.push_back(fmt::format(
          "{}.deletionReason: expected {}, observed {}{}", ppath, *pe.deletion_reason,
          p.deletion_reason.empty() ? "none (not deleted)" : p.deletion_reason, history));
    }
  }
}

void ExpectationChecker::check_metrics(const std::map<std::string, double>& metrics,
                                       std::vector<std::string>& diff) const {
  for (std::size_t i = 0; i < expect_.metrics.size(); ++i) {
    const auto& m = expect_.metrics[i];
    const auto it = metrics.find(m.metric);
    if (it == metrics.end()) {
      diff.push_back(fmt::format(
          "expect.metrics[{}]: metric {} is unknown (see summary.json \"metrics\")", i, m.metric));
      continue;
    }
    if ((m.min && !(it->second >= *m.min)) || (m.max && !(it->second <= *m.max))) {
      diff.push_back(fmt::format("expect.metrics[{}]: {} expected in [{}, {}], observed {}", i,
                                 m.metric, m.min ? fmt::format("{}", *m.min) : "-inf",
                                 m.max ? fmt::format("{}", *m.max) : "+inf", it->second));
    }
  }
}

void ExpectationChecker::check_events(std::vector<std::string>& diff) const {
  // Events: in order, others allowed between.
  std::size_t next = 0;
  std::size_t last_match = 0;
  bool matched_any = false;
  for (std::size_t i = 0; i < events_.size() && next < expect_.events.size(); ++i) {
    const Event& ev = events_[i];
    const auto& e = expect_.events[next];
    auto eq = [](const std::optional<std::string>& want, const std::string& have) {
      return !want || *want == have;
    };
    const bool match = ev.type == e.type && eq(e.job, ev.job) && eq(e.pod, ev.pod) &&
                       eq(e.phase, ev.phase) && eq(e.reason, ev.reason) && eq(e.node, ev.node) &&
                       (!e.exit_code || ev.exit_code == e.exit_code) &&
                       (!e.at || within(*e.at, ev.t));
    if (match) {
      ++next;
      last_match = i;
      matched_any = true;
    }
  }
  if (next < expect_.events.size()) {
    std::string context;
    const std::size_t from = matched_any ? last_match : 0;
    std::size_t shown = 0;
    for (std::size_t i = from; i < events_.size() && shown < 10; ++i) {
      const auto& want = expect_.events[next];
      if (want.job && events_[i].job != *want.job) continue;
      context += "\n      " + events_[i].describe();
      ++shown;
    }
    diff.push_back(
        fmt::format("expect.events[{}]: expected {} {}, not found; observed from there:{}", next,
                    describe(expect_.events[next]),
                    matched_any ? fmt::format("after {}", events_[last_match].describe())
                                : "(none matched before it)",
                    context.empty() ? "\n      (no events)" : context));
  }
}

}  // namespace t9k::expect
