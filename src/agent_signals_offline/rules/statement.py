"""Reading one clause: whether it is a durable statement the speaker makes about themselves, and as what
(kind, content). Discourse words, fronted adverbs, interjections, a question run into the statement, an
offer or an occasion after it are set aside first; refusals, household and relation forms, negations and
dislikes come before the statement patterns."""

from __future__ import annotations

import re

from agent_signals_offline.rules.clauses import clause_core
from agent_signals_offline.rules.kinds.negations import ANYMORE, DISLIKE, DISLIKED_POINTER, negative_statement
from agent_signals_offline.rules.kinds.preferences import PLEASE, PREFER_SCOPE, PREFER_TAIL, PREFERS
from agent_signals_offline.rules.kinds.relations import (
    FAMILY,
    MY_REL,
    PLURAL_REL,
    household_statement,
    named_relation,
    relation_statement,
)
from agent_signals_offline.rules.kinds.roles import WORKING_AS
from agent_signals_offline.rules.patterns import PATTERNS, content_of
from agent_signals_offline.rules.phrasing import clean
from agent_signals_offline.rules.refusals import NEGATION, ORG, QUESTION_START, skipped, unreal
from agent_signals_offline.rules.vocabulary import I_SUBJECT, YOU
from agent_signals_offline.rules.word_lists import word_set

# A clause that can carry a self-statement starts with one of these (after discourse words): a cheap test
# that spares the pattern list for most clauses.
_MY_NOUN_TAIL = re.compile(r"fav|\bmy (?:\w+ )?(?:hobb|passion|pastime)", re.I)
_START = re.compile(
    r"^(?:me and my\b|i\b|i'|i’|im\b|ive\b|my\b|please\b|always\b|never\b|from now on\b|"
    r"in general\b|by default\b)",
    re.I,
)
_INTERJECTION = re.compile(r"^(?P<word>[a-z]+)[\s,.!]+(?=(?:i|i'm|im|i've|ive|my)\b)", re.I)

# Words that open a clause the statement depends on, or that make it not a statement
_NOT_INTERJECTION = word_set(
    "when whenever if because cause since while after before until unless once as though although "
    "whether that what which where how why who than like so then maybe perhaps probably hopefully "
    "someday tomorrow today tonight yesterday currently recently lately soon not never unfortunately "
    "and but or do does did are is was were can could would will should have has had may might must "
    "shall you your he she they we it his her their our its thanks thank please imagine suppose "
    "pretend remember say says said tell told even except besides hence till where whereas sometimes "
    "wish hope guess think believe know bet feel sure glad sorry plus until for to of in on at with "
    "by from about into after if lest yet also first next last later earlier again still just only "
    "ever all anything everything something nothing much more less the a an this these those some "
    "any every each no one none rather instead otherwise"
)

# A courtesy to the listener after a statement: "..., if you are interested", "... if you want"
_OFFER = re.compile(
    r",?\s+if (?:you|u)(?:'re| are| were)? (?:\w+ )?(?:interested|want|like|wish|need|ever|fancy|would like|"
    r"are curious|need one|want one)\b.*$",
    re.I,
)

# "how old are you I am 34", "what do you do I work at a bank": a question run into the statement after it
_AFTER_QUESTION = re.compile(
    r"\b(?:are|do|did|have|were|is) (?:you|u)(?: \w+){0,2}? (?=(?:i'm|i am|im|i|my) )", re.I
)
_QUESTION_WORD = re.compile(r"\b(?:how|what|where|which|who|why|when|are|do|did|have|were|is)\b", re.I)
_FRONTED = re.compile(
    r"^(?P<adverb>usually|often|sometimes|always|generally|normally|mostly|regularly),? "
    r"(?P<subject>i'm|i am|i've|i have|i)\b ?",
    re.I,
)

# Where a run-on question starts after a statement: "... do you", "... how about you", "... what kind of
# music do you play".
ASKED = re.compile(
    r"\s+(?:(?:do|does|did|are|is|have|has|would|will|can|could|were|was)\s+(?:you|u|ya)\b|"
    r"(?:what|how|where|who|which|when|why)\b(?:\s+[\w']+){0,4}?\s+(?:you|u|ya|your)\b|"
    r"(?:and|what about|how about)\s+(?:you|u|ya|yours)\b)",
    re.I,
)


