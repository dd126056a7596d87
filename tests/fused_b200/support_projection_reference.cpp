#include "support_projection_reference.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "harness/core/cuda_check.hpp"

namespace vlb::fused_b200::testing {
namespace {

constexpr std::int64_t kHead = 128;

// docs/operation.md step 2/3: rotate-half inside [start, start + width) with inv_freq = 10000^(-2i/width).
void rotate_section(const std::vector<double>& in, std::vector<double>& out, std::int64_t head0, std::int64_t start,
                    std::int64_t width, double position) {
  const std::int64_t half = width / 2;
  for (std::int64_t i = 0; i < half; ++i) {
    const double angle = position * std::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(width));
    const double c = std::cos(angle);
    const double s = std::sin(angle);
    const double x1 = in[head0 + start + i];
    const double x2 = in[head0 + start + i + half];
    out[head0 + start + i] = x1 * c - x2 * s;
    out[head0 + start + i + half] = x2 * c + x1 * s;
  }
}

}  // namespace

std::vector<double> reference_rows(const ReferenceProjection& p, std::span<const std::int64_t> rows) {
  std::vector<double> result(rows.size() * p.out_features);
  std::vector<double> weight(p.weight.size());
  for (std::size_t i = 0; i < weight.size(); ++i) weight[i] = __bfloat162float(p.weight[i]);
  std::vector<double> activation(p.in_features);
  std::vector<double> projected(p.out_features);
  std::vector<double> rotated(p.out_features);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::int64_t row = rows[r];
    for (std::int64_t k = 0; k < p.in_features; ++k) {
      activation[k] = __bfloat162float(p.activations[row * p.in_features + k]);
    }
    for (std::int64_t n = 0; n < p.out_features; ++n) {
      const double* w = weight.data() + n * p.in_features;
      double sum = 0.0;
      for (std::int64_t k = 0; k < p.in_features; ++k) sum += activation[k] * w[k];
      projected[n] = sum + (p.bias.empty() ? 0.0 : static_cast<double>(__bfloat162float(p.bias[n])));
    }
    rotated = projected;
    for (std::int64_t head0 = 0; head0 < p.out_features; head0 += kHead) {
      if (p.rope == ReferenceRope::kLanguage) {
        rotate_section(projected, rotated, head0, 0, kHead, static_cast<double>(p.positions[row]));
      } else if (p.rope == ReferenceRope::kVision) {
        rotate_section(projected, rotated, head0, 0, 42, static_cast<double>(p.positions[row * 3 + 0]));
        rotate_section(projected, rotated, head0, 42, 42, static_cast<double>(p.positions[row * 3 + 1]));
        rotate_section(projected, rotated, head0, 84, 44, static_cast<double>(p.positions[row * 3 + 2]));
      }
    }
    for (std::int64_t n = 0; n < p.out_features; ++n) result[r * p.out_features + n] = rotated[n] * p.scale;
  }
  return result;
}

std::vector<std::int64_t> rows_to_check(std::int64_t rows, std::uint64_t seed) {
  constexpr std::int64_t kAllRowsUpTo = 48;
  std::vector<std::int64_t> chosen;
  if (rows <= kAllRowsUpTo) {
    for (std::int64_t r = 0; r < rows; ++r) chosen.push_back(r);
    return chosen;
  }
  const std::int64_t last_tile_start = ((rows - 1) / 128) * 128;
  for (std::int64_t r : {std::int64_t{0}, std::int64_t{1}, std::int64_t{63}, std::int64_t{64}, last_tile_start,
                         rows - 2, rows - 1}) {
    if (r >= 0 && r < rows) chosen.push_back(r);
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> pick(0, rows - 1);
  while (chosen.size() < 24) chosen.push_back(pick(rng));
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  return chosen;
}

std::vector<__nv_bfloat16> download_rows(const __nv_bfloat16* device_output, std::int64_t ld,
                                         std::span<const std::int64_t> rows, std::int64_t columns) {
  std::vector<__nv_bfloat16> host(rows.size() * columns);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    VLB_CUDA_CHECK(cudaMemcpy(host.data() + r * columns, device_output + rows[r] * ld,
                              columns * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  }
  return host;
}

RowCheck check_rows(std::span<const __nv_bfloat16> output, std::span<const double> reference,
                    std::span<const std::int64_t> rows, std::int64_t columns, double atol, double rtol) {
  RowCheck check;
  double worst_excess = -1.0;
  for (std::size_t i = 0; i < output.size(); ++i) {
    const double out = __bfloat162float(output[i]);
    const double ref = reference[i];
    const double error = std::fabs(out - ref);
    const double allowed = atol + rtol * std::fabs(ref);
    ++check.elements;
    const bool pass = std::isfinite(out) && error <= allowed;
    if (!pass) ++check.failed;
    if (std::isfinite(out)) check.max_abs_error = std::max(check.max_abs_error, error);
    const double excess = std::isfinite(out) ? error - allowed : 1e30;
    if (excess > worst_excess) {
      worst_excess = excess;
      std::ostringstream text;
      text << "row " << rows[i / columns] << " col " << (i % columns) << ": out " << out << " ref " << ref;
      check.worst = text.str();
    }
  }
  return check;
}

}  // namespace vlb::fused_b200::testing
