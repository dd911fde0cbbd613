#include "analysis/occupancy.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "analysis/csv.hpp"
#include "analysis/decimal.hpp"
#include "kernel/time.hpp"

namespace t9k::analysis {

using model::Int128;
using model::SimDuration;
using model::SimTime;

Occupancy::Layout Occupancy::layout(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& pools) {
  std::size_t total = 0;
  for (const auto& [_, nodes] : pools) total += nodes.size();
  const std::size_t per_row = std::max<std::size_t>(1, (total + kMaxRows - 1) / kMaxRows);
  Layout l;
  for (const auto& [pool, nodes] : pools) {
    for (std::size_t i = 0; i < nodes.size(); i += per_row) {
      const std::size_t last = std::min(nodes.size(), i + per_row) - 1;
      const auto r = static_cast<std::int32_t>(l.labels.size());
      l.labels.push_back(last == i ? nodes[i] : nodes[i] + "…" + nodes[last]);
      for (std::size_t k = i; k <= last; ++k) l.row_of.emplace(nodes[k], r);
    }
  }
  return l;
}

Occupancy::Occupancy(SimTime horizon, SimDuration bucket) : horizon_(horizon) {
  const std::int64_t h = horizon.time_since_epoch().count();
  const std::int64_t b = std::max<std::int64_t>(1, bucket.count());
  const std::int64_t buckets = std::max<std::int64_t>(1, (h + b - 1) / b);
  period_ = SimDuration{b * ((buckets + kMaxPeriods - 1) / kMaxPeriods)};
  nperiods_ = static_cast<std::size_t>(
      std::max<std::int64_t>(1, (h + period_.count() - 1) / period_.count()));
}

void Occupancy::set_layout(Layout layout) {
  layout_ = std::move(layout);
  rows_.assign(layout_.labels.size(), Row{});
}

void Occupancy::advance(Level& l, SimTime t) const {
  t = std::min(t, horizon_);
  if (t <= l.since) return;
  if (l.value != 0) {
    if (l.periods.empty()) l.periods.assign(nperiods_, 0);
    const std::int64_t p = period_.count();
    std::int64_t from = l.since.time_since_epoch().count();
    const std::int64_t to = t.time_since_epoch().count();
    while (from < to) {
      const std::int64_t k = from / p;
      const std::int64_t end = std::min(to, (k + 1) * p);
      l.periods[static_cast<std::size_t>(k)] += static_cast<Int128>(end - from) * l.value;
      from = end;
    }
  }
  l.since = t;
}

void Occupancy::add(Level& l, SimTime t, std::int64_t delta) {
  advance(l, t);
  l.value += delta;
}

// A node the layout does not know (added by an operation) gets a row of its own, at the end.
std::int32_t Occupancy::row(const std::string& node) {
  const auto it = layout_.row_of.find(node);
  if (it != layout_.row_of.end()) return it->second;
  const auto r = static_cast<std::int32_t>(layout_.labels.size());
  layout_.labels.push_back(node);
  layout_.row_of.emplace(node, r);
  rows_.emplace_back();
  return r;
}

void Occupancy::pod(SimTime t, const std::string& node, const std::string& queue,
                    std::int64_t gpu_milli) {
  if (gpu_milli == 0) return;
  Row& r = rows_[static_cast<std::size_t>(row(node))];
  const auto [q, fresh] = queues_.try_emplace(queue, static_cast<std::int32_t>(queues_.size()));
  const auto qi = static_cast<std::size_t>(q->second);
  if (r.by_queue.size() <= qi) r.by_queue.resize(qi + 1);
  add(r.by_queue[qi], t, gpu_milli);
}

void Occupancy::node(SimTime t, const std::string& node, std::int64_t ready_gpu_milli,
                     std::int64_t installed_gpu_milli, bool cordoned) {
  Row& r = rows_[static_cast<std::size_t>(row(node))];
  NodeState& n = nodes_[node];
  const NodeState now{ready_gpu_milli,
                      std::max<std::int64_t>(0, installed_gpu_milli - ready_gpu_milli),
                      cordoned ? ready_gpu_milli : 0};
  add(r.capacity, t, now.ready - n.ready);
  add(r.down, t, now.down - n.down);
  add(r.cordoned, t, now.cordoned - n.cordoned);
  n = now;
}

void Occupancy::finish() {
  for (Row& r : rows_) {
    for (Level* l : {&r.capacity, &r.down, &r.cordoned}) advance(*l, horizon_);
    for (Level& l : r.by_queue) advance(l, horizon_);
  }
}

Int128 Occupancy::allocated_area() const {
  Int128 sum = 0;
  for (const Row& r : rows_)
    for (const Level& l : r.by_queue)
      for (const Int128 a : l.periods) sum += a;
  return sum;
}

std::string Occupancy::csv() const {
  std::ostringstream os;
  write_csv(os);
  return os.str();
}

void Occupancy::write_csv(std::ostream& os) const {
  fmt::memory_buffer out;
  out.append(
      std::string_view("start_s,row,capacity_gpus,down_gpus,cordoned_gpus,queue,allocated_gpus\n"));
  const std::int64_t h = horizon_.time_since_epoch().count();
  // Queues by name; their indexes into Row::by_queue.
  const auto& queues = queues_;
  fmt::memory_buffer head;  // a row's first fields, which each of its queue's lines repeats
  const auto gpus = [&](const Level& l, std::size_t k, double len) {
    if (l.periods.empty()) return 0.0;
    return static_cast<double>(l.periods[k]) / len / 1000.0;
  };
  for (std::size_t k = 0; k < nperiods_; ++k) {
    const std::int64_t start = static_cast<std::int64_t>(k) * period_.count();
    const double len = static_cast<double>(std::min(period_.count(), h - start));
    if (len <= 0) break;
    for (std::size_t ri = 0; ri < rows_.size(); ++ri) {
      const Row& r = rows_[ri];
      head.clear();
      kernel::append_seconds(head, SimDuration{start});
      head.push_back(',');
      append_csv_field(head, layout_.labels[ri]);
      for (const Level* l : {&r.capacity, &r.down, &r.cordoned}) {
        head.push_back(',');
        append_fixed(head, gpus(*l, k, len), 3);
      }
      bool any = false;
      for (const auto& [name, qi] : queues) {
        const auto i = static_cast<std::size_t>(qi);
        if (i >= r.by_queue.size()) continue;
        const double g = gpus(r.by_queue[i], k, len);
        if (g <= 0) continue;
        out.append(head);
        out.push_back(',');
        append_csv_field(out, name);
        out.push_back(',');
        append_fixed(out, g, 3);
        out.push_back('\n');
        any = true;
      }
      if (!any) {
        out.append(head);
        out.append(std::string_view(",,0.000\n"));
      }
      flush_piece(os, out);
    }
  }
  flush_piece(os, out, true);
}

}  // namespace t9k::analysis
