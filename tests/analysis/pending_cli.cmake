# Why is this job pending? end to end (docs/outputs.md "Why jobs waited"): a run of the
# pending-reasons case writes each job's last reason to jobs.csv, JobPending lines to
# events.jsonl, job-hours by cause to summary.json, the causes to timeseries.csv and a
# "Why jobs waited" table and chart to report.html.
# Inputs: T9KSIM, CASE (tests/scenarios/cases/pending-reasons.yaml), OUT.
file(REMOVE_RECURSE ${OUT})

include(${CMAKE_CURRENT_LIST_DIR}/../cli_expect.cmake)

expect_exit(0 ${T9KSIM} run ${CASE} --events --quiet --out ${OUT})
file(READ ${OUT}/jobs.csv jobs)
expect_contains("${jobs}" ",pending_cause,pending_reason\n")
# `second` waited on the quota, then on the node; its last reason is the node's.
expect_contains("${jobs}" ",Capacity,0/1 nodes are available: 1 insufficient nvidia.com/gpu\n")
file(READ ${OUT}/events.jsonl events)
expect_contains("${events}" "\"cause\":\"Quota\",\"job\":\"default/second\",\"jobId\":1,\"message\":\"queue research at quota: nvidia.com/gpu 8/8 allocated, 8 more asked\",\"t\":1.0,\"type\":\"JobPending\"")
expect_contains("${events}" "\"cause\":\"Capacity\",\"job\":\"default/second\"")
file(READ ${OUT}/summary.json summary)
expect_contains("${summary}" "\"queue/research/job_hours_pending_capacity\": 1.0")
file(READ ${OUT}/timeseries.csv series)
expect_contains("${series}" ",pending_quota,pending_capacity,")
file(READ ${OUT}/report.html report)
expect_contains("${report}" "<h2>Why jobs waited</h2>")
# One row per cause it waited under; the longest wait's last reason beside its cause.
expect_contains("${report}" "<td>queue at its quota</td>")
expect_contains("${report}" "(waited 2 h): 0/1 nodes are available: 1 insufficient nvidia.com/gpu")
expect_contains("${report}" "Why jobs waited, per queue over time")
