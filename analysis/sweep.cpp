#include "analysis/sweep.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/csv.hpp"
#include "analysis/detail/summary_file.hpp"
#include "analysis/goal.hpp"
#include "analysis/intervals.hpp"
#include "analysis/outputs.hpp"
#include "kernel/time.hpp"

namespace t9k::analysis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::optional<double> parse_number(std::string_view s) {
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool is_integer_text(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Splits at commas outside brackets, braces and quotes.
std::vector<std::string> split_top_level(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (const char c : s) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      depth = std::max(0, depth - 1);
    } else if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string number(double v) {
  if (!std::isfinite(v)) return "";
  return fmt::format("{}", v);  // shortest round-trip text
}

}  // namespace

MetricName split_metric_name(const std::string& name) {
  const auto a = name.find('/');
  if (a == std::string::npos) return {"cluster", "", name};
  const auto b = name.rfind('/');
  if (b == a) return {"cluster", "", name};
  return {name.substr(0, a), name.substr(a + 1, b - a - 1), name.substr(b + 1)};
}

std::vector<std::string> sweep_values(std::string_view spec, std::string& error) {
  std::vector<std::string> values;
  const auto parts = std::count(spec.begin(), spec.end(), ':');
  const bool looks_like_yaml =
      !spec.empty() && (spec.front() == '{' || spec.front() == '[' || spec.front() == '"');
  // FROM:TO of two numbers steps by 1, as `t9ksim size --param` always took it (one syntax for
  // both commands); durations need their step.
  if (parts == 1 && !looks_like_yaml) {
    const auto a = spec.find(':');
    const std::string_view from = spec.substr(0, a), to = spec.substr(a + 1);
    if (parse_number(from) && parse_number(to)) {
      return sweep_values(fmt::format("{}:{}:1", from, to), error);
    }
    bool durations = false;
    try {
      kernel::parse_duration(from);
      kernel::parse_duration(to);
      durations = true;
    } catch (const std::exception&) {
    }
    if (durations) {
      error = fmt::format("range {}: a range of durations needs a step, e.g. 1h:4h:30m", spec);
      return {};
    }
  }
  if (parts == 2 && !looks_like_yaml) {
    const auto a = spec.find(':');
    const auto b = spec.find(':', a + 1);
    const std::string_view from = spec.substr(0, a), to = spec.substr(a + 1, b - a - 1),
                           step = spec.substr(b + 1);
    const auto f = parse_number(from), t = parse_number(to), st = parse_number(step);
    if (f && t && st) {
      if (*st <= 0) {
        error = fmt::format("range {}: the step must be greater than 0", spec);
        return {};
      }
      if (*t < *f) {
        error = fmt::format("range {}: FROM is greater than TO", spec);
        return {};
      }
      const double count = std::floor((*t - *f) / *st + 1e-9) + 1;
      if (count > static_cast<double>(kMaxSweepPoints)) {
        error = fmt::format("range {} has {:.0f} values; at most {} are accepted", spec, count,
                            kMaxSweepPoints);
        return {};
      }
      const bool integers = is_integer_text(from) && is_integer_text(to) && is_integer_text(step);
      // Decimals as written (0:0.3:0.1 gives 0.3, not 0.30000000000000004).
      std::size_t decimals = 0;
      for (const std::string_view t : {from, to, step}) {
        const auto dot = t.find('.');
        if (dot != std::string_view::npos && t.find_first_of("eE") == std::string_view::npos) {
          decimals = std::max(decimals, t.size() - dot - 1);
        }
      }
      for (int k = 0; k < static_cast<int>(count); ++k) {
        const double v = *f + k * *st;
        if (integers) {
          values.push_back(fmt::format("{}", static_cast<long long>(std::llround(v))));
        } else {
          std::string text = fmt::format("{:.{}f}", v, decimals);
          values.push_back(fmt::format("{}", std::stod(text)));  // shortest form: "1.50" -> "1.5"
        }
      }
      return values;
    }
    // Durations: 1h:4h:30m.
    try {
      const auto df = kernel::parse_duration(from), dt = kernel::parse_duration(to),
                 ds = kernel::parse_duration(step);
      if (ds.count() <= 0 || dt < df) {
        error = fmt::format("range {}: expected FROM <= TO and a step greater than 0", spec);
        return {};
      }
      const auto count = (dt - df) / ds + 1;
      if (count > static_cast<long long>(kMaxSweepPoints)) {
        error = fmt::format("range {} has {} values; at most {} are accepted", spec, count,
                            kMaxSweepPoints);
        return {};
      }
      for (long long k = 0; k < count; ++k) values.push_back(kernel::format_duration(df + k * ds));
      return values;
    } catch (const std::exception&) {
      error = fmt::format("range {}: expected FROM:TO:STEP with three numbers or three durations",
                          spec);
      return {};
    }
  }
  for (auto& v : split_top_level(spec)) {
    v = trim(std::move(v));
    if (v.empty()) {
      error = fmt::format("{}: an empty value in the list", spec);
      return {};
    }
    values.push_back(std::move(v));
  }
  if (values.size() > kMaxSweepPoints) {
    error = fmt::format("{} values; at most {} are accepted", values.size(), kMaxSweepPoints);
    return {};
  }
  return values;
}

std::string sweep_csv(const SweepSummary& s) {
  std::vector<std::string> header{"point"};
  // A parameter's alias names its column when given; the full path otherwise.
  for (std::size_t k = 0; k < s.parameters.size(); ++k)
    header.push_back(k < s.aliases.size() && !s.aliases[k].empty() ? s.aliases[k]
                                                                   : s.parameters[k]);
  for (const char* h :
       {"group", "group_value", "metric", "n", "mean", "sd", "half_width", "low", "high"}) {
    header.emplace_back(h);
  }
  std::string out = csv_row(header);
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const auto& pt = s.points[i];
    for (const auto& [name, ms] : pt.replications.metrics) {
      const MetricName m = split_metric_name(name);
      const Interval& iv = ms.interval;
      std::vector<std::string> row{std::to_string(i)};
      for (const auto& v : pt.values) row.push_back(v);
      row.push_back(m.group);
      row.push_back(m.value);
      row.push_back(m.metric);
      row.push_back(std::to_string(iv.n));
      row.push_back(number(iv.mean));
      row.push_back(iv.n >= 2 ? number(iv.stddev) : "");
      row.push_back(iv.has_interval() ? number(iv.half_width) : "");
      row.push_back(iv.has_interval() ? number(interval_low(name, iv)) : "");
      row.push_back(iv.has_interval() ? number(interval_high(name, iv)) : "");
      out += csv_row(row);
    }
  }
  return out;
}

