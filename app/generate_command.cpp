#include "app/generate_command.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "app/run_command.hpp"
#include "scenarios/format/explicit.hpp"
#include "scenarios/format/scenario.hpp"
#include "scenarios/format/serialize.hpp"
#include "sim/workload.hpp"

namespace t9k::app {

namespace fs = std::filesystem;

namespace {

void print(const std::vector<scenarios::Diagnostic>& diags) {
  for (const auto& d : diags) {
    fmt::print(d.severity == scenarios::Severity::Error ? stderr : stdout, "{}\n", scenarios::format_diagnostic(d));
  }
}

bool write_file(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) {
    fmt::print(stderr, "t9ksim generate: cannot write {}\n", path.string());
    return false;
  }
  return true;
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

}  // namespace

int generate_command(const GenerateArgs& args) {
  std::string text;
  std::string file = args.scenario;
  std::string dir = ".";
  if (file.empty()) {
    text = default_scenario_text();
    file = "default.yaml";
  } else {
    if (!read_file(file, text)) {
      fmt::print(stderr, "t9ksim generate: cannot read {}\n", file);
      return 2;
    }
    dir = fs::path(file).parent_path().string();
    if (dir.empty()) dir = ".";
  }
  scenarios::LoadOptions options;
  options.base_dir = dir;
  const auto loaded = scenarios::parse_scenario(text, file, options);
  if (!loaded.ok()) {
    print(loaded.diagnostics);
    return 2;
  }
  const scenarios::Scenario& sc = *loaded.scenario;
  std::error_code ec;
  fs::create_directories(args.out_dir, ec);
  if (ec) {
    fmt::print(stderr, "t9ksim generate: cannot create {}: {}\n", args.out_dir, ec.message());
    return 1;
  }
  // Each generator's jobs from its own cursor: exactly what the world pulls lazily.
  const kernel::RngStreams streams(sc.seed, args.replication);
  std::vector<scenarios::ExplicitJob> refs;
  for (const auto& g : sc.workload.generators) {
    sim::GeneratorCursor cursor(g, streams, kernel::SimTime{sc.horizon}, sc.default_namespace);
    std::vector<scenarios::Object> objects;
    const std::string rel = g.name + ".yaml";
    while (auto s = cursor.next()) {
      refs.push_back(scenarios::ExplicitJob{rel, model::metadata_of(s->job).name, s->submit_time, s->behaviour});
      objects.push_back(scenarios::to_object(s->job));
    }
    if (!objects.empty() && !write_file(fs::path(args.out_dir) / rel, scenarios::to_json_stream(objects))) return 1;
    if (!args.quiet) fmt::print("{}: {} jobs -> {}\n", g.name, objects.size(), (fs::path(args.out_dir) / rel).string());
  }
  std::vector<scenarios::Diagnostic> errors;
  std::string out = scenarios::scenario_with_explicit_jobs(text, dir, args.out_dir, refs, errors);
  if (!errors.empty()) {
    for (auto& e : errors) e.file = file;
    print(errors);
    return 2;
  }
  const std::string header = fmt::format(
      "# Written by t9ksim generate from {} (seed {}, replication {}): its generators' jobs as explicit\n"
      "# jobs. `t9ksim run` of this file with --first-replication {} repeats that replication exactly.\n",
      file, sc.seed, args.replication, args.replication);
  const fs::path scenario_path = fs::path(args.out_dir) / "scenario.yaml";
  if (!write_file(scenario_path, header + out)) return 1;
  if (!args.quiet) fmt::print("scenario: {} jobs -> {}\n", refs.size(), scenario_path.string());
  return 0;
}

}  // namespace t9k::app
