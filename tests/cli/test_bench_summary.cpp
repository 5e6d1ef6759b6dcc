// scripts/bench-summary on a folder shaped as scripts/gpu-check writes one: the bench rows of every
// phase log (JSON lines and indented JSON among other output) in one table per bench, each row
// with its phase and the kernel switches it ran under ("—" where its provenance predates them);
// text that is not JSON is skipped, and a folder that does not exist is refused by name.

#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "support/run_cli.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"

using studio::test::runCommand;

namespace {

std::string summaryCommand(const std::string& folder) {
  return std::string("python3 '") + studio::test_paths::kSourceDir + "/scripts/bench-summary' '" +
         folder + "'";
}

}  // namespace

TEST_CASE("bench-summary tables every phase's bench rows with their switches", "[cli][trace]") {
  studio::test::TempDir dir("bench-summary");
  { std::ofstream(dir.file("phases.txt")) << "card: NVIDIA H200\nbench-decode-1.7b-flash rc=0 4s\n"; }
  {
    std::ofstream(dir.file("bench-decode-1.7b-flash.log"))
        << "decode: loading the model\n"
        << R"({"bench":"decode","model":"random 1.7b","tokens":8192,"decode_tokens_per_s":301.25,)"
        << R"("bandwidth_fraction":0.275,"decode_replayed_steps":32,"decode_path":"cuda graph, )"
        << R"(attention: flash","provenance":{"kernel_switches":{"STUDIO_DECODE_ATTENTION":"flash"}}})"
        << "\n"
        << R"({"bench":"decode","model":"random 1.7b","tokens":32768,"decode_tokens_per_s":240.0,)"
        << R"("bandwidth_fraction":0.36,"decode_replayed_steps":32,"decode_path":"cuda graph, )"
        << R"(attention: flash","provenance":{"kernel_switches":{}}})" << "\n";
  }
  {
    std::ofstream(dir.file("bench-qttt-1.7b.log"))
        << "{\n  \"lengths\": [\n    {\n      \"context\": 32768,\n"
        << "      \"qttt_step_seconds\": 0.0123,\n      \"step_over_prefill\": 0.03\n    }\n  ],\n"
        << "  \"model\": \"random 1.7b\",\n  \"provenance\": {\"kernel_switches\": "
        << "{\"STUDIO_QTTT_GRAPH\": \"on\"}}\n}\n";
  }
  {
    std::ofstream(dir.file("bench-prefill.log"))
        << R"({"bench":"prefill","model":"random 1.7b","tokens":32768,"prefill_seconds":0.408,)"
        << R"("mfu":0.534,"provenance":{"commit":"abc"}})" << "\n";
  }
  {
    std::ofstream(dir.file("bench-attention.log"))
        << R"({"tokens":8209,"decode_path":"kernel","decode_attention_s":4.1e-05,)"
        << R"("decode_cache_gbps":819.6,"decode_split_keys":128,"decode_flash_s":3.0e-05,)"
        << R"("decode_attention_by_split_s":{"64":3.5e-05,"128":4.1e-05,"256":4.4e-05,)"
        << R"("512":5.0e-05,"1024":6.25e-05}})"
        << "\n"
        << R"({"tokens":64,"decode_path":"chunked","decode_attention_s":6e-05})"
        << "\n";
    // Another run that timed other sizes: a column for each size any row has, "—" where a row
    // lacks it.
    std::ofstream(dir.file("bench-attention-wide.log"))
        << R"({"tokens":32785,"decode_split_keys":512,"decode_cache_gbps":1500.4,)"
        << R"("decode_attention_by_split_s":{"2048":9.0e-05,"64":1.2e-04}})"
        << "\n";
  }
  { std::ofstream(dir.file("hf-check.log")) << "{ not json\n[1, 2]\nall architectures pass\n"; }

  const auto run = runCommand(summaryCommand(dir.str()));
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("bench-decode-1.7b-flash rc=0 4s") != std::string::npos);
  CHECK(run.out.find("| bench-decode-1.7b-flash | random 1.7b | 8192 | 301.2 | 27.5 % | 32 | "
                     "cuda graph, attention: flash | STUDIO_DECODE_ATTENTION=flash |") !=
        std::string::npos);
  CHECK(run.out.find("| bench-decode-1.7b-flash | random 1.7b | 32768 | 240.0 | 36.0 % | 32 | "
                     "cuda graph, attention: flash | defaults |") != std::string::npos);
  CHECK(run.out.find("| bench-qttt-1.7b | random 1.7b | 32768 | 12.3 | 3.0 % | "
                     "STUDIO_QTTT_GRAPH=on |") != std::string::npos);
  CHECK(run.out.find("| bench-prefill | random 1.7b | 32768 | 0.408 | 53.4 % | — |") !=
        std::string::npos);
  // The decode kernel's split sizes; a CPU row (no splits) is not tabled.
  CHECK(
      run.out.find("| phase | context | rule's split | 64 keys | 128 keys | 256 keys | 512 keys | "
                   "1024 keys | 2048 keys | flash | rule's GB/s |") != std::string::npos);
  CHECK(run.out.find("| bench-attention | 8209 | 128 | 35.0 | 41.0 | 44.0 | 50.0 | 62.5 | — | "
                     "30.0 | 820 |") != std::string::npos);
  CHECK(run.out.find("| bench-attention-wide | 32785 | 512 | 120.0 | — | — | — | — | 90.0 | — | "
                     "1500 |") != std::string::npos);
  CHECK(run.out.find("| bench-attention | 64 |") == std::string::npos);
  CHECK(run.out.find("hf-check") == std::string::npos);  // no bench rows there

  const std::string missing = dir.file("no-such-run");
  const auto bad = runCommand(summaryCommand(missing));
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find(missing + ": not a folder of gpu-check results") != std::string::npos);
}
