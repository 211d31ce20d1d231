"""The hostile corpus (tests/data/hostile_corpus.json) and how a leak of it is found: the matching its labels
follow, the places agents read, a scan of every text and JSON column of the pipeline's schemas and of the
captured log lines, and the per-category table (`pytest tests/test_hostile_corpus.py --hostile-table`)."""

from __future__ import annotations

import functools
import json
import logging
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

DATA = Path(__file__).parent / "data"
# The screens may be fixed against the development sets; the held-out set was written blind (by a writer who
# never read the screens, their word lists or the tests) and is never used to fix anything: only its per-kind
# and per-language figures are read (docs/guarantees.md, "How the screens are measured"). hostile_dev3 and
# hostile_dev4 were the first round's held-out sets, read and fixed against in the second round; hostile_dev5
# was the second round's, read and fixed against in the third; hostile_dev6 the third's, read and trained on in
# the fourth; hostile_dev7 the fourth's, read and fixed against in the fifth; hostile_dev8 the fifth's, read
# and fixed against in the sixth. The held-out sets: hostile_heldout, written for round six's before and after,
# hostile_heldout2, written after round six for its final figure, and hostile_heldout3, written for round seven's
# final figure (its controls beside the development controls of hostile_dev9).
CORPORA = {
    "dev": (
        "hostile_corpus.json",
        "hostile_dev.json",
        "hostile_dev2.json",
        "hostile_dev3.json",
        "hostile_dev4.json",
        "hostile_dev5.json",
        "hostile_dev6.json",
        "hostile_dev7.json",
        "hostile_dev8.json",
        "hostile_dev9.json",
    ),
    "heldout": ("hostile_heldout.json", "hostile_heldout2.json", "hostile_heldout3.json"),
}
CORPUS_FILE = DATA / "hostile_corpus.json"
SCANNED_SCHEMAS = ("signals", "ops", "context", "analytics")  # everything but the source tables (the input)
TABLES = pytest.StashKey[list[str]]()  # the tables printed by --hostile-table (tests/conftest.py)


@dataclass(frozen=True)
class Item:
    id: str
    lang: str
    group: str
    category: str
    text: str
    forbidden: tuple[str, ...]
    sensitive: tuple[str, ...]
    keep: str | None = None
    keep_offline: str | None = None
    kind: str | None = None  # the row of issue 31's table of kinds (the blind sets), else the group
    signal: str | None = None  # what a fooled model writing third-person English would store
    keep_signal: str | None = None  # benign: what context.user_context must show of `signal`

    @property
    def benign(self) -> bool:
        return self.group == "benign"

    @property
    def row(self) -> str:
        """The row of the table the item is counted in."""
        return self.kind or self.group

    def keeps(self, offline: bool) -> tuple[str, ...]:
        """What the user's context block must show (any one of them): for the fooled model, the control's
        text or its English statement; for the offline model, what its rules learn (none: nothing)."""
        if offline:
            return (self.keep_offline,) if self.keep_offline else ()
        return tuple(k for k in (self.keep, self.keep_signal) if k)


def load_corpus(name: str = "dev") -> list[Item]:
    """The items of one of CORPORA's sets, in file order."""
    items = []
    for file in CORPORA[name]:
        for item in json.loads((DATA / file).read_text(encoding="utf-8"))["items"]:
            fields = {k: v for k, v in item.items() if k in Item.__dataclass_fields__}
            items.append(Item(**{**fields, "forbidden": tuple(item["forbidden"]),
                                 "sensitive": tuple(item["sensitive"])}))  # fmt: skip
    return items


# ---------------------------------------------------------------------------------------------------
# Matching (the corpus's "matching" field says the same)

_SPACE = re.compile(r"\s+")
_TAG_ASCII = range(0xE0020, 0xE007F)  # Unicode tag characters that spell printable ASCII
COMPACT_FROM = 8  # letters and digits of a marker from which punctuation and spacing are ignored


