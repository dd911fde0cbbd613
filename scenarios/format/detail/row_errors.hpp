// Internal: findings of a trace reader, row by row (a bad row is reported once, at its first
// problem; beyond a limit only a count), and what they mean for the replay (skipBadRows).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "scenarios/format/diagnostics.hpp"

namespace t9k::scenarios::detail {

// Beyond this many findings only a count is added (a broken 80,000-row file stays readable).
inline constexpr std::int64_t kMaxRowFindings = 100;

class RowErrors {
 public:
  RowErrors(std::string file, bool skip, std::vector<Diagnostic>& out)
      : file_(std::move(file)), skip_(skip), out_(out) {}
  // One bad row: reported once, at its first problem.
  void bad(int line, int column, std::string_view field, std::string message) {
    ++count_;
    if (count_ > kMaxRowFindings) return;
    out_.push_back(Diagnostic{skip_ ? Severity::Warning : Severity::Error, file_, line, column, 0,
                              std::string(field), std::move(message)});
  }
  // A problem with the whole file (missing header column, unreadable): always an error.
  void fatal(int line, int column, std::string message) {
    fatal_ = true;
    out_.push_back(Diagnostic{Severity::Error, file_, line, column, 0, "", std::move(message)});
  }
  void finish() {
    if (count_ > kMaxRowFindings) {
      out_.push_back(
          Diagnostic{skip_ ? Severity::Warning : Severity::Error, file_, 0, 0, 0, "",
                     fmt::format("{} more bad rows not shown", count_ - kMaxRowFindings)});
    }
    if (count_ > 0 && skip_) {
      out_.push_back(Diagnostic{
          Severity::Warning, file_, 0, 0, 0, "",
          fmt::format("skipped {} bad row{} (skipBadRows)", count_, count_ == 1 ? "" : "s")});
    } else if (count_ > 0) {
      out_.push_back(
          Diagnostic{Severity::Error, file_, 0, 0, 0, "",
                     fmt::format("found {} bad row{}; the replay does not start (t9ksim run "
                                 "--skip-bad-rows, or skipBadRows: true on the entry, skips them)",
                                 count_, count_ == 1 ? "" : "s")});
    }
  }
  std::int64_t count() const { return count_; }
  bool failed() const { return fatal_ || (count_ > 0 && !skip_); }

 private:
  std::string file_;
  bool skip_;
  std::vector<Diagnostic>& out_;
  std::int64_t count_ = 0;
  bool fatal_ = false;
};

}  // namespace t9k::scenarios::detail
