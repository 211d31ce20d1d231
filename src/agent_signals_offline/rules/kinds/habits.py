"""Habits and abilities: what the speaker does as a habit ("I play the guitar", "I volunteer at the
shelter"), can do or is good at, pursues ("I'm learning Spanish") or tries to do, and any other present
"I <verb> <object>" whose verb says something lasting."""

from __future__ import annotations

import re

from agent_signals_offline.rules.phrasing import clean, object_head, verb_s
from agent_signals_offline.rules.vocabulary import (
    ADVERB,
    DEGREE,
    FIGURATIVE_PLACE,
    HABIT_VERBS,
    I_AM,
    INTRANSITIVE,
    NEG_POINTING,
    NO_OBJECT,
    PAST_POINTING,
    PRONOUN_I,
    THE_WORDS,
    YOU,
)
from agent_signals_offline.rules.word_lists import IRREGULAR_PAST, NOT_HABIT
from agent_signals_offline.words import WORD

# "with show dogs", "out at the local soup kitchen", "out a lot": a particle before something named
_PARTICLE_OBJECT = re.compile(
    r"^(?:out (?:at|with|in|on|for|a lot|all the time)|with)\b(?! (?:it|that|this|them|those|these|him|her|"
    r"you|your|me|us|one|some|any|there|what|which|whom)\b)(?: [\w'-]+)+$",
    re.I,
)
_HABIT_OBJECTS = re.compile(
    r"\b(?:every|on weekends?|weekly|daily|often|regularly|a lot|for fun|in my free time|as a hobby)\b|\b(?:the \w+|guitar|piano|violin|drums|soccer|football|basketball|baseball|tennis|golf|chess|video games|games|sports?)\b",
    re.I,
)
_WORK_DOC = re.compile(
    r"\b(?:docs?|spec|specs|proposal|prd|rfc|report|e-?mails?|post-?mortem|ticket|tests?|script|query|queries|"
    r"function|code|migration|readme|review|plan|deck|brief|memo|summary|update|message|reply|response|"
    r"cover letter|job (?:description|ad|post)|policy|runbook|slides|presentation|notes|changelog|okrs?|"
    r"announcement|newsletter|copy|landing page|contract|invoice|quote|estimate|ticket|pr|patch)\b",
    re.I,
)


# ---------------------------------------------------------------------------------------------------
# Statement patterns (patterns.PATTERNS says in which order they are tried)


ONGOING = re.compile(
    rf"^{I_AM} {ADVERB}(?P<verb>learning|training|raising|writing|volunteering|practicing|practising|"
    rf"teaching|living|working|taking|saving up|coaching|homeschooling|fostering|restoring|growing|"
    rf"majoring|minoring|dating|married to|engaged to) (?P<obj>.+)$",
    re.I,
)
CAN = re.compile(rf"^{PRONOUN_I} {ADVERB}can (?P<obj>(?:{HABIT_VERBS})\b.*)$", re.I)
HAS_BEEN_DOING = re.compile(
    rf"^{PRONOUN_I}(?:'ve| have) {ADVERB}been (?P<obj>(?!thinking|wondering|meaning|wanting|trying|hoping|"
    rf"looking|waiting|planning|busy|feeling|getting|going|having|doing|talking|reading about|"
    rf".* for (?:about |over |almost |nearly )?(?:\S+ )?(?:years?|decades?)\b)"
    rf"\w+ing .+)$",
    re.I,
)
TRIES_TO = re.compile(
    rf"^{PRONOUN_I} {ADVERB}try to (?P<verb>{HABIT_VERBS}|keep|avoid|stay|limit|stick to|wake up|get up|sleep|hit|get in|"
    rf"take|cut|eat|exercise|meditate|write|reply|answer|review|finish|leave|start) (?P<obj>.+)$",
    re.I,
)

# abilities: "I'm fluent in Spanish", "I'm good at SQL", "I'm terrible with names"
GOOD_AT = re.compile(
    rf"^{I_AM} {ADVERB}{DEGREE}(?P<obj>(?:fluent|proficient|conversational) in [\w' +#.-]+|"
    rf"(?:good|great|decent|bad|terrible|awful|hopeless|useless|skilled|talented) (?:at|with) [\w' +#.-]+)$",
    re.I,
)
HABIT = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?P<verb>{HABIT_VERBS})(?: (?P<obj>.+))?$",
    re.I,
)
GENERIC = re.compile(rf"^{PRONOUN_I} {ADVERB}(?P<verb>[a-z]{{3,}}) (?P<obj>[a-z][\w' -]+)$", re.I)


