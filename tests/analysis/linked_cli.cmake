# Linked parameters end to end (issue 47 item 4, docs/scenario-format.md "workload" and
# "scheduler"): a demand factor that scales every generator and trace, a quota as a share of the
# cluster, and sweeps whose fields move together (--zip).
# Inputs: T9KSIM, SCENARIO (tests/scenarios/planning/linked.yaml), TRACE_SCENARIO
# (scenarios/philly-replay.yaml), OUT (absolute).
include(${CMAKE_CURRENT_LIST_DIR}/../cli_expect.cmake)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})

# demandFactor 2 on a rate of 3 per hour is exactly a rate of 6 per hour: the same draws.
expect_exit(0 ${T9KSIM} run ${SCENARIO} -r 1 -o ${OUT}/doubled -q --no-report)
expect_exit(0 ${T9KSIM} run ${SCENARIO} -r 1 --set workload.demandFactor=1
            --set "workload.generators[name=train].rate=6" -o ${OUT}/six -q --no-report)
file(READ ${OUT}/doubled/jobs.csv doubled)
file(READ ${OUT}/six/jobs.csv six)
if(NOT doubled STREQUAL six)
  message(FATAL_ERROR "demandFactor 2 at rate 3 is not the run at rate 6")
endif()
# An interarrival generator: gaps divided by the factor (a mean of 30 min at x2 is 15 min: the
# same draws, halved).
expect_exit(0 ${T9KSIM} run ${SCENARIO} -r 1 --set "workload.generators[name=train].rate=null"
            --set "workload.generators[name=train].interarrival={exponential: {mean: 30m}}"
            -o ${OUT}/gaps -q --no-report)
expect_exit(0 ${T9KSIM} run ${SCENARIO} -r 1 --set workload.demandFactor=1
            --set "workload.generators[name=train].rate=null"
            --set "workload.generators[name=train].interarrival={exponential: {mean: 15m}}"
            -o ${OUT}/gaps-half -q --no-report)
file(READ ${OUT}/gaps/jobs.csv gaps)
file(READ ${OUT}/gaps-half/jobs.csv gaps_half)
if(NOT gaps STREQUAL gaps_half)
  message(FATAL_ERROR "demandFactor 2 on 30 min gaps is not 15 min gaps")
endif()
# A trace: its loadFactor times the factor (Philly replay at loadFactor 1 x 2 = loadFactor 2).
expect_exit(0 ${T9KSIM} run ${TRACE_SCENARIO} -r 1 --set "workload.demandFactor=2" --set horizon=2d
            -o ${OUT}/trace-doubled -q --no-report)
expect_exit(0 ${T9KSIM} run ${TRACE_SCENARIO} -r 1 --set "workload.traces[name=philly].loadFactor=2"
            --set horizon=2d -o ${OUT}/trace-load -q --no-report)
file(READ ${OUT}/trace-doubled/jobs.csv trace_doubled)
file(READ ${OUT}/trace-load/jobs.csv trace_load)
if(NOT trace_doubled STREQUAL trace_load)
  message(FATAL_ERROR "demandFactor 2 on the Philly trace is not its loadFactor 2")
endif()
# The setup says so.
file(READ ${OUT}/doubled/summary.json summary)
expect_contains("${summary}" "\"demand × 2 (every generator and trace)\"")
# quotaShare: a quarter of 4 x 8 GPUs and half of 4 x 64 CPUs.
string(JSON quota GET "${summary}" setup queues 0 quota)
expect_contains("${quota}" "\"nvidia.com/gpu\" : \"8\"")
expect_contains("${quota}" "\"cpu\" : \"128\"")

# Sweeping the node count keeps the queue's share: 2, 4, 8 nodes give quotas of 4, 8, 16 GPUs;
# --zip moves the demand with the cluster (point i has the i-th value of each list).
expect_exit(0 ${T9KSIM} sweep ${SCENARIO} --vary "cluster.nodePools[name=h100].count=2,4,8"
            --vary "workload.demandFactor=1,2,4" --zip -r 2 -o ${OUT}/zipped)
