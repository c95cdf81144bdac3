"""Normalization layers -> core aten (native_layer_norm, native_group_norm, batch norm)."""

from __future__ import annotations
