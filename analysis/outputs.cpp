#include "analysis/outputs.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/csv.hpp"
#include "analysis/decimal.hpp"
#include "kernel/time.hpp"

namespace t9k::analysis {

namespace {

constexpr double kMicrosPerHour = 3600.0 * 1e6;

std::string secs(SimTime t) { return kernel::format_seconds(t); }

// A milli-GPU amount in events.jsonl: an integer when whole (8000 -> 8), else the fraction (0.5).
nlohmann::json gpus_json(std::int64_t gpu_milli) {
  if (gpu_milli % model::kGpuMilliPerGpu == 0) return gpu_milli / model::kGpuMilliPerGpu;
  return gpu_value(gpu_milli);
}

}  // namespace

StagedFile::StagedFile(const std::filesystem::path& path)
    : path_(path),
      tmp_(path.parent_path() / ("." + path.filename().string() + ".tmp")),
      out_(tmp_, std::ios::binary | std::ios::trunc) {
  check();
}

StagedFile::~StagedFile() {
  if (committed_) return;
  out_.close();
  std::error_code ec;
  std::filesystem::remove(tmp_, ec);
}

void StagedFile::check() {
  if (!out_)
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", path_.string(), std::strerror(errno)));
}

void StagedFile::commit() {
  out_.close();  // a failed or short write (full disk, file-size limit) shows here at the latest
  check();
  std::error_code ec;
  std::filesystem::rename(tmp_, path_, ec);
  if (ec)
    throw std::runtime_error("cannot rename " + tmp_.string() + " to " + path_.string() + ": " +
                             ec.message());
  committed_ = true;
}

void write_file_atomic(const std::filesystem::path& path,
                       const std::function<void(std::ostream&)>& write) {
  StagedFile file(path);
  write(file.out());
  file.commit();
}

void write_file_atomic(const std::filesystem::path& path, const std::string& content) {
  write_file_atomic(path, [&](std::ostream& out) { out << content; });
}

namespace {

constexpr const char* kJobsCsvHeader =
    "job,kind,queue,priority,replicas,gpus,elastic,submit_s,first_running_s,end_s,wait_s,jct_s,"
    "phase,reason,restarts,backoff_count,preemptions,pods_failed,ideal_run_s,slowdown,ettr,"
    "gpu_hours_allocated,gpu_hours_productive,gpu_hours_lost_fault,gpu_hours_lost_software,"
    "gpu_hours_lost_preemption,gpu_hours_lost_scale,gpu_hours_lost_pause,"
    "gpu_hours_lost_max_duration,gpu_hours_lost_other,gpu_hours_idle,pending_cause,pending_"
    "reason";

// The header, with the cost and energy columns of a run whose nodes have prices or power.
std::string jobs_csv_header(const JobsCsvColumns& c) {
  std::string h = kJobsCsvHeader;
  if (c.cost) h += ",cost";
  if (c.energy) h += ",energy_kwh";
  return h + "\n";
}

// jobs.csv is written field by field into the row's buffer: it is a line per job of a million-job
// run, and formatting each field into a string of its own and then all of them through one
// 33-field format string cost more than the rest of retiring a job (docs/performance.md).
class RowWriter {
 public:
  explicit RowWriter(fmt::memory_buffer& row) : row_(row) {}
  RowWriter& text(std::string_view s) {
    sep();
    row_.append(s);
    return *this;
  }
  RowWriter& integer(std::int64_t v) {
    sep();
    fmt::format_to(std::back_inserter(row_), FMT_COMPILE("{}"), v);
    return *this;
  }
  RowWriter& seconds(SimDuration d) {
    sep();
    kernel::append_seconds(row_, d);
    return *this;
  }
  RowWriter& seconds(SimTime t) { return seconds(t.time_since_epoch()); }
  // A text field quoted as csv_field quotes it.
  RowWriter& quoted(std::string_view s) {
    sep();
    append_csv_field(row_, s);
    return *this;
  }
  // Six significant digits ("{:.6g}"), or an empty field.
  RowWriter& general(std::optional<double> x) {
    sep();
    if (x) append_general(row_, *x, 6);
    return *this;
  }
  // GPU-hours of milli-GPU × µs, 6 decimals; most of a row's loss columns are zero.
  RowWriter& hours(Int128 gpu_milli_us) {
    sep();
    if (gpu_milli_us == 0) {
      row_.append(std::string_view("0.000000"));
    } else {
      append_fixed(row_, gpu_value(gpu_milli_us) / kMicrosPerHour, 6);
    }
    return *this;
  }

