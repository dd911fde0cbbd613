#include "analysis/aggregate.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/csv.hpp"
#include "analysis/detail/summary_file.hpp"
#include "analysis/outputs.hpp"
#include "analysis/pooled.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// JSON has no NaN: a missing interval (n < 2) is written as null.
json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json interval_json(const Interval& i, const std::vector<double>& values) {
  json j;
  j["mean"] = number_or_null(i.mean);
  j["stddev"] = number_or_null(i.stddev);
  j["ci95"] = i.has_interval() ? json(i.half_width) : json(nullptr);
  j["n"] = i.n;
  j["values"] = values;
  return j;
}

std::string relative_to(const fs::path& p, const fs::path& base) {
  std::error_code ec;
  const fs::path rel = fs::relative(p, base, ec);
  return (ec || rel.empty()) ? p.generic_string() : rel.generic_string();
}

// Every run's warnings (or notes) once, in order of first appearance; one that not every
// replication gave says which did.
json once_each(const ReplicationSummary& s, std::vector<std::string> RunSummary::*field) {
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> said;
  for (const auto& r : s.runs) {
    for (const auto& w : r.*field) {
      auto it = std::find_if(said.begin(), said.end(), [&](const auto& x) { return x.first == w; });
      if (it == said.end()) it = said.insert(said.end(), {w, {}});
      if (it->second.empty() || it->second.back() != r.replication)
        it->second.push_back(r.replication);
    }
  }
  json ws = json::array();
  for (const auto& [w, in] : said) {
    if (in.size() == s.runs.size()) {
      ws.push_back(w);
    } else {
      ws.push_back(
          fmt::format("{} (replication{} {})", w, in.size() == 1 ? "" : "s", fmt::join(in, ", ")));
    }
  }
  return ws;
}

json replication_body(const ReplicationSummary& s, const fs::path& dir) {
  json j;
  j["scenario"] = s.scenario;
  j["scenario_hash"] = s.scenario_hash;
  j["version"] = s.version;
  j["confidence"] = kConfidence;
  j["n"] = s.runs.size();
  json runs = json::array();
  std::vector<std::uint64_t> seeds, reps;
  bool ok = true;
  for (const auto& r : s.runs) {
    runs.push_back({{"replication", r.replication},
                    {"seed", r.seed},
                    {"dir", relative_to(r.dir, dir)},
                    {"fingerprint", r.fingerprint},
                    {"invariants_ok", r.invariants_ok}});
    if (std::find(seeds.begin(), seeds.end(), r.seed) == seeds.end()) seeds.push_back(r.seed);
    reps.push_back(r.replication);
    ok = ok && r.invariants_ok;
  }
  j["runs"] = runs;
  if (auto ws = once_each(s, &RunSummary::warnings); !ws.empty()) j["warnings"] = std::move(ws);
  if (auto ns = once_each(s, &RunSummary::notes); !ns.empty()) j["notes"] = std::move(ns);
  j["seeds"] = seeds;
  j["replication_numbers"] = reps;
  j["invariants_ok"] = ok;
  json m = json::object();
  for (const auto& [name, ms] : s.metrics) m[name] = interval_json(ms.interval, ms.values);
  j["metrics"] = m;
  if (!s.pooled.empty()) {
    json pooled = json::object();
    for (const auto& [name, v] : s.pooled) pooled[name] = v;
    j["pooled"] = {{"jobs", s.pooled_jobs}, {"metrics", pooled}};
  }
  return j;
}

}  // namespace

SteadyState steady_state(const std::string& text) {
  const CsvTable t = parse_csv(text, "timeseries.csv");
  SteadyState st;
  // Cluster rows in time order, and per bucket time the queue rows.
  std::vector<double> times, alloc, prod, cap, pending;
  std::map<double, std::vector<std::pair<double, double>>> queues;  // time -> (allocated, pending)
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const std::string_view scope = t.field(i, "scope");
    const double time = t.number(i, "time_s").value_or(0);
    if (scope == "cluster") {
      times.push_back(time);
      alloc.push_back(t.number(i, "allocated_gpus").value_or(0));
      prod.push_back(t.number(i, "productive_gpus").value_or(0));
      cap.push_back(t.number(i, "capacity_gpus").value_or(0));
      pending.push_back(t.number(i, "pending_jobs").value_or(0));
    } else if (scope.starts_with("queue:")) {
      queues[time].emplace_back(t.number(i, "allocated_gpus").value_or(0),
                                t.number(i, "pending_jobs").value_or(0));
    }
  }
  if (times.empty()) return st;
  std::vector<double> util(times.size());
  for (std::size_t i = 0; i < times.size(); ++i) util[i] = cap[i] > 0 ? alloc[i] / cap[i] : 0;
  const MserResult m = mser5(util);
  const std::size_t from = m.observations_dropped;
  const std::size_t to = m.batches > 0 ? 5 * m.batches : times.size();
  const double bucket = times.size() > 1 ? times[1] - times[0] : 0;
  st.warmup_s = static_cast<double>(from) * bucket;
  double a = 0, p = 0, c = 0, q = 0, fair = 0;
  std::size_t fair_n = 0;
  for (std::size_t i = from; i < to; ++i) {
    a += alloc[i];
    p += prod[i];
    c += cap[i];
    q += pending[i];
    const auto it = queues.find(times[i]);
    if (it == queues.end()) continue;
    std::vector<double> shares;
    for (const auto& [qa, qp] : it->second) {
      if (qa > 0 || qp > 0) shares.push_back(qa);
    }
    if (shares.empty()) continue;
    fair += jain_fairness(shares);
    ++fair_n;
  }
  st.utilization_allocated = c > 0 ? a / c : 0;
  st.utilization_productive = c > 0 ? p / c : 0;
  st.pending_jobs = to > from ? q / static_cast<double>(to - from) : 0;
  st.fairness_jain = fair_n > 0 ? fair / static_cast<double>(fair_n) : 1;
  return st;
}

