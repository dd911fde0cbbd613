# t9ksim sweep and --set from the command line (docs/reports.md "Sweeps"):
#  - a sweep gives byte-identical sweep.csv, summary.json and point summaries on 1 and 2 threads,
#    one row per point x group x metric, with per-queue rows and a report;
#  - --set changes the run (its scenario hash) and bad paths or values exit 2 naming the path;
#  - a sweep refuses to vary the seed (common random numbers).
# Inputs: T9KSIM, SCENARIO (tests the small-cluster example), OUT.
file(REMOVE_RECURSE ${OUT})

include(${CMAKE_CURRENT_LIST_DIR}/../cli_expect.cmake)

set(vary "--vary" "cluster.nodePools[name=a100].count=4:5:1")
foreach(threads 1 2)
  expect_exit(0 ${T9KSIM} sweep ${SCENARIO} ${vary} -r 2 -j ${threads} --set horizon=12h -o ${OUT}/j${threads})
endforeach()
expect_contains("${last_out}" "sweep: 2 points x 2 replications")
expect_contains("${last_out}" "research p90")
foreach(f sweep.csv summary.json point-0/summary.json point-1/summary.json point-1/rep-1/jobs.csv point-0/scenario.yaml)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/j1/${f} ${OUT}/j2/${f} RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "${f} differs between 1 and 2 threads")
  endif()
endforeach()
file(READ ${OUT}/j1/sweep.csv csv)
expect_contains("${csv}" "point,cluster.nodePools[name=a100].count,group,group_value,metric,n,mean,sd,half_width,low,high\n")
expect_contains("${csv}" "\n0,4,cluster,,wait_p90_s,2,")
expect_contains("${csv}" "\n1,5,queue,research,wait_p90_s,2,")
expect_contains("${csv}" "\n1,5,kind,DeepSpeedJob,jobs_submitted,2,")
file(READ ${OUT}/j1/summary.json summary)
expect_contains("${summary}" "\"kind\": \"sweep\"")
file(READ ${OUT}/j1/point-1/scenario.yaml point)
expect_contains("${point}" "count: 5")
expect_contains("${point}" "horizon: 12h")
if(NOT EXISTS ${OUT}/j1/report.html)
  message(FATAL_ERROR "the sweep wrote no report.html")
endif()
file(READ ${OUT}/j1/report.html report)
expect_contains("${report}" "t9ksim sweep: small-cluster")
expect_contains("${report}" "research: wait p90")

# --set on run: the changed scenario runs (and hashes differently); per-queue lines are printed.
expect_exit(0 ${T9KSIM} run ${SCENARIO} -r 1 --no-report --set horizon=12h -o ${OUT}/run)
expect_contains("${last_out}" "queue research:")
file(READ ${OUT}/run/summary.json run_summary)
expect_contains("${run_summary}" "\"horizon_s\": 43200")
expect_contains("${run_summary}" "\"queue/research/wait_p90_s\"")
# Bad --set: a name that is not there, a value the loader refuses, no '='.
expect_exit(2 ${T9KSIM} run ${SCENARIO} --set cluster.nodePools[name=h100].count=4 -o ${OUT}/bad)
expect_contains("${last_err}" "has no element named \"h100\" (names: a100, cpu)")
expect_exit(2 ${T9KSIM} run ${SCENARIO} --set cluster.nodePools[name=a100].count=many -o ${OUT}/bad)
expect_contains("${last_err}" "spec.cluster.nodePools[0].count")
expect_exit(2 ${T9KSIM} run ${SCENARIO} --set horizon -o ${OUT}/bad)
expect_contains("${last_err}" "expected PATH=VALUE")
# A sweep cannot vary the seed, nor give an empty range.
expect_exit(2 ${T9KSIM} sweep ${SCENARIO} --vary seed=1,2 -o ${OUT}/bad)
expect_contains("${last_err}" "spec.seed cannot be varied")
expect_exit(2 ${T9KSIM} sweep ${SCENARIO} --vary cluster.nodePools[name=a100].count=5:4:1 -o ${OUT}/bad)
expect_contains("${last_err}" "FROM is greater than TO")

