"""Suite-wide guards and fixtures.

No test may reach a real model provider: pydantic-ai refuses real requests for the whole run.
Model calls use the offline model, FunctionModel/TestModel, or a fake server on 127.0.0.1.
"""

from __future__ import annotations

import os

import pydantic_ai.models

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

# Settings must come from the tests, never from a developer's environment or .env file.
_TEST_KNOBS = ("SUIKOU_TEST_POSTGRES_URL", "SUIKOU_TEST_BACKEND", "SUIKOU_OPENAI1_PYTHON")
for _name in [n for n in os.environ if n.startswith("SUIKOU_") and n not in _TEST_KNOBS]:
    del os.environ[_name]
os.environ.setdefault("OPENAI_API_KEY", "sk-test-never-used")

# --- fixtures for the service under test (helpers live in tests/support/harness.py) -----------

from collections.abc import Iterator  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402

from support.fake_openai import FakeOpenAI  # noqa: E402
from support.harness import Harness, make_harness, pg_schema, test_backend  # noqa: E402
from support.redis_keys import redis_prefix  # noqa: E402, F401 - a fixture: a key prefix on the test Redis


@pytest.fixture
def database_url(tmp_path: Any) -> Iterator[str]:
    """A fresh, empty database for one test: a SQLite file, or a throwaway PostgreSQL schema."""
    if test_backend() != "postgresql":
        yield f"sqlite:///{tmp_path / 'suikou.db'}"
        return
    with pg_schema() as url:
        yield url


@pytest.fixture
def harness(database_url: str) -> Iterator[Harness]:
    h = make_harness(database_url)
    yield h
    h.state.engine.dispose()


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    """A fake OpenAI-compatible provider on 127.0.0.1, one per test module (tests reset it)."""
    server = FakeOpenAI()
    server.start()
    yield server
    server.stop()
