"""`agent-signals mcp` (docs/agents.md) through the MCP SDK's own clients, over stdio (the server a subprocess
the client spawns) and streamable HTTP (a server on a free port, bearer tokens): each tool, bad input, hostile
text remembered, tokens limited to users and agents, and the role the server connects as, which reads no
table. Every wait is a condition polled within a bound."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import psycopg
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from psycopg import sql

from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError
from agent_signals.mcp import access, tools
from agent_signals.stages.by_hand import own_signals, reviews
from tests.builders import conversation, load_conversations
from tests.hostile import load_corpus

ROOT = Path(__file__).resolve().parents[1]
START_S = 90  # the most a server may take to start (imports, the embedded server's first connection)
FULL = "full-token-0123456789abcdef"  # AGENT_SIGNALS_MCP_TOKEN: every user
BOB_ONLY = "bob-only-token-0123456789"  # a token of the file limited to user bob
SUPPORT = "support-agent-token-012345"  # a token of the file limited to agent support
USERS = ("ada", "bob", "cy", "dee", "eve", "fay", "gus", "hal")


def _with_db(url: str, dbname: str) -> str:
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    return make_conninfo(**{**conninfo_to_dict(url), "dbname": dbname})


@pytest.fixture(scope="module")
def mcp_db(server_url: str, template_db: str) -> Iterator[str]:
    """One migrated database for the module's servers: users with conversations, ada with two signals of her
    own and one about her relationship with agent `support`, bob with one; all embedded."""
    name = f"agent_signals_test_mcp_{uuid.uuid4().hex[:8]}"
    admin = _with_db(server_url, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(
            sql.SQL("create database {} template {}").format(
                sql.Identifier(name), sql.Identifier(template_db)
            )
        )
    url = _with_db(server_url, name)
    settings = Settings(database_url=url)
    with psycopg.connect(url, autocommit=True) as conn:
        load_conversations(conn, settings, *(
            conversation(f"c-{user}", user, [("user", "Hello there."), ("assistant", "Hi!")], agent_id="support")
            for user in USERS
        ))  # fmt: skip
        own_signals.add_signal(conn, settings, "ada", "Works as a data engineer", "role")
        own_signals.add_signal(conn, settings, "ada", "Prefers short answers", "communication")
        own_signals.add_signal(
            conn, settings, "ada", "Calls the support agent Sam", "preference", agent_id="support"
        )
        own_signals.add_signal(conn, settings, "bob", "Leads the payments team", "team")
    for user in ("ada", "bob"):
        own_signals.embed_own_signals(settings, user)
    yield url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


def _env(url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_SIGNALS_MCP_")}
    return {**env, "DATABASE_URL": url, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), str(ROOT),
            env.get("PYTHONPATH")])), **extra}  # fmt: skip


def over_stdio(url: str, body: Callable[[ClientSession], Awaitable[Any]], **env: str) -> Any:
    """body(session) on a session with `agent-signals mcp` spawned by the SDK's stdio client."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "agent_signals", "mcp"], env=_env(url, **env),
                                   cwd=str(ROOT))  # fmt: skip

    async def main() -> Any:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            with anyio.fail_after(START_S):
                await session.initialize()
            return await body(session)

    return anyio.run(main)


def over_http(url: str, token: str | None, body: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    """body(session) on a session with the HTTP server at `url`, through the SDK's streamable HTTP client."""
    headers = {"Authorization": f"Bearer {token}"} if token else None

    async def main() -> Any:
        async with (
            create_mcp_http_client(headers=headers) as client,
            streamable_http_client(url, http_client=client) as (read, write, _),
            ClientSession(read, write) as s,
        ):
            with anyio.fail_after(START_S):
                await s.initialize()
            return await body(s)

    return anyio.run(main)


async def call(session: ClientSession, tool: str, **arguments: Any) -> tuple[bool, Any]:
    """(is an error, the structured result or the error's text)."""
    result = await session.call_tool(tool, arguments)
    if result.isError:
        return True, " ".join(c.text for c in result.content if hasattr(c, "text"))
    return False, result.structuredContent


def _status(url: str, user: str, content: str) -> list[tuple[str, str]]:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "select origin, status from signals.signals where user_id = %s and content = %s", (user, content)
        ).fetchall()


