#!/usr/bin/env python3
# Copied from ../shared/tools/check_stream.py (the project's stream conformance checker; checklist
# items refer to ../shared/docs/openai-protocol.md). Changes: the schemas are read from
# tests/data/openai_schemas (tests never read ../shared), ruff-style fixes, and a small
# "Helpers for the test suite" section at the end. The checking logic is unchanged.
"""Check one streamed chat-completions response against OPENAI_PROTOCOL.md (section C-G items).

Input is either a captured raw SSE body (the bytes after the HTTP headers) or a live request:

  python check_stream.py body.sse [--include-usage] [--n 1]
  python check_stream.py --url http://127.0.0.1:8000/v1/chat/completions --request req.json [--api-key KEY]
      (req.json is the JSON body; "stream": true is forced; include_usage is read from it)

Prints one line per checklist item it can test: PASS / FAIL / WARN (SHOULD-level) / SKIP, with the item
number from OPENAI_PROTOCOL.md. Exit status 1 when any MUST-level item fails.
Needs `jsonschema` and the schemas in openai_schemas/.
"""

import argparse
import json
import pathlib
import sys
import urllib.request

from jsonschema import Draft202012Validator

HERE = pathlib.Path(__file__).resolve().parent
SCHEMA_DIR = HERE.parent / "data" / "openai_schemas"
CHUNK_SCHEMA = Draft202012Validator(json.loads((SCHEMA_DIR / "chat_completion_chunk.json").read_text()))
FINISH = {"stop", "length", "tool_calls", "content_filter", "function_call"}

results = []  # (item, level, ok, note)


def check(item, level, ok, note=""):
    results.append((item, level, ok, note))


def parse_events(raw: bytes):
    """Split a raw SSE body into events the way a line-oriented client does. Returns (events, framing_notes)."""
    text = raw.decode("utf-8")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    events, cur, notes = (
        [],
        [],
        {"event_fields": 0, "id_retry_fields": 0, "comments": 0, "unterminated_last": False, "crlf": "\r" in text},
    )
    for line in lines:
        if line == "":
            if cur:
                events.append(cur)
                cur = []
            continue
        if line.startswith(":"):
            notes["comments"] += 1
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            notes["event_fields"] += 1
        elif field in ("id", "retry"):
            notes["id_retry_fields"] += 1
        cur.append((field, value))
    if cur:  # last event not followed by a blank line: python SDK drops it
        notes["unterminated_last"] = True
        events.append(cur)
    return events, notes


