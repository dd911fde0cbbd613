#include "analysis/detail/summary_file.hpp"

#include <fmt/format.h>

#include "analysis/outputs.hpp"
#include "analysis/result_folder.hpp"

namespace t9k::analysis::detail {

using nlohmann::json;

void bad_summary(const std::filesystem::path& file, const std::string& what) {
  throw OutputError(fmt::format("{}: {}; not a summary.json as t9ksim wrote it (cut short or "
                                "edited?): run the command that wrote it again",
                                file.string(), what),
                    true);
}

std::string json_reason(const json::exception& e) {
  const std::string w = e.what();
  const auto p = w.find("] ");
  return p == std::string::npos ? w : w.substr(p + 2);
}

json read_summary_file(const std::filesystem::path& file) {
  json j;
  try {
    j = json::parse(read_text_file(file));
  } catch (const json::parse_error& e) {
    bad_summary(file, fmt::format("not valid JSON at byte {}: {}", e.byte, json_reason(e)));
  }
  if (!j.is_object()) bad_summary(file, fmt::format("a JSON {}, not an object", j.type_name()));
  return j;
}

RunSetup read_setup(const nlohmann::json& j) {
  RunSetup s;
  s.present = true;
  s.description = j.value("description", "");
  s.scheduler = j.value("scheduler", "");
  for (const auto& p : j.value("pools", nlohmann::json::array())) {
    s.pools.push_back({p.value("name", ""), p.value("count", std::int64_t{0}),
                       p.value("gpusPerNode", std::int64_t{0}), p.value("gpuModel", ""),
                       p.value("pricePerNodeHour", 0.0), p.value("busyWatts", 0.0)});
  }
  for (const auto& q : j.value("queues", nlohmann::json::array())) {
    RunSetup::Queue out{q.value("name", ""), q.value("priority", std::int64_t{0}), {}};
    const nlohmann::json quota =
        q.value("quota", nlohmann::json::object());  // kept: items() refers
    for (const auto& [k, v] : quota.items()) out.quota.emplace_back(k, v.get<std::string>());
    s.queues.push_back(std::move(out));
  }
  s.workload = j.value("workload", std::vector<std::string>{});
  s.faults = j.value("faults", "");
  s.replications = j.value("replications", std::int64_t{1});
  s.overrides = j.value("overrides", std::vector<std::string>{});
  s.targets = j.value("targets", std::vector<std::string>{});
  if (j.contains("timeZero")) s.time_zero_unix_s = j.at("timeZero").get<std::int64_t>();
  return s;
}

}  // namespace t9k::analysis::detail