 private:
  void sep() {
    if (!first_) row_.push_back(',');
    first_ = false;
  }
  fmt::memory_buffer& row_;
  bool first_ = true;
};

// One line of jobs.csv (docs/outputs.md), appended to `row`.
void append_job_row(fmt::memory_buffer& row, const JobRow& j, SimTime horizon,
                    const JobsCsvColumns& columns) {
  const bool rejected = j.phase == "Rejected";
  std::optional<double> slowdown, ettr;
  if (j.end && !rejected && j.ideal_run_us > 0) {
    slowdown =
        static_cast<double>((*j.end - j.submit).count()) / static_cast<double>(j.ideal_run_us);
  }
  if (j.first_running && j.gpu_milli > 0) {
    const SimTime end = j.end.value_or(horizon);
    const double wall = static_cast<double>((end - *j.first_running).count());
    if (wall > 0) ettr = gpu_value(j.productive_gpu_milli_us) / gpu_value(j.gpu_milli) / wall;
  }
  RowWriter w(row);
  w.quoted(j.name).text(j.kind).quoted(j.queue);
  w.integer(j.priority).integer(j.replicas).text(format_gpu_milli(j.gpu_milli));
  w.text(j.elastic ? "true" : "false").seconds(j.submit);
  j.first_running ? w.seconds(*j.first_running) : w.text("");
  j.end ? w.seconds(*j.end) : w.text("");
  j.first_running ? w.seconds(*j.first_running - j.submit) : w.text("");  // wait
  (j.end && !rejected) ? w.seconds(*j.end - j.submit) : w.text("");       // jct
  w.text(j.phase).quoted(j.reason);
  w.integer(j.restarts).integer(j.backoff_count).integer(j.preemptions).integer(j.pods_failed);
  w.seconds(SimDuration{j.ideal_run_us}).general(slowdown).general(ettr);
  w.hours(j.allocated_gpu_milli_us).hours(j.productive_gpu_milli_us);
  for (const Int128 lost : j.lost_gpu_milli_us) w.hours(lost);
  w.hours(j.idle_gpu_milli_us());
  w.text(j.pending_cause ? model::to_string(*j.pending_cause) : "").quoted(j.pending_reason);
  if (columns.cost) w.general(j.cost);
  if (columns.energy) w.general(j.energy_kwh);
  row.push_back('\n');
}

}  // namespace

// Row by row: a year's jobs.csv is hundreds of megabytes, never held whole in memory.
void write_jobs_csv(std::ostream& os, const Recorder& r) {
  const JobsCsvColumns columns{r.costing().priced(), r.costing().powered()};
  os << jobs_csv_header(columns);
  fmt::memory_buffer row;
  for (const auto& j : r.jobs()) {
    if (j.name.empty()) continue;
    row.clear();
    append_job_row(row, j, r.horizon(), columns);
    os.write(row.data(), static_cast<std::streamsize>(row.size()));
  }
}

std::string jobs_csv(const Recorder& r) {
  std::ostringstream os;
  write_jobs_csv(os, r);
  return std::move(os).str();
}

JobsCsvWriter::JobsCsvWriter(const std::filesystem::path& path, SimTime horizon,
                             JobsCsvColumns columns)
    : file_(path), horizon_(horizon), columns_(columns) {
  file_.out() << jobs_csv_header(columns_);
}

void JobsCsvWriter::row(const JobRow& r) {
  if (r.name.empty()) return;
  row_.clear();
  append_job_row(row_, r, horizon_, columns_);
  file_.out().write(row_.data(), static_cast<std::streamsize>(row_.size()));
  file_.check();
}

std::string timeseries_csv(const Recorder& r) {
  std::ostringstream os;
  write_timeseries_csv(os, r);
  return os.str();
}

void write_timeseries_csv(std::ostream& os, const Recorder& r) {
  fmt::memory_buffer out;
  out.append(std::string_view(
      "time_s,scope,allocated_gpus,productive_gpus,capacity_gpus,pending_jobs,running_jobs"));
  for (int c = 0; c < model::kPendingCauses; ++c)
    fmt::format_to(std::back_inserter(out), ",pending_{}",
                   pending_cause_metric(static_cast<model::PendingCause>(c)));
  out.push_back('\n');
  const auto& series = r.series();
  const auto bucket = r.bucket();
  std::size_t n = series.empty() ? 0 : series.begin()->second.size();
  for (std::size_t i = 0; i < n; ++i) {
    const SimDuration t = bucket * static_cast<std::int64_t>(i);
    for (const auto& [scope, pts] : series) {
      const auto& p = pts[i];
      kernel::append_seconds(out, t);
      out.push_back(',');
      append_csv_field(out, scope);
      for (const double v :
           {p.allocated_gpus, p.productive_gpus, p.capacity_gpus, p.pending_jobs, p.running_jobs}) {
        out.push_back(',');
        append_fixed(out, v, 4);
      }
      for (const double v : p.pending_by_cause) {
        out.push_back(',');
        append_fixed(out, v, 4);
      }
      out.push_back('\n');
      flush_piece(os, out);
    }
  }
  flush_piece(os, out, true);
}

namespace {
constexpr std::string_view kNoFaultLead = "the fault profile ";
constexpr std::string_view kNoFaultMiddle = " is set but no fault happened in ";
}  // namespace

std::string no_fault_warning(std::string_view profile, std::size_t runs) {
  return fmt::format(
      "{}{}{}{}: its fault costs are 0 by chance; use more replications or a longer horizon to "
      "see them",
      kNoFaultLead, profile, kNoFaultMiddle,
      runs == 1 ? std::string("this run") : fmt::format("any of the {} runs", runs));
}

std::optional<std::string> no_fault_profile(std::string_view warning) {
  if (!warning.starts_with(kNoFaultLead)) return std::nullopt;
  const std::size_t end = warning.find(kNoFaultMiddle);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(warning.substr(kNoFaultLead.size(), end - kNoFaultLead.size()));
}

std::string faults_csv(const Recorder& r) {
  std::string out = "time_s,node,cause,state\n";
  for (const auto& f : r.faults()) {
    out += fmt::format("{},{},{},{}\n", secs(f.time), csv_field(f.node), csv_field(f.cause),
                       f.down ? "down" : "up");
  }
  return out;
}

namespace {

nlohmann::json setup_json(const RunSetup& s) {
  nlohmann::json j;
  j["description"] = s.description;
  j["scheduler"] = s.scheduler;
  j["pools"] = nlohmann::json::array();
  for (const auto& p : s.pools) {
    j["pools"].push_back({{"name", p.name},
                          {"count", p.count},
                          {"gpusPerNode", p.gpus_per_node},
                          {"gpuModel", p.gpu_model}});
    // Only for costed pools, so summaries of runs without prices stay as they were.
    if (p.price_per_node_hour > 0) j["pools"].back()["pricePerNodeHour"] = p.price_per_node_hour;
    if (p.busy_watts > 0) j["pools"].back()["busyWatts"] = p.busy_watts;
  }
  j["queues"] = nlohmann::json::array();
  for (const auto& q : s.queues) {
    nlohmann::json quota = nlohmann::json::object();
    for (const auto& [k, v] : q.quota) quota[k] = v;
    j["queues"].push_back({{"name", q.name}, {"priority", q.priority}, {"quota", quota}});
  }
  j["workload"] = s.workload;
  j["faults"] = s.faults;
  j["replications"] = s.replications;
  if (!s.overrides.empty()) j["overrides"] = s.overrides;
  if (!s.targets.empty()) j["targets"] = s.targets;
  if (s.time_zero_unix_s) j["timeZero"] = *s.time_zero_unix_s;
  return j;
}

}  // namespace

std::string summary_json(const std::map<std::string, double>& metrics, const RunInfo& info) {
  nlohmann::json j;  // nlohmann::json keeps object keys sorted
  j["version"] = info.version;
  j["scenario"] = info.scenario_name;
  j["scenario_hash"] = info.scenario_hash;
  j["seed"] = info.seed;
  j["replication"] = info.replication;
  j["fingerprint"] = info.fingerprint;
  j["events"] = info.events;
  j["horizon_s"] = info.horizon_s;
  nlohmann::json m = nlohmann::json::object();
  for (const auto& [k, v] : metrics) m[k] = std::isfinite(v) ? v : 0.0;
  j["metrics"] = m;
  j["invariants"] = {{"ok", info.invariant_violations.empty()},
                     {"violations", info.invariant_violations}};
  if (!info.warnings.empty()) j["warnings"] = info.warnings;
  if (!info.notes.empty()) j["notes"] = info.notes;
  j["setup"] = setup_json(info.setup);
  for (const auto& p : info.plugins) {
    j["plugins"][p.name] = {
        {"role", p.role},
        {"protocolVersion", p.protocol_version},
        {"calls", p.calls},
        {p.role == "controller" ? "reconciles" : "decisions", p.items},
        {"bytesSent", p.bytes_sent},
        {"bytesReceived", p.bytes_received},
        // Wall time: the only value two runs of one plugin do not share (t9ksim diff leaves it).
        {"timing", {{"waitSeconds", p.wait_s}}}};
  }
  return j.dump(2) + "\n";
}

std::string change_json(const model::TimedChange& tc, const std::vector<std::string>* job_names) {
  nlohmann::json j;
  // Every event of a job names it the same way: its name (namespace/name) and its id.
  const auto job_ref = [&](model::JobId id) {
    j["jobId"] = id;
    if (job_names && id < job_names->size()) j["job"] = (*job_names)[id];
  };
  j["t"] = static_cast<double>(tc.time.time_since_epoch().count()) / 1e6;
  std::visit(
      [&](const auto& c) {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, model::JobSubmitted>) {
          j["type"] = "JobSubmitted";
          j["job"] = c.name;
          j["jobId"] = c.job;
          j["kind"] = model::kind_name(c);
          j["queue"] = c.queue;
          j["priority"] = c.priority;
          j["replicas"] = c.replicas;
          j["gpus"] = gpus_json(c.gpu_milli);
        } else if constexpr (std::is_same_v<T, model::JobRejected>) {
          j["type"] = "JobRejected";
          job_ref(c.job);
          j["reason"] = c.reason;
        } else if constexpr (std::is_same_v<T, model::JobPhaseChanged>) {
          j["type"] = "JobPhaseChanged";
          job_ref(c.job);
          j["phase"] = model::to_string(c.phase);
          j["reason"] = c.reason.view();
          j["message"] = c.message.view();
          j["restarts"] = c.restarts;
          j["backoffCount"] = c.backoff_count;
        } else if constexpr (std::is_same_v<T, model::PodCreated>) {
          j["type"] = "PodCreated";
          job_ref(c.job);
          j["pod"] = c.pod;
          j["replicaType"] = c.replica_type;
          j["rank"] = c.rank;
          j["gpus"] = gpus_json(c.gpu_milli);
        } else if constexpr (std::is_same_v<T, model::PodBound>) {
          j["type"] = "PodBound";
          job_ref(c.job);
          j["pod"] = c.pod;
          j["node"] = c.node;
          j["gpus"] = gpus_json(c.gpu_milli);
        } else if constexpr (std::is_same_v<T, model::PodRunning>) {
          j["type"] = "PodRunning";
          job_ref(c.job);
          j["pod"] = c.pod;
        } else if constexpr (std::is_same_v<T, model::PodReleased>) {
          j["type"] = "PodReleased";
          job_ref(c.job);
          j["pod"] = c.pod;
          j["node"] = c.node;
          j["gpus"] = gpus_json(c.gpu_milli);
          j["phase"] = model::to_string(c.phase);
          if (c.exit_code) j["exitCode"] = *c.exit_code;
          if (c.reason) j["reason"] = model::to_string(*c.reason);
        } else if constexpr (std::is_same_v<T, model::PodDeleted>) {
          j["type"] = "PodDeleted";
          job_ref(c.job);
          j["pod"] = c.pod;
          j["reason"] = model::to_string(c.reason);
        } else if constexpr (std::is_same_v<T, model::TrainingChanged>) {
          j["type"] = "TrainingChanged";
          job_ref(c.job);
          j["gpus"] = gpus_json(c.gpu_milli);
        } else if constexpr (std::is_same_v<T, model::ProgressLost>) {
          j["type"] = "ProgressLost";
          job_ref(c.job);
          j["cause"] = model::to_string(c.cause);
          j["gpuSeconds"] = gpu_value(c.gpu_milli_us) / 1e6;
        } else if constexpr (std::is_same_v<T, model::ProgressCommitted>) {
          j["type"] = "ProgressCommitted";
          job_ref(c.job);
          j["gpuSeconds"] = gpu_value(c.gpu_milli_us) / 1e6;
        } else if constexpr (std::is_same_v<T, model::NodeChanged>) {
          j["type"] = "NodeChanged";
          j["node"] = c.node;
          j["ready"] = c.ready;
          j["unschedulable"] = c.unschedulable;
          j["gpus"] = gpus_json(c.gpu_milli);
          j["cause"] = c.cause;
        } else if constexpr (std::is_same_v<T, model::QueueChanged>) {
          j["type"] = "QueueChanged";
          j["queue"] = c.queue;
          j["closed"] = c.closed;
        } else if constexpr (std::is_same_v<T, model::PodUnknown>) {
          j["type"] = "PodUnknown";
          job_ref(c.job);
          j["pod"] = c.pod;
          j["node"] = c.node;
        } else if constexpr (std::is_same_v<T, model::JobStatusChanged>) {
          j["type"] = "JobStatusChanged";
          job_ref(c.job);
          j["status"] = nlohmann::json::parse(c.status);
        } else if constexpr (std::is_same_v<T, model::JobLeft>) {
          j["type"] = "JobLeft";
          job_ref(c.job);
        } else if constexpr (std::is_same_v<T, model::JobPending>) {
          j["type"] = "JobPending";
          job_ref(c.job);
          j["cause"] = std::string(model::to_string(c.cause));
          j["message"] = c.message;
        } else if constexpr (std::is_same_v<T, model::ControllerEventRecorded>) {
          j["type"] = "ControllerEvent";
          job_ref(c.job);
          j["eventType"] = c.type;
          j["reason"] = c.reason;
          j["message"] = c.message;
        }
      },
      tc.change);
  return j.dump();
}

