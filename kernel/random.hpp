// Random number streams and distributions, all our own code over a fixed generator, so results do
// not depend on the standard library (design.md "Time, order, randomness").
//
// One seed plus a replication number; stream("faults/node/17") is keyed by its name, not by
// creation order, so adding a stream never shifts another stream's draws, and two policies can be
// compared on common random numbers.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace t9k::kernel {

// xoshiro256** (Blackman & Vigna 2018), state seeded by SplitMix64 from a 64-bit key.
class Rng {
 public:
  explicit Rng(std::uint64_t key);
  std::uint64_t next_u64();
  // Uniform on [0, 1) with 53 random bits.
  double uniform01();
  // Uniform on (0, 1): never 0, for logarithms.
  double uniform01_open();
  // Uniform integer in [0, n), unbiased (Lemire's method). Precondition: n > 0.
  std::uint64_t below(std::uint64_t n);

 private:
  std::uint64_t s_[4];
};

class RngStreams {
 public:
  RngStreams(std::uint64_t seed, std::uint64_t replication);
  Rng stream(std::string_view name) const;
  std::uint64_t seed() const { return seed_; }
  std::uint64_t replication() const { return replication_; }

 private:
  std::uint64_t seed_;
  std::uint64_t replication_;
  std::uint64_t base_;
};

// Thrown for invalid distribution parameters.
class DistributionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Uniform {
  double lo, hi;
  Uniform(double lo, double hi);
  double operator()(Rng& r) const;
  double mean() const { return (lo + hi) / 2; }
  double variance() const { return (hi - lo) * (hi - lo) / 12; }
  bool operator==(const Uniform&) const = default;
};

struct Exponential {
  double rate;
  explicit Exponential(double rate);
  double operator()(Rng& r) const;
  double mean() const { return 1 / rate; }
  double variance() const { return 1 / (rate * rate); }
  bool operator==(const Exponential&) const = default;
};

struct Normal {
  double mu, sigma;
  Normal(double mu, double sigma);
  double operator()(Rng& r) const;
  double mean() const { return mu; }
  double variance() const { return sigma * sigma; }
  bool operator==(const Normal&) const = default;
};

// exp(N(mu, sigma)).
struct LogNormal {
  double mu, sigma;
  LogNormal(double mu, double sigma);
  double operator()(Rng& r) const;
  double mean() const;
  double variance() const;
  bool operator==(const LogNormal&) const = default;
};

struct Weibull {
  double shape, scale;
  Weibull(double shape, double scale);
  double operator()(Rng& r) const;
  double mean() const;
  double variance() const;
  bool operator==(const Weibull&) const = default;
};

// Shape k, scale theta (mean k * theta). Marsaglia & Tsang (2000).
struct Gamma {
  double shape, scale;
  Gamma(double shape, double scale);
  double operator()(Rng& r) const;
  double mean() const { return shape * scale; }
  double variance() const { return shape * scale * scale; }
  bool operator==(const Gamma&) const = default;
};

// Pareto with tail index alpha truncated to [lo, hi], sampled by inverting its CDF.
struct BoundedPareto {
  double alpha, lo, hi;
  BoundedPareto(double alpha, double lo, double hi);
  double operator()(Rng& r) const;
  double mean() const;
  double variance() const;
  bool operator==(const BoundedPareto&) const = default;
};

// Index i with probability weights[i] / sum(weights).
struct Categorical {
  std::vector<double> cumulative;  // running sums, last = total
  explicit Categorical(const std::vector<double>& weights);
  std::size_t operator()(Rng& r) const;
  std::size_t size() const { return cumulative.size(); }
  double probability(std::size_t i) const;
  bool operator==(const Categorical&) const = default;
};

// Piecewise-linear inverse of an empirical CDF given as (value, cumulative probability) points,
// values and probabilities non-decreasing, first probability >= 0, last exactly 1.
struct EmpiricalCdf {
  std::vector<std::pair<double, double>> points;
  explicit EmpiricalCdf(std::vector<std::pair<double, double>> points);
  double operator()(Rng& r) const;
  double mean() const;
  bool operator==(const EmpiricalCdf&) const = default;
};

// A deterministic value, so a scenario can say "exactly 2h".
struct Constant {
  double value;
  explicit Constant(double v) : value(v) {}
  double operator()(Rng&) const { return value; }
  double mean() const { return value; }
  double variance() const { return 0; }
  bool operator==(const Constant&) const = default;
};

// Any of the real-valued distributions, for scenario files.
class Distribution {
 public:
  using Variant = std::variant<Constant, Uniform, Exponential, Normal, LogNormal, Weibull, Gamma,
                               BoundedPareto, EmpiricalCdf>;
  Distribution() : v_(Constant{0}) {}
  template <class D>
  Distribution(D d) : v_(std::move(d)) {}  // NOLINT: implicit by design
  double operator()(Rng& r) const {
    return std::visit([&r](const auto& d) { return d(r); }, v_);
  }
  double mean() const {
    return std::visit([](const auto& d) { return d.mean(); }, v_);
  }
  const Variant& variant() const { return v_; }
  // "lognormal", "weibull", ...
  std::string_view name() const;
  // Same kind and parameters (behaviours shared by equal content, sim/training.cpp).
  bool operator==(const Distribution&) const = default;

 private:
  Variant v_;
};

}  // namespace t9k::kernel
