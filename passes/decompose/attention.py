"""Attention -> core aten (the math path of scaled_dot_product_attention)."""

from __future__ import annotations
