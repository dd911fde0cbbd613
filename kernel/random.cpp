#include "kernel/random.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "kernel/hash.hpp"

namespace t9k::kernel {

namespace {
constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

[[noreturn]] void bad(std::string_view dist, std::string_view why) {
  throw DistributionError(fmt::format("{}: {}", dist, why));
}
bool finite(double x) { return std::isfinite(x); }
}  // namespace

Rng::Rng(std::uint64_t key) {
  std::uint64_t z = key;
  for (auto& s : s_) {
    z += 0x9E3779B97F4A7C15ULL;
    s = mix64(z);
  }
  if ((s_[0] | s_[1] | s_[2] | s_[3]) == 0) s_[0] = 1;  // all-zero state is a fixed point
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Rng::uniform01_open() { return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1.0p-53; }

std::uint64_t Rng::below(std::uint64_t n) {
  // Lemire, "Fast random integer generation in an interval" (2019).
  UInt128 m = static_cast<UInt128>(next_u64()) * n;
  std::uint64_t low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<UInt128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

RngStreams::RngStreams(std::uint64_t seed, std::uint64_t replication)
    : seed_(seed), replication_(replication), base_(hash_combine(mix64(seed), replication)) {}

Rng RngStreams::stream(std::string_view name) const {
  return Rng(hash_combine(base_, hash_string(name)));
}

Uniform::Uniform(double lo_, double hi_) : lo(lo_), hi(hi_) {
  if (!finite(lo) || !finite(hi) || lo > hi) bad("uniform", "needs finite min <= max");
}
double Uniform::operator()(Rng& r) const { return lo + (hi - lo) * r.uniform01(); }

Exponential::Exponential(double rate_) : rate(rate_) {
  if (!finite(rate) || rate <= 0) bad("exponential", "rate must be > 0");
}
double Exponential::operator()(Rng& r) const { return -std::log(r.uniform01_open()) / rate; }

Normal::Normal(double mu_, double sigma_) : mu(mu_), sigma(sigma_) {
  if (!finite(mu) || !finite(sigma) || sigma < 0) bad("normal", "needs finite mean and sigma >= 0");
}
double Normal::operator()(Rng& r) const {
  // Marsaglia polar method; uses only log and sqrt. The second variate is discarded so each
  // draw consumes a well-defined amount of the stream regardless of call history.
  for (;;) {
    const double u = 2 * r.uniform01() - 1;
    const double v = 2 * r.uniform01() - 1;
    const double s = u * u + v * v;
    if (s > 0 && s < 1) return mu + sigma * u * std::sqrt(-2 * std::log(s) / s);
  }
}

LogNormal::LogNormal(double mu_, double sigma_) : mu(mu_), sigma(sigma_) {
  if (!finite(mu) || !finite(sigma) || sigma < 0)
    bad("lognormal", "needs finite mu and sigma >= 0");
}
double LogNormal::operator()(Rng& r) const { return std::exp(Normal(mu, sigma)(r)); }
double LogNormal::mean() const { return std::exp(mu + sigma * sigma / 2); }
double LogNormal::variance() const {
  return (std::exp(sigma * sigma) - 1) * std::exp(2 * mu + sigma * sigma);
}

Weibull::Weibull(double shape_, double scale_) : shape(shape_), scale(scale_) {
  if (!finite(shape) || !finite(scale) || shape <= 0 || scale <= 0) {
    bad("weibull", "shape and scale must be > 0");
  }
}
double Weibull::operator()(Rng& r) const {
  return scale * std::pow(-std::log(r.uniform01_open()), 1 / shape);
}
double Weibull::mean() const { return scale * std::tgamma(1 + 1 / shape); }
double Weibull::variance() const {
  const double g1 = std::tgamma(1 + 1 / shape);
  return scale * scale * (std::tgamma(1 + 2 / shape) - g1 * g1);
}

Gamma::Gamma(double shape_, double scale_) : shape(shape_), scale(scale_) {
  if (!finite(shape) || !finite(scale) || shape <= 0 || scale <= 0) {
    bad("gamma", "shape and scale must be > 0");
  }
}
double Gamma::operator()(Rng& r) const {
  // Marsaglia & Tsang; for shape < 1 use the boost G(a) = G(a+1) * U^(1/a).
  const double a = shape < 1 ? shape + 1 : shape;
  const double d = a - 1.0 / 3;
  const double c = 1 / std::sqrt(9 * d);
  double x = 0;
  for (;;) {
    double z = 0;
    double v = 0;
    do {
      z = Normal(0, 1)(r);
      v = 1 + c * z;
    } while (v <= 0);
    v = v * v * v;
    const double u = r.uniform01_open();
    if (u < 1 - 0.0331 * z * z * z * z || std::log(u) < 0.5 * z * z + d * (1 - v + std::log(v))) {
      x = d * v;
      break;
    }
  }
  if (shape < 1) x *= std::pow(r.uniform01_open(), 1 / shape);
  return x * scale;
}

BoundedPareto::BoundedPareto(double alpha_, double lo_, double hi_)
    : alpha(alpha_), lo(lo_), hi(hi_) {
  if (!finite(alpha) || alpha <= 0) bad("boundedPareto", "alpha must be > 0");
  if (!finite(lo) || !finite(hi) || lo <= 0 || hi <= lo)
    bad("boundedPareto", "needs 0 < min < max");
}
double BoundedPareto::operator()(Rng& r) const {
  const double u = r.uniform01();
  const double la = std::pow(lo, alpha);
  const double ha = std::pow(hi, alpha);
  return std::pow(-(u * ha - u * la - ha) / (ha * la), -1 / alpha);
}
namespace {
// E[X^k] for the bounded Pareto.
double bp_moment(double alpha, double lo, double hi, int k) {
  const double norm = alpha * std::pow(lo, alpha) / (1 - std::pow(lo / hi, alpha));
  if (std::abs(alpha - k) < 1e-12) return norm * std::log(hi / lo);
  return norm * (std::pow(hi, k - alpha) - std::pow(lo, k - alpha)) / (k - alpha);
}
}  // namespace
double BoundedPareto::mean() const { return bp_moment(alpha, lo, hi, 1); }
double BoundedPareto::variance() const {
  const double m = mean();
  return bp_moment(alpha, lo, hi, 2) - m * m;
}

Categorical::Categorical(const std::vector<double>& weights) {
  if (weights.empty()) bad("categorical", "needs at least one weight");
  double total = 0;
  for (double w : weights) {
    if (!finite(w) || w < 0) bad("categorical", "weights must be finite and >= 0");
    total += w;
    cumulative.push_back(total);
  }
  if (total <= 0) bad("categorical", "weights must not sum to zero");
}
std::size_t Categorical::operator()(Rng& r) const {
  const double x = r.uniform01() * cumulative.back();
  const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), x);
  const std::size_t i = static_cast<std::size_t>(it - cumulative.begin());
  return std::min(i, cumulative.size() - 1);
}
double Categorical::probability(std::size_t i) const {
  const double prev = i == 0 ? 0 : cumulative[i - 1];
  return (cumulative[i] - prev) / cumulative.back();
}

EmpiricalCdf::EmpiricalCdf(std::vector<std::pair<double, double>> pts) : points(std::move(pts)) {
  if (points.size() < 2) bad("empirical", "needs at least two (value, probability) points");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto [v, p] = points[i];
    if (!finite(v) || !finite(p) || p < 0 || p > 1)
      bad("empirical", "probabilities must lie in [0, 1]");
    if (i > 0 && (v < points[i - 1].first || p < points[i - 1].second)) {
      bad("empirical", "values and probabilities must be non-decreasing");
    }
  }
  if (points.back().second != 1.0) bad("empirical", "the last cumulative probability must be 1");
}
double EmpiricalCdf::operator()(Rng& r) const {
  const double u = r.uniform01();
  if (u <= points.front().second) return points.front().first;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto [v1, p1] = points[i];
    if (u <= p1) {
      const auto [v0, p0] = points[i - 1];
      if (p1 == p0) return v1;
      return v0 + (v1 - v0) * (u - p0) / (p1 - p0);
    }
  }
  return points.back().first;
}
double EmpiricalCdf::mean() const {
  double m = points.front().first * points.front().second;
  for (std::size_t i = 1; i < points.size(); ++i) {
    m += (points[i].second - points[i - 1].second) * (points[i].first + points[i - 1].first) / 2;
  }
  return m;
}

std::string_view Distribution::name() const {
  static constexpr std::string_view kNames[] = {"constant", "uniform",       "exponential",
                                                "normal",   "lognormal",     "weibull",
                                                "gamma",    "boundedPareto", "empirical"};
  return kNames[v_.index()];
}

}  // namespace t9k::kernel
