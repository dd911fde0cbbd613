# The GenericJob controller of sdk/go/examples/genericjob, built as a developer would build theirs
# (t9ksim-go, so that time.Now is simulated too), against the built-in controller on every
# regression case: t9ksim test exits 0 only if every answer was identical (docs/plugins.md §5).
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(bin ${OUT}/genericjob-controller)
execute_process(COMMAND ${GO} run ./cmd/t9ksim-go build -o ${bin}
                        ./examples/genericjob/cmd/genericjob-controller
                WORKING_DIRECTORY ${SDK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the GenericJob controller failed")
endif()
execute_process(COMMAND ${T9KSIM} test ${SOURCE}/tests/scenarios/cases
                        --plugin GenericJob=${bin} --reference builtin --junit ${OUT}/junit.xml
                WORKING_DIRECTORY ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "t9ksim test with the Go controller exited ${rc}")
endif()
if(NOT out MATCHES "passed")
  message(FATAL_ERROR "t9ksim test printed no summary")
endif()

# Random reconciles, in states the regression cases do not reach, answered by both.
execute_process(COMMAND ${PYTHON} ${SOURCE}/tests/sdk/go_random_reconciles.py ${T9KSIM} ${bin} 3000 46
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the Go controller answered random reconciles differently")
endif()

# The embedded default scenario (four weeks, GenericJobs among the others) against the built-in,
# twice: the two runs' outputs are byte-identical (t9ksim diff leaves only the plugin logs and
# the wall-clock wait aside).
foreach(i 1 2)
  execute_process(COMMAND ${T9KSIM} run -r 1 -q --out ${OUT}/default-${i}
                          --plugin GenericJob=${bin} --reference builtin
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the default scenario with the Go controller, run ${i}, exited ${rc}: ${err}")
  endif()
endforeach()
execute_process(COMMAND ${T9KSIM} diff ${OUT}/default-1 ${OUT}/default-2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "two runs with the Go controller differ:\n${out}${err}")
endif()
message("${out}")

# The events it records (a record.EventRecorder from the SDK) reach events.jsonl; the differential
# test above left them aside (the built-in controller records none).
execute_process(COMMAND ${T9KSIM} run ${SOURCE}/tests/scenarios/cases/restart-never.yaml -q
                        --events --out ${OUT}/events --plugin GenericJob=${bin}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run --events with the Go controller exited ${rc}: ${err}")
endif()
file(STRINGS ${OUT}/events/events.jsonl created REGEX "\"message\":\"Created pod: [^\"]*\".*\"type\":\"ControllerEvent\"")
if(NOT created)
  message(FATAL_ERROR "events.jsonl holds no ControllerEvent \"Created pod: ...\"")
endif()
list(LENGTH created n)
message("events.jsonl: ${n} ControllerEvent lines for created pods")