# t9ksim size on a fixture with a known answer (tests/scenarios/planning/size-nodes.yaml): the
# smallest node count with production p90 wait < 30 min is 4, and 3 is the value just below.
expect_exit(0 ${T9KSIM} size ${SIZE_SCENARIO} --param cluster.nodePools[name=h100].count=1:8
            --target "queue=production wait_p90 < 30m" -r 2 -o ${OUT}/size)
expect_contains("${last_out}" "answer: cluster.nodePools[name=h100].count=4")
expect_contains("${last_out}" "count=3 (just below)")
file(READ ${OUT}/size/summary.json size_summary)
expect_contains("${size_summary}" "\"answer\": \"4\"")
expect_contains("${size_summary}" "\"neighbour\": \"3\"")
file(READ ${OUT}/size/report.html size_report)
expect_contains("${size_report}" "t9ksim size: size-nodes")
# The first screen says what was simulated, at the first value evaluated (issue 48).
expect_contains("${size_report}" "<h2>What was simulated</h2>")
expect_contains("${size_report}" "As at the first value evaluated (cluster.nodePools[name=h100].count=")
expect_contains("${size_report}" "<b>Cluster</b>: ")
# The search path: the values in the order the bisection took them (issue 48 item 4).
expect_contains("${size_report}" "<p><b>Search path</b> (the values in the order they were evaluated): 8 (met) → 1 (not met) → 4 (met) → 2 (not met) → 3 (not met).</p>")
expect_contains("${size_summary}" "\"search_path\": [\n      {\n        \"met\": true,\n        \"value\": \"8\"")
# With the quota at 16 GPUs no node count helps, and the run says the quota binds.
expect_exit(0 ${T9KSIM} size ${SIZE_SCENARIO} --param cluster.nodePools[name=h100].count=1:8
            --set "scheduler.queues[name=production].spec.quota.requests.nvidia\\.com/gpu=16"
            --target "queue=production wait_p90 < 30m" -r 2 -o ${OUT}/size-quota)
expect_contains("${last_out}" "answer: none in 1..8")
# From the scheduler's own reasons (job_hours_pending_quota), not only from what was allocated.
expect_contains("${last_out}" "the quota binds: ")
expect_contains("${last_out}" "of the job-hours queue production's jobs waited were on its quota (the scheduler's reasons)")
# Bad targets exit 2 with the reason.
expect_exit(2 ${T9KSIM} size ${SIZE_SCENARIO} --param cluster.nodePools[name=h100].count=1:8
            --target "queue=production wait_p9 < 30m" -o ${OUT}/bad)
expect_contains("${last_err}" "unknown metric \"wait_p9\"")
# A queue the scenario does not have is refused before anything runs (issue 47: a typo used to
# run the whole search and exit 0), naming the queues there are.
expect_exit(2 ${T9KSIM} size ${SIZE_SCENARIO} --param cluster.nodePools[name=h100].count=1:8
            --target "queue=prodution wait_p90 < 30m" -o ${OUT}/typo)
expect_contains("${last_err}" "the scenario has no queue \"prodution\" (queues: default, production")
if(EXISTS ${OUT}/typo)
  message(FATAL_ERROR "a refused size wrote ${OUT}/typo")
endif()
# The SLO form counts the runs meeting the bound and says so; the mean form says it is a mean.
expect_exit(0 ${T9KSIM} size ${SIZE_SCENARIO} --param cluster.nodePools[name=h100].count=1:8
            --target "queue=production wait_p90 < 30m in 100% of runs"
            --target "queue=production wait_p90 < 30m" -r 2 -o ${OUT}/size-slo)
expect_contains("${last_out}" "queue/production/wait_p90_s < 30 min in 2 of 2 runs (100.0 %, at least 22.4 % with 95 % confidence); target: in 100.0 % of runs: met")
expect_contains("${last_out}" "queue/production/wait_p90_s: mean of 2 runs ")
expect_contains("${last_out}" "; target: the mean < 30 min: met")
# size takes sweep's syntax: a list is searched in the order given (issue 47: one range syntax).
expect_exit(0 ${T9KSIM} size ${SIZE_SCENARIO} --param "cluster.nodePools[name=h100].count=2,4,8"
            --target "queue=production wait_p90 < 30m" -r 2 -o ${OUT}/size-list)