std::string sweep_summary_json(const SweepSummary& s, const fs::path& dir) {
  json j;
  j["kind"] = "sweep";
  j["version"] = s.version;
  j["scenario"] = s.scenario;
  j["parameters"] = s.parameters;
  j["points"] = json::array();
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const auto& pt = s.points[i];
    json p;
    p["point"] = i;
    p["dir"] = fs::relative(pt.dir, dir).generic_string();
    json values = json::object();
    for (std::size_t k = 0; k < s.parameters.size(); ++k) values[s.parameters[k]] = pt.values[k];
    p["values"] = values;
    p["replications"] = pt.replications.runs.size();
    if (!pt.replications.runs.empty()) p["seed"] = pt.replications.runs.front().seed;
    p["scenario_hash"] = pt.replications.scenario_hash;
    json metrics = json::object();
    for (const auto& [name, ms] : pt.replications.metrics) {
      const Interval& iv = ms.interval;
      json m{{"mean", iv.mean}, {"n", iv.n}};
      if (iv.has_interval()) {
        m["half_width"] = iv.half_width;
        m["low"] = interval_low(name, iv);
        m["high"] = interval_high(name, iv);
      }
      metrics[name] = m;
    }
    p["metrics"] = metrics;
    j["points"].push_back(p);
  }
  if (s.goal) {
    const GoalSummary& g = *s.goal;
    json goal{{"parameter", g.parameter},
              {"direction", g.direction},
              {"targets", g.targets},
              {"findings", g.findings}};
    goal["answer"] = g.answer ? json(*g.answer) : json(nullptr);
    goal["neighbour"] = g.neighbour ? json(*g.neighbour) : json(nullptr);
    json path = json::array();
    for (const auto& [value, met] : g.search_path) path.push_back({{"value", value}, {"met", met}});
    goal["search_path"] = path;
    j["goal"] = goal;
  }
  if (!s.targets.empty()) j["targets"] = s.targets;
  if (s.zipped) j["zipped"] = true;
  if (!s.aliases.empty()) j["aliases"] = s.aliases;
  if (!s.minimise.empty()) {
    j["minimise"] = s.minimise;
    const auto c = chosen_point(s);
    j["chosen_point"] = c ? json(*c) : json(nullptr);
  }
  j["files"] = {"sweep.csv", "report.html"};
  return j.dump(2) + "\n";
}

namespace {

// A path's segments, split at dots outside brackets and not escaped, unescaped:
// "a.b[x=1.5].nvidia\\.com/gpu" -> a, b[x=1.5], nvidia.com/gpu.
std::vector<std::string> path_segments(const std::string& path) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '\\' && i + 1 < path.size() && path[i + 1] == '.') {
      out.back() += '.';
      ++i;
      continue;
    }
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == '.' && depth == 0) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> parameter_labels(const SweepSummary& s) {
  std::vector<std::string> out = parameter_labels(s.parameters);
  for (std::size_t k = 0; k < out.size() && k < s.aliases.size(); ++k) {
    if (!s.aliases[k].empty()) out[k] = s.aliases[k];
  }
  return out;
}

