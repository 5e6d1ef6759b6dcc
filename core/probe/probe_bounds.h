#pragma once
// The probe's settings, its window limits and the qTTT paper's bounds (SPEC §1): plain numbers,
// no tensors, so that figures and views can use them without the engine.

#include <cstdint>
#include <vector>

namespace studio::probe {

struct ProbeOptions {
  std::vector<double> deltas{0.5, 1.0, 2.0};  // Δ values of the near-tie counts m(Δ)
  double epsilon = 0.1;                        // ε of the Lemma 2.3 required margin
};

// Heatmap windows are bounded: a view asks for what it shows.
constexpr std::int64_t kMaxWindowQueries = 512;
constexpr std::int64_t kMaxWindowKeys = 4096;

// Lemma 2.3: log((T−1)(1−ε)/ε), the margin that guarantees mass ≥ 1−ε against T−1 distractors.
double requiredMargin(std::int64_t keys, double epsilon);

// Lemma 2.2: 1 / (1 + m·e^{−Δ}), the most weight the best target key j* can get when m
// distractors lie within Δ of its logit.
double dilutionBound(std::int64_t near_ties, double delta);

// Lemma 2.2 for the mass of a target set 𝒯 of |𝒯| keys, with m distractors within Δ of the best
// target logit z*: Σ_τ e^{z_τ} ≤ |𝒯|·e^{z*}, and x/(x + c) grows with x, so
//   mass = Σ_τ e^{z_τ} / (Σ_τ e^{z_τ} + Σ_{j∉𝒯} e^{z_j}) ≤ |𝒯| / (|𝒯| + m·e^{−Δ}).
// 1 for an empty set of distractors; for |𝒯| = 1 it is dilutionBound.
double setDilutionBound(std::int64_t target_keys, std::int64_t near_ties, double delta);

// Definition 2.1 in margin form: retrieval with weight ≥ τ needs a margin ≥ log(τ / (1 − τ)).
double retrievalMargin(double tau);

}  // namespace studio::probe
