"""CAST: a self-tuning LRFU per lruvec and type, in a window W and a main part M (the hooks).

Source      The CAST seed (shared/seeds/000_ce948a5f47243f59.txt, lru_cast v0.2.6 by Masahito
            Suzuki): "The state word", "The clock of pressure", "The key", "W and M", "Ties",
            "The sweep", "Young bits". No source code of CAST is public; where the seed leaves
            a detail open the choice is listed under Choices and tested in tests/unit/test_cast_*.
Structures  Per page the 32-bit state word (``s.pm[:, PM.word]``; layout, clock, key: core.py).
            Per lruvec (one instance per cgroup) and type (0 anon, 1 file): W, a framework list
            of newcomers in arrival order (head newest, tail oldest); M, unordered: the pages
            whose word carries this lruvec's tag for the type, counted in ``gi[GI.msize + t]``;
            a bitmap of 256 blocks of page ids that may hold a page of M; the sweep's cursor,
            its 128 candidates (page, key, word when found, tie rank) and the 1/16 quantile of
            the keys its last pass saw. Slots: layout.py.
Rules       added: the clock counts the page (it may tick: walker, then tick += 1); the page
            gets a fresh word (a refault too, Choice 6); the fault is a read (cache mode; anon
            in kernel mode), while a file page in kernel mode is read by the ``accessed`` that
            follows a demand read (a readahead page is taken in unread, count 0); the page goes
            to W's head.
            accessed: a read at the current tick (the word's only change).
            evict: pages proposed by the last call and not evicted go back (W's to its tail).
            Then, page by page, a type is chosen (both pressed toward the split: weights
            ``sw * pages(anon)`` and ``(200 - sw) * pages(file)`` with ``sw`` from costs.py,
            kept exact over time by credits; 0 file only, 1 file first, 200 anon first; anon
            only while swap has slots) and of that type: while W is over its share
            (``1000 |W| > w_permille (|W| + |M|)``), or M is empty, W's tail meets M's lowest
            and the lower goes; the winner from W joins M. While W is within its share, M's
            lowest goes. A candidate is checked before it is taken: still resident, in M, its
            word unchanged since the sweep found it (a page read again since is passed over);
            an anon page's young bit is a read (and a look-around, walk.py).
            Ties (equal keys): a page read at most once goes by the sweep's order (the order it
            was found in, a clock), and W's newcomer wins a tie, being the one read last; a
            page read more than once goes by a hash of its frame (page id), lowest first, so a
            loop keeps the same part of itself pass after pass. At an exact key tie between a
            page read once and one read more, the one read once goes.
            The sweep (M's lowest): state words in page-id order from the cursor, a block at a
            time, skipping blocks whose bitmap bit is clear (a block found without a page of M
            is cleared; a page joining M sets its block's bit); the keys of this type's M pages
            are recorded for the pass and the 128 lowest kept as candidates; it stops at a block
            end once it holds ``enough`` keys at or below the 1/16 quantile of the last pass,
            or after one whole circle in one evict call. A pass ends when the cursor wraps: its
            quantile replaces the last. The sweep runs when there is no candidate, or none at or
            below the quantile.
            removed: an eviction leaves a shadow entry (the word and its last read's tick whole)
            and counts in the clock's evicted; a page freed by its owner leaves none and is
            taken off the clock's intake.
Choices     (seed details left open; each tested)
            1. Word layout (core.py): count 8 bits (the seed: 255 reads tie), tag 4, gaps 4 + 4
               (class = bit length, read back as the class's lower end), tick 12 (mod 4096,
               ages clamped at 2048 every 512 ticks).
            2. Half-life ``H = C 2^(8 - le)`` pages with ``C`` = memory (le 1: 128 times memory,
               the seed's own figure), so H = 2^(10 - le) ticks. Default decay le 8: H = memory
               (the middle of the controller's range, where 2^(8 - le) = 1).
            3. Reads before the third are assumed to continue at the mean of the two known gaps.
            4. A page never read (readahead) has the lowest key.
            5. The clock: intake counted before the new page's read is stamped (a page that
               completes a quarter is stamped with the new tick); the intake less frees may go
               below zero down to minus memory (frees make room without pressure); the walker
               runs just before each tick, reads stamped with the ending tick.
            6. A refault comes back with its history (seed: "a page that came back with its
               history"): it gets back the word its shadow kept (in cache mode every evicted
               page keeps one), read once more; its wait is a sample (costs.py). A loop's pages
               then count every pass, and at a near-LFU decay their keys tie and the frame hash
               keeps the same part of the loop (a file loop read by read() has no young bits to
               give its pages a second read otherwise). ``history = False`` gives a refault a
               fresh word, as a newcomer.
            7. The sweep's ``enough``: 32 (a reclaim batch), or |M| / 32 (half of what lies
               below the 1/16 quantile) when M is smaller; "below" counts keys equal to the
               quantile (keys are coarse; ties at the quantile are common).
            8. W's share default 100 permille (the seed's controller moves it in 10 % steps).
            9. M filling up: W's tail meets M's lowest only for the pages W is over its share
               by up to the pages the call is asked for (one in cache mode, a batch in kernel
               mode); W's pages beyond that (after the first fill of memory, when W held every
               page, or when a type grows between two reclaims) join M unopposed, as a
               W-TinyLFU window's overflow enters a main cache that has room. Without this M
               could never grow: each meeting leaves M's size as it was.
            10. The walker "takes no bit that would add nothing (a page already read this
               tick)": it leaves such a bit set (it does not test-and-clear it), so the next
               walk, or reclaim's check, takes it as a read at its own tick. A page faulted in
               and still mapped a tick later thus has two reads, whether the young bit is its
               fault's or a later access's (the walker cannot tell them apart). Reclaim's check
               and the look-around take every young bit they find (a read only if it adds one).
               ``walker_leave = False`` takes and clears the bit: then a page read once per
               pass of a loop larger than memory never reaches two reads (no page of it
               survives a pass), W's newcomer wins against M's oldest every time and the loop
               is served as LRU serves it (docs/cast.md).
            11. The seed's ``decay`` and ``w_permille`` are "per type" without a written form:
               two values, anon's then file's, space-separated as its two-value ``prefetch``
               knob ("0 0"), or a type by name ("file 8"); one value sets both. The readouts
               give each type's (``decay_anon``, ``decay_file``, ``w_permille_anon``,
               ``w_permille_file``).
Parameters  (the seed's knobs, tune.py for the controllers)
            enabled = "1" (0: the legacy LRU runs in CAST's place; "0@N,1@M": off after N
            accesses, on again after M -- kernel mode, each switch passing the pages through
            the legacy LRU's lists, pagesim.engine.switch; a run with MGLRU on any cgroup is
            refused, as the seed's EBUSY); decay_auto = True; decay = "measured" (starting
            at 8; 1..14 sets it and stops decay_auto; there is no level 0, any other value
            is refused); w_permille = "measured" (-1 also reads so;
            starting at 100; 0..1000 sets it and stops decay_auto); both per type as the
            seed's (Choice 11): one value sets both types, "6 8" anon 6 and file 8, "file 8"
            file alone (anon where it starts); split_permille = -1 (the
            split controller chooses anon's share; 1..999 holds it there);
            split_mode = "curves" (the seed's CAST: the split from the miss-ratio curves; "gradient": the
            split moved one tenth at a time toward the lower of its neighbours on the same
            curves, "following the gradient of the split"; "scores": no split, reclaim takes the
            type whose next page has the lower score, "comparing pages' scores across the
            types" -- the seed's two other ways of splitting, mrc.py); clean_min_ratio = 10
            (% of memory; 0 none); kcompressd = 24 (-100..100; the node's kcompressd queue
            depth |k|, 0 off; above 0 only while CAST is on, below 0 whatever runs);
            swapout_ns = 2500 (the prior of the cost of writing anon out, one sample beside
            those measured: each anon page the engine writes out tells ``removed`` what it cost
            its writer, ``r[A_WAIT_NS]``; the mean is added to anon's miss cost, costs.miss_cost);
            sample_pages = 0 (the rule in sample.py); swappiness_override = -1 (the node's
            vm.swappiness); walker = True; walker_mm = True, walker_pmd = True,
            walker_bloom = "fallback" (the walker's skips: an mm no CPU ran, a page table whose
            PMD accessed bit is clear, the Bloom filter where there is no PMD bit -- "always":
            besides it, as MGLRU; "off"; walk.py); walker_simd = True (the young bits of a cache
            line of 8 PTEs a step); prefetch = "by CPU" (or two distances; no modelled effect:
            the model has no memory hierarchy); walk_pte_ns = 10, walk_pmd_ns = 10 (the
            walker's cost per PTE and PMD entry read, costs.walk_cost_ns); sweep_line_ns = 8,
            sweep_key_ns = 10 (the sweep's cost per 64-byte line of state words and per key
            computed, costs.sweep_cost_ns); the seed's
            ``version`` is ``CAST.version`` (0.2.6, printed by describe());
            history = True (Choice 6); walker_leave = True (Choice 10); sample_faults = True
            (sampled anon pages PROT_NONE, every access seen; False: harvested young bits);
            curve_memory = 1 (the split's curves halve once they hold this many sample
            memories of reads; 0: as many as the LRUs hold pages); press_power = 64 (how
            steeply reclaim's press rises with a type's excess over the split; costs.py).
Floor       (le9uo) In kernel mode, reclaim other than a cgroup's own limit (a[A_RECLAIMER] ==
            RECLAIM_LIMIT) takes no file page while this lruvec's file pages are at or below
            clean_min_ratio % of memory; with anon unreclaimable too, nothing is taken and the
            OOM path follows. Clean file is approximated by all file pages on the lists (the
            policy is not told when a file page is dirtied by a write hit).
Promises    vm.swappiness 0: anon is never taken (file only, and at the floor nothing); 1: file
            first, down to the floor, and only then anon; 200: anon first while swap has slots,
            then file. Any other value is the prior of the cost estimate and the press until the
            split controller sets a split. A type that gives nothing (take() finds no page)
            keeps its pages and the other gives in its place.
Complexity  O(1) per read and per page taken in, plus the walker once a tick (O(page ids):
            the model looks at every page id to know a table's tasks; what it charges is what the
            walker reads);
            per eviction the candidate checks and, when the candidates run out, a sweep
            (O(pages of the blocks it reads) per 32 or so candidates). Five int64 per page, one
            shadow int64 per evicted page.
Deviations  1. One clock per lruvec (instances share nothing); it ticks on the node's memory,
               so with one cgroup it is the seed's per-node clock.
            2. kcompressd: the engine's per-node thread (``KernelConfig.kcompressd``) takes
               the depth |kcompressd| from :meth:`CAST.kcompressd_depth` (the sign, "only while
               CAST is on" or "whatever runs", makes no difference while CAST runs the node).
               Switched off, CAST's lruvec runs ``linux-lru`` on the same pages; switched on
               again, CAST starts from a fresh state (every resident page a newcomer read once
               at the switch's tick: the legacy lists' order is all that passes over).
               The sample's anon pages are PROT_NONE (every access a hinting fault, sample.py;
               ``sample_faults = False``: young bits harvested 16 times a tick, walk.py); at
               the scaled node the sample is 1/16 of memory (the seed's 15,000 pages are 0.7 %
               of 8 GB), so the faults cost CAST more model time than on the seed's machine.
               The cost of writing anon out is what the engine charges its writer: zram's
               compression (2.5 us, the parameter's default, so on zram the cost stays 2,500 ns),
               a disk's submission (0 for a queued write: ssd, hdd).
            3. The sweep reads page ids 0..n-1 of the trace, not the node's PFNs; the bitmap's
               256 blocks cover them. Its CPU (costs.sweep_cost_ns) counts the words of pages
               in memory, as a PFN array holds words of frames only: ``sweep_line_ns`` per 16
               (a 64-byte line read in sequence) and ``sweep_key_ns`` per word of the swept
               type's M (its key computed and compared); the candidates it proposes are
               charged as the folios reclaim isolates (``reclaim_ns_per_page``), and the check
               of a mapped candidate as a reverse-map walk (``rmap_ns_per_page``), as the
               legacy LRU's and MGLRU's. Every word read still counts as looked at for the
               engine's OOM rule (``a[A_SCANNED]``).
            4. The walker's page tables are aligned blocks of 512 page ids, a page's mm the
               task that took it in (walk.py); its CPU is charged to the task whose page-in ends
               the tick. No cgroup is taken offline in kernel mode, so the seed's reparenting
               (an offline memcg's folios spliced onto its parent's and retagged) has nothing
               to act on.
            5. Candidates proposed and not evicted (swap full) are isolated until the next call,
               as the kernel's isolation lists; W's go back to its tail.
Peers       none (no source of CAST is public); hand-worked tests in tests/unit/test_cast_*.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagesim.core.lists import list_pages
from pagesim.core.state import (
    ANON,
    LEN,
)
from pagesim.policies.base import AsksKcompressd, Policy
from pagesim.policies.cast.core import (
    MAX_DECAY,
    MIN_DECAY,
    key_of,
)
from pagesim.policies.cast.costs import MAX_SWAPPINESS
from pagesim.policies.cast.hooks import _accessed, _added, _evict, _init, _removed
from pagesim.policies.cast.knobs import (
    DECAY_HINT,
    DECAY_MEASURED,
    VERSION,
    W_MEASURED,
    _knob_text,
    bloom_mode,
    enabled_schedule,
    per_type_knob,
    prefetch_distances,
)
from pagesim.policies.cast.layout import (
    ANON_T,
    BUF_CAP,
    BUF_ENTRY,
    BUF_W,
    FILE_T,
    GI,
    PM,
    STATE,
)
from pagesim.policies.cast.mrc import SPLIT_FIXED, SPLIT_MODES
from pagesim.policies.cast.readouts import cast_readouts, describe_text, queue_lines
from pagesim.policies.linux_lru import LinuxLRU
from pagesim.policies.params import defaults

DEFAULT_DECAY = 8  #: where the decay starts (H = memory)
DEFAULT_WPM = 100  #: where W's share starts, permille


class CAST(AsksKcompressd, Policy):
    """CAST's main cache: LRFU keys in W and M per lruvec and type; see the module docstring."""

    name = "cast"
    version = VERSION  #: the seed's ``version`` knob: the release the model follows
    description = "CAST: LRFU by a 32-bit state word, window W vs main M, pressure clock, sweep (seed)"
    int_fields = STATE.int_fields
    float_fields = ()
    int_globals = STATE.int_globals
    float_globals = STATE.float_globals
    proposes_batches = True
    uses_fallback = False
    never_with = ("mglru",)
    params = defaults("cast")  # policies/params.toml
    #: Parameters whose text the class reads itself (``--set cast.decay="6 8"``).
    text_params = ("decay", "w_permille")
    init = staticmethod(_init)
    added = staticmethod(_added)
    accessed = staticmethod(_accessed)
    evict = staticmethod(_evict)
    removed = staticmethod(_removed)

    def __init__(self, **overrides: Any) -> None:
        super().__init__(**overrides)
        le = self._per_type("decay")
        wpm = self._per_type("w_permille")
        self.values["decay"] = _knob_text(*le, DECAY_MEASURED)
        self.values["w_permille"] = _knob_text(*wpm, W_MEASURED)

    def _per_type(self, name: str) -> tuple[int | None, int | None]:
        """``decay`` (1..14, "measured") or ``w_permille`` (0..1000, "measured" or -1) per type."""
        if name == "decay":
            return per_type_knob(name, self.values[name], MIN_DECAY, MAX_DECAY, DECAY_MEASURED, DECAY_HINT)
        value = self.values[name]
        if str(value).strip() == "-1":  # the earlier spelling of "measured"
            value = W_MEASURED
        return per_type_knob(name, value, 0, 1000, W_MEASURED)

    def configure(self, s: Any, capacity: int) -> None:
        """Check and write the parameters; the capacity is cache mode's memory.

        ``decay`` and ``w_permille`` "measured" (``w_permille`` -1 too) are measured, starting at 8
        and 100; either takes
        one value for both types or one per type (:func:`per_type_knob`: ``"6 8"`` anon 6, file
        8; ``"file 8"`` file alone, anon where it starts); setting any stops ``decay_auto``, as
        writing the seed's knobs does. ``split_permille`` -1: the split controller chooses;
        100..900: anon's share held there (the split controller off). ``split_mode`` ``curves``,
        ``gradient`` or ``scores`` (:data:`.mrc.SPLIT_MODES`); not with a fixed split.
        """
        enabled_schedule(self.values["enabled"])
        les = self._per_type("decay")
        wpms = self._per_type("w_permille")
        swp = int(self.values["swappiness_override"])
        if not (swp == -1 or 0 <= swp <= MAX_SWAPPINESS):
            raise ValueError(f"cast: swappiness_override must be -1 or within 0..200, got {swp}")
        split = int(self.values["split_permille"])
        if not (split == -1 or 1 <= split <= 999):
            raise ValueError(f"cast: split_permille must be -1 or within 1..999, got {split}")
        cmr = int(self.values["clean_min_ratio"])
        if not 0 <= cmr <= 100:
            raise ValueError(f"cast: clean_min_ratio must be within 0..100, got {cmr}")
        kc = int(self.values["kcompressd"])
        if not -100 <= kc <= 100:
            raise ValueError(f"cast: kcompressd must be within -100..100, got {kc}")
        by_hand = any(v is not None for v in (*les, *wpms))
        auto = bool(self.values["decay_auto"]) and not by_hand
        for t in range(2):
            le, wpm = les[t], wpms[t]
            s.gi[GI.le + t] = le if le is not None else DEFAULT_DECAY
            s.gi[GI.wpm + t] = wpm if wpm is not None else DEFAULT_WPM
        s.gi[GI.dauto] = 1 if auto else 0
        mode = str(self.values["split_mode"]).strip().lower()
        if mode not in SPLIT_MODES:
            raise ValueError(f"cast: split_mode must be one of {', '.join(SPLIT_MODES)}, got {mode!r}")
        if split != -1 and mode != "curves":
            raise ValueError(f"cast: split_mode={mode} sets the split itself: leave split_permille at -1")
        s.gi[GI.sauto] = SPLIT_MODES[mode] if split == -1 else SPLIT_FIXED
        s.gi[GI.split] = split
        s.gi[GI.cleanmin] = cmr
        s.gi[GI.kcomp] = kc
        s.gi[GI.swapout] = max(0, int(self.values["swapout_ns"]))
        s.gi[GI.samplep] = max(0, int(self.values["sample_pages"]))
        s.gi[GI.enabled] = 1
        s.gi[GI.swp] = swp
        s.gi[GI.walker] = 1 if self.values["walker"] else 0
        s.gi[GI.wmm] = 1 if self.values["walker_mm"] else 0
        s.gi[GI.wpmd] = 1 if self.values["walker_pmd"] else 0
        s.gi[GI.wbloom] = bloom_mode(self.values["walker_bloom"])
        s.gi[GI.simd] = 1 if self.values["walker_simd"] else 0
        for name, slot in (
            ("walk_pte_ns", GI.ptens),
            ("walk_pmd_ns", GI.pmdns),
            ("sweep_line_ns", GI.linens),
            ("sweep_key_ns", GI.keyns),
        ):
            ns = int(self.values[name])
            if ns < 0:
                raise ValueError(f"cast: {name} must be >= 0 ns, got {ns}")
            s.gi[slot] = ns
        prefetch_distances(self.values["prefetch"])
        s.gi[GI.history] = 1 if self.values["history"] else 0
        s.gi[GI.leave] = 1 if self.values["walker_leave"] else 0
        s.gi[GI.sfault] = 1 if self.values["sample_faults"] else 0
        s.gi[GI.curvemem] = max(0, int(self.values["curve_memory"]))
        s.gi[GI.presspow] = max(1, int(self.values["press_power"]))
        s.gi[GI.cap] = max(1, int(capacity))

    def kcompressd_depth(self) -> int:
        """The node's kcompressd queue depth: |kcompressd| (0: none)."""
        return abs(int(self.values["kcompressd"]))

    def kcompressd_while_off(self) -> int:
        """kcompressd below 0 runs "whatever runs" (the legacy LRU too); above 0 only with CAST on."""
        kc = int(self.values["kcompressd"])
        return -kc if kc < 0 else 0

    def switches(self) -> list[tuple[int, Policy | None]]:
        """``enabled`` switched at run time: off hands the pages to the legacy LRU (linux-lru).

        Returns
        -------
        list of (int, Policy or None)
            ``(at, LinuxLRU())`` where CAST goes off after ``at`` accesses, ``(at, None)`` where
            it comes back on (a fresh state: "CAST's memory is not set up until it is first
            switched on"); empty when ``enabled`` is 1 throughout.
        """
        out: list[tuple[int, Policy | None]] = []
        on = True
        for at, want in enabled_schedule(self.values["enabled"]):
            if want != on:
                out.append((at, None if want else LinuxLRU()))
                on = want
        return out

    def readouts(self, s: Any) -> dict[str, float]:
        """The seed's readouts: decay, w_permille, clock, sweep, walker; W and M per type."""
        return cast_readouts(s)

    @staticmethod
    def queue_lines(r: dict[str, float]) -> list[str]:
        """The seed's per-queue lines of ``estimate``: :func:`.readouts.queue_lines`."""
        return queue_lines(r)

    def describe(self, s: Any) -> str:
        """The seed's ``estimate`` and ``tune`` readouts as text, as far as pagesim has them."""
        return describe_text(s)

    # ---- introspection for tests and reports
    @staticmethod
    def window(s: Any, t: int = FILE_T) -> list[int]:
        """W of type ``t``, head (newest) first."""
        return list_pages(s, int(s.gi[GI.list + t])).tolist()

    @staticmethod
    def main(s: Any, t: int = FILE_T) -> list[int]:
        """M of type ``t``: page ids in order."""
        tag = 1 + t + 2 * (int(s.gi[GI.cg]) % 7)
        words = s.pm[:, PM.word]
        return np.flatnonzero(((words >> 8) & 0xF) == tag).tolist()

    @staticmethod
    def key(s: Any, page: int) -> int:
        """The page's key now (1/16 half-life steps)."""
        t = ANON_T if s.resident[page] & ANON else FILE_T
        return int(key_of.py_func(int(s.pm[page, PM.word]), int(s.gi[GI.now]), int(s.gi[GI.le + t])))

    @staticmethod
    def candidates(s: Any, t: int = FILE_T) -> list[tuple[int, int]]:
        """The sweep's candidates of type ``t``, lowest first: (page, key)."""
        base = GI.buf + BUF_W * (t * BUF_CAP + int(s.gi[GI.bufhead + t]))
        n = int(s.gi[GI.buflen + t])
        rows = [base + BUF_W * i for i in range(n)]
        return [(int(s.gi[e + BUF_ENTRY.page]), int(s.gi[e + BUF_ENTRY.key])) for e in rows]

    def check_invariants(self, s: Any) -> None:
        """Every resident page of this lruvec is in W (untagged), in M (tagged) or isolated."""
        cg = int(s.gi[GI.cg])
        words = s.pm[:, PM.word]
        tags = (words >> 8) & 0xF
        seen: set[int] = set()
        for t in (ANON_T, FILE_T):
            pages = self.window(s, t)
            assert len(pages) == int(s.lhd[int(s.gi[GI.list + t]), LEN]), "W: length"
            for p in pages:
                assert p not in seen, f"page {p} twice"
                seen.add(p)
                assert s.resident[p] != 0 and int(s.cgroup_of[p]) == cg, f"W page {p} not ours"
                assert int(tags[p]) == 0, f"W page {p} carries an M tag"
                assert (1 if s.resident[p] & ANON else 0) == (t == ANON_T), f"W page {p} type"
            m = self.main(s, t)
            assert len(m) == int(s.gi[GI.msize + t]), f"M[{t}]: {len(m)} != {int(s.gi[GI.msize + t])}"
            for p in m:
                assert p not in seen, f"page {p} in W and M"
                seen.add(p)
                assert s.resident[p] != 0 and int(s.cgroup_of[p]) == cg, f"M page {p} not ours"
                assert (1 if s.resident[p] & ANON else 0) == (t == ANON_T), f"M page {p} type"
                b = p // int(s.gi[GI.blksz])
                assert s.gi[GI.bitmap + b] != 0, f"M page {p} in block {b} marked empty"
        for p in np.flatnonzero(s.pm[:, PM.iso] != 0).tolist():
            if p not in seen:
                assert s.resident[p] != 0, f"isolated page {p} not resident"
                seen.add(p)
        mine = set(np.flatnonzero((s.resident != 0) & (s.cgroup_of == cg)).tolist())
        assert seen == mine, f"resident pages unaccounted: {sorted(mine - seen)[:5]}"
        off = s.resident == 0
        assert not words[off].any(), "a page out of memory keeps a state word"
