#include "core/model/safetensors_header.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/common/bounded_json.h"

namespace studio::model {

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
};

// Every dtype the safetensors format defines.
const std::vector<DtypeEntry>& dtypeTable() {
  static const std::vector<DtypeEntry> table = {
      {"F32", 4, true},     {"F16", 2, true},      {"BF16", 2, true},    {"F64", 8, true},
      {"I64", 8, true},     {"I32", 4, true},      {"I16", 2, true},     {"I8", 1, true},
      {"U8", 1, true},      {"BOOL", 1, false},    {"U16", 2, false},    {"U32", 4, false},
      {"U64", 8, false},    {"C64", 8, false},     {"F8_E4M3", 1, false}, {"F8_E5M2", 1, false},
      {"F8_E8M0", 1, false},
  };
  return table;
}

const DtypeEntry* findDtype(const std::string& name) {
  for (const auto& entry : dtypeTable()) {
    if (name == entry.name) return &entry;
  }
  return nullptr;
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

SafetensorsHeader parseSafetensorsHeader(const unsigned char* bytes, std::uint64_t size,
                                         const std::string& where) {
  if (size < 8) {
    formatError(where, "",
                "file is " + std::to_string(size) +
                    " bytes, too short for the 8-byte header length");
  }
  SafetensorsHeader header;
  std::uint64_t header_length = 0;
  std::memcpy(&header_length, bytes, 8);
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
  header.data_start = 8 + header_length;
  const std::uint64_t data_size = size - header.data_start;

  const std::string header_text(reinterpret_cast<const char*>(bytes + 8),
                                static_cast<std::size_t>(header_length));
  const json root = parseBoundedJson(header_text, where + " header", kMaxJsonDepth,
                                     /*reject_duplicate_top_level_keys=*/true);
  if (!root.is_object()) {
    formatError(where, "", "header must be a JSON object, got " + describeJson(root));
  }

  std::vector<const SafetensorsTensorInfo*> by_offset;
  for (const auto& [name, entry] : root.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) {
        formatError(where, name, "must be an object of strings, got " + describeJson(entry));
      }
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) {
          formatError(where, "__metadata__." + key,
                      "must be a string, got " + describeJson(value));
        }
        header.metadata[key] = value.get<std::string>();
      }
      continue;
    }
    SafetensorsTensorInfo info = parseEntry(name, entry, where, data_size);
    auto [it, inserted] = header.infos.emplace(name, std::move(info));
    by_offset.push_back(&it->second);
  }

  std::sort(by_offset.begin(), by_offset.end(), [](const auto* a, const auto* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  // Empty tensors own no bytes and cannot overlap anything.
  const SafetensorsTensorInfo* previous = nullptr;
  for (const SafetensorsTensorInfo* info : by_offset) {
    header.names.push_back(info->name);
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
  return header;
}

std::size_t safetensorsDtypeSize(const std::string& dtype) {
  const DtypeEntry* entry = findDtype(dtype);
  return entry ? entry->size : 0;
}

bool safetensorsDtypeViewable(const std::string& dtype) {
  const DtypeEntry* entry = findDtype(dtype);
  return entry && entry->viewable;
}

std::string viewableSafetensorsDtypes() {
  std::string list;
  for (const auto& entry : dtypeTable()) {
    if (!entry.viewable) continue;
    if (!list.empty()) list += ", ";
    list += entry.name;
  }
  return list;
}

}  // namespace studio::model
