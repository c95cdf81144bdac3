"""Small torch.nn modules the tests of several passes export."""

from __future__ import annotations

import torch


class Conv2d(torch.nn.Module):
    """conv2d of an input and a weight both given as arguments (so both can have `?` dims)."""

    def __init__(self, stride, padding):
        super().__init__()
        self.stride, self.padding = stride, padding

    def forward(self, x, w):
        return torch.nn.functional.conv2d(x, w, stride=self.stride, padding=self.padding)
