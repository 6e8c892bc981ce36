#!/bin/bash
# Eleventh session, run 54, on the H100: prev (main at bab087c, the code of 0202c68) against new
# (the compact mode's pool.threshold done by the last classify_split workgroup to finish), two
# rounds each, after throwaway warm-up benches.
exec bash "$(dirname "$0")/ab.sh" run54
