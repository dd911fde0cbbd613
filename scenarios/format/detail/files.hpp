// Internal: reading files and the manifest documents shared by both loaders.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/format/detail/decode.hpp"

namespace t9k::scenarios::detail {

// Far above any scenario or manifest file; keeps a stray multi-gigabyte file out of memory.
inline constexpr std::size_t kMaxFileBytes = 64u << 20;

bool read_text_file(const std::string& path, std::string& text, std::vector<Diagnostic>& out);

// `kind: List` (what `kubectl get -o yaml` writes), and the kinds the loader decodes.
bool is_kube_list(const YAML::Node& node);
bool is_t9k_kind(std::string_view kind);

// Decodes every document of a manifest stream; paths are prefixed with base_path. A List's items
// are decoded as documents of their own (paths `items[i]`); items of other kinds are skipped with
// one warning.
void decode_manifest_documents(const std::vector<YamlDocument>& docs, const std::string& file,
                               const std::string& base_path, std::vector<LoadedObject>& objects,
                               std::vector<Diagnostic>& out);

}  // namespace t9k::scenarios::detail
