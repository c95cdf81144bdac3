"""Register transposes of the FMA kernels, as two-input `vector.shuffle`s (one `vpermt2ps` each):
a square block of L vectors of L lanes transposed in log2(L) butterfly stages, L/2 shuffle pairs
a stage, instead of L*L element extracts and inserts (what an unrolled `vector.transpose`
lowers to without the x86 transpose patterns).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, vector


def _swap_masks(lanes: int, h: int) -> tuple[list[int], list[int]]:
    """The shuffles of (u, w) that swap the off-diagonal h x h blocks of each 2h x 2h block of
    the pair of rows (u above w, h rows apart): lanes with bit h clear keep u's, the others take
    the other row's lane h away (w's lanes are numbered from `lanes` on)."""
    low = [i if not i & h else lanes + i - h for i in range(lanes)]
    high = [i + h if not i & h else lanes + i for i in range(lanes)]
    return low, high


def transpose(rows: list[ir.Value]) -> list[ir.Value]:
    """The transpose of a square block given as its rows (len(rows) == lanes, a power of 2):
    out[j][i] = rows[i][j]. At each stage h = L/2 .. 1, rows r and r + h (bit h of r clear) swap
    their off-diagonal h x h blocks; after all stages every element has moved to its mirror."""
    lanes = ir.VectorType(rows[0].type).shape[0]
    assert len(rows) == lanes and lanes & (lanes - 1) == 0
    out = list(rows)
    h = lanes // 2
    while h:
        low, high = _swap_masks(lanes, h)
        for r in range(lanes):
            if not r & h:
                u, w = out[r], out[r + h]
                out[r], out[r + h] = vector.shuffle(u, w, low), vector.shuffle(u, w, high)
        h //= 2
    return out


def lane_sums(vectors: list[ir.Value]) -> ir.Value:
    """One vector whose lane q is the sum of the lanes of vectors[q] (len(vectors) == lanes):
    the same butterflies as `transpose`, each pair of shuffles added instead of kept, so the
    vector count halves each stage (L - 1 adds and 2 (L - 1) + 1 shuffles for L sums, where L
    separate reductions take L log2(L) of each)."""
    lanes = ir.VectorType(vectors[0].type).shape[0]
    assert len(vectors) == lanes and lanes & (lanes - 1) == 0
    # the vector each lane's partial sum belongs to, tracked to undo the order at the end
    sources = [[s] * lanes for s in range(lanes)]
    out = list(vectors)
    h = lanes // 2
    while h:
        low, high = _swap_masks(lanes, h)
        pairs, labels = [], []
        for t in range(0, len(out), 2):
            (u, w), (su, sw) = out[t : t + 2], sources[t : t + 2]
            assert all(su[i] == su[i + h] and sw[i] == sw[i + h] for i in range(lanes) if not i & h)
            pairs.append(arith.addf(vector.shuffle(u, w, low), vector.shuffle(u, w, high)))
            labels.append([su[i] if not i & h else sw[i] for i in range(lanes)])
        out, sources = pairs, labels
        h //= 2
    where = {source: lane for lane, source in enumerate(sources[0])}
    return vector.shuffle(out[0], out[0], [where[q] for q in range(lanes)])