std::vector<std::string> parameter_labels(const std::vector<std::string>& paths) {
  std::vector<std::vector<std::string>> segs;
  std::vector<std::size_t> used(paths.size(), 1);
  for (const auto& p : paths) segs.push_back(path_segments(p));
  auto label = [&](std::size_t i) {
    const auto& sg = segs[i];
    std::string out;
    for (std::size_t k = sg.size() - std::min(used[i], sg.size()); k < sg.size(); ++k)
      out += (out.empty() || sg[k].starts_with('[') ? "" : ".") + sg[k];
    return out;
  };
  for (bool again = true; again;) {
    again = false;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      for (std::size_t j = i + 1; j < paths.size(); ++j) {
        if (label(i) != label(j)) continue;
        for (const std::size_t k : {i, j}) {
          if (used[k] < segs[k].size()) {
            ++used[k];
            again = true;
          }
        }
      }
    }
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < paths.size(); ++i) out.push_back(label(i));
  return out;
}

std::optional<std::size_t> chosen_point(const SweepSummary& s) {
  if (s.minimise.empty()) return std::nullopt;
  const std::vector<Target> targets = parse_stored_targets(s.targets);
  std::optional<std::size_t> best;
  double best_mean = 0;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const auto& reps = s.points[i].replications;
    const auto m = reps.metrics.find(s.minimise);
    if (m == reps.metrics.end()) continue;
    const bool meets = std::all_of(targets.begin(), targets.end(), [&](const Target& t) {
      const TargetCheck c = check_target(t, reps);
      return c.present && c.met;
    });
    if (!meets) continue;
    if (!best || m->second.interval.mean < best_mean) {
      best = i;
      best_mean = m->second.interval.mean;
    }
  }
  return best;
}

SweepSummary write_sweep_summary(
    const fs::path& dir, const std::vector<std::string>& parameters,
    const std::vector<std::pair<std::vector<std::string>, std::vector<fs::path>>>& points,
    std::optional<GoalSummary> goal, std::vector<std::string> targets, std::string minimise,
    bool zipped, std::vector<std::string> aliases) {
  SweepSummary s;
  s.aliases = std::move(aliases);
  s.minimise = std::move(minimise);
  s.zipped = zipped;
  s.parameters = parameters;
  s.goal = std::move(goal);
  s.targets = std::move(targets);
  for (const auto& [values, rep_dirs] : points) {
    if (values.size() != parameters.size())
      throw std::invalid_argument("sweep point: one value per parameter");
    if (rep_dirs.empty()) throw std::invalid_argument("sweep point without runs");
    SweepPoint pt;
    pt.values = values;
    pt.dir = rep_dirs.front().parent_path();
    pt.replications = write_replication_summary(pt.dir, rep_dirs);
    s.points.push_back(std::move(pt));
  }
  if (!s.points.empty()) {
    s.scenario = s.points.front().replications.scenario;
    s.version = s.points.front().replications.version;
  }
  write_file_atomic(dir / "sweep.csv", sweep_csv(s));
  write_file_atomic(dir / "summary.json", sweep_summary_json(s, dir));
  return s;
}

SweepSummary load_sweep_summary(const fs::path& dir) {
  const fs::path file = dir / "summary.json";
  const json j = detail::read_summary_file(file);
  SweepSummary s;
  try {
    if (j.value("kind", "") != "sweep")
      throw std::runtime_error(file.string() + ": not a sweep summary");
    s.version = j.value("version", "");
    s.scenario = j.value("scenario", "");
    s.parameters = j.at("parameters").get<std::vector<std::string>>();
    if (j.contains("targets")) s.targets = j.at("targets").get<std::vector<std::string>>();
    s.minimise = j.value("minimise", "");
    s.zipped = j.value("zipped", false);
    if (j.contains("aliases")) s.aliases = j.at("aliases").get<std::vector<std::string>>();
    if (j.contains("goal")) {
      const json& g = j.at("goal");
      GoalSummary goal;
      goal.parameter = g.at("parameter").get<std::string>();
      goal.direction = g.at("direction").get<std::string>();
      goal.targets = g.at("targets").get<std::vector<std::string>>();
      goal.findings = g.at("findings").get<std::vector<std::string>>();
      if (!g.at("answer").is_null()) goal.answer = g.at("answer").get<std::string>();
      if (!g.at("neighbour").is_null()) goal.neighbour = g.at("neighbour").get<std::string>();
      for (const auto& step : g.value("search_path", json::array()))
        goal.search_path.emplace_back(step.at("value").get<std::string>(),
                                      step.at("met").get<bool>());
      s.goal = std::move(goal);
    }
    for (const auto& p : j.at("points")) {
      SweepPoint pt;
      for (const auto& name : s.parameters)
        pt.values.push_back(p.at("values").at(name).get<std::string>());
      pt.dir = dir / p.at("dir").get<std::string>();
      const json rs = json::parse(read_text_file(pt.dir / "summary.json"));
      std::vector<RunSummary> runs;
      for (const auto& r : rs.at("runs"))
        runs.push_back(load_run_summary(pt.dir / r.at("dir").get<std::string>()));
      pt.replications = summarize_replications(std::move(runs));
      read_pooled(rs, pt.replications);
      s.points.push_back(std::move(pt));
    }
  } catch (const json::exception& e) {
    detail::bad_summary(file, detail::json_reason(e));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(dir.string() + ": " + e.what());
  }
  return s;
}

}  // namespace t9k::analysis
