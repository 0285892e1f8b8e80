"""FNV-1a style 64-bit hashing for compiled code: the one mixer of every key and hash.

The abstract keys (keys.py), the information-state hash that seeds LBR's rollouts and
the belief engine's particle merging (solver/belief/) all mix int values with `mix`.
Changing it changes every policy file's keys: bump keys.VERSION.
"""

from __future__ import annotations

import numpy as np
from numba import njit

FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)


@njit(cache=True, inline="always")
def mix(h, value):
    """h extended by one int (values from -3 on map to distinct words)."""
    return (h ^ np.uint64(value + 3)) * FNV_PRIME


@njit(cache=True, inline="always")
def finish(h):
    """A hash as a table key: a positive int64 (0 marks an empty table slot)."""
    key = np.int64(h >> np.uint64(1))
    return key if key != 0 else np.int64(1)
