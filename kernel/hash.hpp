// Fixed, platform-independent hashing used for stream keys and the run fingerprint. These values
// appear in outputs, so they must never depend on std::hash or the standard library.
#pragma once

#include <cstdint>
#include <string_view>

namespace t9k::kernel {

// 128-bit integers for exact intermediate arithmetic (GCC/Clang extension).
__extension__ using Int128 = __int128;
__extension__ using UInt128 = unsigned __int128;

// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Order-sensitive combination of a running hash with one more value.
constexpr std::uint64_t hash_combine(std::uint64_t h, std::uint64_t v) {
  return mix64(h ^ mix64(v));
}

// FNV-1a over bytes, then mixed; stable for any string on any platform.
constexpr std::uint64_t hash_string(std::string_view s) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  return mix64(h);
}

}  // namespace t9k::kernel
