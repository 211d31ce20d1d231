"""Long alternations made quick to try. Python's engine tries an alternation's branches one after another at
each position of a text; it passes over a branch that starts with a character other than the text's in one
step, but a phrase table's branches start with lookbehinds and groups, so every branch is entered at every
position. `dispatched` gathers the branches by the characters they can start with (read from the parsed
pattern, not its text) and puts a one-character lookahead in front of each gathering: a position enters only
the branches that can match there. It matches the same texts at the same places, and where several
branches match at a place, the same one (the branches keep their order in each gathering); a branch whose
first character cannot be told (a class such as \\w, a group that may match nothing) is in every gathering.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from re import _constants as sre  # the parsed form of a pattern (stable since Python 3.11)
from re import _parser

_ZERO_WIDTH = (sre.AT, sre.ASSERT, sre.ASSERT_NOT)
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
_WIDEST_RANGE = 64  # a range in a class wider than this makes the branch's first character unknown
_SEPARATOR = "__"  # between a group's name and its gathering: `name__3`


def first_characters(pattern: str) -> frozenset[str] | None:
    """The characters a match of `pattern` can start with, or None when they cannot be told (a class
    such as \\w or ".", a wide range, a back-reference, or a pattern that may match nothing). Lookarounds and
    anchors are passed over: they narrow where it matches, never what it starts with."""
    parsed = _parser.parse(pattern)
    if parsed.state.flags & re.IGNORECASE:  # a lookahead outside it would not fold case as it does
        return None
    first, nullable = _first(parsed)
    return None if first is None or nullable else frozenset(first)


def _first(items) -> tuple[set[str] | None, bool]:
    """(the characters a match of the parsed sequence can start with or None, whether it may match nothing)"""
    out: set[str] = set()
    for op, value in items:
        if op in _ZERO_WIDTH:
            continue
        if op is sre.LITERAL:
            return out | {chr(value)}, False
        if op is sre.IN:
            chars = _class(value)
            return (None, False) if chars is None else (out | chars, False)
        if op is sre.SUBPATTERN:
            if value[1] & re.IGNORECASE:  # (?i:...): as above
                return None, False
            first, nullable = _first(value[-1])
        elif op is sre.BRANCH:
            first, nullable = set(), False
            for branch in value[1]:
                found, empty = _first(branch)
                if found is None:
                    return None, False
                first |= found
                nullable = nullable or empty
        elif op in _REPEATS:
            low, _high, item = value
            first, nullable = _first(item)
            nullable = nullable or low == 0
        else:
            return None, False
        if first is None:
            return None, False
        out |= first
        if not nullable:
            return out, False
    return out, True


def _class(items) -> set[str] | None:
    chars: set[str] = set()
    for op, value in items:
        if op is sre.LITERAL:
            chars.add(chr(value))
        elif op is sre.RANGE and value[1] - value[0] <= _WIDEST_RANGE:
            chars.update(chr(c) for c in range(value[0], value[1] + 1))
        else:  # NEGATE, CATEGORY (\w, \d), a wide range
            return None
    return chars


def dispatched(branches: Sequence[tuple[str, str]]) -> str:
    """One alternation of (name, pattern) branches that matches as "|".join of `(?P<name>pattern)` would,
    quicker to try (the module's docstring). Its groups are named `name__k` (`group_name` reads the name
    back), so the patterns must not hold named groups of their own."""
    starts = [first_characters(pattern) for _name, pattern in branches]
    anywhere = [i for i, first in enumerate(starts) if first is None]
    gatherings: dict[str, list[int]] = {}
    for i, first in enumerate(starts):
        for char in sorted(first or ()):
            gatherings.setdefault(char, []).append(i)
    parts = [
        f"(?={re.escape(char)})(?:{_named(branches, sorted({*found, *anywhere}), k)})"
        for k, (char, found) in enumerate(sorted(gatherings.items()))
    ]
    if anywhere:
        parts.append(f"(?:{_named(branches, anywhere, len(parts))})")
    return "|".join(parts) or "(?!)"


def _named(branches: Sequence[tuple[str, str]], indices: list[int], k: int) -> str:
    """The branches at `indices`, in order, each run of one name in one named group."""
    runs: list[tuple[str, list[str]]] = []
    for i in indices:
        name, pattern = branches[i]
        if runs and runs[-1][0] == name:
            runs[-1][1].append(pattern)
        else:
            runs.append((name, [pattern]))
    return "|".join(
        f"(?P<{name}{_SEPARATOR}{k}_{j}>{'|'.join(patterns)})" for j, (name, patterns) in enumerate(runs)
    )


def group_name(match: re.Match[str]) -> str:
    """The name of the branch that matched, in a pattern built by `dispatched`."""
    return (match.lastgroup or "").rsplit(_SEPARATOR, 1)[0]
