#!/usr/bin/env python3
"""What the driver double's cuModuleLoadData makes of a fatbin:
kload.py LIBCUDA FATBIN prints its CUresult (0, 209 NO_BINARY_FOR_GPU, 222
UNSUPPORTED_PTX_VERSION) under the driver and GPU that MCDOUBLE_DRIVER_VERSION
and MCDOUBLE_SM say (tests/double/personas.sh)."""
import ctypes
import sys

cu = ctypes.CDLL(sys.argv[1])
with open(sys.argv[2], "rb") as f:
    image = ctypes.create_string_buffer(f.read())
ctx, mod = ctypes.c_void_p(), ctypes.c_void_p()
if cu.cuInit(0) or cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) or cu.cuCtxSetCurrent(ctx):
    sys.exit("no device")
print(cu.cuModuleLoadData(ctypes.byref(mod), image))
