#pragma once
// The layout of a safetensors file (https://github.com/huggingface/safetensors): an 8-byte
// little-endian header length, a JSON header {name: {dtype, shape, data_offsets},
// "__metadata__": {...}}, then the tensor bytes. Parsed and validated from the file's bytes alone,
// without tensors, so that it can be checked (and fuzzed) before anything is mapped or viewed.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace studio::model {

// Largest header the reader accepts; real headers are a few hundred kilobytes at most.
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100u << 20;

struct SafetensorsTensorInfo {
  std::string name;
  std::string dtype;  // as written: "F32", "BF16", ...
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0;  // byte offsets in the data section, [begin, end)
  std::uint64_t end = 0;
  bool supported = false;   // a tensor library can view it (see safetensorsDtypeViewable())
};

struct SafetensorsHeader {
  std::uint64_t data_start = 0;          // 8 + header length
  std::vector<std::string> names;        // tensor names in the order of their data
  std::map<std::string, SafetensorsTensorInfo> infos;
  std::map<std::string, std::string> metadata;
};

// Checks the first `size` bytes of a file (the whole file: the data section's length bounds the
// offsets) and returns its tensor table. `where` names the file in errors. Throws studio::Error
// (Format) for anything wrong: short file, header length, JSON, entries, overlapping offsets.
SafetensorsHeader parseSafetensorsHeader(const unsigned char* bytes, std::uint64_t size,
                                         const std::string& where);

// Element size in bytes of a safetensors dtype, 0 when the name is not a safetensors dtype.
std::size_t safetensorsDtypeSize(const std::string& dtype);
// Whether tensors of this dtype can be viewed in place: those with a torch type whose every bit
// pattern is valid (BOOL is not: a byte of 2 is undefined behaviour in a torch bool).
bool safetensorsDtypeViewable(const std::string& dtype);
// "F32, F16, ..." of the viewable dtypes, for messages.
std::string viewableSafetensorsDtypes();

}  // namespace studio::model
