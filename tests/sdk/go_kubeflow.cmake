# A controller nobody here wrote, unmodified: the Kubeflow training-operator's PyTorchJob
# reconciler (v1.8.1, sdk/go/examples/kubeflow-pytorchjob) on a kind only its plugin knows
# (kubeflow.org/v1 PyTorchJob, docs/plugins-go.md "A third-party controller"). Built with
# t9ksim-go (time.Now simulated) from the module cache scripts/setup filled; then its regression
# cases pass, and the 100-job scenario with node faults runs to the end twice with byte-identical
# outputs, every job counted in jobs.csv under its own kind and finished.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(mod ${SOURCE}/sdk/go/examples/kubeflow-pytorchjob)
set(bin ${OUT}/kubeflow-pytorchjob)
execute_process(COMMAND gofmt -l . WORKING_DIRECTORY ${mod} OUTPUT_VARIABLE unformatted)
if(NOT unformatted STREQUAL "")
  message(FATAL_ERROR "not gofmt-formatted:\n${unformatted}")
endif()
foreach(step "vet;." "build;-o;${bin};.")
  execute_process(COMMAND ${GO} run t9ksim.dev/sdk/cmd/t9ksim-go ${step}
                  WORKING_DIRECTORY ${mod} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "t9ksim-go ${step} of the Kubeflow example exited ${rc}")
  endif()
endforeach()
set(plugin --plugin kubeflow.org/v1/PyTorchJob=${bin})

execute_process(COMMAND ${T9KSIM} test ${SOURCE}/tests/plugins/kubeflow ${plugin}
                WORKING_DIRECTORY ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "passed, 0 failed")
  message(FATAL_ERROR "the Kubeflow cases failed (exit ${rc})")
endif()

set(scenario ${SOURCE}/scenarios/examples/kubeflow/pytorchjob-100.yaml)
foreach(i 1 2)
  execute_process(COMMAND ${T9KSIM} run ${scenario} -q --out ${OUT}/run-${i} ${plugin}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the 100 PyTorchJobs, run ${i}, exited ${rc}: ${err}")
  endif()
endforeach()
execute_process(COMMAND ${T9KSIM} diff ${OUT}/run-1 ${OUT}/run-2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "two runs of the 100 PyTorchJobs differ:\n${out}${err}")
endif()
execute_process(COMMAND ${PYTHON} ${SOURCE}/tests/sdk/kubeflow_run_check.py ${OUT}/run-1
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the 100-job run is not what it should be")
endif()
