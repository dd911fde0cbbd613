#include "app/compare_command.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "analysis/aggregate.hpp"
#include "analysis/outputs.hpp"
#include "analysis/progress.hpp"
#include "analysis/recorder.hpp"
#include "analysis/report.hpp"
#include "analysis/result_folder.hpp"
#include "app/commands.hpp"
#include "app/options.hpp"
#include "app/target_groups.hpp"
#include "runs/exit_codes.hpp"
#include "runs/loading.hpp"
#include "runs/messages.hpp"
#include "runs/work.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/overlay.hpp"
#include "scenarios/format/scenario.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

namespace {

namespace fs = std::filesystem;

constexpr const char* kBaseName = "base";

// The file's text through the loaders' reader (regular files within the size limit), or nullopt
// after printing why.
std::optional<std::string> read_file(const std::string& path) {
  std::string text;
  std::vector<scenarios::Diagnostic> errors;
  if (!scenarios::read_input_file(path, text, errors)) {
    print_to_stderr(errors);
    return std::nullopt;
  }
  return text;
}

// Variant names become folder names.
bool valid_name(const std::string& n) {
  return !n.empty() && n != "." && n != ".." && std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

struct Variant {
  std::string name;
  std::string text;             // the scenario this variant runs
  analysis::Overlay overlay{};  // what it merged onto the base (none for the base)
};

}  // namespace

std::optional<std::pair<std::string, std::string>> parse_variant(std::string_view arg) {
  const auto eq = arg.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == arg.size()) return std::nullopt;
  return std::make_pair(std::string(arg.substr(0, eq)), std::string(arg.substr(eq + 1)));
}

int compare_command(const CompareArgs& args) {
  if (!args.run_one) {
    fmt::print(stderr, "t9ksim: error: compare has no runner\n");
    return kExitError;
  }
  const auto file_text = read_file(args.base);
  if (!file_text) return kExitUsage;
  // --set applies to every variant, after its overlay: the command line has the last word.
  const auto with_sets = [&](const std::string& text) -> std::optional<std::string> {
    if (args.sets.empty()) return text;
    std::vector<scenarios::Diagnostic> errors;
    std::string out = scenarios::apply_sets(text, args.sets, errors);
    if (!errors.empty()) {
      print_to_stderr(errors);
      return std::nullopt;
    }
    return out;
  };
  const auto base_text = with_sets(*file_text);
  if (!base_text) return kExitUsage;
  scenarios::LoadOptions lo;
  lo.max_jobs = args.max_jobs;
  lo.base_dir = fs::path(args.base).parent_path().string();
  const auto base =
      load_checked(*base_text, args.sets.empty() ? args.base : args.base + " with --set", lo,
                   args.check_settings);
  std::vector<scenarios::Diagnostic> findings = base.diagnostics;
  if (!args.sets.empty())
    findings = scenarios::point_at_sources(base.diagnostics, *base_text, {{args.base, *file_text}});
  if (!base.ok()) {
    print_to_stderr(findings);
    return kExitUsage;
  }
  if (!targets_fit("compare", args.targets, *base.scenario)) return kExitUsage;
  // The runs load quietly: the base's warnings are said once here (and kept in summary.json).
  if (!args.quiet) print_to_stderr(findings);
  if (args.variants.empty()) {
    fmt::print(stderr, "t9ksim: error: compare needs at least one --variant NAME=OVERLAY\n");
    return kExitUsage;
  }

  std::vector<Variant> variants{{kBaseName, *base_text, {}}};
  std::vector<fs::path> inputs(base.files.begin(), base.files.end());
  inputs.emplace_back(args.base);
  std::set<std::string> names{kBaseName};
  for (const auto& [name, overlay_file] : args.variants) {
    if (!valid_name(name)) {
      fmt::print(stderr,
                 "t9ksim: error: variant name \"{}\": use letters, digits, '-', '_' and '.'\n",
                 name);
      return kExitUsage;
    }
    if (analysis::is_fixed_output_name(name)) {
      fmt::print(stderr,
                 "t9ksim: error: variant name \"{}\": the comparison writes a file of that name; "
                 "choose another\n",
                 name);
      return kExitUsage;
    }
    if (!names.insert(name).second) {
      fmt::print(stderr, "t9ksim: error: variant name \"{}\" is used twice (\"{}\" is the base)\n",
                 name, kBaseName);
      return kExitUsage;
    }
    const auto overlay = read_file(overlay_file);
    if (!overlay) return kExitUsage;
    std::vector<scenarios::Diagnostic> errors;
    // The overlay's plugin commands run in the overlay's folder (given relative to the base's).
    std::string plugins_dir;
    {
      std::error_code ec;
      const auto from = std::filesystem::absolute(args.base, ec).parent_path();
      const auto to = std::filesystem::absolute(overlay_file, ec).parent_path();
      const auto rel = to.lexically_normal().lexically_relative(from.lexically_normal());
      if (!rel.empty() && rel != ".") plugins_dir = rel.generic_string();
    }
    const std::string merged_text =
        scenarios::merge_overlay(*file_text, *overlay, overlay_file, errors, plugins_dir);
    if (!errors.empty()) {
      print_to_stderr(errors);
      return kExitUsage;
    }
    const auto set_text = with_sets(merged_text);
    if (!set_text) return kExitUsage;
    std::string merged = *set_text;
    // The merged scenario must load like any scenario; paths in it resolve against the base's
    // folder.
    const std::string shown = fmt::format("{} + {}", args.base, overlay_file);
    const auto loaded = load_checked(merged, shown, lo, args.check_settings);
    if (!loaded.ok()) {
      // Each problem at the line the user wrote it: the overlay's, else the base's.
      print_to_stderr(scenarios::point_at_sources(
          loaded.diagnostics, merged, {{overlay_file, *overlay}, {args.base, *file_text}}));
      return kExitUsage;
    }
    if (loaded.scenario->seed != base.scenario->seed) {
      fmt::print(stderr,
                 "t9ksim: error: {}: the overlay changes spec.seed ({} -> {}); variants are "
                 "compared on common "
                 "random numbers, so they share the base's seed\n",
                 overlay_file, base.scenario->seed, loaded.scenario->seed);
      return kExitUsage;
    }
    variants.push_back({name, std::move(merged), {overlay_file, *overlay}});
    inputs.emplace_back(overlay_file);
    inputs.insert(inputs.end(), loaded.files.begin(), loaded.files.end());
  }

  const std::uint64_t reps = args.replications.value_or(
      static_cast<std::uint64_t>(std::max<std::int32_t>(1, base.scenario->replications)));
  if (reps == 0) {
    fmt::print(stderr, "t9ksim: error: --replications must be at least 1\n");
    return kExitUsage;
  }

  Work w;
  w.command = "compare";
  w.scenario_file = args.base;
  w.inputs = std::move(inputs);
  w.finish = Finish::Comparison;
  for (std::size_t k = 0; k < variants.size(); ++k) {
    const auto& v = variants[k];
    w.texts.push_back(v.text);
    w.files.emplace_back(v.name + "/scenario.yaml", v.text);
    WorkGroup g;
    g.name = v.name;
    g.overlay = v.overlay;
    for (std::uint64_t r = 0; r < reps; ++r) {
      g.units.push_back(w.units.size());
      w.units.push_back({v.name, k, r, fmt::format("{}/rep-{}", v.name, r)});
    }
    w.groups.push_back(std::move(g));
  }
  if (args.plan) return args.plan(w);
  const auto finished = execute_work(w, args.out_dir, args.run_one, args.threads, args.quiet);
  if (!args.quiet) print_finished(w, finished, args.out_dir);
  return finished.rc;
}