class Server:
    """`agent-signals mcp --http --port 0` in a process of its own; its URL read from the line it prints once
    it listens."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agent_signals", "mcp", "--http", "--port", "0"],
            env=env, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.url = self._listening()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line)
        self.lines.put(None)

    def _listening(self) -> str:
        deadline, seen = time.monotonic() + START_S, []
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            seen.append(line)
            if "listening on " in line:
                return line.rsplit("listening on ", 1)[1].strip()
        self.stop()
        raise AssertionError("the server did not start:\n" + "".join(seen))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def http_server(mcp_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The HTTP server over mcp_db: AGENT_SIGNALS_MCP_TOKEN reaches everyone; the tokens file holds one token
    limited to bob (in clear) and one to agent `support` (as its SHA-256)."""
    import hashlib

    tokens = tmp_path_factory.mktemp("mcp") / "tokens.toml"
    tokens.write_text(
        f'[[tokens]]\nname = "bob-only"\ntoken = "{BOB_ONLY}"\nusers = ["bob"]\n\n'
        f'[[tokens]]\nname = "support"\nsha256 = "{hashlib.sha256(SUPPORT.encode()).hexdigest()}"\n'
        'agents = ["support"]\n'
    )
    server = Server(_env(mcp_db, AGENT_SIGNALS_MCP_TOKEN=FULL, AGENT_SIGNALS_MCP_TOKENS_FILE=str(tokens)))
    yield server.url
    server.stop()


# ---------------------------------------------------------------------------------------------------
# stdio


@pytest.mark.db
def test_the_four_tools_are_listed_with_typed_inputs_outputs_and_descriptions(mcp_db):
    listed = over_stdio(mcp_db, lambda s: s.list_tools())
    by_name = {t.name: t for t in listed.tools}
    assert set(by_name) == {"get_context", "search_signals", "remember", "forget"}
    assert by_name["get_context"].inputSchema["required"] == ["user_id"]
    assert set(by_name["remember"].inputSchema["required"]) == {"user_id", "text", "kind"}
    assert by_name["search_signals"].inputSchema["properties"]["limit"]["maximum"] == 50
    for tool in listed.tools:
        assert tool.description and len(tool.description) > 80 and tool.outputSchema is not None


@pytest.mark.db
def test_get_context_over_stdio_is_the_rendered_block_of_the_profile_or_of_an_agent(mcp_db):
    async def body(s: ClientSession):
        past = (datetime.now(UTC) - timedelta(days=400)).isoformat()
        return (await call(s, "get_context", user_id="ada"), await call(s, "get_context", user_id="ada", agent_id="support"),
                await call(s, "get_context", user_id="ada", as_of=past))  # fmt: skip

    (err, profile), (err2, agent), (err3, before) = over_stdio(mcp_db, body)
    assert not (err or err2 or err3)
    assert profile["context_markdown"] == (
        "## About this user\n### Confirmed by the user\n- Works as a data engineer\n- Prefers short answers"
    )
    assert profile["rendered"] == "live"  # no view built yet: rendered now by the as-of SQL
    assert "- Calls the support agent Sam" in agent["context_markdown"] and agent["agent_id"] == "support"
    assert "Works as a data engineer" in agent["context_markdown"]
    assert before["context_markdown"] == "## About this user" and before["rendered"] == "as_of"


