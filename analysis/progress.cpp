#include "analysis/progress.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <unistd.h>

namespace t9k::analysis {

bool Progress::stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::uint64_t total, std::string label)
    : Progress(total, std::move(label), stderr, stderr_is_terminal()) {}

Progress::Progress(std::uint64_t total, std::string label, std::FILE* out, bool enabled)
    : total_(total), label_(std::move(label)), out_(out), enabled_(enabled && out != nullptr) {}

Progress::~Progress() { finish(); }

std::string Progress::render(const std::string& label, std::uint64_t done, std::uint64_t total, int width) {
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
  const int permille = total_ == 0 ? 1000 : static_cast<int>(std::min(done_, total_) * 1000 / total_);
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

}  // namespace t9k::analysis
