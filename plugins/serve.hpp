// The other end of the protocol, with the simulator's own code: `t9ksim plugin serve controller`
// answers `reconcile` with the built-in controllers, `t9ksim plugin serve elastic-policy` answers
// `decide` with a built-in policy. Running a scenario with these out of process gives the same
// outputs as in process, byte for byte (tests/plugins/): the proof that the boundary is exact.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "protocol/protocol.hpp"

namespace t9k::plugins {

// Reads requests from `in`, one per line, and writes one reply per line to `out`, until
// `shutdown` or the end of input. A request it cannot answer gets an error reply (JSON-RPC
// codes: -32700 parse error, -32601 unknown method, -32602 bad params) and serving goes on.
// `policy`: the built-in elastic policy to serve (default: the one initialize names).
// `max_version`: the newest protocol version to accept (docs/protocol-v2.md §1): 2 answers "2"
// when the simulator offers it; 1 keeps to version 1. Returns the process exit code.
int serve(std::FILE* in, std::FILE* out, protocol::Role role,
          const std::optional<std::string>& policy, int max_version = 2);

}  // namespace t9k::plugins
