"""The context views as the command line reads and rebuilds them itself: a user's block of
context.user_context, why a user has none (the error and hint `agent-signals context` prints), and marking
every user clean after a full rebuild."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import psycopg

from agent_signals.errors import AgentSignalsError, UnknownUser
from agent_signals.store.sqlfiles import query


@dataclass(frozen=True)
class ContextBlock:
    markdown: str
    summary: str | None
    refreshed_at: datetime


def context_block(conn: psycopg.Connection, user_id: str, agent_id: str | None = None) -> ContextBlock | None:
    """The user's row of context.user_context (of context.agent_context for an agent), None when it has none;
    an error when the views were never built."""
    if agent_id:
        name, params = "context_views/agent_context", {"user_id": user_id, "agent_id": agent_id}
    else:
        name, params = "context_views/user_context", {"user_id": user_id}
    try:
        row = conn.execute(query(name), params).fetchone()
    except psycopg.errors.UndefinedTable:
        raise AgentSignalsError(
            "the context views do not exist yet",
            hint="run `agent-signals run` (or `agent-signals views refresh`)",
        ) from None
    return ContextBlock(*row) if row else None


@dataclass(frozen=True)
class MissingContext:
    """What decides why a user has no row in a context view (context_views/context_missing.sql)."""

    conversations: int
    flagged: int
    any_signals: bool
    active_signals: int
    forgotten_at: datetime | None
    pending: int  # messages a run would read now
    waiting: int  # messages of a user waiting out a failure's backoff
    retry_after: datetime | None
    set_aside: int
    agents: list[str]  # the agents the user talked with or has signals of
    agent_known: bool  # the agent asked for appears in some conversation or signal


def missing_context(conn: psycopg.Connection, user_id: str, agent_id: str | None = None) -> MissingContext:
    row = conn.execute(query("context_views/context_missing"), {"user_id": user_id, "agent_id": agent_id})
    return MissingContext(*row.fetchone())


def _when(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC")


def explain_missing(user: str, agent: str | None, why: MissingContext) -> AgentSignalsError:
    """The error `agent-signals context USER [--agent AGENT]` gives for a user without a row: what is the
    case, and a hint that names what to do about it (not always a run)."""
    run = "`agent-signals run`"
    if why.conversations == 0 and not why.any_signals and why.forgotten_at is None:
        return UnknownUser(
            f"no conversations or signals for user {user!r}",
            hint="check the user id; a user's conversations come in with `agent-signals load FILE` "
            "(or through your tables behind source.conversations)",
        )
    if why.forgotten_at is not None and why.active_signals == 0:
        since = (
            f"the {why.pending} message(s) they wrote since are read by the next run: {run}"
            if why.pending
            else "nothing to do: what they say from now on is learned by the next run after it"
        )
        return AgentSignalsError(
            f"{user!r} was forgotten at {_when(why.forgotten_at)} (`agent-signals forget`): nothing learned "
            "before is kept, and their messages from before are never read again",
            hint=since,
        )
    if agent is not None and agent not in why.agents:
        theirs = (
            f"{user!r} talks with {', '.join(repr(a) for a in why.agents)}"
            if why.agents
            else f"none of the conversations of {user!r} is with an agent"
        )
        profile = f"an agent without a row reads the profile: `agent-signals context {user}`"
        if not why.agent_known:
            return AgentSignalsError(
                f"no conversation or signal is with agent {agent!r}",
                hint=f"check the agent id (source.conversations.agent_id; {theirs}); {profile}",
            )
        return AgentSignalsError(
            f"{user!r} never talked with agent {agent!r} and has no signal of it",
            hint=f"{profile} ({theirs})",
        )
    if why.active_signals == 0 and why.flagged == 0:
        return AgentSignalsError(
            f"none of the {why.conversations} conversation(s) of {user!r} is flagged for extraction",
            hint='runs read only flagged conversations ("extract": true in the file `agent-signals load` '
            f"takes, source.conversations.flagged in your tables): flag them, then {run}",
        )
    if why.pending:
        return AgentSignalsError(
            f"{user!r} has {why.pending} message(s) no run has read yet", hint=f"run {run}"
        )
    if why.waiting:
        after = f" after {_when(why.retry_after)}" if why.retry_after else ""
        return AgentSignalsError(
            f"the last extraction of {user!r} failed: their {why.waiting} message(s) wait out its backoff",
            hint=f"the first run{after} tries again; why it failed is in ops.failures "
            f"(`select stage, error_kind, message from ops.failures where user_id = '{user}'`)",
        )
    if why.active_signals == 0 and why.set_aside:
        return AgentSignalsError(
            f"{why.set_aside} message(s) of {user!r} were set aside after failed attempts, and nothing else "
            "of theirs was learned",
            hint=f"see why with `agent-signals set-aside list --user {user}`; "
            f"`agent-signals set-aside release --user {user}` then {run} reads them again",
        )
    if why.active_signals:
        return AgentSignalsError(
            f"the signals of {user!r} changed since the views were last refreshed",
            hint=f"run {run} (or `agent-signals views refresh`)",
        )
    where = (
        f"`agent-signals signals list --user {user} --all` and `agent-signals review list --user {user}` "
        "show what was learned and set apart"
        if why.any_signals
        else "what was refused, and why, is in ops.rejected_actions "
        f"(`select stage, reason, action from ops.rejected_actions where user_id = '{user}'`)"
    )
    return AgentSignalsError(
        f"the runs read the messages of {user!r} and kept no signal: nothing they said was a durable fact "
        "about themselves that passed the checks",
        hint=f"nothing to run; {where}",
    )


def clear_all_dirty(conn: psycopg.Connection, refresh_started: datetime) -> None:
    """After a full rebuild that started at refresh_started: every user changed before it is clean."""
    conn.execute(query("context_views/clear_all_dirty"), {"refresh_started": refresh_started})
