// SR-TTT's cache read read back from a run's cache_read artifact: a valid one gives its entries by
// weight with their document bytes and the evidence they meet; a damaged one (a hand-edited or
// foreign session) is refused naming the run and the field, where it used to abort the studio.

#include <catch2/catch.hpp>

#include <cmath>

#include <nlohmann/json.hpp>

#include "analysis/routing_cache_read.h"

using namespace studio;

namespace {

// Layer 1's read at position 10 of two cached positions: 3 (document bytes [0, 2)) with weight
// 0.25, 4 ([2, 4)) with weight 0.75; the item's evidence is bytes [2, 4).
nlohmann::json validMeta() {
  return {{"layer", 1},        {"position", 10},
          {"alpha", 0.5},      {"cache_norm", 1.0},
          {"ttt_norm", 3.0},   {"cached", {3, 4}},
          {"cached_bytes", {{0, 2}, {2, 4}}}, {"cached_text", {"ab", "cd"}}};
}

analysis::RunTrace cacheReadRun(const std::string& meta_json, std::vector<float> weights = {0.25f, 0.75f}) {
  analysis::RunTrace run;
  run.id = 4;
  run.spec.method = "in_context";
  run.spec.document_text = "abcdef";
  run.spec.target_chars = {{2, 4}};
  engine::ArtifactEvent artifact;
  artifact.name = "cache_read";
  artifact.kind = "cache_read";
  artifact.shape = {static_cast<std::int64_t>(weights.size())};  // [C]
  artifact.data = std::move(weights);
  artifact.meta_json = meta_json;
  run.add(artifact);
  return run;
}

}  // namespace

TEST_CASE("a cache_read artifact gives its entries by weight and the evidence they meet",
          "[analysis][routing]") {
  const std::vector<analysis::CacheRead> reads = analysis::cacheReads(cacheReadRun(validMeta().dump()));
  REQUIRE(reads.size() == 1);
  const analysis::CacheRead& read = reads[0];
  CHECK(read.layer == 1);
  CHECK(read.position == 10);
  CHECK(read.cacheShare() == Approx(0.25));
  REQUIRE(read.entries.size() == 2);
  CHECK(read.entries[0].position == 4);  // the heavier first
  CHECK(read.entries[0].text == "cd");
  CHECK(read.entries[0].evidence);
  CHECK_FALSE(read.entries[1].evidence);
  CHECK(read.evidence_cached);
  CHECK(read.evidence_weight == Approx(0.75));

  // A diverged run's norm is written as null (nlohmann's NaN) and reads back as NaN.
  nlohmann::json diverged = validMeta();
  diverged["ttt_norm"] = nullptr;
  CHECK(std::isnan(analysis::cacheReads(cacheReadRun(diverged.dump()))[0].ttt_norm));
  // Sessions written before the entries' texts were kept have none.
  nlohmann::json older = validMeta();
  older.erase("cached_text");
  CHECK(analysis::cacheReads(cacheReadRun(older.dump()))[0].entries[0].text.empty());
}

TEST_CASE("a damaged cache_read artifact is refused naming its field", "[analysis][routing]") {
  const auto damaged = [](const std::string& key, const nlohmann::json& value) {
    nlohmann::json meta = validMeta();
    if (value.is_discarded()) {
      meta.erase(key);
    } else {
      meta[key] = value;
    }
    return cacheReadRun(meta.dump());
  };
  const nlohmann::json missing = nlohmann::json::value_t::discarded;
  using Catch::Contains;
  CHECK_THROWS_WITH(analysis::cacheReads(damaged("layer", "x")),
                    Contains("run 4") && Contains("cache_read.meta.layer: must be an integer"));
  CHECK_THROWS_WITH(analysis::cacheReads(damaged("alpha", missing)),
                    Contains("cache_read.meta.alpha: is missing"));
  CHECK_THROWS_WITH(analysis::cacheReads(damaged("cached", {3, "4"})),
                    Contains("cache_read.meta.cached[1]: must be an integer"));
  // A number the field's integer type cannot hold is refused, not narrowed (before, a layer of
  // 1e10 read as 1410065408, and 2^64 - 1 as a position of -1).
  CHECK_THROWS_WITH(analysis::cacheReads(damaged("layer", 10000000000LL)),
                    Contains("cache_read.meta.layer: is 10000000000, outside [-2147483648, "
                             "2147483647]"));
  CHECK_THROWS_WITH(analysis::cacheReads(damaged("position", 18446744073709551615ULL)),
                    Contains("cache_read.meta.position: is 18446744073709551615, outside"));
  CHECK_THROWS_WITH(analysis::cacheReads(damaged("cached", {3, 18446744073709551615ULL})),
                    Contains("cache_read.meta.cached[1]: is 18446744073709551615, outside"));
  CHECK_THROWS_WITH(analysis::cacheReads(damaged("cached", 3)),
                    Contains("cache_read.meta.cached: must be an array"));
  CHECK_THROWS_WITH(analysis::cacheReads(damaged("cached_bytes", {{0, 2}})),
                    Contains("cache_read.meta.cached_bytes: must hold 2 elements, not 1"));
  CHECK_THROWS_WITH(analysis::cacheReads(damaged("cached_bytes", {{0, 2}, {2}})),
                    Contains("cache_read.meta.cached_bytes[1]: must hold 2 elements"));
  CHECK_THROWS_WITH(analysis::cacheReads(damaged("cached_text", {"ab", 7})),
                    Contains("cache_read.meta.cached_text[1]: must be a string"));
  CHECK_THROWS_WITH(analysis::cacheReads(cacheReadRun("[1, 2]")),
                    Contains("cache_read.meta: must be a JSON object"));
  CHECK_THROWS_WITH(analysis::cacheReads(cacheReadRun(validMeta().dump(), {0.25f, 0.5f, 0.25f})),
                    Contains("cache_read.data: must hold one weight per cached position, [2]"));
}
