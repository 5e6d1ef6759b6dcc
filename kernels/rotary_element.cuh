#pragma once
// The rotary embedding's arithmetic for one pair (d, d + D/2) of a row, rounded as transformers'
// apply_rotary_pos_emb is: shared by rotary.cu's kernel and decode_prologue.cu, so that both give
// the same bits.

#include <cstdint>

#include "kernels/element_convert.cuh"

namespace studio::kernels {

// cos and sin of position · inv_freq in float32, times the attention factor, each rounded to T.
template <typename T>
__device__ __forceinline__ void rotaryCosSin(std::int64_t position, float inv_freq,
                                             float attention_factor, float& c, float& s) {
  const float angle = static_cast<float>(position) * inv_freq;
  c = toFloat(fromFloat<T>(cosf(angle) * attention_factor));
  s = toFloat(fromFloat<T>(sinf(angle) * attention_factor));
}

// own·c + partner·s, each product rounded to T, then the sum: `partner` is −x[d + D/2] for the
// first half's element d, x[d − D/2] for the second half's.
template <typename T>
__device__ __forceinline__ T rotaryElement(float own, float partner, float c, float s) {
  return fromFloat<T>(toFloat(fromFloat<T>(own * c)) + toFloat(fromFloat<T>(partner * s)));
}

}  // namespace studio::kernels
