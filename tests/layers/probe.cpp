// A translation unit that includes one header (T9KSIM_PROBE_HEADER) in the include context of
// one library: tests/layers/CMakeLists.txt builds it to prove what a library may and may not see.
#include T9KSIM_PROBE_HEADER

int t9ksim_layer_probe() { return 0; }
