"""The key of MGLRU's Bloom filter of page tables (mm/vmscan.c ``get_item_key``), for the
walkers that keep one (``policies/mglru/walk.py``, ``policies/cast/walk.py``).

A filter has ``1 << BLOOM_FILTER_SHIFT`` bits; an item (a page table, the PMD entry's address in
the kernel, a region of page ids here) sets two of them, the two 15-bit halves of one 30-bit
hash. The kernel hashes with ``hash_ptr``; this is a 32-bit multiply-xorshift whose products
keep their low 32 bits whether they wrap (compiled) or not (plain Python).
"""

from __future__ import annotations

from pagesim.core.jit import kernel_inline

BLOOM_FILTER_SHIFT = 15  #: bits per filter: 1 << 15 (MGLRU's BLOOM_FILTER_SHIFT)


@kernel_inline
def bloom_keys(item):  # type: ignore[no-untyped-def]
    """The two bit numbers (each 0 .. 2**15 - 1, int) that item ``item`` (int >= 0) sets."""
    h = ((item + 1) * 2654435761) & 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 2246822519) & 0xFFFFFFFF
    h ^= h >> 13
    return h & 0x7FFF, (h >> BLOOM_FILTER_SHIFT) & 0x7FFF
