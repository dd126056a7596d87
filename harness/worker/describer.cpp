// vlbench-worker --describe: the solution modules' descriptions for the catalog (plan/solution_catalog.hpp), read
// inside the sandbox, since loading a module runs its static initializers.
#include <unistd.h>

#include <cstdio>

#include "harness/isolation/sandbox.hpp"
#include "harness/solution/solution_module.hpp"
#include "harness/worker/worker_session.hpp"

namespace vlb {

int describe_modules(const std::filesystem::path& scratch, const std::vector<std::filesystem::path>& modules) {
  enter_sandbox({scratch, {}, STDERR_FILENO});  // a refused call is reported on the describer's log
  nlohmann::json described = nlohmann::json::array();
  for (const std::filesystem::path& path : modules) {
    nlohmann::json entry = {{"module", path.string()}, {"description", nullptr}, {"error", nullptr}};
    try {
      entry["description"] = write_json(SolutionModule::open(path)->describe());
    } catch (const std::exception& error) {
      entry["error"] = error.what();
    }
    described.push_back(std::move(entry));
  }
  const std::string text = described.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace vlb
