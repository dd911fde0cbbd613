# scheduler: one scheduling cycle on a large cluster (issue 5 "Scale").
add_executable(scheduler_bench ${CMAKE_CURRENT_LIST_DIR}/scheduler_bench.cpp)
target_link_libraries(scheduler_bench PRIVATE t9ksim::scheduler benchmark::benchmark t9ksim_warnings t9ksim_malloc)