expect_contains("${last_out}" "3 points")
file(READ ${OUT}/zipped/summary.json zipped)
expect_contains("${zipped}" "\"zipped\": true")
foreach(point 0 1 2)
  math(EXPR gpus "4 << ${point}")
  file(READ ${OUT}/zipped/point-${point}/rep-0/summary.json p)
  string(JSON q GET "${p}" setup queues 0 quota nvidia.com/gpu)
  if(NOT q STREQUAL "${gpus}")
    message(FATAL_ERROR "point ${point}: quota ${q}, expected ${gpus} (a quarter of the cluster)")
  endif()
endforeach()
# sweep.csv: the three points only, each with its pair of values.
file(READ ${OUT}/zipped/sweep.csv csv)
expect_contains("${csv}" "\n0,2,1,cluster,,jobs_submitted,")
expect_contains("${csv}" "\n1,4,2,cluster,,jobs_submitted,")
expect_contains("${csv}" "\n2,8,4,cluster,,jobs_submitted,")
expect_not_contains("${csv}" "\n3,")
expect_not_contains("${csv}" "\n0,2,2,")
# One line over the first field, titled with the one that moves with it (not a heatmap).
file(READ ${OUT}/zipped/report.html report)
expect_contains("${report}" "\"title\":\"count (with demandFactor)\"")
expect_not_contains("${report}" "\"mark\":\"rect\"")
expect_not_contains("${report}" "\"type\":\"rect\"")
expect_contains("${report}" "together (zipped: point i has the i-th value of each)")
# Lists of different lengths are refused with --zip.
expect_exit(2 ${T9KSIM} sweep ${SCENARIO} --vary "cluster.nodePools[name=h100].count=2,4,8"
            --vary "workload.demandFactor=1,2" --zip -o ${OUT}/bad-zip)
expect_contains("${last_err}" "--vary workload.demandFactor=1,2: 2 values, but cluster.nodePools[name=h100].count has 3; allowed with --zip: lists of one length")

# A share of what the cluster has not, or beside the manifest's own quota of it, is refused.
expect_exit(2 ${T9KSIM} run ${SCENARIO} --set "scheduler.queues[name=production].spec.quota={requests: {nvidia.com/gpu: 16}}" -o ${OUT}/both)
expect_contains("${last_err}" "quotaShare.nvidia.com/gpu: found both quota.requests[nvidia.com/gpu] in the manifest and a quotaShare of it; allowed: one of them")
file(READ ${SCENARIO} text)
string(REPLACE "cpu: 0.5}" "example.com/fpga: 0.5}" text "${text}")
file(WRITE ${OUT}/fpga.yaml "${text}")
expect_exit(2 ${T9KSIM} run ${OUT}/fpga.yaml -o ${OUT}/fpga)
expect_contains("${last_err}" "found a share of example.com/fpga, which the cluster's nodes do not have")
expect_exit(2 ${T9KSIM} run ${SCENARIO} --set workload.demandFactor=0 -o ${OUT}/zero)
expect_contains("${last_err}" "spec.workload.demandFactor: found 0; allowed: ")
# The job budget (--max-jobs) counts the factor, for interarrival generators too.
expect_exit(2 ${T9KSIM} run ${SCENARIO} --set "workload.generators[name=train].rate=null"
            --set "workload.generators[name=train].interarrival={exponential: {mean: 30m}}"
            --set workload.demandFactor=1000 --max-jobs 1000 -o ${OUT}/budget)
expect_contains("${last_err}" "max-jobs")