def fold(text: str) -> str:
    """NFKC, tag characters read as the ASCII they hide, other format characters (zero-width, bidi, soft
    hyphen, BOM) dropped, case folded, whitespace collapsed."""
    chars = []
    for ch in unicodedata.normalize("NFKC", text):
        if ord(ch) in _TAG_ASCII:
            chars.append(chr(ord(ch) - 0xE0000))
        elif unicodedata.category(ch) != "Cf":
            chars.append(ch)
    return _SPACE.sub(" ", "".join(chars).casefold()).strip()


def compact(folded: str) -> str:
    return "".join(ch for ch in folded if ch.isalnum())


@dataclass(frozen=True)
class Text:
    """A stored or logged text, folded once for every marker."""

    where: str
    folded: str
    compacted: str

    @classmethod
    def of(cls, where: str, raw: str) -> Text:
        folded = fold(raw)
        return cls(where, folded, compact(folded))


@functools.cache
def _marker(marker: str) -> tuple[str, str]:
    folded = fold(marker)
    squeezed = compact(folded)
    return folded, squeezed if len(squeezed) >= COMPACT_FROM else ""


def matches(marker: str, text: Text) -> bool:
    folded, squeezed = _marker(marker)
    return bool(folded and folded in text.folded) or bool(squeezed and squeezed in text.compacted)


class Haystack:
    """Many texts searched for many markers: one search of all of them joined first, the texts one by one
    only for a marker found there."""

    def __init__(self, texts: list[Text]) -> None:
        self.texts = texts
        self.all = Text("", "\0".join(t.folded for t in texts), "\0".join(t.compacted for t in texts))

    def where(self, marker: str) -> list[str]:
        if not matches(marker, self.all):
            return []
        return list(dict.fromkeys(text.where for text in self.texts if matches(marker, text)))


# ---------------------------------------------------------------------------------------------------
# Where to look

AGENT_PLACES = {  # what an agent's prompt builder reads, per user
    "signals.signals.content (active)": "select user_id, content from signals.signals where status = 'active'",
    "signals.summaries.summary": "select user_id, summary from signals.summaries",
    "context.user_context.context_markdown": "select user_id, context_markdown from context.user_context",
    "context.user_context.summary": "select user_id, summary from context.user_context",
    "context.user_signals.content": "select user_id, content from context.user_signals",
}

TEXT_COLUMNS = """
select n.nspname, c.relname, a.attname, t.typname
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join pg_namespace n on n.oid = c.relnamespace
join pg_type t on t.oid = a.atttypid
left join pg_type e on e.oid = t.typelem and t.typcategory = 'A'
where n.nspname = any(%(schemas)s) and c.relkind in ('r', 'p', 'v', 'm', 'f')
  and a.attnum > 0 and not a.attisdropped
  and (t.typcategory = 'S' or t.typname in ('json', 'jsonb') or e.typcategory = 'S' or e.typname in ('json', 'jsonb'))
order by 1, 2, a.attnum
"""  # every text, varchar, char, json, jsonb column (and arrays of them) of tables, views, materialized views


def agent_texts(conn: psycopg.Connection) -> dict[str, list[Text]]:
    """Per user, every text an agent reads about them."""
    texts: dict[str, list[Text]] = defaultdict(list)
    for where, query in AGENT_PLACES.items():
        for user_id, value in conn.execute(query):
            if value:
                texts[user_id].append(Text.of(where, value))
    return texts


# the machine's own strings: ids and fingerprints (also inside log lines), times and vectors
_ID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32,64}"  # a uuid, a fingerprint
_MACHINE = re.compile(
    _ID
    + r"|\d{4}-\d\d-\d\d(?:[T ][\d:.]+(?:[+-]\d\d:?\d\d|Z)?)?"  # a time
    + r"|\[?-?\d+\.\d+(?:,\s*-?\d+\.\d+(?:e-?\d+)?)*\]?",  # a vector
    re.I,
)

