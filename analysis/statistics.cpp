#include "analysis/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <stdexcept>

#include <Eigen/Core>

namespace t9k::analysis {

namespace {

Eigen::Map<const Eigen::ArrayXd> as_array(std::span<const double> x) {
  return {x.data(), static_cast<Eigen::Index>(x.size())};
}

// Continued fraction for I_x(a, b) (modified Lentz), converging fast for x < (a+1)/(a+b+2).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-16;
  const double qab = a + b;
  const double qap = a + 1.0;
  const double qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < kEps) break;
  }
  return h;
}

// I_x(a, b) given both x and y = 1 − x, so callers that know 1 − x exactly avoid cancellation.
double incomplete_beta_xy(double a, double b, double x, double y) {
  if (x <= 0) return 0;
  if (y <= 0) return 1;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log(y);
  const double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, y) / b;
}

double student_t_pdf(double t, double dof) {
  const double log_c =
      std::lgamma((dof + 1) / 2) - std::lgamma(dof / 2) - 0.5 * std::log(dof * std::numbers::pi);
  return std::exp(log_c - (dof + 1) / 2 * std::log1p(t * t / dof));
}

}  // namespace

double mean(std::span<const double> x) {
  if (x.empty()) return 0;
  return as_array(x).mean();
}

double sample_stddev(std::span<const double> x) {
  if (x.size() < 2) return 0;
  const auto a = as_array(x);
  const double m = a.mean();
  return std::sqrt((a - m).square().sum() / static_cast<double>(x.size() - 1));
}

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0))
    throw std::invalid_argument("incomplete beta: a and b must be positive");
  if (!(x >= 0 && x <= 1)) throw std::invalid_argument("incomplete beta: x must be in [0, 1]");
  return incomplete_beta_xy(a, b, x, 1.0 - x);
}

double binomial_upper_tail(std::size_t k, std::size_t n, double p) {
  if (k == 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  // P(X >= k) = I_p(k, n − k + 1).
  return regularized_incomplete_beta(static_cast<double>(k), static_cast<double>(n - k + 1), p);
}

double share_lower_bound(std::size_t k, std::size_t n, double confidence) {
  if (k == 0 || n == 0) return 0;
  const double alpha = 1 - confidence;
  double lo = 0, hi = static_cast<double>(std::min(k, n)) / static_cast<double>(n);
  // The tail grows with p: bisect to the p where it reaches alpha (60 halvings: below 1e-18).
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (binomial_upper_tail(k, n, mid) < alpha ? lo : hi) = mid;
  }
  return lo;
}

double student_t_cdf(double t, double dof) {
  if (!(dof > 0)) throw std::invalid_argument("Student t: degrees of freedom must be positive");
  if (std::isnan(t)) return t;
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  // P(|T| > |t|) = I_{dof/(dof+t²)}(dof/2, 1/2); 1 − x = t²/(dof+t²) computed directly.
  const double t2 = t * t;
  const double tail = incomplete_beta_xy(dof / 2, 0.5, dof / (dof + t2), t2 / (dof + t2));
  return t > 0 ? 1.0 - tail / 2 : tail / 2;
}

double student_t_quantile(double p, double dof) {
  if (!(dof > 0)) throw std::invalid_argument("Student t: degrees of freedom must be positive");
  if (!(p > 0 && p < 1)) throw std::invalid_argument("Student t quantile: p must be in (0, 1)");
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1 - p, dof);
  // Closed forms where they exist (Cauchy and dof 2).
  if (dof == 1) return std::tan(std::numbers::pi * (p - 0.5));
  if (dof == 2) return (2 * p - 1) / std::sqrt(2 * p * (1 - p));
  // Bracket, bisect to a few ulps, then polish with Newton steps that stay inside the bracket.
  double lo = 0;
  double hi = 1;
  while (student_t_cdf(hi, dof) < p) {
    lo = hi;
    hi *= 2;
    if (hi > 1e300) return std::numeric_limits<double>::infinity();
  }
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    (student_t_cdf(mid, dof) < p ? lo : hi) = mid;
  }
  double t = lo + (hi - lo) / 2;
  for (int i = 0; i < 3; ++i) {
    const double f = student_t_cdf(t, dof) - p;
    const double next = t - f / student_t_pdf(t, dof);
    if (!(next >= lo && next <= hi)) break;
    t = next;
  }
  return t;
}

bool Interval::has_interval() const { return n >= 2 && std::isfinite(half_width); }

