"""View and shape ops -> core aten views (view, permute, expand, slice, select, squeeze...)."""

from __future__ import annotations
