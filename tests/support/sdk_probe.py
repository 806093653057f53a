"""Drive a running Suikou server with the official `openai` Python SDK and print what came back.

Standalone on purpose (stdlib + `openai` only, no project imports), so any interpreter with any
openai release can run it — tests/app/test_sdk.py runs it with the current SDK and with an
openai 1.x venv (env SUIKOU_OPENAI1_PYTHON):

    python tests/support/sdk_probe.py --base-url http://127.0.0.1:8000/v1 --api-key sk-suikou-...
    python tests/support/sdk_probe.py ... --only midstream   # expects the server to fail mid-stream

Prints one JSON object. Every SDK exception raised where none was expected is recorded under
"unexpected" instead of crashing, so the caller sees all failures at once.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from typing import Any

import openai
from openai import OpenAI

QUESTIONS = {"query": "这周有什么要交的", "chat": "你好"}


def make_client(base_url: str, api_key: str) -> OpenAI:
    return OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=60, _strict_response_validation=True)


def error_info(exc: BaseException, where: str) -> dict[str, Any]:
    return {
        "class": type(exc).__name__,
        "where": where,
        "status_code": getattr(exc, "status_code", None),
        "code": getattr(exc, "code", None),
        "type": getattr(exc, "type", None),
        "param": getattr(exc, "param", None),
        "message": str(getattr(exc, "message", exc)),
        "is_api_error": isinstance(exc, openai.APIError),
    }


def whole(client: OpenAI, model: str, text: str) -> dict[str, Any]:
    r = client.chat.completions.create(model=model, messages=[{"role": "user", "content": text}])
    choice = r.choices[0]
    return {
        "id": r.id,
        "object": r.object,
        "model": r.model,
        "content": choice.message.content,
        "role": choice.message.role,
        "finish_reason": choice.finish_reason,
        # Extra fields stay reachable (pydantic extra="allow"), in strict mode too.
        "reasoning_content": choice.message.reasoning_content  # type: ignore[attr-defined]
        if "reasoning_content" in (choice.message.model_extra or {})
        else None,
        "suikou_events": (r.model_extra or {}).get("suikou_events"),
        "usage": r.usage.model_dump() if r.usage else None,
    }


def streamed(client: OpenAI, model: str, text: str) -> dict[str, Any]:
    stream = client.chat.completions.create(
        model=model,
        messages=[{"role": "user", "content": text}],
        stream=True,
        stream_options={"include_usage": True},
    )
    out: dict[str, Any] = {
        "ids": [],
        "created": [],
        "models": [],
        "roles": [],
        "content": "",
        "reasoning": "",
        "suikou_events": [],
        "finish_reasons": [],
        "usage": None,
        "usage_chunk_choices": None,
        "chunks": 0,
        "missing_reasoning_attr": 0,
        "order": "",  # r = reasoning delta, c = content delta
    }
    for chunk in stream:
        out["chunks"] += 1
        for key, value in (("ids", chunk.id), ("created", chunk.created), ("models", chunk.model)):
            if value not in out[key]:
                out[key].append(value)
        event = (chunk.model_extra or {}).get("suikou_event")
        if event is not None:
            out["suikou_events"].append(event)
        if chunk.usage is not None:
            out["usage"] = chunk.usage.model_dump()
            out["usage_chunk_choices"] = len(chunk.choices)
        for choice in chunk.choices:
            delta = choice.delta
            if delta.role is not None:
                out["roles"].append(delta.role)
            try:
                reasoning = delta.reasoning_content  # type: ignore[attr-defined]
            except AttributeError:  # DeepSeek's sample loop would crash here
                out["missing_reasoning_attr"] += 1
                reasoning = None
            if reasoning:
                out["reasoning"] += reasoning
                out["order"] += "r"
            if delta.content:
                out["content"] += delta.content
                out["order"] += "c"
            if choice.finish_reason is not None:
                out["finish_reasons"].append(choice.finish_reason)
    return out


def run_all(base_url: str, api_key: str, model: str, out: dict[str, Any]) -> None:
    unexpected: list[dict[str, Any]] = out["unexpected"]
    with make_client(base_url, api_key) as client:
        try:
            out["models"] = [m.id for m in client.models.list()]
            out["model_card"] = client.models.retrieve(model).model_dump()
        except Exception as exc:
            unexpected.append(error_info(exc, "models") | {"trace": traceback.format_exc()})
        out["whole"], out["stream"] = {}, {}
        for name, text in QUESTIONS.items():
            try:
                out["whole"][name] = whole(client, model, text)
            except Exception as exc:
                unexpected.append(error_info(exc, f"whole:{name}") | {"trace": traceback.format_exc()})
            try:
                out["stream"][name] = streamed(client, model, text)
            except Exception as exc:
                unexpected.append(error_info(exc, f"stream:{name}") | {"trace": traceback.format_exc()})

        # Errors must come back as the SDK's typed exceptions, with .code etc. from the body.
        errors: dict[str, Any] = {}
        bad_requests: dict[str, dict[str, Any]] = {
            "empty_messages": {"messages": []},
            "image_part": {
                "messages": [
                    {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x/a.png"}}]}
                ]
            },
            "too_long": {"messages": [{"role": "user", "content": "x" * 100_000}]},
        }
        for name, kwargs in bad_requests.items():
            for stream in (False, True):
                label = f"{name}:{'stream' if stream else 'whole'}"
                try:
                    result = client.chat.completions.create(model=model, stream=stream, **kwargs)  # type: ignore[call-overload]
                except Exception as exc:
                    errors[label] = error_info(exc, "create")
                    continue
                try:  # the error must be raised by create(), before any iteration
                    for _ in result if stream else ():
                        pass
                    errors[label] = {"class": None, "where": "no error"}
                except Exception as exc:
                    errors[label] = error_info(exc, "iteration")
        try:
            client.models.retrieve("no-such-model")
            errors["unknown_model"] = {"class": None}
        except Exception as exc:
            errors["unknown_model"] = error_info(exc, "retrieve")
        out["errors"] = errors

    with make_client(base_url, "sk-suikou-wrong-key") as wrong:
        try:
            wrong.models.list()
            out["errors"]["wrong_key"] = {"class": None}
        except Exception as exc:
            out["errors"]["wrong_key"] = error_info(exc, "models.list")
        try:
            wrong.chat.completions.create(model=model, messages=[{"role": "user", "content": "hi"}], stream=True)
            out["errors"]["wrong_key_stream"] = {"class": None}
        except Exception as exc:
            out["errors"]["wrong_key_stream"] = error_info(exc, "create")


def run_midstream(base_url: str, api_key: str, model: str, out: dict[str, Any]) -> None:
    """The server is expected to fail after the stream started: the SDK must raise APIError."""
    with make_client(base_url, api_key) as client:
        seen: list[str] = []
        try:
            stream = client.chat.completions.create(
                model=model, messages=[{"role": "user", "content": "你好"}], stream=True
            )
        except Exception as exc:
            out["midstream"] = error_info(exc, "create")
            return
        try:
            for chunk in stream:
                for choice in chunk.choices:
                    seen.append(choice.delta.content or getattr(choice.delta, "reasoning_content", None) or "")
            out["midstream"] = {"class": None, "where": "no error"}
        except Exception as exc:
            out["midstream"] = error_info(exc, "iteration")
        out["midstream"]["chunks_before_error"] = len(seen)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--api-key", required=True)
    ap.add_argument("--model", default="suikou")
    ap.add_argument("--only", choices=["all", "midstream"], default="all")
    args = ap.parse_args(argv)
    out: dict[str, Any] = {"openai_version": openai.__version__, "python": sys.version.split()[0], "unexpected": []}
    if args.only == "midstream":
        run_midstream(args.base_url, args.api_key, args.model, out)
    else:
        run_all(args.base_url, args.api_key, args.model, out)
    print(json.dumps(out, ensure_ascii=False, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
