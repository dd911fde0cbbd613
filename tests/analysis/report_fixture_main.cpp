// report_fixture DIR: writes the synthetic results tree of fixture.hpp (run/, reps/, compare/,
// each with report.html) for the browser test.
#include <cstdio>
#include <exception>

#include "tests/analysis/fixture.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: report_fixture DIR\n");
    return 2;
  }
  try {
    t9k::testing::write_fixture_tree(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "report_fixture: %s\n", e.what());
    return 1;
  }
  return 0;
}
