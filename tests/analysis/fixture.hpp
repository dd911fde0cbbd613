// Synthetic results directories in the format `t9ksim run` writes (docs/outputs.md), for the
// aggregate, report and browser tests. Names include hostile strings: a job named
// `<img src=x onerror=alert(1)>` and a queue named `</script><script>alert(2)</script>`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/aggregate.hpp"
#include "analysis/outputs.hpp"
#include "analysis/report.hpp"

namespace t9k::testing {

inline constexpr const char* kHostileJob = "<img src=x onerror=alert(1)>";
inline constexpr const char* kHostileQueue = "</script><script>alert(2)</script>";

// One run. `shift` moves the waits (a variant is "slower" by shift seconds), `rep` varies the
// metrics per replication so intervals are not degenerate.
inline void write_fixture_run(const std::filesystem::path& dir, std::uint64_t seed,
                              std::uint64_t rep, double shift) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const double r = static_cast<double>(rep);
  // Quoted fields as RFC 4180 wants: the hostile queue has no comma, but the reason does.
  std::string jobs =
      "job,kind,queue,priority,replicas,gpus,elastic,submit_s,first_running_s,end_s,wait_s,jct_s,"
      "phase,reason,"
      "restarts,backoff_count,preemptions,pods_failed,ideal_run_s,slowdown,ettr,gpu_hours_"
      "allocated,"
      "gpu_hours_productive,gpu_hours_lost_fault,gpu_hours_lost_software,gpu_hours_lost_preemption,"
      "gpu_hours_lost_scale,gpu_hours_lost_pause,gpu_hours_lost_max_duration,gpu_hours_lost_other,"
      "gpu_hours_idle\n";
  const char* queues[] = {"research", kHostileQueue, ""};
  const char* kinds[] = {"GenericJob", "PyTorchTrainingJob", "DeepSpeedJob"};
  for (int i = 0; i < 12; ++i) {
    const std::string name =
        i == 0 ? std::string("default/") + kHostileJob : fmt::format("default/job-{}", i);
    const double submit = 600.0 * i;
    // Offset so the variant's shift (-20 s) never makes a wait negative.
    const double wait = 30.0 * (i % 5) + 20 + shift + 7 * r;
    const double run = 1800.0 + 300.0 * (i % 4);
    const bool finished = i < 10;
    const std::string queue = queues[i % 3];
    jobs += fmt::format(
        "\"{}\",{},{},{},1,{},false,{:.6f},{:.6f},{},{:.6f},{},{},\"{}\",{},{},0,{},{:.6f},{},{},{:"
        ".6f},{:.6f},"
        "{:.6f},{:.6f},0.000000,0.000000,0.000000,0.000000,0.000000,{:.6f}\n",
        name, kinds[i % 3], queue.empty() ? "" : "\"" + queue + "\"", i % 3, 1 + i % 4, submit,
        submit + wait, finished ? fmt::format("{:.6f}", submit + wait + run) : "", wait,
        finished ? fmt::format("{:.6f}", wait + run) : "", finished ? "Succeeded" : "Running",
        finished ? "Succeeded: done, really" : "", i % 3, i % 2, i % 3, run, finished ? "1.2" : "",
        "0.9", (1 + i % 4) * run / 3600 + 0.1, (1 + i % 4) * run / 3600 * 0.8,
        (1 + i % 4) * run / 3600 * 0.1, 0.01 * i, (1 + i % 4) * run / 3600 * 0.1 + 0.1 - 0.01 * i);
  }
  analysis::write_file_atomic(dir / "jobs.csv", jobs);

  std::string ts =
      "time_s,scope,allocated_gpus,productive_gpus,capacity_gpus,pending_jobs,running_jobs\n";
  for (int b = 0; b < 60; ++b) {
    const double t = 300.0 * b;
    // A warm-up ramp over the first 10 buckets, then a plateau with a little wobble.
    const double alloc = b < 10 ? 1.6 * b : 16 + (b % 3) - 1 + 0.1 * r;
    ts += fmt::format("{:.6f},cluster,{:.4f},{:.4f},32.0000,{:.4f},{:.4f}\n", t, alloc, alloc * 0.8,
                      3.0 - (b % 2), 4.0);
    ts += fmt::format("{:.6f},default-scheduler,1.0000,1.0000,0.0000,0.0000,1.0000\n", t);
    ts += fmt::format("{:.6f},\"queue:{}\",{:.4f},{:.4f},0.0000,{:.4f},2.0000\n", t, kHostileQueue,
                      alloc / 4, alloc / 5, 1.0 + (b % 4));
    ts += fmt::format("{:.6f},queue:research,{:.4f},{:.4f},0.0000,{:.4f},1.0000\n", t,
                      alloc * 3 / 4, alloc / 2, 2.0 - (b % 2));
  }
  analysis::write_file_atomic(dir / "timeseries.csv", ts);

  std::string faults = "time_s,node,cause,state\n";
  faults += "3600.000000,a100-0,Faulty GPU (incl. NVLink),down\n";
  faults += "7200.000000,a100-0,repair,up\n";
  faults += fmt::format("9000.000000,\"{}\",GPU HBM3 memory,down\n", kHostileJob);
  faults += "12000.000000,a100-2,Network switch/cable,down\n";
  faults += "15000.000000,a100-2,repair,up\n";
  analysis::write_file_atomic(dir / "faults.csv", faults);