expect_contains("${last_out}" "answer: cluster.nodePools[name=h100].count=4")
expect_exit(2 ${T9KSIM} size ${SIZE_SCENARIO} --param "cluster.nodePools[name=h100].count=4"
            --target "queue=production wait_p90 < 30m" -o ${OUT}/size-one)
expect_contains("${last_err}" "expected at least two values")

# A sweep over two parameters with targets (issue 48 item 4, issue 47 item 1): every point is
# checked (4 nodes and a 32-GPU quota let all four jobs start at once; 16 GPUs or 3 nodes do
# not), the console names parameters by short labels, and the report draws heatmaps with the
# points meeting every target outlined.
expect_exit(0 ${T9KSIM} sweep ${SIZE_SCENARIO} --vary "cluster.nodePools[name=h100].count=3:4"
            --vary "scheduler.queues[name=production].spec.quota.requests.nvidia\\.com/gpu=16,32"
            --target "queue=production wait_p90 < 30m in 100% of runs" -r 2 -o ${OUT}/sweep-targets)
expect_contains("${last_out}" "parameter: count = cluster.nodePools[name=h100].count")
expect_contains("${last_out}" "target: queue=production wait_p90 < 30m in 100% of runs (the share of runs meeting the bound)")
expect_contains("${last_out}" "point-0 count=3 nvidia.com/gpu=16: ")
expect_contains("${last_out}" "; 0 of 1 targets met\n  point-1")
expect_contains("${last_out}" "point-3 count=4 nvidia.com/gpu=32: wait p90 0 s ± 0 s")
expect_contains("${last_out}" "; every target met\n")
file(READ ${OUT}/sweep-targets/summary.json sweep_targets)
expect_contains("${sweep_targets}" "\"targets\": [\n    \"queue=production wait_p90 < 30m in 100% of runs\"")
file(READ ${OUT}/sweep-targets/report.html sweep_report)
expect_contains("${sweep_report}" "<p class=\"answer\">1 of 4 points meet every target</p>\n<p>count=4, nvidia.com/gpu=32.</p>")
expect_contains("${sweep_report}" "\"facet\":{\"field\":\"scope\"")
expect_contains("${sweep_report}" "\"filter\":\"datum.met\"")
expect_contains("${sweep_report}" "<th title=\"cluster.nodePools[name=h100].count\">count</th>")
# `t9ksim report` draws the same page again from the folder (the targets are in summary.json).
file(COPY ${OUT}/sweep-targets/report.html DESTINATION ${OUT}/sweep-targets-first)
expect_exit(0 ${T9KSIM} report ${OUT}/sweep-targets)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/sweep-targets/report.html
                ${OUT}/sweep-targets-first/report.html RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "t9ksim report redrew the sweep's page differently")
endif()
# A target naming a queue the scenario lacks is refused before anything runs.
expect_exit(2 ${T9KSIM} sweep ${SIZE_SCENARIO} --vary "cluster.nodePools[name=h100].count=3:4"
            --target "queue=prodution wait_p90 < 30m" -o ${OUT}/sweep-typo)
expect_contains("${last_err}" "t9ksim sweep: --target 'queue=prodution wait_p90 < 30m': the scenario has no queue \"prodution\"")
if(EXISTS ${OUT}/sweep-typo)
  message(FATAL_ERROR "a refused sweep wrote ${OUT}/sweep-typo")
endif()
expect_exit(2 ${T9KSIM} sweep ${SIZE_SCENARIO} --vary "cluster.nodePools[name=h100].count=3:4"
            --target "wait_p9 < 30m" -o ${OUT}/sweep-bad)
expect_contains("${last_err}" "unknown metric \"wait_p9\"")