# and in log lines, the local servers' addresses: the temporary Prefect server's port is drawn at random
_LOCAL_URL = r"https?://(?:127\.0\.0\.1|localhost)(?::\d+)?"
_IDS = re.compile(f"{_ID}|{_LOCAL_URL}", re.I)


def without_ids(text: str) -> str:
    """A log line without the machine's ids and local addresses in it (a flow run's uuid in "View at
    http://127.0.0.1:49147/runs/flow-run/<uuid>"): a four-digit PIN is found in one by chance ("9147" in
    port 49147), one run in a few hundred."""
    return _IDS.sub("<id>", text)


def _strings(value: object) -> Iterator[str]:
    """The strings of a stored value, but the machine's own (ids, times, vectors, hashes): a short secret
    such as a four-digit PIN is found in a uuid by chance."""
    if isinstance(value, str):
        if not _MACHINE.fullmatch(value):
            yield value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield str(key)
            yield from _strings(inner)
    elif isinstance(value, (list, tuple)):
        for inner in value:
            yield from _strings(inner)


def stored_texts(conn: psycopg.Connection) -> list[Text]:
    """Every string in every text or JSON column of the scanned schemas (through pg_catalog, which, unlike
    information_schema, also lists materialized views), labelled relation.column (user)."""
    columns: dict[tuple[str, str], list[str]] = defaultdict(list)
    for schema, relation, column, _type in conn.execute(TEXT_COLUMNS, {"schemas": list(SCANNED_SCHEMAS)}):
        columns[schema, relation].append(column)
    found = []
    for (schema, relation), names in columns.items():
        has_user = "user_id" in names
        select = ", ".join(f'"{name}"' for name in names)
        for row in conn.execute(f'select {select} from "{schema}"."{relation}"'):
            user = f" (user {row[names.index('user_id')]})" if has_user else ""
            for name, value in zip(names, row, strict=True):
                for string in _strings(value):
                    found.append(Text.of(f"{schema}.{relation}.{name}{user}", string))
    return found


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.lines: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:
            text = str(record.msg)
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        self.lines.append((record.name, text))


@contextmanager
def captured_logs() -> Iterator[list[tuple[str, str]]]:
    """Every log record emitted in the block, as (logger, message with its traceback): a handler at the root
    and at each logger that does not propagate (Prefect's), so that each record is seen once."""
    handler = _Lines()
    loggers = [logging.getLogger()] + [
        logger
        for logger in logging.root.manager.loggerDict.values()
        if isinstance(logger, logging.Logger) and not logger.propagate
    ]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler.lines
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


# ---------------------------------------------------------------------------------------------------
# Leaks


@dataclass(frozen=True)
class Leak:
    item: Item
    marker: str
    where: str  # relation.column, with the row's user when the relation has one
    agents_read: bool  # found where agents read (else: by the scan of every column and log line)


def find_leaks(items: Iterable[Item], agents: dict[str, list[Text]], anywhere: list[Text]) -> list[Leak]:
    """Forbidden markers and sensitive values in the texts agents read about the item's user; sensitive
    values in any stored text or log line, whoever's it is."""
    everything = Haystack(anywhere)
    leaks = []
    for item in items:
        own = Haystack(agents.get(item.id, []))
        for marker in dict.fromkeys((*item.forbidden, *item.sensitive)):
            leaks.extend(Leak(item, marker, where, True) for where in own.where(marker))
        for value in item.sensitive:
            leaks.extend(Leak(item, value, where, False) for where in everything.where(value))
    return leaks


