#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "analysis/statistics.hpp"

using namespace t9k::analysis;

TEST_CASE("mean and sample standard deviation match hand computation", "[statistics]") {
  const std::vector<double> x{2, 4, 4, 4, 5, 5, 7, 9};
  CHECK(mean(x) == Approx(5.0));
  // Σ(x−5)² = 32, n−1 = 7.
  CHECK(sample_stddev(x) == Approx(std::sqrt(32.0 / 7.0)).epsilon(1e-12));
  CHECK(mean(std::vector<double>{}) == 0);
  CHECK(sample_stddev(std::vector<double>{3.0}) == 0);
}

TEST_CASE("regularized incomplete beta against closed forms", "[statistics]") {
  // I_x(2,3) = Σ_{j=2..4} C(4,j) x^j (1−x)^{4−j}; at 0.5 that is 11/16.
  CHECK(regularized_incomplete_beta(2, 3, 0.5) == Approx(11.0 / 16.0).epsilon(1e-12));
  // I_x(1,1) = x; I_x(a,1) = x^a.
  CHECK(regularized_incomplete_beta(1, 1, 0.3) == Approx(0.3).epsilon(1e-12));
  CHECK(regularized_incomplete_beta(3.5, 1, 0.7) == Approx(std::pow(0.7, 3.5)).epsilon(1e-12));
  CHECK(regularized_incomplete_beta(2, 5, 0) == 0);
  CHECK(regularized_incomplete_beta(2, 5, 1) == 1);
  CHECK_THROWS(regularized_incomplete_beta(0, 1, 0.5));
  CHECK_THROWS(regularized_incomplete_beta(1, 1, 1.5));
}

TEST_CASE("binomial tails and Clopper-Pearson lower bounds match closed forms and tables",
          "[statistics]") {
  CHECK(binomial_upper_tail(10, 10, 0.9) == Approx(std::pow(0.9, 10)));
  CHECK(binomial_upper_tail(9, 10, 0.9) == Approx(std::pow(0.9, 10) + 10 * std::pow(0.9, 9) * 0.1));
  CHECK(binomial_upper_tail(0, 10, 0.3) == 1);
  CHECK(binomial_upper_tail(11, 10, 0.3) == 0);
  // All n of n: the lower bound solves p^n = 0.05.
  CHECK(share_lower_bound(10, 10) == Approx(std::pow(0.05, 0.1)).margin(1e-9));
  // 8 of 10: the lower end of the two-sided 90 % Clopper-Pearson interval (0.4931, 0.9632).
  CHECK(share_lower_bound(8, 10) == Approx(0.4931).margin(1e-4));
  CHECK(share_lower_bound(0, 10) == 0);
}

TEST_CASE("Student-t quantiles match the tables", "[statistics]") {
  // Two-sided 95 % critical values from standard t tables.
  struct Row {
    double dof, t;
  };
  const Row rows[] = {{1, 12.706}, {2, 4.303},  {3, 3.182},  {4, 2.776},
                      {5, 2.571},  {9, 2.262},  {10, 2.228}, {19, 2.093},
                      {29, 2.045}, {30, 2.042}, {60, 2.000}, {120, 1.980}};
  for (const auto& r : rows) {
    INFO("dof " << r.dof);
    CHECK(student_t_quantile(0.975, r.dof) == Approx(r.t).margin(0.0005));
  }
  // 99.5 % and 90 % columns.
  CHECK(student_t_quantile(0.995, 4) == Approx(4.604).margin(0.0005));
  CHECK(student_t_quantile(0.95, 10) == Approx(1.812).margin(0.0005));
  // Large dof tends to the normal quantile 1.959964.
  CHECK(student_t_quantile(0.975, 1e7) == Approx(1.959964).margin(1e-5));
  // Symmetry and the median.
  CHECK(student_t_quantile(0.025, 7) == Approx(-student_t_quantile(0.975, 7)).epsilon(1e-12));
  CHECK(student_t_quantile(0.5, 3) == 0);
  // More digits than tables print: t(0.975, 4) = 2.7764451051977987.
  CHECK(student_t_quantile(0.975, 4) == Approx(2.7764451051977987).epsilon(1e-10));
  CHECK_THROWS(student_t_quantile(0, 3));
  CHECK_THROWS(student_t_quantile(0.5, 0));
}

