#!/bin/bash
# Eleventh session, run 50, on the H100: prev (cf2020d) against new (run 49's, and the merge
# criterion's parent third vertex from the odd sibling's decoded vertices through pool.list_index),
# two rounds each, after throwaway warm-up benches.
exec bash "$(dirname "$0")/ab.sh" run50
