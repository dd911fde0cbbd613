// `t9ksim report DIR`: regenerates DIR/report.html from a results directory (a run, replications or
// a comparison; docs/reports.md).
#pragma once

#include <string>

namespace t9k::app {

// Exit code: 0 ok, 1 the results could not be read or the report not written, 2 no such directory.
int report_command(const std::string& dir);

}  // namespace t9k::app
