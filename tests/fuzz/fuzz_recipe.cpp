// A training recipe (`studio-cli train --recipe FILE`).

#include "core/common/error.h"
#include "core/train/train_recipe.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace studio;
  const fuzz::InputFile file(fuzz::asText(data, size), "recipe.json");
  try {
    train::loadRecipe(file.path());
  } catch (const Error&) {
  }
  return 0;
}