  // The node timeline (occupancy.csv): three nodes over five hours; a100-0 down in the second
  // hour (as faults.csv says), a100-1 cordoned in the fourth; two queues, one of them hostile.
  std::string occ = "start_s,row,capacity_gpus,down_gpus,cordoned_gpus,queue,allocated_gpus\n";
  for (int p = 0; p < 5; ++p) {
    for (int n = 0; n < 3; ++n) {
      const bool down = n == 0 && p == 1;
      const std::string head =
          fmt::format("{:.6f},a100-{},{:.3f},{:.3f},{:.3f}", 3600.0 * p, n, down ? 0.0 : 8.0,
                      down ? 8.0 : 0.0, n == 1 && p == 3 ? 8.0 : 0.0);
      if (down) {
        occ += head + ",,0.000\n";
        continue;
      }
      occ += fmt::format("{},research,{:.3f}\n", head, 4.0 + n + 0.5 * r);
      occ += fmt::format("{},{},{:.3f}\n", head, kHostileQueue, 1.0 + p % 2);
    }
  }
  analysis::write_file_atomic(dir / "occupancy.csv", occ);

  const double wait_mean = 60 + shift + 7 * r;
  std::string summary =
      fmt::format(R"({{
  "events": 1234,
  "fingerprint": "{:016x}",
  "horizon_s": 18000.0,
  "invariants": {{"ok": true, "violations": []}},
  "metrics": {{
    "goodput": {:.6f},
    "gpu_hours_allocated": {:.6f},
    "gpu_hours_capacity": 160.0,
    "gpu_hours_idle": 9.0,
    "gpu_hours_lost_fault": {:.6f},
    "gpu_hours_lost_maxDuration": 0.0,
    "gpu_hours_lost_other": 0.0,
    "gpu_hours_lost_pause": 0.0,
    "gpu_hours_lost_preemption": 0.0,
    "gpu_hours_lost_scale": 0.0,
    "gpu_hours_lost_software": 0.5,
    "gpu_hours_productive": {:.6f},
    "jct_mean_s": {:.6f},
    "jobs_submitted": 12,
    "jobs_succeeded": 10,
    "queue/research/job_hours_pending_capacity": 1.0,
    "queue/research/job_hours_pending_quota": 3.0,
    "queue/research/wait_p50_s": 30.0,
    "queue/research/wait_p90_s": {:.6f},
    "utilization_allocated": {:.6f},
    "utilization_productive": {:.6f},
    "wait_mean_s": {:.6f}
  }},
  "replication": {},
  "scenario": "fixture {}",
  "scenario_hash": "00000000deadbeef",
  "seed": {},
  "setup": {{
    "description": "{}",
    "faults": "a100-typical",
    "pools": [{{"count": 4, "gpuModel": "{}", "gpusPerNode": 8, "name": "a100"}}],
    "queues": [{{"name": "research", "priority": 1, "quota": {{"nvidia.com/gpu": "16"}}}},
               {{"name": "{}", "priority": 0, "quota": {{}}}}],
    "replications": 3,
    "scheduler": "t9k",
    "workload": ["generator {}", "2 explicit jobs"]
  }},
  "version": "0.1.0"
}}
)",
                  seed * 1000 + rep, 0.8 - 0.01 * r, 80 + r, 3 + 0.5 * r, 64 - r,
                  2100 + shift + 10 * r, 600 + 60 * r, (80 + r) / 160, (64 - r) / 160, wait_mean,
                  rep, kHostileJob, seed, kHostileJob, kHostileJob, kHostileQueue, kHostileJob);
  analysis::write_file_atomic(dir / "summary.json", summary);
}

// dir/run (a single run), dir/reps (3 replications) and dir/compare (base and "bigger", 3
// replications each), each with its summary and report.html.
inline void write_fixture_tree(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  write_fixture_run(dir / "run", 42, 0, 0);
  analysis::write_report(dir / "run");

  std::vector<fs::path> reps;
  for (std::uint64_t i = 0; i < 3; ++i) {
    reps.push_back(dir / "reps" / fmt::format("rep-{}", i));
    write_fixture_run(reps.back(), 42, i, 0);
  }
  analysis::write_replication_summary(dir / "reps", reps);
  analysis::write_report(dir / "reps");

  std::vector<std::pair<std::string, std::vector<fs::path>>> variants;
  const std::pair<const char*, double> names[] = {{"base", 0.0}, {"bigger", -20.0}};
  for (const auto& [name, shift] : names) {
    std::vector<fs::path> v;
    for (std::uint64_t i = 0; i < 3; ++i) {
      v.push_back(dir / "compare" / name / fmt::format("rep-{}", i));
      write_fixture_run(v.back(), 42, i, shift);
    }
    variants.emplace_back(name, v);
  }
  analysis::write_comparison_summary(dir / "compare", variants);
  analysis::write_report(dir / "compare");
}

}  // namespace t9k::testing
