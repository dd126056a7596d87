#!/usr/bin/env bash
# Installs what the tests need beyond the build: Debian's slurm-wlm (slurmctld, slurmd, the client commands and munge),
# for the test that runs scripts/slurm/ on a single-node Slurm it starts on localhost (tests/slurm/). Safe to run again
# (it skips what is there). Without it that test reports SKIPPED with the reason; nothing else needs it.
# The packages' own services stay idle: they start only with /etc/slurm/slurm.conf, which this script does not write;
# the test runs its own daemons with a private configuration and stops them.
set -euo pipefail

case "${1:-}" in
  -h|--help)
    sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    echo "usage: scripts/setup_test_tools.sh"
    exit 0 ;;
  "") ;;
  *) echo "setup_test_tools.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

fail() { echo "setup_test_tools.sh: $*" >&2; exit 1; }

wanted=(slurm-wlm)
missing=()
for package in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || fail "missing packages ${missing[*]} and no apt-get to install them: install them by hand"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup_test_tools.sh: installing ${missing[*]}"
  $sudo apt-get update -qq || fail "apt-get update failed: check the network or your package sources"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || fail "apt-get could not install: ${missing[*]}"
fi
echo "setup_test_tools.sh: ready"
