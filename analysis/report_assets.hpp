// The JavaScript bundles report.html inlines (Vega, Vega-Lite, vega-embed from
// report/package.json). Their bytes are compiled into the binary by analysis/embed_assets.cmake, so
// a report never needs the network.
#pragma once

#include <string_view>

namespace t9k::analysis::assets {

std::string_view vega_js();
std::string_view vega_lite_js();
std::string_view vega_embed_js();

}  // namespace t9k::analysis::assets
