#pragma once
// The leaderboard's timer: CUPTI activity records of the GPU work that one measured call launched (kernels, memcpys
// and memsets, on every stream), attributed to the call by the correlation ids of the runtime and driver API calls
// made between open_call() and close_call(). Work launched outside a window (the L2 flush, the clock probe, the
// preparation) is never attributed. CUPTI allows one subscriber per process: one recorder at a time.
#include <array>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace vlb {

// One record of GPU work of a call: a kernel (its launch configuration), a memcpy or a memset.
struct ActivityRecord {
  std::string name;                // the kernel's (mangled) name, "[memcpy]", "[memset]"
  std::string display_name;        // its short form where the full name is not at hand (empty: made from `name`)
  std::uint64_t start_ns = 0, end_ns = 0;
  std::array<int, 3> grid{0, 0, 0};
  std::array<int, 3> block{0, 0, 0};
  bool operator==(const ActivityRecord&) const = default;
};

struct CallActivity {
  std::uint64_t first_start_ns = 0;  // CUPTI clock (the clock of cuptiGetTimestamp)
  std::uint64_t last_end_ns = 0;
  int record_count = 0;              // kernels, memcpys and memsets of the call
  std::set<std::string> names;       // kernel names (as CUPTI reports them), "[memcpy]", "[memset]"
  std::string last_ending_name;      // the record that ended last (for violation messages)
  std::vector<ActivityRecord> records;  // every record, in the order CUPTI delivered them

  double span_ms() const { return record_count > 0 ? static_cast<double>(last_end_ns - first_start_ns) * 1e-6 : 0.0; }
};

class CuptiSpanRecorder {
 public:
  // Starts tracing. Returns nullptr and sets `why_unavailable` where CUPTI cannot trace here (no CUPTI support for the
  // device, another profiler already subscribed, another recorder alive).
  static std::unique_ptr<CuptiSpanRecorder> start(std::string& why_unavailable);
  ~CuptiSpanRecorder();
  CuptiSpanRecorder(const CuptiSpanRecorder&) = delete;
  CuptiSpanRecorder& operator=(const CuptiSpanRecorder&) = delete;

  // API calls from open_call() to close_call() belong to one call; returns its index for collect_call().
  int open_call();
  void close_call();
  // Now, on the clock of the activity records.
  std::uint64_t now_ns() const;
  // Delivers every record that CUPTI holds; call after the device has synchronized, before reading activities.
  void flush();
  // The activity of call `index`, as of the last flush.
  CallActivity call_activity(int index) const;

  struct State;  // shared with CUPTI's C callbacks

 private:
  CuptiSpanRecorder() = default;
  void* subscriber_ = nullptr;
};

}  // namespace vlb