# The first screen lists what the command changed (issue 48 item 1): --set assignments on run,
# compare, sweep and size, and a comparison's overlays with the lines of the setup they change.
expect_exit(0 ${T9KSIM} run ${SIZE_SCENARIO} --set horizon=2h -o ${OUT}/run-set)
file(READ ${OUT}/run-set/summary.json run_set_summary)
expect_contains("${run_set_summary}" "\"overrides\": [\n      \"horizon=2h\"\n    ]")
file(READ ${OUT}/run-set/report.html run_set_report)
expect_contains("${run_set_report}" "<li><b>Changed from the scenario file</b>: <code>--set horizon=2h</code></li>")
expect_contains("${run_set_report}" "<b>Horizon</b>: 2 h from time 0")
# Without --set, no such line (and no "overrides" in summary.json).
file(READ ${OUT}/size/report.html plain_size_report)
expect_not_contains("${plain_size_report}" "Changed from the scenario file")
expect_contains("${sweep_targets}" "\"kind\": \"sweep\"")
file(READ ${OUT}/size-quota/report.html size_quota_report)
expect_contains("${size_quota_report}" "<code>--set scheduler.queues[name=production].spec.quota.requests.nvidia\\.com/gpu=16</code>")
file(WRITE ${OUT}/more-nodes.yaml "# Overlay: four nodes\nspec:\n  cluster:\n    nodePools: [{name: h100, count: 4, gpusPerNode: 8, cpu: 64, memory: 512Gi}]\n")
expect_exit(0 ${T9KSIM} compare ${SIZE_SCENARIO} --variant more=${OUT}/more-nodes.yaml -r 2
            --set horizon=3h -o ${OUT}/compare-overlay)
file(READ ${OUT}/compare-overlay/summary.json compare_summary)
expect_contains("${compare_summary}" "\"overlays\": {\n    \"more\": {\n      \"file\": \"${OUT}/more-nodes.yaml\"")
file(READ ${OUT}/compare-overlay/report.html compare_report)
expect_contains("${compare_report}" "<p><b>Variants</b>: <b>base</b> is the scenario above; each other merges an overlay onto it.</p>")
expect_contains("${compare_report}" "<li><b>more</b>: overlay <code>${OUT}/more-nodes.yaml</code>; changes Cluster: 4 × <b>h100</b> (8 GPUs each): 32 GPUs on 4 nodes")
expect_contains("${compare_report}" "<details><summary>the overlay</summary><pre># Overlay: four nodes\n")
expect_contains("${compare_report}" "<code>--set horizon=3h</code>")

# --target on run and compare (issue 47 item 1, issue 48 item 1): checked over the replications
# in the console and on the report's first screen, refused before running when wrong.
expect_exit(0 ${T9KSIM} run ${SIZE_SCENARIO} -r 3 --target "queue=production wait_p90 < 30m in 60% of runs"
            --target "utilisation_allocated > 0.4" -o ${OUT}/run-targets)
expect_contains("${last_out}" "  target queue=production wait_p90 < 30m in 60% of runs\n    queue/production/wait_p90_s < 30 min in 0 of 3 runs (0.0 %, at least 0.0 % with 95 % confidence); target: in 60.0 % of runs: not met")
expect_contains("${last_out}" "  target utilisation_allocated > 0.4\n    utilization_allocated: mean of 3 runs 50.0 % ± 0.0 %; target: the mean > 40.0 %: met")
file(READ ${OUT}/run-targets/report.html run_targets_report)
expect_contains("${run_targets_report}" "<li><code>queue=production wait_p90 &lt; 30m in 60% of runs</code>: <b>not met</b> (")
expect_contains("${run_targets_report}" "<li><code>utilisation_allocated &gt; 0.4</code>: <b>met</b> (")
expect_exit(2 ${T9KSIM} run ${SIZE_SCENARIO} --target "queue=prodution wait_p90 < 30m" -o ${OUT}/run-typo)
expect_contains("${last_err}" "t9ksim run: --target 'queue=prodution wait_p90 < 30m': the scenario has no queue \"prodution\"")
expect_exit(0 ${T9KSIM} compare ${SIZE_SCENARIO} --variant more=${OUT}/more-nodes.yaml -r 2
            --target "queue=production wait_p90 < 30m" -o ${OUT}/compare-targets)
