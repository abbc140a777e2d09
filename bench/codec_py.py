"""Python-level codec micro-benchmark: fastodbc's decoders against CPython's, ns per value.

fastodbc_bench.decode_utf16le / decode_utf8 (bench/pyext, `make bench-ext`) are the fetch
path's decoders exposed to Python. The references are CPython's own decoders on the same bytes:

- ``b.decode("utf-16")``: CPython's C fast path (``PyUnicode_Decode`` recognises the name and
  skips the codec registry; the inputs carry no BOM, so it decodes little-endian like
  utf-16-le). This is the reference the targets are judged against: the strictest one.
- ``b.decode("utf-16-le")``: the codec a client would name; it goes through the codec registry
  (CPython 3.11 fast-paths only "utf-16"/"utf-8"/"latin-1"/"ascii"/...), which costs extra.
- ``b.decode("utf-8")`` for the UTF-8 decoder.
- direct: ``fastodbc_bench.decode_loop_ns`` runs fastodbc's decoder and CPython's C decoder
  (``PyUnicode_DecodeUTF16`` little-endian, ``PyUnicode_DecodeUTF8``: what ``bytes.decode``
  calls) in a Rust loop, each result freed at once. It compares the decoders alone, as the
  fetch path uses them (no Python call per value); the Python-level figures carry a ~30 ns
  call, as much as decoding 128 characters.

Each figure is the median of 15 rounds; in each round every decoder runs a ~10 ms ``timeit``
loop on one value (loop overhead included for all), interleaved so that load bursts on the
machine hit all alike. Speedups are medians of the per-round ratios. "allocations/value" counts
the blocks each decoded value keeps alive (tracemalloc, 1,000 values kept in a list): 1 means the ``str`` is the only
allocation left; transient allocations freed before returning are not visible to this method
(the Rust loop itself allocates nothing: bench/codec checks that with a counting allocator).

    python bench/codec_py.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import timeit
import tracemalloc
from pathlib import Path

import fastodbc_bench

_ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
_LATIN1 = "àáâãäåæçèéêëìíîïñòóôõöøùúûüýÿ"
_CYRILLIC = "".join(chr(c) for c in range(0x410, 0x450))
_CJK = "".join(chr(c) for c in range(0x4E00, 0x4E00 + 64))
_EMOJI = "".join(chr(c) for c in range(0x1F600, 0x1F640))


def _cycle(alphabet: str, n: int) -> str:
    return (alphabet * (n // len(alphabet) + 1))[:n]


#: The categories of issue 3, and one value shaped like the unicode3 dataset's (emoji, ASCII
#: runs, CJK, Latin-1 and Cyrillic in one value); the same strings as bench/codec/src/text.rs.
CATEGORIES: dict[str, str] = {
    "ascii8": _cycle(_ASCII, 8),
    "ascii32": _cycle(_ASCII, 32),
    "ascii128": _cycle(_ASCII, 128),
    "ascii2048": _cycle(_ASCII, 2048),
    "ascii127_nonascii1": _cycle(_ASCII, 127) + "é",
    "latin1_32": _cycle(_LATIN1, 32),
    "cyrillic32": _cycle(_CYRILLIC, 32),
    "cjk32": _cycle(_CJK, 32),
    "emoji16": _cycle(_EMOJI, 16),
    "mixed42": "🌰🌯🌽😹yOUaIzlEjdZg6v6 2m🌰🙃侁乫乁佔伭付伻 íëø Привет",
}

ROUNDS = 15
ROUND_SECONDS = 0.01


def _timer(stmt: str, env: dict) -> tuple[timeit.Timer, int]:
    timer = timeit.Timer(stmt, globals=env)
    timer.timeit(2000)  # warm-up
    probe = timer.timeit(2000) / 2000
    return timer, max(100, int(ROUND_SECONDS / max(probe, 1e-9)))


def paired(stmts: dict[str, str], env: dict) -> dict[str, list[float]]:
    """ns per call of every statement, ROUNDS rounds, the statements interleaved in each round
    (so that a burst of load on the machine hits all of them alike)."""
    timers = {k: _timer(s, env) for k, s in stmts.items()}
    out: dict[str, list[float]] = {k: [] for k in stmts}
    for _ in range(ROUNDS):
        for k, (timer, number) in timers.items():
            out[k].append(timer.timeit(number) / number * 1e9)
    return out


def ratio(num: list[float], den: list[float]) -> float:
    """Median of the per-round ratios."""
    return statistics.median(a / b for a, b in zip(num, den, strict=True))


def _direct_iterations(b: bytes) -> int:
    """Iterations for ~5 ms per decoder in one direct round."""
    return max(1000, 5_000_000 // (30 + len(b) // 2))


def retained_blocks(fn, b: bytes, n: int = 1000) -> float:
    out = [None] * n
    tracemalloc.start()
    before = sum(s.count for s in tracemalloc.take_snapshot().statistics("filename"))
    for i in range(n):
        out[i] = fn(b)
    after = sum(s.count for s in tracemalloc.take_snapshot().statistics("filename"))
    tracemalloc.stop()
    del out
    return (after - before) / n


def run() -> dict:
    results = {}
    d16, d8 = fastodbc_bench.decode_utf16le, fastodbc_bench.decode_utf8
    for name, text in CATEGORIES.items():
        b16, b8 = text.encode("utf-16-le"), text.encode("utf-8")
        assert d16(b16) == text and d8(b8) == text, name
        env = {"b16": b16, "b8": b8, "d16": d16, "d8": d8}
        t = paired(
            {
                "fastodbc_utf16": "d16(b16)",
                "cpython_utf16": "b16.decode('utf-16')",
                "cpython_utf16le_named": "b16.decode('utf-16-le')",
                "fastodbc_utf8": "d8(b8)",
                "cpython_utf8": "b8.decode('utf-8')",
            },
            env,
        )
        r: dict = {"chars": len(text)}
        r.update({k: statistics.median(v) for k, v in t.items()})
        r["speedup_utf16"] = ratio(t["cpython_utf16"], t["fastodbc_utf16"])
        r["speedup_utf16_named"] = ratio(t["cpython_utf16le_named"], t["fastodbc_utf16"])
        r["speedup_utf8"] = ratio(t["cpython_utf8"], t["fastodbc_utf8"])
        # The decoders without a Python call around them (`fastodbc_bench.decode_loop_ns`): fastodbc's
        # and CPython's own C decoder, each in a Rust loop, interleaved round by round.
        direct16 = [fastodbc_bench.decode_loop_ns(b16, "utf-16-le", _direct_iterations(b16)) for _ in range(ROUNDS)]
        direct8 = [fastodbc_bench.decode_loop_ns(b8, "utf-8", _direct_iterations(b8)) for _ in range(ROUNDS)]
        r["direct_fastodbc_utf16"] = statistics.median(f for f, _ in direct16)
        r["direct_cpython_utf16"] = statistics.median(c for _, c in direct16)
        r["direct_speedup_utf16"] = statistics.median(c / f for f, c in direct16)
        r["direct_fastodbc_utf8"] = statistics.median(f for f, _ in direct8)
        r["direct_cpython_utf8"] = statistics.median(c for _, c in direct8)
        r["direct_speedup_utf8"] = statistics.median(c / f for f, c in direct8)
        r["alloc_fastodbc_utf16"] = retained_blocks(d16, b16)
        r["alloc_fastodbc_utf8"] = retained_blocks(d8, b8)
        results[name] = r
    return results


def markdown(results: dict) -> str:
    head = (
        "| category | fastodbc utf16 ns | CPython `decode('utf-16')` ns | speedup | `decode('utf-16-le')` ns"
        " | fastodbc utf8 ns | CPython `decode('utf-8')` ns | speedup | allocs/value (16 / 8)"
        " | direct utf16 speedup | direct utf8 speedup |"
    )
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in results.items():
        lines.append(
            f"| {name} | {r['fastodbc_utf16']:.0f} | {r['cpython_utf16']:.0f} | {r['speedup_utf16']:.2f}x"
            f" | {r['cpython_utf16le_named']:.0f} | {r['fastodbc_utf8']:.0f} | {r['cpython_utf8']:.0f}"
            f" | {r['speedup_utf8']:.2f}x | {r['alloc_fastodbc_utf16']:.2f} / {r['alloc_fastodbc_utf8']:.2f}"
            f" | {r['direct_speedup_utf16']:.2f}x | {r['direct_speedup_utf8']:.2f}x |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    results = run()
    print(markdown(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