# Pooled percentiles (issue 47 item 1): with one replication the pooled p90 is the run's own,
# exactly; with several, the console prints them and targets take them (mean form only).
expect_exit(0 ${T9KSIM} sweep ${SCENARIO} --vary workload.demandFactor=2 -r 1 -o ${OUT}/one -q)
file(READ ${OUT}/one/point-0/summary.json one)
foreach(m wait_p50_s wait_p90_s jct_p90_s queue/production/wait_p90_s kind/GenericJob/wait_p99_s)
  string(REGEX REPLACE "([^/]+)$" "pooled_\\1" pm "${m}")
  string(JSON pooled GET "${one}" pooled metrics ${pm})
  string(JSON own GET "${one}" metrics ${m} mean)
  if(NOT pooled STREQUAL own)
    message(FATAL_ERROR "one replication: ${pm} ${pooled} is not ${m} ${own}")
  endif()
endforeach()
expect_exit(0 ${T9KSIM} run ${SCENARIO} -r 3 -o ${OUT}/pooled
            --target "queue=production pooled_wait_p90 < 1000h")
file(READ ${OUT}/pooled/report.html pooled_report)
expect_contains("${pooled_report}" "(p90 over all 3 replications' jobs together: ")
expect_contains("${last_out}" "  pooled over the 3 replications' ")
expect_contains("${last_out}" "  queue/production/pooled_wait_p90_s ")
expect_contains("${last_out}" "over the jobs of 3 runs pooled; target: < 41.7 d: met")
expect_exit(2 ${T9KSIM} run ${SCENARIO} -r 3 -o ${OUT}/pooled-slo
            --target "queue=production pooled_wait_p90 < 1h in 90% of runs")
expect_contains("${last_err}" "is one value over every run's jobs pooled; 'in P% of runs' is for per-run metrics")
# One run: its own percentile is the pooled one.
expect_exit(0 ${T9KSIM} run ${SCENARIO} -r 1 -o ${OUT}/pooled-one --no-report
            --target "queue=production pooled_wait_p90 < 1000h")
expect_contains("${last_out}" "over the jobs of 1 run pooled; target: < 41.7 d: met")
# --minimise takes per-run metrics (a choice is shown with its interval).
expect_exit(2 ${T9KSIM} sweep ${SCENARIO} --vary workload.demandFactor=1,2 --minimise pooled_wait_p90 -o ${OUT}/min-pooled)
expect_contains("${last_err}" "minimise the per-run metric (wait_p90_s)")

# Short names for long field paths (NAME=PATH=VALUES): sweep.csv's columns, the console, the
# report's axes and tables use them; summary.json keeps them beside the full paths.
expect_exit(0 ${T9KSIM} sweep ${SCENARIO} --vary "nodes=cluster.nodePools[name=h100].count=2,4"
            --vary "demand=workload.demandFactor=1,2" --zip -r 1 -o ${OUT}/aliased)
expect_contains("${last_out}" "parameter: nodes = cluster.nodePools[name=h100].count\n")
expect_contains("${last_out}" "parameter: demand = workload.demandFactor\n")
file(STRINGS ${OUT}/aliased/sweep.csv aliased_rows)
list(GET aliased_rows 0 aliased_header)
expect_contains("${aliased_header}" "point,nodes,demand,group,group_value,metric,")
file(READ ${OUT}/aliased/summary.json aliased_summary)
expect_contains("${aliased_summary}" "\"aliases\": [\n    \"nodes\",\n    \"demand\"\n  ]")
expect_contains("${aliased_summary}" "\"cluster.nodePools[name=h100].count\"")
file(READ ${OUT}/aliased/report.html aliased_report)
expect_contains("${aliased_report}" "\"title\":\"nodes (with demand)\"")
# Two fields may not end up with one label.
expect_exit(2 ${T9KSIM} sweep ${SCENARIO} --vary "x=cluster.nodePools[name=h100].count=2,4"
            --vary "x=workload.demandFactor=1,2" -o ${OUT}/same-name)
expect_contains("${last_err}" "would both be labelled \"x\"; give them different names (NAME=PATH=VALUES)")
