"""Short-time Fourier transform -> frames (`unfold`), the window (`mul.Tensor`) and one batched
real or complex FFT over the frame axis, as ATen's `stft` composes it. The centre padding of
`torch.stft(center=True)` was already applied by export (`stft.center` is composite)."""

from __future__ import annotations

from .fft import NORM_BY_ROOT_N, NORM_NONE, is_complex
from .registry import register_decomposition
from .views import rank


def _padded_window(rewriter, window, win_length: int, n_fft: int):
    """A window shorter than n_fft, zero-padded on both sides to n_fft (centred, as ATen)."""
    if window is None or win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    return rewriter.aten("aten.constant_pad_nd", window, [left, n_fft - win_length - left])


@register_decomposition("aten.stft")
def decompose_stft(op, rewriter):
    """aten.stft -> aten.unfold, aten.mul.Tensor, aten._fft_r2c, aten.transpose.int

    Also `unsqueeze`/`squeeze.dims` for 1-d input, `constant_pad_nd` for a short window,
    `_fft_c2c` for complex input and `view_as_real` for return_complex=False."""
    a = rewriter.args
    x, n_fft, window = a["self"], a["n_fft"], a["window"]
    hop = a["hop_length"] if a["hop_length"] is not None else n_fft // 4
    win_length = a["win_length"] if a["win_length"] is not None else n_fft
    if not isinstance(n_fft, int) or not isinstance(hop, int) or rank(x) not in (1, 2):
        return None
    batched = rank(x) == 2
    frames = x if batched else rewriter.aten("aten.unsqueeze", x, 0)
    frames = rewriter.aten("aten.unfold", frames, -1, n_fft, hop)  # (batch, n_frames, n_fft)
    window = _padded_window(rewriter, window, win_length, n_fft)
    if window is not None:
        frames = rewriter.aten("aten.mul.Tensor", frames, window)
    norm = NORM_BY_ROOT_N if a["normalized"] else NORM_NONE
    if is_complex(frames):
        if a["onesided"]:
            return None  # ATen rejects a onesided transform of complex input
        spectrum = rewriter.aten("aten._fft_c2c", frames, [2], norm, True)
    else:
        onesided = a["onesided"] is None or bool(a["onesided"])
        spectrum = rewriter.aten("aten._fft_r2c", frames, [2], norm, onesided)
    out = rewriter.aten("aten.transpose.int", spectrum, 1, 2)  # (batch, freq, n_frames)
    if not batched:
        out = rewriter.aten("aten.squeeze.dims", out, [0])
    if not a["return_complex"]:
        out = rewriter.aten("aten.view_as_real", out)
    return out
