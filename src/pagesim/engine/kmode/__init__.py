"""The simulation loop in kernel mode: anon and file pages, swap, readahead, watermark reclaim.

Terms (Linux names; shared/reference/kernel_policies_spec.md §1, §4)
-------------------------------------------------------------------
*free* pages are the node's pages minus resident pages minus what zram holds compressed
(:func:`_zram_pages`: each stored page's cost, :mod:`pagesim.engine.zram`).
*Watermarks* min < low < high (:func:`pagesim.engine.memory.watermarks`). An allocation that
would leave free below min makes the allocating task reclaim (*direct reclaim*: an episode
goes down the priorities in batches until it has freed 32 pages, SWAP_CLUSTER_MAX, as
``do_try_to_free_pages`` does, and only then is the allocation retried; its time is charged to
the task); after every access, free below low wakes *kswapd*, which
reclaims in batches of 32 until free is back at high (its CPU is counted apart, not charged to
tasks). A cgroup at its ``memory.max`` reclaims from itself first (*limit reclaim*). When
reclaim frees nothing at priority 0, the OOM killer kills the process (tag) owning the most
anonymous memory and frees it.

What each access does
---------------------
* anon (always mapped): a hit sets the page's young bit (the PTE accessed bit) and nothing else
  -- no hook is called, as no kernel code runs on a mapped access -- unless the policy made the
  page PROT_NONE (``PROT_NONE`` flag): then the access is a hinting fault (``numa_hint_faults``,
  ``hint_fault_ns``) and ``accessed`` is called; the first touch is a
  zero-fill fault; touching a page that was swapped out is a major fault that reads it back
  (``pswpin``; ``workingset_refault_anon`` if it left a shadow entry) and charges the task the
  device's time. A write dirties the page and frees a swap copy it still had.
* file (read()/write()): a read calls ``accessed`` (``folio_mark_accessed``; a buffered write
  does not: ``generic_perform_write`` takes the folio without FGP_ACCESSED); a hit on a page
  carrying PG_readahead starts the next window asynchronously. A miss reads the page, and on a
  sequential stream a readahead window (grown x4 then x2 up to ``ra_pages``), the task waiting
  for the request; each page gets ``added`` (``a[A_READAHEAD]`` for those not asked for) and the
  demand page then ``accessed``, as in the kernel's read path.
* free: the owner unmaps or deletes the page; it leaves memory without a shadow entry and any
  swap slot it held is released.
* before an access, the task's ``posix_fadvise`` calls due then (:mod:`.fadvise`: a mode on the
  task's files, or DONTNEED's writeback and drop of a range).

Eviction (a candidate the policy proposed, or the default policy's): a clean file page is
dropped; a dirty file page is written back first; an anon page is written to swap unless its
swap copy is still valid (``pswpout``), and kept if swap is full. Every evicted page keeps a
shadow entry (``s.shadow``, written by the policy's ``removed`` hook) until it is faulted back
or freed.

Writeback: a file page turns dirty on a write; when the node's dirty file pages exceed
``dirty_background_ratio`` of memory, or a cgroup's exceed it of its ``memory.max``, the flusher
writes back the pages dirtied first (:func:`_flush`) until they are under it again (no task
waits for it; ``pgpgout``, ``flusher_writeback``).

Known simplifications (for future work)
---------------------------------------
One node, one zone; readahead reads only pages that occur in the trace (``ra_next``); a dirty
file page reclaim meets is written back by the reclaimer at once (the kernel parks it with
PG_reclaim until the flusher has written it); the flusher has no ``dirty_expire`` (30 s) and
writes no faster than tasks dirty; file pages are never mapped (mmap'd file access is not
modelled yet).

Devices (:mod:`pagesim.engine.memory`): by default each request is timed alone. A device with
``channels`` or ``link_page_ns`` queues them (:func:`_occupy`): ``fw.dev_busy`` keeps, per
device, when its link and each channel are busy until (model time, ns); requests arrive in
model-time order (the scheduler runs the earliest actor), so first come first served is exact.
A task waits for its request's queueing and service; asynchronous readahead, the flusher's
write-back, reclaim's write-back and swap-out occupy the device without anyone waiting. A page
read by asynchronous readahead is resident at once (the wait for a page still under I/O is not
modelled). What a policy is told a refault cost (``a[A_WAIT_NS]``) is the request's service
alone, not its queueing behind others (CAST's refault cost). A read the policy's ``admit``
bypasses reads its readahead window in one request, the pages going to the reader and not into
the cache; the reader's next reads of that window are served from it (``RA_BYP_*``).

Modules (one per subsystem, each compiled function at module level):
:mod:`.framework` (``KFramework``, its declared ``N``/``F``/``RA`` slots, free memory),
:mod:`.devices` (service and queueing), :mod:`.swapout` (swap-out, kcompressd),
:mod:`.scheduler` (the heap of actors, an access's charges), :mod:`.oom` (the OOM killer),
:mod:`.writeback` (dirty pages, the flusher), :mod:`.eviction` (removal, candidates, the
default CLOCK), :mod:`.readahead` (windows, bypassed reads), :mod:`.fadvise` (fadvise calls),
:mod:`.reclaim` (episodes, batches, kswapd), :mod:`.loop` (:func:`run_kernel`).
:mod:`pagesim.engine.kernel_loop` re-exports every name; :mod:`pagesim.engine.kernel` is the
Python driver.
"""
