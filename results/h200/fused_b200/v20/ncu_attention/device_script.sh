#!/bin/bash
set -uo pipefail
o=/tmp/o; rm -rf $o /tmp/bins; mkdir -p $o /tmp/bins
root=$(pwd); export VLBENCH_WORKLOADS_DIR="$root/workloads"
tar xJf .carry/bins_ncu.tar.xz -C /tmp/bins
mkdir -p build-90 && cp -r /tmp/bins/new/. build-90/
save() { tar czf $OUT/run.tgz -C $o .; }
which ncu; ncu --version | tail -1
for c in 8 7; do
  echo "== profile $c $(date +%T)"
  timeout 200 ./build-90/vlbench profile -s fused_b200 -c $c --tool ncu --set full -o $o/case$c > $o/profile_$c.txt 2>&1; echo "rc=$?"; tail -12 $o/profile_$c.txt
  rep=$(ls $o/case$c*.ncu-rep 2>/dev/null | head -1)
  if [ -n "$rep" ]; then
    ncu --import $rep --page details --print-units base > $o/details_$c.txt 2>&1
    ncu --import $rep --page source --csv --print-source sass --kernel-name regex:attention > $o/sass_$c.csv 2>&1
    gzip -f $o/sass_$c.csv; rm -f $rep
  fi
  save
done
echo "== suite $(date +%T)"
timeout 100 ./build-90/vlbench --suite all --solution fused_b200 --json $o/suite_head.json > $o/suite_head.txt 2>&1; echo "rc=$? $(grep 'mean latency' $o/suite_head.txt)"
save
echo "== done $(date +%T)"
