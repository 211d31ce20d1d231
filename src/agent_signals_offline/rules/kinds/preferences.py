"""Tastes and preferences: likes and dislikes, fandoms, interests and favourites (also a favourite named by a
pronoun, "Do you like twitter? It's my favourite!"), and preferences about answers and writing said as a
taste ("I prefer short answers") or a standing "always ..." ("Always use British spelling")."""

from __future__ import annotations

import re

from agent_signals_offline.rules.phrasing import clean, object_head, verb_s
from agent_signals_offline.rules.vocabulary import (
    ADVERB,
    DEGREE,
    I_AM,
    NAMED,
    NEG_POINTING,
    NO_OBJECT,
    PAST_POINTING,
    PRONOUN_I,
    YOU,
)
from agent_signals_offline.rules.word_lists import word_set
from agent_signals_offline.words import WORD

_ANSWER_WORDS = re.compile(
    r"\b(?:answers?|responses?|replies|explanations?|examples?|bullet points?|bullets|summar(?:y|ies)|code|"
    r"detail|details|steps|tl;?dr|straight to the point|concise|brief|short|terse|verbose|long)\b",
    re.I,
)
_ANSWER_STYLE = re.compile(
    r"\b(?:answers?|responses?|replies|explanations?|bullet points?|bullets|summar(?:y|ies)|tl;?dr|"
    r"code (?:samples?|snippets?|examples?|blocks?|first)|step[- ]by[- ]step)\b",
    re.I,
)
_WRITING_STYLE = re.compile(
    r"\b(?:british english|american english|oxford comma|active voice|passive voice|emojis?|jargon|"
    r"plain (?:language|english)|sentence case|title case|markdown|headings)\b",
    re.I,
)
_WRITING_WORDS = re.compile(
    r"\b(?:spelling|british english|american english|oxford comma|active voice|passive voice|emojis?|"
    r"jargon|plain (?:language|english)|tone|formal|informal|documents?|docs|drafts?|write|written|prose|"
    r"headings|markdown|sentence case|title case)\b",
    re.I,
)
PLEASE = re.compile(
    r"^(?:please\s+)?(?P<when>always|never|from now on|in general|by default)\b,?\s*(?:please\s+)?(?P<obj>.+)$",
    re.I,
)
_RUN_ON = re.compile(r"\s+(?:i|i'm|im|i've|ive|i am)\s.*$", re.I)  # a second statement run on without a stop

# -ing words after "interested in" that make it an intention of the moment ("interested in buying one")
_ONE_OFF_ING = word_set(
    "buying becoming getting seeing hearing trying going joining coming meeting reading knowing "
    "learning finding taking having doing talking watching visiting renting selling attending "
    "helping working hiring adopting checking what how why whether more any anything some something"
)

# "some Taylor Swift", "any uptempo rock songs", "more modern artists": a quantity of something named
_QUANTIFIED = re.compile(
    r"^(?:some|any|more)(?: of the)? (?!(?:of|more|less|too|it|that|this|them|those|these|one|ones|time|way|"
    r"other|others|else|kind|kinds|sort|sorts|type|types|thing|things|day|days|help|ideas?)\b)[a-z]",
    re.I,
)
_FAN_FILLER = word_set(
    "more of kind sort such a an big huge massive real total die hard lifelong avid serious new "
    "casual fellow true great"
)
_FAV_NOT_NAMED = re.compile(r"\b(?:i|he|she|they|him|her|his|their|my|your|you|we|our|think|guess)\b", re.I)

# "For complex screens I prefer ...", "When it comes to dashboards, I prefer ..."
PREFER_SCOPE = re.compile(
    r"^(?P<scope>(?:for|with|in|on|when it comes to) (?!(?:me|now|example|instance|sure|real|once|today|the moment|a "
    r"while|years|ages|some reason|what|how|that|this|it|you|your|him|her|them)\b)(?:[\w'-]+ ){0,3}[\w'-]+),? "
    r"(?=i (?:(?:really|usually|generally|always|much|definitely|tend to) )*prefer\b)",
    re.I,
)
PREFERS = re.compile(
    r"^i (?:(?:really|usually|generally|always|much|definitely|do|also) )*(?:prefer|like|love)\b", re.I
)

# What follows a taste and is about the assistant: "..., so don't ...", "... if you give code"
PREFER_TAIL = re.compile(
    r",?\s+(?:if|when|whenever) (?:you|u)\b.*$|,?\s+so (?:don'?t|do not|please|pls|no|never|avoid|skip|stop)\b.*$",
    re.I,
)

