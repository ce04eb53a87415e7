"""Fuzz every trace reader against a plain reference reader: crashes, hangs, silently wrong results.

Not a test: run by hand (see bench/README.md); ``tests/unit/test_trace_fuzz.py`` runs a smaller
number of the same inputs in-process. For each reader, ``--n`` inputs (seeded, so a run is
reproducible): random bytes, and mutations (bit flips, inserted and deleted bytes, interesting
numbers such as 2**63 and 2**64 - 1, byte-order marks, quotes, truncation, junk) of the first few
KiB of the real traces in ``--traces`` (built-in samples when they are absent), a quarter of them
then compressed (gzip, xz, bzip2, zstd; sometimes two streams, NUL padding or junk after the
last) and some of those mutated again after compression. Each input is read by pagesim in a
worker process, stopped after ``--timeout`` seconds, and by the reference reader below, written
from the documented rules only (Python's ``int``, ``struct``, the stdlib decompressors one stream
at a time), and classified:

- ``ok``: both refuse it (pagesim with a `TraceFormatError` or `ValueError` whose message starts
  with the file's path), or both read the same ids, sizes, times and ops;
- ``crash``: pagesim raised anything else, or an error not naming the file;
- ``hang``: pagesim did not return within the time limit;
- ``wrong``: pagesim read something the reference refuses, read other values, or refused an input
  the reference reads.

For ``.pgt`` files the reference is the written trace itself: a damaged file must be refused or
read as exactly the columns that were written.

    python bench/fuzz.py                      # 10,000 inputs per reader, seed 0
    python bench/fuzz.py --n 2000 --seed 7 --formats csv,lis --save /tmp/fuzz-failures
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import lzma
import multiprocessing as mp
import os
import random
import re
import struct
import sys
import tempfile
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import zstandard

#: Readers fuzzed, by pagesim format name; ``detect`` reads inputs of every format with
#: ``read_trace(path)`` (format detected, csv columns guessed), checked for crashes and hangs only.
FORMATS = ("text", "lis", "csv", "vscsi", "oracle", "pagesim", "detect")

#: File name extension of each format's inputs.
EXTENSION = {
    "text": ".txt",
    "lis": ".lis",
    "csv": ".csv",
    "vscsi": ".vscsi",
    "oracle": ".oracleGeneral",
    "pagesim": ".pgt",
    "detect": "",
}

#: Reader options given with each format (explicit, so that the reference needs no guessing).
CSV_OPTIONS = {
    "id_col": 5,
    "size_col": 4,
    "time_col": 2,
    "op_col": 3,
    "delimiter": ",",
    "has_header": True,
    "id_type": "int",
}
LIS_MAX_RUN = 4096
LIS_MAX_ACCESSES = 1 << 18
OPTIONS: dict[str, dict[str, Any]] = {
    "csv": CSV_OPTIONS,
    "lis": {"max_run": LIS_MAX_RUN, "max_accesses": LIS_MAX_ACCESSES},
}

#: Bytes of each real trace kept as a seed (cut at a line or record boundary).
SEED_BYTES = 4096

U64_MAX = (1 << 64) - 1
I64_MAX = (1 << 63) - 1


# ------------------------------------------------------------------------ seeds


def _cut_lines(data: bytes, limit: int = SEED_BYTES) -> bytes:
    head = data[:limit]
    cut = head.rfind(b"\n")
    return head[: cut + 1] if cut >= 0 else head


def _cut_records(data: bytes, record: int, limit: int = SEED_BYTES) -> bytes:
    return data[: limit // record * record]


def builtin_seeds() -> dict[str, list[bytes]]:
    """Small hand-written seeds, used beside (or without) the real traces."""
    rec_v2 = struct.pack("<HHIIIQQQ", 0x28, 2 << 8, 1, 4096, 1, 42, 5, 0) + struct.pack(
        "<HHIIIQQQ", 0x2A, 2 << 8, 2, 512, 1, 43, 6, 0
    )
    rec_v1 = struct.pack("<IIIHHQQ", 1, 4096, 1, 0x28, 1 << 8, 42, 5) * 3
    oracle = b"".join(struct.pack("<IQIq", t, i, 4096, -1) for t, i in ((1, 7), (2, 8), (3, 7)))
    return {
        "text": [b"7\n  3 \n*\n\n7\r\n9\n*\n3", b"1\n2\n1\n"],
        "lis": [b"0 4 0 0\n10 2 0 1\n0 4 0 2\n", b"5 1\n6 3 9\n"],
        "csv": [
            b"version,time,op,size,lbn\n1,5,2a,512,42\n1,6,28,4096,43\n1,7.5,r,1,42\n",
            b'v,t,o,s,id\n1,"5",W,10,0x2A\n1,6 , delete ,0,7\n',
        ],
        "vscsi": [rec_v2, rec_v1],
        "oracle": [oracle],
    }


def real_seeds(traces: Path) -> dict[str, list[bytes]]:
    """Heads of the real traces under `traces` (missing files are skipped)."""
    out: dict[str, list[bytes]] = {f: [] for f in FORMATS if f not in ("pagesim", "detect")}
    lcs = traces / "libcachesim"
    for name, fmt in (("cloudPhysicsIO.txt", "text"), ("cloudPhysicsIO.csv", "csv")):
        if (lcs / name).is_file():
            out[fmt].append(_cut_lines((lcs / name).read_bytes()[: 4 * SEED_BYTES]))
    if (lcs / "cloudPhysicsIO.vscsi").is_file():
        raw = (lcs / "cloudPhysicsIO.vscsi").read_bytes()[: 4 * SEED_BYTES]
        from pagesim.trace.readers.vscsi import version_of

        out["vscsi"].append(_cut_records(raw, 32 if version_of(raw) == 1 else 40))
    if (lcs / "cloudPhysicsIO.oracleGeneral.bin").is_file():
        out["oracle"].append(
            _cut_records((lcs / "cloudPhysicsIO.oracleGeneral.bin").read_bytes()[:SEED_BYTES], 24)
        )
    for sub in ("lirs", "lirs2"):
        for path in sorted((traces / sub).glob("*.trace.gz"))[:4]:
            with gzip.open(path) as fh:
                out["text"].append(_cut_lines(fh.read(SEED_BYTES)))
    lis = traces / "arc" / "OLTP.lis.zst"
    if lis.is_file():
        with zstandard.ZstdDecompressor().stream_reader(lis.open("rb")) as fh:
            out["lis"].append(_cut_lines(fh.read(SEED_BYTES)))
    return out


@dataclass
class Seeds:
    """Seed contents per format, and the written traces behind the ``.pgt`` seeds."""

    content: dict[str, list[bytes]]
    pgt: list[tuple[bytes, dict[str, list[int] | None]]] = field(default_factory=list)


def load_seeds(traces: Path | None) -> Seeds:
    """Built-in seeds plus the real traces' heads; ``.pgt`` seeds written from text seeds."""
    content = builtin_seeds()
    if traces is not None and traces.is_dir():
        for fmt, items in real_seeds(traces).items():
            content[fmt].extend(items)
    from pagesim.trace import Trace, write_trace

    pgt = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, (ids, compress) in enumerate((([7, 3, 7, 9, 3], True), ([1, 2, 3, 1, 2, 3, 4], False))):
            t = Trace.from_ids(
                ids, size=[4096] * len(ids), time=list(range(len(ids))), op=[0, 1] * 2 + [0] * (len(ids) - 4)
            )
            path = Path(tmp) / f"s{k}.pgt"
            write_trace(t, path, compress=compress)
            pgt.append((path.read_bytes(), _columns_of(t)))
        text_seeds = [s for s in content["text"] if len(s) > 200][:2]
        for k, seed in enumerate(text_seeds):
            ids = [int(x) for x in seed.split() if x.isdigit()][:300]
            t = Trace.from_ids(ids)
            path = Path(tmp) / f"r{k}.pgt"
            write_trace(t, path)
            pgt.append((path.read_bytes(), _columns_of(t)))
    return Seeds(content, pgt)


