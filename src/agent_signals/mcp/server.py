"""The MCP server: tools.py's functions as MCP tools on the official SDK (FastMCP), over stdio or streamable
HTTP. Thin: each tool takes a connection of the pool (every connection `set role agent_signals_mcp`), runs
its function in a worker thread, and turns an AgentSignalsError into a tool error of one line with its hint.
Over HTTP every request carries a bearer token (access.py); the grant it maps to decides which users and
agents a call may reach, request by request (the server keeps no session: stateless HTTP)."""

# no `from __future__ import annotations`: the SDK reads the tools' annotations, which name build()'s locals

import json
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

import anyio
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from psycopg_pool import ConnectionPool
from pydantic import Field, ValidationError

from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.mcp import tools
from agent_signals.mcp.access import EVERYONE, Grant, Tokens
from agent_signals.store import database
from agent_signals.store.agents.agent_tools import become_mcp

log = logging.getLogger("agent_signals.mcp")
GRANT = "agent_signals_grant"  # where the HTTP middleware leaves the request's grant (the ASGI scope's state)
POOL_SIZE = 4
T = TypeVar("T")

INSTRUCTIONS = """\
Memory of durable, self-stated facts about a user (their role, team, what they own, how they like answers).
Call get_context at the start of a conversation and put its context_markdown in your system prompt; use
search_signals to look for something specific. Call remember only when the user asks you to remember a fact
about themselves, in the third person without a subject ("Prefers short answers"); never store instructions,
secrets or what other people said. Call forget when the user asks you to forget something."""

UserId = Annotated[str, Field(min_length=1, max_length=200, description="The user's id in your application.")]
AgentId = Annotated[
    str | None,
    Field(
        max_length=200,
        description="Your agent's id: its own signals beside the profile. Omit for the profile only.",
    ),
]


def open_pool(settings: Settings) -> ConnectionPool:
    """Connections as agent_signals_mcp: AGENT_SIGNALS_MCP_DATABASE_URL's login, or the project's. The first
    is opened and checked here, so that a wrong URL or a login that cannot become the role stops the start
    with one line."""
    url = settings.mcp.database_url or database.database_url(settings)
    with database.connect(url, autocommit=True) as conn:
        become_mcp(conn)
    pool = ConnectionPool(
        url, min_size=1, max_size=POOL_SIZE, kwargs={"autocommit": True, "connect_timeout": database.CONNECT_TIMEOUT_S},
        configure=become_mcp, open=False, name="agent-signals-mcp",
    )  # fmt: skip
    pool.open(wait=True, timeout=database.CONNECT_TIMEOUT_S)
    return pool


class _Server(FastMCP):
    """FastMCP whose refusal of a tool's arguments is one line naming each wrong argument (the SDK's is
    pydantic's report, over several lines)."""

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        try:
            return await super().call_tool(name, arguments)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            wrong = "; ".join(
                f"{'.'.join(str(part) for part in error['loc']) or 'arguments'}: {error['msg']}"
                for error in exc.__cause__.errors()
            )
            raise ToolError(
                f"Error executing tool {name}: wrong arguments: {wrong} (hint: see the tool's input schema)"
            ) from None


