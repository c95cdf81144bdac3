"""The fuzz tests' parent process: imports and one compile paid once (runner.warm_up), Triton's
interpreter switched on as in tests/backends/triton/conftest.py."""

import pytest
import torch

from . import runner


@pytest.fixture(scope="session")
def fuzz_parent():
    threads = torch.get_num_threads()
    runner.warm_up()
    torch.set_num_threads(threads)  # the other tests in this process keep their threads
    yield
