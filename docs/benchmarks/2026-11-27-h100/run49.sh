#!/bin/bash
# Eleventh session, run 49, on the H100: prev (cf2020d) against new (run 48's, with the split
# frame's snapshot copied by allocate, not mark), two rounds each, after throwaway warm-up benches.
exec bash "$(dirname "$0")/ab.sh" run49
