// The node timeline's record (issue 48 item 3, docs/outputs.md "occupancy.csv"): per row of nodes
// and period of the run, the GPUs each queue was allocated there, the ready capacity, and the
// GPUs down (not ready: faults) or cordoned (drains). A row is a node, or a run of one pool's
// nodes when the cluster has more than kMaxRows, so that the record and the report's chart stay
// the same size at 10,000 nodes; at most kMaxPeriods periods. Fed by the Recorder.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/change.hpp"

namespace t9k::analysis {

class Occupancy {
 public:
  static constexpr std::size_t kMaxRows = 64;
  static constexpr std::int64_t kMaxPeriods = 168;

  // Rows for the cluster's pools, in order: (pool name, its nodes' names). Each node its own row
  // when there are at most kMaxRows nodes; else each pool's nodes in runs of
  // ceil(nodes / kMaxRows), labelled "first…last".
  struct Layout {
    std::unordered_map<std::string, std::int32_t> row_of;
    std::vector<std::string> labels;
  };
  static Layout layout(const std::vector<std::pair<std::string, std::vector<std::string>>>& pools);

  // `bucket` is the recorder's (timeseries.csv); periods are whole multiples of it.
  Occupancy(model::SimTime horizon, model::SimDuration bucket);
  void set_layout(Layout layout);

  // A pod of `queue` started (+) or stopped (−) holding gpu_milli on `node`.
  void pod(model::SimTime t, const std::string& node, const std::string& queue,
           std::int64_t gpu_milli);
  // The node's ready allocatable milli-GPU (0 when not ready), what it has when whole, and
  // whether it is cordoned (unschedulable) now.
  void node(model::SimTime t, const std::string& node, std::int64_t ready_gpu_milli,
            std::int64_t installed_gpu_milli, bool cordoned);
  void finish();

  model::SimDuration period() const { return period_; }
  // Σ over rows, queues and periods of the allocated milli-GPU × µs (after finish): the run's
  // allocated GPU-time, which the recorder checks (an invariant).
  model::Int128 allocated_area() const;
  // occupancy.csv: start_s,row,capacity_gpus,down_gpus,cordoned_gpus,queue,allocated_gpus; one
  // line per period, row and queue with GPUs there (queue empty with 0 when none), periods then
  // rows in order, queues by name; GPUs are averages over the period.
  std::string csv() const;
  // The same, written to `os` a piece at a time (a whole file's string doubled as it grew).
  void write_csv(std::ostream& os) const;

 private:
  // A piecewise-constant milli-GPU level and its integral per period (milli-GPU × µs).
  struct Level {
    std::int64_t value = 0;
    model::SimTime since{};
    std::vector<model::Int128> periods;
  };
  void advance(Level& l, model::SimTime t) const;
  void add(Level& l, model::SimTime t, std::int64_t delta);
  std::int32_t row(const std::string& node);
  struct Row {
    Level capacity, down, cordoned;
    std::vector<Level> by_queue;  // by queue index
  };
  struct NodeState {
    std::int64_t ready = 0, down = 0, cordoned = 0;
  };

  model::SimTime horizon_;
  model::SimDuration period_;
  std::size_t nperiods_;
  Layout layout_;
  std::vector<Row> rows_;
  std::map<std::string, std::int32_t> queues_;  // name -> index, in order of first use
  std::unordered_map<std::string, NodeState> nodes_;
};

}  // namespace t9k::analysis
