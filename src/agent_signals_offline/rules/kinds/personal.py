"""Present personal facts: name, age, where the speaker lives or is based, their time zone, durable traits
("I'm vegetarian", "I'm left-handed"), what they have ("I have two kids", "I have asthma"), what they are
known for or afraid of, and facts said through a noun of theirs ("My hobby is woodworking")."""

from __future__ import annotations

import re

from agent_signals_offline.rules.phrasing import clean, object_head
from agent_signals_offline.rules.vocabulary import (
    ADVERB,
    AGE_ADVERB,
    CONDITIONS,
    DEGREE,
    DURABLE_ADJECTIVES,
    FAMILY_NOUN,
    FIGURATIVE_PLACE,
    HAVE_NOT,
    HAVE_OBJECTS,
    I_AM,
    ME,
    NO_OBJECT,
    PAST_POINTING,
    PRONOUN_I,
    ROLE_NOUN,
    YOU,
)
from agent_signals_offline.words import WORD

# ---------------------------------------------------------------------------------------------------
# Statement patterns (patterns.PATTERNS says in which order they are tried)


MY_NAME = re.compile(r"^my name(?: is|'s|\u2019s) (?P<obj>[A-Z][\w'-]+(?: [A-Z][\w'-]+)?)$", re.I)

# "My hobby is woodworking", "Climbing is my passion", "My role is staff engineer": facts the speaker
# states about their own life through a noun that is theirs
MY_NOUN_IS = re.compile(
    r"^my (?:main |favou?rite |biggest |new |current |only )?(?P<what>hobby|hobbies|passion|pastimes?|"
    r"role|title|job title|job|day job|position|background|specialty|speciality|native language|"
    r"first language|mother tongue|birthday|hometown|home town|major|degree|"
    r"(?:eye|hair) colou?r) (?P<verb>is|are|include|includes|was) (?P<in>in )?(?P<obj>.+)$",
    re.I,
)
IS_MY_HOBBY = re.compile(
    r"^(?P<obj>[\w' -]{2,40}?) (?:is|are) (?:also |definitely |really |kind of )?(?P<one>(?:one|some) of )?"
    r"my (?:main |biggest |greatest |true |real )?(?P<what>hobby|hobbies|passion|passions|pastimes?)$",
    re.I,
)
HAS_BEEN_AFRAID_OR_FAN = re.compile(
    rf"^{PRONOUN_I}(?:'ve| have) {ADVERB}been (?P<obj>(?:afraid|scared|terrified) of .+|(?:a|an) (?:big |huge )?"
    rf"fan of .+|into .+)$",
    re.I,
)

# "I'm known for my barbecue", "I'm used to working nights": what the speaker is, by habit or repute
KNOWN_FOR = re.compile(
    rf"^{I_AM} {ADVERB}{DEGREE}(?P<obj>(?:known|famous|well known) for [\w' -]+|used to (?:\w+ing|the|a|an|"
    rf"being|having|living|working) [\w' -]+)$",
    re.I,
)
AFRAID_OF = re.compile(rf"^{I_AM} {ADVERB}(?P<obj>(?:afraid|scared|terrified|allergic) (?:of|to) .+)$", re.I)
LIVES = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?:live|reside) (?P<obj>(?!{FIGURATIVE_PLACE})(?:in|near|on|outside|by) .+|alone|"
    rf"by myself|on my own|"
    rf"with (?:my|a|an|two|three|\d+) .+)$",
    re.I,
)
FROM = re.compile(rf"^{I_AM} {ADVERB}(?:originally )?(?P<obj>from .+)$", re.I)

# "I'm based in Lisbon", "I'm based out of Toronto"
BASED_IN = re.compile(
    rf"^{I_AM} {ADVERB}(?:now )?based (?:in|out of|near|at) (?P<obj>[\w.,'& -]{{2,60}})$", re.I
)

# "I'm on Pacific time", "I'm in the CET time zone"
TIME_ZONE = re.compile(
    rf"^{I_AM} {ADVERB}(?:on|in) (?:the )?(?P<obj>(?:[A-Z][\w/+-]*|utc|gmt)(?: ?[+-]\d{{1,2}})?(?: [A-Z][\w/+-]*)?) "
    rf"(?P<tz>time ?zone|time)$"
)

