#include "harness/timing/cupti_span.hpp"

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "harness/core/errors.hpp"

namespace vlb {

struct CuptiSpanRecorder::State {
  std::mutex mutex;
  bool active = false;
  std::atomic<int> open_call{-1};
  std::unordered_map<std::uint32_t, int> call_of_correlation;
  std::vector<CallActivity> calls;
  std::vector<uint8_t*> spare_buffers;  // returned buffers, reused: a fresh allocation per flush costs page faults
};

namespace {

using State = CuptiSpanRecorder::State;

constexpr std::size_t kActivityBufferBytes = 8u << 20;
constexpr std::size_t kActivityBufferAlignment = 8;
constexpr CUpti_ActivityKind kTracedKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                               CUPTI_ACTIVITY_KIND_MEMSET};

// Never destroyed: CUPTI may still deliver a buffer while the process exits.
State& state() {
  static State* const shared = new State();
  return *shared;
}

std::string cupti_result_text(CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) return fmt::format("CUPTI error {}", static_cast<int>(result));
  return text;
}

void CUPTIAPI on_api_call(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId /*cbid*/,
                          const void* callback_data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  State& shared = state();
  const int call = shared.open_call.load(std::memory_order_acquire);
  if (call < 0) return;
  const auto* data = static_cast<const CUpti_CallbackData*>(callback_data);
  if (data->callbackSite != CUPTI_API_ENTER) return;
  const std::lock_guard lock(shared.mutex);
  shared.call_of_correlation.emplace(data->correlationId, call);
}

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  State& shared = state();
  {
    const std::lock_guard lock(shared.mutex);
    if (!shared.spare_buffers.empty()) {
      *buffer = shared.spare_buffers.back();
      shared.spare_buffers.pop_back();
      *size = kActivityBufferBytes;
      *max_records = 0;
      return;
    }
  }
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kActivityBufferAlignment, kActivityBufferBytes));
  *size = *buffer != nullptr ? kActivityBufferBytes : 0;
  *max_records = 0;
}

// Adds one record of GPU work to the call whose API call launched it (records of no open call are dropped).
void attribute(State& shared, std::uint32_t correlation_id, ActivityRecord record) {
  const auto found = shared.call_of_correlation.find(correlation_id);
  if (found == shared.call_of_correlation.end()) return;
  CallActivity& call = shared.calls.at(static_cast<std::size_t>(found->second));
  if (call.record_count == 0 || record.start_ns < call.first_start_ns) call.first_start_ns = record.start_ns;
  if (call.record_count == 0 || record.end_ns > call.last_end_ns) {
    call.last_end_ns = record.end_ns;
    call.last_ending_name = record.name;
  }
  ++call.record_count;
  call.names.insert(record.name);
  call.records.push_back(std::move(record));
}

void CUPTIAPI on_buffer_completed(CUcontext /*context*/, uint32_t /*stream_id*/, uint8_t* buffer, size_t /*size*/,
                                  size_t valid_size) {
  State& shared = state();
  {
    const std::lock_guard lock(shared.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        attribute(shared, kernel->correlationId,
                  {kernel->name ? kernel->name : "[kernel]", "", kernel->start, kernel->end,
                   {kernel->gridX, kernel->gridY, kernel->gridZ}, {kernel->blockX, kernel->blockY, kernel->blockZ}});
      } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        attribute(shared, copy->correlationId, {"[memcpy]", "", copy->start, copy->end, {}, {}});
      } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
        const auto* set = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        attribute(shared, set->correlationId, {"[memset]", "", set->start, set->end, {}, {}});
      }
    }
    shared.spare_buffers.push_back(buffer);
  }
}

// CUPTI takes the buffer callbacks once per process.
CUptiResult register_buffer_callbacks_once() {
  static const CUptiResult result = cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
  return result;
}

void disable_traced_kinds() {
  for (const CUpti_ActivityKind kind : kTracedKinds) (void)cuptiActivityDisable(kind);
}

}  // namespace

std::unique_ptr<CuptiSpanRecorder> CuptiSpanRecorder::start(std::string& why_unavailable) {
  State& shared = state();
  {
    const std::lock_guard lock(shared.mutex);
    if (shared.active) {
      why_unavailable = "another CUPTI span recorder is already tracing in this process";
      return nullptr;
    }
  }
  if (const CUptiResult result = register_buffer_callbacks_once(); result != CUPTI_SUCCESS) {
    why_unavailable = "cuptiActivityRegisterCallbacks failed: " + cupti_result_text(result);
    return nullptr;
  }
  CUpti_SubscriberHandle subscriber = nullptr;
  if (const CUptiResult result = cuptiSubscribe(&subscriber, on_api_call, nullptr); result != CUPTI_SUCCESS) {
    why_unavailable = "cuptiSubscribe failed: " + cupti_result_text(result) +
                      " (is another profiler, e.g. Nsight Systems or Compute Sanitizer, attached?)";
    return nullptr;
  }
  for (const CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API}) {
    if (const CUptiResult result = cuptiEnableDomain(1, subscriber, domain); result != CUPTI_SUCCESS) {
      (void)cuptiUnsubscribe(subscriber);
      why_unavailable = "cuptiEnableDomain failed: " + cupti_result_text(result);
      return nullptr;
    }
  }
  for (const CUpti_ActivityKind kind : kTracedKinds) {
    if (const CUptiResult result = cuptiActivityEnable(kind); result != CUPTI_SUCCESS) {
      disable_traced_kinds();
      (void)cuptiUnsubscribe(subscriber);
      why_unavailable = fmt::format("cuptiActivityEnable(kind {}) failed: {}", static_cast<int>(kind),
                                    cupti_result_text(result));
      return nullptr;
    }
  }
  std::unique_ptr<CuptiSpanRecorder> recorder(new CuptiSpanRecorder());
  recorder->subscriber_ = subscriber;
  const std::lock_guard lock(shared.mutex);
  shared.active = true;
  shared.open_call.store(-1);
  shared.call_of_correlation.clear();
  shared.calls.clear();
  return recorder;
}

CuptiSpanRecorder::~CuptiSpanRecorder() {
  State& shared = state();
  shared.open_call.store(-1);
  (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  disable_traced_kinds();
  (void)cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(subscriber_));
  const std::lock_guard lock(shared.mutex);
  shared.active = false;
  shared.call_of_correlation.clear();
  shared.calls.clear();
}

int CuptiSpanRecorder::open_call() {
  State& shared = state();
  int index = 0;
  {
    const std::lock_guard lock(shared.mutex);
    shared.calls.emplace_back();
    index = static_cast<int>(shared.calls.size()) - 1;
  }
  shared.open_call.store(index, std::memory_order_release);
  return index;
}

void CuptiSpanRecorder::close_call() { state().open_call.store(-1, std::memory_order_release); }

std::uint64_t CuptiSpanRecorder::now_ns() const {
  std::uint64_t timestamp = 0;
  if (const CUptiResult result = cuptiGetTimestamp(&timestamp); result != CUPTI_SUCCESS) {
    throw SystemError("cuptiGetTimestamp failed: " + cupti_result_text(result));
  }
  return timestamp;
}

void CuptiSpanRecorder::flush() {
  if (const CUptiResult result = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); result != CUPTI_SUCCESS) {
    throw SystemError("cuptiActivityFlushAll failed: " + cupti_result_text(result));
  }
}

CallActivity CuptiSpanRecorder::call_activity(int index) const {
  State& shared = state();
  const std::lock_guard lock(shared.mutex);
  return shared.calls.at(static_cast<std::size_t>(index));
}

}  // namespace vlb
