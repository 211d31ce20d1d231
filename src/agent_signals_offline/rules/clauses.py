"""Splitting a message into what the rules read: sentences, then clauses. Quoted and pasted text (another
person's words, a transcript) is blanked out first, same length, so that offsets still point into the
original message and quotes stay verbatim. Also the lead-in words ("well, ", "honestly") a clause's core
is read without."""

from __future__ import annotations

import re

from agent_signals_offline.rules.word_lists import word_set

_QUOTED = re.compile(r"\"[^\"\n]*\"|\u201c[^\u201d\n]*\u201d|`[^`]*`|^\s*>.*$", re.MULTILINE)
_PASTED = re.compile(
    r"(?:\b(?:says|said|wrote|writes|pasted|quote|quoting|posted)\b[^:\n]{0,40}:|"
    # "here's their bio:", "here's the customer's email:" (not "here's my situation:": that is the speaker's)
    r"\bhere(?:'s|\u2019s| is| are) (?:their|his|her|its|what (?:he|she|they)|(?:the|an?|some) (?:[\w'\u2019-]+ ){0,3}"
    r"(?:text|draft|email|message|description|post|bio|profile|transcript|excerpt|copy|listing|ad|advert|notes|"
    r"reply|response|review|feedback|statement|announcement|letter|doc|document|thread|chat|conversation|"
    r"wording|template|posting|jd|cv|resume|summary))\b[^:\n]{0,30}:|"
    # a label for someone else's text: "Job description:", "advisory text:", "their reply:"
    r"\b(?:job (?:description|posting|ad|advert|listing|spec)|jd|transcript|excerpt|[\w-]+ text|"
    r"(?:their|his|her|the (?:original|customer'?s?|candidate'?s?|vendor'?s?|client'?s?|other)) "
    r"(?:text|draft|email|message|bio|reply|response|wording|copy|post|description)):)[\s\S]*$",
    re.I,
)

# "Alex: I'll take it": a line of a pasted chat transcript, said by whoever is named before the colon (a label
# of the speaker's own, "Context: I'm a PM", is not a name)
_SPEAKER_LINE = re.compile(
    r"^[ \t]*(?:\[[\d:apm .]{3,12}\][ \t]*)?(?P<who>[A-Z][\w.'-]{0,20}(?: [A-Z][\w.'-]{0,20})?)[ \t]*"
    r"(?:\([^)\n]{0,20}\))?:[ \t]+\S.*$",
    re.M,
)
_LABELS = word_set(
    "context update edit note notes fyi background ps p.s tldr question q a summary info me re bio "
    "goal goals problem issue task ask details example answer also btw hi hey hello ok okay so "
    "important reminder warning error output input result step plan status role team title name "
    "location timezone pronouns stack constraints requirements disclaimer caveat yes no thanks "
    "subject tl why what how but and well honestly basically actually situation anyway p.p.s pps"
) | frozenset(
    [
        "side note",
        "quick question",
        "for context",
        "about me",
        "my role",
        "my team",
        "my background",
        "short version",
        "long story short",
        "also note",
    ]
)
_CLAUSE_END = re.compile(
    r"[.!?;\n]+(?<!tl;)|(?=[\s,:])(?:,?\s+(?:and|but|so|because|though|although|while|since|plus)\s+"
    r"(?=(?:i|i'm|my|he|she|they|we|it|his|her|our|their|you|your)\b)|,\s+(?:but|so|because|though|although)\s+|"
    r"\s+-\s+|\s+—\s+|:\s+)",
    re.I,
)
_COMMA = re.compile(r",\s+")

# "my wife and I ...": the pair is the subject, not the end of a clause
_PAIR_BEFORE = re.compile(
    r"\b(?:wife|husband|kids|children|partner|son|daughter|family|friends?|brother|sister|dog|mom|dad|"
    r"boyfriend|girlfriend|fianc[eé]e?|me)$",
    re.I,
)


def _blank(match: re.Match[str]) -> str:
    return " " * len(match[0])


def _blank_speaker(match: re.Match[str]) -> str:
    return match[0] if match["who"].lower() in _LABELS else " " * len(match[0])


def visible_text(text: str) -> str:
    """The text with quoted and pasted parts blanked out (same length)."""
    visible = text
    if '"' in text or "`" in text or ">" in text or "\u201c" in text:
        visible = _QUOTED.sub(_blank, visible)
    if ":" in text:
        visible = _PASTED.sub(_blank, visible)
        visible = _SPEAKER_LINE.sub(_blank_speaker, visible)
    return visible


def split_clauses(text: str) -> list[tuple[str, bool]]:
    """(clause, is_question) pairs: verbatim substrings of `text`, quoted/pasted parts removed."""
    visible = visible_text(text)
    found: list[tuple[str, bool]] = []
    start = 0
    ends = [
        m
        for m in _CLAUSE_END.finditer(visible)
        if not (
            m[0].lstrip(", ").lower().startswith("and")
            and _PAIR_BEFORE.search(visible, max(0, m.start() - 12), m.start())
        )
    ]
    for match in [*ends, None]:
        end = match.start() if match else len(visible)
        question = bool(match and "?" in match[0])
        piece_start = start
        parts: list[tuple[str, bool]] = []
        for part in [*_COMMA.finditer(visible[start:end]), None]:
            part_end = start + part.start() if part else end
            clause = text[piece_start:part_end].strip()
            parts.append((clause, bool(clause) and visible[piece_start:part_end].strip() == clause))
            piece_start = start + part.end() if part else end
        # "I'm a welder, do you travel?": only the asking part is the question, unless it is a tag ("right?")
        tag = question and len(parts[-1][0].split()) <= 3
        for index, (clause, visible_ok) in enumerate(parts):
            if visible_ok:
                found.append((clause, question and (tag or index == len(parts) - 1)))
        start = match.end() if match else len(visible)
    return found


SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
CONJUNCTION = re.compile(
    r"\s+(?:even\s+)?(?:and|but|so|because|cause|when|while|since|though|although|which|who|until)\s", re.I
)
LEAD = re.compile(
    r"^(?:(?:oh|ah|well|yes|yeah|yep|no|ok|okay|so|also|and|but|btw|by the way|honestly|actually|"
    r"for context|fyi|for what it'?s worth|as i said|as i mentioned|like i said|quick one|hi|hey|hello|"
    r"haha|wow|cool|nice|great|same|me too|true|personally|to be honest|i mean|you know|"
    r"fortunately|thankfully|luckily|unfortunately|sadly|lol|lmao|hmm|um|uh|aww|aw|omg|gosh|yea|yup|nope|"
    r"indeed|anyway|anyways|of course|hahaha|hehe|ha|now|these days|nowadays|"
    r"in my (?:spare|free|down|off|leisure) ?time|on (?:the )?weekends|for fun|"
    r"i (?:think|guess|feel like|believe|suppose) (?:that )?(?=i\b|i'|my\b))\b[\s,!.]*)+",
    re.I,
)


def clause_core(clause: str) -> str:
    """The clause without its lead-in ("well, ", "honestly"), curly apostrophes straightened, spaces folded."""
    return " ".join(LEAD.sub("", clause.replace("\u2019", "'")).split())
