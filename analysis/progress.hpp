// A progress bar on stderr for long runs and replications. Draws only when stderr is a terminal,
// so logs and pipes get nothing extra. Thread-safe: replications running in parallel threads may
// all call update()/advance().
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

namespace t9k::analysis {

class Progress {
 public:
  // total: the amount that means done (events, replications...). label: printed before the bar.
  explicit Progress(std::uint64_t total, std::string label = "");
  // Tests and callers that know better can force drawing on or off, and the stream.
  Progress(std::uint64_t total, std::string label, std::FILE* out, bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Sets the amount done (clamped to total); redraws when the shown percentage changes.
  void update(std::uint64_t done);
  // Adds to the amount done.
  void advance(std::uint64_t delta = 1);
  // Draws 100 % and ends the line; the destructor calls it if nobody did.
  void finish();

  bool enabled() const { return enabled_; }
  // Whether the default constructor would draw.
  static bool stderr_is_terminal();
  // The text of the bar for `done` out of `total` ("label [#####     ] 50% 5/10"), no newline.
  static std::string render(const std::string& label, std::uint64_t done, std::uint64_t total, int width = 30);

 private:
  void draw_locked();

  std::mutex mu_;
  std::uint64_t total_;
  std::uint64_t done_ = 0;
  std::string label_;
  std::FILE* out_;
  bool enabled_;
  bool finished_ = false;
  int shown_permille_ = -1;
};

}  // namespace t9k::analysis
