#pragma once
// The leak check every evaluation needs (SPEC §7; SR-TTT's corrected code runs one at start-up):
// change the later part of a sequence and require every earlier position's logits to stay
// bit-identical, through the whole-sequence forward and through token-by-token decoding. A model
// that reads the future anywhere (a mask, a cache read, a routing decision) fails it. For SR-TTT
// layers the earlier tokens' surprisal must stay bit-identical too, and so must the routing of
// every window that ends before the change (its τ, routed tokens and what its insert did).

#include <cstdint>
#include <string>

#include "core/model/causal_lm.h"

namespace studio::model {

struct CausalityReport {
  std::int64_t length = 0;        // tokens of the sequence
  std::int64_t perturbed_from = 0;  // the first changed position
  bool passed = true;
  // The first position before `perturbed_from` whose logits (or, for SR-TTT layers, surprisal or
  // window routing: the window's first position) changed, through which path ("forward" or
  // "decode") and what changed ("logits", "loss" or "routing"); −1 and "" when none did.
  std::int64_t first_leak = -1;
  std::string path;
  std::string quantity;
  double max_difference = 0;          // of the earlier positions' logits, both paths
  std::int64_t windows_compared = 0;  // SR-TTT windows that end before the change, all layers
};

// Random token ids (seeded) of `length`, the positions from length/2 on replaced by others.
// Throws studio::Error (Argument) for a length below 2.
CausalityReport checkCausality(CausalLMImpl& lm, std::int64_t length = 64,
                               std::uint64_t seed = 0);

}  // namespace studio::model