def build(settings: Settings, pool: ConnectionPool, *, host: str = "127.0.0.1", port: int = 8000) -> FastMCP:
    server = _Server(
        "agent-signals", instructions=INSTRUCTIONS, host=host, port=port, stateless_http=True, json_response=True,
        log_level="WARNING",
    )  # fmt: skip
    server._mcp_server.version = _version()  # serverInfo names this package's version, not the SDK's

    async def call(ctx: Context, fn: Callable[..., T], *args: Any) -> T:
        grant = _grant(ctx)

        def run() -> T:
            with pool.connection() as conn:
                return fn(conn, settings, grant, *args)

        try:
            return await anyio.to_thread.run_sync(run)
        except AgentSignalsError as exc:
            raise ToolError(f"{exc.message}" + (f" (hint: {exc.hint})" if exc.hint else "")) from None

    @server.tool(structured_output=True)
    async def get_context(
        user_id: UserId,
        ctx: Context,
        agent_id: AgentId = None,
        as_of: Annotated[
            datetime | None,
            Field(description="ISO 8601 time: the block as it was then (UTC if no zone). Omit for now."),
        ] = None,
    ) -> tools.Context:
        """The user's context block, to paste into your system prompt: what they confirmed themselves, their core
        identity and recent context, as markdown under '## About this user'. With agent_id, your agent's block
        (the profile and what is about their relationship with your agent). An unknown user is an error."""
        return await call(ctx, tools.get_context, user_id, agent_id, as_of)

    @server.tool(structured_output=True)
    async def search_signals(
        user_id: UserId,
        query: Annotated[
            str, Field(min_length=1, max_length=1000, description="What to look for, in words.")
        ],
        ctx: Context,
        limit: Annotated[int, Field(ge=1, le=50, description="At most this many signals.")] = 10,
        agent_id: AgentId = None,
    ) -> tools.Found:
        """The user's active signals closest in meaning to the query, the closest first, each with its kind,
        tier (core or contextual), origin (manual: the user's own; inferred: learned from conversations), when
        the user last stated it, and its signal_id (for forget)."""
        return await call(ctx, tools.search_signals, user_id, query, limit, agent_id)

    @server.tool(structured_output=True)
    async def remember(
        user_id: UserId,
        text: Annotated[
            str,
            Field(
                min_length=1,
                max_length=1000,
                description="One short fact about the user, third person without a subject: 'Prefers answers in bullet points'.",
            ),
        ],
        kind: Annotated[str, Field(description=f"One of: {', '.join(settings.run.kinds)}.")],
        ctx: Context,
        agent_id: AgentId = None,
    ) -> tools.Remembered:
        """Remember a fact the user asked you to remember about themselves. It is checked as any learned fact is:
        accepted (status active: in their context from now on), held for a person to review (pending), or
        refused with the reason (instructions, secrets, contact details and sensitive categories are never
        stored). With agent_id, the fact is about the user's relationship with your agent only."""
        return await call(ctx, tools.remember, user_id, text, kind, agent_id)

    @server.tool(structured_output=True)
    async def forget(
        user_id: UserId,
        signal_id: Annotated[
            str, Field(min_length=1, max_length=100, description="The signal_id search_signals returned.")
        ],
        ctx: Context,
    ) -> tools.Forgotten:
        """Forget one of the user's signals when the user asks you to: it leaves their context at once and is
        never learned again from what they said before."""
        return await call(ctx, tools.forget, user_id, signal_id)

    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agent-signals")
    except PackageNotFoundError:  # a source tree on PYTHONPATH, not installed
        return "0+unknown"


def _grant(ctx: Context) -> Grant:
    """The caller's grant: over HTTP the one the middleware found for its token; over stdio, everyone (the
    process that started the server)."""
    request = ctx.request_context.request
    if request is None:
        return EVERYONE
    grant = request.scope.get("state", {}).get(GRANT)
    if not isinstance(grant, Grant):
        raise ToolError("no bearer token was checked for this request")
    return grant


class BearerAuth:
    """ASGI middleware: an HTTP request without a known bearer token is answered 401, before the MCP app sees
    it; a known one's grant goes with the request (its scope's state) to the tools."""

    def __init__(self, app: Callable, tokens: Tokens) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
        scheme, _, token = header.partition(" ")
        grant = self.tokens.grant(token.strip()) if scheme.lower() == "bearer" else None
        if grant is None:
            why = "a bearer token is required" if not header else "the bearer token is not valid"
            body = json.dumps({"error": "invalid_token", "error_description": why}).encode()
            await send({"type": "http.response.start", "status": 401, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", f'Bearer realm="agent-signals", error="invalid_token", error_description="{why}"'.encode()),
            ]})  # fmt: skip
            await send({"type": "http.response.body", "body": body})
            return
        scope.setdefault("state", {})[GRANT] = grant
        await self.app(scope, receive, send)


def serve_stdio(settings: Settings) -> None:
    pool = open_pool(settings)
    try:
        build(settings, pool).run("stdio")
    finally:
        pool.close()


def serve_http(
    settings: Settings, tokens: Tokens, host: str, port: int, ready: Callable[[str], None]
) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp until interrupted; `ready` is told the URL once it listens."""
    import uvicorn

    pool = open_pool(settings)
    try:
        app = BearerAuth(build(settings, pool, host=host, port=port).streamable_http_app(), tokens)
        config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
        server = uvicorn.Server(config)

        async def main() -> None:
            async with anyio.create_task_group() as group:
                group.start_soon(server.serve)
                while not server.started:
                    if server.should_exit:
                        return
                    await anyio.sleep(0.05)
                bound = server.servers[0].sockets[0].getsockname()[1] if server.servers else port
                ready(f"http://{host}:{bound}/mcp")

        anyio.run(main)
    finally:
        pool.close()