RunSummary load_run_summary(const fs::path& dir) {
  const fs::path file = dir / "summary.json";
  if (!fs::exists(file)) {
    throw std::runtime_error(dir.string() + ": no summary.json (not a complete run)");
  }
  RunSummary r;
  r.dir = dir;
  const json j = detail::read_summary_file(file);
  try {
    r.version = j.value("version", "");
    r.scenario = j.value("scenario", "");
    r.scenario_hash = j.value("scenario_hash", "");
    r.fingerprint = j.value("fingerprint", "");
    r.seed = j.value("seed", std::uint64_t{0});
    r.replication = j.value("replication", std::uint64_t{0});
    r.horizon_s = j.value("horizon_s", 0.0);
    if (j.contains("invariants")) r.invariants_ok = j["invariants"].value("ok", true);
    if (j.contains("warnings")) r.warnings = j.at("warnings").get<std::vector<std::string>>();
    if (j.contains("notes")) r.notes = j.at("notes").get<std::vector<std::string>>();
    if (j.contains("setup")) r.setup = detail::read_setup(j.at("setup"));
    if (!j.at("metrics").is_object()) detail::bad_summary(file, "its metrics are not an object");
    for (const auto& [k, v] : j.at("metrics").items()) {
      if (v.is_number()) r.metrics[k] = v.get<double>();
    }
  } catch (const json::exception& e) {
    detail::bad_summary(file, detail::json_reason(e));
  }
  if (fs::exists(dir / "timeseries.csv")) {
    const SteadyState st = steady_state(read_text_file(dir / "timeseries.csv"));
    r.metrics["warmup_s"] = st.warmup_s;
    r.metrics["steady_utilization_allocated"] = st.utilization_allocated;
    r.metrics["steady_utilization_productive"] = st.utilization_productive;
    r.metrics["steady_pending_jobs"] = st.pending_jobs;
    r.metrics["steady_fairness_jain"] = st.fairness_jain;
  }
  return r;
}

ReplicationSummary summarize_replications(std::vector<RunSummary> runs, double confidence) {
  if (runs.empty()) throw std::invalid_argument("no replications to summarize");
  std::sort(runs.begin(), runs.end(),
            [](const RunSummary& a, const RunSummary& b) { return a.replication < b.replication; });
  for (std::size_t i = 1; i < runs.size(); ++i) {
    if (runs[i].replication == runs[i - 1].replication) {
      throw std::invalid_argument(fmt::format("replication {} appears twice ({} and {})",
                                              runs[i].replication, runs[i - 1].dir.string(),
                                              runs[i].dir.string()));
    }
  }
  ReplicationSummary s;
  s.scenario = runs.front().scenario;
  s.scenario_hash = runs.front().scenario_hash;
  s.version = runs.front().version;
  std::set<std::string> names;
  for (const auto& r : runs) {
    for (const auto& [k, v] : r.metrics) names.insert(k);
  }
  for (const auto& name : names) {
    MetricSummary ms;
    for (const auto& r : runs) {
      const auto it = r.metrics.find(name);
      if (it != r.metrics.end()) ms.values.push_back(it->second);
    }
    ms.interval = mean_interval(ms.values, confidence);
    s.metrics.emplace(name, std::move(ms));
  }
  s.runs = std::move(runs);
  return s;
}

std::string replication_summary_json(const ReplicationSummary& s, const fs::path& dir) {
  json j = replication_body(s, dir);
  j["kind"] = "replications";
  return j.dump(2) + "\n";
}

void read_pooled(const json& body, ReplicationSummary& s) {
  if (!body.contains("pooled")) return;
  const json& p = body.at("pooled");
  s.pooled_jobs = p.value("jobs", std::int64_t{0});
  for (const auto& [k, v] : p.at("metrics").items()) s.pooled[k] = v.get<double>();
}

ReplicationSummary write_replication_summary(const fs::path& dir,
                                             const std::vector<fs::path>& rep_dirs) {
  std::vector<RunSummary> runs;
  runs.reserve(rep_dirs.size());
  for (const auto& d : rep_dirs) runs.push_back(load_run_summary(d));
  ReplicationSummary s = summarize_replications(std::move(runs));
  add_pooled_percentiles(s);
  fs::create_directories(dir);
  write_file_atomic(dir / "summary.json", replication_summary_json(s, dir));
  return s;
}

