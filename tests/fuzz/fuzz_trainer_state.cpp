// A checkpoint's trainer_state.json (`studio-cli train --resume`, a checkpoint folder carried from
// another machine): refused naming the file and field, or read into a state that prints back into
// one that reads the same.

#include <filesystem>

#include "core/common/error.h"
#include "core/train/train_checkpoint.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  const fuzz::InputFile file(fuzz::asText(data, size), train::kTrainerStateFile);
  try {
    const train::TrainingState state =
        train::readTrainingState(std::filesystem::path(file.path()).parent_path().string());
    const nlohmann::json printed = state.toJson();
    if (train::TrainingState::fromJson(printed, file.path()).toJson() != printed) __builtin_trap();
  } catch (const Error&) {
  }
  return 0;
}
