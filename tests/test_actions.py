"""The write path's vocabulary (core/actions.py): each action kind declared once, what depends on the kinds
read from there (the shipped prompts' schemas are held to it: a shipped prompt never changes), and the
counters a run stores one enum whose names never change, no code counting under a name of its own."""

from __future__ import annotations

import ast
import json
import typing
from pathlib import Path

import pytest

from agent_signals.config import Settings
from agent_signals.core.actions import ACTIONS, KINDS, SUMMARY_SPOILERS, WRITTEN, Count, offered
from agent_signals.core.prompting import answers

pytestmark = pytest.mark.unit

SRC = Path(__file__).resolve().parents[1] / "src" / "agent_signals"

# the names ops.runs.actions and the docs hold: a counter may be added, never renamed
STORED = {
    "archived", "created", "demoted", "ended", "fields_dropped", "filled", "held_for_review", "merge_refused",
    "merged", "messages_cut", "messages_hidden_text", "messages_set_aside", "quarantined", "reconcile_failed",
    "reconcile_invalid", "reconcile_stale", "reinforced", "rejected_gate", "rejected_invalid", "restated_pending",
    "retracted", "skipped", "skipped_end", "skipped_held", "skipped_manual", "skipped_recall", "skipped_rejected",
    "skipped_review", "skipped_sensitive", "skipped_special", "skipped_tombstone", "slices_already_done",
    "summarized", "summarized_inline", "summary_dropped", "summary_refused", "summary_replaced", "unchanged",
    "updated",
}  # fmt: skip


def test_the_counters_keep_their_stored_names():
    assert {c.value for c in Count} == STORED
    assert all(c.value == c.name.lower() for c in Count)


def counted_by_name(path: Path, root: Path = SRC) -> list[str]:
    """Where a module counts under a string of its own: `<...>.actions["x"]` or `<...>counts[...]["x"]`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)):
            continue
        if not isinstance(node.slice.value, str):
            continue
        counter = ast.unparse(node.value)
        if counter.endswith(".actions") or counter.split("[")[0].endswith("counts"):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_nothing_counts_under_a_free_string():
    found = [line for path in sorted(SRC.rglob("*.py")) for line in counted_by_name(path)]
    assert not found, "count with core/actions.py's Count:\n" + "\n".join(found)


def test_the_check_sees_a_free_string(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('stats.actions["x"] += 1\nself.counts[user]["y"] += 1\ncounts[Count.CREATED] += 1\n')
    found = [line.split(": ", 1)[1] for line in counted_by_name(probe, tmp_path)]
    assert found == ["stats.actions['x']", "self.counts[user]['y']"]


def shipped_schemas() -> list[Path]:
    return sorted((Settings().prompts_dir / "extract").glob("v*.schema.json"))


@pytest.mark.parametrize("path", shipped_schemas(), ids=lambda p: p.name)
def test_each_shipped_schema_offers_the_kinds_its_version_supports(path):
    """A shipped prompt's files never change: its schema is checked against the kinds, not generated."""
    version = int(path.name.split(".")[0].removeprefix("v"))
    items = json.loads(path.read_text())["properties"]["actions"]["items"]
    defs = json.loads(path.read_text())["$defs"]
    offered_by_schema = [
        defs[ref["$ref"].rpartition("/")[2]]["properties"]["action"]["const"] for ref in items["oneOf"]
    ]
    assert offered_by_schema == list(offered(version))
    assert set(items["discriminator"]["mapping"]) == set(offered(version))


def test_the_answer_holds_the_models_of_the_kinds():
    (union, _field) = typing.get_args(answers.Action)
    assert list(typing.get_args(union)) == [kind.answer for kind in KINDS]
    for kind in KINDS:
        assert typing.get_args(kind.answer.model_fields["action"].annotation) == (kind.name,)
    assert offered(max(kind.since for kind in KINDS)) == tuple(ACTIONS)


def test_a_kind_that_writes_is_validated_and_handled_and_one_that_does_not_is_neither():
    for kind in KINDS:
        assert (kind.propose is None) == (kind.write is None), kind.name
        assert kind.spoils <= set(kind.counts), kind.name
        assert not (kind.embedded or kind.waits) or kind.propose is not None, kind.name
        assert (kind.name in WRITTEN) == (kind.propose is not None)
        assert kind.spoils <= SUMMARY_SPOILERS