# "It is my favorite", "That's one of my favourite hobbies": a favourite named by a pronoun, resolved only to
# what the sentence just before names: "Do you like twitter? It is my favorite!", "I like shawarma. It's my
# favourite."
FAV_PRONOUN = re.compile(
    r"^(?:(?:oh|yes|yeah|and|well),? )?(?:it|that|they|those|this|he|she)(?:'s|\u2019s| is| are| was)? "
    r"(?:\w+ )?(?P<one>(?:one|some) of )?my (?:absolute |all[- ]time |very )?fav(?:ou?rite|e)?s?"
    r"(?: (?P<what>[a-z]+(?: [a-z]+)?))?[\s!.]*$",
    re.I,
)
_ANTECEDENT = re.compile(
    r"^(?:(?:oh|yes|yeah|well|so|hey|wow|cool),? )*(?:(?:do|did|have|would) (?:you|u) (?:ever )?(?:like|love|enjoy|eat|"
    r"watch|play|listen to|follow|use|seen|tried|heard of|been to|read)|i (?:really |also |do )?(?:like|love|"
    r"enjoy|adore)) (?P<x>[\w'&. -]+?)[\s?!.]*$",
    re.I,
)


def favourite_of(before: str, clause: str, text: str) -> tuple[tuple[str, str], str] | None:
    """((kind, content), quote) for a pronoun favourite whose thing the clause before names."""
    fav = FAV_PRONOUN.match(clause)
    named = _ANTECEDENT.match(before)
    if not fav or not named:
        return None
    thing = object_head(named["x"].strip())
    words = WORD.findall(thing.lower())
    if (
        not 1 <= len(words) <= 5
        or PAST_POINTING.search(thing)
        or YOU.search(thing)
        or (words[0] in NO_OBJECT and not NAMED.match(thing))
    ):
        return None  # "Do you like them? They are my favourite": nothing named
    if fav["what"] and fav["what"].lower().split()[0] in (
        "part",
        "thing",
        "one",
        "ones",
        "of",
        "too",
        "though",
    ):
        return None  # "That's my favourite part of it"
    start, end = text.find(before), text.find(clause)
    if start < 0 or end < start:
        return None
    quote = text[start : end + len(clause)]
    what = (fav["what"] or "").lower()
    if fav["one"]:
        return ("preference", f"{clean(thing, 5)} is among their favourite {what or 'things'}"), quote
    if what:
        return ("preference", f"Favourite {what} is {clean(thing, 5)}"), quote
    return ("preference", f"{clean(thing, 5)} is their favourite"), quote


# ---------------------------------------------------------------------------------------------------
# Statement patterns (patterns.PATTERNS says in which order they are tried)


# communication and writing (standing preferences about answers and text)
PREFERS_OR_WANTS = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?P<verb>prefer|like|love|want|need|appreciate) (?P<obj>.+)$", re.I
)
WRITES_IN = re.compile(rf"^{PRONOUN_I} (?:always )?write in (?P<obj>.+)$", re.I)
LIKES = re.compile(
    rf"^{PRONOUN_I}(?P<perfect>'ve| have)? {ADVERB}(?P<verb>love|like|enjoy|adore|hate|dislike|prefer)"
    rf"(?(perfect)(?:d|ed)|) (?P<obj>.+)$",
    re.I,
)

# "I always liked the flipper bots": a taste held all along
ALWAYS_LIKED = re.compile(
    rf"^{PRONOUN_I} (?:really )?always (?:really )?(?P<verb>love|like|enjoy|adore|hate|dislike)(?:d|ed) (?P<obj>.+)$",
    re.I,
)
FAN_OF = re.compile(rf"^{I_AM} {ADVERB}(?:a )?(?:big |huge )?fan of (?P<obj>.+)$", re.I)
INTO = re.compile(
    rf"^{I_AM} {ADVERB}(?P<obj>(?:into|obsessed with|addicted to|passionate about|crazy about|"
    rf"a sucker for|big on|a lover of|fond of|partial to) .+)$",
    re.I,
)

# "I'm fascinated by forensics", "I'm interested in astronomy": a lasting interest, when it is named
INTERESTED_IN = re.compile(
    rf"^{I_AM} {ADVERB}{DEGREE}(?P<obj>(?:interested in|fascinated (?:by|with)|intrigued by|keen on|"
    rf"enthusiastic about|passionate about|devoted to) .+)$",
    re.I,
)
MY_FAVOURITE = re.compile(
    r"^my (?P<least>least )?(?:absolute |all[- ]time |very )?fav(?:ou?rite|e)(?: (?P<what>[\w ]{2,30}?))? "
    r"(?:is|are|has to be|would have to be|has always been|will always be) (?P<obj>.+)$",
    re.I,
)
IS_MY_FAVOURITE = re.compile(
    r"^(?P<obj>[\w' -]{2,40}?) (?P<be>is|are|has to be|has always been|will always be) "
    r"(?:(?:still|also|definitely|probably|actually|easily|really|by far|always|just|hands down) )*"
    r"(?P<one>(?:one|another one|another|two|some|a few) of )?my (?P<least>least )?(?:absolute |all[- ]time |very )?"
    r"fav(?:ou?rite|e)?s?(?: (?P<what>[\w ]{2,30}))?$",
    re.I,
)

