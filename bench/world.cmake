# The whole simulator at scale (issue 6 §11, issue 20): a generator scenario for N jobs, a 20,000-job trace, and the deep-queue backlog case.
add_executable(world_bench ${CMAKE_CURRENT_LIST_DIR}/world_bench.cpp)
target_link_libraries(world_bench PRIVATE t9ksim::sim t9ksim::analysis t9ksim::scenarios
                      benchmark::benchmark t9ksim_fmt t9ksim_warnings t9ksim_malloc)
target_compile_definitions(world_bench PRIVATE T9KSIM_WORLD_SCENARIO="${PROJECT_SOURCE_DIR}/bench/scenarios/world.yaml"
                           T9KSIM_TRACE_SCENARIO="${PROJECT_SOURCE_DIR}/bench/scenarios/philly-20k.yaml"
                           T9KSIM_BACKLOG_DIR="${PROJECT_SOURCE_DIR}/bench/scenarios/pai-backlog")
