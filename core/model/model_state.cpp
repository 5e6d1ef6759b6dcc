#include "core/model/model_state.h"

#include <algorithm>

#include "core/common/error.h"

namespace studio::model {

using torch::Tensor;

namespace {

std::int64_t tensorBytes(const Tensor& t) {
  return t.defined() ? t.numel() * static_cast<std::int64_t>(t.element_size()) : 0;
}

}  // namespace

Tensor ConvHistory::last(std::int64_t n, std::int64_t batch, std::int64_t channels,
                         const torch::TensorOptions& options) const {
  const std::int64_t have = length();
  if (have >= n) return inputs.narrow(2, have - n, n);
  Tensor zeros = torch::zeros({batch, channels, n - have}, options);
  return have == 0 ? zeros : torch::cat({zeros, inputs}, 2);
}

void ConvHistory::append(const Tensor& more) {
  Tensor all = inputs.defined() ? torch::cat({inputs, more}, 2) : more;
  if (all.size(2) > keep) all = all.narrow(2, all.size(2) - keep, keep);
  inputs = all.detach();
}

void ConvHistory::dropLast(std::int64_t n) {
  if (n <= 0) return;
  if (n >= length()) {
    inputs = Tensor();
    return;
  }
  inputs = inputs.narrow(2, 0, length() - n);
}

ModelState::ModelState(int num_layers)
    : m_kv(num_layers), m_layers(static_cast<std::size_t>(num_layers)) {}

void ModelState::checkReaches(std::int64_t last_position) const {
  if (m_length <= last_position) {
    throwArgument("positions", "a frozen forward reads keys up to position " +
                                   std::to_string(last_position) + " but the state holds " +
                                   std::to_string(m_length));
  }
}

std::int64_t ModelState::earliestTruncation() const {
  std::int64_t earliest = 0;
  for (const LayerState& layer : m_layers) {
    if (!layer.ttt.start.empty()) {
      earliest = std::max(earliest, m_length - layer.ttt.open.count());
    }
    if (layer.sr_ttt.started()) {
      earliest = std::max(earliest,
                          m_length - std::min(layer.sr_ttt.openChunk(), layer.sr_ttt.openWindow()));
    }
  }
  return earliest;
}

void ModelState::truncate(std::int64_t length) {
  if (length < 0 || length > m_length) {
    throwArgument("length", "cannot truncate a state of " + std::to_string(m_length) +
                                " tokens to " + std::to_string(length));
  }
  if (length < earliestTruncation()) {
    throwArgument("length",
                  "cannot truncate to " + std::to_string(length) +
                      " tokens: TTT fast weights (and SR-TTT's cache) are kept only back to the "
                      "start of the open mini-batch or window (token " +
                      std::to_string(earliestTruncation()) +
                      "); fork the state to come back further");
  }
  const std::int64_t dropped = m_length - length;
  m_kv.truncate(length);
  for (LayerState& layer : m_layers) {
    if (!layer.ttt.start.empty()) {
      layer.ttt.open = layer.ttt.open.first(layer.ttt.open.count() - dropped);
    }
    for (ConvHistory* history : {&layer.pre_conv, &layer.conv_q, &layer.conv_k}) {
      history->dropLast(dropped);
    }
    if (layer.sr_ttt.started()) layer.sr_ttt.dropLast(dropped);
  }
  m_length = length;
}

ModelState ModelState::fork() {
  ModelState out(*this);  // layers share their (never mutated) tensors
  out.m_kv = m_kv.fork();
  return out;
}

ModelState ModelState::copy() const {
  ModelState out(*this);
  out.m_kv = m_kv.copy();
  return out;
}

ModelState ModelState::branch(const ModelState& descendant) {
  ModelState out(descendant);  // its TTT and convolution states: shared, never mutated
  out.m_kv = m_kv.fork();
  for (int layer = 0; layer < numLayers(); ++layer) {
    if (descendant.m_kv.layerLength(layer) == m_kv.layerLength(layer)) continue;
    const auto segments = descendant.m_kv.segments(layer);
    const auto& tail = segments.back();  // [1, Hkv, added, D]
    out.m_kv.append(layer, tail.first.clone(), tail.second.clone());
  }
  return out;
}

std::int64_t ModelState::bytes() const {
  std::int64_t total = m_kv.bytes();
  for (const LayerState& layer : m_layers) {
    for (const Tensor& t : layer.ttt.start) total += tensorBytes(t);
    const OpenTokens& open = layer.ttt.open;
    total += tensorBytes(open.lr);
    for (const Tensor& t : open.inputs) total += tensorBytes(t);
    for (const Tensor& t : open.grads) total += tensorBytes(t);
    for (const ConvHistory* h : {&layer.pre_conv, &layer.conv_q, &layer.conv_k}) {
      total += tensorBytes(h->inputs);
    }
    total += layer.sr_ttt.bytes();
  }
  return total;
}

}  // namespace studio::model
