"""What each MCP tool does, as plain functions of the settings, a connection that became agent_signals_mcp
(store/agents/agent_tools.py) and the caller's grant (access.py). The server (server.py) only adapts them.

- get_context: the block an agent pastes, from context.user_context / context.agent_context, or their as-of
  rendering (mcp.get_context: the same SQL, never a second rendering).
- search_signals: the user's active signals nearest to a query, by the configured embedding model and pgvector.
- remember: what the user asked an agent to remember. Not sacred like `signals add`: it is written as the model
  would have written it, one create action whose evidence is the text itself, through the extraction's
  own validation and screens (core/user_work.py: judge, then settle). Accepted,
  it is the user's own signal; what the screens cannot decide is held for review (pending, as the pipeline's
  held candidates: `agent-signals review`); the rest is refused, and says why.
- forget: a tombstone, as `signals delete`."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Literal
from uuid import UUID

import psycopg
from pydantic import BaseModel, Field

from agent_signals.adapters import llm, providers
from agent_signals.config import Settings
from agent_signals.core import user_work
from agent_signals.core.outcome import UserOutcome
from agent_signals.core.prompting.extract_calls import Call, SourceMessage, UserMessages
from agent_signals.core.user_work import Refused
from agent_signals.errors import AgentSignalsError
from agent_signals.limits import QUOTE_MAX_CHARS
from agent_signals.mcp.access import Grant
from agent_signals.store.agents import agent_tools

HANDLE = "m1"  # the one message of a remembered text's call
ACTION = "actions.0."  # how validation names the one action's fields


class Context(BaseModel):
    """A user's context block, ready to paste into a system prompt."""

    user_id: str
    agent_id: str | None = Field(
        description="The agent whose block it is (its signals and the profile); null: the profile."
    )
    context_markdown: str = Field(description="The block: '## About this user' and its sections.")
    summary: str | None = Field(
        description="A short paragraph about the user, when the views hold a current one."
    )
    as_of: datetime = Field(
        description="When the block was rendered (the views' refresh, now, or the time asked)."
    )
    rendered: Literal["view", "live", "as_of"] = Field(
        description="'view': the context view's row; 'live': rendered now, the user's signals having changed "
        "since the view's refresh; 'as_of': the block as it was at the time asked."
    )


class FoundSignal(BaseModel):
    signal_id: UUID
    content: str
    kind: str
    tier: Literal["core", "contextual"]
    origin: Literal["manual", "inferred"] = Field(
        description="'manual': the user's own; 'inferred': learned."
    )
    agent_id: str | None = Field(description="The agent it is about; null: the user's profile.")
    evidence_at: datetime = Field(description="When the user last stated it.")
    similarity: float = Field(description="Cosine similarity to the query, 1 the closest.")


class Found(BaseModel):
    user_id: str
    query: str
    signals: list[FoundSignal]


class Remembered(BaseModel):
    status: Literal["active", "pending", "refused"] = Field(
        description="'active': the user's own signal now; 'pending': held for a person to review, in no context "
        "until approved; 'refused': not written (see reason)."
    )
    signal_id: UUID | None = None
    content: str | None = Field(default=None, description="The text as stored (active or pending).")
    reason: str | None = Field(default=None, description="Why it was held or refused.")


class Forgotten(BaseModel):
    signal_id: UUID
    status: Literal["deleted"] = "deleted"


def get_context(
    conn: psycopg.Connection,
    settings: Settings,
    grant: Grant,
    user_id: str,
    agent_id: str | None = None,
    as_of: datetime | None = None,
) -> Context:
    agent_id = _agent(agent_id)
    grant.check(user_id, agent_id)
    if as_of is not None and as_of.tzinfo is None:
        as_of = as_of.replace(tzinfo=UTC)  # a time without a zone is UTC
    if as_of is not None and as_of > datetime.now(UTC):
        raise AgentSignalsError(
            f"as_of {as_of.isoformat()} is in the future", hint="leave it out for the block now"
        )
    block = agent_tools.context(conn, user_id, agent_id, as_of)
    return Context(user_id=user_id, agent_id=agent_id, context_markdown=block.markdown, summary=block.summary,
                   as_of=block.refreshed_at, rendered=block.rendered)  # fmt: skip


def embed(settings: Settings, text: str) -> list[float]:
    """The text's vector by the configured embedding model (AGENT_SIGNALS_EMBEDDING_MODEL)."""
    providers.register_offline(settings)
    return asyncio.run(llm.embed([text], settings)).vectors[0]