void EventLog::write(const model::TimedChange& c) {
  if (std::holds_alternative<model::JobLeft>(c.change)) return;  // bookkeeping, not a transition
  if (const auto* sub = std::get_if<model::JobSubmitted>(&c.change)) {
    if (job_names_.size() <= sub->job) job_names_.resize(sub->job + 1);
    job_names_[sub->job] = sub->name;
  }
  file_.out() << change_json(c, &job_names_) << '\n';
  file_.check();
}

void write_outputs(const std::filesystem::path& dir, const Recorder& r, const RunInfo& info,
                   const std::map<std::string, double>& metrics, JobsCsvWriter* streamed) {
  std::filesystem::create_directories(dir);
  if (r.streaming()) {
    if (!streamed)
      throw std::logic_error("write_outputs: the recorder streamed its rows, but to no jobs.csv");
    streamed->commit();
  } else {
    write_file_atomic(dir / "jobs.csv", [&](std::ostream& os) { write_jobs_csv(os, r); });
  }
  // Written a piece at a time (flush_piece).
  write_file_atomic(dir / "timeseries.csv", [&](std::ostream& os) { write_timeseries_csv(os, r); });
  write_file_atomic(dir / "faults.csv", faults_csv(r));
  write_file_atomic(dir / "occupancy.csv", [&](std::ostream& os) { r.occupancy().write_csv(os); });
  write_file_atomic(dir / "summary.json", summary_json(metrics, info));
}

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace t9k::analysis
