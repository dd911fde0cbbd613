# `t9ksim forecast` and `t9ksim fit` end to end on the shipped export fixture (docs/forecast.md):
# the forecast starts from the export's running and waiting jobs on its own cluster, adds fitted
# arrivals, writes a scenario that runs again identically, and bad input is refused with exit 2.
# Inputs: T9KSIM, EXPORT, OUT (absolute).
include(${CMAKE_CURRENT_LIST_DIR}/../cli_expect.cmake)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
get_filename_component(export_name ${EXPORT} NAME)

expect_exit(0 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/week --horizon 2d)
expect_contains("${last_out}" "fit: arrivals: 5 jobs over 23.0 h of history")
expect_contains("${last_err}${last_out}" "time zero is 2024-05-02T09:00:00Z")
expect_contains("${last_err}${last_out}" "1 running job placed on their recorded nodes, 1 waiting job queued in creation order")
foreach(f summary.json jobs.csv report.html scenario.yaml timeseries.csv)
  if(NOT EXISTS ${OUT}/week/${f})
    message(FATAL_ERROR "forecast wrote no ${f}")
  endif()
endforeach()
file(READ ${OUT}/week/jobs.csv jobs)
expect_contains("${jobs}" "\ndemo/bert-large,PyTorchTrainingJob,team-a,")
expect_contains("${jobs}" "\ndemo/queued-eval,GenericJob,team-a,")
expect_contains("${jobs}" "\ndemo/arrivals-")
file(READ ${OUT}/week/scenario.yaml scenario)
expect_contains("${scenario}" "  initialState:\n")
expect_contains("${scenario}" "    remaining: {fractionOfElapsed: 1}\n")
expect_contains("${scenario}" "    generators:\n")
file(READ ${OUT}/week/report.html report)
# The report is titled by the export and time zero, not just "forecast".
expect_contains("${report}" "<h1>t9ksim report: forecast of ${export_name} from 2024-05-02T09:00:00Z</h1>")
expect_contains("${report}" "<h2>Starting state</h2>")
expect_contains("${report}" "1 running job (8 GPUs) placed on their recorded nodes")
expect_contains("${report}" "<td class=\"job\">demo/bert-large</td>")
expect_contains("${report}" "<td>gpu-node-0</td>")
# initial-state.csv: what the run started from, as drawn.
file(READ ${OUT}/week/initial-state.csv initial)
expect_contains("${initial}" "job,kind,queue,state,gpus,elapsed_s,remaining_s,nodes\n")
expect_contains("${initial}" "demo/bert-large,PyTorchTrainingJob,team-a,Running,8,3575.000000,3575.000000,gpu-node-0\n")
expect_contains("${initial}" "demo/queued-eval,GenericJob,team-a,Waiting,16,0.000000,2850.000000,\n")

# The scenario it wrote runs again to the same jobs.
expect_exit(0 ${T9KSIM} run ${OUT}/week/scenario.yaml -o ${OUT}/again --no-report -q)
file(READ ${OUT}/again/jobs.csv again)
if(NOT again STREQUAL jobs)
  message(FATAL_ERROR "running forecast's scenario.yaml again gave other jobs")
endif()

# With the export beside it (a relative fromExport), `t9ksim generate` re-anchors both fromExport
# fields and its explicit jobs replay the same forecast.
file(MAKE_DIRECTORY ${OUT}/rel)
file(COPY ${EXPORT} DESTINATION ${OUT}/rel)
string(REPLACE "\"${EXPORT}\"" "t9k-cluster-export.yaml" relative "${scenario}")
file(WRITE ${OUT}/rel/forecast.yaml "${relative}")
expect_exit(0 ${T9KSIM} generate ${OUT}/rel/forecast.yaml --out ${OUT}/generated -q)
file(READ ${OUT}/generated/scenario.yaml generated)
expect_contains("${generated}" "    fromExport: ../rel/t9k-cluster-export.yaml\n")
expect_exit(0 ${T9KSIM} run ${OUT}/generated/scenario.yaml -o ${OUT}/generated-run --no-report -q)
file(READ ${OUT}/generated-run/jobs.csv generated_jobs)
if(NOT generated_jobs STREQUAL jobs)
  message(FATAL_ERROR "the generated forecast's explicit jobs gave other jobs")
endif()

# Only the jobs present, half their elapsed time left, waiting jobs an hour.
expect_exit(0 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/present --no-arrivals --remaining 0.5 --queued-run-time 1h --no-report -q)
file(STRINGS ${OUT}/present/jobs.csv rows)
list(LENGTH rows n)
if(NOT n EQUAL 3)
  message(FATAL_ERROR "--no-arrivals: expected the header and 2 jobs, got ${n} lines")
endif()
# bert-large ran 3575 s before time zero: 1787.5 s more.
expect_contains("${rows}" "demo/bert-large,PyTorchTrainingJob,team-a,0,1,8,false,0.000000,")
expect_contains("${rows}" ",1787.500000,")
if(EXISTS ${OUT}/present/report.html)
  message(FATAL_ERROR "--no-report wrote report.html")
endif()

# A bad remaining model is refused at its field, before anything is written.
expect_exit(2 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/bad --remaining "{bogus: 1}")
expect_contains("${last_err}" "spec.initialState.remaining.distribution")
if(EXISTS ${OUT}/bad)
  message(FATAL_ERROR "a refused forecast left ${OUT}/bad")
endif()

# fit: to standard output, or to a file.
expect_exit(0 ${T9KSIM} fit ${EXPORT})
expect_contains("${last_out}" "generators:\n- name: arrivals\n  profile:\n    rate: 0.2174\n")
expect_contains("${last_out}" "    weekOffset: 291600s\n")
expect_exit(0 ${T9KSIM} fit ${EXPORT} -o ${OUT}/arrivals.yaml -q)
file(READ ${OUT}/arrivals.yaml fitted)
expect_contains("${fitted}" "  - name: ptj4-2x8\n")

# An export without Nodes has no placement to start from; a missing file is named.
file(READ ${EXPORT} text)
string(REPLACE "kind: Node\n" "kind: NotANode\n" text "${text}")
file(WRITE ${OUT}/no-nodes.yaml "${text}")
expect_exit(2 ${T9KSIM} forecast ${OUT}/no-nodes.yaml -o ${OUT}/none)
expect_contains("${last_err}" "the export has no Node objects")
expect_exit(2 ${T9KSIM} forecast ${OUT}/missing.yaml -o ${OUT}/missing)
expect_contains("${last_err}" "not a file")
expect_exit(2 ${T9KSIM} fit ${OUT}/missing.yaml)
expect_contains("${last_err}" "not a file")
