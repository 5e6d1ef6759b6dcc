#pragma once
// The safetensors format (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length, a JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {...}}, then
// the tensor bytes. Files are memory-mapped and validated completely before any tensor is handed
// out, so a truncated or hostile file gives a studio::Error naming the file and the tensor.

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/model/safetensors_header.h"

namespace studio::model {

class SafetensorsFile {
 public:
  // Maps and validates the file; `display_name` names it in errors (defaults to the file name).
  // Throws studio::Error: Io (cannot open), Format (anything wrong with the layout or header).
  static SafetensorsFile open(const std::string& path, const std::string& display_name = "");

  const std::string& path() const { return m_path; }
  const std::string& displayName() const { return m_display_name; }
  std::uint64_t fileSize() const;

  // Tensor names in the order of their data in the file.
  const std::vector<std::string>& names() const { return m_names; }
  bool contains(const std::string& name) const { return m_infos.count(name) != 0; }
  // Throws studio::Error (Weights) when the file has no such tensor.
  const SafetensorsTensorInfo& info(const std::string& name) const;
  const std::map<std::string, std::string>& metadata() const { return m_metadata; }

  // A CPU tensor in the stored dtype viewing the mapping (no copy; a tensor whose bytes are not
  // aligned to its element size is copied instead). The mapping is private copy-on-write:
  // writing into the tensor never changes the file. The tensor keeps the mapping alive.
  // Throws studio::Error (Weights) for an unknown name, (Unsupported) for a dtype torch cannot
  // view (F8_*, U16, U32, U64, C64, BOOL).
  torch::Tensor tensor(const std::string& name) const;

 private:
  struct Mapping;
  std::string m_path;
  std::string m_display_name;
  std::shared_ptr<const Mapping> m_mapping;
  std::uint64_t m_data_start = 0;  // 8 + header length
  std::vector<std::string> m_names;
  std::map<std::string, SafetensorsTensorInfo> m_infos;
  std::map<std::string, std::string> m_metadata;
};

// The torch dtype of a safetensors dtype the studio can view; false when it cannot.
bool safetensorsToTorchDtype(const std::string& dtype, torch::Dtype& out);
// The safetensors name of a torch dtype; throws studio::Error (Unsupported) for others.
std::string torchToSafetensorsDtype(torch::Dtype dtype);

// Writes `tensors` (in this order, each made contiguous on the CPU) and `metadata` in the exact
// format: header padded with spaces to a multiple of 8 bytes, data contiguous, little-endian.
// Atomic: a temp file in the same folder is written, fsynced and renamed over `path`. Throws
// studio::Error: Argument (duplicate or empty names, undefined tensors), Unsupported (dtype), Io.
void writeSafetensors(const std::string& path,
                      const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

}  // namespace studio::model
