// Data kept outside the repository: the 77 manifests users published (../shared/examples beside
// the checkout; their licences are their authors', so the repository does not carry them). A test
// that needs them skips when they are absent: it prints "t9ksim-skip: <why>", which CTest reports
// as Skipped (SKIP_REGULAR_EXPRESSION, tests/CMakeLists.txt). CI runs them: the folder is there.
#pragma once

#include <filesystem>
#include <iostream>
#include <optional>
#include <string_view>

namespace t9k::tests {

// T9KSIM_SHARED_DIR/`sub` when it is a folder; otherwise nullopt, after printing the skip line.
inline std::optional<std::filesystem::path> outside_data(std::string_view sub) {
  const std::filesystem::path p = std::filesystem::path(T9KSIM_SHARED_DIR) / sub;
  if (std::filesystem::is_directory(p)) return p;
  std::cout << "t9ksim-skip: " << p.lexically_normal().string()
            << " is absent (published manifests, kept outside the repository)\n";
  return std::nullopt;
}

}  // namespace t9k::tests
