#!/bin/sh
# Print the path of nvdisasm: $NVDISASM, PATH, the CUDA toolkit, or the PyPI
# package nvidia-cuda-nvdisasm.  Exit 1 when there is none.
if [ -n "$NVDISASM" ] && [ -x "$NVDISASM" ]; then echo "$NVDISASM"; exit 0; fi
p=$(command -v nvdisasm 2>/dev/null) && { echo "$p"; exit 0; }
for d in "${CUDA_HOME:-/usr/local/cuda}/bin"; do
    [ -x "$d/nvdisasm" ] && { echo "$d/nvdisasm"; exit 0; }
done
p=$(python3 - <<'PY' 2>/dev/null
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()]
for r in roots:
    for c in glob.glob(os.path.join(r, "nvidia", "*", "bin", "nvdisasm")) + glob.glob(os.path.join(r, "nvidia", "cuda_nvdisasm", "bin", "nvdisasm")):
        if os.access(c, os.X_OK):
            print(c); sys.exit(0)
sys.exit(1)
PY
) && { echo "$p"; exit 0; }
exit 1
