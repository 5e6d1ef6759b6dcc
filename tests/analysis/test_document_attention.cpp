// The answer's attention over the document read back from a run's answer_attention artifact: a
// valid one maps each document token to its bytes and its weight; a damaged one (a hand-edited or
// foreign session) is refused naming the run and the field, where it used to abort the studio.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "analysis/run_trace.h"

using namespace studio;

namespace {

// One layer, two heads, three document tokens at document bytes [0, 3), [3, 5), [5, 9); the
// document's first token is prompt position 5.
nlohmann::json validMeta(const std::string& phase = "prefill") {
  return {{"phase", phase},          {"query_position", 20},   {"context_tokens", {5, 8}},
          {"token_starts", {0, 3, 5}}, {"document_bytes", 9}};
}

engine::ArtifactEvent artifact(const std::string& meta_json,
                               std::vector<std::int64_t> shape = {1, 2, 3},
                               std::vector<float> data = {0.1f, 0.2f, 0.3f, 0.3f, 0.2f, 0.1f}) {
  engine::ArtifactEvent a;
  a.name = "answer_attention";
  a.kind = "attention_row";
  a.shape = std::move(shape);  // [layers, heads, document tokens]
  a.data = std::move(data);
  a.meta_json = meta_json;
  return a;
}

analysis::RunTrace runWith(std::vector<engine::ArtifactEvent> artifacts) {
  analysis::RunTrace run;
  run.id = 6;
  run.spec.method = "qttt";
  for (const engine::ArtifactEvent& a : artifacts) run.add(a);
  return run;
}

analysis::RunTrace damaged(const std::string& key, const nlohmann::json& value) {
  nlohmann::json meta = validMeta();
  meta[key] = value;
  return runWith({artifact(meta.dump())});
}

}  // namespace

TEST_CASE("an answer_attention artifact maps the document's tokens to bytes and weights",
          "[analysis]") {
  const analysis::RunTrace run = runWith({artifact(validMeta().dump()),
                                          artifact(validMeta("qttt").dump()),
                                          artifact(validMeta("prefill").dump(), {0, 0, 3}, {})});
  // The later prefill artifact (a token map without weights) replaces the first.
  CHECK(analysis::documentAttentionPhases(run) == std::vector<std::string>{"qttt"});
  CHECK(analysis::hasDocumentAttention(run, "prefill"));
  CHECK_FALSE(analysis::hasDocumentAttention(run, "decode"));

  const analysis::DocumentAttention head1 = analysis::documentAttention(run, "qttt", 0, 1);
  CHECK(head1.layers == 1);
  CHECK(head1.heads == 2);
  CHECK(head1.first_token == 5);
  CHECK(head1.query_position == 20);
  REQUIRE(head1.token_bytes.size() == 3);
  CHECK(head1.token_bytes[0] == Span{0, 3});
  CHECK(head1.token_bytes[1] == Span{3, 5});
  CHECK(head1.token_bytes[2] == Span{5, 9});
  CHECK(head1.weights == std::vector<float>{0.3f, 0.2f, 0.1f});
  const analysis::DocumentAttention mean = analysis::documentAttention(run, "qttt", -1, -1);
  CHECK(mean.weights[0] == Approx(0.2));

  // Positions map to bytes through the prefill's token map.
  CHECK(analysis::documentBytesAt(run, 6) == Span{3, 5});
  CHECK_FALSE(analysis::documentBytesAt(run, 4));
  CHECK_FALSE(analysis::documentBytesAt(run, 8));
}

TEST_CASE("a damaged answer_attention artifact is refused naming its field", "[analysis]") {
  using Catch::Contains;
  const analysis::RunTrace phase = damaged("phase", 3);
  CHECK_THROWS_WITH(analysis::documentAttentionPhases(phase),
                    Contains("run 6") && Contains("answer_attention.meta.phase: must be a string"));
  CHECK_THROWS_WITH(analysis::hasDocumentAttention(phase, "prefill"),
                    Contains("answer_attention.meta.phase: must be a string"));
  CHECK_THROWS_WITH(analysis::documentBytesAt(phase, 6),
                    Contains("answer_attention.meta.phase: must be a string"));
  CHECK_THROWS_WITH(analysis::documentAttention(damaged("token_starts", {0, 5, 3}), "prefill", 0, 0),
                    Contains("answer_attention.meta.token_starts[2]: must lie in [5, 9]"));
  CHECK_THROWS_WITH(analysis::documentAttention(damaged("token_starts", {0, 3, 12}), "prefill", 0, 0),
                    Contains("answer_attention.meta.token_starts[2]: must lie in [3, 9]"));
  CHECK_THROWS_WITH(analysis::documentAttention(damaged("token_starts", {0, 3}), "prefill", 0, 0),
                    Contains("answer_attention.meta.token_starts: must hold 3 elements, not 2"));
  CHECK_THROWS_WITH(analysis::documentAttention(damaged("context_tokens", {"5", 8}), "prefill", 0, 0),
                    Contains("answer_attention.meta.context_tokens[0]: must be an integer"));
  CHECK_THROWS_WITH(analysis::documentAttention(damaged("document_bytes", 9.5), "prefill", 0, 0),
                    Contains("answer_attention.meta.document_bytes: must be an integer"));
  CHECK_THROWS_WITH(
      analysis::documentAttention(runWith({artifact(validMeta().dump(), {1, 2, 3}, {0.5f})}),
                                  "prefill", 0, 0),
      Contains("answer_attention.data: must hold 1 × 2 × 3 weights"));
  CHECK_THROWS_WITH(
      analysis::documentAttentionPhases(runWith({artifact(validMeta().dump(), {2, 3})})),
      Contains("answer_attention.shape: must be [layers, heads, document tokens]"));
  CHECK_THROWS_WITH(analysis::documentAttentionPhases(runWith({artifact("{\"phase\": ")})),
                    Contains("answer_attention.meta: must be a JSON object"));
}
