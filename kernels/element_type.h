#pragma once
// The floating-point types the kernels read and write, as the caller's tensors hold them.

namespace studio::kernels {

enum class ElementType { Float32 = 0, BFloat16 = 1, Float16 = 2 };

}  // namespace studio::kernels