expect_contains("${last_out}" "  base: target queue=production wait_p90 < 30m\n")
expect_contains("${last_out}" "  more: target queue=production wait_p90 < 30m\n    queue/production/wait_p90_s: mean of 2 runs 0 s ± 0 s; target: the mean < 30 min: met")
file(READ ${OUT}/compare-targets/report.html compare_targets_report)
expect_contains("${compare_targets_report}" "<li><code>queue=production wait_p90 &lt; 30m</code>: base: <b>not met</b> (")
expect_contains("${compare_targets_report}" "; more: <b>met</b> (")
expect_exit(2 ${T9KSIM} compare ${SIZE_SCENARIO} --variant more=${OUT}/more-nodes.yaml
            --target "wait_p9 < 30m" -o ${OUT}/compare-bad)
expect_contains("${last_err}" "t9ksim compare: --target 'wait_p9 < 30m': unknown metric \"wait_p9\"")

# Cost and energy (issue 47 item 3): 2 nodes at 80 per node-hour for 4 h, four 8-GPU jobs of 1 h
# (32 GPU-hours at 10 each); 1 kW idle, 9 kW busy per node.
set(priced --set "cluster.nodePools[name=h100].pricePerNodeHour=80"
           --set "cluster.nodePools[name=h100].power={idleWatts: 1000, busyWatts: 9000}")
expect_exit(0 ${T9KSIM} run ${SIZE_SCENARIO} ${priced} -o ${OUT}/cost)
expect_contains("${last_out}" "cost 640 (320 allocated to jobs, 320 idle), 20 per productive GPU-hour\nenergy 40 kWh\n")
file(READ ${OUT}/cost/summary.json cost_summary)
foreach(m "\"cost_total\": 640.0" "\"cost_allocated\": 320.0" "\"cost_idle\": 320.0"
          "\"cost_per_productive_gpu_hour\": 10.0" "\"cost_total_per_productive_gpu_hour\": 20.0"
          "\"energy_total_kwh\": 40.0" "\"energy_kwh\": 36.0"
          "\"queue/production/cost_allocated\": 320.0" "\"pricePerNodeHour\": 80.0")
  expect_contains("${cost_summary}" "${m}")