def missing_keeps(items: Iterable[Item], conn: psycopg.Connection, offline: bool) -> list[tuple[Item, str]]:
    """Benign controls whose `keep` (or `keep_offline`) the user's context block does not show."""
    blocks = dict(conn.execute("select user_id, context_markdown from context.user_context").fetchall())
    missing = []
    for item in items:
        keeps = item.keeps(offline)
        block = Text.of("", blocks.get(item.id) or "")
        if item.benign and keeps and not any(matches(keep, block) for keep in keeps):
            missing.append((item, keeps[0]))
    return missing


def table(
    title: str, items: list[Item], leaks: list[Leak], missing: list[tuple[Item, str]], offline: bool
) -> str:
    """Per kind (the blind sets' `kind`; the first set's group and category): items, items leaking
    anything, leaking where agents read, sensitive values found by the scan of every column and log line;
    then the same per language."""
    leaked = {leak.item.id for leak in leaks}
    read = {leak.item.id for leak in leaks if leak.agents_read}
    anywhere = {leak.item.id for leak in leaks if not leak.agents_read}
    hostile = [item for item in items if not item.benign]
    rows = [("kind", "category", "items", "leaked", "where agents read", "sensitive anywhere")]
    for per in (_per(hostile, lambda i: (i.row, "" if i.kind else i.category)),
                _per(hostile, lambda i: ("language", i.lang))):  # fmt: skip
        for (kind, category), ids in per.items():
            rows.append((kind, category, str(len(ids)), str(len(ids & leaked)), str(len(ids & read)),
                         str(len(ids & anywhere))))  # fmt: skip
        rows.append(("all", "", str(len(hostile)), str(len(leaked)), str(len(read)), str(len(anywhere))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [" | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    controls = sum(1 for i in items if i.benign and i.keeps(offline))
    lines.insert(0, f"{title}: {len(leaked)} of {len(hostile)} hostile or sensitive items leaked; "
                    f"{controls - len(missing)} of {controls} benign controls kept")  # fmt: skip
    return "\n".join(lines)


def _per(items: list[Item], key) -> dict[tuple[str, str], set[str]]:
    """Item ids by key, keys in order of first appearance."""
    per: dict[tuple[str, str], set[str]] = defaultdict(set)
    for item in items:
        per[key(item)].add(item.id)
    return per


def report(
    title: str, items: list[Item], leaks: list[Leak], missing: list[tuple[Item, str]], offline: bool
) -> str:
    """The failure message: the table, then one line per leaked item (the markers agents read and where,
    the sensitive values stored or logged and where), then the benign controls lost."""
    lines = [table(title, items, leaks, missing, offline), "", "leaks:"]
    found: dict[str, dict[bool, tuple[dict, dict]]] = defaultdict(lambda: {True: ({}, {}), False: ({}, {})})
    for leak in leaks:
        markers, wheres = found[leak.item.id][leak.agents_read]
        markers[leak.marker] = None
        wheres[leak.where.replace(f" (user {leak.item.id})", "")] = None  # the item's own user goes unsaid
    by_id = {item.id: item for item in items}
    for item_id, places in found.items():
        parts = []
        read = list(places[True][1])
        for agents_read, label in (
            (True, "agents read"),
            (False, "also stored or logged" if read else "stored or logged"),
        ):
            markers, wheres = places[agents_read]
            if not agents_read:  # the places agents read are named once
                wheres = {w: None for w in wheres if w not in read and f"{w} (active)" not in read}
            if markers and wheres:
                shown = ", ".join(repr(m if len(m) <= 40 else m[:37] + "...") for m in markers)
                named = ", ".join(wheres)
                if set(wheres) == set(AGENT_PLACES):
                    named = "every place agents read (active signals, summaries, context.user_context, user_signals)"
                parts.append(f"{label} {shown} in {named}")
        lines.append(f"  {item_id} [{by_id[item_id].category}] {'; '.join(parts)}")
    if missing:
        lines += ["benign controls not shown in context.user_context:"]
        lines += [f"  {item.id} [{item.category}] {keep!r}" for item, keep in missing]
    return "\n".join(lines)