def search_signals(
    conn: psycopg.Connection,
    settings: Settings,
    grant: Grant,
    user_id: str,
    query: str,
    limit: int = 10,
    agent_id: str | None = None,
) -> Found:
    agent_id = _agent(agent_id)
    grant.check(user_id, agent_id)
    if not query.strip():
        raise AgentSignalsError(
            "the query is empty", hint="say what to look for, e.g. 'how they like answers'"
        )
    rows = agent_tools.search(conn, user_id, embed(settings, query), limit, agent_id)
    return Found(user_id=user_id, query=query, signals=[FoundSignal(**row) for row in rows])


def remember(
    conn: psycopg.Connection,
    settings: Settings,
    grant: Grant,
    user_id: str,
    text: str,
    kind: str,
    agent_id: str | None = None,
) -> Remembered:
    agent_id = _agent(agent_id)
    grant.check(user_id, agent_id)
    verdict = judge(settings, user_id, text, kind, agent_id)
    if verdict.status == "refused":
        return verdict
    vector = embed(settings, verdict.content or "")
    signal_id, status = agent_tools.remember(
        conn, user_id, verdict.content or "", kind, agent_id, vector, verdict.reason
    )
    return Remembered(status=status, signal_id=signal_id, content=verdict.content,
                      reason=verdict.reason if status == "pending" else None)  # fmt: skip


def judge(settings: Settings, user_id: str, text: str, kind: str, agent_id: str | None) -> Remembered:
    """What validation and screening make of a remembered text, without writing: `active` (accepted),
    `pending` (held for review, with why) or `refused` (with why). A text off the rules of a signal (an
    unknown kind, too long, empty) is an AgentSignalsError the caller can fix."""
    now = datetime.now(UTC)
    message = SourceMessage.read(f"mcp:{agent_id or ''}", "remember", text, now, agent_id=agent_id)
    if not message.content.strip():
        raise AgentSignalsError(
            "the text to remember is empty", hint="say the fact, e.g. 'Prefers short answers'"
        )
    action = {"action": "create", "content": message.content, "tier": "contextual", "kind": kind,
              "scope": "profile" if agent_id is None else "agent",
              "evidence": [{"message": HANDLE, "quote": message.content[:QUOTE_MAX_CHARS]}]}  # fmt: skip
    # the extraction's own per-user work (core/user_work.py): the answer parsed and validated, then screened
    call = Call(prompt=[], messages={HANDLE: message}, signals={})
    answer = json.dumps({"actions": [action]})
    outcome = user_work.judge(call, answer, settings, UserOutcome(UserMessages(user_id, [message])))
    if isinstance(outcome, Refused):  # the envelope is ours: only a text no JSON can hold
        raise AgentSignalsError(f"the text cannot be remembered: {outcome.message}")
    if not outcome.proposals:
        reason = outcome.rejected[0].reason.replace(ACTION, "").replace("wrong schema at ", "")
        raise AgentSignalsError(
            f"the text cannot be a signal: {reason}",
            hint=f"kind is one of {', '.join(settings.run.kinds)}; the text is one short fact about the user",
        )
    outcome = user_work.settle(outcome, settings)
    if isinstance(outcome, Refused):  # a bug in a screen
        raise AgentSignalsError(f"the text could not be screened: {outcome.kind}: {outcome.message}")
    if outcome.proposals:
        return Remembered(status="active", content=outcome.proposals[0].content)
    if outcome.held:
        proposal, why = outcome.held[0]
        if settings.screening.review == "hold":
            return Remembered(
                status="pending",
                content=proposal.content,
                reason=f"held for review: {why.removeprefix('held: ')}",
            )
        return Remembered(
            status="refused", reason=f"held candidates are rejected here (AGENT_SIGNALS_REVIEW=reject): {why}"
        )
    if outcome.quarantine:
        return Remembered(status="refused", reason=outcome.quarantine[0][1])
    return Remembered(status="refused", reason=outcome.rejected[0].reason if outcome.rejected else "refused")


def forget(
    conn: psycopg.Connection, settings: Settings, grant: Grant, user_id: str, signal_id: str
) -> Forgotten:
    grant.check_user(user_id)  # its agents: mcp.forget refuses a signal of another agent
    try:
        signal = UUID(signal_id.strip())
    except ValueError:
        raise AgentSignalsError(
            f"{signal_id!r} is not a signal id",
            hint="give the signal_id search_signals returned (a UUID such as 0b6d3f0e-...)",
        ) from None
    agent_tools.forget(conn, user_id, signal, grant.agent_list)
    return Forgotten(signal_id=signal)


def _agent(agent_id: str | None) -> str | None:
    return agent_id.strip() or None if agent_id is not None else None