endforeach()
file(READ ${OUT}/cost/report.html cost_report)
expect_contains("${cost_report}" "<b>Cost and energy</b>: the cluster cost 640 (320 of it GPU-time allocated to jobs, 320 capacity not allocated); each productive GPU-hour cost 20 with idle capacity counted; it drew 40 kWh.")
expect_contains("${cost_report}" "(8 GPUs each, 80 per node-hour, up to 9 kW)")
expect_contains("${cost_report}" "its jobs' GPU-time cost 320 (10 per productive GPU-hour)")
# jobs.csv charges each job back: cost (its GPU-hours at 10) and energy_kwh (8 GPUs x 1 h at 9 kW
# per 8 GPUs), the last columns; their sums are cost_allocated and energy_kwh.
file(STRINGS ${OUT}/cost/jobs.csv cost_rows)
list(GET cost_rows 0 cost_header)
expect_contains("${cost_header}" ",pending_cause,pending_reason,cost,energy_kwh")
list(GET cost_rows 1 cost_row)
expect_contains("${cost_row}" ",80,9")
# A GPU-hour price is the node-hour price over its GPUs: 10 per GPU-hour is 80 per node-hour.
expect_exit(0 ${T9KSIM} run ${SIZE_SCENARIO} --set "cluster.nodePools[name=h100].pricePerGpuHour=10" -o ${OUT}/gpu-priced -q)
file(READ ${OUT}/gpu-priced/summary.json gpu_priced)
expect_contains("${gpu_priced}" "\"cost_total\": 640.0")
file(STRINGS ${OUT}/gpu-priced/jobs.csv gpu_rows)
list(GET gpu_rows 0 gpu_header)
expect_contains("${gpu_header}" ",pending_reason,cost")
expect_not_contains("${gpu_header}" "energy_kwh")
expect_exit(2 ${T9KSIM} run ${SIZE_SCENARIO} ${priced} --set "cluster.nodePools[name=h100].pricePerGpuHour=10" -o ${OUT}/both-prices)
expect_contains("${last_err}" "spec.cluster.nodePools[0].pricePerGpuHour: found both pricePerNodeHour and pricePerGpuHour; allowed: one of them")
# Without prices, no cost anywhere (the outputs of unpriced scenarios are as they were).
file(READ ${OUT}/run-set/summary.json unpriced_summary)
expect_not_contains("${unpriced_summary}" "cost")
file(STRINGS ${OUT}/run-set/jobs.csv unpriced_rows)
list(GET unpriced_rows 0 unpriced_header)
expect_not_contains("${unpriced_header}" "cost")
# Bad power or prices exit 2 naming the field.
expect_exit(2 ${T9KSIM} run ${SIZE_SCENARIO} --set "cluster.nodePools[name=h100].power={idleWatts: 9000, busyWatts: 1000}" -o ${OUT}/bad-power)
expect_contains("${last_err}" "spec.cluster.nodePools[0].power.busyWatts: found 1000; allowed: at least idleWatts (9000)")
expect_exit(2 ${T9KSIM} run ${SIZE_SCENARIO} --set "cluster.nodePools[name=h100].pricePerNodeHour=-1" -o ${OUT}/bad-price)
expect_contains("${last_err}" "spec.cluster.nodePools[0].pricePerNodeHour")

# The cheapest point meeting the targets (issue 47 item 3, issue 48 item 4: the chosen point):
# 4 nodes with a 32-GPU quota is the first of the cheapest points meeting the target.
expect_exit(0 ${T9KSIM} sweep ${SIZE_SCENARIO} ${priced} --vary "cluster.nodePools[name=h100].count=3:5"
            --vary "scheduler.queues[name=production].spec.quota.requests.nvidia\\.com/gpu=16,32,48"
            --target "queue=production wait_p90 < 30m" --minimise cost_total -r 2 -o ${OUT}/cheapest)
expect_contains("${last_out}" "chosen: point-4 count=4 nvidia.com/gpu=32: the smallest cost_total (1,280 ± 0) of the points meeting every target\n")
file(READ ${OUT}/cheapest/summary.json cheapest_summary)
expect_contains("${cheapest_summary}" "\"minimise\": \"cost_total\"")
expect_contains("${cheapest_summary}" "\"chosen_point\": 4")
file(READ ${OUT}/cheapest/report.html cheapest_report)
expect_contains("${cheapest_report}" "Chosen: count=4, nvidia.com/gpu=32 (point 4), the smallest cost_total meeting every target: 1,280 ± 0")
expect_contains("${cheapest_report}" "\"filter\":\"datum.chosen\"")
# Without a point meeting the targets, none is chosen, and it says so.
expect_exit(0 ${T9KSIM} sweep ${SIZE_SCENARIO} ${priced} --vary "cluster.nodePools[name=h100].count=2:3"
            --target "queue=production wait_p90 < 1m" --minimise cost_total -r 2 -o ${OUT}/none-chosen)
expect_contains("${last_out}" "chosen: none: no point meets every target\n")
expect_exit(2 ${T9KSIM} sweep ${SIZE_SCENARIO} --vary "cluster.nodePools[name=h100].count=2:3"
            --minimise "queue=prodution cost_allocated" -o ${OUT}/bad-minimise)
expect_contains("${last_err}" "t9ksim sweep: --minimise 'queue=prodution cost_allocated': the scenario has no queue \"prodution\"")
expect_exit(2 ${T9KSIM} sweep ${SIZE_SCENARIO} --vary "cluster.nodePools[name=h100].count=2:3"
            --minimise "cost_totl" -o ${OUT}/bad-minimise)
expect_contains("${last_err}" "unknown metric \"cost_totl\"")