# ------------------------------------------------------------------------ inputs

_TOKENS = [
    b"0",
    b"1",
    b"9223372036854775807",
    b"9223372036854775808",
    b"18446744073709551615",
    b"18446744073709551616",
    b"18446744073709551614 4",
    b"0 9223372036854775808",
    b"-1",
    b"0x",
    b"0xffffffffffffffff",
    b"0x10000000000000000",
    b"4294967296",
    str(LIS_MAX_RUN).encode(),
    str(LIS_MAX_RUN + 1).encode(),
    b"*",
    b'"',
    b'""',
    b",",
    b"\n",
    b"\r\n",
    b"\xef\xbb\xbf",
    b"\x00",
    b" ",
    b"\t",
    b"1.5",
    b"5.",
    b"r",
    b"W",
    b"delete",
    b"frob",
    b"\xc2\xa0",
    b"#",
]
_U64S = [0, 1, I64_MAX, I64_MAX + 1, U64_MAX, U64_MAX - 1, 1 << 32, (1 << 32) - 1, 2 << 8, 1 << 8]
_COMPRESSIONS = ("gz", "xz", "bz2", "zst")


def _compress(kind: str, data: bytes) -> bytes:
    if kind == "gz":
        return gzip.compress(data, mtime=0)
    if kind == "xz":
        return lzma.compress(data)
    if kind == "bz2":
        return bz2.compress(data)
    return zstandard.ZstdCompressor(write_checksum=True).compress(data)


