#pragma once
// A query × key attention window as a safetensors file beside its picture, so a notebook loads
// the numbers the figure was drawn from (numpy's safetensors.numpy.load_file, torch's
// safetensors.torch.load_file) at full resolution rather than pooled:
//   attention        F32 [queries, keys]  the phase drawn (or the difference qTTT − prefill)
//   query_positions  I64 [queries]        each row's prompt position
//   key_positions    I64 [keys]           each column's prompt position
//   evidence         I64 [spans, 2]       the run's evidence as [first, end) key columns
// and metadata: title, phase, scope, caption.

#include <cstddef>
#include <string>

#include "analysis/attention_data.h"

namespace studio::analysis {

// The safetensors file beside a figure file: "out/window.svg" -> "out/window.safetensors".
std::string attentionWindowTensorsPath(const std::string& figure_path);

// `phase` indexes window.phase_names; `difference` writes the last phase minus the first instead.
// Throws studio::Error: Argument for a phase the window does not have, Io when `path` cannot be
// written (the file is written beside it and renamed, so it appears only complete).
void writeAttentionWindowTensors(const AttentionWindowData& window, std::size_t phase,
                                 bool difference, const std::string& path);

}  // namespace studio::analysis
