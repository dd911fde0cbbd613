// Output analysis over replications (faults-and-validation §2.4): means, Student-t confidence
// intervals, paired differences under common random numbers with their p-values and Holm's
// correction for a family of them (the report's tables), MSER-5 warm-up truncation and Jain's
// fairness index. Pure functions over doubles; no simulation types.
#pragma once

#include <cstddef>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace t9k::analysis {

// Arithmetic mean; 0 for an empty sample.
double mean(std::span<const double> x);
// Sample standard deviation (n − 1 in the denominator); 0 when n < 2.
double sample_stddev(std::span<const double> x);

// Regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1].
double regularized_incomplete_beta(double a, double b, double x);
// Student-t distribution with `dof` > 0 degrees of freedom (real-valued).
double student_t_cdf(double t, double dof);
// Inverse CDF: the t with student_t_cdf(t, dof) == p, for p in (0, 1).
double student_t_quantile(double p, double dof);

// P(X >= k) for X ~ Binomial(n, p): 1 when k == 0, 0 when k > n.
double binomial_upper_tail(std::size_t k, std::size_t n, double p);
// The one-sided Clopper–Pearson lower bound at `confidence` of a share observed as k of n: the
// smallest p with binomial_upper_tail(k, n, p) >= 1 − confidence (0 when k == 0).
double share_lower_bound(std::size_t k, std::size_t n, double confidence = 0.95);

// mean ± half_width is a `confidence` Student-t interval for the mean: half_width =
// t_{n−1, (1+confidence)/2} · s / √n. With n < 2 there is no interval: half_width is NaN.
struct Interval {
  double mean = 0;
  double stddev = 0;
  double half_width = 0;
  std::size_t n = 0;
  bool has_interval() const;
  double lower() const { return mean - half_width; }
  double upper() const { return mean + half_width; }
};
Interval mean_interval(std::span<const double> x, double confidence = 0.95);

// Paired difference under common random numbers: Z_j = variant_j − base_j per replication, with a
// paired-t interval. `significant` is true when the interval excludes 0 (two-sided test at
// 1 − confidence). Throws std::invalid_argument if the samples differ in length.
struct PairedDifference {
  Interval difference;
  bool significant = false;
};
PairedDifference paired_difference(std::span<const double> variant, std::span<const double> base,
                                   double confidence = 0.95);
// The two-sided p-value of a paired t-test on the differences `d` (1 when they cannot tell: fewer
// than two, or all equal to 0; 0 when they are all equal and not 0).
double paired_p_value(const Interval& d);
// Holm's step-down correction: the names whose p-values stay significant at level `alpha` for
// the family of every test given.
std::set<std::string> holm_significant(std::vector<std::pair<double, std::string>> p_values,
                                       double alpha);

// MSER-5 (White 1997, Spratt 1998): batch means Z_1..Z_k of 5 consecutive observations (a trailing
// partial batch is ignored); for d = 0..⌊k/2⌋, MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² / (k − d)², where Z̄_d
// is the mean of the batches after d; the smallest MSER wins (ties: the smaller d).
struct MserResult {
  std::size_t batches = 0;               // k
  std::size_t batches_dropped = 0;       // the chosen d
  std::size_t observations_dropped = 0;  // 5·d
  double mser = 0;                       // MSER(d) at the chosen d
  double truncated_mean = 0;             // mean of the batch means after d
};
// Needs at least one full batch (5 observations); otherwise nothing is dropped and the mean is of
// whatever is there.
MserResult mser5(std::span<const double> observations);
// MSER(d) for every candidate d = 0..⌊k/2⌋ (for plots and tests).
std::vector<double> mser5_curve(std::span<const double> observations);

// Jain's fairness index (Σx)² / (n·Σx²): 1 when all shares are equal, 1/n when one takes all.
// Defined as 1 for an empty sample or all zeros (nobody is treated worse than anyone else).
double jain_fairness(std::span<const double> x);

// Linear interpolation between closest ranks (the definition docs/outputs.md uses), p clamped
// to [0, 1]. 0 for an empty sample. `x` need not be sorted. One rank of percentiles().
double percentile(std::span<const double> x, double p);
// percentile(x, p) for each of `ps` (in any order), by selection rather than a sort: each order
// statistic the interpolation needs is placed with std::nth_element among the values above the
// previous one, in linear time; the values are exactly the sorted definition's (tested against
// it bit for bit). `x` is taken by value and reordered.
std::vector<double> percentiles(std::vector<double> x, std::span<const double> ps);

}  // namespace t9k::analysis
