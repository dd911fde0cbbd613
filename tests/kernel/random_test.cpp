#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "kernel/random.hpp"

using namespace t9k::kernel;

namespace {

struct Moments {
  double mean = 0;
  double variance = 0;
};

template <class D>
Moments sample_moments(const D& d, Rng& r, int n) {
  // Welford's algorithm.
  double mean = 0, m2 = 0;
  for (int i = 1; i <= n; ++i) {
    const double x = d(r);
    const double delta = x - mean;
    mean += delta / i;
    m2 += delta * (x - mean);
  }
  return {mean, m2 / (n - 1)};
}

// The sample mean must lie within 5 standard errors of the true mean (at a fixed seed this is a
// deterministic check, chosen loose enough that it does not depend on the seed's luck), and the
// sample variance within `var_tol` relative error.
template <class D>
void check_moments(const D& d, const char* name, double var_tol = 0.05) {
  INFO(name);
  RngStreams streams(20261122, 0);
  Rng r = streams.stream(name);
  const int n = 400000;
  const Moments m = sample_moments(d, r, n);
  const double se = std::sqrt(d.variance() / n);
  CHECK(std::abs(m.mean - d.mean()) <= 5 * se + 1e-12);
  if (d.variance() > 0) CHECK(std::abs(m.variance - d.variance()) / d.variance() < var_tol);
}

}  // namespace

TEST_CASE("distribution moments match at a fixed seed", "[kernel][random]") {
  check_moments(Uniform(2, 5), "uniform");
  check_moments(Exponential(0.25), "exponential");
  check_moments(Normal(10, 3), "normal");
  check_moments(LogNormal(1.0, 0.5), "lognormal");
  check_moments(Weibull(1.5, 2.0), "weibull");
  check_moments(Weibull(0.7, 3.0), "weibull-heavy", 0.10);
  check_moments(Gamma(2.5, 1.5), "gamma");
  check_moments(Gamma(0.4, 2.0), "gamma-small-shape", 0.08);
  check_moments(BoundedPareto(1.5, 1, 1000), "bounded-pareto", 0.15);
  check_moments(BoundedPareto(2.5, 10, 100), "bounded-pareto-light");
}

TEST_CASE("samples stay in their support", "[kernel][random]") {
  Rng r(7);
  const BoundedPareto bp(1.2, 5, 50);
  const Uniform u(-1, 1);
  for (int i = 0; i < 100000; ++i) {
    const double x = bp(r);
    REQUIRE(x >= 5);
    REQUIRE(x <= 50);
    const double y = u(r);
    REQUIRE(y >= -1);
    REQUIRE(y < 1);
    REQUIRE(Exponential(3)(r) > 0);
    REQUIRE(Gamma(0.3, 1)(r) >= 0);
  }
}

TEST_CASE("categorical frequencies follow the weights", "[kernel][random]") {
  const Categorical c({1, 0, 3, 6});
  Rng r(99);
  std::vector<int> counts(4, 0);
  const int n = 200000;
  for (int i = 0; i < n; ++i) ++counts[c(r)];
  CHECK(counts[1] == 0);
  for (std::size_t i = 0; i < 4; ++i) {
    const double p = c.probability(i);
    const double se = std::sqrt(p * (1 - p) / n);
    CHECK(std::abs(static_cast<double>(counts[i]) / n - p) <= 5 * se + 1e-12);
  }
  CHECK_THROWS_AS(Categorical({0, 0}), DistributionError);
  CHECK_THROWS_AS(Categorical({1, -1}), DistributionError);
  CHECK_THROWS_AS(Categorical({}), DistributionError);
}

TEST_CASE("empirical CDF interpolates and has the right mean", "[kernel][random]") {
  // Uniform on [0, 10] written as a CDF, then a step to 20.
  const EmpiricalCdf e({{0, 0}, {10, 0.5}, {20, 1.0}});
  CHECK(e.mean() == Approx(10));
  Rng r(3);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double x = e(r);
    REQUIRE(x >= 0);
    REQUIRE(x <= 20);
    sum += x;
  }
  CHECK(sum / n == Approx(10).epsilon(0.01));
  CHECK_THROWS_AS(EmpiricalCdf({{0, 0}, {1, 0.9}}), DistributionError);
  CHECK_THROWS_AS(EmpiricalCdf({{5, 0}, {1, 1}}), DistributionError);
}

TEST_CASE("invalid parameters are rejected", "[kernel][random]") {
  CHECK_THROWS_AS(Exponential(0), DistributionError);
  CHECK_THROWS_AS(Exponential(-1), DistributionError);
  CHECK_THROWS_AS(Uniform(3, 1), DistributionError);
  CHECK_THROWS_AS(Weibull(0, 1), DistributionError);
  CHECK_THROWS_AS(Gamma(1, 0), DistributionError);
  CHECK_THROWS_AS(BoundedPareto(1, 10, 5), DistributionError);
  CHECK_THROWS_AS(LogNormal(0, -1), DistributionError);
  CHECK_THROWS_AS(Normal(0, NAN), DistributionError);
}

TEST_CASE("streams are keyed by name, not by creation order", "[kernel][random]") {
  RngStreams a(123, 0);
  Rng a1 = a.stream("faults/node/17");
  std::vector<std::uint64_t> first;
  for (int i = 0; i < 16; ++i) first.push_back(a1.next_u64());

  // Create other streams first, and draw from them: the named stream is unchanged.
  RngStreams b(123, 0);
  Rng other = b.stream("arrivals");
  for (int i = 0; i < 1000; ++i) other.next_u64();
  Rng extra = b.stream("faults/node/18");
  (void)extra.next_u64();
  Rng b1 = b.stream("faults/node/17");
  std::vector<std::uint64_t> second;
  for (int i = 0; i < 16; ++i) second.push_back(b1.next_u64());
  CHECK(first == second);

  // Different names, seeds or replications give different streams.
  CHECK(a.stream("faults/node/17").next_u64() != a.stream("faults/node/18").next_u64());
  CHECK(RngStreams(123, 1).stream("x").next_u64() != RngStreams(123, 0).stream("x").next_u64());
  CHECK(RngStreams(124, 0).stream("x").next_u64() != RngStreams(123, 0).stream("x").next_u64());
}

TEST_CASE("generator output is fixed across platforms (golden values)", "[kernel][random]") {
  // These values are part of the determinism contract: a change here changes every output.
  Rng r(0);
  const std::uint64_t v0 = r.next_u64();
  const std::uint64_t v1 = r.next_u64();
  Rng again(0);
  CHECK(again.next_u64() == v0);
  CHECK(again.next_u64() == v1);
  RngStreams s(1, 0);
  Rng named = s.stream("golden");
  const double u = named.uniform01();
  CHECK(u >= 0);
  CHECK(u < 1);
  // Fixed expectations (recorded when the generator was written).
  CHECK(v0 == 0x422EA740D0977210ULL);
  CHECK(Rng(0).below(10) == Rng(0).below(10));
}

TEST_CASE("below is unbiased and within range", "[kernel][random]") {
  Rng r(5);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const auto x = r.below(7);
    REQUIRE(x < 7);
    ++counts[x];
  }
  for (int c : counts) CHECK(std::abs(c - 10000) < 500);
}
