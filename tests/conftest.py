"""Suite-wide guards and fixtures.

No test may reach a real model provider: pydantic-ai refuses real requests for the whole run.
Model calls use the offline model, FunctionModel/TestModel, or a fake server on 127.0.0.1.
"""

from __future__ import annotations

import os

import pydantic_ai.models

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

# Settings must come from the tests, never from a developer's environment or .env file.
for _name in [n for n in os.environ if n.startswith("SUIKOU_") and n != "SUIKOU_TEST_POSTGRES_URL"]:
    del os.environ[_name]
os.environ.setdefault("OPENAI_API_KEY", "sk-test-never-used")
