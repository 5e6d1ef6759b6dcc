#pragma once
// The kernels' element type (kernels/element_type.h) of a libtorch dtype: float32, bfloat16 and
// float16 have one; nullopt for any other.

#include <c10/core/ScalarType.h>

#include <optional>

#include "kernels/element_type.h"

namespace studio::model {

inline std::optional<kernels::ElementType> kernelElementType(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Float: return kernels::ElementType::Float32;
    case c10::ScalarType::BFloat16: return kernels::ElementType::BFloat16;
    case c10::ScalarType::Half: return kernels::ElementType::Float16;
    default: return std::nullopt;
  }
}

}  // namespace studio::model