@pytest.mark.db
def test_search_signals_over_stdio_finds_the_nearest_active_signals_with_kind_tier_and_date(mcp_db):
    async def body(s: ClientSession):
        return (await call(s, "search_signals", user_id="ada", query="Works as a data engineer", limit=2),
                await call(s, "search_signals", user_id="ada", query="Calls the support agent Sam", agent_id="support"))  # fmt: skip

    (err, found), (err2, with_agent) = over_stdio(mcp_db, body)
    assert not err and not err2
    first = found["signals"][0]
    assert len(found["signals"]) == 2
    assert (first["content"], first["kind"], first["tier"], first["origin"]) == (
        "Works as a data engineer", "role", "core", "manual",
    )  # fmt: skip
    assert first["similarity"] > 0.99 and datetime.fromisoformat(first["evidence_at"]) <= datetime.now(UTC)
    assert "Calls the support agent Sam" not in [f["content"] for f in found["signals"]]  # another scope
    assert with_agent["signals"][0]["content"] == "Calls the support agent Sam"


@pytest.mark.db
def test_remember_over_stdio_accepts_a_fact_as_the_users_own_and_it_is_in_their_context_at_once(mcp_db):
    async def body(s: ClientSession):
        remembered = await call(s, "remember", user_id="cy", text="Prefers answers in bullet points",
                                kind="communication")  # fmt: skip
        return (
            remembered,
            await call(s, "get_context", user_id="cy"),
            await call(s, "search_signals", user_id="cy", query="Prefers answers in bullet points"),
        )

    (err, remembered), (_, context), (_, found) = over_stdio(mcp_db, body)
    assert not err and remembered["status"] == "active" and remembered["reason"] is None
    assert _status(mcp_db, "cy", "Prefers answers in bullet points") == [("manual", "active")]
    assert "### Confirmed by the user\n- Prefers answers in bullet points" in context["context_markdown"]
    assert found["signals"][0]["signal_id"] == remembered["signal_id"]


@pytest.mark.db
def test_what_the_screens_cannot_decide_is_held_for_review_out_of_context_until_approved(mcp_db):
    async def body(s: ClientSession):
        return await call(s, "remember", user_id="dee", text="I prefer short answers", kind="communication")

    err, held = over_stdio(mcp_db, body)
    assert not err and held["status"] == "pending" and "first person" in held["reason"]
    assert _status(mcp_db, "dee", "I prefer short answers") == [("manual", "pending")]
    settings = Settings(database_url=mcp_db)
    with psycopg.connect(mcp_db, autocommit=True) as conn:
        assert [p.content for p in reviews.pending(conn, settings, "dee")] == ["I prefer short answers"]
        block = conn.execute("select context_markdown from mcp.get_context('dee')").fetchone()[0]
        assert "short answers" not in block
        reviews.approve(conn, settings, held["signal_id"], "a reviewer")
        block = conn.execute("select context_markdown from mcp.get_context('dee')").fetchone()[0]
    assert "### Confirmed by the user\n- I prefer short answers" in block
    assert _status(mcp_db, "dee", "I prefer short answers") == [("manual", "active")]


