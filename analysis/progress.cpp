#include "analysis/progress.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <unistd.h>

#include "analysis/units.hpp"

namespace t9k::analysis {

bool Progress::stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::uint64_t total, std::string label)
    : Progress(total, std::move(label), stderr, stderr_is_terminal()) {}

Progress::Progress(std::uint64_t total, std::string label, std::FILE* out, bool enabled)
    : total_(total), label_(std::move(label)), out_(out), enabled_(enabled && out != nullptr) {}

Progress::~Progress() { finish(); }

std::string Progress::render(const std::string& label, std::uint64_t done, std::uint64_t total,
                             int width) {
  done = std::min(done, total);
  const double frac = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(frac * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(width - filled), ' ');
  return fmt::format("{}{}[{}] {:3d}% {}/{}", label, label.empty() ? "" : " ", bar,
                     static_cast<int>(frac * 100), done, total);
}

void Progress::draw_locked() {
  // Redraw on each 0.1 % step only: a terminal write per event would dominate a fast run.
  const int permille =
      total_ == 0 ? 1000 : static_cast<int>(std::min(done_, total_) * 1000 / total_);
  if (permille == shown_permille_) return;
  shown_permille_ = permille;
  // "\r" returns to the line start; "\x1b[K" clears what a longer previous line left.
  fmt::print(out_, "\r{}\x1b[K", render(label_, done_, total_));
  std::fflush(out_);
}

void Progress::update(std::uint64_t done) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  if (finished_) return;
  done_ = std::min(done, total_);
  draw_locked();
}

void Progress::advance(std::uint64_t delta) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  if (finished_) return;
  done_ = std::min(done_ + delta, total_);
  draw_locked();
}

void Progress::finish() {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  if (finished_) return;
  finished_ = true;
  done_ = total_;
  draw_locked();
  fmt::print(out_, "\n");
  std::fflush(out_);
}

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string per_second(double rate) {
  if (rate >= 1e6) return fmt::format("{:.1f}M", rate / 1e6);
  if (rate >= 1e3) return fmt::format("{:.0f}k", rate / 1e3);
  return fmt::format("{:.0f}", rate);
}

}  // namespace

std::string render_run_progress(const RunProgressSnapshot& s, int width) {
  const double f = std::clamp(s.fraction, 0.0, 1.0);
  const int filled = static_cast<int>(f * width);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(width - filled), ' ');
  std::string line =
      fmt::format("simulating [{}] {:3d}% {} of {}", bar, static_cast<int>(f * 100),
                  format_duration_s(f * s.horizon_s), format_duration_s(s.horizon_s));
  if (s.wall_s > 0)
    line += fmt::format(", {} events/s", per_second(static_cast<double>(s.events) / s.wall_s));
  if (f > 0 && f < 1) line += fmt::format(", ETA {}", format_duration_s(s.wall_s * (1 - f) / f));
  return line;
}

RunProgress::RunProgress(double horizon_s, std::FILE* out, bool enabled, double delay_s)
    : horizon_s_(horizon_s),
      out_(out),
      enabled_(enabled && out != nullptr),
      delay_s_(delay_s),
      start_(steady_seconds()) {}

RunProgress::~RunProgress() { finish(); }

double RunProgress::elapsed() const { return steady_seconds() - start_; }

void RunProgress::update(double fraction, std::uint64_t events) {
  if (!enabled_ || finished_) return;
  fraction_ = fraction;
  events_ = events;
  const double now = elapsed();
  if (now < delay_s_ || (last_draw_ >= 0 && now - last_draw_ < 0.1)) return;
  last_draw_ = now;
  drawn_ = true;
  fmt::print(out_, "\r{}\x1b[K", render_run_progress({fraction, horizon_s_, events, now}));
  std::fflush(out_);
}

void RunProgress::finish() {
  if (!enabled_ || finished_) return;
  finished_ = true;
  if (!drawn_) return;  // a short run: nothing was shown, nothing to end
  fmt::print(out_, "\r{}\x1b[K\n",
             render_run_progress({fraction_, horizon_s_, events_, elapsed()}));
  std::fflush(out_);
}

}  // namespace t9k::analysis