def habit(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "I play the guitar", "I volunteer at the shelter", "I swim": an activity with a lasting object."""
    obj = groups.get("obj", "")
    verb = groups["verb"].lower()
    if not obj:
        if not re.fullmatch(INTRANSITIVE, verb):
            return None  # "I read", "I go": nothing said
        return kind, verb_s(verb).capitalize()
    first = WORD.findall(obj.lower())[:1]
    if first and first[0] in ("with", "out") and _PARTICLE_OBJECT.match(obj):
        first = ["the"]  # "I help out at the food bank", "I compete with show dogs": a named object
    if not first or first[0] in NO_OBJECT or first[0] in NOT_HABIT or YOU.search(obj):
        return None  # "I watch it", "I go there", "I play with you", "I do know": no lasting object
    obj = object_head(obj)
    if not _HABIT_OBJECTS.search(obj) and len(WORD.findall(obj)) > 8:
        return None  # a long story, not a habit
    verb, _, rest = verb.partition(" ")
    return kind, f"{verb_s(verb).capitalize()} {(rest + ' ') if rest else ''}{clean(obj, 8)}"


def ability(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = groups.get("obj", "")
    words = WORD.findall(obj.lower())
    if YOU.search(obj) or (len(words) > 1 and words[1] in NO_OBJECT) or len(words) > 10:
        return None  # "I can do that", "I can help you"
    return kind, f"Can {clean(obj, 10)}"


def ability_is(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = groups.get("obj", "")
    words = WORD.findall(obj.lower())
    if NEG_POINTING.search(obj) or words[-1] in NO_OBJECT or len(words) > 8 or words[2:3] == ["the"]:
        return None  # "I'm really bad at it", "I'm good with that", "I'm good at the moment"
    return kind, f"Is {clean(obj, 8)}"


def generic(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """Any other "I <verb> <object>" in the present, when the verb is not a thought, a modal or a past."""
    obj = groups.get("obj", "")
    verb = groups["verb"].lower()
    if verb == "live" and re.match(FIGURATIVE_PLACE, obj, re.I):
        return None  # "I live in a world of microservices"
    if not YOU.search(obj):
        obj = object_head(obj)
    words = WORD.findall(obj.lower())
    if (
        verb in NOT_HABIT
        or verb.endswith(("ed", "ing", "n't", "ly"))
        or verb in IRREGULAR_PAST
        or not words
        or words[0] in NO_OBJECT
        or YOU.search(obj)
        or not 1 <= len(words) <= 14
    ):
        return None
    return kind, f"{verb_s(verb).capitalize()} {clean(obj, 8)}"


def ongoing(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "I'm learning Spanish", "I'm working as a nurse": a pursuit, not a task of the moment."""
    obj = groups.get("obj", "")
    verb = groups["verb"].lower()
    words = WORD.findall(obj.lower())
    if not words or words[0] in NO_OBJECT or YOU.search(obj) or len(words) > 10:
        return None
    if verb == "working" and words[0] not in ("as", "at", "for", "in", "with", "from"):
        return None  # "I'm working on a flaky test": a task of the moment
    if verb == "taking" and not re.search(r"\b(?:class|classes|lessons?|courses?|degree)\b", obj, re.I):
        return None
    if verb in ("writing", "taking") and re.search(r"\bnow\b", obj, re.I):
        return None  # "I'm writing the launch email now": a task of the moment
    if verb == "writing" and (words[0] in THE_WORDS or _WORK_DOC.search(obj)):
        return None  # "I'm writing a PRD for search": work in hand, not a pursuit
    if verb == "living":
        return kind, f"Lives {clean(obj, 8)}"
    return ("role" if verb == "working" else kind), f"Is {verb} {clean(obj, 8)}"


def try_to(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "I try to keep my pull requests small": a standing effort."""
    obj = object_head(groups.get("obj", ""))
    words = WORD.findall(obj.lower())
    if not words or words[0] in NO_OBJECT or PAST_POINTING.search(obj) or len(words) > 10:
        return None  # "I try to fix it", "I try to help you"
    return kind, f"Tries to {groups['verb'].lower()} {clean(obj, 10)}"
