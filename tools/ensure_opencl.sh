#!/usr/bin/env bash
# Make sure a working OpenCL device exists (pyopencl can build a kernel).
#
# usage: bash tools/ensure_opencl.sh [PYTHON]     (default: .venv/bin/python)
#
# The check runs in a child process: loading several OpenCL ICDs in one
# process has crashed during platform enumeration, and a crash must not take
# make down with it.  If no device works and we are root on a system with
# apt-get, Debian's PoCL (pocl-opencl-icd) is installed and the check rerun.
# Note: the PoCL bundled in the pocl-binary-distribution wheel (LLVM 14)
# fails on some CPUs ("unknown target CPU 'generic'"); Debian's PoCL works.
set -u

PYTHON="${1:-.venv/bin/python}"

if [ ! -x "$PYTHON" ] && ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "ensure_opencl: python interpreter '$PYTHON' not found (run 'make venv' first)" >&2
    exit 1
fi

check() {
    # Prints the working device on success; exit 0 on the first device that
    # builds the trivial kernel.
    "$PYTHON" - <<'PYEOF'
import sys
try:
    import pyopencl as cl
except Exception as exc:  # noqa: BLE001
    print("ensure_opencl: cannot import pyopencl: %s" % exc, file=sys.stderr)
    sys.exit(2)
SRC = "__kernel void k(__global int *a){a[0]=1;}"
try:
    platforms = cl.get_platforms()
except Exception as exc:  # noqa: BLE001
    print("ensure_opencl: no OpenCL platform: %s" % exc, file=sys.stderr)
    sys.exit(1)
for platform in platforms:
    try:
        devices = platform.get_devices()
    except Exception as exc:  # noqa: BLE001
        print("ensure_opencl: %s: cannot list devices: %s"
              % (platform.name, exc), file=sys.stderr)
        continue
    for device in devices:
        try:
            ctx = cl.Context([device])
            cl.Program(ctx, SRC).build()
        except Exception as exc:  # noqa: BLE001
            first = (str(exc).strip().splitlines() or [""])[0]
            print("ensure_opencl: %s / %s: cannot build a kernel: %s"
                  % (platform.name, device.name.strip(), first),
                  file=sys.stderr)
            continue
        print("ensure_opencl: OK: %s / %s"
              % (platform.name, device.name.strip()))
        sys.exit(0)
sys.exit(1)
PYEOF
}

check
rc=$?
if [ "$rc" -eq 0 ]; then
    exit 0
fi
if [ "$rc" -eq 2 ]; then
    echo "ensure_opencl: pyopencl is missing from $PYTHON; install it with" \
         "'$PYTHON -m pip install pyopencl' (or run 'make venv')." >&2
    exit 1
fi
if [ "$rc" -gt 128 ]; then
    echo "ensure_opencl: the OpenCL check crashed (exit $rc)" >&2
fi

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    echo "ensure_opencl: no working OpenCL device; installing Debian's PoCL" \
         "(pocl-opencl-icd)..." >&2
    if ! apt-get update; then
        echo "ensure_opencl: apt-get update failed" >&2
    fi
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y \
            pocl-opencl-icd ocl-icd-libopencl1; then
        echo "ensure_opencl: installing pocl-opencl-icd failed" >&2
    fi
    if check; then
        exit 0
    fi
    echo "ensure_opencl: still no working OpenCL device after installing" \
         "pocl-opencl-icd. Check 'clinfo', /etc/OpenCL/vendors/ and the" \
         "messages above." >&2
    exit 1
fi

cat >&2 <<'EOF'
ensure_opencl: no working OpenCL device found.
Install an OpenCL CPU runtime, for example:
  - Debian/Ubuntu:  sudo apt-get install pocl-opencl-icd ocl-icd-libopencl1
  - Fedora:         sudo dnf install pocl
  - conda:          conda install -c conda-forge pocl
  - pip:            pip install 'pcompute[pocl]'  (its bundled PoCL does not
                    work on every CPU; prefer the distribution package)
then run this check again.
EOF
exit 1
