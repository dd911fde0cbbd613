// Helpers shared by the fuzz targets (fuzz/README.md).
//
// Inputs that stand for several files use one container format, so one byte string can be a
// results folder or a trace with its sibling file: lines `=== NAME` start a part named NAME;
// bytes before the first such line form the part named by `first`. A name is kept only when it
// is a plain relative path (no "..", no leading '/', at most 3 levels), so a target never writes
// outside its scratch folder.
#pragma once

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>

namespace t9k::fuzz {

// Inputs that went through every stage of their target (a scenario that loaded, a trace expanded,
// a page written): the replay prints it and CTest requires a minimum, so a harness whose seeds
// all stop at the first error cannot pass unnoticed.
inline std::size_t completed_inputs = 0;

// T9KSIM_FUZZ_VERBOSE=1 prints every message the targets format: how to see why a seed stops.
inline void show(const std::string& message) {
  static const bool verbose = [] {
    const char* v = std::getenv("T9KSIM_FUZZ_VERBOSE");
    return v && *v && std::string_view(v) != "0";
  }();
  if (verbose) std::fprintf(stderr, "%s\n", message.c_str());
}

// A base scenario that loads, with a named list of each kind an overlay or --set follows by name
// (node pools, queues wrapping a manifest, jobs, generators).
inline constexpr const char* kBaseScenario = R"(apiVersion: t9ksim/v1
kind: Scenario
metadata: {name: base}
spec:
  horizon: 1d
  seed: 7
  cluster:
    nodePools:
    - {name: a100, count: 4, gpusPerNode: 8, cpu: 64, memory: 512Gi}
    topology: {nodesPerRack: 2, racksPerSwitch: 2}
  scheduler:
    name: t9k
    queues:
    - manifest:
        apiVersion: scheduler.tensorstack.dev/v1beta1
        kind: Queue
        metadata: {name: default}
        spec: {priority: 1, quota: {requests: {nvidia.com/gpu: 32}}}
  workload:
    jobs:
    - submitAt: 0s
      behaviour: {runTime: 10m}
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: GenericJob
        metadata: {name: one}
        spec:
          replicaSpecs:
          - type: worker
            replicas: 2
            template: {spec: {containers: [{name: c, image: busybox, resources: {limits: {nvidia.com/gpu: 1}}}]}}
    generators:
    - name: train
      interarrival: {exponential: {mean: 20m}}
      manifest:
        apiVersion: batch.tensorstack.dev/v1beta1
        kind: PyTorchTrainingJob
        metadata: {name: train}
        spec:
          replicaSpecs:
          - type: worker
            replicas: 2
            template: {spec: {containers: [{name: pytorch, image: pytorch, resources: {limits: {nvidia.com/gpu: 8}}}]}}
      behaviour:
        runTime: {exponential: {mean: 2h}}
)";

inline bool safe_part_name(std::string_view name) {
  if (name.empty() || name.size() > 100 || name.front() == '/') return false;
  int levels = 1;
  std::size_t start = 0;
  while (start <= name.size()) {
    const auto end = std::min(name.find('/', start), name.size());
    const auto seg = name.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    for (const char c : seg) {
      if (static_cast<unsigned char>(c) < 0x20 || c == '\\') return false;
    }
    start = end + 1;
    if (end < name.size()) ++levels;
  }
  return levels <= 3;
}

// Parts in input order; a repeated name keeps its last part. Unsafe names are dropped with their
// part.
inline std::map<std::string, std::string> split_parts(std::string_view text, std::string first) {
  std::map<std::string, std::string> parts;
  std::string name = std::move(first);
  std::size_t body = 0;
  std::size_t pos = 0;
  auto flush = [&](std::size_t end) {
    if (safe_part_name(name)) parts[name] = std::string(text.substr(body, end - body));
  };
  while (pos < text.size()) {
    const auto nl = text.find('\n', pos);
    const auto line_end = nl == std::string_view::npos ? text.size() : nl;
    const auto line = text.substr(pos, line_end - pos);
    if (line.substr(0, 4) == "=== ") {
      flush(pos);
      name = std::string(line.substr(4));
      body = nl == std::string_view::npos ? text.size() : nl + 1;
    }
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  flush(text.size());
  return parts;
}

// A folder of this process's own under TMPDIR, emptied on each call and removed at exit.
inline const std::filesystem::path& scratch_dir() {
  namespace fs = std::filesystem;
  static const fs::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    fs::path d =
        fs::path(tmp && *tmp ? tmp : "/tmp") / ("t9ksim-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d);
    static const fs::path for_exit = d;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(for_exit, ec);
    });
    return d;
  }();
  return dir;
}

inline std::filesystem::path fresh_scratch_dir() {
  namespace fs = std::filesystem;
  const auto& d = scratch_dir();
  for (const auto& e : fs::directory_iterator(d)) fs::remove_all(e.path());
  return d;
}

inline void write_part(const std::filesystem::path& file, std::string_view bytes) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace t9k::fuzz
