# `t9ksim forecast` and `t9ksim fit` end to end on the shipped export fixture (docs/forecast.md):
# the forecast starts from the export's running and waiting jobs on its own cluster, adds fitted
# arrivals, writes a scenario that runs again identically, and bad input is refused with exit 2.
# Inputs: T9KSIM, EXPORT, OUT (absolute).
include(${CMAKE_CURRENT_LIST_DIR}/../cli_expect.cmake)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
get_filename_component(export_name ${EXPORT} NAME)

# -r 1: the run in the folder itself (the default is 5 replications, below).
expect_exit(0 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/week --horizon 2d -r 1)
expect_contains("${last_out}" "note: fit: arrivals: 5 jobs over 23.0 h of history")
# Notes apart from warnings: what loading chose is a note, what is not simulated a warning, and
# a thin history a warning with its sample sizes and the rate's interval.
expect_contains("${last_out}" "note: spec.initialState.fromExport: time zero is 2024-05-02T09:00:00Z")
expect_contains("${last_out}" "warning: spec.cluster.fromExport: 1 node with NoSchedule or NoExecute taints")
expect_contains("${last_out}" "warning: fit: thin history: new jobs are fitted to 5 jobs over 23.0 h; their rate may be anywhere from 0.07059 to 0.5073 per hour (95 %)")
expect_contains("${last_out}" "warning: fit: 5 of 5 classes have under 3 finished jobs")
expect_contains("${last_out}" "note: fit: class ptj4-2x8: 1 of the 5 jobs, PyTorchTrainingJob, 2 pods x 8 GPUs, queue team-a; run time median 48 min from 3 finished jobs (pooled: the class has 1)")
expect_not_contains("${last_out}" "warning: spec.initialState")
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
# summary.json keeps notes and warnings apart.
file(READ ${OUT}/week/summary.json summary)
string(JSON notes GET "${summary}" notes)
expect_contains("${notes}" "time zero is 2024-05-02T09:00:00Z")
expect_contains("${notes}" "fit: class ptj4-2x8")
string(JSON warnings GET "${summary}" warnings)
expect_contains("${warnings}" "fit: thin history")
expect_not_contains("${warnings}" "time zero is")
file(READ ${OUT}/week/report.html report)
expect_contains("${report}" "<strong>What the run assumed</strong>")
# Time axes are dates from time zero (2024-05-02T09:00:00Z = 1714640400), ticked at whole hours
# over a 2-day run; summary.json keeps time zero in setup.timeZero.
expect_contains("${report}" "\"labelExpr\":\"utcFormat((1714640400 + datum.value * 3600) * 1000, '%d %b %H:%M')\"")
expect_contains("${report}" "\"title\":\"date (UTC)\"")
expect_contains("${summary}" "\"timeZero\": 1714640400")
expect_contains("${report}" "<li>fit: class ptj4-2x8: 1 of the 5 jobs")
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
expect_exit(0 ${T9KSIM} run ${OUT}/week/scenario.yaml -r 1 -o ${OUT}/again --no-report -q)
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
expect_exit(0 ${T9KSIM} run ${OUT}/generated/scenario.yaml -r 1 -o ${OUT}/generated-run --no-report -q)
file(READ ${OUT}/generated-run/jobs.csv generated_jobs)
if(NOT generated_jobs STREQUAL jobs)
  message(FATAL_ERROR "the generated forecast's explicit jobs gave other jobs")
endif()

# Only the jobs present, half their elapsed time left, waiting jobs an hour.
expect_exit(0 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/present --no-arrivals --remaining 0.5 --queued-run-time 1h --no-report -q -r 1)
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

# A bad remaining model is refused as the option that made it, before anything is written.
expect_exit(2 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/bad --remaining "{bogus: 1}")
expect_contains("${last_err}" "t9ksim forecast: error: --remaining: ")
expect_contains("${last_err}" "(spec.initialState.remaining.distribution.bogus in the scenario it writes)")
expect_not_contains("${last_err}" "<forecast>")
expect_exit(2 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/bad --horizon 0s)
expect_contains("${last_err}" "t9ksim forecast: error: --horizon: ")
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

# An export without Nodes needs --nodes; a missing file is named.
file(READ ${EXPORT} text)
string(REPLACE "kind: Node\n" "kind: NotANode\n" text "${text}")
file(WRITE ${OUT}/no-nodes.yaml "${text}")
expect_exit(2 ${T9KSIM} forecast ${OUT}/no-nodes.yaml -o ${OUT}/none)
expect_contains("${last_err}" "the export has no Node objects")
expect_contains("${last_err}" "--nodes N --gpus-per-node G")
expect_exit(2 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/none --nodes 2)
expect_contains("${last_err}" "--nodes: the export has Node objects")

