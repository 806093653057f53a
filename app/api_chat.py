"""OpenAI-compatible endpoints: /agent/chat, /v1/chat/completions, /v1/models."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, StreamingResponse

from app.deps import CurrentUser, StateDep, TimezoneDep
from app.errors import NotFound
from app.turns import complete, make_job, stream
from app.wire import ResponseIds, message_texts, parse_chat_request

router = APIRouter()

MODEL_CREATED = 1_764_460_800  # 2025-11-30, when the model id was first served


@router.post("/agent/chat", summary="Chat (OpenAI chat-completions compatible)")
@router.post("/v1/chat/completions", summary="Chat (alias of /agent/chat)")
async def chat_completions(
    request: Request,
    state: StateDep,
    user: CurrentUser,
    tz: TimezoneDep,
    x_client_message_id: Annotated[str | None, Header()] = None,
) -> Any:
    body = parse_chat_request(request.headers.get("content-type"), await request.body())
    messages = message_texts(body, max_chars=state.settings.max_message_chars, max_messages=state.settings.max_messages)
    if not state.settings.accept_any_model and body.model != state.settings.served_model_id:
        raise NotFound(f"The model '{body.model}' does not exist.", param="model", code="model_not_found")
    assert user.id is not None
    job = make_job(state, body, messages, user_id=user.id, tz=tz, client_message_id=x_client_message_id)
    ids = ResponseIds(body.model)
    if body.stream:
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        return StreamingResponse(
            stream(job, ids, include_usage=include_usage),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    return JSONResponse(await complete(job, ids))


def _model_card(model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": MODEL_CREATED, "owned_by": "suikou"}


@router.get("/v1/models")
async def list_models(state: StateDep, _user: CurrentUser) -> dict[str, Any]:
    return {"object": "list", "data": [_model_card(state.settings.served_model_id)]}


@router.get("/v1/models/{model_id}")
async def get_model(model_id: str, state: StateDep, _user: CurrentUser) -> dict[str, Any]:
    if model_id != state.settings.served_model_id:
        raise NotFound(f"The model '{model_id}' does not exist.", param="model", code="model_not_found")
    return _model_card(model_id)
