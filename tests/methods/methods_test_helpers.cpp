#include "methods_test_helpers.h"

#include <unistd.h>

namespace studio::methods_test {

std::filesystem::path tempPath(const std::string& tag) {
  static int counter = 0;
  return std::filesystem::temp_directory_path() /
         ("studio-methods-test-" + tag + "-" + std::to_string(getpid()) + "-" +
          std::to_string(++counter));
}

engine::RunSpec tinySpec(const std::string& model_dir, const std::string& method,
                         nlohmann::json params) {
  engine::RunSpec spec;
  spec.model_path = model_dir;
  spec.document_source = "text";
  spec.document_text = "The code word is K7Q. Remember it well.";
  spec.question = "What is the code word?";
  spec.target_chars = {Span{17, 20}};
  spec.method = method;
  spec.params = std::move(params);
  spec.max_answer_tokens = 4;
  spec.seed = 3;
  return spec;
}

}  // namespace studio::methods_test
