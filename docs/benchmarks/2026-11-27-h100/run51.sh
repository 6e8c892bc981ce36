#!/bin/bash
# Eleventh session, run 51, on the H100: prev (cf2020d) against new (run 49's, and allocate's
# free slots from a free list pool.list writes after the draw list, not a walk down the CBT), two
# rounds each, after throwaway warm-up benches.
exec bash "$(dirname "$0")/ab.sh" run51
