"""Durable negations: a habit or taste the speaker does not have ("I don't drink coffee"), what they have
never done ("I've never used Kubernetes"), what they no longer do, what they cannot do at all, and dislikes
("I'm not a fan of jazz"). Any other negated clause is refused."""

from __future__ import annotations

import re

from agent_signals_offline.rules.phrasing import clean, verb_s
from agent_signals_offline.rules.vocabulary import ADVERB, I_AM, INTRANSITIVE, NEG_POINTING, PRONOUN_I
from agent_signals_offline.rules.word_lists import word_set
from agent_signals_offline.words import WORD

# Durable negations: a habit or taste the speaker does not have ("I don't drink coffee"), what they have
# never done ("I've never used Kubernetes"), what they no longer do, and what they cannot do at all. A
# negated state ("I'm not sure", "I'm not a manager"), a negated event ("I didn't sleep"), a negated
# possession ("I don't have time") and anything modal stays refused.
_NEG_HABIT_VERBS = (
    rf"{INTRANSITIVE}|like|enjoy|care for|eat|drink|smoke|vape|gamble|watch|play|drive|read|listen to|own|use|"
    r"wear|celebrate|speak|write|code|program|follow|believe in|go out|go to|do drugs|work (?:on|at|in|for)"
)
_NEG_HABIT = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?P<neg>don'?t|do not|dont|never|no longer) (?P<adv>{ADVERB})(?P<verb>{_NEG_HABIT_VERBS})"
    rf"(?: (?P<obj>.+))?$",
    re.I,
)
_NEG_NEVER = re.compile(
    rf"^{PRONOUN_I}(?:'ve| have|ve)? {ADVERB}(?:never|not ever|haven'?t ever|never ever) {ADVERB}"
    rf"(?P<pp>been|had|owned|lived|worked|visited|tried|played|used|eaten|driven|ridden|traveled|travelled|"
    rf"flown|smoked|skied|gone|learned|learnt|studied|met|seen|watched|read|cooked|coded|programmed|written|"
    rf"listened to)"
    rf"(?: (?P<obj>.+))?$",
    re.I,
)
_NEG_CANNOT = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?:can'?t|cannot|can not) {ADVERB}(?P<obj>(?:{INTRANSITIVE}|drive|read music|"
    r"(?:speak|eat|drink|have|tolerate) [\w' -]+))$",
    re.I,
)

# A negated habit whose object is empty, pronominal, vague or a moment is not a fact about the person.
_NEG_POINTER = word_set(
    "that it this there here you them those these one ones what how why when where for with like "
    "about right back again so too very better as"
)
_NEG_VAGUE = word_set(
    "anything much many any more now yet either well enough everything really the a an best worst "
    "lot lots of that often else at all in while long time"
)


def _vague(words: list[str]) -> bool:
    return not words or words[0] in _NEG_POINTER or all(w in _NEG_VAGUE for w in words)


ANYMORE = re.compile(r",?\s+any ?more$", re.I)
_FREQUENCY = frozenset(["usually", "often", "always", "generally", "normally", "regularly", "mostly", "even"])
_NO_CHANCE = re.compile(
    r"^(?:\w+ )?(?:chance|opportunity|time|luck|pleasure|reason|need|problem|issue)\b", re.I
)
_BEFORE = re.compile(r"(?:^|\s+)(?:before|in my life|ever)\s*$", re.I)


def negative_statement(core: str) -> tuple[str, str] | None:
    """(kind, content) for a durable negation, None for any other negated clause."""
    anymore = ANYMORE.search(core) is not None
    core = ANYMORE.sub("", core)
    match = _NEG_HABIT.match(core)
    if match:
        verb, obj = match["verb"].lower(), _BEFORE.sub("", match["obj"] or "")
        obj = re.sub(r"^(?:or|and|nor)\b.*$", "", obj, flags=re.I)  # "I never drink or use drugs"
        words = WORD.findall(obj.lower())
        if words and (_vague(words) or NEG_POINTING.search(obj) or len(words) > 8):
            return None  # "I don't like it", "I don't watch much", "I don't use that here"
        if not words and not re.fullmatch(rf"{INTRANSITIVE}|drink|smoke|vape|gamble|drive|go out", verb):
            return None  # "I don't play": nothing named
        neg = match["neg"].lower()
        if verb in ("like", "enjoy", "care for") and neg not in ("no longer",):
            return ("preference", f"Dislikes {clean(obj, 8)}") if words else None
        head, _, rest = verb.partition(" ")
        adv = " ".join(w for w in match["adv"].lower().split() if w in _FREQUENCY)
        phrase = f"{head}{(' ' + rest) if rest else ''}{(' ' + clean(obj, 8)) if words else ''}"
        if adv:  # "I don't often eat seafood": the frequency is part of the fact
            phrase = f"{adv} {phrase}"
        kind = (
            "preference" if head in ("eat", "drink", "smoke", "vape", "like", "enjoy", "care") else "personal"
        )
        if head == "work" and (neg == "no longer" or anymore) and rest in ("at", "for", "on", "in"):
            kind = "role"  # "I no longer work at Acme": a past role; "I don't work on weekends" is a habit
        if neg == "no longer" or anymore:
            return (
                kind,
                f"No longer {verb_s(head)}{(' ' + rest) if rest else ''}{(' ' + clean(obj, 8)) if words else ''}",
            )
        if neg == "never":
            return (
                kind,
                f"Never {verb_s(head)}{(' ' + rest) if rest else ''}{(' ' + clean(obj, 8)) if words else ''}",
            )
        return kind, f"Does not {phrase}"
    if anymore:
        return None
    match = _NEG_NEVER.match(core)
    if match:
        pp, obj = match["pp"].lower(), _BEFORE.sub("", match["obj"] or "")
        words = WORD.findall(obj.lower())
        if not words:
            return (
                ("personal", f"Has never {pp}")
                if pp in ("smoked", "skied", "flown", "traveled", "travelled")
                else None
            )
        if _vague(words) or NEG_POINTING.search(obj) or len(words) > 8 or _NO_CHANCE.match(obj):
            return None  # "I've never been so happy", "I've never seen this error", "never had the chance"
        if pp == "been" and not re.match(
            r"(?:to|in|on|abroad|overseas|outside|married|engaged|divorced|an? )", obj, re.I
        ):
            return None  # "I've never been better": a feeling, not an experience
        if pp in ("seen", "watched", "read") and not re.match(r"(?:an?|any) ", obj, re.I):
            return None  # "I've never seen the new dashboard": a moment of the task, not a fact
        return "personal", f"Has never {pp} {clean(obj, 8)}"
    match = _NEG_CANNOT.match(core)
    if match:
        obj = match["obj"]
        words = WORD.findall(obj.lower())
        if len(words) > 6 or (len(words) > 1 and _vague(words[1:])) or NEG_POINTING.search(obj):
            return None  # "I can't eat anything", "I can't have that"
        return "personal", f"Cannot {clean(obj, 6)}"
    return None


DISLIKE = re.compile(
    rf"^(?:{I_AM} {ADVERB}not (?:really |very |much |that |super |too |overly |all that |particularly )?(?:a |an )?(?:big |huge |great |real )?"
    rf"(?:fan of|into|big on|fond of|keen on)|{PRONOUN_I} {ADVERB}(?:hate|dislike|can'?t stand|detest|"
    rf"don'?t (?:really |much )?(?:like|enjoy|care for))) (?P<obj>.+)$",
    re.I,
)
DISLIKED_POINTER = re.compile(r"^(?:to \w+ |\w+ing )?(?:it|that|this|you|them|those|these|him|her)\b", re.I)
