"""OpenAI-compatible endpoints: /agent/chat, /v1/chat/completions, /v1/models."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, StreamingResponse

from app.deps import CurrentUser, StateDep, TimezoneDep
from app.errors import NotFound, error_responses
from app.ratelimit import stream_lease
from app.turns import complete, make_job, stream
from app.wire import (
    CHAT_REQUEST,
    LISTED_SUFFIXES,
    SSE_EVENT,
    STAGE_DISPLAYS,
    ChatCompletion,
    ModelCard,
    ModelList,
    ResponseIds,
    message_texts,
    model_display,
    parse_chat_request,
    stage_display,
)

router = APIRouter()

MODEL_CREATED = 1_764_460_800  # 2025-11-30, when the model id was first served
CHAT_PATHS = ("/agent/chat", "/v1/chat/completions")

# The body is read and checked by `parse_chat_request` (auth comes first, and errors keep OpenAI's
# wording), so FastAPI cannot see it: the document gets it here.
_CHAT_DOC: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{CHAT_REQUEST}"}}},
    },
}
_CHAT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": ChatCompletion,
        "description": "The answer: JSON, or with `stream` true an SSE stream of chunks ending in `[DONE]`.",
        "content": {"text/event-stream": {"itemSchema": SSE_EVENT}},
    },
    **error_responses(400, 401, 404, 413, 415, 500, 503),
}


@router.post(
    CHAT_PATHS[0],
    summary="Chat (OpenAI chat-completions compatible)",
    response_model=None,
    responses=_CHAT_RESPONSES,
    openapi_extra=_CHAT_DOC,
)
@router.post(
    CHAT_PATHS[1],
    summary="Chat (alias of /agent/chat)",
    response_model=None,
    responses=_CHAT_RESPONSES,
    openapi_extra=_CHAT_DOC,
)
async def chat_completions(
    request: Request,
    state: StateDep,
    user: CurrentUser,
    tz: TimezoneDep,
    x_client_message_id: Annotated[
        str | None, Header(description="Names one attempt of a turn: its retries create at most one task.")
    ] = None,
    x_suikou_stages: Annotated[
        str | None,
        Header(
            description="Where stage events go (docs/fdr/0021); overrides the model suffix and SUIKOU_STAGE_DISPLAY.",
            json_schema_extra={"enum": list(STAGE_DISPLAYS)},
        ),
    ] = None,
) -> Any:
    body = parse_chat_request(request.headers.get("content-type"), await request.body())
    messages = message_texts(body, max_chars=state.settings.max_message_chars, max_messages=state.settings.max_messages)
    served = state.settings.served_model_id
    if not state.settings.accept_any_model and not _is_served(body.model, served):
        raise NotFound(f"The model '{body.model}' does not exist.", param="model", code="model_not_found")
    display = stage_display(x_suikou_stages, body.model, served, state.settings.stage_display)
    assert user.id is not None
    job = make_job(
        state, body, messages, user_id=user.id, tz=tz, client_message_id=x_client_message_id, display=display
    )
    ids = ResponseIds(body.model)
    if body.stream:
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        leased = await stream_lease(request, user.id)  # a 429 here when the key's streams are all open
        return StreamingResponse(
            leased(stream(job, ids, include_usage=include_usage)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    return JSONResponse(await complete(job, ids))


def _model_card(model_id: str) -> ModelCard:
    return ModelCard(id=model_id, object="model", created=MODEL_CREATED, owned_by="suikou")


def _is_served(model: str, served: str) -> bool:
    """The served id, or it with a stage-display suffix (`suikou-think`)."""
    return model == served or model_display(model, served) is not None


@router.get("/v1/models", response_model=ModelList, responses=error_responses(401, 500, 503))
async def list_models(state: StateDep, _user: CurrentUser) -> ModelList:
    served = state.settings.served_model_id
    # The suffixed ids are for UIs where picking a model is the only per-chat setting.
    ids = [served, *(f"{served}-{suffix}" for suffix in LISTED_SUFFIXES)]
    return ModelList(object="list", data=[_model_card(i) for i in ids])


@router.get("/v1/models/{model_id}", response_model=ModelCard, responses=error_responses(401, 404, 500, 503))
async def get_model(model_id: str, state: StateDep, _user: CurrentUser) -> ModelCard:
    if not _is_served(model_id, state.settings.served_model_id):
        raise NotFound(f"The model '{model_id}' does not exist.", param="model", code="model_not_found")
    return _model_card(model_id)
