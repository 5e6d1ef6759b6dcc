#pragma once
// An environment variable set for a scope (a kernel switch such as STUDIO_DECODE_GEMV=fused) and
// unset at its end, also when a failed REQUIRE leaves the scope early, so that no later test runs
// with it.

#include <cstdlib>
#include <string>

namespace studio::test {

class ScopedEnvironment {
 public:
  ScopedEnvironment(std::string name, const std::string& value) : m_name(std::move(name)) {
    setenv(m_name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnvironment() { unsetenv(m_name.c_str()); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::string m_name;
};

}  // namespace studio::test
