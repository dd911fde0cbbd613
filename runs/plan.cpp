#include "runs/plan.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/outputs.hpp"
#include "analysis/result_folder.hpp"
#include "runs/exit_codes.hpp"
#include "runs/messages.hpp"
#include "runs/version.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::runs {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kPlanFormat = "t9ksim-plan/1";
constexpr const char* kPlanFile = "plan.json";
constexpr const char* kUnitMarker = "unit.json";
constexpr const char* kEmbeddedPrefix = "<";

// A plan, part or unit that cannot be used: exit 2 with the message.
struct PlanError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

bool embedded(const std::string& file) {
  return file.empty() || file.rfind(kEmbeddedPrefix, 0) == 0;
}

// The deepest folder holding every path.
fs::path common_folder(const std::vector<fs::path>& files) {
  fs::path common = files.front().parent_path();
  for (const auto& f : files) {
    fs::path next;
    const fs::path parent = f.parent_path();
    auto a = common.begin();
    auto b = parent.begin();
    for (; a != common.end() && b != parent.end() && *a == *b; ++a, ++b) next /= *a;
    common = next;
  }
  return common;
}

std::string read_text(const fs::path& file) {
  std::string text;
  std::vector<scenarios::Diagnostic> errors;
  if (!scenarios::read_input_file(file.string(), text, errors)) {
    throw PlanError(errors.empty() ? file.string() + ": cannot be read"
                                   : scenarios::format_diagnostic(errors.front()));
  }
  return text;
}

// Why a unit its shard finished cannot be merged, or "": its files must be those its marker lists
// (docs/scale-out.md "Verified units").
std::string unit_damage(const fs::path& dir, const json& marker) {
  const auto files = marker.find("files");
  if (files == marker.end() || !files->is_object())
    return fmt::format("its {} lists no files (a unit of an older t9ksim)", kUnitMarker);
  std::map<std::string, analysis::FileEntry> listed;
  try {
    for (const auto& [rel, e] : files->items())
      listed[rel] = {e.at("bytes").get<std::uintmax_t>(), e.at("hash").get<std::string>()};
  } catch (const json::exception&) {
    return fmt::format("its {}'s list of files is malformed", kUnitMarker);
  }
  return analysis::listing_difference(dir, listed, kUnitMarker);
}

// A unit's marker; PlanError naming the file when it is not one.
json read_marker(const fs::path& file) {
  try {
    json m = json::parse(read_text(file));
    if (!m.is_object()) throw PlanError(fmt::format("{}: not a unit marker", file.string()));
    return m;
  } catch (const json::exception& e) {
    throw PlanError(fmt::format("{}: not a unit marker: {}", file.string(), e.what()));
  }
}

// The plan as the shard and merge commands use it.
struct Plan {
  fs::path dir;
  std::string id;  // the hash of plan.json: units and parts name it
  json doc;
  Work work;
  RunOneOptions options;
};

