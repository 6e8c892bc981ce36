#!/bin/bash
# The twelfth session's kernel-lab A/B on the H100 (issue 19): binaries prev and new
# (xz-compressed in .devmain/, carried with the Vulkan loader's packages in .gl/), each kernel
# run by both on the same inputs, prev first. Usage (from the repository root on the device
# machine): bash kernels.sh RUN [KERNELS], KERNELS a comma list of shift-and (default) and cbt;
# the outputs are $OUT/RUN-log.txt and $OUT/RUN-json.tar.gz. Each runNN.sh says what its two
# binaries were.
RUN=$1
KERNELS=${2:-shift-and}
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig
for b in prev new; do xz -dc .devmain/$b.xz > /tmp/$b; chmod +x /tmp/$b; done
J=/tmp/json; mkdir -p $J
{
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
case ",$KERNELS," in *,shift-and,*)
for v in "--count-only" ""; do
  for b in prev new; do
    echo "== $b shift-and 1000 patterns x 64 MiB $v"
    timeout 200 /tmp/$b kernel shift-and --count 1000 --max-states 32 --text-bytes 67108864 --iterations 5 --seed 1 $v --json $J/$b-shift-and$v.json 2>&1 | grep -v XDG | tail -4
  done
done;;
esac
case ",$KERNELS," in *,cbt,*)
for d in "17 --fill 0.25" "20 --fill 1" "25 --fill 1" "25 --fill 0.25"; do
  for b in prev new; do
    echo "== $b cbt D = $d"
    /tmp/$b kernel cbt --max-depth $d --iterations 300 --json $J/$b-cbt-$(echo $d | tr -d ' -').json 2>&1 | grep -v XDG | tail -4
  done
done;;
esac
} > $OUT/$RUN-log.txt 2>&1
tar -czf $OUT/$RUN-json.tar.gz -C $J .
tail -c 6000 $OUT/$RUN-log.txt
