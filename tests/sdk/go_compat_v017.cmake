# The Go SDK on controller-runtime v0.17 (Kubernetes 1.29), as a controller pinned there builds it:
# go_compat_v017/go.mod keeps those versions with replace directives, and t9ksim-go adds the
# SDK's build tags for them (docs/plugins-go.md "Older controller-runtime"). The compat module's
# build list is checked (v0.17.2 selected, not the SDK's own v0.25), the adapter's tests pass, and
# the GenericJob example built there answers every regression case as the built-in controller.
# The API types' exact re-encoding tests are left to "sdk: go test": apimachinery before 1.33
# writes an unset creationTimestamp as null.
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(mod ${SOURCE}/tests/sdk/go_compat_v017)
execute_process(COMMAND ${GO} list -m -f "{{if .Replace}}{{.Replace.Version}}{{else}}{{.Version}}{{end}}"
                        sigs.k8s.io/controller-runtime
                WORKING_DIRECTORY ${mod} RESULT_VARIABLE rc OUTPUT_VARIABLE version)
string(STRIP "${version}" version)
if(NOT rc EQUAL 0 OR NOT version STREQUAL "v0.17.2")
  message(FATAL_ERROR "the compat module selects controller-runtime '${version}', not v0.17.2")
endif()
foreach(step "vet;./...;t9ksim.dev/sdk/..." "test;-count=1;t9ksim.dev/sdk/plugin;t9ksim.dev/sdk/cmd/..."
             "build;-o;${OUT}/genericjob-controller;t9ksim.dev/sdk/examples/genericjob/cmd/genericjob-controller")
  execute_process(COMMAND ${GO} run t9ksim.dev/sdk/cmd/t9ksim-go ${step}
                  WORKING_DIRECTORY ${mod} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "t9ksim-go ${step} on controller-runtime v0.17.2 exited ${rc}")
  endif()
endforeach()
execute_process(COMMAND ${T9KSIM} test ${SOURCE}/tests/scenarios/cases
                        --plugin GenericJob=${OUT}/genericjob-controller --reference builtin
                WORKING_DIRECTORY ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "passed, 0 failed")
  message(FATAL_ERROR "the GenericJob controller on controller-runtime v0.17.2 differs (exit ${rc})")
endif()
