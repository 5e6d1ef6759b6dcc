#include "core/model/safetensors.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <filesystem>
#include <set>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/common/error.h"
#include "core/model/atomic_file_writer.h"
#include "core/model/bounded_json.h"

namespace studio::model {

// The format is little-endian and tensors are viewed in place.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors views need a little-endian host");

namespace {

using json = nlohmann::json;

// More dimensions than any weight has; bounds the work a hostile shape can cause.
constexpr std::size_t kMaxRank = 64;

[[noreturn]] void formatError(const std::string& file, const std::string& field,
                              const std::string& what) {
  throwError(ErrorKind::Format, file, field, what);
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

struct DtypeEntry {
  const char* name;
  std::size_t size;
  bool viewable;
  torch::Dtype torch_dtype;
};

// Every dtype the safetensors format defines. The studio views those torch has a type for whose
// every bit pattern is valid (BOOL is not: a byte of 2 is undefined behaviour in a torch bool).
const std::vector<DtypeEntry>& dtypeTable() {
  static const std::vector<DtypeEntry> table = {
      {"F32", 4, true, torch::kFloat32},     {"F16", 2, true, torch::kFloat16},
      {"BF16", 2, true, torch::kBFloat16},   {"F64", 8, true, torch::kFloat64},
      {"I64", 8, true, torch::kInt64},       {"I32", 4, true, torch::kInt32},
      {"I16", 2, true, torch::kInt16},       {"I8", 1, true, torch::kInt8},
      {"U8", 1, true, torch::kUInt8},        {"BOOL", 1, false, torch::kBool},
      {"U16", 2, false, torch::kFloat32},    {"U32", 4, false, torch::kFloat32},
      {"U64", 8, false, torch::kFloat32},    {"C64", 8, false, torch::kComplexFloat},
      {"F8_E4M3", 1, false, torch::kFloat32}, {"F8_E5M2", 1, false, torch::kFloat32},
      {"F8_E8M0", 1, false, torch::kFloat32},
  };
  return table;
}

const DtypeEntry* findDtype(const std::string& name) {
  for (const auto& entry : dtypeTable()) {
    if (name == entry.name) return &entry;
  }
  return nullptr;
}

std::string viewableDtypeList() {
  std::string list;
  for (const auto& entry : dtypeTable()) {
    if (!entry.viewable) continue;
    if (!list.empty()) list += ", ";
    list += entry.name;
  }
  return list;
}

std::uint64_t nonNegativeInteger(const json& value, const std::string& file,
                                 const std::string& field, const std::string& what) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer()) {
    formatError(file, field, what + " must not be negative, got " + value.dump());
  }
  formatError(file, field, what + " must be an integer, got " + describeJson(value));
}

SafetensorsTensorInfo parseEntry(const std::string& name, const json& entry,
                                 const std::string& file, std::uint64_t data_size) {
  if (name.empty()) formatError(file, "", "a tensor has an empty name");
  if (!entry.is_object()) {
    formatError(file, name,
                "must be an object with dtype, shape and data_offsets, got " + describeJson(entry));
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!entry.contains(key)) formatError(file, name, std::string("has no ") + key);
  }
  SafetensorsTensorInfo info;
  info.name = name;

  const json& dtype = entry["dtype"];
  if (!dtype.is_string()) {
    formatError(file, name, "dtype must be a string, got " + describeJson(dtype));
  }
  info.dtype = dtype.get<std::string>();
  const DtypeEntry* known = findDtype(info.dtype);
  if (!known) formatError(file, name, "unknown dtype \"" + info.dtype + "\"");
  info.supported = known->viewable;

  const json& shape = entry["shape"];
  if (!shape.is_array()) {
    formatError(file, name, "shape must be a list, got " + describeJson(shape));
  }
  if (shape.size() > kMaxRank) {
    formatError(file, name,
                "shape has " + std::to_string(shape.size()) + " dimensions, more than " +
                    std::to_string(kMaxRank));
  }
  // The product saturates just above 2^64 (128-bit arithmetic cannot overflow on the way); any
  // saturated count then fails the comparison with the data offsets below.
  constexpr unsigned __int128 kSaturated = (static_cast<unsigned __int128>(1) << 64) + 1;
  unsigned __int128 elements = 1;
  for (const json& dim : shape) {
    const std::uint64_t size = nonNegativeInteger(dim, file, name, "shape entry");
    if (size > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      formatError(file, name, "shape entry " + dim.dump() + " is too large");
    }
    info.shape.push_back(static_cast<std::int64_t>(size));
    elements = std::min(elements * size, kSaturated);
  }
  const unsigned __int128 bytes = elements * known->size;

