"""Small modules the tests export."""

from __future__ import annotations

import torch


class Fn(torch.nn.Module):
    """A module whose forward is `fn`: exports a plain function of tensors."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)
