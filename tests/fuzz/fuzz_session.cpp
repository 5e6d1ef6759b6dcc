// A session file someone hands the studio: opened read-only (the check, the schema, migration
// of older files into memory), every run listed and read back, a document comparison, and the
// JSON and CSV exports. Damaged, foreign and newer files must be refused with the file named.

#include <filesystem>

#include "core/common/error.h"
#include "fuzz_support.h"
#include "sessions/session_export.h"
#include "sessions/session_reader.h"
#include "sessions/session_store.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  const fuzz::InputFile file(fuzz::asText(data, size), "session.sqlite");
  const std::string folder = std::filesystem::path(file.path()).parent_path().string();
  try {
    sessions::OpenOptions options;
    options.access = sessions::OpenOptions::Access::ReadOnly;
    const sessions::SessionStore store(file.path(), options);
    const sessions::SessionReader reader(store);
    int read = 0;
    for (const sessions::RunSummary& run : reader.listRuns()) {
      if (++read > 8) break;  // bounds the work per input
      reader.loadSpec(run.id);
      reader.loadResult(run.id);
      reader.loadEvents(run.id);
      reader.eventCounts(run.id);
    }
    for (const sessions::DocumentInfo& document : reader.listDocuments()) {
      reader.compareDocumentRuns(document.id);
      break;
    }
    reader.listModels();
    sessions::exportSessionJson(store, std::nullopt, folder + "/out.json");
    sessions::exportSessionCsv(store, std::nullopt, folder + "/out.csv");
  } catch (const Error&) {
  }
  return 0;
}
