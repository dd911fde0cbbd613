# controllers: one reconcile of typical jobs (docs/performance.md "Controllers").
add_executable(controllers_bench ${CMAKE_CURRENT_LIST_DIR}/controllers_bench.cpp)
target_link_libraries(controllers_bench PRIVATE t9ksim::controllers benchmark::benchmark t9ksim_warnings t9ksim_malloc)