Plan read_plan(const std::string& dir_arg) {
  Plan p;
  p.dir = fs::path(dir_arg);
  const fs::path file = p.dir / kPlanFile;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    throw PlanError(fmt::format("{}: not a plan folder (no {}; write one with t9ksim plan)",
                                dir_arg, kPlanFile));
  }
  const std::string text = read_text(file);
  try {
    p.doc = json::parse(text);
  } catch (const json::exception& e) {
    throw PlanError(fmt::format("{}: not valid JSON: {}", file.string(), e.what()));
  }
  p.id = analysis::hash_file(file);
  const auto& d = p.doc;
  try {
    if (d.value("format", "") != kPlanFormat) {
      throw PlanError(fmt::format("{}: format \"{}\"; expected {}", file.string(),
                                  d.value("format", ""), kPlanFormat));
    }
    if (d.at("version").get<std::string>() != T9KSIM_VERSION) {
      throw PlanError(fmt::format(
          "{}: written by t9ksim {}, this is {}: every shard and the merge must use the version "
          "that wrote the plan (outputs name it)",
          file.string(), d.at("version").get<std::string>(), T9KSIM_VERSION));
    }
    // Every copied input and text must be the bytes the plan listed.
    const json listing = json::parse(read_text(p.dir / analysis::kFilesMarker));
    for (const auto& [rel, entry] : listing.at("files").items()) {
      const fs::path f = p.dir / fs::path(rel);
      if (!fs::is_regular_file(f, ec))
        throw PlanError(fmt::format("{}: missing from the plan", f.string()));
      if (analysis::hash_file(f) != entry.at("hash").get<std::string>()) {
        throw PlanError(fmt::format(
            "{}: changed since the plan was written (hash {}, listed {}); write the plan again",
            f.string(), analysis::hash_file(f), entry.at("hash").get<std::string>()));
      }
    }
    if (!listing.at("files").contains(kPlanFile))
      throw PlanError(fmt::format("{}: not listed", file.string()));
    Work& w = p.work;
    w.command = d.at("command").get<std::string>();
    const auto finish = parse_finish(d.at("finish").get<std::string>());
    if (!finish)
      throw PlanError(fmt::format("{}: unknown finish \"{}\"", file.string(),
                                  d.at("finish").get<std::string>()));
    w.finish = *finish;
    w.report = d.at("report").get<bool>();
    const std::string scenario = d.at("scenario").get<std::string>();
    w.scenario_file = embedded(scenario) ? scenario : (p.dir / fs::path(scenario)).string();
    w.parameters = d.at("parameters").get<std::vector<std::string>>();
    if (d.contains("targets")) w.targets = d.at("targets").get<std::vector<std::string>>();
    w.minimise = d.value("minimise", "");
    w.zipped = d.value("zipped", false);
    if (d.contains("aliases")) w.aliases = d.at("aliases").get<std::vector<std::string>>();
    for (const auto& t : d.at("texts"))
      w.texts.push_back(read_text(p.dir / fs::path(t.get<std::string>())));
    for (const auto& f : d.at("files")) {
      const std::string rel = f.get<std::string>();
      w.files.emplace_back(rel, read_text(p.dir / "files" / fs::path(rel)));
    }
    for (const auto& u : d.at("units")) {
      WorkUnit unit{u.at("label").get<std::string>(), u.at("text").get<std::size_t>(),
                    u.at("replication").get<std::uint64_t>(), u.at("dir").get<std::string>()};
      if (unit.text >= w.texts.size())
        throw PlanError(fmt::format("{}: a unit names text {}", file.string(), unit.text));
      w.units.push_back(std::move(unit));
    }
    for (const auto& g : d.at("groups")) {
      WorkGroup group{g.at("name").get<std::string>(),
                      g.at("values").get<std::vector<std::string>>(),
                      g.at("units").get<std::vector<std::size_t>>(),
                      {}};
      if (g.contains("overlay")) {
        group.overlay = {g.at("overlay").at("file").get<std::string>(),
                         g.at("overlay").at("text").get<std::string>()};
      }
      for (const auto i : group.units) {
        if (i >= w.units.size())
          throw PlanError(fmt::format("{}: a group names unit {}", file.string(), i));
      }
      w.groups.push_back(std::move(group));
    }
    if (w.units.empty() || (w.finish != Finish::Single && w.groups.empty())) {
      throw PlanError(fmt::format("{}: no units", file.string()));
    }
    const auto& o = d.at("options");
    p.options.events = o.at("events").get<bool>();
    p.options.objects = o.at("objects").get<bool>();
    p.options.check = o.at("check").get<bool>();
    if (!o.at("seed").is_null()) p.options.seed = o.at("seed").get<std::uint64_t>();
    p.options.skip_bad_rows = o.at("skipBadRows").get<bool>();
    if (o.contains("overrides"))
      p.options.overrides = o.at("overrides").get<std::vector<std::string>>();
    if (o.contains("targets")) p.options.targets = o.at("targets").get<std::vector<std::string>>();
    kernel::SimDuration timeout{};
    try {
      timeout = kernel::parse_duration(o.at("pluginTimeout").get<std::string>());
    } catch (const std::exception& e) {
      throw PlanError(fmt::format("{}: options.pluginTimeout: {}", file.string(), e.what()));
    }
    for (const auto& spec : o.at("plugins")) {
      PluginArg a;
      if (auto err = parse_plugin_arg(spec.get<std::string>(), timeout, a)) {
        throw PlanError(fmt::format("{}: options.plugins: {}", file.string(), *err));
      }
      p.options.plugins.push_back(std::move(a));
    }
    // Plans written before --reference existed have none.
    for (const auto& spec : o.value("references", json::array())) {
      ReferenceArg r;
      if (auto err = parse_reference_arg(spec.get<std::string>(), timeout, r)) {
        throw PlanError(fmt::format("{}: options.references: {}", file.string(), *err));
      }
      p.options.references.push_back(std::move(r));
    }
  } catch (const json::exception& e) {
    throw PlanError(fmt::format("{}: not a t9ksim plan: {}", file.string(), e.what()));
  }
  return p;
}

