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
#include "core/common/bounded_json.h"
#include "core/model/safetensors_header.h"

namespace studio::model {

// The format is little-endian and tensors are viewed in place.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors views need a little-endian host");

namespace {

// The torch types of the viewable safetensors dtypes.
const std::vector<std::pair<const char*, torch::Dtype>>& torchDtypes() {
  static const std::vector<std::pair<const char*, torch::Dtype>> table = {
      {"F32", torch::kFloat32}, {"F16", torch::kFloat16}, {"BF16", torch::kBFloat16},
      {"F64", torch::kFloat64}, {"I64", torch::kInt64},   {"I32", torch::kInt32},
      {"I16", torch::kInt16},   {"I8", torch::kInt8},     {"U8", torch::kUInt8},
  };
  return table;
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

bool safetensorsToTorchDtype(const std::string& dtype, torch::Dtype& out) {
  for (const auto& [name, type] : torchDtypes()) {
    if (dtype == name) {
      out = type;
      return true;
    }
  }
  return false;
}

std::string torchToSafetensorsDtype(torch::Dtype dtype) {
  for (const auto& [name, type] : torchDtypes()) {
    if (type == dtype) return name;
  }
  throwError(ErrorKind::Unsupported, "", "",
             std::string("torch dtype ") + c10::toString(dtype) +
                 " cannot be stored (supported: " + viewableSafetensorsDtypes() + ")");
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
    throwError(ErrorKind::Format, where, "",
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

  SafetensorsHeader header = parseSafetensorsHeader(mapping->bytes(), size, where);
  file.m_data_start = header.data_start;
  file.m_names = std::move(header.names);
  file.m_infos = std::move(header.infos);
  file.m_metadata = std::move(header.metadata);
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
               "dtype " + meta.dtype + " is not supported (supported: " + viewableSafetensorsDtypes() +
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
