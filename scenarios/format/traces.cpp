// Trace readers and the trace-to-job mapping (docs/traces.md).
#include "scenarios/format/traces.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "kernel/hash.hpp"
#include "scenarios/format/detail/decode.hpp"
#include "scenarios/format/detail/files.hpp"
#include "scenarios/format/serialize.hpp"

namespace t9k::scenarios {

namespace m = t9k::model;
namespace fs = std::filesystem;
using namespace detail;

namespace {

// Beyond this many findings only a count is added (a broken 80,000-row file stays readable).
constexpr std::int64_t kMaxRowFindings = 100;

// ---- CSV: one line at a time, fields with their 1-based columns ----

struct CsvField {
  std::string_view text;
  int column = 1;
};

// Splits one line (RFC 4180 quoting within the line; no line breaks inside quotes). Quoted
// fields are unescaped into `scratch`, which must outlive the fields.
void split_csv(std::string_view line, std::vector<CsvField>& out,
               std::vector<std::string>& scratch) {
  out.clear();
  scratch.clear();
  scratch.reserve(line.size());
  std::size_t i = 0;
  while (true) {
    const int col = static_cast<int>(i) + 1;
    if (i < line.size() && line[i] == '"') {
      std::string s;
      ++i;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            s += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        s += line[i++];
      }
      scratch.push_back(std::move(s));
      out.push_back(CsvField{scratch.back(), col});
      while (i < line.size() && line[i] != ',') ++i;
    } else {
      const std::size_t end = std::min(line.find(',', i), line.size());
      out.push_back(CsvField{line.substr(i, end - i), col});
      i = end;
    }
    if (i >= line.size()) break;
    ++i;  // the comma
  }
}

// The most memory a row may give a pod or node, in MiB: 8 PiB, the largest that is still a
// quantity (milli-bytes in 64 bits, model/quantity.hpp), as a node pool's memory may be.
constexpr std::int64_t kMaxMemoryMib = std::int64_t{1} << 33;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  s = trim(s);
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<double> parse_real(std::string_view s) {
  s = trim(s);
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// Whole microseconds of `x` units of `unit_us`, or nullopt when out of range.
std::optional<std::int64_t> to_us(double x, double unit_us) {
  const double us = x * unit_us;
  if (!std::isfinite(us) || std::fabs(us) > 9.2e18) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(us));
}

// "YYYY-MM-DD HH:MM:SS" (UTC, as Philly records it) or RFC 3339, to µs since the Unix epoch.
std::optional<std::int64_t> parse_datetime(std::string_view s) {
  s = trim(s);
  if (s.size() < 19) return std::nullopt;
  std::string text(s);
  if (text[10] == ' ') text[10] = 'T';
  if (text.size() == 19) text += 'Z';
  m::SimTime t{};
  if (!parse_timestamp(text, t)) return std::nullopt;
  return t.time_since_epoch().count();
}

class RowErrors {
 public:
  RowErrors(std::string file, bool skip, std::vector<Diagnostic>& out)
      : file_(std::move(file)), skip_(skip), out_(out) {}
  // One bad row: reported once, at its first problem.
  void bad(int line, int column, std::string_view field, std::string message) {
    ++count_;
    if (count_ > kMaxRowFindings) return;
    out_.push_back(Diagnostic{skip_ ? Severity::Warning : Severity::Error, file_, line, column, 0,
                              std::string(field), std::move(message)});
  }
  // A problem with the whole file (missing header column, unreadable): always an error.
  void fatal(int line, int column, std::string message) {
    fatal_ = true;
    out_.push_back(Diagnostic{Severity::Error, file_, line, column, 0, "", std::move(message)});
  }
  void finish() {
    if (count_ > kMaxRowFindings) {
      out_.push_back(
          Diagnostic{skip_ ? Severity::Warning : Severity::Error, file_, 0, 0, 0, "",
                     fmt::format("{} more bad rows not shown", count_ - kMaxRowFindings)});
    }
    if (count_ > 0 && skip_) {
      out_.push_back(Diagnostic{
          Severity::Warning, file_, 0, 0, 0, "",
          fmt::format("skipped {} bad row{} (skipBadRows)", count_, count_ == 1 ? "" : "s")});
    } else if (count_ > 0) {
      out_.push_back(
          Diagnostic{Severity::Error, file_, 0, 0, 0, "",
                     fmt::format("found {} bad row{}; the replay does not start (t9ksim run "
                                 "--skip-bad-rows, or skipBadRows: true on the entry, skips them)",
                                 count_, count_ == 1 ? "" : "s")});
    }
  }
  std::int64_t count() const { return count_; }
  bool failed() const { return fatal_ || (count_ > 0 && !skip_); }

 private:
  std::string file_;
  bool skip_;
  std::vector<Diagnostic>& out_;
  std::int64_t count_ = 0;
  bool fatal_ = false;
};

// Streams a CSV file: the header, then each non-blank row with its line number.
class CsvReader {
 public:
  CsvReader(const std::string& path, RowErrors& errors) : in_(path), errors_(errors) {
    if (!in_) {
      errors_.fatal(0, 0, "cannot open the file");
      return;
    }
    if (!std::getline(in_, line_)) {
      errors_.fatal(1, 1, "found an empty file; allowed: a header line, then rows");
      return;
    }
    line_no_ = 1;
    if (line_.size() >= 3 && line_.compare(0, 3, "\xEF\xBB\xBF") == 0)
      line_.erase(0, 3);  // UTF-8 BOM
    split_csv(line_, fields_, scratch_);
    for (std::size_t i = 0; i < fields_.size(); ++i) header_.emplace_back(trim(fields_[i].text));
    ok_ = true;
  }
  bool ok() const { return ok_; }
  // Index of a header column; reports a fatal error naming the columns found when `required`.
  std::optional<std::size_t> column(std::string_view name, bool required) {
    for (std::size_t i = 0; i < header_.size(); ++i) {
      if (header_[i] == name) return i;
    }
    if (required) {
      std::string found;
      for (const auto& h : header_) found += (found.empty() ? "" : ", ") + h;
      errors_.fatal(1, 1,
                    fmt::format("header: found no column \"{}\"; the header has: {}", name, found));
    }
    return std::nullopt;
  }
  bool next() {
    while (std::getline(in_, line_)) {
      ++line_no_;
      if (trim(line_).empty()) continue;
      split_csv(line_, fields_, scratch_);
      return true;
    }
    return false;
  }
  int line() const { return line_no_; }
  // The field of a column, or nullopt after reporting "missing column" for this row.
  std::optional<CsvField> field(std::size_t index) {
    if (index < fields_.size()) return fields_[index];
    errors_.bad(line_no_, static_cast<int>(line_.size()) + 1, header_[index],
                fmt::format("missing column {} (\"{}\"): the row has {} field{}", index + 1,
                            header_[index], fields_.size(), fields_.size() == 1 ? "" : "s"));
    return std::nullopt;
  }
  const std::string& header(std::size_t index) const { return header_[index]; }