ComparisonSummary compare_variants(std::vector<std::pair<std::string, ReplicationSummary>> variants,
                                   double confidence) {
  if (variants.empty()) throw std::invalid_argument("no variants to compare");
  ComparisonSummary c;
  const ReplicationSummary& base = variants.front().second;
  for (auto& [name, reps] : variants) {
    VariantSummary v;
    v.name = name;
    if (!c.variants.empty()) {
      if (reps.runs.size() != base.runs.size()) {
        throw std::invalid_argument(fmt::format("variant {} has {} replications, the base {}", name,
                                                reps.runs.size(), base.runs.size()));
      }
      for (std::size_t i = 0; i < reps.runs.size(); ++i) {
        const auto& a = reps.runs[i];
        const auto& b = base.runs[i];
        if (a.replication != b.replication || a.seed != b.seed) {
          throw std::invalid_argument(
              fmt::format("variant {}: replication {} seed {} does not pair with the base's "
                          "replication {} seed {} "
                          "(common random numbers need the same seeds and replication numbers)",
                          name, a.replication, a.seed, b.replication, b.seed));
        }
      }
      // Pairs by replication: a metric missing from either run of a pair leaves that pair out.
      for (const auto& [metric, ms] : reps.metrics) {
        if (!base.metrics.count(metric)) continue;
        std::vector<double> x, y;
        for (std::size_t i = 0; i < reps.runs.size(); ++i) {
          const auto xa = reps.runs[i].metrics.find(metric);
          const auto yb = base.runs[i].metrics.find(metric);
          if (xa == reps.runs[i].metrics.end() || yb == base.runs[i].metrics.end()) continue;
          x.push_back(xa->second);
          y.push_back(yb->second);
        }
        v.vs_base.emplace(metric, paired_difference(x, y, confidence));
      }
    }
    v.replications = reps;
    c.variants.push_back(std::move(v));
  }
  return c;
}

std::string comparison_summary_json(const ComparisonSummary& c, const fs::path& dir) {
  json j;
  j["kind"] = "comparison";
  j["confidence"] = kConfidence;
  j["base"] = c.variants.front().name;
  json order = json::array();
  json variants = json::object();
  json diffs = json::object();
  for (const auto& v : c.variants) {
    order.push_back(v.name);
    variants[v.name] = replication_body(v.replications, dir);
    if (&v == &c.variants.front()) continue;
    json d = json::object();
    for (const auto& [metric, pd] : v.vs_base) {
      std::vector<double> z;
      const auto& vm = v.replications.metrics.at(metric).values;
      const auto& bm = c.variants.front().replications.metrics.at(metric).values;
      if (vm.size() == bm.size()) {
        for (std::size_t i = 0; i < vm.size(); ++i) z.push_back(vm[i] - bm[i]);
      }
      json e = interval_json(pd.difference, z);
      e["significant"] = pd.significant;
      d[metric] = e;
    }
    diffs[v.name] = d;
  }
  j["variant_order"] = order;
  j["variants"] = variants;
  for (const auto& [name, o] : c.overlays)
    j["overlays"][name] = {{"file", o.file}, {"text", o.text}};
  j["differences"] = diffs;
  const auto& base = c.variants.front().replications;
  std::vector<std::uint64_t> seeds, reps;
  for (const auto& r : base.runs) {
    if (std::find(seeds.begin(), seeds.end(), r.seed) == seeds.end()) seeds.push_back(r.seed);
    reps.push_back(r.replication);
  }
  j["seeds"] = seeds;
  j["replication_numbers"] = reps;
  return j.dump(2) + "\n";
}

ComparisonSummary write_comparison_summary(
    const fs::path& dir, const std::vector<std::pair<std::string, std::vector<fs::path>>>& variants,
    const std::map<std::string, Overlay>& overlays) {
  std::vector<std::pair<std::string, ReplicationSummary>> sums;
  for (const auto& [name, rep_dirs] : variants) {
    if (rep_dirs.empty()) throw std::invalid_argument("variant " + name + " has no replications");
    std::vector<RunSummary> runs;
    for (const auto& d : rep_dirs) runs.push_back(load_run_summary(d));
    ReplicationSummary s = summarize_replications(std::move(runs));
    add_pooled_percentiles(s);
    // Each variant folder also reads as a replications directory of its own (`t9ksim report`).
    const fs::path parent = rep_dirs.front().parent_path();
    if (!parent.empty() && fs::weakly_canonical(parent) != fs::weakly_canonical(dir)) {
      write_file_atomic(parent / "summary.json", replication_summary_json(s, parent));
    }
    sums.emplace_back(name, std::move(s));
  }
  ComparisonSummary c = compare_variants(std::move(sums));
  c.overlays = overlays;
  fs::create_directories(dir);
  write_file_atomic(dir / "summary.json", comparison_summary_json(c, dir));
  return c;
}

}  // namespace t9k::analysis
