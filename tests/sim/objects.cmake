# t9ksim run --objects --events on a case with a node failure: the run itself is unchanged
# (summary.json with its fingerprint, jobs.csv byte-identical to a plain run); objects.yaml is a
# kind: List with the finished job's full status and its finished PodGroup and the queue;
# events.jsonl names jobs by name and id, has PodUnknown and the job status on every change.
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${T9KSIM} run ${SCENARIO} --out ${OUT}/plain --quiet --no-report RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plain run exited ${rc}")
endif()
execute_process(COMMAND ${T9KSIM} run ${SCENARIO} --out ${OUT}/full --objects --events --quiet --no-report
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run with --objects --events exited ${rc}")
endif()
foreach(f summary.json jobs.csv timeseries.csv)
  file(READ ${OUT}/plain/${f} a)
  file(READ ${OUT}/full/${f} b)
  if(f STREQUAL "summary.json")
    # Its listing of the folder's files differs by events.jsonl and objects.yaml, by design.
    string(JSON a REMOVE "${a}" files)
    string(JSON b REMOVE "${b}" files)
  endif()
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "--objects/--events changed ${f}")
  endif()
endforeach()
file(READ ${OUT}/full/objects.yaml objects)
foreach(want "\"kind\": \"List\"" "\"kind\": \"PyTorchTrainingJob\"" "\"phase\": \"Succeeded\"" "\"backoffCount\": 1"
             "\"lastTransitionTime\": \"" "\"restartCount\": 1" "\"kind\": \"PodGroup\""
             "\"finished\": true" "\"kind\": \"Queue\"" "\"type\": \"Completed\"")
  string(FIND "${objects}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "objects.yaml lacks ${want}:\n${objects}")
  endif()
endforeach()
file(READ ${OUT}/full/events.jsonl events)
foreach(want "\"type\":\"PodUnknown\"" "\"type\":\"JobStatusChanged\"" "\"job\":\"default/gang\",\"jobId\":0"
             "\"node\":\"gpu-0\"" "\"exitCode\":137")
  string(FIND "${events}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "events.jsonl lacks ${want}")
  endif()
endforeach()
if(EXISTS ${OUT}/plain/objects.yaml)
  message(FATAL_ERROR "a run without --objects wrote objects.yaml")
endif()
