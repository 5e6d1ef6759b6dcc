#pragma once
// Copies from global to shared memory that hold no registers while in flight (cp.async, sm_80 and
// later): a thread issues 16-byte copies, commits them as a group, and waits until at most
// `Pending` of its groups are still in flight; a __syncthreads() after the wait makes every
// thread's copies visible to the block.

namespace studio::kernels {

// `shared` and `global` 16-byte aligned.
__device__ inline void copyAsync16(void* shared, const void* global) {
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global));
}

__device__ inline void commitAsync() { asm volatile("cp.async.commit_group;\n" ::); }

template <int Pending>
__device__ void waitAsync() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

}  // namespace studio::kernels
