#include "core/model/kv_cache.h"

#include <algorithm>

#include "core/common/error.h"

namespace studio::model {

using torch::Tensor;

std::int64_t KVCache::Layer::frozenLength() const {
  std::int64_t total = 0;
  for (const Segment& segment : frozen) total += segment.length;
  return total;
}

KVCache::KVCache(int num_layers) : m_layers(static_cast<std::size_t>(num_layers)) {}

std::int64_t KVCache::layerLength(int layer) const {
  const Layer& l = m_layers.at(static_cast<std::size_t>(layer));
  return l.frozenLength() + l.tail_length;
}

std::int64_t KVCache::length() const {
  if (m_layers.empty()) return 0;
  std::int64_t shortest = layerLength(0);
  for (int i = 1; i < numLayers(); ++i) shortest = std::min(shortest, layerLength(i));
  return shortest;
}

void KVCache::reserve(std::int64_t total) {
  for (Layer& layer : m_layers) layer.reserve = std::max(layer.reserve, total);
}

void KVCache::regrowTail(Layer& layer, std::int64_t capacity, const Tensor& k, const Tensor& v) {
  auto shape_k = k.sizes().vec();
  auto shape_v = v.sizes().vec();
  shape_k[2] = capacity;
  shape_v[2] = capacity;
  Tensor new_k = torch::empty(shape_k, k.options());
  Tensor new_v = torch::empty(shape_v, v.options());
  if (layer.tail_length > 0) {
    new_k.narrow(2, 0, layer.tail_length).copy_(layer.tail_k.narrow(2, 0, layer.tail_length));
    new_v.narrow(2, 0, layer.tail_length).copy_(layer.tail_v.narrow(2, 0, layer.tail_length));
  }
  layer.tail_k = new_k;
  layer.tail_v = new_v;
}

void KVCache::append(int layer_index, const Tensor& k, const Tensor& v) {
  Layer& layer = m_layers.at(static_cast<std::size_t>(layer_index));
  const std::int64_t n = k.size(2);
  const std::int64_t needed = layer.tail_length + n;
  if (!layer.tail_k.defined() || layer.tail_k.size(2) < needed) {
    // Grow geometrically; the first allocation honours reserve() minus what the prefix holds.
    const std::int64_t prefix = layer.frozenLength();
    std::int64_t capacity = layer.tail_k.defined() ? layer.tail_k.size(2) * 2 : 0;
    capacity = std::max({capacity, needed, layer.reserve - prefix, std::int64_t{16}});
    regrowTail(layer, capacity, k, v);
  }
  layer.tail_k.narrow(2, layer.tail_length, n).copy_(k);
  layer.tail_v.narrow(2, layer.tail_length, n).copy_(v);
  layer.tail_length = needed;
}

void KVCache::prepareInPlace(std::int64_t capacity, std::size_t max_segments) {
  for (int i = 0; i < numLayers(); ++i) {
    Layer& layer = m_layers[static_cast<std::size_t>(i)];
    const auto parts = segments(i);
    if (parts.empty()) {
      throwError(ErrorKind::Internal, "", "kv_cache",
                 "layer " + std::to_string(i) + " is empty: in-place decoding follows a prefill");
    }
    if (layer.frozen.size() + 1 > std::max<std::size_t>(max_segments, 1)) {
      // One copy of the whole layer into a tail of its own (cat copies, so nothing shared is
      // ever written).
      std::vector<Tensor> ks, vs;
      for (const auto& [k, v] : parts) {
        ks.push_back(k);
        vs.push_back(v);
      }
      layer.tail_k = torch::cat(ks, 2);
      layer.tail_v = torch::cat(vs, 2);
      layer.tail_length = layer.tail_k.size(2);
      layer.frozen.clear();
    }
    const std::int64_t room = capacity - layer.frozenLength();
    if (!layer.tail_k.defined() || layer.tail_k.size(2) < room) {
      regrowTail(layer, std::max(room, layer.tail_length), parts.back().first, parts.back().second);
    }
  }
}

std::vector<std::pair<Tensor, Tensor>> KVCache::inPlaceSegments(int layer_index) const {
  const Layer& layer = m_layers.at(static_cast<std::size_t>(layer_index));
  if (!layer.tail_k.defined()) {
    throwError(ErrorKind::Internal, "", "kv_cache", "in-place decoding needs prepareInPlace()");
  }
  std::vector<std::pair<Tensor, Tensor>> out;
  for (const Segment& segment : layer.frozen) {
    out.emplace_back(segment.frozen->first.narrow(2, 0, segment.length),
                     segment.frozen->second.narrow(2, 0, segment.length));
  }
  out.emplace_back(layer.tail_k, layer.tail_v);
  return out;
}

std::int64_t KVCache::frozenLength(int layer_index) const {
  return m_layers.at(static_cast<std::size_t>(layer_index)).frozenLength();
}

void KVCache::grow(std::int64_t n) {
  for (std::size_t i = 0; i < m_layers.size(); ++i) {
    Layer& layer = m_layers[i];
    if (n < 0 || !layer.tail_k.defined() || layer.tail_length + n > layer.tail_k.size(2)) {
      throwError(ErrorKind::Internal, "", "kv_cache",
                 "layer " + std::to_string(i) + " has no room for " + std::to_string(n) +
                     " positions written in place");
    }
    layer.tail_length += n;
  }
}

std::vector<std::pair<Tensor, Tensor>> KVCache::segments(int layer_index) const {
  const Layer& layer = m_layers.at(static_cast<std::size_t>(layer_index));
  std::vector<std::pair<Tensor, Tensor>> out;
  for (const Segment& segment : layer.frozen) {
    out.emplace_back(segment.frozen->first.narrow(2, 0, segment.length),
                     segment.frozen->second.narrow(2, 0, segment.length));
  }
  if (layer.tail_length > 0) {
    out.emplace_back(layer.tail_k.narrow(2, 0, layer.tail_length),
                     layer.tail_v.narrow(2, 0, layer.tail_length));
  }
  return out;
}

std::pair<Tensor, Tensor> KVCache::contiguous(int layer_index) const {
  auto parts = segments(layer_index);
  if (parts.empty()) {
    throwError(ErrorKind::Internal, "", "kv_cache", "layer " + std::to_string(layer_index) +
                                                        " is empty");
  }
  if (parts.size() == 1) return parts.front();
  std::vector<Tensor> ks, vs;
  for (auto& [k, v] : parts) {
    ks.push_back(k);
    vs.push_back(v);
  }
  return {torch::cat(ks, 2), torch::cat(vs, 2)};
}

void KVCache::truncate(std::int64_t length) {
  if (length < 0) throwArgument("kv_cache.truncate", "negative length");
  for (Layer& layer : m_layers) {
    std::int64_t kept = 0;
    std::vector<Segment> frozen;
    for (const Segment& segment : layer.frozen) {
      if (kept >= length) break;
      Segment cut = segment;
      cut.length = std::min(segment.length, length - kept);
      kept += cut.length;
      frozen.push_back(cut);
    }
    layer.frozen = std::move(frozen);
    layer.tail_length = std::clamp<std::int64_t>(length - kept, 0, layer.tail_length);
  }
}

KVCache KVCache::fork() {
  // Freeze each tail into a shared segment: both caches then read it and write new tails.
  for (Layer& layer : m_layers) {
    if (layer.tail_length == 0) continue;
    Segment segment;
    segment.frozen = std::make_shared<const std::pair<Tensor, Tensor>>(
        layer.tail_k.narrow(2, 0, layer.tail_length), layer.tail_v.narrow(2, 0, layer.tail_length));
    segment.length = layer.tail_length;
    layer.frozen.push_back(segment);
    layer.tail_k = Tensor();
    layer.tail_v = Tensor();
    layer.tail_length = 0;
  }
  KVCache child(numLayers());
  for (std::size_t i = 0; i < m_layers.size(); ++i) {
    child.m_layers[i].frozen = m_layers[i].frozen;
  }
  return child;
}

KVCache KVCache::copy() const {
  KVCache out(numLayers());
  for (int i = 0; i < numLayers(); ++i) {
    if (layerLength(i) == 0) continue;
    auto [k, v] = contiguous(i);
    out.append(i, k.clone(), v.clone());
  }
  return out;
}

std::vector<std::int64_t> KVCache::layout() const {
  std::vector<std::int64_t> out;
  auto address = [](const Tensor& t) {
    return t.defined() ? reinterpret_cast<std::int64_t>(t.data_ptr()) : std::int64_t{0};
  };
  for (const Layer& layer : m_layers) {
    for (const Segment& segment : layer.frozen) {
      out.insert(out.end(), {address(segment.frozen->first), address(segment.frozen->second),
                             segment.length});
    }
    out.insert(out.end(), {address(layer.tail_k), address(layer.tail_v), layer.tail_length});
  }
  return out;
}

std::int64_t KVCache::bytes() const {
  std::int64_t total = 0;
  for (int i = 0; i < numLayers(); ++i) {
    for (const auto& [k, v] : segments(i)) {
      total += k.numel() * k.element_size() + v.numel() * v.element_size();
    }
  }
  return total;
}

}  // namespace studio::model
