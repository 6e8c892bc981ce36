#!/bin/bash
# Eleventh session, run 46, on the H100: prev (cf2020d) against new (the compact mode's classify
# passes clear no update record; pool.clean clears the words of the records each frame wrote), two
# rounds each, after throwaway warm-up benches.
exec bash "$(dirname "$0")/ab.sh" run46