def mutate(rng: random.Random, data: bytes, textual: bool) -> bytes:
    """`data` with one to four random edits."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(10)
        pos = rng.randint(0, len(buf))
        if op == 0 and buf:  # flip a bit
            i = rng.randrange(len(buf))
            buf[i] ^= 1 << rng.randrange(8)
        elif op == 1 and buf:  # set a byte
            buf[rng.randrange(len(buf))] = rng.randrange(256)
        elif op == 2:  # insert a token (text) or a little-endian u64 (binary)
            token = rng.choice(_TOKENS) if textual else struct.pack("<Q", rng.choice(_U64S))
            buf[pos:pos] = token
        elif op == 3 and not textual and len(buf) >= 8:  # overwrite a u64
            at = rng.randrange(len(buf) - 7)
            buf[at : at + 8] = struct.pack("<Q", rng.choice(_U64S))
        elif op == 4:  # delete a slice
            del buf[pos : pos + rng.randint(1, 16)]
        elif op == 5 and buf:  # duplicate a slice
            a = rng.randrange(len(buf))
            buf[pos:pos] = buf[a : a + rng.randint(1, 64)]
        elif op == 6:  # truncate
            del buf[pos:]
        elif op == 7:  # junk at the end
            buf += bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 8 and textual:  # byte-order mark in front
            buf[0:0] = b"\xef\xbb\xbf"
        elif op == 9 and textual:  # replace a line by a token line
            lines = bytes(buf).split(b"\n")
            lines[rng.randrange(len(lines))] = b" ".join(
                rng.choice(_TOKENS) for _ in range(rng.randint(1, 4))
            )
            buf = bytearray(b"\n".join(lines))
    return bytes(buf)


def random_bytes(rng: random.Random, textual: bool) -> bytes:
    """Random content: any bytes, or (for text formats, half the time) from a text alphabet."""
    n = rng.randint(0, 512)
    if textual and rng.random() < 0.5:
        alphabet = b'0123456789      \n\n\n,,,,*"rwx.\t\r'
        return bytes(rng.choice(alphabet) for _ in range(n))
    return rng.randbytes(n)


@dataclass
class FuzzInput:
    """One input: its file name, bytes, and for ``.pgt`` the columns written into it."""

    fmt: str
    name: str
    data: bytes
    written: dict[str, list[int] | None] | None = None


def make_input(rng: random.Random, fmt: str, seeds: Seeds, k: int) -> FuzzInput:
    """The `k`-th input for `fmt` (`rng` decides everything)."""
    if fmt == "detect":  # any format's input, under a name that does not give its format away
        inner = make_input(rng, rng.choice(FORMATS[:-1]), seeds, k)
        return FuzzInput(
            fmt, f"in{k}" + (".bin" if rng.random() < 0.5 else inner.name[len(f"in{k}") :]), inner.data
        )
    textual = fmt in ("text", "lis", "csv")
    name = f"in{k}{EXTENSION[fmt]}"
    if fmt == "pagesim":
        if rng.random() < 0.1:
            return FuzzInput(fmt, name, random_bytes(rng, False))
        data, written = rng.choice(seeds.pgt)
        return FuzzInput(fmt, name, mutate(rng, data, False), written)
    if rng.random() < 0.15 or not seeds.content[fmt]:
        data = random_bytes(rng, textual)
    else:
        data = mutate(rng, rng.choice(seeds.content[fmt]), textual)
    if rng.random() < 0.25:
        kind = rng.choice(_COMPRESSIONS)
        packed = _compress(kind, data)
        tail = rng.random()
        if tail < 0.15:
            packed += _compress(kind, mutate(rng, data, textual))  # a second stream
        elif tail < 0.3:
            packed += b"\0" * rng.choice((1, 3, 4, 8))  # padding, allowed for gz and (in fours) xz
        elif tail < 0.4:
            packed += rng.randbytes(rng.randint(1, 8))  # junk
        if rng.random() < 0.4:
            packed = mutate(rng, packed, False)
        data = packed
        name += "." + kind
    return FuzzInput(fmt, name, data)


# ------------------------------------------------------------------------ reference reader


class Refused(Exception):
    """The reference refuses the input."""


def _streams(data: bytes, new: Any, padding: str | None) -> bytes:
    """Whole streams one after the other; `padding` "any" or "4" allows NUL bytes between them."""
    out = []
    rest = data
    while rest:
        if padding is not None:
            stripped = rest.lstrip(b"\0")
            if padding == "4" and (len(rest) - len(stripped)) % 4:
                raise Refused("xz padding not a multiple of 4")
            rest = stripped
            if not rest:
                break
        dec = new()
        out.append(dec.decompress(rest))
        if not dec.eof:
            raise Refused("truncated stream")
        rest = dec.unused_data
    return b"".join(out)


def _zstd_frames(data: bytes) -> bytes:
    out = []
    rest = data
    while rest:
        if len(rest) >= 4 and int.from_bytes(rest[:4], "little") & 0xFFFFFFF0 == 0x184D2A50:
            if len(rest) < 8:
                raise Refused("truncated skippable frame")
            size = int.from_bytes(rest[4:8], "little")
            if len(rest) < 8 + size:
                raise Refused("truncated skippable frame")
            rest = rest[8 + size :]
            continue
        dec = zstandard.ZstdDecompressor().decompressobj()
        out.append(dec.decompress(rest))
        if not dec.eof:
            raise Refused("truncated frame")
        rest = dec.unused_data
    return b"".join(out)


def ref_decompress(data: bytes) -> bytes:
    """The content of a file, decompressed by its magic bytes (see pagesim.trace._stream's rules)."""
    try:
        if data[:2] == b"\x1f\x8b":
            return _streams(data, lambda: zlib.decompressobj(wbits=31), "any")
        if data[:6] == b"\xfd7zXZ\x00":
            return _streams(data, lambda: lzma.LZMADecompressor(format=lzma.FORMAT_XZ), "4")
        if data[:4] == b"\x28\xb5\x2f\xfd":
            return _zstd_frames(data)
        if data[:3] == b"BZh":
            return _streams(data, bz2.BZ2Decompressor, None)
    except (zlib.error, lzma.LZMAError, OSError, EOFError, zstandard.ZstdError) as exc:
        raise Refused(f"corrupt compressed data: {exc}") from None
    return data


def _strip_bom(content: bytes) -> bytes:
    return content[3:] if content.startswith(b"\xef\xbb\xbf") else content


def _uint(text: bytes, limit: int = U64_MAX) -> int:
    if not text.isdigit() or not text.isascii():
        raise Refused(f"not an unsigned integer: {text!r}")
    value = int(text)
    if value > limit:
        raise Refused(f"{value} out of range")
    return value


def _int_rows(content: bytes, lo: int, hi: int) -> list[list[int]]:
    rows = []
    for line in _strip_bom(content).split(b"\n"):
        fields = line.split()
        if not fields or fields == [b"*"]:
            continue
        if not lo <= len(fields) <= hi:
            raise Refused("field count")
        rows.append([_uint(f) for f in fields])
    return rows


def ref_text(content: bytes) -> dict[str, list[int] | None]:
    return {"ids": [r[0] for r in _int_rows(content, 1, 1)]}


def ref_lis(content: bytes) -> dict[str, list[int] | None]:
    ids: list[int] = []
    for start, count, *_ in _int_rows(content, 2, 4):
        if count > LIS_MAX_RUN or start + count - 1 > U64_MAX or len(ids) + count > LIS_MAX_ACCESSES:
            raise Refused("extent out of range")
        ids.extend(range(start, start + count))
    return {"ids": ids}


_WS = b" \t\r\x0b\x0c"


def _csv_fields(line: bytes) -> list[bytes]:
    fields = []
    i, n = 0, len(line)
    while True:
        while i < n and line[i : i + 1] in (b" ", b"\t", b"\r", b"\x0b", b"\x0c"):
            i += 1
        if i < n and line[i : i + 1] == b'"':
            k = i + 1
            while True:
                if k >= n:
                    raise Refused("unclosed quote")
                if line[k : k + 1] == b'"':
                    if line[k + 1 : k + 2] == b'"':
                        k += 2
                        continue
                    break
                k += 1
            fields.append(line[i + 1 : k])
            rest = line[k + 1 :]
            after = rest.split(b",", 1)[0]
            if after.strip(_WS):
                raise Refused("text after a closing quote")
            i = k + 1 + len(after)
        else:
            j = line.find(b",", i)
            j = n if j < 0 else j
            fields.append(line[i:j].rstrip(_WS))
            i = j
        if i < n and line[i : i + 1] == b",":
            i += 1
            continue
        return fields


def _csv_number(text: bytes, limit: int, fraction: bool) -> int:
    if len(text) > 2 and text[:2] in (b"0x", b"0X"):
        if not re.fullmatch(rb"[0-9a-fA-F]+", text[2:]):
            raise Refused("bad hex")
        value = int(text[2:], 16)
    else:
        m = re.fullmatch(rb"([0-9]+)(\.[0-9]*)?" if fraction else rb"([0-9]+)", text)
        if m is None:
            raise Refused(f"bad number {text!r}")
        value = int(m.group(1))
    if value > limit:
        raise Refused("number out of range")
    return value


def ref_csv(content: bytes) -> dict[str, list[int] | None]:
    from pagesim.trace.readers.csv import DEFAULT_OPS  # the documented table of op names

    lines = _strip_bom(content).split(b"\n")[1:]  # the first line is the header
    out: dict[str, list[int] | None] = {"ids": [], "size": [], "time": [], "op": []}
    for line in lines:
        if not line.strip(_WS):
            continue
        f = _csv_fields(line)
        if len(f) < 5:
            raise Refused("too few fields")
        out["ids"].append(_csv_number(f[4], U64_MAX, False))  # type: ignore[union-attr]
        out["size"].append(_csv_number(f[3], I64_MAX, False))  # type: ignore[union-attr]
        out["time"].append(_csv_number(f[1], I64_MAX, True))  # type: ignore[union-attr]
        op = f[2].decode("utf-8", errors="replace").strip().lower()
        if op not in DEFAULT_OPS:
            raise Refused(f"unknown op {op!r}")
        out["op"].append(DEFAULT_OPS[op])  # type: ignore[union-attr]
    return out


_VSCSI = {1: ("<IIIHHQQ", 32, (5, 1, 6, 3, 4)), 2: ("<HHIIIQQQ", 40, (5, 3, 6, 0, 1))}


def ref_vscsi(content: bytes) -> dict[str, list[int] | None]:
    if not content:
        return {"ids": [], "size": [], "time": [], "op": []}
    version = None
    for v in (2, 1):
        fmt, size, (_, _, _, _, ver) = _VSCSI[v]
        n = min(2, len(content) // size)
        if n and all(struct.unpack_from(fmt, content, k * size)[ver] >> 8 == v for k in range(n)):
            version = v
            break
    if version is None:
        raise Refused("no vSCSI version")
    fmt, size, (lbn, length, ts, cmd, _) = _VSCSI[version]
    if len(content) % size:
        raise Refused("partial record")
    out: dict[str, list[int]] = {"ids": [], "size": [], "time": [], "op": []}
    for k in range(len(content) // size):
        rec = struct.unpack_from(fmt, content, k * size)
        if rec[ts] > I64_MAX:
            raise Refused("ts out of range")
        out["ids"].append(rec[lbn])
        out["size"].append(rec[length])
        out["time"].append(rec[ts])
        out["op"].append(1 if rec[cmd] in (0x0A, 0x2A, 0xAA, 0x8A) else 0)
    return out  # type: ignore[return-value]


def ref_oracle(content: bytes) -> dict[str, list[int] | None]:
    """The records, refused as the reader's plausibility rule refuses them: a next access of -1
    or a later 1-based request, of the same object where it is inside the file, and times in
    order."""
    if len(content) % 24:
        raise Refused("partial record")
    records = [struct.unpack_from("<IQIq", content, 24 * k) for k in range(len(content) // 24)]
    for k, (t, i, _, nxt) in enumerate(records, start=1):
        if nxt != -1 and (nxt <= k or (nxt <= len(records) and records[nxt - 1][1] != i)):
            raise Refused("next access")
        if k > 1 and t < records[k - 2][0]:
            raise Refused("time out of order")
    out: dict[str, list[int]] = {
        "ids": [r[1] for r in records],
        "size": [r[2] for r in records],
        "time": [r[0] for r in records],
    }
    return out  # type: ignore[return-value]


_REFERENCE = {"text": ref_text, "lis": ref_lis, "csv": ref_csv, "vscsi": ref_vscsi, "oracle": ref_oracle}


def reference(inp: FuzzInput) -> tuple[str, Any]:
    """``("ok", columns)``, ``("refused", why)`` or, for ``.pgt``, ``("same-or-refused", columns)``."""
    if inp.fmt == "detect":
        return "any", None
    if inp.fmt == "pagesim":
        if inp.written is None:
            return "refused", "random bytes"
        return "same-or-refused", inp.written
    try:
        return "ok", _REFERENCE[inp.fmt](ref_decompress(inp.data))
    except Refused as exc:
        return "refused", str(exc)


# ------------------------------------------------------------------------ pagesim's reader


def _columns_of(t: Any) -> dict[str, list[int] | None]:
    ids = t.original_id[t.page].view(np.uint64).tolist()
    out: dict[str, list[int] | None] = {"ids": ids}
    for name in ("size", "time", "op", "kind", "cgroup", "tag"):
        col = getattr(t, name)
        out[name] = None if col is None else col.tolist()
    return out


def read_with_pagesim(fmt: str, path: str) -> tuple[str, Any]:
    """``("ok", columns)``, ``("clean", message)`` or ``("crash", "Type: message")``."""
    from pagesim.trace import TraceFormatError, read_trace

    try:
        if fmt == "detect":
            t = read_trace(path)
        else:
            t = read_trace(path, format=fmt, **OPTIONS.get(fmt, {}))
    except (TraceFormatError, ValueError) as exc:
        if path in str(exc):
            return "clean", str(exc)
        return "crash", f"{type(exc).__name__} not naming the file: {exc}"
    except Exception as exc:  # noqa: BLE001 - what the harness looks for
        return "crash", f"{type(exc).__name__}: {exc}"
    return "ok", _columns_of(t)


def _agree(got: dict[str, Any], want: dict[str, Any]) -> bool:
    n = len(got["ids"])
    for name, value in want.items():
        have = got.get(name)
        if have is None and n == 0 and not value:
            continue
        if have is None and name == "op":
            have = [0] * n
        if have != value:
            return False
    return True


def classify(inp: FuzzInput, got: tuple[str, Any]) -> tuple[str, str]:
    """(``ok`` | ``crash`` | ``wrong``, detail) of pagesim's outcome `got` on `inp`."""
    kind, value = got
    if kind == "crash":
        return "crash", value
    ref_kind, ref_value = reference(inp)
    if ref_kind == "any":
        return "ok", ""
    if kind == "clean":
        if ref_kind == "ok":
            return "wrong", f"refused what the reference reads: {value}"
        return "ok", ""
    if ref_kind == "refused":
        return "wrong", f"read what the reference refuses ({ref_value})"
    if not _agree(value, ref_value):
        return "wrong", "read other values than the reference"
    return "ok", ""


def check_in_process(inp: FuzzInput, directory: Path) -> tuple[str, str]:
    """Write `inp` under `directory`, read it here (no time limit) and classify the outcome."""
    path = directory / inp.name
    path.write_bytes(inp.data)
    try:
        return classify(inp, read_with_pagesim(inp.fmt, str(path)))
    finally:
        path.unlink()


# ------------------------------------------------------------------------ worker with a time limit


def _worker(conn: Any) -> None:
    while True:
        job = conn.recv()
        if job is None:
            return
        conn.send(read_with_pagesim(*job))


class Reader:
    """pagesim's reader in a worker process, restarted after a hang."""

    def __init__(self) -> None:
        self.ctx = mp.get_context("spawn")
        self._start()

    def _start(self) -> None:
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()

    def read(self, fmt: str, path: str, timeout: float) -> tuple[str, Any] | None:
        """pagesim's outcome, or None when it did not finish within `timeout` seconds."""
        self.conn.send((fmt, path))
        if self.conn.poll(timeout):
            try:
                return self.conn.recv()  # type: ignore[no-any-return]
            except EOFError:  # the worker died (a segfault is a crash too)
                self._restart()
                return "crash", f"worker died with exit code {self.proc.exitcode}"
        self._restart()
        return None

    def _restart(self) -> None:
        self.proc.kill()
        self.proc.join()
        self._start()

    def close(self) -> None:
        self.conn.send(None)
        self.proc.join(5)


# ------------------------------------------------------------------------ main


def run(
    formats: list[str], n: int, seed: int, traces: Path | None, timeout: float, save: Path | None
) -> dict[str, Counter[str]]:
    from rich.progress import Progress

    seeds = load_seeds(traces)
    reader = Reader()
    counts: dict[str, Counter[str]] = {}
    examples: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, Progress(transient=True) as bar:
        for fmt in formats:
            # warm up: the first read compiles or loads the parsers
            warm = FuzzInput(
                fmt,
                "warm" + (EXTENSION[fmt] or ".txt"),
                seeds.pgt[0][0] if fmt == "pagesim" else seeds.content.get(fmt, [b"1\n"])[0],
            )
            (Path(tmp) / warm.name).write_bytes(warm.data)
            reader.read(fmt, str(Path(tmp) / warm.name), 600.0)
            rng = random.Random(f"{seed}:{fmt}")
            counter: Counter[str] = Counter()
            task = bar.add_task(f"{fmt:8}", total=n)
            for k in range(n):
                inp = make_input(rng, fmt, seeds, k)
                path = Path(tmp) / inp.name
                path.write_bytes(inp.data)
                t0 = time.perf_counter()
                got = reader.read(fmt, str(path), timeout)
                counter["max_ms"] = max(counter["max_ms"], int(1000 * (time.perf_counter() - t0)))
                verdict, detail = ("hang", f"no answer in {timeout} s") if got is None else classify(inp, got)
                counter[verdict] += 1
                if got is not None and got[0] in ("ok", "clean"):
                    counter["accepted" if got[0] == "ok" else "refused"] += 1
                if verdict != "ok":
                    examples.append(f"{verdict:6} {fmt:8} input {k} ({inp.name}): {detail[:200]}")
                    if save is not None:
                        save.mkdir(parents=True, exist_ok=True)
                        (save / f"{fmt}-{k}-{inp.name}").write_bytes(inp.data)
                path.unlink()
                bar.advance(task)
            counts[fmt] = counter
    reader.close()
    for line in examples[:40]:
        print(line)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="inputs per reader (10,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--formats", default=",".join(FORMATS), help="comma-separated (all)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per input before it is a hang")
    parser.add_argument(
        "--traces",
        type=Path,
        default=Path(
            os.environ.get("PAGESIM_TRACES")
            or Path(__file__).resolve().parents[1].parent / "shared" / "traces"
        ),
        help="the real traces (../shared/traces or $PAGESIM_TRACES)",
    )
    parser.add_argument("--save", type=Path, default=None, help="write failing inputs here")
    args = parser.parse_args()
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        parser.error(f"unknown format(s) {unknown}; known: {', '.join(FORMATS)}")
    if args.n < 1 or args.timeout <= 0:
        parser.error("--n and --timeout must be positive")
    real = args.traces.is_dir()
    print(
        f"seed {args.seed}, {args.n:,} inputs per reader, {args.timeout:g} s limit per input; seeds: "
        f"{'built-in + ' + str(args.traces) if real else 'built-in only (no real traces found)'}"
    )
    t0 = time.perf_counter()
    counts = run(formats, args.n, args.seed, args.traces if real else None, args.timeout, args.save)
    heads = (
        ("inputs", 7),
        ("read", 6),
        ("refused", 8),
        ("crashes", 8),
        ("hangs", 6),
        ("wrong", 6),
        ("slowest", 9),
    )
    print(f"{'reader':8} " + " ".join(f"{h:>{w}}" for h, w in heads))
    bad = 0
    for fmt, c in counts.items():
        total = c["ok"] + c["crash"] + c["hang"] + c["wrong"]
        bad += c["crash"] + c["hang"] + c["wrong"]
        print(
            f"{fmt:8} {total:>7,} {c['accepted']:>6,} {c['refused']:>8,} {c['crash']:>8} {c['hang']:>6} "
            f"{c['wrong']:>6} {c['max_ms']:>6} ms"
        )
    inputs = sum(c["ok"] + c["crash"] + c["hang"] + c["wrong"] for c in counts.values())
    print(
        f"{'all':8} {inputs:>7,} inputs in {time.perf_counter() - t0:.0f} s: "
        f"{bad} crashes, hangs or wrong results"
    )
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