TEST_CASE("Student-t CDF inverts the quantile and knows the Cauchy case", "[statistics]") {
  for (double dof : {1.0, 2.5, 4.0, 17.0, 300.0}) {
    for (double p : {0.001, 0.1, 0.5, 0.8, 0.975, 0.9999}) {
      INFO("dof " << dof << " p " << p);
      CHECK(student_t_cdf(student_t_quantile(p, dof), dof) == Approx(p).epsilon(1e-9));
    }
  }
  // dof 1 is Cauchy: F(1) = 3/4.
  CHECK(student_t_cdf(1.0, 1) == Approx(0.75).epsilon(1e-12));
  CHECK(student_t_cdf(0.0, 5) == Approx(0.5));
}

TEST_CASE("95 % interval of a mean by hand", "[statistics]") {
  const std::vector<double> x{1, 2, 3, 4, 5};
  const Interval i = mean_interval(x);
  CHECK(i.n == 5);
  CHECK(i.mean == Approx(3.0));
  CHECK(i.stddev == Approx(std::sqrt(2.5)));
  // t(0.975, 4) · √2.5 / √5 = 2.7764451 · 0.7071068 = 1.9632432.
  CHECK(i.half_width == Approx(1.9632432).epsilon(1e-7));
  CHECK(i.lower() == Approx(3 - 1.9632432).epsilon(1e-7));
  CHECK(i.has_interval());
  const Interval one = mean_interval(std::vector<double>{7});
  CHECK(one.mean == 7);
  CHECK_FALSE(one.has_interval());
  CHECK(std::isnan(one.half_width));
}

TEST_CASE("paired differences: interval and significance", "[statistics]") {
  // z = {1, 2, 1, 3}: mean 1.75, s = √(2.75/3) = 0.9574271, half-width t(0.975,3)·s/2 =
  // 3.1824463 · 0.4787136 = 1.5234802.
  const std::vector<double> variant{5, 7, 6, 9}, base{4, 5, 5, 6};
  const PairedDifference d = paired_difference(variant, base);
  CHECK(d.difference.mean == Approx(1.75));
  CHECK(d.difference.stddev == Approx(0.9574271).epsilon(1e-7));
  CHECK(d.difference.half_width == Approx(1.5234802).epsilon(1e-6));
  CHECK(d.significant);
  // z = {1, −1, 2, −2}: mean 0, the interval contains 0.
  const PairedDifference n =
      paired_difference(std::vector<double>{2, 1, 4, 0}, std::vector<double>{1, 2, 2, 2});
  CHECK(n.difference.mean == Approx(0.0));
  CHECK_FALSE(n.significant);
  // Pairing matters: the unpaired means differ by the same amount but the pairs are noisy.
  const PairedDifference noisy =
      paired_difference(std::vector<double>{10, 0, 10, 0}, std::vector<double>{0, 10, 0, 9});
  CHECK_FALSE(noisy.significant);
  // Identical differences: zero variance, nonzero mean: significant.
  CHECK(paired_difference(std::vector<double>{3, 4, 5}, std::vector<double>{1, 2, 3}).significant);
  // One pair: no interval, never significant.
  CHECK_FALSE(paired_difference(std::vector<double>{3}, std::vector<double>{1}).significant);
  CHECK_THROWS(paired_difference(std::vector<double>{1, 2}, std::vector<double>{1}));
}

TEST_CASE("MSER-5 drops the transient", "[statistics]") {
  // 10 observations at 10, then 40 at 0: batch means Z = {10, 10, 0 × 8}, k = 10, d ≤ 5.
  std::vector<double> x(50, 0.0);
  for (int i = 0; i < 10; ++i) x[static_cast<std::size_t>(i)] = 10;
  const auto curve = mser5_curve(x);
  REQUIRE(curve.size() == 6);
  // d=0: Z̄ = 2, Σ(Z−2)² = 2·64 + 8·4 = 160, /10² = 1.6.
  CHECK(curve[0] == Approx(1.6));
  // d=1: Z̄ = 10/9, Σ = (80/9)² + 8·(10/9)² = 800/9, /9² = 800/729.
  CHECK(curve[1] == Approx(800.0 / 729.0));
  CHECK(curve[2] == Approx(0.0).margin(1e-12));
  const MserResult r = mser5(x);
  CHECK(r.batches == 10);
  CHECK(r.batches_dropped == 2);  // the first minimum, not a later tie
  CHECK(r.observations_dropped == 10);
  CHECK(r.truncated_mean == Approx(0.0));
}

