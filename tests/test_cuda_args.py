"""The cuda backend's packed kernel parameters (pcompute/backends/cuda_args.py):
laid out as pycuda packs a prepared format, re-packed only where an argument
changed.  The layout and the change tracking need no GPU; the launches
themselves run in the CUDA tests (tests/test_fastcall.py and every
Elementwise, Reduction and Scan test on the cuda backend)."""
import struct

import numpy as np
import pytest

from pcompute.backends.cuda_args import (Packed, PackedArgs, field_offsets, launch_format,
                                         packable)
from pcompute.types import CType

FORMATS = ["q", "qPid", "qqPbPhP", "qfdPqqqP", "qBHiIlLqQfd", "qqPPP"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_fields_are_laid_out_as_struct_packs_the_format(fmt):
    rng = np.random.default_rng(len(fmt))
    values = []
    for c in fmt:
        if c in "fd":
            values.append(float(rng.normal()))
        else:
            bits = 8 * struct.calcsize(c) - (0 if c in "BHILQP" else 1)
            values.append(int(rng.integers(0, 2 ** min(bits, 62))) - (0 if c in "BHILQP"
                                                                        else 3))
    packed = Packed(None, fmt)
    offsets, size = field_offsets(fmt)
    assert size == len(packed.buffer) == struct.calcsize(fmt)
    assert all(off % struct.calcsize(c) == 0 for off, c in zip(offsets, fmt))
    for k in reversed(range(len(fmt))):        # any order
        packed.put(k, values[k])
    assert bytes(packed.buffer) == struct.pack(fmt, *values)


def test_formats_of_objects_are_not_packed_here():
    assert packable("qPid") and not packable("qPV")


def _address(t, array):
    return [array.ctypes.data]


def test_arguments_are_packed_again_only_when_they_change():
    """Two buffers (passes 1 and 3 of a scan) share the user arguments at
    the same fields; a scalar equal to the last one is not packed again, a
    zero of the other sign is, an array object other than the last one is."""
    types = [CType("double", pointer=True), CType("float"), CType("int"),
             CType("double", pointer=True)]
    fmt = "qq" + launch_format(types) + "PP"
    assert fmt == "qqPfiPPP"
    first, last = Packed(None, fmt), Packed(None, fmt)
    args = PackedArgs(types, [(first, 2), (last, 2)], pointer=(_address, lambda t: 1))
    assert args.width == 4
    x, y, z = np.zeros(3), np.zeros(3), np.zeros(3)
    puts = []
    real = args.put
    args.put = lambda k, v: puts.append(k) or real(k, v)

    def expected(a, f, i, b):
        return struct.pack(fmt, 0, 0, a.ctypes.data, f, i, b.ctypes.data, 0, 0)
    args.set([x, 1.5, 7, y])
    assert puts == [0, 1, 2, 3]
    for packed in (first, last):
        assert bytes(packed.buffer) == expected(x, 1.5, 7, y)
    puts.clear()
    args.set([x, 1.5, 7, y])
    assert puts == []
    args.set([x, np.float32(1.5), 7, z])        # another scalar type: packed again
    assert puts == [1, 3]
    assert bytes(last.buffer) == expected(x, 1.5, 7, z)
    puts.clear()
    args.set([x, 0.0, 7, z])
    args.set([x, -0.0, 7, z])
    assert puts == [1, 1]
    assert bytes(first.buffer) == expected(x, -0.0, 7, z)
    with pytest.raises(OverflowError):          # the fast call's located error
        args.set([x, 1.0, 2 ** 40, z])


def test_default_pointer_fields_follow_launch_format():
    """An n-D array argument packs its address, shape and strides, as the
    checked path's launch_values does (counted here without a device)."""
    types = [CType("float", pointer=True, ndim=2, layout="C"), CType("int")]
    fmt = "q" + launch_format(types)
    args = PackedArgs(types, [(Packed(None, fmt), 1)])
    assert args.positions == [0, len(fmt) - 2] and args.width == len(fmt) - 1


@pytest.mark.cuda
def test_pycuda_packs_the_same_bytes():
    """pycuda's own packing of prepared formats (the GPU run has pycuda)."""
    pvt = pytest.importorskip("pycuda._pvt_struct")
    drv = pytest.importorskip("pycuda.driver")
    assert hasattr(drv.Function, "_launch_kernel")
    for fmt in FORMATS:
        values = [1.25 if c in "fd" else 3 for c in fmt]
        packed = Packed(None, fmt)
        for k, v in enumerate(values):
            packed.put(k, v)
        assert bytes(packed.buffer) == pvt.pack(fmt, *values)


@pytest.mark.cuda
def test_device_arrays_come_from_the_backends_memory_pool():
    """A freed device array's block is reused by the next array of its size
    (no cuMemAlloc/cuMemFree per temporary); free_held gives blocks back."""
    pytest.importorskip("pycuda.driver")
    from pcompute.backends.registry import get_backend
    be = get_backend("cuda")
    a = be.empty(1000, np.float32)
    address = int(a.gpudata)
    del a
    b = be.to_device(np.arange(1000, dtype=np.float32))
    assert int(b.gpudata) == address
    np.testing.assert_array_equal(b.get(), np.arange(1000, dtype=np.float32))
    pool = be.memory_pool()
    assert pool.active_blocks >= 1
    del b
    pool.free_held()
    assert pool.held_blocks == 0


@pytest.mark.cuda
def test_a_cuda_program_exits_cleanly_with_pooled_arrays_alive():
    """Arrays, a reduction's kept partial buffers and held pool blocks alive
    at interpreter exit must not abort it (pycuda issue 74: the pool must
    stop holding before pycuda pops the context)."""
    pytest.importorskip("pycuda.driver")
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import numpy as np
        import pcompute as pc
        from pcompute import Reduction, use_config
        with use_config(backend="cuda", use_double=True):
            x = pc.wrap(np.arange(1000.0))
            total = Reduction("a+b")(x)
            keys = pc.wrap(np.arange(1000, dtype=np.int32)[::-1].copy())
            out = pc.array.sort_by_keys([keys])
            assert total == 499500.0
        print("done")
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "done" in run.stdout and "terminate called" not in run.stderr
