"""A 16 x 16 f32 transpose in registers as 64 two-source shuffles, for the AMX kernel's result
tiles whose rows run along C's columns (a Linear, its weight the row operand).

`vector.transpose` of a `vector<16x16xf32>` is lowered element by element (inserts and
permutes, ~16 instructions per row); these masks are the ones x86 has single instructions for
(`vunpcklps`/`vunpckhps`, `vunpcklpd`/`vunpckhpd`, `vshuff32x4`), 4 per row: in 4 stages,
interleave row pairs (2 x 2 blocks), then pairs of pairs (4 x 4 blocks in each 128-bit lane),
then the 128-bit lanes as a 4 x 4 transpose of their own. A bf16 Linear x[512, 512] @
W[1536, 512].T + bias spent ~30% of its tile loop's time in the element-wise transpose.
"""

from __future__ import annotations

from mlir.dialects import vector

N = 16


def _unpack(width: int, high: bool) -> list[int]:
    # per 128-bit lane, `width` elements of a then of b, from the lane's low or high half
    at = 2 if high else 0
    if width == 1:
        return [
            x
            for q in range(4)
            for x in (4 * q + at, 16 + 4 * q + at, 4 * q + at + 1, 16 + 4 * q + at + 1)
        ]
    return [
        x
        for q in range(4)
        for x in (4 * q + at, 4 * q + at + 1, 16 + 4 * q + at, 16 + 4 * q + at + 1)
    ]


def _lanes(odd: bool) -> list[int]:
    # 128-bit lanes (0, 2) of a then of b, or (1, 3)
    first = 1 if odd else 0
    return [16 * s + 4 * q + i for s in (0, 1) for q in (first, first + 2) for i in range(4)]


def transpose_masks():
    """The shuffle masks of the 4 stages (named for what they do), exposed for the test."""
    return {
        "lo_ps": _unpack(1, False),
        "hi_ps": _unpack(1, True),
        "lo_pd": _unpack(2, False),
        "hi_pd": _unpack(2, True),
        "even_lanes": _lanes(False),
        "odd_lanes": _lanes(True),
    }


def transpose16(rows: list, shuffle=None) -> list:
    """The 16 columns of the 16 rows `rows` (vector<16xf32> values), as 16 vectors.
    `shuffle(a, b, mask)` defaults to `vector.shuffle` (a list-based one checks the masks)."""
    shuffle = shuffle or (lambda a, b, mask: vector.shuffle(a, b, mask))
    m = transpose_masks()
    pairs = []
    for i in range(0, N, 2):  # rows 2i, 2i+1: columns (4q, 4q+1) and (4q+2, 4q+3) interleaved
        pairs += [
            shuffle(rows[i], rows[i + 1], m["lo_ps"]),
            shuffle(rows[i], rows[i + 1], m["hi_ps"]),
        ]
    quads = []  # quads[4g + c], 128-bit lane q: column 4q + c of rows 4g .. 4g + 3
    for g in range(0, N, 4):
        t = pairs[g : g + 4]
        quads += [
            shuffle(t[0], t[2], m["lo_pd"]),
            shuffle(t[0], t[2], m["hi_pd"]),
            shuffle(t[1], t[3], m["lo_pd"]),
            shuffle(t[1], t[3], m["hi_pd"]),
        ]
    out = [None] * N
    for c in range(4):  # a 4 x 4 transpose of 128-bit lanes: column 4q + c gathers lane q
        g = [quads[4 * k + c] for k in range(4)]
        even01, odd01 = shuffle(g[0], g[1], m["even_lanes"]), shuffle(g[0], g[1], m["odd_lanes"])
        even23, odd23 = shuffle(g[2], g[3], m["even_lanes"]), shuffle(g[2], g[3], m["odd_lanes"])
        out[c] = shuffle(even01, even23, m["even_lanes"])
        out[8 + c] = shuffle(even01, even23, m["odd_lanes"])
        out[4 + c] = shuffle(odd01, odd23, m["even_lanes"])
        out[12 + c] = shuffle(odd01, odd23, m["odd_lanes"])
    return out
