# Plugins out of process (issue 14 §8, issue 45): the default scenario over 28 days with its
# controllers and elastic policy in process, behind `t9ksim plugin serve` (protocol 1 and 2) and
# in Python on the SDK, and one reconcile's round trip.
add_executable(plugins_bench ${CMAKE_CURRENT_LIST_DIR}/plugins_bench.cpp)
target_link_libraries(plugins_bench PRIVATE t9ksim::sim t9ksim::plugins t9ksim::scenarios t9ksim::controllers
                      benchmark::benchmark t9ksim_fmt t9ksim_warnings t9ksim_malloc)
target_compile_definitions(plugins_bench PRIVATE T9KSIM_DEFAULT_SCENARIO="${PROJECT_SOURCE_DIR}/scenarios/default.yaml"
                           T9KSIM_BIN="$<TARGET_FILE:t9ksim>" T9KSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(plugins_bench t9ksim)

# Arg 6: the GenericJob controller of the Go SDK (sdk/go/examples/genericjob), built with
# t9ksim-go as a developer would build theirs, when Go is installed.
find_program(T9KSIM_GO go)
if(T9KSIM_GO)
  file(GLOB_RECURSE go_sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sdk/go/*.go
       ${PROJECT_SOURCE_DIR}/sdk/go/go.mod ${PROJECT_SOURCE_DIR}/sdk/go/go.sum)
  set(go_generic ${CMAKE_CURRENT_BINARY_DIR}/sdk-go/genericjob-controller)
  add_custom_command(OUTPUT ${go_generic}
                     COMMAND ${T9KSIM_GO} run ./cmd/t9ksim-go build -o ${go_generic}
                             ./examples/genericjob/cmd/genericjob-controller
                     WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/go
                     DEPENDS ${go_sources}
                     COMMENT "Building the Go SDK's GenericJob controller")
  add_custom_target(go_generic_controller DEPENDS ${go_generic})
  add_dependencies(plugins_bench go_generic_controller)
  target_compile_definitions(plugins_bench PRIVATE T9KSIM_GO_GENERIC="${go_generic}")
endif()
