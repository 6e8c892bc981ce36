#!/bin/bash
# Eleventh session, run 48, on the H100: prev (cf2020d) against new (run 46's change, and fewer
# passes: no pool.snapshot (mark and elect copy the links), pool.clean's work in pool.list's
# dispatch with the list counts read once per workgroup; pool.threshold and pool.list as before),
# two rounds each, after throwaway warm-up benches.
exec bash "$(dirname "$0")/ab.sh" run48
