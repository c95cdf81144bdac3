"""Fixtures the frontend tests share (defined in tests/support/)."""

from tests.support.retraces import retraces  # noqa: F401  (fixture)
