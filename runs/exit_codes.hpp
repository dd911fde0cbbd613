// The exit codes of every t9ksim command.
#pragma once

namespace t9k::runs {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;  // a simulation, internal or output error; a failed check
inline constexpr int kExitUsage = 2;  // bad usage or bad input

}  // namespace t9k::runs
