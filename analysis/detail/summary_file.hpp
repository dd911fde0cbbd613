// Reading a summary.json back (report, comparisons, sweeps): a damaged one is named with what is
// wrong in words, never with the JSON library's own message.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/outputs.hpp"

namespace t9k::analysis::detail {

// The file's JSON object; OutputError (usage) naming the file when it is not valid JSON or not an
// object.
nlohmann::json read_summary_file(const std::filesystem::path& file);
// OutputError (usage): "FILE: WHAT; not a summary.json as t9ksim wrote it ...".
[[noreturn]] void bad_summary(const std::filesystem::path& file, const std::string& what);
// The library's message without its "[json.exception.type_error.302] " prefix.
std::string json_reason(const nlohmann::json::exception& e);
// A run's "setup" (analysis/outputs.hpp RunSetup); throws nlohmann::json::exception when a field
// has the wrong type.
RunSetup read_setup(const nlohmann::json& setup);

}  // namespace t9k::analysis::detail
