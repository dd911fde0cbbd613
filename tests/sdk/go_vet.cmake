# gofmt -l prints nothing and go vet passes over the whole Go SDK (sdk/go).
execute_process(COMMAND gofmt -l . WORKING_DIRECTORY ${SDK} OUTPUT_VARIABLE unformatted
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gofmt failed (${rc})")
endif()
if(NOT unformatted STREQUAL "")
  message(FATAL_ERROR "not gofmt-formatted (run gofmt -w in sdk/go):\n${unformatted}")
endif()
execute_process(COMMAND ${GO} vet ./... WORKING_DIRECTORY ${SDK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "go vet failed")
endif()
