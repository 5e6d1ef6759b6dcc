#pragma once
// Shared pieces of the session tests: temporary folders, file bytes, sample specs and events,
// and a text form of events that compares NaN and infinities exactly.

#include <cstdint>
#include <string>
#include <vector>

#include "core/engine/events.h"
#include "core/engine/run_spec.h"
#include "support/temp_dir.h"

namespace studio::sessions::testing {

using studio::test::TempDir;

std::string readBytes(const std::string& path);
void writeBytes(const std::string& path, const std::string& bytes);
bool fileExists(const std::string& path);
// Copies tests/fixtures/sessions/<name> into `dir`; returns the copy's path.
std::string copyFixture(const std::string& name, const TempDir& dir);

engine::RunSpec sampleSpec(const std::string& method, const std::string& document_text);

// One event of every kind, with values that are easy to get wrong: NaN, ±inf, empty vectors,
// multi-byte UTF-8, an incomplete UTF-8 piece, a quote and a comma.
std::vector<engine::Event> oneEventOfEachKind();

// Every field of the event, numbers in shortest round-trip form ("nan", "-inf" included).
std::string describe(const engine::Event& event);

// The i-th event of the deterministic stream the writer tests append: step metrics and tokens
// alternating, a probe every 50th.
engine::Event streamEvent(std::int64_t i);

// Runs `sql` on a connection of its own (not a SessionStore) and returns the first column of the
// first row as text ("" when none).
std::string rawQuery(const std::string& path, const std::string& sql);

}  // namespace studio::sessions::testing
