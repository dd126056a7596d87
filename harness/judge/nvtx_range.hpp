#pragma once
// An NVTX range around a stretch of work, when the plan asks for them (`vlbench profile`: the profiler captures the
// range "vlbench: timed call"); no NVTX call at all otherwise. NVTX 3 is header-only: nothing to link.
#include <nvtx3/nvToolsExt.h>

namespace vlb {

class NvtxRange {
 public:
  NvtxRange(bool enabled, const char* name) : enabled_(enabled) {
    if (enabled_) nvtxRangePushA(name);
  }
  ~NvtxRange() {
    if (enabled_) nvtxRangePop();
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  bool enabled_;
};

}  // namespace vlb