// "0-3, 7, 9-12" for messages.
std::string ranges(const std::vector<std::size_t>& xs) {
  std::string out;
  for (std::size_t i = 0; i < xs.size();) {
    std::size_t j = i;
    while (j + 1 < xs.size() && xs[j + 1] == xs[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += i == j ? fmt::format("{}", xs[i]) : fmt::format("{}-{}", xs[i], xs[j]);
    i = j + 1;
  }
  return out;
}

std::optional<std::uint64_t> env_number(const char* name, std::string& error) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  std::uint64_t x = 0;
  const std::string_view s(v);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || end != s.data() + s.size()) {
    error = fmt::format("{}={}: expected a whole number", name, v);
    return std::nullopt;
  }
  return x;
}

// Seconds of CPU this process has used.
double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// A pilot over a few units at 1/kPilotShare of their horizon, for the cost estimate printed
// before a long study (issue 19 item 5). Linear in simulated time: warm-up and queues that grow
// over the horizon make it a rough guide, which the printed lines say.
constexpr double kPilotShare = 20;

struct Estimate {
  std::size_t units = 0;
  double per_unit_s = 0;
  std::vector<std::size_t> piloted;
};

std::optional<Estimate> pilot(const Work& w, const RunOneOptions& options,
                              const fs::path& scratch) {
  // The first unit of the first, middle and last group (or the first unit): different texts cost
  // differently.
  std::vector<std::size_t> picks;
  if (w.groups.empty()) {
    picks.push_back(0);
  } else {
    for (const std::size_t g : {std::size_t{0}, w.groups.size() / 2, w.groups.size() - 1}) {
      const std::size_t u = w.groups[g].units.front();
      if (std::find(picks.begin(), picks.end(), u) == picks.end()) picks.push_back(u);
    }
  }
  Estimate e;
  e.units = w.units.size();
  double total = 0;
  for (const std::size_t i : picks) {
    const auto& u = w.units[i];
    scenarios::LoadOptions lo;
    if (!embedded(w.scenario_file)) lo.base_dir = fs::path(w.scenario_file).parent_path().string();
    const auto loaded = scenarios::parse_scenario(w.texts[u.text], w.scenario_file, lo);
    if (!loaded.ok()) return std::nullopt;
    const auto horizon_us = loaded.scenario->horizon.count();
    const auto pilot_us =
        std::max<std::int64_t>(1000000, static_cast<std::int64_t>(horizon_us / kPilotShare));
    std::vector<scenarios::Diagnostic> errors;
    const std::string text = scenarios::apply_sets(
        w.texts[u.text], {fmt::format("horizon={}s", pilot_us / 1000000)}, errors);
    if (!errors.empty()) return std::nullopt;
    RunOneOptions o = options.for_unit(u.label);
    o.quiet = true;
    o.progress = false;
    o.check = false;
    std::string messages;
    o.messages = &messages;
    const fs::path dir = scratch / fmt::format("pilot-{}", i);
    const double start = cpu_seconds();
    const int rc = run_one(text, w.scenario_file, u.replication, dir.string(), o);
    const double used = cpu_seconds() - start;
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (rc != kExitOk && rc != kExitError) return std::nullopt;
    total += used * static_cast<double>(horizon_us) / static_cast<double>(pilot_us);
    e.piloted.push_back(i);
  }
  e.per_unit_s = total / static_cast<double>(picks.size());
  return e;
}

