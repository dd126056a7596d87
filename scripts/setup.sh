#!/usr/bin/env bash
# Installs what vlbench needs to build and is missing; safe to run again (it skips what is there).
#   Debian packages: cmake, ninja, nlohmann-json3-dev, libcli11-dev, libfmt-dev, catch2
#   CUTLASS/CuTe headers: the PyPI wheel nvidia-cutlass==$CUTLASS_VERSION, fetched without its Python
#   dependencies and unpacked into third_party/cutlass-$CUTLASS_VERSION (skipped when CUTLASS_DIR is set).
# The CUDA 13 toolkit (nvcc, cuBLAS, CUPTI) must already be installed: it is checked, not installed.
set -euo pipefail

CUTLASS_VERSION="${CUTLASS_VERSION:-4.2.0.0}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fail() { echo "setup.sh: $*" >&2; exit 1; }

check_cuda_toolkit() {
  command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
  command -v nvcc >/dev/null || fail "nvcc not found (looked on PATH and in /usr/local/cuda/bin): install the CUDA 13 toolkit"
  local release
  release="$(nvcc --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')"
  [ "${release:-0}" -ge 13 ] || fail "nvcc is CUDA ${release:-unknown}; vlbench needs CUDA 13 or newer"
}

install_debian_packages() {
  local wanted=(cmake ninja-build nlohmann-json3-dev libcli11-dev libfmt-dev catch2) missing=()
  for package in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || fail "missing packages ${missing[*]} and no apt-get to install them: install them by hand"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup.sh: installing ${missing[*]}"
  $sudo apt-get update -qq || fail "apt-get update failed: check the network or your package sources"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null \
    || fail "apt-get could not install: ${missing[*]}"
}

fetch_cutlass_headers() {
  if [ -n "${CUTLASS_DIR:-}" ]; then
    [ -f "$CUTLASS_DIR/include/cutlass/cutlass.h" ] || fail "CUTLASS_DIR=$CUTLASS_DIR holds no include/cutlass/cutlass.h"
    return 0
  fi
  local target="$repo_root/third_party/cutlass-$CUTLASS_VERSION"
  [ -f "$target/include/cutlass/cutlass.h" ] && return 0
  local python
  python="$(command -v python3 || true)"
  [ -n "$python" ] || fail "python3 not found: it is needed to fetch the nvidia-cutlass wheel"
  local download
  download="$(mktemp -d)"
  trap 'rm -rf "$download"' RETURN
  echo "setup.sh: fetching nvidia-cutlass==$CUTLASS_VERSION (headers only, no Python dependencies)"
  "$python" -m pip download --quiet --no-deps --only-binary=:all: "nvidia-cutlass==$CUTLASS_VERSION" -d "$download" \
    || fail "pip could not download nvidia-cutlass==$CUTLASS_VERSION: check the network, or set CUTLASS_DIR"
  local staging="$download/unpacked"
  "$python" -m zipfile -e "$download"/nvidia_cutlass-*.whl "$staging" \
    || fail "could not unpack the nvidia-cutlass wheel"
  local source_dir="$staging/cutlass_library/source"
  [ -f "$source_dir/include/cutlass/cutlass.h" ] || fail "the nvidia-cutlass wheel holds no cutlass_library/source/include"
  mkdir -p "$target.partial"
  cp -r "$source_dir/include" "$source_dir/tools" "$source_dir/examples" "$target.partial/"
  rm -rf "$target" && mv "$target.partial" "$target"
  echo "setup.sh: CUTLASS headers in $target"
}

check_cuda_toolkit
install_debian_packages
fetch_cutlass_headers
echo "setup.sh: ready"
