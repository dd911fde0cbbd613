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
  static std::string render(const std::string& label, std::uint64_t done, std::uint64_t total,
                            int width = 30);

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

// What a long run shows on a terminal (docs/outputs.md "Progress"): how far simulated time has
// come, events per second of wall time, and the wall time left at that rate.
struct RunProgressSnapshot {
  double fraction = 0;       // of the horizon simulated, 0..1
  double horizon_s = 0;      // simulated seconds
  std::uint64_t events = 0;  // dispatched so far
  double wall_s = 0;         // wall time since the run started
};
// "simulating [#####     ]  50% 3.5 d of 7 d, 1.2M events/s, ETA 8.0 s", no newline.
std::string render_run_progress(const RunProgressSnapshot& s, int width = 20);

// Draws render_run_progress on `out` once the run has taken `delay_s` of wall time (a short run
// prints nothing), at most ten times a second, and ends the line when it finishes. Nothing at
// all unless enabled (t9ksim run: stderr is a terminal and -q is not given).
class RunProgress {
 public:
  RunProgress(double horizon_s, std::FILE* out, bool enabled, double delay_s = 2.0);
  ~RunProgress();
  RunProgress(const RunProgress&) = delete;
  RunProgress& operator=(const RunProgress&) = delete;
  void update(double fraction, std::uint64_t events);
  void finish();
  bool drawn() const { return drawn_; }

 private:
  double elapsed() const;
  double horizon_s_;
  std::FILE* out_;
  bool enabled_;
  double delay_s_;
  double start_;
  double last_draw_ = -1;
  double fraction_ = 0;
  std::uint64_t events_ = 0;
  bool drawn_ = false;
  bool finished_ = false;
};

}  // namespace t9k::analysis