std::string seconds_text(double s) {
  if (s < 120) return fmt::format("{:.1f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

void print_estimate(const Estimate& e) {
  const double all = e.per_unit_s * static_cast<double>(e.units);
  fmt::print(
      "pilot: {} unit(s) at 1/{} of their horizon: about {} of CPU per unit, {} for all {} units "
      "(linear in simulated time; a rough guide)\n",
      e.piloted.size(), kPilotShare, seconds_text(e.per_unit_s), seconds_text(all), e.units);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const auto wall = [&](std::size_t lanes) {
    return e.per_unit_s * std::ceil(static_cast<double>(e.units) / static_cast<double>(lanes));
  };
  fmt::print("wall time: this machine ({} threads) {}", cores, seconds_text(wall(cores)));
  for (std::size_t n : {2, 4, 8, 16, 32, 64, 128}) {
    if (n > e.units) break;
    fmt::print("; {} shards of 1 thread {}", n, seconds_text(wall(n)));
  }
  fmt::print("\n");
}

}  // namespace

int write_plan(const Work& w, const RunOneOptions& unit_options, const PlanRequest& req,
               bool quiet) {
  // Every file the runs read, copied with the layout they have relative to each other.
  std::vector<fs::path> files;
  std::set<fs::path> seen;
  for (const auto& in : w.inputs) {
    if (embedded(in.string())) continue;
    std::error_code ec;
    const fs::path abs = fs::absolute(in).lexically_normal();
    if (!fs::is_regular_file(abs, ec) || !seen.insert(abs).second) continue;
    files.push_back(abs);
  }
  const fs::path root = files.empty() ? fs::path() : common_folder(files);
  const auto rel_input = [&](const fs::path& f) {
    return ("inputs" / fs::absolute(f).lexically_normal().lexically_relative(root))
        .generic_string();
  };

  analysis::ResultFolder folder(req.dir, {"plan", analysis::kFilesMarker, w.inputs});
  const fs::path out = folder.path();
  json doc;
  doc["format"] = kPlanFormat;
  doc["version"] = T9KSIM_VERSION;
  doc["command"] = w.command;
  doc["finish"] = to_string(w.finish);
  doc["report"] = w.report;
  doc["scenario"] = embedded(w.scenario_file) ? w.scenario_file : rel_input(w.scenario_file);
  doc["parameters"] = w.parameters;
  if (!w.targets.empty()) doc["targets"] = w.targets;
  if (!w.minimise.empty()) doc["minimise"] = w.minimise;
  if (w.zipped) doc["zipped"] = true;
  if (!w.aliases.empty()) doc["aliases"] = w.aliases;
  try {
    json inputs = json::array();
    for (const auto& f : files) {
      const std::string rel = rel_input(f);
      fs::create_directories((out / rel).parent_path());
      fs::copy_file(f, out / rel);
      inputs.push_back(rel);
    }
    doc["inputs"] = inputs;
    json texts = json::array();
    for (std::size_t i = 0; i < w.texts.size(); ++i) {
      const std::string rel = fmt::format("texts/{}.yaml", i);
      fs::create_directories(out / "texts");
      analysis::write_file_atomic(out / rel, w.texts[i]);
      texts.push_back(rel);
    }
    doc["texts"] = texts;
    json prepared = json::array();
    for (const auto& [rel, bytes] : w.files) {
      fs::create_directories((out / "files" / fs::path(rel)).parent_path());
      analysis::write_file_atomic(out / "files" / fs::path(rel), bytes);
      prepared.push_back(rel);
    }
    doc["files"] = prepared;
    json units = json::array();
    for (std::size_t i = 0; i < w.units.size(); ++i) {
      const auto& u = w.units[i];
      units.push_back({{"index", i},
                       {"label", u.label},
                       {"text", u.text},
                       {"replication", u.replication},
                       {"dir", u.dir}});
    }
    doc["units"] = units;
    json groups = json::array();
    for (const auto& g : w.groups) {
      groups.push_back({{"name", g.name}, {"values", g.values}, {"units", g.units}});
      if (!g.overlay.file.empty())
        groups.back()["overlay"] = {{"file", g.overlay.file}, {"text", g.overlay.text}};
    }
    doc["groups"] = groups;
    doc["options"] = {{"events", unit_options.events},
                      {"objects", unit_options.objects},
                      {"check", unit_options.check},
                      {"seed", unit_options.seed ? json(*unit_options.seed) : json(nullptr)},
                      {"skipBadRows", unit_options.skip_bad_rows},
                      {"plugins", req.plugin_specs},
                      {"references", req.reference_specs},
                      {"pluginTimeout", req.plugin_timeout}};
    if (!unit_options.overrides.empty()) doc["options"]["overrides"] = unit_options.overrides;
    if (!unit_options.targets.empty()) doc["options"]["targets"] = unit_options.targets;
    analysis::write_file_atomic(out / kPlanFile, doc.dump(2) + "\n");
  } catch (const analysis::OutputError&) {
    throw;
  } catch (const std::exception& e) {
    fmt::print(stderr, "t9ksim: error: {}\n", e.what());
    return kExitError;
  }
  std::optional<Estimate> estimate;
  if (req.pilot) {
    // The pilot runs against the original files (the plan is not committed yet) in a scratch
    // folder beside the staging one, removed afterwards.
    const fs::path scratch =
        out.parent_path() / ("." + fs::path(req.dir).filename().string() + ".t9ksim-pilot");
    estimate = pilot(w, unit_options, scratch);
    std::error_code ec;
    fs::remove_all(scratch, ec);
    if (estimate) {
      json e = {{"units", estimate->units},
                {"cpuSecondsPerUnit", estimate->per_unit_s},
                {"pilotUnits", estimate->piloted},
                {"pilotShare", 1.0 / kPilotShare},
                {"hardwareThreads", std::max(1u, std::thread::hardware_concurrency())}};
      analysis::write_file_atomic(out / "estimate.json", e.dump(2) + "\n");
    }
  }
  folder.commit();
  if (!quiet) {
    fmt::print(
        "plan: {} units of `t9ksim {}` ({} scenario text{}), {} input file{} copied; written to "
        "{}\n",
        w.units.size(), w.command, w.texts.size(), w.texts.size() == 1 ? "" : "s", files.size(),
        files.size() == 1 ? "" : "s", req.dir);
    if (estimate) {
      print_estimate(*estimate);
    } else if (req.pilot) {
      fmt::print("pilot: did not run (a unit failed at 1/{} of its horizon); no estimate\n",
                 kPilotShare);
    }
    fmt::print(
        "next: t9ksim shard {} --index I --count N --out PART-I (for I in 0..N-1), then t9ksim "
        "merge {} PART-* --out RESULT\n",
        req.dir, req.dir);
  }
  return kExitOk;
}

std::string shard_from_environment(std::optional<std::uint64_t>& index,
                                   std::optional<std::uint64_t>& count, std::string& source) {
  std::string error;
  if (!index) {
    if (auto x = env_number("T9KSIM_SHARD_INDEX", error)) {
      index = x;
      source = "T9KSIM_SHARD_INDEX";
    } else if (auto k = env_number("JOB_COMPLETION_INDEX", error)) {
      index = k;
      source = "JOB_COMPLETION_INDEX";
    } else if (auto s = env_number("SLURM_ARRAY_TASK_ID", error)) {
      const auto min = env_number("SLURM_ARRAY_TASK_MIN", error).value_or(0);
      if (*s < min)
        return fmt::format("SLURM_ARRAY_TASK_ID={} is below SLURM_ARRAY_TASK_MIN={}", *s, min);
      index = *s - min;
      source = "SLURM_ARRAY_TASK_ID";
    }
    if (!error.empty()) return error;
  }
  if (!count) {
    if (auto x = env_number("T9KSIM_SHARD_COUNT", error)) {
      count = x;
    } else if (auto s = env_number("SLURM_ARRAY_TASK_COUNT", error)) {
      count = s;
    }
    if (!error.empty()) return error;
  }
  if (!index)
    return "no shard index: give --index, or run under a Kubernetes Indexed Job "
           "(JOB_COMPLETION_INDEX) or a Slurm array (SLURM_ARRAY_TASK_ID)";
  if (!count)
    return "no shard count: give --count (a Kubernetes Indexed Job's completions), or run under a "
           "Slurm array (SLURM_ARRAY_TASK_COUNT)";
  if (*count == 0) return "--count must be at least 1";
  if (*index >= *count)
    return fmt::format("shard index {} is not below the count {}", *index, *count);
  return "";
}

int shard_command(const ShardArgs& args) {
  return guarded<PlanError>("shard", [&]() -> int {
    Plan p = read_plan(args.plan);
    std::optional<std::uint64_t> index = args.index;
    std::optional<std::uint64_t> count = args.count;
    std::string source = "--index";
    if (const auto err = shard_from_environment(index, count, source); !err.empty()) {
      fmt::print(stderr, "t9ksim shard: {}\n", err);
      return kExitUsage;
    }
    const fs::path part(args.out);
    const fs::path units_dir = part / "units";
    std::error_code ec;
    if (fs::exists(part, ec) && !fs::is_directory(part, ec))
      throw PlanError(fmt::format("{} is not a folder", args.out));
    fs::create_directories(units_dir);
    // One shard process per part folder at a time (the lock file lies inside the part, beside
    // units/); units already complete are kept (restartable).
    const analysis::FolderLock lock(units_dir);
    std::vector<std::size_t> todo;
    std::size_t done_before = 0;
    for (std::size_t i = static_cast<std::size_t>(*index); i < p.work.units.size();
         i += static_cast<std::size_t>(*count)) {
      const fs::path dir = units_dir / std::to_string(i);
      if (fs::is_regular_file(dir / kUnitMarker, ec)) {
        const json marker = read_marker(dir / kUnitMarker);
        if (marker.value("plan", "") != p.id) {
          throw PlanError(
              fmt::format("{}: a unit of another plan ({}); this plan is {}: give each plan its "
                          "own part folders",
                          dir.string(), marker.value("plan", ""), p.id));
        }
        if (const auto damage = unit_damage(dir, marker); !damage.empty()) {
          fmt::print(stderr, "t9ksim shard: unit {} in {} is damaged ({}); running it again\n", i,
                     dir.string(), damage);
        } else {
          ++done_before;
          continue;
        }
      }
      fs::remove_all(dir);  // a unit without its marker was cut short: run it again
      todo.push_back(i);
    }
    std::atomic<std::size_t> next{0};
    std::mutex print_mutex;
    std::vector<int> codes(todo.size(), kExitOk);
    unsigned threads =
        args.threads ? args.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(
        std::max<std::size_t>(1, std::min<std::size_t>(threads, todo.size())));
    {
      std::vector<std::jthread> pool;
      for (unsigned t = 0; t < threads; ++t) {
        pool.emplace_back([&] {
          for (std::size_t k; (k = next.fetch_add(1)) < todo.size();) {
            const std::size_t i = todo[k];
            const auto& u = p.work.units[i];
            const fs::path staging = units_dir / fmt::format(".{}.partial", i);
            RunOneOptions o = p.options.for_unit(u.label);
            o.quiet = true;
            std::string messages;
            o.messages = &messages;
            int rc = kExitError;
            try {
              fs::remove_all(staging);
              rc = run_one(p.work.texts[u.text], p.work.scenario_file, u.replication,
                           staging.string(), o);
              // A unit is complete when its run wrote its outputs: it passed, or failed a check or
              // an invariant (the merge reports that as the command would). Anything else is tried
              // again by the next shard run.
              if ((rc == kExitOk || rc == kExitError) &&
                  fs::exists(staging / analysis::kSummaryMarker)) {
                json listing = json::object();
                for (const auto& [rel, e] : analysis::list_files(staging))
                  listing[rel] = {{"bytes", e.bytes}, {"hash", e.hash}};
                const json marker = {{"plan", p.id},     {"index", i},
                                     {"label", u.label}, {"replication", u.replication},
                                     {"dir", u.dir},     {"exitCode", rc},
                                     {"files", listing}};
                analysis::write_file_atomic(staging / kUnitMarker, marker.dump(2) + "\n");
                fs::rename(staging, units_dir / std::to_string(i));
              }
            } catch (const std::exception& e) {
              messages += fmt::format("t9ksim: error: {}\n", e.what());
              rc = kExitError;
            }
            codes[k] = rc;
            if (!messages.empty() || rc != kExitOk) {
              const std::lock_guard<std::mutex> hold(print_mutex);
              fmt::print(stderr, "{}t9ksim shard: unit {} ({} replication {}) exit {}\n", messages,
                         i, u.label, u.replication, rc);
            }
          }
        });
      }
    }
    int worst = kExitOk;
    for (const int c : codes) worst = std::max(worst, c);
    if (!args.quiet) {
      fmt::print(
          "shard {}/{} (index from {}): {} of {} units, {} run now, {} already complete, in {}\n",
          *index, *count, source, todo.size() + done_before, p.work.units.size(), todo.size(),
          done_before, args.out);
    }
    return worst;
  });
}

int merge_command(const MergeArgs& args) {
  return guarded<PlanError>("merge", [&]() -> int {
    Plan p = read_plan(args.plan);
    const std::size_t n = p.work.units.size();
    std::vector<fs::path> found(n);
    std::vector<int> codes(n, kExitOk);
    std::vector<std::string> problems;
    std::error_code ec;
    std::vector<fs::path> inputs{p.dir / kPlanFile};
    for (const auto& part_arg : args.parts) {
      const fs::path units_dir = fs::path(part_arg) / "units";
      if (!fs::is_directory(units_dir, ec)) {
        throw PlanError(fmt::format(
            "{}: not a part folder (no units/; write one with t9ksim shard)", part_arg));
      }
      inputs.push_back(units_dir);
      for (const auto& e : fs::directory_iterator(units_dir)) {
        const std::string name = e.path().filename().string();
        if (name.starts_with(".")) continue;  // a unit cut short
        std::size_t i = 0;
        const auto [end, err] = std::from_chars(name.data(), name.data() + name.size(), i);
        if (err != std::errc() || end != name.data() + name.size() || !e.is_directory()) {
          problems.push_back(fmt::format("{}: not a unit folder", e.path().string()));
          continue;
        }
        if (!fs::is_regular_file(e.path() / kUnitMarker, ec)) continue;  // cut short
        json marker;
        try {
          marker = read_marker(e.path() / kUnitMarker);
        } catch (const PlanError& bad) {
          problems.push_back(bad.what());
          continue;
        }
        if (marker.value("plan", "") != p.id) {
          problems.push_back(fmt::format("{}: from another plan ({}; this plan is {})",
                                         e.path().string(), marker.value("plan", ""), p.id));
          continue;
        }
        if (i >= n || marker.value("index", n) != i) {
          problems.push_back(fmt::format("{}: unit {} is not in this plan of {} units",
                                         e.path().string(), name, n));
          continue;
        }
        if (!found[i].empty()) {
          problems.push_back(fmt::format("unit {} is in two parts: {} and {}", i, found[i].string(),
                                         e.path().string()));
          continue;
        }
        if (const auto damage = unit_damage(e.path(), marker); !damage.empty()) {
          problems.push_back(fmt::format(
              "{}: unit {} is damaged: {}; remove it and run its shard again (a shard runs the "
              "units that are missing)",
              e.path().string(), i, damage));
          continue;
        }
        found[i] = e.path();
        codes[i] = marker.value("exitCode", kExitError);
      }
    }
    std::vector<std::size_t> missing;
    for (std::size_t i = 0; i < n; ++i) {
      if (found[i].empty()) missing.push_back(i);
    }
    if (!missing.empty()) {
      problems.push_back(fmt::format(
          "{} of {} units are missing: {} (run their shards, or run them again: a shard "
          "skips what is complete)",
          missing.size(), n, ranges(missing)));
    }
    if (!problems.empty()) {
      for (const auto& m : problems) fmt::print(stderr, "t9ksim merge: error: {}\n", m);
      return kExitUsage;
    }
    analysis::ResultFolder folder(args.out, {p.work.command, analysis::kSummaryMarker, inputs});
    const fs::path out = folder.path();
    write_work_files(p.work, out);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& u = p.work.units[i];
      const fs::path to = u.dir.empty() ? out : out / fs::path(u.dir);
      fs::create_directories(to);
      for (const auto& e : fs::directory_iterator(found[i])) {
        if (e.path().filename() == kUnitMarker) continue;
        fs::copy(e.path(), to / e.path().filename(), fs::copy_options::recursive);
      }
    }
    const auto finished = finish_work(p.work, folder, codes);
    if (!finished.committed) {
      for (std::size_t i = 0; i < n; ++i) {
        if (codes[i] != kExitOk) {
          fmt::print(stderr, "t9ksim merge: unit {} ({} replication {}) failed with exit {}\n", i,
                     p.work.units[i].label, p.work.units[i].replication, codes[i]);
        }
      }
    }
    if (!args.quiet) print_finished(p.work, finished, args.out);
    return finished.rc;
  });
}

}  // namespace t9k::runs
