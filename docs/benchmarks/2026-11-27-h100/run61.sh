#!/bin/bash
# Run 61: shift-and on patterns of several modules, prev = run 60's new (a workgroup of 8 units x
# 8 modules, two barriers per byte), new = a unit's words in one thread's registers. The 250
# patterns (33-120 states) are drawn by python with run 60's recipe and seed, but after a text from
# os.urandom (run 60 drew its text from the same generator first), so they are not run 60's; the text is 64 MiB
# of random letters. Then new on run 59's one-module workload (count only), unchanged code there.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
python3 - <<'PY'
import os, random
random.seed(1)
L = "abcdefghijklmnopqrstuvwxyz"
table = bytes(L.encode()[b % 26] for b in range(256))
with open("/tmp/text.txt", "wb") as f:
    f.write(os.urandom(1 << 26).translate(table))
with open("/tmp/long-patterns.txt", "w") as f:
    for _ in range(250):
        n = random.randint(33, 120)
        p = []
        while len(p) < n:
            r = random.random()
            p.append("." if r < 0.1 else "[" + "".join(sorted(random.sample(L, 2))) + "]" if r < 0.3 else random.choice(L) + ("?" if random.random() < 0.1 else ""))
        f.write("".join(p) + "\n")
PY
for b in prev new; do
  echo "== $b shift-and, 250 patterns of several modules x 64 MiB, count only"
  timeout 200 /tmp/$b kernel shift-and --patterns /tmp/long-patterns.txt --text /tmp/text.txt --iterations 5 --count-only --json $J/$b-shift-and-modules.json 2>&1 | grep -v XDG | tail -3
done
echo "== new shift-and 1000 patterns x 64 MiB, count only"
timeout 200 /tmp/new kernel shift-and --count 1000 --max-states 32 --text-bytes 67108864 --iterations 5 --seed 1 --count-only --json $J/new-shift-and.json 2>&1 | grep -v XDG | tail -3
} > $OUT/run61-log.txt 2>&1
tar -czf $OUT/run61-json.tar.gz -C $J .
tail -c 6000 $OUT/run61-log.txt