def _hostile(n: int = 6) -> list[tuple[str, str]]:
    items = [i for i in load_corpus("dev")[:200] if not i.benign]
    step = max(1, len(items) // n)
    return [(i.id, i.text) for i in items[::step][:n]]


@pytest.mark.unit
def test_no_hostile_text_of_the_corpus_is_remembered_as_active():
    """Every hostile message of the first corpus (tests/data/hostile_corpus.json), remembered as it is (what
    an injected agent relays): refused or held, never active. The same screens as extraction
    (docs/guarantees.md has their figures on the other sets)."""
    settings = Settings()
    active = []
    items = [i for i in load_corpus("dev") if not i.benign]
    first = json.loads((ROOT / "tests" / "data" / "hostile_corpus.json").read_text(encoding="utf-8"))["items"]
    ids = {item["id"] for item in first}
    for item in (i for i in items if i.id in ids):
        try:
            verdict = tools.judge(settings, "u", item.text, "preference", None)
        except AgentSignalsError:
            continue  # not a signal at all (too long, no text): refused with an error
        if verdict.status == "active":
            active.append(item.id)
    assert len(ids) > 150 and not active


@pytest.mark.db
def test_hostile_text_remembered_over_stdio_is_refused_or_held_never_active(mcp_db):
    sample = _hostile()

    async def body(s: ClientSession):
        return [
            await call(s, "remember", user_id="eve", text=text, kind="preference") for _id, text in sample
        ]

    results = over_stdio(mcp_db, body)
    assert all(err or result["status"] in ("refused", "pending") for err, result in results), results
    with psycopg.connect(mcp_db) as conn:
        assert (
            conn.execute(
                "select count(*) from signals.signals where user_id = 'eve' and status = 'active'"
            ).fetchone()[0]
            == 0
        )


@pytest.mark.db
def test_forget_over_stdio_is_a_tombstone_an_agent_cannot_undo(mcp_db):
    settings = Settings(database_url=mcp_db)
    with psycopg.connect(mcp_db, autocommit=True) as conn:
        signal_id = own_signals.add_signal(conn, settings, "fay", "Likes sailing", "preference")

    async def body(s: ClientSession):
        return (await call(s, "forget", user_id="fay", signal_id=str(signal_id)), await call(s, "get_context", user_id="fay"),
                await call(s, "remember", user_id="fay", text="Likes sailing", kind="preference"))  # fmt: skip

    (err, forgotten), (_, context), (again_err, again) = over_stdio(mcp_db, body)
    assert not err and forgotten == {"signal_id": str(signal_id), "status": "deleted"}
    assert "sailing" not in context["context_markdown"]
    assert again_err and "deleted this text" in again and "only the user can add it again" in again
    assert _status(mcp_db, "fay", "Likes sailing") == [("manual", "deleted")]


@pytest.mark.db
def test_bad_input_over_stdio_is_a_one_line_tool_error_that_says_how_to_fix_it(mcp_db):
    async def body(s: ClientSession):
        return [
            await call(s, "get_context", user_id="nobody-at-all"),
            await call(s, "search_signals", user_id="ada", query="x", limit="many"),
            await call(s, "get_context", user_id=5),
            await call(s, "forget", user_id="ada", signal_id="not-an-id"),
            await call(s, "forget", user_id="ada", signal_id=str(uuid.uuid4())),
            await call(s, "remember", user_id="ada", text="Likes tea", kind="beverage"),
            await call(s, "get_context", user_id="ada", as_of="2999-01-01T00:00:00Z"),
        ]

    unknown, wrong_limit, wrong_user, not_id, no_signal, bad_kind, future = over_stdio(mcp_db, body)
    assert unknown == (True, "Error executing tool get_context: no conversations or signals for user nobody-at-all "
                       "(hint: check the user id: the one your application stores as source.conversations.user_id)")  # fmt: skip
    assert wrong_limit == (True, "Error executing tool search_signals: wrong arguments: limit: Input should be a "
                           "valid integer, unable to parse string as an integer (hint: see the tool's input schema)")  # fmt: skip
    assert wrong_user[0] and "wrong arguments: user_id: Input should be a valid string" in wrong_user[1]
    assert not_id[0] and "'not-an-id' is not a signal id" in not_id[1]
    assert no_signal[0] and "user ada has no signal" in no_signal[1]
    assert bad_kind[0] and "'beverage' is not one of role, team" in bad_kind[1]
    assert future[0] and "is in the future" in future[1]
    for err, text in (unknown, wrong_limit, wrong_user, not_id, no_signal, bad_kind, future):
        assert err and "\n" not in text


@pytest.mark.db
def test_a_wrong_database_url_stops_the_server_with_one_line(mcp_db):
    out = subprocess.run(
        [sys.executable, "-m", "agent_signals", "mcp"], env=_env("postgresql://nobody@127.0.0.1:1/none"),
        cwd=ROOT, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith(
        "error: cannot connect to PostgreSQL at postgresql://nobody@127.0.0.1:1/none"
    )
    assert "hint: check that the server is running and DATABASE_URL is right" in out.stderr


# ---------------------------------------------------------------------------------------------------
# HTTP


@pytest.mark.db
def test_http_refuses_to_start_without_a_token():
    out = subprocess.run(
        [sys.executable, "-m", "agent_signals", "mcp", "--http"], env=_env("postgresql://unused@127.0.0.1:1/x"),
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 2
    assert out.stderr.splitlines()[0] == "error: agent-signals mcp --http needs a bearer token"
    assert out.stderr.splitlines()[1].startswith("hint: set AGENT_SIGNALS_MCP_TOKEN")


@pytest.mark.db
def test_http_answers_401_without_a_token_or_with_a_wrong_one(http_server):
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    for auth in (None, "Bearer not-the-token-0123456789", f"Basic {FULL}", f"Bearer {FULL}x"):
        answer = httpx.post(
            http_server, json=request, headers={**headers, **({"Authorization": auth} if auth else {})}
        )
        assert answer.status_code == 401 and answer.headers["www-authenticate"].startswith("Bearer")
        assert answer.json()["error"] == "invalid_token"
    with pytest.raises(BaseException):  # noqa: B017 - the SDK's client fails in a task group
        over_http(http_server, "wrong-token-0123456789", lambda s: s.list_tools())


@pytest.mark.db
def test_each_tool_over_http(http_server, mcp_db):
    async def body(s: ClientSession):
        context = await call(s, "get_context", user_id="bob")
        found = await call(s, "search_signals", user_id="bob", query="Leads the payments team", limit=1)
        remembered = await call(s, "remember", user_id="gus", text="Works from Lisbon", kind="location")
        forgotten = await call(s, "forget", user_id="gus", signal_id=remembered[1]["signal_id"])
        return context, found, remembered, forgotten

    (e1, context), (e2, found), (e3, remembered), (e4, forgotten) = over_http(http_server, FULL, body)
    assert not (e1 or e2 or e3 or e4)
    assert context["context_markdown"].endswith("### Confirmed by the user\n- Leads the payments team")
    assert [f["content"] for f in found["signals"]] == ["Leads the payments team"]
    assert remembered["status"] == "active" and forgotten["status"] == "deleted"
    assert _status(mcp_db, "gus", "Works from Lisbon") == [("manual", "deleted")]


@pytest.mark.db
def test_hostile_text_remembered_over_http_is_refused_or_held_never_active(http_server, mcp_db):
    sample = _hostile()

    async def body(s: ClientSession):
        return [
            await call(s, "remember", user_id="hal", text=text, kind="preference") for _id, text in sample
        ]

    results = over_http(http_server, FULL, body)
    assert all(err or result["status"] in ("refused", "pending") for err, result in results), results
    with psycopg.connect(mcp_db) as conn:
        assert (
            conn.execute(
                "select count(*) from signals.signals where user_id = 'hal' and status = 'active'"
            ).fetchone()[0]
            == 0
        )


@pytest.mark.db
def test_a_token_limited_to_users_or_agents_reaches_no_one_else(http_server, mcp_db):
    with psycopg.connect(mcp_db) as conn:
        ada_profile = conn.execute(
            "select signal_id from signals.signals where user_id = 'ada' and agent_id is null limit 1"
        ).fetchone()[0]

    async def as_bob(s: ClientSession):
        return (await call(s, "get_context", user_id="bob"), await call(s, "get_context", user_id="ada"),
                await call(s, "search_signals", user_id="ada", query="engineer"),
                await call(s, "remember", user_id="ada", text="Likes jazz", kind="preference"),
                await call(s, "forget", user_id="ada", signal_id=str(ada_profile)))  # fmt: skip

    own, *others = over_http(http_server, BOB_ONLY, as_bob)
    assert not own[0]
    for err, text in others:
        assert err and "token 'bob-only' may not reach user 'ada'" in text

    async def as_support(s: ClientSession):
        return (await call(s, "get_context", user_id="ada", agent_id="support"), await call(s, "get_context", user_id="ada"),
                await call(s, "get_context", user_id="ada", agent_id="billing"),
                await call(s, "forget", user_id="ada", signal_id=str(ada_profile)))  # fmt: skip

    (err, block), profile, other_agent, forget_profile = over_http(http_server, SUPPORT, as_support)
    assert not err and "Calls the support agent Sam" in block["context_markdown"]
    assert profile[0] and "token 'support' may not act for no agent" in profile[1]
    assert other_agent[0] and "may not act for agent 'billing'" in other_agent[1]
    assert forget_profile[0] and "is not of an agent this caller may change" in forget_profile[1]
    assert _status(mcp_db, "ada", "Likes jazz") == []
    with psycopg.connect(mcp_db) as conn:
        assert (
            conn.execute("select status from signals.signals where signal_id = %s", [ada_profile]).fetchone()[
                0
            ]
            == "active"
        )


# ---------------------------------------------------------------------------------------------------
# the role


@pytest.mark.db
def test_the_mcp_role_reads_no_table_and_calls_only_its_functions(conn):
    conn.execute("set role agent_signals_mcp")
    for statement in (
        "select * from signals.signals", "select * from signals.events", "select * from source.messages",
        "select * from ops.runs", "select signals.add_signal('u', 'Likes tea', 'preference')",
        "select signals.delete_signal('u', gen_random_uuid())", "select * from signals.review_approve(gen_random_uuid())",
        "select mcp.require_user('u')",
    ):  # fmt: skip
        with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
            conn.execute(statement)
    with pytest.raises(psycopg.errors.NoDataFound), conn.transaction():  # allowed: refused for the user only
        conn.execute("select * from mcp.get_context('nobody')")
    conn.execute("reset role")
    readable = conn.execute(
        "select distinct c.relnamespace::regnamespace::text from pg_class c where c.relkind in ('r', 'v', 'm', 'p') "
        "and c.relnamespace::regnamespace::text not in ('pg_catalog', 'information_schema') "
        "and has_table_privilege('agent_signals_mcp', c.oid, 'select, insert, update, delete')"
    ).fetchall()
    assert {row[0] for row in readable} <= {"context"}
    functions = conn.execute(
        "select p.oid::regprocedure::text from pg_proc p where has_function_privilege('agent_signals_mcp', p.oid, "
        "'execute') and p.pronamespace::regnamespace::text in ('signals', 'mcp', 'context', 'source', 'ops') "
        "and not has_function_privilege('public', p.oid, 'execute') order by 1"
    ).fetchall()
    assert [row[0] for row in functions] == [
        "mcp.forget(text,uuid,text[])", "mcp.get_context(text,text,timestamp with time zone)",
        "mcp.remember(text,text,text,text,text,text)", "mcp.search_signals(text,text,integer,text)",
    ]  # fmt: skip


@pytest.mark.db
def test_a_login_role_connects_through_the_mcp_url_and_one_that_is_no_member_is_refused(conn, database_url):
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    member, stranger = f"mcp_login_{uuid.uuid4().hex[:8]}", f"mcp_stranger_{uuid.uuid4().hex[:8]}"
    conn.execute(sql.SQL("create role {} login in role agent_signals_mcp").format(sql.Identifier(member)))
    conn.execute(sql.SQL("create role {} login").format(sql.Identifier(stranger)))
    try:
        params = conninfo_to_dict(database_url)
        member_url = make_conninfo(**{**params, "user": member})
        with psycopg.connect(member_url, autocommit=True) as login:
            from agent_signals.store.agents.agent_tools import become_mcp

            become_mcp(login)
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                login.execute("select count(*) from signals.signals")
        out = subprocess.run(
            [sys.executable, "-m", "agent_signals", "mcp"],
            env=_env(database_url, AGENT_SIGNALS_MCP_DATABASE_URL=make_conninfo(**{**params, "user": stranger})),
            cwd=ROOT, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert out.returncode == 1
        assert (
            out.stderr.splitlines()[0]
            == f"error: the login role '{stranger}' cannot become agent_signals_mcp"
        )
    finally:
        for role in (member, stranger):
            conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))


@pytest.mark.db
def test_the_block_is_the_views_row_until_the_users_signals_change_after_its_refresh(conn, settings):
    """mcp.get_context reads context.user_context as dbt leaves it (a table here), and renders the block
    live once the user's signals changed after the row's refresh."""
    load_conversations(conn, settings, conversation("c-ivy", "ivy", [("user", "Hi.")]))
    conn.execute("create table context.user_context (user_id text, context_markdown text, summary text, "
                 "refreshed_at timestamptz)")  # fmt: skip
    conn.execute("insert into context.user_context values ('ivy', '## About this user\n- as the view has it', "
                 "'A summary.', now() + interval '1 minute')")  # fmt: skip
    row = conn.execute("select context_markdown, summary, rendered from mcp.get_context('ivy')").fetchone()
    assert row == ("## About this user\n- as the view has it", "A summary.", "view")
    conn.execute("update context.user_context set refreshed_at = now() - interval '1 minute'")
    own_signals.add_signal(conn, settings, "ivy", "Likes chess", "preference")
    row = conn.execute("select context_markdown, summary, rendered from mcp.get_context('ivy')").fetchone()
    assert row == ("## About this user\n### Confirmed by the user\n- Likes chess", None, "live")


# ---------------------------------------------------------------------------------------------------
# tokens


@pytest.mark.unit
def test_tokens_are_read_from_the_variable_and_the_file_and_compared_whole(tmp_path):
    import hashlib

    path = tmp_path / "tokens.toml"
    path.write_text(
        '[[tokens]]\nname = "a"\ntoken = "aaaaaaaaaaaaaaaaaaaa"\nusers = ["u1"]\n'
        f'[[tokens]]\nname = "b"\nsha256 = "{hashlib.sha256(b"bbbbbbbbbbbbbbbbbbbb").hexdigest()}"\nagents = ["x"]\n'
    )
    tokens = access.load_tokens(Settings(mcp_token="cccccccccccccccccccc", mcp_tokens_file=str(path)))
    assert tokens.grant("aaaaaaaaaaaaaaaaaaaa") == access.Grant("a", frozenset({"u1"}))
    assert tokens.grant("bbbbbbbbbbbbbbbbbbbb") == access.Grant("b", agents=frozenset({"x"}))
    assert tokens.grant("cccccccccccccccccccc").name == "AGENT_SIGNALS_MCP_TOKEN"
    for wrong in (None, "", "aaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaa", "AAAAAAAAAAAAAAAAAAAA"):
        assert tokens.grant(wrong) is None
    with pytest.raises(access.AccessDenied, match="may not reach user 'u2'"):
        tokens.grant("aaaaaaaaaaaaaaaaaaaa").check("u2", None)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "must hold only [[tokens]] tables"),
        ('[[tokens]]\nname = "a"\n', "give one of token or sha256"),
        ('[[tokens]]\nname = "a"\ntoken = "short"\n', "at least 16 characters"),
        ('[[tokens]]\nname = "a"\nsha256 = "abc"\n', "sha256 must be 64 hex digits"),
        (
            '[[tokens]]\nname = "a"\ntoken = "aaaaaaaaaaaaaaaaaaaa"\nusers = []\n',
            "users must be a non-empty list",
        ),
        ('[[tokens]]\nname = "a"\ntoken = "aaaaaaaaaaaaaaaaaaaa"\nscope = "all"\n', "unknown keys scope"),
        ("tokens = [", "is not TOML"),
    ],
)
def test_a_wrong_tokens_file_is_one_configuration_error(tmp_path, text, error):
    path = tmp_path / "tokens.toml"
    path.write_text(text)
    with pytest.raises(access.ConfigurationError, match=error.replace("[", r"\[")):
        access.load_tokens(Settings(mcp_tokens_file=str(path)))
