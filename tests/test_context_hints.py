"""`agent-signals context USER [--agent AGENT]` for a user without a row: one `error:` line that says which
case it is and a `hint:` that names what to do about it (issue 33, point 7), through the command line as a
subprocess. Before, every case hinted "run `agent-signals run`", which does nothing for an unknown user or
agent, unflagged conversations, or a forgotten user."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_signals.store.context_views import MissingContext, explain_missing
from tests.builders import conversation, load_conversations
from tests.test_cli import agent_signals

NOW = datetime.now(UTC)
LONG_AGO = NOW - timedelta(days=20)
SAID = [("user", "I'm a pilot on the cargo team."), ("assistant", "Noted."), ("user", "I fly out of Porto.")]


def context(*args: str) -> tuple[str, str]:
    """The error and hint lines of a `context` that must fail (exit 1, nothing on stdout)."""
    result = agent_signals("context", *args)
    assert result.returncode == 1, (args, result.stdout, result.stderr)
    assert result.stdout == "" and "Traceback" not in result.stderr, result.stderr
    error, hint = result.stderr.splitlines()
    assert error.startswith("error: ") and hint.startswith("hint: "), result.stderr
    return error.removeprefix("error: "), hint.removeprefix("hint: ")


@pytest.mark.db
@pytest.mark.slow
def test_each_user_without_a_block_gets_the_hint_of_their_case(database_url, conn, settings):
    load_conversations(
        conn,
        settings,
        conversation("c-una", "una", SAID, extract=False, start=LONG_AGO),  # nothing flagged
        conversation("c-nel", "nel", SAID, start=LONG_AGO),  # flagged, never run
        conversation("c-ann", "ann", SAID, start=LONG_AGO, agent_id="coach"),  # talks with one agent
        conversation("c-bob", "bob", SAID, start=LONG_AGO, agent_id="chef"),
        conversation("c-fay", "fay", SAID, start=LONG_AGO),  # forgotten below
        conversation("c-ida", "ida", SAID, start=LONG_AGO),  # read, nothing kept (a watermark below)
        conversation("c-dan", "dan", SAID, extract=False, start=LONG_AGO),  # an own signal after the refresh
    )
    # what a run that read ida's and fay's messages leaves (watermarks), and a signal fay had
    conn.execute(
        "insert into signals.watermarks (conversation_id, user_id, last_message_at, last_message_id) "
        "select conversation_id, c.user_id, max(m.created_at), max(m.message_id) from source.messages m "
        "join source.conversations c using (conversation_id) where c.user_id in ('ida', 'fay') group by 1, 2"
    )
    conn.execute("select signals.add_signal('fay', 'Prefers short answers', 'communication', null)")
    built = agent_signals("views", "refresh")
    assert built.returncode == 0, built.stderr
    conn.execute("select signals.add_signal('dan', 'Prefers short answers', 'communication', null)")
    assert agent_signals("forget", "--user", "fay", "--yes").returncode == 0

    error, hint = context("nobody")  # an unknown user: a typo, or never loaded
    assert error == "no conversations or signals for user 'nobody'"
    assert hint.startswith("check the user id") and "`agent-signals load FILE`" in hint

    error, hint = context("una")  # conversations the product never flagged: a run would read nothing
    assert error == "none of the 1 conversation(s) of 'una' is flagged for extraction"
    assert '"extract": true' in hint and "source.conversations.flagged" in hint and "flag them" in hint

    error, hint = context("nel")  # known, never run
    assert error == "'nel' has 2 message(s) no run has read yet"
    assert hint == "run `agent-signals run`"

    error, hint = context("ann", "--agent", "nobody")  # an agent no conversation or signal has
    assert error == "no conversation or signal is with agent 'nobody'"
    assert hint.startswith("check the agent id") and "'ann' talks with 'coach'" in hint
    assert "`agent-signals context ann`" in hint and "agent-signals run" not in hint

    error, hint = context("ann", "--agent", "chef")  # another user's agent
    assert error == "'ann' never talked with agent 'chef' and has no signal of it"
    assert hint.startswith("an agent without a row reads the profile: `agent-signals context ann`")

    error, hint = context("fay")  # forgotten: the messages from before are never read again
    assert error.startswith("'fay' was forgotten at ") and "never read again" in error
    assert hint.startswith("nothing to do") and "agent-signals run" not in hint
    load_conversations(conn, settings, conversation("c-fay-2", "fay", SAID[:1], start=datetime.now(UTC)))
    error, hint = context("fay")  # ... and what they said since is read by the next run
    assert hint == "the 1 message(s) they wrote since are read by the next run: `agent-signals run`"

    error, hint = context("ida")  # read, and nothing kept: running again changes nothing
    assert error.startswith("the runs read the messages of 'ida' and kept no signal")
    assert hint.startswith("nothing to run") and "ops.rejected_actions where user_id = 'ida'" in hint

    error, hint = context("dan")  # a signal the views have not caught up with
    assert error == "the signals of 'dan' changed since the views were last refreshed"
    assert hint == "run `agent-signals run` (or `agent-signals views refresh`)"


def missing(**fields) -> MissingContext:
    base = dict(conversations=1, flagged=1, any_signals=False, active_signals=0, forgotten_at=None,
                pending=0, waiting=0, retry_after=None, set_aside=0, agents=[], agent_known=False)  # fmt: skip
    return MissingContext(**(base | fields))


@pytest.mark.unit
def test_a_user_in_backoff_or_with_messages_set_aside_is_told_where_to_look():
    retry = datetime(2026, 11, 27, 18, 30, tzinfo=UTC)
    backoff = explain_missing("zoe", None, missing(waiting=3, retry_after=retry))
    assert backoff.message == "the last extraction of 'zoe' failed: their 3 message(s) wait out its backoff"
    assert backoff.hint.startswith("the first run after 2026-11-27 18:30 UTC tries again")
    assert "ops.failures" in backoff.hint
    aside = explain_missing("zoe", None, missing(set_aside=2))
    assert aside.message.startswith("2 message(s) of 'zoe' were set aside after failed attempts")
    assert "`agent-signals set-aside list --user zoe`" in aside.hint
    assert "`agent-signals set-aside release --user zoe`" in aside.hint
    # read, nothing active, but signals that were learned and dropped or held: where to see them
    dropped = explain_missing("zoe", None, missing(any_signals=True))
    assert dropped.message.startswith("the runs read the messages of 'zoe' and kept no signal")
    assert "`agent-signals signals list --user zoe --all`" in dropped.hint
    assert "`agent-signals review list --user zoe`" in dropped.hint