  const json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) {
    formatError(file, name, "data_offsets must be [begin, end], got " + describeJson(offsets));
  }
  info.begin = nonNegativeInteger(offsets[0], file, name, "data_offsets begin");
  info.end = nonNegativeInteger(offsets[1], file, name, "data_offsets end");
  if (info.begin > info.end) {
    formatError(file, name,
                "data_offsets [" + std::to_string(info.begin) + ", " + std::to_string(info.end) +
                    "] end before they begin");
  }
  if (info.end > data_size) {
    formatError(file, name,
                "data_offsets [" + std::to_string(info.begin) + ", " + std::to_string(info.end) +
                    "] reach past the data section (" + std::to_string(data_size) + " bytes)");
  }
  if (bytes != static_cast<unsigned __int128>(info.end - info.begin)) {
    const std::string bytes_text =
        bytes > std::numeric_limits<std::uint64_t>::max()
            ? std::string("more than 2^64")
            : std::to_string(static_cast<std::uint64_t>(bytes));
    formatError(file, name,
                "shape " + shapeText(info.shape) + " of " + info.dtype + " needs " + bytes_text +
                    " bytes, data_offsets give " + std::to_string(info.end - info.begin));
  }
  return info;
}

}  // namespace

struct SafetensorsFile::Mapping {
  void* address = MAP_FAILED;
  std::size_t size = 0;
  ~Mapping() {
    if (address != MAP_FAILED) ::munmap(address, size);
  }
  const unsigned char* bytes() const { return static_cast<const unsigned char*>(address); }
};

std::size_t safetensorsDtypeSize(const std::string& dtype) {
  const DtypeEntry* entry = findDtype(dtype);
  return entry ? entry->size : 0;
}

bool safetensorsToTorchDtype(const std::string& dtype, torch::Dtype& out) {
  const DtypeEntry* entry = findDtype(dtype);
  if (!entry || !entry->viewable) return false;
  out = entry->torch_dtype;
  return true;
}

std::string torchToSafetensorsDtype(torch::Dtype dtype) {
  for (const auto& entry : dtypeTable()) {
    if (entry.viewable && entry.torch_dtype == dtype) return entry.name;
  }
  throwError(ErrorKind::Unsupported, "", "",
             std::string("torch dtype ") + c10::toString(dtype) +
                 " cannot be stored (supported: " + viewableDtypeList() + ")");
}

