#!/bin/bash
# Run 60: the CBT reduction, prev = a7b4edc, new = the shared path's per-thread items in a vector
# (an array indexed by loop counters may go to local memory); then with new alone: shift-and
# keeping positions (the default capacity), shift-and on 250 patterns of several modules (33-120
# states, drawn here by python), and the peers' shift-and row (.devmain/peers.xz, the peers
# example of the same tree).
bash docs/benchmarks/2026-11-27-h100/kernels.sh run60 cbt > /dev/null
xz -dc .devmain/peers.xz > /tmp/peers; chmod +x /tmp/peers
J=/tmp/json
{
A="--text-bytes 67108864 --iterations 5 --seed 1"
echo "== new shift-and 1000 patterns x 64 MiB, positions kept to the default capacity"
timeout 200 /tmp/new kernel shift-and --count 1000 --max-states 32 $A --json $J/new-shift-and-positions.json 2>&1 | grep -v XDG | tail -3
python3 - <<'PY'
import random
random.seed(1)
L = "abcdefghijklmnopqrstuvwxyz"
with open("/tmp/text.txt", "wb") as f:
    f.write(bytes(random.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(1 << 26)))
with open("/tmp/long-patterns.txt", "w") as f:
    for _ in range(250):
        n = random.randint(33, 120)
        p = []
        while len(p) < n:
            r = random.random()
            p.append("." if r < 0.1 else "[" + "".join(sorted(random.sample(L, 2))) + "]" if r < 0.3 else random.choice(L) + ("?" if random.random() < 0.1 else ""))
        f.write("".join(p) + "\n")
PY
echo "== new shift-and, 250 patterns of several modules x 64 MiB, count only"
timeout 300 /tmp/new kernel shift-and --patterns /tmp/long-patterns.txt --text /tmp/text.txt --iterations 5 --count-only --json $J/new-shift-and-modules.json 2>&1 | grep -v XDG | tail -3
echo "== peers, shift-and"
timeout 300 /tmp/peers --only shift-and --json $J/peers-shift-and.json 2>&1 | grep -v XDG | tail -12
} >> $OUT/run60-log.txt 2>&1
tar -czf $OUT/run60-json.tar.gz -C $J .
tail -c 9000 $OUT/run60-log.txt
