#include "app/generate_command.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "analysis/outputs.hpp"
#include "analysis/result_folder.hpp"
#include "app/commands.hpp"
#include "app/options.hpp"
#include "app/run_command.hpp"
#include "runs/messages.hpp"
#include "scenarios/format/explicit.hpp"
#include "scenarios/format/load.hpp"
#include "scenarios/format/scenario.hpp"
#include "scenarios/format/serialize.hpp"
#include "workload/generator.hpp"

namespace t9k::app {

using namespace runs;  // the library the commands are built on

namespace fs = std::filesystem;

namespace {}  // namespace

int generate_command(const GenerateArgs& args) {
  std::string text;
  std::string file = args.scenario;
  std::string dir = ".";
  if (file.empty()) {
    text = default_scenario_text();
    file = "default.yaml";
  } else {
    std::vector<scenarios::Diagnostic> errors;
    if (!scenarios::read_input_file(file, text, errors)) {
      print_diagnostics(errors);
      return 2;
    }
    dir = fs::path(file).parent_path().string();
    if (dir.empty()) dir = ".";
  }
  scenarios::LoadOptions options;
  options.max_jobs = args.max_jobs;
  options.base_dir = dir;
  const auto loaded = scenarios::parse_scenario(text, file, options);
  if (!loaded.ok()) {
    print_diagnostics(loaded.diagnostics);
    return 2;
  }
  const scenarios::Scenario& sc = *loaded.scenario;
  for (const auto& g : sc.workload.generators) {
    if (analysis::is_fixed_output_name(g.name + ".yaml")) {
      fmt::print(stderr,
                 "t9ksim generate: {}: generator \"{}\" would write {}.yaml, the name of the "
                 "scenario this command "
                 "writes; rename the generator\n",
                 file, g.name, g.name);
      return 2;
    }
  }
  std::vector<fs::path> inputs(loaded.files.begin(), loaded.files.end());
  if (!args.scenario.empty()) inputs.emplace_back(args.scenario);
  analysis::ResultFolder folder(args.out_dir, {"generate", analysis::kFilesMarker, inputs});
  const fs::path shown(args.out_dir);
  // Each generator's jobs from its own cursor: exactly what the world pulls lazily.
  const kernel::RngStreams streams(sc.seed, args.replication);
  std::vector<scenarios::ExplicitJob> refs;
  for (const auto& g : sc.workload.generators) {
    workload::GeneratorCursor cursor(g, streams, kernel::SimTime{sc.horizon}, sc.default_namespace);
    std::vector<scenarios::Object> objects;
    const std::string rel = g.name + ".yaml";
    while (auto s = cursor.next()) {
      refs.push_back(scenarios::ExplicitJob{rel, model::metadata_of(s->job).name.str(),
                                            s->submit_time, s->behaviour});
      objects.push_back(scenarios::to_object(s->job));
    }
    if (!objects.empty())
      analysis::write_file_atomic(folder.path() / rel, scenarios::to_json_stream(objects));
    if (!args.quiet)
      fmt::print("{}: {} jobs -> {}\n", g.name, objects.size(), (shown / rel).string());
  }
  std::vector<scenarios::Diagnostic> errors;
  std::string out = scenarios::scenario_with_explicit_jobs(text, dir, args.out_dir, refs, errors);
  if (!errors.empty()) {
    for (auto& e : errors) e.file = file;
    print_diagnostics(errors);
    return 2;
  }
  const std::string header = fmt::format(
      "# Written by t9ksim generate from {} (seed {}, replication {}): its generators' jobs as "
      "explicit\n"
      "# jobs. `t9ksim run` of this file with --first-replication {} repeats that replication "
      "exactly.\n",
      file, sc.seed, args.replication, args.replication);
  analysis::write_file_atomic(folder.path() / "scenario.yaml", header + out);
  folder.commit();
  if (!args.quiet)
    fmt::print("scenario: {} jobs -> {}\n", refs.size(), (shown / "scenario.yaml").string());
  return 0;
}

void add_generate_command(Commands& c) {
  auto args = std::make_shared<GenerateArgs>();
  auto* generate = c.add(
      "generate",
      "Write a scenario's generated jobs as manifests (DIR/<generator>.yaml) and the scenario "
      "with its generators replaced by those jobs (DIR/scenario.yaml), which runs identically");
  generate->add_option("SCENARIO", args->scenario,
                       "Scenario file (default: the embedded default scenario)");
  generate->add_option("-o,--out", args->out_dir, "Output directory")->required();
  generate->add_option("--replication", args->replication, "Replication whose draws are written")
      ->capture_default_str()
      ->transform(replication_number());
  add_max_jobs_option(generate, args->max_jobs);
  generate->add_flag("-q,--quiet", args->quiet, "Print nothing but errors");
  c.on(generate, [args] { return generate_command(*args); });
}

}  // namespace t9k::app