SafetensorsFile SafetensorsFile::open(const std::string& path, const std::string& display_name) {
  SafetensorsFile file;
  file.m_path = path;
  file.m_display_name = display_name.empty()
                            ? std::filesystem::path(path).filename().string()
                            : display_name;
  const std::string& where = file.m_display_name;

  // O_NONBLOCK: a FIFO named model.safetensors must not hang the studio waiting for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throwError(ErrorKind::Io, where, "", std::string("cannot open: ") + std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throwError(ErrorKind::Io, where, "", std::string("cannot stat: ") + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) throwError(ErrorKind::Io, where, "", "is a folder, not a file");
  if (!S_ISREG(st.st_mode)) throwError(ErrorKind::Io, where, "", "is not a regular file");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < 8) {
    formatError(where, "",
                "file is " + std::to_string(size) +
                    " bytes, too short for the 8-byte header length");
  }

  auto mapping = std::make_shared<Mapping>();
  // Private and writable: tensors are views a method may modify in place (copy-on-write pages),
  // and the file on disk never changes.
  mapping->address = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (mapping->address == MAP_FAILED) {
    throwError(ErrorKind::Io, where, "", std::string("cannot map: ") + std::strerror(errno));
  }
  mapping->size = size;
  file.m_mapping = mapping;

  std::uint64_t header_length = 0;
  std::memcpy(&header_length, mapping->bytes(), 8);
  if (header_length > size - 8) {
    formatError(where, "",
                "header length " + std::to_string(header_length) + " is larger than the " +
                    std::to_string(size - 8) + " bytes that follow it (truncated or not a "
                                               "safetensors file)");
  }
  if (header_length > kMaxSafetensorsHeaderBytes) {
    formatError(where, "",
                "header length " + std::to_string(header_length) + " exceeds the limit of " +
                    std::to_string(kMaxSafetensorsHeaderBytes) + " bytes");
  }
  file.m_data_start = 8 + header_length;
  const std::uint64_t data_size = size - file.m_data_start;

  const std::string header_text(reinterpret_cast<const char*>(mapping->bytes() + 8),
                                static_cast<std::size_t>(header_length));
  const json header = parseBoundedJson(header_text, where + " header", kMaxJsonDepth,
                                       /*reject_duplicate_top_level_keys=*/true);
  if (!header.is_object()) {
    formatError(where, "", "header must be a JSON object, got " + describeJson(header));
  }

  std::vector<const SafetensorsTensorInfo*> by_offset;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) {
        formatError(where, name, "must be an object of strings, got " + describeJson(entry));
      }
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) {
          formatError(where, "__metadata__." + key,
                      "must be a string, got " + describeJson(value));
        }
        file.m_metadata[key] = value.get<std::string>();
      }
      continue;
    }
    SafetensorsTensorInfo info = parseEntry(name, entry, where, data_size);
    auto [it, inserted] = file.m_infos.emplace(name, std::move(info));
    by_offset.push_back(&it->second);
  }

  std::sort(by_offset.begin(), by_offset.end(), [](const auto* a, const auto* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  // Empty tensors own no bytes and cannot overlap anything.
  const SafetensorsTensorInfo* previous = nullptr;
  for (const SafetensorsTensorInfo* info : by_offset) {
    file.m_names.push_back(info->name);
    if (info->begin == info->end) continue;
    if (previous && info->begin < previous->end) {
      formatError(where, info->name,
                  "bytes [" + std::to_string(info->begin) + ", " + std::to_string(info->end) +
                      ") overlap those of " + previous->name + " [" +
                      std::to_string(previous->begin) + ", " + std::to_string(previous->end) +
                      ")");
    }
    previous = info;
  }
  return file;
}

std::uint64_t SafetensorsFile::fileSize() const { return m_mapping ? m_mapping->size : 0; }

const SafetensorsTensorInfo& SafetensorsFile::info(const std::string& name) const {
  const auto it = m_infos.find(name);
  if (it == m_infos.end()) throwError(ErrorKind::Weights, m_display_name, name, "no such tensor");
  return it->second;
}

torch::Tensor SafetensorsFile::tensor(const std::string& name) const {
  const SafetensorsTensorInfo& meta = info(name);
  torch::Dtype dtype = torch::kFloat32;
  if (!safetensorsToTorchDtype(meta.dtype, dtype)) {
    throwError(ErrorKind::Unsupported, m_display_name, name,
               "dtype " + meta.dtype + " is not supported (supported: " + viewableDtypeList() +
                   ")");
  }
  const auto options = torch::TensorOptions().dtype(dtype).device(torch::kCPU);
  if (meta.begin == meta.end) return torch::empty(meta.shape, options);
  unsigned char* data = const_cast<unsigned char*>(m_mapping->bytes()) + m_data_start + meta.begin;
  const std::size_t element_size = safetensorsDtypeSize(meta.dtype);
  if (reinterpret_cast<std::uintptr_t>(data) % element_size != 0) {
    // The format does not promise aligned tensors; kernels may assume them.
    torch::Tensor copy = torch::empty(meta.shape, options);
    std::memcpy(copy.data_ptr(), data, meta.end - meta.begin);
    return copy;
  }
  std::shared_ptr<const Mapping> keep_alive = m_mapping;
  return torch::from_blob(
      data, meta.shape, [keep_alive](void*) mutable { keep_alive.reset(); }, options);
}

void writeSafetensors(const std::string& path,
                      const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  const std::string where = std::filesystem::path(path).filename().string();
  std::set<std::string> seen;
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name.empty() || name == "__metadata__") {
      throwError(ErrorKind::Argument, where, name, "is not a valid tensor name");
    }
    if (!seen.insert(name).second) throwError(ErrorKind::Argument, where, name, "appears twice");
    if (!tensor.defined()) throwError(ErrorKind::Argument, where, name, "is an undefined tensor");
    std::string dtype;
    try {
      dtype = torchToSafetensorsDtype(tensor.scalar_type());
    } catch (const Error& error) {
      throwError(ErrorKind::Unsupported, where, name, error.detail());
    }
    const auto bytes = static_cast<std::uint64_t>(tensor.numel()) * tensor.element_size();
    header[name] = {{"dtype", dtype},
                    {"shape", tensor.sizes().vec()},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string header_text = header.dump();
  header_text.append((8 - header_text.size() % 8) % 8, ' ');
  const std::uint64_t header_length = header_text.size();

  AtomicFileWriter writer(path);
  writer.write(&header_length, 8);
  writer.write(header_text);
  // One tensor at a time on the host: a model on the GPU is never copied out whole.
  for (const auto& entry : tensors) {
    const torch::Tensor data = entry.second.detach().to(torch::kCPU).contiguous();
    writer.write(data.data_ptr(), static_cast<std::size_t>(data.numel()) * data.element_size());
  }
  writer.commit();
}

}  // namespace studio::model
