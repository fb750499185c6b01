#!/usr/bin/env bash
# Regenerates the pictures in docs/ with PosLab itself (after ./setup.sh build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
poslab=${POSLAB:-$root/build/poslab}  # POSLAB=other/build/poslab for another build folder
# From the source folder with a relative path, so that the window shows no absolute path of this machine.
# The screen is twice the window's size: Xvfb's pointer starts at the screen's centre, which is then
# outside the window, so no hover tooltip lands in the picture.
(cd "$root" && xvfb-run -a -s '-screen 0 2880x1800x24' "$poslab" --embeddings assets/glove-wink-100d-10k.txt \
  --size 1440x900 --frames 5 --screenshot "$root/docs/screenshot.png")
"$poslab" export attention --causal --sentence "May the force be with you." --head 1 --png "$root/docs/attention-causal.png"
"$poslab" export attention --encoding none --heads 4 --png "$root/docs/attention-dog-no-positions.png"
"$poslab" export frequencies --base 500000 --rope-scaling llama3 --factor 32 --original-max-position 8192 --head-dim 64 --png "$root/docs/frequencies-llama3.png"