TEST_CASE("MSER-5 keeps a stationary series and ignores a partial batch", "[statistics]") {
  // Alternating 1, 3 within batches of 5 averages to 1.8 or 2.2 per batch, no trend.
  std::vector<double> x;
  for (int i = 0; i < 42; ++i) x.push_back(i % 2 == 0 ? 1.0 : 3.0);
  const MserResult r = mser5(x);
  CHECK(r.batches == 8);  // 42 observations: the last 2 are a partial batch
  // Batch means alternate 1.8, 2.2: MSER(0) = 8·0.04/64 = 0.005; dropping more raises it
  // (d=2: 6·0.04/36 = 0.00667).
  CHECK(r.batches_dropped == 0);
  CHECK(r.mser == Approx(0.005));
  CHECK(r.truncated_mean == Approx(2.0));
  // Too short for one batch: nothing dropped.
  const MserResult s = mser5(std::vector<double>{4, 6});
  CHECK(s.batches == 0);
  CHECK(s.observations_dropped == 0);
  CHECK(s.truncated_mean == Approx(5.0));
}

TEST_CASE("Jain's fairness index", "[statistics]") {
  CHECK(jain_fairness(std::vector<double>{3, 3, 3, 3}) == Approx(1.0));
  CHECK(jain_fairness(std::vector<double>{1, 0, 0, 0}) == Approx(0.25));
  // (1+2+3)² / (3 · 14) = 36/42.
  CHECK(jain_fairness(std::vector<double>{1, 2, 3}) == Approx(36.0 / 42.0));
  CHECK(jain_fairness(std::vector<double>{}) == 1);
  CHECK(jain_fairness(std::vector<double>{0, 0}) == 1);
}

TEST_CASE("percentile interpolates between closest ranks", "[statistics]") {
  const std::vector<double> x{4, 1, 3, 2};
  CHECK(percentile(x, 0.9) == Approx(3.7));  // position 2.7 in {1,2,3,4}
  CHECK(percentile(x, 0.5) == Approx(2.5));
  CHECK(percentile(x, 0) == 1);
  CHECK(percentile(x, 1) == 4);
  CHECK(percentile(std::vector<double>{}, 0.5) == 0);
}

namespace {
// The definition (docs/outputs.md), by a sort: what percentiles() must equal bit for bit.
double sorted_percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = std::clamp(p, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(pos));
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (pos - static_cast<double>(i)) * (v[i + 1] - v[i]);
}
}  // namespace

TEST_CASE("percentiles by selection are exactly the sorted definition's, for ranks in any order",
          "[statistics]") {
  // The recorder's wait and JCT percentiles come from percentiles(): summary.json must not move
  // by one bit against the definition, which sorts. Samples with ties, one value, two values.
  std::mt19937_64 rng(20261127);
  std::uniform_int_distribution<int> small(0, 9);
  std::uniform_real_distribution<double> wide(-1e6, 1e6);
  const std::vector<double> ps{0.99, 0.5,       0.9,  0.0, 1.0,  0.5,
                               0.25, 0.7500001, 0.75, 1.5, -0.5, 0.999};
  for (std::size_t n : {1, 2, 3, 7, 100, 1001}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> x(n);
      for (auto& v : x) v = trial % 2 ? wide(rng) : static_cast<double>(small(rng));
      const std::vector<double> got = percentiles(x, ps);
      REQUIRE(got.size() == ps.size());
      for (std::size_t k = 0; k < ps.size(); ++k) {
        INFO("n " << n << ", trial " << trial << ", p " << ps[k]);
        CHECK(got[k] == sorted_percentile(x, ps[k]));  // bit for bit, not approximately
        CHECK(percentile(x, ps[k]) == got[k]);
      }
    }
  }
  CHECK(percentiles(std::vector<double>{}, ps) == std::vector<double>(ps.size(), 0.0));
  CHECK(percentiles(std::vector<double>{4, 1, 3, 2}, std::vector<double>{0.9})[0] == Approx(3.7));
}
