# `t9ksim replay-check` end to end on the shipped export fixture (docs/traces.md "Recorded versus
# simulated"): the replay runs on the export's nodes, replay-check.csv has a row per finished job
# with the recorded wait where pods give it, and bad input is refused with exit code 2.
# Inputs: T9KSIM, EXPORT, OUT (absolute).
include(${CMAKE_CURRENT_LIST_DIR}/../cli_expect.cmake)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
expect_exit(0 ${T9KSIM} replay-check ${EXPORT} -o ${OUT}/check --zero-latency)
expect_contains("${last_out}" "replay-check: 3 recorded jobs")
expect_contains("${last_out}" "wait (simulated - recorded): 1 jobs")
expect_contains("${last_out}" "2 jobs without an exact recorded start")
foreach(f summary.json jobs.csv report.html scenario.yaml replay-check.csv)
  if(NOT EXISTS ${OUT}/check/${f})
    message(FATAL_ERROR "replay-check wrote no ${f}")
  endif()
endforeach()
file(READ ${OUT}/check/replay-check.csv csv)
expect_contains("${csv}" "job,submit_s,recorded_wait_s,simulated_wait_s,wait_error_s,recorded_end_s,simulated_end_s,end_error_s\n")
# mnist-ddp: created 11:00:00, first pod started 11:00:10 (recorded wait 10 s), Completed at
# 12:30:40; submitted 1 h after preprocess, the first job of the export.
expect_contains("${csv}" "demo/mnist-ddp,3600.000000,10.000000,0.000000,-10.000000,9040.000000,9030.000000,-10.000000\n")
# preprocess: its pods are gone, so its start is the Initialized condition (5 s after creation):
# its wait is not compared, its end (10:40:05) is.
expect_contains("${csv}" "demo/preprocess,0.000000,,0.000000,,2405.000000,2400.000000,-5.000000\n")
# The report draws recorded against simulated, per measure.
file(READ ${OUT}/check/report.html report)
expect_contains("${report}" "Recorded versus simulated: when jobs ended")
expect_contains("${report}" "Recorded versus simulated: how long jobs waited")
# Its first screen answers the command's question (issue 48 item 1): how far the replay is from
# the export, in the figures the console prints (waits of 1 job, ends of 3).
expect_contains("${report}" "<h2>The answer: how close the replay is</h2>")
expect_contains("${report}" "<li><b>Waits</b> of 1 job: off by 10 s at the median and 10 s at p90 (the worst 10 s); on average the replay waits 10 s less</li>")
expect_contains("${report}" "<li><b>Ends</b> of 3 jobs: off by 10 s at the median")
# The export's own nodes ran the jobs.
file(READ ${OUT}/check/scenario.yaml scenario)
expect_contains("${scenario}" "fromTrace: export")

# An export without Nodes needs the cluster on the command line.
file(READ ${EXPORT} text)
string(REPLACE "kind: Node\n" "kind: NotANode\n" text "${text}")
file(WRITE ${OUT}/no-nodes.yaml "${text}")
expect_exit(2 ${T9KSIM} replay-check ${OUT}/no-nodes.yaml -o ${OUT}/none)
expect_contains("${last_err}" "the export has no Node objects")
expect_exit(0 ${T9KSIM} replay-check ${OUT}/no-nodes.yaml -o ${OUT}/given --nodes 2 --gpus-per-node 8 --no-report -q)
if(EXISTS ${OUT}/given/report.html)
  message(FATAL_ERROR "--no-report wrote report.html")
endif()
expect_exit(2 ${T9KSIM} replay-check ${OUT}/missing.yaml -o ${OUT}/missing)
expect_contains("${last_err}" "not a file")
