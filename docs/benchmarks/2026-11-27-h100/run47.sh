#!/bin/bash
# Eleventh session, run 47, on the H100: prev (cf2020d) against new (run 46's change, and fewer
# passes: no pool.threshold (mark's workgroups find b*), no pool.snapshot (mark and elect copy the
# links), pool.clean's work in pool.list's dispatch, pool.list one thread per slot), two rounds
# each, after throwaway warm-up benches.
exec bash "$(dirname "$0")/ab.sh" run47