 private:
  std::ifstream in_;
  RowErrors& errors_;
  std::string line_;
  int line_no_ = 0;
  std::vector<std::string> header_;
  std::vector<CsvField> fields_;
  std::vector<std::string> scratch_;
  bool ok_ = false;
};

// Field readers for one row: each reports the row bad at the field's column and returns nullopt.
struct Row {
  CsvReader& csv;
  RowErrors& errors;
  bool bad = false;

  std::optional<CsvField> get(std::size_t col, bool allow_empty = false) {
    if (bad) return std::nullopt;
    auto f = csv.field(col);
    if (!f) {
      bad = true;
      return std::nullopt;
    }
    if (!allow_empty && trim(f->text).empty()) {
      fail(*f, col, "found an empty value; allowed: a value");
      return std::nullopt;
    }
    return f;
  }
  void fail(const CsvField& f, std::size_t col, std::string message) {
    if (bad) return;
    bad = true;
    errors.bad(csv.line(), f.column, csv.header(col), std::move(message));
  }
  std::optional<std::int64_t> integer(std::size_t col, std::int64_t min, std::int64_t max) {
    auto f = get(col);
    if (!f) return std::nullopt;
    const auto v = parse_int(f->text);
    if (!v || *v < min || *v > max) {
      fail(*f, col,
           fmt::format("found \"{}\"; allowed: an integer in [{}, {}]", f->text, min, max));
      return std::nullopt;
    }
    return v;
  }
  // A non-negative amount of time in `unit_us` microseconds per unit.
  std::optional<std::int64_t> duration(std::size_t col, double unit_us) {
    auto f = get(col);
    if (!f) return std::nullopt;
    const auto v = parse_real(f->text);
    if (!v) {
      fail(*f, col, fmt::format("found \"{}\"; allowed: a number", f->text));
      return std::nullopt;
    }
    if (*v < 0) {
      fail(*f, col, fmt::format("found a negative duration {}; allowed: >= 0", f->text));
      return std::nullopt;
    }
    const auto us = to_us(*v, unit_us);
    if (!us)
      fail(*f, col, fmt::format("found {}; allowed: a duration below 290,000 years", f->text));
    return us;
  }
  std::optional<std::int64_t> time(std::size_t col, const std::string& format) {
    auto f = get(col);
    if (!f) return std::nullopt;
    std::optional<std::int64_t> us;
    if (format == "datetime" || format == "rfc3339") {
      us = parse_datetime(f->text);
    } else if (auto v = parse_real(f->text)) {
      us = to_us(*v, format == "unix-ms" ? 1e3 : 1e6);
    }
    if (!us) {
      fail(*f, col,
           fmt::format("found \"{}\"; allowed: a time ({})", f->text,
                       format == "datetime"  ? "YYYY-MM-DD HH:MM:SS, UTC"
                       : format == "rfc3339" ? "RFC 3339"
                       : format == "unix-ms" ? "milliseconds"
                                             : "seconds"));
    }
    return us;
  }
};

std::int32_t intern(std::vector<std::string>& table,
                    std::map<std::string, std::int32_t, std::less<>>& index, std::string_view s) {
  if (auto it = index.find(s); it != index.end()) return it->second;
  const auto i = static_cast<std::int32_t>(table.size());
  table.emplace_back(s);
  index.emplace(std::string(s), i);
  return i;
}

// ---- options ----

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

m::JobKind parse_kind(std::string_view s, bool& ok) {
  ok = true;
  if (s == "GenericJob") return m::JobKind::GenericJob;
  if (s == "PyTorchTrainingJob") return m::JobKind::PyTorchTrainingJob;
  if (s == "DeepSpeedJob") return m::JobKind::DeepSpeedJob;
  ok = false;
  return m::JobKind::PyTorchTrainingJob;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Queue of an openb qos class: (queue name, priority, preemptible).
// ---- formats ----

void read_philly(TraceData& d, RowErrors& errors) {
  CsvReader csv(d.file, errors);
  if (!csv.ok()) return;
  const auto c_time = csv.column("timestamp", true), c_dur = csv.column("duration", true),
             c_gpus = csv.column("num_gpus", true), c_vc = csv.column("cluster", true);
  if (!c_time || !c_dur || !c_gpus || !c_vc) return;
  std::map<std::string, std::int32_t, std::less<>> groups;  // the VC file's first, in its order
  for (std::size_t i = 0; i < d.groups.size(); ++i)
    groups.emplace(d.groups[i], static_cast<std::int32_t>(i));
  while (csv.next()) {
    Row row{csv, errors};
    TraceRecord r;
    r.line = csv.line();
    const auto t = row.time(*c_time, "datetime");
    const auto dur = row.duration(*c_dur, 1e6);
    const auto gpus = row.integer(*c_gpus, 1, 1'000'000);
    const auto vc = row.get(*c_vc);
    if (row.bad) continue;
    r.submit_us = *t;
    r.duration_us = *dur;
    r.gpus = static_cast<std::int32_t>(*gpus);
    r.group = intern(d.groups, groups, trim(vc->text));
    d.records.push_back(r);
  }
}

void read_philly_vcs(TraceData& d, std::vector<Diagnostic>& out) {
  RowErrors errors(d.mapping.vc_file, false, out);
  CsvReader csv(d.mapping.vc_file, errors);
  if (!csv.ok()) return;
  const auto c_vc = csv.column("vc", true), c_nodes = csv.column("node num", true);
  if (!c_vc || !c_nodes) return;
  while (csv.next()) {
    Row row{csv, errors};
    const auto vc = row.get(*c_vc);
    const auto n = row.integer(*c_nodes, 0, 1'000'000);
    if (row.bad) continue;
    d.group_nodes.emplace(std::string(trim(vc->text)), *n);
    d.groups.emplace_back(trim(vc->text));  // VC file order first (interned again below)
  }
  errors.finish();
}

void read_openb(TraceData& d, RowErrors& errors) {
  CsvReader csv(d.file, errors);
  if (!csv.ok()) return;
  const auto c_name = csv.column("name", true), c_cpu = csv.column("cpu_milli", true),
             c_mem = csv.column("memory_mib", true), c_gpu = csv.column("num_gpu", true),
             c_milli = csv.column("gpu_milli", true), c_spec = csv.column("gpu_spec", true),
             c_qos = csv.column("qos", true), c_phase = csv.column("pod_phase", true),
             c_create = csv.column("creation_time", true),
             c_delete = csv.column("deletion_time", true),
             c_sched = csv.column("scheduled_time", true);
  if (!c_name || !c_cpu || !c_mem || !c_gpu || !c_milli || !c_spec || !c_qos || !c_phase ||
      !c_create || !c_delete || !c_sched) {
    return;
  }
  std::map<std::string, std::int32_t, std::less<>> groups, specs;
  while (csv.next()) {
    Row row{csv, errors};
    TraceRecord r;
    r.line = csv.line();
    const auto name = row.get(*c_name);
    const auto cpu = row.integer(*c_cpu, 0, INT64_MAX / 2);
    const auto mem = row.integer(*c_mem, 0, kMaxMemoryMib);
    const auto gpus = row.integer(*c_gpu, 0, model::kMaxGpusPerObject);
    const auto milli = row.integer(*c_milli, 0, 1000);
    const auto spec = row.get(*c_spec, true);
    const auto qos = row.get(*c_qos);
    const auto phase = row.get(*c_phase, true);
    const auto created = row.duration(*c_create, 1e6);
    const auto deleted = row.duration(*c_delete, 1e6);
    const auto sched_f = row.get(*c_sched, true);
    if (row.bad) continue;
    std::optional<std::int64_t> start;
    if (!trim(sched_f->text).empty()) {
      start = row.duration(*c_sched, 1e6);
      if (row.bad) continue;
    }
    if (*gpus == 0 && *milli != 0) {
      row.fail(*csv.field(*c_milli), *c_milli,
               fmt::format("found gpu_milli {} with num_gpu 0; allowed: 0", *milli));
      continue;
    }
    const std::int64_t from = start ? *start : *created;
    if (*deleted < from) {
      row.fail(*csv.field(*c_delete), *c_delete,
               fmt::format("found deletion_time {} before {} {}: a negative duration",
                           *deleted / 1'000'000, start ? "scheduled_time" : "creation_time",
                           from / 1'000'000));
      continue;
    }
    if (!start && !d.mapping.replay_unscheduled) {
      ++d.unscheduled;
      continue;
    }
    r.submit_us = *created;
    r.duration_us = *deleted - from;
    r.gpus = static_cast<std::int32_t>(
        *gpus);  // a fractional gpu_milli is rounded up to the whole GPU...
    // ...unless GPUs are shared: a one-GPU pod then asks for its share (docs/traces.md).
    if (d.mapping.shared_gpus && *gpus == 1 && *milli > 0 && *milli < 1000)
      r.gpu_milli = static_cast<std::int16_t>(*milli);
    r.cpu_milli = *cpu;
    r.memory_mib = *mem;
    r.group = intern(d.groups, groups, trim(qos->text));
    if (!trim(spec->text).empty()) r.gpu_spec = intern(d.gpu_specs, specs, trim(spec->text));
    r.failed = d.mapping.keep_failures && trim(phase->text) == "Failed";
    r.name = static_cast<std::int32_t>(d.raw_names.size());
    d.raw_names.emplace_back(trim(name->text));
    d.records.push_back(r);
  }
}

void read_openb_nodes(TraceData& d, std::vector<Diagnostic>& out) {
  RowErrors errors(d.mapping.node_file, false, out);
  CsvReader csv(d.mapping.node_file, errors);
  if (!csv.ok()) return;
  const auto c_cpu = csv.column("cpu_milli", true), c_mem = csv.column("memory_mib", true),
             c_gpu = csv.column("gpu", true), c_model = csv.column("model", true);
  if (!c_cpu || !c_mem || !c_gpu || !c_model) return;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::string>, std::size_t> shapes;
  while (csv.next()) {
    Row row{csv, errors};
    const auto cpu = row.integer(*c_cpu, 1, INT64_MAX / 2);
    const auto mem = row.integer(*c_mem, 1, kMaxMemoryMib);
    const auto gpus = row.integer(*c_gpu, 0, model::kMaxGpusPerObject);
    const auto model = row.get(*c_model, true);
    if (row.bad) continue;
    const std::string mdl(trim(model->text));
    if (*gpus > 0 && mdl.empty()) {
      row.fail(*model, *c_model,
               fmt::format("found no model for a node with {} GPUs; allowed: a GPU model", *gpus));
      continue;
    }
    const auto key = std::make_tuple(*cpu, *mem, *gpus, mdl);
    auto [it, added] = shapes.emplace(key, d.pools.size());
    if (added) {
      NodePool p;
      // One pool per node shape, named after it (nodes become <pool>-<i>; sn is not kept).
      p.name = sanitize_job_name(fmt::format("{}-{}gpu-{}c-{}gi", mdl.empty() ? "cpu" : lower(mdl),
                                             *gpus, *cpu / 1000, *mem / 1024),
                                 "pool");
      p.gpus_per_node = static_cast<std::int32_t>(*gpus);
      p.gpu_model = mdl;
      p.cpu = m::Quantity::from_milli(*cpu);
      p.memory = m::Quantity::parse(fmt::format("{}Mi", *mem));
      d.pools.push_back(std::move(p));
    }
    ++d.pools[it->second].count;
  }
  errors.finish();
}

void read_csv(TraceData& d, RowErrors& errors) {
  CsvReader csv(d.file, errors);
  if (!csv.ok()) return;
  const auto col = [&](const char* role, bool required) -> std::optional<std::size_t> {
    const auto it = d.mapping.columns.find(role);
    if (it == d.mapping.columns.end()) return std::nullopt;
    return csv.column(it->second, required);
  };
  const auto c_submit = col("submit", true), c_dur = col("duration", true),
             c_gpus = col("gpus", true), c_queue = col("queue", true),
             c_prio = col("priority", true), c_kind = col("kind", true), c_name = col("name", true);
  if (!c_submit || !c_dur) return;
  if ((d.mapping.columns.count("gpus") && !c_gpus) ||
      (d.mapping.columns.count("queue") && !c_queue) ||
      (d.mapping.columns.count("priority") && !c_prio) ||
      (d.mapping.columns.count("kind") && !c_kind) ||
      (d.mapping.columns.count("name") && !c_name)) {
    return;
  }
  static const std::map<std::string, double> kUnits = {
      {"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"m", 6e7}, {"h", 3.6e9}};
  const double unit = kUnits.at(d.mapping.duration_unit);
  std::map<std::string, std::int32_t, std::less<>> groups;
  while (csv.next()) {
    Row row{csv, errors};
    TraceRecord r;
    r.line = csv.line();
    const auto t = row.time(*c_submit, d.mapping.time_format);
    const auto dur = row.duration(*c_dur, unit);
    std::optional<std::int64_t> gpus = 0, prio;
    if (c_gpus) gpus = row.integer(*c_gpus, 0, 1'000'000);
    if (c_prio) prio = row.integer(*c_prio, 0, 100);
    std::optional<CsvField> queue, kind, name;
    if (c_queue) queue = row.get(*c_queue);
    if (c_kind) kind = row.get(*c_kind);
    if (c_name) name = row.get(*c_name);
    if (row.bad) continue;
    if (kind) {
      bool ok = false;
      r.kind = static_cast<std::int32_t>(parse_kind(trim(kind->text), ok));
      if (!ok) {
        row.fail(*kind, *c_kind,
                 fmt::format("found \"{}\"; allowed: GenericJob, PyTorchTrainingJob, DeepSpeedJob",
                             kind->text));
        continue;
      }
    }
    r.submit_us = *t;
    r.duration_us = *dur;
    r.gpus = static_cast<std::int32_t>(*gpus);
    if (prio) r.priority = static_cast<std::int32_t>(*prio);
    if (queue) r.group = intern(d.groups, groups, trim(queue->text));
    if (name) {
      r.name = static_cast<std::int32_t>(d.raw_names.size());
      d.raw_names.emplace_back(trim(name->text));
    }
    d.records.push_back(r);
  }
}

// The objects of a `kubectl get -o yaml` file: a List's items (several Lists or plain objects,
// one per document, work too), each with its path ("items[3]", "[1].items[0]").
bool export_items(const std::string& file, RowErrors& errors, std::vector<Diagnostic>& out,
                  std::vector<Val>& items, const std::string* given_text = nullptr) {
  std::string read;
  if (!given_text && !read_text_file(file, read, out)) {
    errors.fatal(0, 0, "cannot read the file");
    return false;
  }
  const std::string& text = given_text ? *given_text : read;
  std::vector<Diagnostic> diags;
  const auto docs = parse_yaml(text, file, diags);
  if (!docs) {
    for (auto& x : diags) out.push_back(std::move(x));
    errors.fatal(0, 0, "the file is not YAML (reported above)");
    return false;
  }
  int index = -1;
  for (const auto& doc : *docs) {
    ++index;
    if (!doc.node.IsDefined() || doc.node.IsNull()) continue;
    const std::string base = docs->size() > 1 ? fmt::format("[{}]", index) : "";
    if (doc.node.IsMap() && doc.node["kind"].IsDefined() && doc.node["kind"].IsScalar() &&
        doc.node["kind"].Scalar() == "List") {
      const YAML::Node list = doc.node["items"];
      if (!list.IsDefined() || !list.IsSequence()) {
        errors.fatal(doc.line, 1,
                     "found a List without items; allowed: kind: List with items: [...]");
        continue;
      }
      for (std::size_t i = 0; i < list.size(); ++i) {
        items.push_back(Val{list[i], list[i].Mark(),
                            fmt::format("{}items[{}]", base.empty() ? "" : base + ".", i)});
      }
    } else {
      items.push_back(Val{doc.node, doc.node.Mark(), base});
    }
  }
  return true;
}

YAML::Node map_at(const YAML::Node& n, const char* key) {
  return n.IsDefined() && n.IsMap() ? n[key] : YAML::Node();
}

std::string kind_of(const YAML::Node& item) {
  const YAML::Node k = map_at(item, "kind");
  return k.IsDefined() && k.IsScalar() ? k.Scalar() : std::string();
}

// An exported object as a manifest: the status and the server's metadata fields dropped.
YAML::Node without_server_fields(const YAML::Node& item) {
  YAML::Node copy = YAML::Clone(item);
  copy.remove("status");
  if (copy["metadata"].IsDefined() && copy["metadata"].IsMap()) {
    for (const char* k : {"creationTimestamp", "uid", "resourceVersion", "generation",
                          "managedFields", "selfLink"}) {
      copy["metadata"].remove(k);
    }
  }
  return copy;
}

// The first error of a decode, "path: message".
std::string first_error(const std::vector<Diagnostic>& diags, std::string fallback) {
  for (const auto& x : diags) {
    if (x.severity == Severity::Error) return (x.path.empty() ? "" : x.path + ": ") + x.message;
  }
  return fallback;
}

// Resource names a node reports that no pod of a simulation asks for: Kubernetes' own counts
// and storage (docs/traces.md "Cluster from an export").
bool node_only_resource(std::string_view name) {
  return name == "pods" || name == "ephemeral-storage" || name.starts_with("hugepages-") ||
         name.starts_with("attachable-volumes-");
}

// Nodes of an export as node pools, Queues as queues (docs/traces.md "Cluster from an export").
// Nodes of one shape (allocatable resources, labels, GPU model) share a pool, which keeps their
// names in export order; pools are named after the GPU model.
void read_export_cluster(const std::string& file, const std::vector<Val>& items, RowErrors& errors,
                         std::vector<NodePool>& pools, std::vector<m::Queue>& queues,
                         std::vector<std::string>& notes) {
  std::map<std::string, std::size_t> pool_of_shape;
  std::set<std::string> node_names, pool_names, queue_names;
  std::vector<std::string> tainted, not_ready, cordoned;
  std::set<std::string> dropped;
  for (const auto& item : items) {
    const std::string kind = kind_of(item.node);
    if (kind != "Node" && kind != "Queue") continue;
    const int line = item.mark.line + 1, column = item.mark.column + 1;
    const std::string prefix = item.path.empty() ? "" : item.path + ".";
    std::vector<Diagnostic> diags;
    Report r(file, diags, 0);
    if (kind == "Queue") {
      std::optional<Object> obj;
      try {
        obj = decode_object(r, Val{without_server_fields(item.node), item.mark, item.path});
      } catch (const BudgetExceeded&) {
        obj.reset();
      }
      if (!obj || has_errors(diags) || !std::holds_alternative<m::Queue>(*obj)) {
        errors.bad(line, column, item.path,
                   "found an invalid Queue: " + first_error(diags, "not a Queue"));
        continue;
      }
      m::Queue q = std::get<m::Queue>(*obj);
      if (!queue_names.insert(q.metadata.name).second) {
        errors.bad(
            line, column, prefix + "metadata.name",
            fmt::format("found queue \"{}\" twice; allowed: one Queue per name", q.metadata.name));
        continue;
      }
      queues.push_back(std::move(q));
      continue;
    }
    const YAML::Node meta = map_at(item.node, "metadata");
    const YAML::Node spec = map_at(item.node, "spec");
    const YAML::Node status = map_at(item.node, "status");
    const auto name = read_string(
        r, Val{map_at(meta, "name"), map_at(meta, "name").Mark(), prefix + "metadata.name"});
    if (!name || !is_dns1123_subdomain(*name)) {
      errors.bad(line, column, prefix + "metadata.name",
                 name
                     ? fmt::format("found \"{}\"; allowed: a node name (DNS-1123 subdomain)", *name)
                     : first_error(diags, "missing metadata.name; allowed: the node's name"));
      continue;
    }
    if (!node_names.insert(*name).second) {
      errors.bad(line, column, prefix + "metadata.name",
                 fmt::format("found node \"{}\" twice; allowed: one Node per name", *name));
      continue;
    }
    // What pods can get: allocatable (capacity less what the system reserves), else capacity.
    const bool has_alloc = map_at(status, "allocatable").IsDefined();
    const char* res_key = has_alloc ? "allocatable" : "capacity";
    const Val res{map_at(status, res_key), map_at(status, res_key).Mark(),
                  prefix + "status." + res_key};
    NodePool shape;
    bool bad = false;
    if (!res.node.IsDefined() || !res.node.IsMap()) {
      errors.bad(line, column, prefix + "status.allocatable",
                 "missing status.allocatable and status.capacity; allowed: a node as the API "
                 "server returns it");
      continue;
    }
    for (const auto& [key, v] : FreeMap(r, res).entries()) {
      if (node_only_resource(key)) {
        dropped.insert(key);
        continue;
      }
      const auto q = read_quantity(r, v);
      if (!q) {
        bad = true;
        break;
      }
      if (key == m::kResourceCpu) {
        shape.cpu = *q;
      } else if (key == m::kResourceMemory) {
        shape.memory = *q;
      } else if (key == m::kResourceGpu) {
        if (q->milli() % 1000 != 0 || q->units_ceil() > m::kMaxGpusPerObject) {
          errors.bad(v.mark.line + 1, v.mark.column + 1, v.path,
                     fmt::format("found {}; allowed: a whole number of GPUs, at most {}",
                                 describe(v.node), m::kMaxGpusPerObject));
          bad = true;
          break;
        }
        shape.gpus_per_node = static_cast<std::int32_t>(q->units_ceil());
      } else if (!q->is_zero()) {
        shape.extra_resources[key] = *q;
      }
    }
    if (bad) {
      // The quantity's own finding, where it is.
      const auto it = std::find_if(diags.begin(), diags.end(), [](const Diagnostic& x) {
        return x.severity == Severity::Error;
      });
      if (it != diags.end()) errors.bad(it->line, it->column, it->path, it->message);
      continue;
    }
    if (shape.cpu.milli() <= 0 || shape.memory.milli() <= 0) {
      errors.bad(res.mark.line + 1, res.mark.column + 1, res.path,
                 fmt::format("found no {}; allowed: a node with cpu and memory",
                             shape.cpu.milli() <= 0 ? "cpu" : "memory"));
      continue;
    }
    const Val labels{map_at(meta, "labels"), map_at(meta, "labels").Mark(),
                     prefix + "metadata.labels"};
    if (labels.present()) {
      for (const auto& [key, v] : FreeMap(r, labels).entries()) {
        // The world sets the hostname and topology labels of every node itself.
        if (key == m::kLabelHostname || key == m::kLabelRack || key == m::kLabelSwitch) continue;
        if (key == m::kLabelGpuModel) {
          shape.gpu_model = v.node.Scalar();
        } else {
          shape.labels[key] = v.node.Scalar();
        }
      }
    }
    if (has_errors(diags)) {
      errors.bad(line, column, item.path, "found an invalid Node: " + first_error(diags, ""));
      continue;
    }
    const YAML::Node unsched = map_at(spec, "unschedulable");
    const bool is_cordoned =
        unsched.IsDefined() && unsched.IsScalar() && unsched.Scalar() == "true";
    const YAML::Node taints = map_at(spec, "taints");
    if (taints.IsDefined() && taints.IsSequence()) {
      for (const auto& t : taints) {
        const YAML::Node effect = map_at(t, "effect");
        if (effect.IsDefined() && effect.IsScalar() &&
            (effect.Scalar() == "NoSchedule" || effect.Scalar() == "NoExecute")) {
          tainted.push_back(*name);
          break;
        }
      }
    }
    const YAML::Node conds = map_at(status, "conditions");
    if (conds.IsDefined() && conds.IsSequence()) {
      for (const auto& c : conds) {
        const YAML::Node t = map_at(c, "type"), st = map_at(c, "status");
        if (t.IsDefined() && t.IsScalar() && t.Scalar() == "Ready" &&
            !(st.IsDefined() && st.IsScalar() && st.Scalar() == "True")) {
          not_ready.push_back(*name);
        }
      }
    }
    // One pool per shape; the key holds everything the pool carries.
    std::string key = fmt::format("{}|{}|{}|{}", shape.cpu.milli(), shape.memory.milli(),
                                  shape.gpus_per_node, shape.gpu_model);
    for (const auto& [k, q] : shape.extra_resources) key += fmt::format("|r:{}={}", k, q.milli());
    for (const auto& [k, v] : shape.labels) key += fmt::format("|l:{}={}", k, v);
    auto [it, fresh] = pool_of_shape.emplace(key, pools.size());
    if (fresh) {
      // The GPU model as a DNS-1123 label ("NVIDIA-A100-SXM4-80GB" -> "nvidia-a100-sxm4-80gb").
      std::string base;
      for (char ch : shape.gpu_model.substr(0, 56)) {
        const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        base += (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') ? l : '-';
      }
      while (!base.empty() && base.front() == '-') base.erase(0, 1);
      while (!base.empty() && base.back() == '-') base.pop_back();
      if (base.empty()) base = shape.gpus_per_node > 0 ? "gpu" : "cpu";
      std::string pool_name = base;
      for (int n = 2; !pool_names.insert(pool_name).second; ++n)
        pool_name = fmt::format("{}-{}", base, n);
      shape.name = pool_name;
      pools.push_back(std::move(shape));
    }
    NodePool& p = pools[it->second];
    p.node_names.push_back(*name);
    ++p.count;
    if (is_cordoned) {
      p.cordoned.push_back(*name);
      cordoned.push_back(*name);
    }
  }
  const auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < 5; ++i) s += (i ? ", " : "") + names[i];
    if (names.size() > 5) s += fmt::format(", and {} more", names.size() - 5);
    return s;
  };
  if (!pools.empty()) {
    std::string what;
    for (const auto& p : pools) {
      what += fmt::format("{}{} ({} node{}{})", what.empty() ? "" : ", ", p.name, p.count,
                          p.count == 1 ? "" : "s",
                          p.gpus_per_node > 0 ? fmt::format(" x {} GPUs", p.gpus_per_node) : "");
    }
    std::string skipped;
    for (const auto& d : dropped) skipped += (skipped.empty() ? "" : ", ") + d;
    notes.push_back(
        fmt::format("cluster from the export: {} node{} in {} pool{}: {}; allocatable resources{}",
                    node_names.size(), node_names.size() == 1 ? "" : "s", pools.size(),
                    pools.size() == 1 ? "" : "s", what,
                    skipped.empty() ? "" : " (not simulated: " + skipped + ")"));
  }
  if (!cordoned.empty()) {
    notes.push_back(
        fmt::format("{} node{} cordoned at the export (spec.unschedulable) start cordoned: {}",
                    cordoned.size(), cordoned.size() == 1 ? "" : "s", list(cordoned)));
  }
  if (!not_ready.empty()) {
    notes.push_back(fmt::format(
        "{} node{} not Ready at the export start Ready (the fault model decides their future): {}",
        not_ready.size(), not_ready.size() == 1 ? "" : "s", list(not_ready)));
  }
  if (!tainted.empty()) {
    notes.push_back(fmt::format(
        "{} node{} with NoSchedule or NoExecute taints: taints are not simulated, any pod may be "
        "placed there: {}",
        tainted.size(), tainted.size() == 1 ? "" : "s", list(tainted)));
  }
}

// The latest time an export records (docs/forecast.md "The export's time"): any object's
// creationTimestamp, condition transition or heartbeat, start, finish or completion, or write
// of a field manager (managedFields[].time).
void latest_time(const YAML::Node& n, std::int64_t& latest, int depth = 0) {
  if (depth > 64) return;
  if (n.IsSequence()) {
    for (const auto& x : n) latest_time(x, latest, depth + 1);
    return;
  }
  if (!n.IsMap()) return;
  for (const auto& kv : n) {
    const YAML::Node& v = kv.second;
    if (v.IsScalar() && kv.first.IsScalar()) {
      static const std::set<std::string> keys = {
          "creationTimestamp", "lastTransitionTime", "lastHeartbeatTime", "startTime",
          "startedAt",         "finishedAt",         "completionTime",    "time"};
      if (keys.count(kv.first.Scalar())) {
        m::SimTime t{};
        if (parse_timestamp(v.Scalar(), t)) latest = std::max(latest, t.time_since_epoch().count());
      }
    } else {
      latest_time(v, latest, depth + 1);
    }
  }
}

// `kubectl get <kinds> -o yaml` (docs/traces.md "k8s-export"): each job of the List keeps its
// spec, is submitted at its creationTimestamp and runs for end - start as its status, its
// pods and its conditions record them; Nodes and Queues make the export's cluster.
void read_k8s_export(TraceData& d, RowErrors& errors, std::vector<Diagnostic>& out) {
  std::vector<Val> items;
  if (!export_items(d.file, errors, out, items)) return;
  read_export_cluster(d.file, items, errors, d.pools, d.queues, d.cluster_notes);
  d.latest_us = INT64_MIN;
  for (const auto& item : items) latest_time(item.node, d.latest_us);
  // Pods of the export, by the job that owns them (metadata.ownerReferences): when they started
  // and when their containers finished, for jobs whose own status has no times.
  struct PodTimes {
    std::optional<std::int64_t> first_start;
    std::optional<std::int64_t> last_finish;
    bool unfinished = false;  // a container without a terminated state
    std::vector<std::pair<std::string, std::string>>
        placed;  // live pods on a node: (name, nodeName)
  };
  std::map<std::string, PodTimes> pods;  // "namespace/Kind/name"
  const auto scalar_time = [](const YAML::Node& n) -> std::optional<std::int64_t> {
    if (!n.IsDefined() || !n.IsScalar()) return std::nullopt;
    m::SimTime t{};
    if (!parse_timestamp(n.Scalar(), t)) return std::nullopt;
    return t.time_since_epoch().count();
  };
  const auto namespace_of = [&](const YAML::Node& item) {
    const YAML::Node ns = map_at(map_at(item, "metadata"), "namespace");
    return ns.IsDefined() && ns.IsScalar() && !ns.Scalar().empty() ? ns.Scalar()
                                                                   : std::string("default");
  };
  const auto is_job_kind = [](const std::string& k) {
    return k == "GenericJob" || k == "PyTorchTrainingJob" || k == "DeepSpeedJob";
  };
  std::map<std::string, int> other_kinds;
  for (const auto& item : items) {
    const std::string kind = kind_of(item.node);
    if (kind != "Pod") continue;
    const YAML::Node owners = map_at(map_at(item.node, "metadata"), "ownerReferences");
    if (!owners.IsDefined() || !owners.IsSequence()) continue;
    for (const auto& o : owners) {
      const std::string okind = kind_of(o);
      const YAML::Node oname = map_at(o, "name");
      if (!is_job_kind(okind) || !oname.IsDefined() || !oname.IsScalar()) continue;
      PodTimes& t = pods[namespace_of(item.node) + "/" + okind + "/" + oname.Scalar()];
      const YAML::Node status = map_at(item.node, "status");
      // Where it runs (spec.initialState): a pod bound to a node and not finished.
      const YAML::Node pod_phase = map_at(status, "phase"),
                       node_name = map_at(map_at(item.node, "spec"), "nodeName");
      const YAML::Node pod_name = map_at(map_at(item.node, "metadata"), "name");
      if (pod_phase.IsDefined() && pod_phase.IsScalar() &&
          (pod_phase.Scalar() == "Running" || pod_phase.Scalar() == "Pending") &&
          node_name.IsDefined() && node_name.IsScalar() && !node_name.Scalar().empty() &&
          pod_name.IsDefined() && pod_name.IsScalar()) {
        t.placed.emplace_back(pod_name.Scalar(), node_name.Scalar());
      }
      if (const auto st = scalar_time(map_at(status, "startTime"))) {
        t.first_start = t.first_start ? std::min(*t.first_start, *st) : *st;
      }
      const YAML::Node containers = map_at(status, "containerStatuses");
      if (containers.IsDefined() && containers.IsSequence()) {
        for (const auto& c : containers) {
          const auto finished =
              scalar_time(map_at(map_at(map_at(c, "state"), "terminated"), "finishedAt"));
          if (finished) {
            t.last_finish = t.last_finish ? std::max(*t.last_finish, *finished) : *finished;
          } else {
            t.unfinished = true;
          }
        }
      } else {
        t.unfinished = true;
      }
    }
  }

  std::set<std::string> queues;
  std::map<std::string, std::vector<std::string>> unfinished;  // phase -> job names
  std::map<std::string, std::int64_t> sources;                 // how run times were derived -> jobs
  for (const auto& item : items) {
    const int line = item.mark.line + 1, column = item.mark.column + 1;
    if (!item.node.IsMap()) {
      errors.bad(line, column, item.path,
                 "found " + describe(item.node) + "; allowed: a job object");
      continue;
    }
    const std::string kind = kind_of(item.node);
    if (!kind.empty() && !is_job_kind(kind)) {
      // Pods (read above), PodGroups: the cluster's state, not jobs to replay. Nodes and
      // Queues were read as the export's cluster.
      if (kind != "Node" && kind != "Queue") ++other_kinds[kind];
      continue;
    }
    const std::string prefix = item.path.empty() ? "" : item.path + ".";
    const YAML::Node meta = map_at(item.node, "metadata");
    const YAML::Node status = map_at(item.node, "status");
    // Times from the raw document: the T9k status decoder does not keep them.
    const YAML::Node created_node = map_at(meta, "creationTimestamp");
    const auto created = scalar_time(created_node);
    if (!created) {
      const bool at_meta = meta.IsDefined() && meta.IsMap();
      errors.bad(created_node.IsDefined() ? created_node.Mark().line + 1
                 : at_meta                ? meta.Mark().line + 1
                                          : line,
                 created_node.IsDefined() ? created_node.Mark().column + 1
                 : at_meta                ? meta.Mark().column + 1
                                          : column,
                 prefix + "metadata.creationTimestamp",
                 created_node.IsDefined()
                     ? fmt::format(
                           "found \"{}\"; allowed: an RFC 3339 time",
                           created_node.IsScalar() ? created_node.Scalar() : describe(created_node))
                     : "missing metadata.creationTimestamp; allowed: an RFC 3339 time (when the "
                       "job was submitted)");
      continue;
    }
    // A field that is present must be a time; an absent one falls through to the next source.
    bool bad_time = false;
    const auto time_field = [&](const YAML::Node& n,
                                const std::string& path) -> std::optional<std::int64_t> {
      if (!n.IsDefined() || n.IsNull()) return std::nullopt;
      if (auto t = scalar_time(n)) return t;
      errors.bad(n.Mark().line + 1, n.Mark().column + 1, path,
                 fmt::format("found \"{}\"; allowed: an RFC 3339 time",
                             n.IsScalar() ? n.Scalar() : describe(n)));
      bad_time = true;
      return std::nullopt;
    };
    // The lastTransitionTime of a condition of this type with status True.
    const auto condition = [&](const char* type) -> std::optional<std::int64_t> {
      const YAML::Node conds = map_at(status, "conditions");
      if (!conds.IsDefined() || !conds.IsSequence()) return std::nullopt;
      for (std::size_t i = 0; i < conds.size(); ++i) {
        const YAML::Node c = conds[i];
        const YAML::Node t = map_at(c, "type"), st = map_at(c, "status");
        if (t.IsDefined() && t.IsScalar() && t.Scalar() == type && st.IsDefined() &&
            st.IsScalar() && st.Scalar() == "True") {
          return time_field(map_at(c, "lastTransitionTime"),
                            fmt::format("{}status.conditions[{}].lastTransitionTime", prefix, i));
        }
      }
      return std::nullopt;
    };
    const YAML::Node phase_node = map_at(status, "phase");
    const std::string phase =
        phase_node.IsDefined() && phase_node.IsScalar() ? phase_node.Scalar() : "";
    const YAML::Node name_node = map_at(meta, "name");
    const std::string job_name =
        name_node.IsDefined() && name_node.IsScalar() ? name_node.Scalar() : item.path;
    const PodTimes* pt = nullptr;
    if (const auto it = pods.find(namespace_of(item.node) + "/" + kind + "/" + job_name);
        it != pods.end())
      pt = &it->second;

    // The end (docs/traces.md "k8s-export"): status.completionTime, else the Completed or Failed
    // condition's lastTransitionTime, else the last container of its pods to finish.
    std::optional<std::int64_t> end =
        time_field(map_at(status, "completionTime"), prefix + "status.completionTime");
    std::string end_from = "status.completionTime";
    if (!end && !bad_time) {
      const auto completed = condition("Completed");
      const auto failed = condition("Failed");
      if (completed || failed) {
        end = std::max(completed.value_or(INT64_MIN), failed.value_or(INT64_MIN));
        end_from = "conditions";
      } else if (pt && pt->last_finish && !pt->unfinished) {
        end = pt->last_finish;
        end_from = "pods";
      }
    }
    // The start: status.startTime, else its pods' first startTime, else the Initialized
    // condition (pods created: includes the wait for nodes), else the creation time (the whole
    // time in the cluster counts as run time).
    std::optional<std::int64_t> start =
        time_field(map_at(status, "startTime"), prefix + "status.startTime");
    std::string start_from = "status.startTime";
    if (!start && !bad_time) {
      if (pt && pt->first_start) {
        start = pt->first_start;
        start_from = "pods";
      } else if (const auto init = condition("Initialized")) {
        start = init;
        start_from = "Initialized condition (approximate: includes the wait)";
      } else if (!bad_time) {
        start = created;
        start_from = "creationTimestamp (approximate: includes the wait)";
      }
    }
    if (bad_time) continue;
    if (!end) {
      if (phase == "Succeeded" || phase == "Failed") {
        errors.bad(
            status.IsDefined() ? status.Mark().line + 1 : line,
            status.IsDefined() ? status.Mark().column + 1 : column, prefix + "status",
            fmt::format(
                "found a {} job with no end time: no status.completionTime, no Completed or Failed "
                "condition with status True, and no pod of it whose containers all terminated",
                phase));
      } else {
        // Still running (or pending, paused) when the export was taken: its run time is unknown.
        unfinished[phase.empty() ? "without a phase" : phase].push_back(job_name);
        // Kept for spec.initialState, which reports a job that does not decode (a replay does not).
        TraceData::Unfinished u;
        u.path = item.path;
        u.line = line;
        u.phase = phase;
        u.created_us = *created;
        if (pt && !pt->placed.empty()) {
          u.placed = pt->placed;
          u.start_us = start;
          u.start_from = start_from;
          if (const auto running = condition("Running");
              running && (start_from.starts_with("creationTimestamp") ||
                          start_from.starts_with("Initialized"))) {
            u.start_us = running;
            u.start_from = "Running condition";
          }
        }
        std::vector<Diagnostic> item_diags;
        Report r(d.file, item_diags, 0);
        std::optional<Object> obj;
        try {
          obj = decode_object(r, Val{without_server_fields(item.node), item.mark, item.path});
        } catch (const BudgetExceeded&) {
          obj.reset();
        }
        if (!obj || has_errors(item_diags) || !is_job(*obj)) {
          u.error = first_error(item_diags, "not a GenericJob, PyTorchTrainingJob or DeepSpeedJob");
        } else {
          u.job = to_job(*obj);
        }
        d.unfinished.push_back(std::move(u));
      }
      continue;
    }
    if (*end < *start) {
      errors.bad(line, column, prefix + "status",
                 fmt::format("found an end ({}) before the start ({}): a negative run time",
                             end_from, start_from));
      continue;
    }
    const YAML::Node copy = without_server_fields(item.node);
    std::vector<Diagnostic> item_diags;
    Report r(d.file, item_diags, 0);
    std::optional<Object> obj;
    try {
      obj = decode_object(r, Val{copy, item.mark, item.path});
    } catch (const BudgetExceeded&) {
      obj.reset();
    }
    if (!obj || has_errors(item_diags) || !is_job(*obj)) {
      errors.bad(
          line, column, item.path,
          "found an invalid job: " +
              first_error(item_diags, "not a GenericJob, PyTorchTrainingJob or DeepSpeedJob"));
      continue;
    }
    ++sources[start_from == end_from ? "start and end from " + start_from
                                     : "start from " + start_from + ", end from " + end_from];
    m::Job job = to_job(*obj);
    TraceRecord rec;
    rec.line = line;
    rec.submit_us = *created;
    rec.duration_us = *end - *start;
    // Recorded waits are exact only from a start the cluster recorded (t9ksim replay-check).
    rec.start_us = *start;
    rec.start_exact = start_from == "status.startTime" || start_from == "pods";
    rec.object = static_cast<std::int32_t>(d.objects.size());
    rec.name = static_cast<std::int32_t>(d.raw_names.size());
    d.raw_names.push_back(m::metadata_of(job).name);
    if (const auto& s = m::scheduler_of(job).t9k_scheduler;
        s && !s->queue.empty() && s->queue != m::kDefaultQueue) {
      if (queues.insert(s->queue).second) d.groups.push_back(s->queue);
    }
    d.objects.push_back(std::move(job));
    d.records.push_back(rec);
  }
  // Every assumption said: where run times came from, what was not replayed and why.
  if (!sources.empty() &&
      !(sources.size() == 1 && sources.begin()->first == "start and end from status.startTime")) {
    std::string how;
    for (const auto& [what, n] : sources)
      how += fmt::format("{}{} job{}: {}", how.empty() ? "" : "; ", n, n == 1 ? "" : "s", what);
    out.push_back(Diagnostic{Severity::Warning, d.file, 0, 0, 0, "",
                             "run times derived (docs/traces.md): " + how});
  }
  for (const auto& [phase, names] : unfinished) {
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < 5; ++i) list += (i ? ", " : "") + names[i];
    if (names.size() > 5) list += fmt::format(", and {} more", names.size() - 5);
    out.push_back(Diagnostic{
        Severity::Warning, d.file, 0, 0, 0, "",
        fmt::format("{} job{} {} at the export ({}): not replayed, a replay needs the run time "
                    "of a finished job",
                    names.size(), names.size() == 1 ? "" : "s",
                    phase == "without a phase" ? "without a phase" : "still " + phase, list)});
  }
  if (!other_kinds.empty()) {
    std::string kinds;
    for (const auto& [k, n] : other_kinds)
      kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", n, k);
    out.push_back(Diagnostic{
        Severity::Warning, d.file, 0, 0, 0, "",
        fmt::format("not replayed: {} (the cluster's objects; pods give their jobs' run times)",
                    kinds)});
  }
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
    d.names[static_cast<std::size_t>(r.name)] = std::move(n);
  }
}

void philly_cluster(TraceData& d) {
  std::int64_t total = 0;
  for (const auto& [vc, n] : d.group_nodes) total += n;
  const auto pool = [&](std::string name, std::int64_t count) {
    NodePool p;
    p.name = std::move(name);
    p.count = static_cast<std::int32_t>(std::min<std::int64_t>(count, 1'000'000));
    p.gpus_per_node = d.mapping.gpus_per_node;
    p.cpu = d.mapping.node_cpu;
    p.memory = d.mapping.node_memory;
    return p;
  };
  if (!d.mapping.pools_per_group) {
    d.pools.push_back(pool("philly", total));
    return;
  }
  for (const auto& g : d.groups) {  // VC file order
    const auto it = d.group_nodes.find(g);
    if (it == d.group_nodes.end()) continue;
    NodePool p = pool(sanitize_job_name("vc-" + g, "vc"), it->second);
    p.labels[kLabelVirtualCluster] = g;
    d.pools.push_back(std::move(p));
  }
}

void derive_queues(TraceData& d, const std::vector<bool>& used_groups) {
  std::set<std::string> seen;  // k8s-export: its own Queues are there already and win
  for (const auto& q : d.queues) seen.insert(q.metadata.name);
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

// Pools whose model is one of a multi-model gpu_spec carry that spec's label.
void label_gpu_specs(TraceData& d) {
  for (const auto& spec : d.gpu_specs) {
    if (spec.find('|') == std::string::npos) continue;
    std::set<std::string> models;
    std::size_t i = 0;
    while (i <= spec.size()) {
      const std::size_t j = std::min(spec.find('|', i), spec.size());
      models.insert(std::string(trim(std::string_view(spec).substr(i, j - i))));
      i = j + 1;
    }
    for (auto& p : d.pools) {
      if (models.count(p.gpu_model))
        p.labels[kLabelGpuSpecPrefix + sanitize_job_name(spec, "spec")] = "true";
    }
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

namespace {
std::optional<ExportCluster> export_cluster(const std::string& path, const std::string* text,
                                            std::vector<Diagnostic>& out) {
  RowErrors errors(path, false, out);
  std::vector<Val> items;
  ExportCluster c;
  if (export_items(path, errors, out, items, text))
    read_export_cluster(path, items, errors, c.pools, c.queues, c.notes);
  // No errors.finish(): its closing line speaks of a replay; each bad Node or Queue is reported.
  if (errors.failed() || has_errors(out)) return std::nullopt;
  return c;
}
}  // namespace

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

std::shared_ptr<const InitialStateData> load_initial_state(const std::string& path,
                                                           std::optional<std::int64_t> at_us,
                                                           std::vector<Diagnostic>& out) {
  // The replay's reader finds every job, its times and its pods; its warnings are about replaying
  // finished jobs, so only its errors are kept.
  TraceData d;
  d.file = path;
  d.format = TraceFormat::K8sExport;
  std::vector<Diagnostic> found;
  RowErrors errors(path, false, found);
  read_k8s_export(d, errors, found);
  bool failed = false;
  for (auto& x : found) {
    if (x.severity != Severity::Error) continue;
    out.push_back(std::move(x));
    failed = true;
  }
  auto st = std::make_shared<InitialStateData>();
  st->file = path;
  st->at_us = at_us ? *at_us : d.latest_us;
  for (const auto& r : d.records) st->finished_run_us.push_back(r.duration_us);
  std::set<std::string> nodes;
  for (const auto& p : d.pools) nodes.insert(p.node_names.begin(), p.node_names.end());
  std::vector<std::string> later, unknown_nodes, paused;
  for (const auto& u : d.unfinished) {
    if (!u.error.empty()) {
      out.push_back(Diagnostic{Severity::Error, path, u.line, 1, 0, u.path,
                               "found a job that spec.initialState cannot start from: " + u.error});
      failed = true;
      continue;
    }
    const std::string& name = m::metadata_of(u.job).name;
    if (u.created_us > st->at_us) {
      later.push_back(name);
      continue;
    }
    InitialJob j;
    j.job = u.job;
    j.path = u.path;
    j.line = u.line;
    j.created_us = u.created_us;
    j.running = !u.placed.empty();
    if (j.running) {
      j.pins = u.placed;
      j.elapsed_us = std::max<std::int64_t>(0, st->at_us - u.start_us.value_or(u.created_us));
      j.elapsed_from = u.start_from;
      for (const auto& [pod, node] : u.placed) {
        if (!nodes.empty() && !nodes.count(node)) unknown_nodes.push_back(pod + " on " + node);
      }
    } else if (u.phase == "Paused") {
      paused.push_back(name);
    }
    st->jobs.push_back(std::move(j));
  }
  if (failed) return nullptr;
  std::stable_sort(st->jobs.begin(), st->jobs.end(), [](const InitialJob& a, const InitialJob& b) {
    return std::tuple(!a.running, a.created_us, a.line) <
           std::tuple(!b.running, b.created_us, b.line);
  });
  const auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size() && i < 5; ++i) s += (i ? ", " : "") + names[i];
    if (names.size() > 5) s += fmt::format(", and {} more", names.size() - 5);
    return s;
  };
  const auto plural = [](std::size_t n) { return n == 1 ? "" : "s"; };
  std::int64_t running = 0;
  for (const auto& j : st->jobs) running += j.running;
  const std::int64_t queued = static_cast<std::int64_t>(st->jobs.size()) - running;
  st->notes.push_back(fmt::format(
      "time zero is {}{}: {} running job{} placed on their recorded nodes, {} waiting job{} "
      "queued in creation order",
      format_trace_time(st->at_us), at_us ? "" : " (the latest time the export records)", running,
      plural(static_cast<std::size_t>(running)), queued, plural(static_cast<std::size_t>(queued))));
  if (!later.empty()) {
    st->notes.push_back(fmt::format("{} job{} created after time zero left out: {}", later.size(),
                                    plural(later.size()), list(later)));
  }
  if (!unknown_nodes.empty()) {
    st->notes.push_back(
        fmt::format("{} pod{} on nodes the export has no Node object for (placed by the scheduler "
                    "if the cluster has no such node): {}",
                    unknown_nodes.size(), plural(unknown_nodes.size()), list(unknown_nodes)));
  }
  if (!paused.empty()) {
    st->notes.push_back(
        fmt::format("{} paused job{} start paused (resume them with a resumeJob operation): {}",
                    paused.size(), plural(paused.size()), list(paused)));
  }
  return st;
}

std::optional<ExportCluster> load_export_cluster(const std::string& path,
                                                 std::vector<Diagnostic>& out) {
  return export_cluster(path, nullptr, out);
}

std::optional<ExportCluster> parse_export_cluster(const std::string& text, const std::string& file,
                                                  std::vector<Diagnostic>& out) {
  return export_cluster(file, &text, out);
}

std::optional<std::int64_t> parse_trace_time(std::string_view text) {
  const auto t = trim(text);
  if (auto v = parse_real(t)) return to_us(*v, 1e6);
  return parse_datetime(t);
}

}  // namespace t9k::scenarios