# "I'm a huge Mariners fan", "I'm more of a tea person"
A_FAN = re.compile(
    rf"^{I_AM} {ADVERB}(?P<obj>(?:more of |kind of |sort of |such )?an? (?:(?:big|huge|massive|real|total|"
    rf"die[- ]hard|lifelong|avid|serious) )?(?:[\w'-]+ ){{1,3}}(?:fan|lover|buff|nerd|geek|junkie|"
    rf"enthusiast|person|drinker|eater|reader|gamer|type|fanatic|addict))(?: myself| at heart)?$",
    re.I,
)


def answer_preference(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "I prefer X", "I like X": about answers or text only when X names them ("short hair" is a taste)."""
    obj = groups.get("obj", "")
    if _WRITING_STYLE.search(obj):
        kind = "writing"
    elif _ANSWER_STYLE.search(obj):
        kind = "communication"
    elif groups["verb"].lower() in ("want", "need"):
        return None  # "I want a new car": a wish, not a lasting taste
    else:
        return preference("preference", "preference", groups)
    verb = groups["verb"].lower()
    return (
        kind,
        f"{'Prefers' if verb in ('prefer', 'want', 'need') else verb_s(verb).capitalize()} {clean(obj, 14)}",
    )


def please(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "Always ...", "from now on ...": a standing request, kept when it is about answers or writing."""
    obj = groups.get("obj", "")
    if _WRITING_WORDS.search(obj):
        kind = "writing"
    elif _ANSWER_WORDS.search(obj):
        kind = "communication"
    else:
        return None  # a standing request about something else is not a preference we keep
    when = groups["when"].lower()
    lead = "Wants the assistant to never" if when == "never" else "Wants the assistant to always"
    return kind, f"{lead} {clean(obj, 14)}"


def preference(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """A taste: "I love hiking", "I hate cilantro", when something is named."""
    obj = groups.get("obj", "")
    verb = groups["verb"].lower()
    if _ANSWER_WORDS.search(obj) and re.search(
        r"\b(?:answers?|responses?|explanations?|bullet)\b", obj, re.I
    ):
        return None  # handled as communication by the "pref" pattern
    words = WORD.findall(obj.lower())
    if words[:1] in (["some"], ["any"], ["more"]) and _QUANTIFIED.match(obj):
        words = words[1:]  # "I do like some Taylor Swift", "I love any uptempo rock songs"
    if not words or YOU.search(obj) or (words[0] in NO_OBJECT and not NAMED.match(obj)):
        return None  # "I love it", "I like that", "I'd like to": no object worth keeping
    label = {"hate": "Dislikes", "dislike": "Dislikes", "prefer": "Prefers"}.get(
        verb, verb_s(verb).capitalize()
    )
    return kind, f"{label} {clean(_RUN_ON.sub('', obj), 8)}"  # "I like animals I have two cats"


def fan(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = groups.get("obj", "")
    words = WORD.findall(obj.lower())
    named = [w for w in words if w not in _FAN_FILLER]
    if YOU.search(obj) or NEG_POINTING.search(obj) or len(words) > 8 or len(named) < 2:
        return None  # "I'm a big fan": of nothing named
    return kind, f"Is {clean(obj, 8)}"


def interest(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = groups.get("obj", "")
    words = WORD.findall(obj.lower())
    named = words[2:] if words[1:2] in (["in"], ["by"], ["with"], ["on"], ["about"], ["to"]) else words[1:]
    if (
        not named
        or named[0] in NO_OBJECT
        or named[0] in _ONE_OFF_ING
        or PAST_POINTING.search(obj)
        or len(named) > 8
    ):
        return None  # "I'm interested in that", "I'm interested in buying it": not a lasting interest
    return kind, f"Is {clean(obj, 10)}"


def favourite(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = groups.get("obj", "")
    words = WORD.findall(obj.lower())
    if not words or words[0] in NO_OBJECT or _FAV_NOT_NAMED.search(obj) or groups["what"].startswith("of "):
        return None  # "that is my favourite", "he is one of my favourites", "one of my favourites of his"
    what = clean(groups["what"], 4)
    least = "least favourite" if groups["least"] else "favourite"
    if groups.get("one"):  # "Dune is one of my favourite books"
        return (
            kind,
            f"{clean(obj, 8)} {'are' if groups['be'] == 'are' else 'is'} among their {least} {what or 'things'}",
        )
    if not what and groups.get("be"):  # "Autumn is hands down my favourite"
        plural = groups["be"] == "are"
        return kind, f"{clean(obj, 8)} {'are' if plural else 'is'} their {least}{'s' if plural else ''}"
    return kind, f"{least.capitalize()} {what or 'thing'} is {clean(obj, 10)}"