def run_checks(raw: bytes, include_usage: bool, n: int, headers=None, status=None):
    if status is not None:
        check(14, "MUST", status == 200, f"HTTP {status}")
        if status != 200:  # an error answer: check it is a JSON error envelope (items 42/43) and stop
            err_schema = Draft202012Validator(json.loads((SCHEMA_DIR / "error_response.json").read_text()))
            ctype = (headers or {}).get("content-type", "")
            check(43, "MUST", ctype.startswith("application/json"), f"error content-type={ctype!r}")
            try:
                errs = [e.message[:100] for e in err_schema.iter_errors(json.loads(raw))]
            except ValueError:
                errs = ["body is not JSON"]
            check(42, "MUST", not errs, "; ".join(errs[:2]) or raw[:120].decode("utf-8", "replace"))
            return
    if headers is not None:
        ctype = headers.get("content-type", "")
        check(14, "MUST", ctype.startswith("text/event-stream"), f"content-type={ctype!r}")

    events, notes = parse_events(raw)
    check(
        15,
        "MUST",
        all(sum(f == "data" for f, _ in ev) == 1 for ev in events if any(f == "data" for f, _ in ev)),
        "every event has exactly one data: line",
    )
    check(16, "MUST", notes["event_fields"] == 0, f"{notes['event_fields']} event: line(s)")
    check(17, "SHOULD", notes["id_retry_fields"] == 0, f"{notes['id_retry_fields']} id:/retry: line(s)")
    check(18, "MUST", all(any(f == "data" for f, _ in ev) for ev in events), "no event block without a data: line")
    datas = [next(v for f, v in ev if f == "data") for ev in events if any(f == "data" for f, _ in ev)]
    done_idx = [i for i, d in enumerate(datas) if d.startswith("[DONE]")]
    check(
        19,
        "MUST",
        len(done_idx) == 1 and done_idx[0] == len(datas) - 1 and datas[-1] == "[DONE]",
        f"[DONE] at {done_idx} of {len(datas)} events",
    )
    check(20, "MUST", not notes["unterminated_last"], "last event terminated by a blank line")
    check(21, "SHOULD", not notes["crlf"], "LF line endings")

    chunks, errors = [], []
    for d in datas:
        if d.startswith("[DONE]"):
            continue
        try:
            obj = json.loads(d)
        except ValueError:
            errors.append(f"non-JSON data: {d[:60]!r}")
            continue
        if isinstance(obj, dict) and obj.get("error"):
            errors.append(f"error payload: {json.dumps(obj)[:120]}")
            continue
        chunks.append(obj)
    check(23, "MUST", not errors, "; ".join(errors[:3]) or "no error / non-JSON payloads")
    bad = [(i, e.message[:100]) for i, c in enumerate(chunks) for e in CHUNK_SCHEMA.iter_errors(c)]
    check(
        23,
        "MUST",
        not bad and bool(chunks),
        f"{len(bad)} schema error(s) {bad[:3]}" if bad else f"{len(chunks)} chunk(s) valid",
    )
    if not chunks:
        return
    for key, item, level in (("id", 24, "MUST"), ("created", 24, "MUST"), ("model", 24, "SHOULD")):
        vals = {json.dumps(c.get(key)) for c in chunks}
        check(item, level, len(vals) == 1, f"{key} values: {sorted(vals)[:3]}")
    check(32, "MUST", all(c.get("system_fingerprint", "") is not None for c in chunks), "system_fingerprint never null")

    choice_chunks = [c for c in chunks if c.get("choices")]
    firsts = {}
    for c in choice_chunks:
        for ch in c["choices"]:
            firsts.setdefault(ch.get("index"), ch)
    check(
        26,
        "MUST",
        all(f.get("delta", {}).get("role") == "assistant" for f in firsts.values()),
        "first delta of each choice carries role=assistant",
    )
    roles = {ch.get("delta", {}).get("role") for c in choice_chunks for ch in c["choices"]} - {None}
    check(26, "MUST", roles <= {"assistant"}, f"delta roles seen: {sorted(roles)}")
    idx = {ch.get("index") for c in choice_chunks for ch in c["choices"]}
    check(
        30,
        "MUST",
        idx == set(range(n)) and all(len(c["choices"]) <= n for c in choice_chunks),
        f"choice indexes {sorted(idx, key=str)}",
    )
    check(
        31, "SHOULD", all("logprobs" in ch for c in choice_chunks for ch in c["choices"]), "logprobs key present (null)"
    )

    # finish_reason per index: exactly one, valid, nothing after it
    for i in sorted(x for x in idx if isinstance(x, int)):
        seq = [ch for c in choice_chunks for ch in c["choices"] if ch.get("index") == i]
        fins = [k for k, ch in enumerate(seq) if ch.get("finish_reason") is not None]
        check(28, "MUST", len(fins) == 1, f"index {i}: {len(fins)} chunk(s) with finish_reason")
        if fins:
            tail = seq[fins[0] + 1 :]
            check(
                28,
                "MUST",
                not any(ch.get("delta", {}).get("content") or ch.get("delta", {}).get("tool_calls") for ch in tail),
                f"index {i}: no content/tool deltas after finish_reason",
            )
            fr = seq[fins[0]]["finish_reason"]
            check(29, "MUST", fr in FINISH, f"index {i}: finish_reason={fr!r}")
            had_tools = any(ch.get("delta", {}).get("tool_calls") for ch in seq)
            check(
                35,
                "MUST",
                (fr == "tool_calls") == had_tools or fr == "length",
                f"index {i}: tool deltas={had_tools} finish={fr!r}",
            )

    # usage
    usage_chunks = [k for k, c in enumerate(chunks) if c.get("usage") is not None]
    if include_usage:
        ok = len(usage_chunks) == 1 and usage_chunks[0] == len(chunks) - 1 and chunks[-1].get("choices") == []
        check(
            33,
            "MUST",
            ok,
            f"usage on chunk(s) {usage_chunks} of {len(chunks)}; last choices={chunks[-1].get('choices')}",
        )
        check(33, "SHOULD", all("usage" in c for c in chunks[:-1]), 'other chunks carry "usage": null')
        if usage_chunks:
            u = chunks[usage_chunks[-1]]["usage"]
            check(
                34,
                "SHOULD",
                u.get("total_tokens") == u.get("prompt_tokens", 0) + u.get("completion_tokens", 0),
                f"usage={u}",
            )
    else:
        check(
            33,
            "SHOULD",
            not usage_chunks and all(c.get("choices") for c in chunks),
            "no usage / no empty-choices chunk when not requested",
        )

    # tool-call deltas
    seen_ids, args = {}, {}
    tool_ok, tool_notes = True, []
    for c in choice_chunks:
        for ch in c["choices"]:
            for tc in ch.get("delta", {}).get("tool_calls") or []:
                key = (ch.get("index"), tc.get("index"))
                args[key] = args.get(key, "") + ((tc.get("function") or {}).get("arguments") or "")
                if not isinstance(tc.get("index"), int):
                    tool_ok = False
                    tool_notes.append("tool_call without integer index")
                if key not in seen_ids:
                    seen_ids[key] = tc.get("id")
                    fn = tc.get("function") or {}
                    if not (tc.get("id") and tc.get("type") == "function" and fn.get("name")):
                        tool_ok = False
                        tool_notes.append(f"first delta for {key} lacks id/type/function.name")
                elif tc.get("id") or (tc.get("function") or {}).get("name"):
                    tool_ok = False
                    tool_notes.append(f"later delta for {key} repeats id/name")
    if seen_ids:
        check(35, "MUST", tool_ok, "; ".join(tool_notes[:3]) or f"{len(seen_ids)} tool call(s)")
        bad_args = []
        for key, a in args.items():
            try:
                json.loads(a or "{}")
            except ValueError:
                bad_args.append(key)
        check(36, "SHOULD", not bad_args, f"concatenated arguments parse as JSON; bad: {bad_args}")

    # reasoning
    mixed, order_bad, seen_content = 0, 0, False
    for c in choice_chunks:
        d = c["choices"][0].get("delta", {})
        r = d.get("reasoning_content") or d.get("reasoning")
        if r and d.get("content"):
            mixed += 1
        if d.get("content"):
            seen_content = True
        elif r and seen_content:
            order_bad += 1
    has_reasoning = any(
        (c["choices"][0].get("delta", {}).get("reasoning_content") or c["choices"][0].get("delta", {}).get("reasoning"))
        for c in choice_chunks
    )
    if has_reasoning:
        check(
            38,
            "SHOULD",
            any(c["choices"][0].get("delta", {}).get("reasoning_content") for c in choice_chunks),
            "reasoning sent as delta.reasoning_content",
        )
        check(39, "MUST", mixed == 0, f"{mixed} delta(s) mix non-empty reasoning and content")
        check(39, "SHOULD", order_bad == 0, f"{order_bad} reasoning delta(s) after content started")
    if has_reasoning:
        ds_bad = [
            k
            for k, c in enumerate(choice_chunks)
            for ch in c["choices"]
            if "reasoning_content" not in ch.get("delta", {})
            or (not ch["delta"].get("reasoning_content") and not isinstance(ch["delta"].get("content"), str))
        ]
        check(
            40,
            "SHOULD",
            not ds_bad,
            f"DeepSeek key layout (reasoning_content key everywhere, string content otherwise); bad chunk(s) {ds_bad[:5]}",
        )
    text = "".join(c["choices"][0].get("delta", {}).get("content") or "" for c in choice_chunks)
    check(
        41,
        "SHOULD",
        not (has_reasoning and "<think>" in text),
        "no <think> tags in content when reasoning_content is used",
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("body", nargs="?")
    ap.add_argument("--include-usage", action="store_true")
    ap.add_argument("--n", type=int, default=1)
    ap.add_argument("--url")
    ap.add_argument("--request")
    ap.add_argument("--api-key", default="sk-test")
    ap.add_argument("--save", help="write the raw body here (live mode)")
    a = ap.parse_args()
    if a.url:
        req = (
            json.loads(pathlib.Path(a.request).read_text())
            if a.request
            else {"model": "test", "messages": [{"role": "user", "content": "Say hi"}]}
        )
        req["stream"] = True
        include_usage = bool((req.get("stream_options") or {}).get("include_usage"))
        n = req.get("n") or 1
        r = urllib.request.Request(
            a.url,
            data=json.dumps(req).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {a.api_key}"},
        )
        try:
            with urllib.request.urlopen(r, timeout=300) as resp:
                status, headers, raw = resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
        except urllib.error.HTTPError as e:
            status, headers, raw = e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()
        if a.save:
            pathlib.Path(a.save).write_bytes(raw)
        run_checks(raw, include_usage, n, headers, status)
    else:
        run_checks(pathlib.Path(a.body).read_bytes(), a.include_usage, a.n)
    must_fail = 0
    for item, level, ok, note in results:
        tag = "PASS" if ok else ("FAIL" if level == "MUST" else "WARN")
        must_fail += not ok and level == "MUST"
        print(f"{tag} #{item:<3} {level:6s} {note}")
    return 1 if must_fail else 0


if __name__ == "__main__":
    sys.exit(main())


# --- Helpers for the test suite (not in the original) ------------------------------------------


def check_body(raw: bytes, *, include_usage: bool = False, n: int = 1, headers=None, status=None):
    """Runs every check on one captured body; returns [(item, level, ok, note)] for this body only."""
    results.clear()
    run_checks(raw, include_usage, n, headers, status)
    out = list(results)
    results.clear()
    return out


def must_failures(checked):
    return [r for r in checked if r[1] == "MUST" and not r[2]]


def should_failures(checked):
    return [r for r in checked if r[1] != "MUST" and not r[2]]


def schema_errors(name: str, obj) -> list:
    """Messages of every violation of openai_schemas/<name>.json (empty when valid)."""
    validator = Draft202012Validator(json.loads((SCHEMA_DIR / f"{name}.json").read_text()))
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(obj)]
