#pragma once
// A tiny random model folder for end-to-end tests (methods, command line, window): a 2-layer qwen3
// with GQA (4 query heads, 2 key-value heads of 8), hidden 32 — or a 2-layer TTT model of the same
// width (4 heads of 8, mini-batch 16) — with the byte-level vocabulary (259 tokens, eos
// <|im_end|> = 258) and its tokenizer.json, written to a fresh folder unique to this process and
// tag, removed on destruction. No torch in this header, so Qt test files can use it.

#include <cstdint>
#include <string>

#include "core/model/model_config.h"

namespace studio::test {

class TinyModelFolder {
 public:
  // Weights are random (seeded); `scale` multiplies every matrix (sharper attention above 1).
  explicit TinyModelFolder(const std::string& tag = "model", std::uint64_t seed = 7,
                           double scale = 1.0);
  // Linear, Mlp: the TTT model of that width (ttt-lm-pytorch's layout). SrTtt: an sr_ttt model
  // (SR-TTT v2's layout) of that width, windows of 16 tokens, a cache of 8 that fills and evicts.
  enum class Ttt { Linear, Mlp, SrTtt };
  TinyModelFolder(Ttt kind, const std::string& tag, std::uint64_t seed = 7);
  ~TinyModelFolder();
  TinyModelFolder(const TinyModelFolder&) = delete;
  TinyModelFolder& operator=(const TinyModelFolder&) = delete;

  const std::string& path() const { return m_path; }
  const model::ModelConfig& config() const { return m_config; }

 private:
  void write(const std::string& tag, std::uint64_t seed, double scale);

  std::string m_path;
  model::ModelConfig m_config;
};

}  // namespace studio::test
