// jemalloc's settings in the executables that link it (CMakeLists.txt, t9ksim_malloc): jemalloc
// reads this symbol before main; MALLOC_CONF in the environment still applies over it.
//
// percpu_arena: one arena per CPU, each thread allocating from its CPU's. By default jemalloc
// makes four arenas per CPU and gives each new thread one of its own, so runs on threads kept
// their freed memory apart: `t9ksim run` of the backlog with 4 replications on 2 threads held
// 144.7 MiB at its peak, against 138.1 MiB with tcmalloc and 138.5 MiB so (docs/performance.md
// "The allocator again"). One arena for all (narenas:1) held 127 MiB but would have the threads
// of a many-core machine contend for it.
extern "C" {
const char* malloc_conf = "percpu_arena:percpu";  // NOLINT: jemalloc's name and type
}