void add_compare_command(Commands& c) {
  auto args = std::make_shared<CompareArgs>();
  auto variant_specs = std::make_shared<std::vector<std::string>>();
  auto plugins = std::make_shared<PluginOptions>();
  auto* compare =
      c.add("compare",
            "Run a base scenario and variants (overlays merged onto it) on common random "
            "numbers and report each metric with its paired difference against the base");
  compare->add_option("BASE", args->base, "Base scenario file")->required();
  compare
      ->add_option("--variant", *variant_specs,
                   "NAME=OVERLAY (a partial scenario merged onto BASE)")
      ->required();
  compare->add_option("-o,--out", args->out_dir, "Results directory")->capture_default_str();
  compare
      ->add_option("-r,--replications", args->replications,
                   "Replications per variant (default: the base's spec.replications)")
      ->transform(replications_number());
  compare->add_option("-j,--threads", args->threads, "Threads (0: one per core)")
      ->capture_default_str()
      ->transform(threads_number());
  add_max_jobs_option(compare, args->max_jobs);
  compare->add_flag("-q,--quiet", args->quiet, "Print nothing but errors");
  add_set_option(compare, args->sets);
  compare
      ->add_option("--target", args->targets,
                   "[GROUP=VALUE] METRIC OP THRESHOLD [in P% of runs], as for `t9ksim size`: "
                   "checked for every variant, in the console and the report; repeatable")
      ->allow_extra_args(false);
  plugins->add_to(compare);
  c.on(compare, [&c, args, variant_specs, plugins] {
    for (const auto& v : *variant_specs) {
      const auto parsed = parse_variant(v);
      if (!parsed) {
        fmt::print(stderr, "t9ksim compare: --variant {}: expected NAME=OVERLAY\n", v);
        return runs::kExitUsage;
      }
      args->variants.push_back(*parsed);
    }
    std::vector<std::string> names{"base"};
    for (const auto& v : args->variants) names.push_back(v.first);
    runs::RunOneOptions base;
    base.overrides = args->sets;
    base.targets = args->targets;
    if (!plugins->runner("compare", args->run_one, names, base)) return runs::kExitUsage;
    args->check_settings = runs::settings_problems;
    if (auto& plan = c.plan_request()) {
      plan->dir = args->out_dir;
      plan->plugin_specs = plugins->specs;
      plan->reference_specs = plugins->references;
      plan->plugin_timeout = plugins->timeout;
      // Captures the flag, not args: args holding a function that holds args is a cycle.
      args->plan = [&plan, quiet = args->quiet, base](const runs::Work& w) {
        return runs::write_plan(w, base, *plan, quiet);
      };
    }
    return compare_command(*args);
  });
}

}  // namespace t9k::app