# An incomplete export (no Nodes, no Queues, no Pods) still forecasts: the cluster from --nodes,
# the queues its jobs name created, the job recorded Running without pods running (placed by the
# scheduler), each said as a note. The default is 5 replications, each in rep-<i>/.
string(REPLACE "kind: Queue\n" "kind: NotAQueue\n" text "${text}")
string(REPLACE "kind: Pod\n" "kind: NotAPod\n" text "${text}")
file(WRITE ${OUT}/bare.yaml "${text}")
expect_exit(0 ${T9KSIM} forecast ${OUT}/bare.yaml -o ${OUT}/bare --nodes 2 --horizon 2d --no-report)
expect_contains("${last_out}" "note: cluster from --nodes: 2 nodes x 8 GPUs")
expect_contains("${last_out}" "note: 1 queue the jobs name but the export has no Queue object for, created without a quota at priority 0 (export them too: kubectl get queues -o yaml): team-a")
expect_contains("${last_out}" "1 job Running at the export without any pod of it in it: running, placed by the scheduler")
expect_contains("${last_out}" "5 replications of forecast of bare.yaml")
file(READ ${OUT}/bare/rep-4/initial-state.csv initial)
expect_contains("${initial}" "demo/bert-large,PyTorchTrainingJob,team-a,Running,8,3569.000000,3569.000000,\n")
file(READ ${OUT}/bare/rep-0/jobs.csv bare_jobs)
expect_contains("${bare_jobs}" "\ndemo/bert-large,PyTorchTrainingJob,team-a,0,1,8,false,0.000000,")
file(READ ${OUT}/bare/scenario.yaml bare_scenario)
expect_contains("${bare_scenario}" "  replications: 5\n")

# "When will my job start?": a job not yet submitted, over 20 replications by default: its start
# and end percentiles as dates, why it waits, job-forecast.csv, and the report's first screen.
file(WRITE ${OUT}/my-job.yaml "apiVersion: batch.tensorstack.dev/v1beta1
kind: GenericJob
metadata: {name: my-eval, namespace: demo}
spec:
  scheduler:
    t9kScheduler: {queue: team-a}
  replicaSpecs:
  - type: worker
    replicas: 2
    template:
      spec:
        containers:
        - name: eval
          image: python:3.11
          resources:
            limits: {nvidia.com/gpu: 8}
")
expect_exit(0 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/job --job ${OUT}/my-job.yaml --horizon 3d)
expect_contains("${last_out}" "your job demo/my-eval (GenericJob, queue team-a, 16 GPUs) submitted at 2024-05-02T09:00:00Z, over 20 replications:")
expect_contains("${last_out}" "  starts: p50 2024-05-02T")
expect_contains("${last_out}" "  why it waited: Quota in 20 of 20 (queue team-a at quota: nvidia.com/gpu 16/16 allocated, 16 more asked)")
expect_contains("${last_out}" "note: your job runs 47.5 min (the median run time of the export's 3 finished jobs")
file(STRINGS ${OUT}/job/job-forecast.csv rows)
list(LENGTH rows n)
if(NOT n EQUAL 21)
  message(FATAL_ERROR "job-forecast.csv: expected the header and 20 replications, got ${n} lines")
endif()
list(GET rows 0 header)
expect_contains("${header}" "job,kind,queue,gpus,time_zero,time_zero_unix_s,horizon_s,replication,start_s,end_s,start_time,end_time,phase,reason,pending_cause,pending_reason")
list(GET rows 1 first_row)
expect_contains("${first_row}" "demo/my-eval,GenericJob,team-a,16,2024-05-02T09:00:00Z,1714640400,259200.000000,0,")
expect_contains("${first_row}" ",Succeeded,Succeeded: ")
expect_contains("${first_row}" ",Quota,\"queue team-a at quota: nvidia.com/gpu 16/16 allocated, 16 more asked\"")
file(READ ${OUT}/job/report.html report)
expect_contains("${report}" "<h2>The answer: when your job starts</h2>")
expect_contains("${report}" "<li>why it waited: Quota in 20 of 20")
# The same seed gives the same answer.
expect_exit(0 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/job-again --job ${OUT}/my-job.yaml --horizon 3d -q -j 1 --no-report)
file(READ ${OUT}/job/job-forecast.csv first)
file(READ ${OUT}/job-again/job-forecast.csv second)
if(NOT first STREQUAL second)
  message(FATAL_ERROR "forecast --job gave another job-forecast.csv on one thread")
endif()
# A job named like one of the export's is refused, and so is --job-run-time without --job.
file(READ ${OUT}/my-job.yaml job_text)
string(REPLACE "my-eval" "queued-eval" job_text "${job_text}")
file(WRITE ${OUT}/taken.yaml "${job_text}")
expect_exit(2 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/taken --job ${OUT}/taken.yaml)
expect_contains("${last_err}" "the export already has a job demo/queued-eval")
# A queue the export does not have is a typo, not a new queue (the export has Queue objects).
string(REPLACE "queue: team-a" "queue: team-x" typo_text "${job_text}")
string(REPLACE "queued-eval" "my-eval" typo_text "${typo_text}")
file(WRITE ${OUT}/typo.yaml "${typo_text}")
expect_exit(2 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/typo --job ${OUT}/typo.yaml)
expect_contains("${last_err}" "found queue \"team-x\"; allowed: a queue of the export (team-a) or default")
expect_exit(2 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/typo --gpus-per-node 4)
expect_contains("${last_err}" "--gpus-per-node: only with --nodes")
expect_exit(2 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/taken --job-run-time 1h)
expect_contains("${last_err}" "--job-run-time: only with --job")
expect_exit(2 ${T9KSIM} forecast ${EXPORT} -o ${OUT}/taken --job ${OUT}/my-job.yaml --job-run-time "{bogus: 1}")
expect_contains("${last_err}" "t9ksim forecast: error: --job-run-time: ")
expect_exit(2 ${T9KSIM} forecast ${OUT}/missing.yaml -o ${OUT}/missing)
expect_contains("${last_err}" "not a file")
expect_exit(2 ${T9KSIM} fit ${OUT}/missing.yaml)
expect_contains("${last_err}" "not a file")
