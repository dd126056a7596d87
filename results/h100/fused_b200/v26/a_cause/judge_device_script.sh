#!/usr/bin/env bash
# Whether the few-key margin misses of part 3's fresh-seed shapes are v24's too (base binary) or the integration's.
set -u
mkdir -p /tmp/b && tar -xJf .carry/bins.tar.xz -C /tmp/b
mkdir -p /tmp/b/base_tree/solution_modules
cp /tmp/b/c/vlbench /tmp/b/c/vlbench-worker /tmp/b/base_tree/
cp /tmp/b/c/solution_modules/*.so /tmp/b/base_tree/solution_modules/
cp /tmp/b/base/vlbench_solution_fused_b200.so /tmp/b/base_tree/solution_modules/
[ -d /tmp/b/c/python_worker ] && cp -r /tmp/b/c/python_worker /tmp/b/base_tree/
L="$OUT/shapes"; mkdir -p "$L"
S="--shape 48x114x51 --shape 2x3x24 --shape 13x1012x16 --shape 7x2x8 --shape 2x128x196"
for t in base new base new; do
  b=/tmp/b/c; [ $t = base ] && b=/tmp/b/base_tree
  $b/vlbench -s fused_b200 --check-only --rounds 3 $S --json "$L/$t.json" > "$L/$t.log" 2>&1; echo "$t rc=$?"
  python3 -c "
import json,sys
d=json.load(open('$L/$t.json'))
for c in d['cases']:
  s=c['shape']; print('$t', s['batch_size'],s['lang_seq_len'],s['vision_seq_len'], c['status'], ' '.join('%.4f'%(100*r['stats']['matched_ratio']) for r in c['correctness']))
" | tee -a "$L/matched.txt"
done
cd "$OUT" && tar -czf shapes.tgz shapes && rm -rf shapes
