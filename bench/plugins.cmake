# Plugins out of process (issue 14 §8, issue 45): the default scenario over 28 days with its
# controllers and elastic policy in process, behind `t9ksim plugin serve` (protocol 1 and 2) and
# in Python on the SDK, and one reconcile's round trip.
add_executable(plugins_bench ${CMAKE_CURRENT_LIST_DIR}/plugins_bench.cpp)
target_link_libraries(plugins_bench PRIVATE t9ksim::sim t9ksim::plugins t9ksim::scenarios t9ksim::controllers
                      benchmark::benchmark fmt::fmt t9ksim_warnings t9ksim_malloc)
target_compile_definitions(plugins_bench PRIVATE T9KSIM_DEFAULT_SCENARIO="${PROJECT_SOURCE_DIR}/scenarios/default.yaml"
                           T9KSIM_BIN="$<TARGET_FILE:t9ksim>" T9KSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(plugins_bench t9ksim)