def clause_statement(clause: str) -> tuple[str, str] | None:
    """(kind, content) when the clause is a durable statement the speaker makes about themselves."""
    core = clause_core(clause)
    if not core:
        return None
    fronted = _FRONTED.match(core)
    if fronted:  # "Usually I walk to work": the same as "I usually walk to work"
        core = f"{fronted['subject']} {fronted['adverb'].lower()} {core[fronted.end() :]}"
    scoped = PREFER_SCOPE.match(core) if core[:2].lower() in ("fo", "wi", "in", "on", "wh") else None
    if scoped:  # "For complex screens I prefer Figma over sketches": the preference holds there
        found = clause_statement(core[scoped.end() :])
        if found is None or found[0] not in ("preference", "communication", "writing"):
            return None
        return found[0], f"{found[1]} {clean(scoped['scope'].lower(), 6)}"
    if core[:2].lower() == "we" and not NEGATION.search(core) and not skipped(core):
        household = household_statement(
            core
        )  # "We live on a farm", "We have four dogs": the speaker's household
        if household:
            return household
    if not (_START.match(core) or _MY_NOUN_TAIL.search(core)):
        interjected = _INTERJECTION.match(core)
        ran_on = _AFTER_QUESTION.search(core) if interjected is None else None
        if interjected and interjected["word"].lower() not in _NOT_INTERJECTION:
            core = core[interjected.end() :]  # "Awe I love the ASPCA": a word of reaction, then the statement
        elif ran_on and _QUESTION_WORD.search(core, 0, ran_on.end()):
            core = core[ran_on.end() :]  # "how old are you I am 34": the answer after the question
        else:
            return named_relation(core) if "my " in core.lower() else None
    asked = ASKED.search(core) if "you" in core.lower() or " u" in core.lower() else None
    if asked and asked.start() > 0:  # "I love the winter what is your fave weather": the asking part aside
        core = core[: asked.start()]
    offer = _OFFER.search(core)
    if offer and offer.start() > 0:  # "I have a big home library if you are interested": the offer aside
        core = core[: offer.start()]
    if PREFERS.match(core):  # "I prefer Python over R if you give code": the taste, without its occasion
        tail = PREFER_TAIL.search(core)
        if tail and tail.start() > 0:
            core = core[: tail.start()]
    negated = NEGATION.search(core) is not None
    # "I don't smoke anymore": a habit given up, said with a word that otherwise marks a moment
    checked = ANYMORE.sub("", core) if negated else core
    if ORG.match(core) or QUESTION_START.match(core):
        return None
    if skipped(checked):
        # "I took my dog to the vet yesterday": a moment, but the dog is theirs (not so in a wish or a plan)
        if negated or unreal(core.lower()) or "my " not in core.lower():
            return None
        return relation_statement(core)
    family = FAMILY.match(core)
    if family:  # "My wife and I met in college": the speaker is the subject, and has a wife
        rel = family["rel"].lower()
        rel = {"bunny": "rabbit", "bunnies": "rabbits", "puppies": "puppies"}.get(rel, rel)
        if family["count"]:
            return "personal", f"Has {family['count'].lower()} {rel}"
        plural = rel in PLURAL_REL or (rel.endswith("s") and not rel.endswith("ss"))
        return "personal", f"Has {rel}" if plural else f"Has {'an' if rel[0] in 'aeiou' else 'a'} {rel}"
    if core[:3].lower() == "my " and MY_REL.match(core):  # "My son is in junior high": has a son
        return relation_statement(core)
    disliked = DISLIKE.match(core)
    if disliked:
        obj = disliked["obj"]
        if DISLIKED_POINTER.match(obj):
            return None  # "I don't like it", "I hate to do that": nothing named
        return "preference", f"Dislikes {clean(obj, 8)}"
    if negated and not PLEASE.match(core):
        return negative_statement(core)
    for kind, pattern, template in PATTERNS:
        match = pattern.match(core)
        if match:
            result = content_of(kind, template, match)
            if result:
                return result
    if I_SUBJECT.match(core):
        working = WORKING_AS.search(core)  # "I'm sick of working at home as a vet": the role, said in passing
        if working and not YOU.search(core):
            return "role", f"Works as {clean(working['obj'], 6)}"
    if "my " in core.lower():
        return named_relation(core)
    return None
