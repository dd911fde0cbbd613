// Loading a trace entry (docs/traces.md): its options, the format's reader, names, queues and
// cluster derived from what was read; and the public helpers of traces.hpp.
#include "scenarios/format/traces.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "kernel/hash.hpp"
#include "scenarios/format/detail/csv.hpp"
#include "scenarios/format/detail/trace_readers.hpp"

namespace t9k::scenarios {

namespace m = t9k::model;
namespace fs = std::filesystem;
using namespace detail;

std::string_view TraceData::raw_name(std::int32_t i) const {
  if (!raw_names.empty()) return raw_names[static_cast<std::size_t>(i)];  // still reading
  const auto it = std::lower_bound(
      renamed.begin(), renamed.end(), i,
      [](const std::pair<std::int32_t, std::string>& e, std::int32_t k) { return e.first < k; });
  if (it != renamed.end() && it->first == i) return it->second;
  return names[static_cast<std::size_t>(i)].view();
}

namespace {

struct OptionReader {
  const TraceEntry& e;
  const std::string& file;
  const std::string& where;
  std::vector<Diagnostic>& out;
  std::set<std::string> used;
  bool ok = true;

  std::optional<std::string> get(const std::string& key) {
    used.insert(key);
    const auto it = e.options.find(key);
    if (it == e.options.end()) return std::nullopt;
    return it->second;
  }
  void error(const std::string& key, std::string message) {
    ok = false;
    out.push_back(
        Diagnostic{Severity::Error, file, 0, 0, 0, where + ".options." + key, std::move(message)});
  }
  std::string choice(const std::string& key, std::initializer_list<std::string_view> allowed) {
    const auto v = get(key);
    if (!v) return std::string(*allowed.begin());
    if (std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
      std::string names;
      for (auto a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
      error(key, fmt::format("found \"{}\"; allowed: {}", *v, names));
      return std::string(*allowed.begin());
    }
    return *v;
  }
  std::int32_t integer(const std::string& key, std::int32_t def, std::int32_t min,
                       std::int32_t max) {
    const auto v = get(key);
    if (!v) return def;
    const auto x = parse_int(*v);
    if (!x || *x < min || *x > max) {
      error(key, fmt::format("found \"{}\"; allowed: an integer in [{}, {}]", *v, min, max));
      return def;
    }
    return static_cast<std::int32_t>(*x);
  }
  m::Quantity quantity(const std::string& key, m::Quantity def) {
    const auto v = get(key);
    if (!v) return def;
    try {
      const auto q = m::Quantity::parse(*v);
      if (q.is_zero() || q < m::Quantity{}) throw std::invalid_argument("not positive");
      return q;
    } catch (const std::exception&) {
      error(key, fmt::format("found \"{}\"; allowed: a quantity > 0 such as 64 or 512Gi", *v));
      return def;
    }
  }
  // Options no format reads are errors, so a typo never silently changes the mapping.
  void finish() {
    for (const auto& [k, v] : e.options) {
      if (!used.count(k)) {
        std::string names;
        for (const auto& u : used) names += (names.empty() ? "" : ", ") + u;
        error(k, fmt::format("unknown option \"{}\" for format {}; allowed: {}", k,
                             to_string(e.format), names));
      }
    }
  }
};

// A file an option names, relative to the trace file's folder; `fallback` next to the trace when
// the option is not given and the file exists.
std::string sibling(const std::string& trace, const std::optional<std::string>& given,
                    const char* fallback) {
  const fs::path dir = fs::path(trace).parent_path();
  if (given) return (dir / *given).string();
  std::error_code ec;
  const fs::path p = dir / fallback;
  return fs::is_regular_file(p, ec) ? p.string() : std::string();
}

// Sanitised, unique names for recorded identities (in record order, so deterministic).
void assign_names(TraceData& d, const std::string& prefix) {
  if (d.raw_names.empty()) return;
  d.names.resize(d.raw_names.size());
  std::unordered_set<std::string> used;
  used.reserve(d.raw_names.size() * 2);
  for (const auto& r : d.records) {
    if (r.name < 0) continue;
    std::string n = sanitize_job_name(d.raw_names[static_cast<std::size_t>(r.name)], prefix);
    if (!used.insert(n).second) {
      // A repeated id: the later row gets its line, so both jobs replay.
      const std::string suffix = fmt::format("-l{}", r.line);
      n = n.substr(0, std::min(n.size(), 63 - suffix.size())) + suffix;
      while (!n.empty() && n.front() == '-') n.erase(0, 1);
      used.insert(n);
    }
    d.names[static_cast<std::size_t>(r.name)] = n;
  }
  for (std::size_t i = 0; i < d.raw_names.size(); ++i) {
    if (d.raw_names[i] != d.names[i].view())
      d.renamed.emplace_back(static_cast<std::int32_t>(i), std::move(d.raw_names[i]));
  }
  std::vector<std::string>().swap(d.raw_names);  // its capacity too
}

void derive_queues(TraceData& d, const std::vector<bool>& used_groups) {
  std::set<std::string> seen;  // k8s-export: its own Queues are there already and win
  for (const auto& q : d.queues) seen.insert(q.metadata.name.str());
  const auto add = [&](std::int32_t g) {
    const std::string name = group_queue(d, g);
    if (name == m::kDefaultQueue || !seen.insert(name).second) return;
    m::Queue q;
    q.metadata.name = name;
    const std::string& raw = d.groups[static_cast<std::size_t>(g)];
    if (d.format == TraceFormat::Philly) {
      if (auto it = d.group_nodes.find(raw); it != d.group_nodes.end()) {
        q.spec.quota = m::ResourceList{
            {m::kResourceGpu, m::Quantity::from_units(it->second * d.mapping.gpus_per_node)}};
        if (d.mapping.pools_per_group) {
          q.spec.node_selector = m::LabelSelector{};
          q.spec.node_selector->match_labels[kLabelVirtualCluster] = raw;
        }
      }
    } else if (d.format == TraceFormat::AlibabaOpenB) {
      const auto c = openb_qos_class(raw);
      q.spec.priority = c.priority;
      q.spec.preemptible = c.preemptible;
    }
    d.queues.push_back(std::move(q));
  };
  if (d.format == TraceFormat::AlibabaOpenB) {
    // Most important first, so the queue list reads in priority order.
    for (std::string_view qos : {"LS", "Guaranteed", "Burstable", "BE"}) {
      for (std::size_t g = 0; g < d.groups.size(); ++g) {
        if (d.groups[g] == qos && used_groups[g]) add(static_cast<std::int32_t>(g));
      }
    }
  }
  for (std::size_t g = 0; g < d.groups.size(); ++g) {
    if (used_groups[g]) add(static_cast<std::int32_t>(g));
  }
}

}  // namespace

std::string sanitize_job_name(std::string_view raw, std::string_view fallback_prefix) {
  std::string s;
  s.reserve(raw.size());
  for (char c : raw) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    s += (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '-' ? l : '-';
  }
  while (!s.empty() && s.front() == '-') s.erase(0, 1);
  while (!s.empty() && s.back() == '-') s.pop_back();
  if (s.empty()) s = std::string(fallback_prefix);
  if (s == raw && s.size() <= 63) return s;
  // Changed or too long: a hash of the original keeps distinct ids distinct.
  const std::string suffix = fmt::format("-{:06x}", kernel::hash_string(raw) & 0xFFFFFF);
  s = s.substr(0, std::min(s.size(), 63 - suffix.size()));
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s + suffix;
}

QosClass openb_qos_class(std::string_view qos) {
  if (qos == "LS" || qos == "Guaranteed") return {qos == "LS" ? "ls" : "guaranteed", 80, false};
  if (qos == "Burstable") return {"burstable", 50, false};
  if (qos == "BE") return {"be", 10, true};
  return {sanitize_job_name(qos, "qos"), 50, false};
}

std::string group_queue(const TraceData& d, std::int32_t group) {
  if (group < 0) return m::kDefaultQueue;
  const std::string& g = d.groups[static_cast<std::size_t>(group)];
  switch (d.format) {
    case TraceFormat::Philly:
      return sanitize_job_name("vc-" + g, "vc");
    case TraceFormat::AlibabaOpenB:
      return openb_qos_class(g).queue;
    default:
      return g == m::kDefaultQueue ? g : sanitize_job_name(g, "queue");
  }
}

std::shared_ptr<const TraceData> load_trace(const TraceEntry& e, bool skip_bad_rows,
                                            const std::string& scenario_file,
                                            const std::string& where,
                                            std::vector<Diagnostic>& out) {
  auto d = std::make_shared<TraceData>();
  d->file = e.path;
  d->file_name = fs::path(e.path).filename().string();
  d->format = e.format;
  auto& mp = d->mapping;
  OptionReader opt{e, scenario_file, where, out, {}};
  mp.image = opt.get("image").value_or(mp.image);
  mp.name_prefix = opt.get("namePrefix").value_or(e.name);
  if (!mp.name_prefix.empty() && sanitize_job_name(mp.name_prefix, "x") != mp.name_prefix) {
    opt.error("namePrefix", fmt::format("found \"{}\"; allowed: a DNS-1123 label", mp.name_prefix));
  }
  const bool skip = skip_bad_rows || e.skip_bad_rows;
  switch (e.format) {
    case TraceFormat::Philly:
    case TraceFormat::Csv: {
      bool ok = true;
      const auto k = opt.choice("kind", {"PyTorchTrainingJob", "DeepSpeedJob", "GenericJob"});
      mp.kind = parse_kind(k, ok);
      mp.gpus_per_pod = opt.integer("gpusPerPod", 8, 1, model::kMaxGpusPerObject);
      break;
    }
    default:
      break;
  }
  if (e.format == TraceFormat::Philly) {
    mp.pools_per_group = opt.choice("pools", {"shared", "per-vc"}) == "per-vc";
    mp.gpus_per_node = opt.integer("gpusPerNode", 8, 1, model::kMaxGpusPerObject);
    mp.node_cpu = opt.quantity("nodeCpu", mp.node_cpu);
    mp.node_memory = opt.quantity("nodeMemory", mp.node_memory);
    mp.vc_file = sibling(e.path, opt.get("vcFile"), "philly_vc.csv");
  } else if (e.format == TraceFormat::AlibabaOpenB) {
    mp.shared_gpus = opt.choice("gpuMilli", {"round-up", "shared"}) == "shared";
    mp.replay_unscheduled = opt.choice("unscheduled", {"skip", "run"}) == "run";
    mp.keep_failures = opt.choice("failed", {"fail", "succeed"}) == "fail";
    mp.node_file = sibling(e.path, opt.get("nodeFile"), "openb_node_list_all_node.csv");
  } else if (e.format == TraceFormat::Csv) {
    for (const char* role : {"submit", "duration", "gpus", "queue", "priority", "kind", "name"}) {
      if (auto c = opt.get(std::string(role) + "Column")) mp.columns[role] = *c;
    }
    for (const char* role : {"submit", "duration"}) {
      if (!mp.columns.count(role)) {
        opt.error(std::string(role) + "Column",
                  fmt::format("required option {}Column is missing (the header name "
                              "of the {} column)",
                              role, role));
      }
    }
    mp.time_format = opt.choice("timeFormat", {"unix", "unix-ms", "datetime", "rfc3339"});
    mp.duration_unit = opt.choice("durationUnit", {"s", "ms", "us", "m", "h"});
  }
  opt.finish();
  if (!opt.ok) return nullptr;

  RowErrors errors(e.path, skip, out);
  switch (e.format) {
    case TraceFormat::Philly:
      if (!mp.vc_file.empty()) read_philly_vcs(*d, out);
      read_philly(*d, errors);
      break;
    case TraceFormat::AlibabaOpenB:
      read_openb(*d, errors);
      break;
    case TraceFormat::Csv:
      read_csv(*d, errors);
      break;
    case TraceFormat::K8sExport:
      read_k8s_export(*d, errors, out);
      break;
  }
  errors.finish();
  if (errors.failed() || has_errors(out)) return nullptr;
  d->bad_rows = errors.count();
  std::stable_sort(d->records.begin(), d->records.end(),
                   [](const TraceRecord& a, const TraceRecord& b) {
                     return std::tie(a.submit_us, a.line) < std::tie(b.submit_us, b.line);
                   });
  d->records.shrink_to_fit();
  assign_names(*d, mp.name_prefix);
  if (e.format == TraceFormat::Philly && !mp.vc_file.empty()) philly_cluster(*d);
  if (e.format == TraceFormat::AlibabaOpenB && !mp.node_file.empty()) {
    read_openb_nodes(*d, out);
    if (has_errors(out)) return nullptr;
    label_gpu_specs(*d);
  }
  if (e.queue.empty()) {
    std::vector<bool> used(d->groups.size(), false);
    for (const auto& r : d->records) {
      if (r.group >= 0) used[static_cast<std::size_t>(r.group)] = true;
    }
    if (e.format == TraceFormat::K8sExport) used.assign(d->groups.size(), true);
    derive_queues(*d, used);
  }
  if (d->unscheduled > 0) {
    out.push_back(Diagnostic{
        Severity::Warning, e.path, 0, 0, 0, "",
        fmt::format("{} pods the trace never scheduled are not replayed (options.unscheduled: "
                    "run replays them from creation to deletion)",
                    d->unscheduled)});
  }
  return d;
}

std::string format_trace_time(std::int64_t us) {
  const std::int64_t secs = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000);
  std::int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
  const std::int64_t sod = secs - days * 86400;
  // Civil date from days since 1970-01-01 (proleptic Gregorian).
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const std::int64_t doe = days - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = yoe + era * 400 + (month <= 2);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", year, month, day, sod / 3600,
                     sod / 60 % 60, sod % 60);
}

std::optional<std::int64_t> parse_trace_time(std::string_view text) {
  const auto t = trim(text);
  if (auto v = parse_real(t)) return to_us(*v, 1e6);
  return parse_datetime(t);
}

}  // namespace t9k::scenarios