Interval mean_interval(std::span<const double> x, double confidence) {
  if (!(confidence > 0 && confidence < 1))
    throw std::invalid_argument("confidence must be in (0, 1)");
  Interval r;
  r.n = x.size();
  r.mean = mean(x);
  r.stddev = sample_stddev(x);
  if (r.n < 2) {
    r.half_width = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  const double n = static_cast<double>(r.n);
  r.half_width = student_t_quantile((1 + confidence) / 2, n - 1) * r.stddev / std::sqrt(n);
  return r;
}

PairedDifference paired_difference(std::span<const double> variant, std::span<const double> base,
                                   double confidence) {
  if (variant.size() != base.size()) {
    throw std::invalid_argument("paired difference: samples of different length");
  }
  Eigen::ArrayXd z = as_array(variant) - as_array(base);
  PairedDifference r;
  r.difference = mean_interval(
      std::span<const double>(z.data(), static_cast<std::size_t>(z.size())), confidence);
  // The interval excludes 0. With zero variance (identical nonzero differences in every
  // replication) the half-width is 0 and any nonzero mean is significant.
  r.significant =
      r.difference.has_interval() && (r.difference.lower() > 0 || r.difference.upper() < 0);
  return r;
}

std::vector<double> mser5_curve(std::span<const double> observations) {
  constexpr std::size_t kBatch = 5;
  const std::size_t k = observations.size() / kBatch;
  std::vector<double> curve;
  if (k == 0) return curve;
  // Column j of the 5×k matrix is batch j.
  const Eigen::Map<const Eigen::MatrixXd> batches(observations.data(), kBatch,
                                                  static_cast<Eigen::Index>(k));
  const Eigen::ArrayXd z = batches.colwise().mean().transpose().array();
  // Suffix sums of Z and Z² give each MSER(d) in O(1): Σ(Z−Z̄)² = ΣZ² − (ΣZ)²/m.
  Eigen::ArrayXd s1(static_cast<Eigen::Index>(k) + 1);
  Eigen::ArrayXd s2(static_cast<Eigen::Index>(k) + 1);
  s1(static_cast<Eigen::Index>(k)) = 0;
  s2(static_cast<Eigen::Index>(k)) = 0;
  for (Eigen::Index j = static_cast<Eigen::Index>(k) - 1; j >= 0; --j) {
    s1(j) = s1(j + 1) + z(j);
    s2(j) = s2(j + 1) + z(j) * z(j);
  }
  for (std::size_t d = 0; d <= k / 2; ++d) {
    const double m = static_cast<double>(k - d);
    const auto di = static_cast<Eigen::Index>(d);
    const double ss = std::max(0.0, s2(di) - s1(di) * s1(di) / m);
    curve.push_back(ss / (m * m));
  }
  return curve;
}

MserResult mser5(std::span<const double> observations) {
  MserResult r;
  r.batches = observations.size() / 5;
  if (r.batches == 0) {
    r.truncated_mean = mean(observations);
    return r;
  }
  const auto curve = mser5_curve(observations);
  // Relative tolerance so rounding noise in the suffix sums cannot move the choice.
  std::size_t best = 0;
  for (std::size_t d = 1; d < curve.size(); ++d) {
    if (curve[d] < curve[best] - 1e-12 * std::max(1.0, std::fabs(curve[best]))) best = d;
  }
  r.batches_dropped = best;
  r.observations_dropped = 5 * best;
  r.mser = curve[best];
  r.truncated_mean = mean(observations.subspan(r.observations_dropped, 5 * (r.batches - best)));
  return r;
}

double jain_fairness(std::span<const double> x) {
  if (x.empty()) return 1;
  const auto a = as_array(x);
  const double sq = a.square().sum();
  if (sq == 0) return 1;
  const double s = a.sum();
  return s * s / (static_cast<double>(x.size()) * sq);
}

double percentile(std::span<const double> x, double p) {
  return percentiles(std::vector<double>(x.begin(), x.end()), std::span(&p, 1)).front();
}

std::vector<double> percentiles(std::vector<double> x, std::span<const double> ps) {
  std::vector<double> out(ps.size(), 0.0);
  if (x.empty()) return out;
  // The ranks asked for, in ascending order: each is then a rank already placed (the previous
  // one or the one after it) or at least `placed`, so one selection among the values not yet
  // placed puts it where a sort would.
  std::vector<std::size_t> order(ps.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto p_of = [&](std::size_t k) { return std::clamp(ps[k], 0.0, 1.0); };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p_of(a) < p_of(b); });
  auto placed = x.begin();  // values before it are at most those after it
  const auto at = [&](std::size_t i) {
    const auto it = x.begin() + static_cast<std::ptrdiff_t>(i);
    if (it >= placed) {
      std::nth_element(placed, it, x.end());
      placed = it + 1;
    }
    return *it;
  };
  for (const std::size_t k : order) {
    const double pos = p_of(k) * static_cast<double>(x.size() - 1);
    const auto i = static_cast<std::size_t>(std::floor(pos));
    if (i + 1 >= x.size()) {
      out[k] = at(x.size() - 1);
      continue;
    }
    const double lo = at(i);
    out[k] = lo + (pos - static_cast<double>(i)) * (at(i + 1) - lo);
  }
  return out;
}

double paired_p_value(const Interval& i) {
  if (i.n < 2 || !(i.stddev > 0)) return i.mean == 0 || i.n < 2 ? 1.0 : 0.0;
  const double t = std::fabs(i.mean) / (i.stddev / std::sqrt(static_cast<double>(i.n)));
  return 2 * (1 - student_t_cdf(t, static_cast<double>(i.n - 1)));
}

std::set<std::string> holm_significant(std::vector<std::pair<double, std::string>> ps,
                                       double alpha) {
  std::sort(ps.begin(), ps.end());
  std::set<std::string> out;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (ps[i].first > alpha / static_cast<double>(ps.size() - i)) break;
    out.insert(ps[i].second);
  }
  return out;
}

}  // namespace t9k::analysis
