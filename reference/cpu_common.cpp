#include "reference/cpu_common.hpp"

#include "reference/cpu_parallel.hpp"

namespace vlb::reference::cpu {

std::vector<float> to_float(std::span<const bf16> values) {
  std::vector<float> result(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) result[i] = __bfloat162float(values[i]);
  return result;
}

namespace {
// Four partial sums break the dependency chain so that the loop runs at a useful speed.
template <class X>
double dot(const X* x, const float* w, std::int64_t n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  std::int64_t k = 0;
  for (; k + 4 <= n; k += 4) {
    s0 += static_cast<double>(x[k]) * w[k];
    s1 += static_cast<double>(x[k + 1]) * w[k + 1];
    s2 += static_cast<double>(x[k + 2]) * w[k + 2];
    s3 += static_cast<double>(x[k + 3]) * w[k + 3];
  }
  for (; k < n; ++k) s0 += static_cast<double>(x[k]) * w[k];
  return (s0 + s1) + (s2 + s3);
}

template <class X>
std::vector<double> linear(const std::vector<X>& x, std::int64_t rows, const std::vector<float>& w,
                           std::int64_t out_dim, std::int64_t in_dim) {
  std::vector<double> y(static_cast<std::size_t>(rows * out_dim));
  parallel_for(rows * out_dim, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t index = begin; index < end; ++index) {
      const std::int64_t r = index / out_dim, o = index % out_dim;
      y[static_cast<std::size_t>(index)] = dot(x.data() + r * in_dim, w.data() + o * in_dim, in_dim);
    }
  });
  return y;
}
}  // namespace

std::vector<double> linear_double(const std::vector<float>& x, std::int64_t rows, const std::vector<float>& w,
                                  std::int64_t out_dim, std::int64_t in_dim) {
  return linear(x, rows, w, out_dim, in_dim);
}

std::vector<double> linear_double(const std::vector<double>& x, std::int64_t rows, const std::vector<float>& w,
                                  std::int64_t out_dim, std::int64_t in_dim) {
  return linear(x, rows, w, out_dim, in_dim);
}

float round_to_bf16(double value) { return __bfloat162float(__float2bfloat16_rn(static_cast<float>(value))); }

}  // namespace vlb::reference::cpu