# "I'm in an apartment just off the base": where the speaker lives
LIVES_IN_A_HOME = re.compile(
    rf"^{I_AM} {ADVERB}(?:now )?in (?P<obj>an? (?:[\w-]+ ){{0,2}}(?:apartment|house|condo|dorm|flat|"
    rf"trailer|duplex|townhouse|bungalow|cottage))\b.*$",
    re.I,
)
HAS = re.compile(
    rf"^(?:{PRONOUN_I} {ADVERB}(?:have|own|have got) |{PRONOUN_I}'ve {ADVERB}(?:got )?|ive (?:got )?)"
    rf"(?P<obj>(?:my own|a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|several|many|some|lots of|"
    rf"kids|children|grandchildren|grandkids|pets|dogs|cats|siblings|brothers|sisters|twins|horses|"
    rf"chickens|goats|cows|tattoos|family|relatives|cousins|nephews|nieces|grandparents|"
    rf"(?:[\w-]+,? (?:and )?){{0,3}}(?:hair|eyes|skin|freckles|beard)|{CONDITIONS})\b.*)$",
    re.I,
)
DURABLE_TRAIT = re.compile(rf"^{I_AM} {ADVERB}{DEGREE}(?P<obj>{DURABLE_ADJECTIVES})\b.*$", re.I)
IS_A = re.compile(
    rf"^{I_AM} {ADVERB}(?P<obj>(?:a|an) (?!(?:bit|little|lot|few|couple|mess|wreck|fool|idiot|"
    rf"moron|loser|joke|good|great|nice|real|total|complete|huge|big)\b)[\w'-]+(?: [\w'-]+){{0,3}}"
    rf"(?: (?:at|in|for|with|from|on) [\w' -]+)?)$",
    re.I,
)
AGE = re.compile(
    rf"^{I_AM} {AGE_ADVERB}(?P<obj>\d{{1,2}}) (?:years? old|yrs old|yo|y/o|years of age)\b.*$", re.I
)
AGE_NUMBER = re.compile(rf"^{I_AM} {AGE_ADVERB}(?P<obj>[1-9]\d)$", re.I)
AGE_DECADE = re.compile(
    rf"^{I_AM} {AGE_ADVERB}in my (?P<obj>(?:early |mid |late )?(?:[1-9]0s|'[1-9]0s|twenties|thirties|"
    rf"forties|fifties|sixties|seventies|eighties|nineties))\b.*$",
    re.I,
)


def my_fact(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "My hobby is woodworking", "Climbing is my passion", "My role is staff engineer": the noun decides the
    kind."""
    obj = groups.get("obj", "")
    what = groups["what"].lower()
    words = WORD.findall(obj.lower())
    if (
        not words
        or words[0] in NO_OBJECT
        or PAST_POINTING.search(obj)
        or ME.search(obj)
        or len(words) > 10
        or (groups.get("verb") == "was" and what not in ("background", "major", "degree"))
    ):
        return None  # "it is my passion", "my job is killing me this week" (moment words are skipped)
    if what.startswith("passion"):
        return "preference", f"Is passionate about {clean(obj, 8)}"
    if what in ("hobby", "hobbies", "pastime", "pastimes"):
        return (
            "preference",
            f"{'Hobbies include' if what.endswith('s') or groups.get('one') else 'Hobby is'} {clean(obj, 8)}",
        )
    if what in ("role", "title", "job title", "position", "job", "day job"):
        if what in ("job", "day job") and not (ROLE_NOUN.search(obj) or re.match(r"\w+ing\b", obj)):
            return None  # "my job is stressful": not a role
        return "role", f"{'Day job' if what == 'day job' else 'Role'} is {clean(obj, 8)}"
    if what in ("background", "specialty", "speciality"):
        return "expertise", f"Has a background in {clean(obj, 8)}"
    verb = "are" if groups["verb"] == "are" else "is"
    return "personal", f"{what.capitalize()} {verb} {groups.get('in') or ''}{clean(obj, 8)}"


def known_for(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = groups.get("obj", "")
    words = WORD.findall(obj.lower())
    if PAST_POINTING.search(obj) or ME.search(obj) or len(words) > 10 or words[-1] in NO_OBJECT:
        return None  # "I'm used to it", "I'm known for that"
    return kind, f"Is {clean(obj, 10)}"


def based(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = object_head(groups.get("obj", ""))
    if PAST_POINTING.search(obj) or len(WORD.findall(obj)) > 8:
        return None  # "I'm based in that office"
    return kind, f"Is based in {clean(obj, 8)}"


def has(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "I have two kids", "I have asthma"; not "I have a question"."""
    obj = groups.get("obj", "")
    if HAVE_NOT.match(obj) or (not HAVE_OBJECTS.search(obj) and YOU.search(obj)):
        return None  # "I have a question", "I have a meeting": not a fact about the person
    words = WORD.findall(obj.lower())
    if words[0] == "one" and not HAVE_OBJECTS.match(" ".join(words[1:2])):
        return None  # "I have one for each of them": the thing is not named
    return kind, f"Has {clean(obj, 8)}"


def is_a(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "I'm a nurse" (a role), "I'm a twin" (personal)."""
    obj = groups.get("obj", "")
    words = WORD.findall(obj.lower())
    if YOU.search(obj) or words[-1] in ("of", "in", "at", "for", "to", "with", "and", "or", "the"):
        return None
    kind = "role" if ROLE_NOUN.search(obj) and not FAMILY_NOUN.search(obj) else "personal"
    return kind, f"Is {clean(obj, 6)}"
