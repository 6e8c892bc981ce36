#!/bin/bash
# Eleventh session, run 52, on the H100: prev (cf2020d) against new (run 51's, and the near-edge
# histogram's decode testing the centroid's column against the distance before it asks the tile
# cache), two rounds each, after throwaway warm-up benches.
exec bash "$(dirname "$0")/ab.sh" run52
