#!/bin/bash
# Eleventh session, run 44, on the H100: prev (cf2020d) against new (run44.patch: globe.pool_decode leaves the
# next frame's criterion figures, so pool.classify_split/_merge no longer place the vertices), two
# rounds each, after a throwaway warm-up bench.
exec bash "$(dirname "$0")/ab.sh" run44
