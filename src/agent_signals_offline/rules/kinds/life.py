"""Biographical statements: what the speaker did or was at a time of life ("I played hockey growing up",
"I was a nurse for ten years"), lasting events (moving, joining, graduating, getting a dog), studies and
schooling, where they grew up and what they used to do: the patterns and the builders of their content."""

from __future__ import annotations

import re

from agent_signals_offline.rules.kinds.roles import TEAM_IN
from agent_signals_offline.rules.phrasing import clean, third_person
from agent_signals_offline.rules.vocabulary import (
    ADVERB,
    FAMILY_NOUN,
    HAVE_NOT,
    HAVE_OBJECTS,
    LIFE_TIME,
    NO_OBJECT,
    NUMBER_WORD,
    PAST_POINTING,
    PRONOUN_I,
    ROLE_NOUN,
    YOU,
)
from agent_signals_offline.rules.word_lists import word_set
from agent_signals_offline.words import WORD

PAST_LIFE = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?P<verb>[a-z]+ed|{'|'.join(sorted(['taught', 'grew', 'rode', 'drove', 'ran', 'swam', 'sang', 'wrote', 'read', 'spent', 'built', 'won', 'had', 'went', 'did', 'made', 'fought', 'sold', 'flew', 'broke', 'began', 'took']))}) "
    rf"(?P<obj>.+?) (?P<when>{LIFE_TIME})\b.*$",
    re.I,
)
PERFECT_SPAN = re.compile(
    rf"^{PRONOUN_I}(?:'ve| have) {ADVERB}(?P<pp>[a-z]+ed|known|been|taught|grown|ridden|driven|run|sung|done|worn|"
    rf"written|read|spent|built|had|led|managed|run|designed|developed|programmed|coded) (?P<obj>.+?) "
    rf"(?P<when>(?:for (?:about |over |almost |nearly |more than |quite |well over )?{NUMBER_WORD} (?:years|decades)|"
    rf"for (?:many |several |so many )?(?:years|decades)|(?:all|most of) my (?:life|adult life|career)|"
    rf"since (?:i was \w+(?: \w+)?|childhood|high school|college|birth|\d{{4}})))\b.*$",
    re.I,
)

# Past verbs that tell a thought or an exchange, not a part of one's life.
_PAST_NOT_LIFE = word_set(
    "thought felt said told asked knew heard forgot meant wondered guessed realized realised figured "
    "assumed hoped wished got needed wanted tried decided managed used seemed noticed mentioned "
    "talked asked answered replied laughed cried missed imagined believed expected agreed searched "
    "looked checked finished started stopped happened called texted emailed wished enjoyed had did "
    "went made took"
)
WAS_LIFE = re.compile(
    rf"^{PRONOUN_I} was (?P<obj>(?!(?:just|about|going|thinking|planning|hoping|talking|telling|so|too|very)\b).+?) (?P<when>{LIFE_TIME})\b.*$",
    re.I,
)

# Feelings and states that pass: never a trait, whenever they were felt.
_MOMENT_STATES = word_set(
    "tired exhausted sick ill busy hungry thirsty bored sad upset angry mad worried stressed excited "
    "nervous sleepy late sorry glad happy scared afraid annoyed confused surprised there here at in "
    "on out home away able about almost"
)
_WORK_DONE = word_set("done used built led managed run designed developed programmed coded written")


# ---------------------------------------------------------------------------------------------------
# Statement patterns (patterns.PATTERNS says in which order they are tried)


MOVED = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?P<verb>moved|relocated) (?P<obj>(?:to|over to|here|back to|from|out of|into) .+|here)$",
    re.I,
)
ACQUIRED = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?P<verb>bought|adopted|got|rescued|inherited|built|quit) (?P<obj>(?:a|an|my|two|three|"
    rf"\d+|our) .+)$",
    re.I,
)
HAS_HAD = re.compile(
    rf"^{PRONOUN_I}(?:'ve| have) {ADVERB}had (?P<obj>.+ for (?:about |over |almost |nearly )?\S+ "
    rf"(?:years?|months|decades?))\b.*$",
    re.I,
)
GRADUATED = re.compile(rf"^{PRONOUN_I} {ADVERB}graduated (?P<obj>(?:from|with|in) .+)$", re.I)
LIFE_EVENT = re.compile(
    rf"^{PRONOUN_I}(?:'ve| have)? {ADVERB}(?P<verb>joined|learned|learnt|won|started|took up|retired|volunteered|"
    rf"competed|trained) (?P<obj>.+)$",
    re.I,
)
HAS_BEEN_TO = re.compile(
    rf"^{PRONOUN_I}(?:'ve| have) {ADVERB}(?:been to|traveled to|travelled to) (?P<obj>(?:[\w'-]+ ){{0,5}}[\w'-]+)$",
    re.I,
)

# "I've been on many cruises", "I've run three marathons": experiences counted
COUNTED = re.compile(
    rf"^{PRONOUN_I}(?:'ve| have) {ADVERB}(?:only )?(?P<verb>been on|run|ran|done|climbed|hiked|visited|owned|"
    rf"raised|written|published|played in|performed in|competed in|won) (?P<obj>(?:many|several|a few|"
    rf"a couple of|a lot of|lots of|dozens of|hundreds of|two|three|four|five|six|seven|eight|nine|ten|"
    rf"\d+|over \d+|more than \d+) [\w'-]+(?: [\w'-]+){{0,3}})$",
    re.I,
)
WENT_TO_SCHOOL = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?:went|go) to (?P<obj>(?:the )?(?:[\w.'-]+ ){{0,4}}(?:university|college|"
    rf"school|high school|law school|med school|academy|institute|uni)\b.*)$",
    re.I,
)
STUDIES = re.compile(
    rf"^{PRONOUN_I}(?: study| am studying|'m studying| major in|'m majoring in) (?P<obj>(?!to\b|up\b|it\b|this\b|"
    rf"that\b|the\b).+)$",
    re.I,
)

# studies and a degree: "I studied chemistry", "I majored in economics"
STUDIED = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?P<verb>studied|majored in|minored in|did my (?:degree|masters|phd|ba|bs|ma|ms) in) "
    rf"(?P<obj>(?!the |this |that |it\b|them\b|those |these |your |his |her |their |a |an |some |hard\b|"
    rf"all\b|for\b|with\b|up\b)[\w' &-]+)$",
    re.I,
)
USED_TO = re.compile(rf"^{PRONOUN_I} {ADVERB}used to (?P<obj>[\w'-]+(?: .+)?)$", re.I)
GREW_UP_IN = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?:grew up|was born(?: and raised)?|was raised|was brought up) (?P<obj>(?:in|on|near) .+)$",
    re.I,
)

# "I grew up listening to jazz", "I grew up poor", "I grew up with four brothers"
GREW_UP = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?:grew up|was raised|was brought up) (?P<obj>(?:with|around|as|by|on|in|"
    rf"listening to|watching|playing|speaking|going to|riding|helping|working|reading|poor|rich|"
    rf"wealthy|religious|catholic|christian|jewish|muslim|bilingual|an? )\b.+|poor|rich|wealthy)$",
    re.I,
)


def event(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """A lasting change: "I moved to Denver", "I joined a choir"; moving to a team is a team statement."""
    obj = groups.get("obj", "")
    words = WORD.findall(obj.lower())
    here = words[:2] == ["here", "to"] and len(words) > 3  # "I moved here to coach at a university"
    if not words or (words[0] in NO_OBJECT and not here) or YOU.search(obj) or len(words) > 10:
        return None
    verb = groups["verb"].lower().replace("learnt", "learned")
    team = TEAM_IN.match(re.sub(r"^over ", "", obj, flags=re.I)) if verb in ("moved",) else None
    if team and obj.lower().startswith(("to ", "over to ")):  # "I moved over to the identity team"
        return "team", f"Is on the {clean(team['team'], 4)} {team['unit'].lower()}"
    return kind, f"{verb.capitalize()} {clean(obj, 10)}"


def acquired(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """Something lasting the speaker got: a pet, a house, a licence ("I got a sandwich" is not)."""
    obj = groups.get("obj", "")
    verb = groups["verb"].lower()
    lasting = HAVE_OBJECTS.search(obj) or re.search(r"\b(?:license|licence|diploma|certificate)\b", obj, re.I)
    if not lasting or YOU.search(obj) or len(WORD.findall(obj)) > 10:
        return None  # "I got a sandwich": not a lasting change
    if verb == "quit" and not re.search(r"\b(?:job|smoking|drinking|school|college)\b", obj, re.I):
        return None
    return kind, f"{verb.capitalize()} {clean(obj, 10)}"


def counted(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = groups.get("obj", "")
    if PAST_POINTING.search(obj):
        return None  # "I've done a few of those"
    verb = groups["verb"].lower().replace("ran", "run")
    return kind, f"Has {verb} {clean(obj, 8)}"


def grew_up(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = groups.get("obj", "")
    words = WORD.findall(obj.lower())
    if PAST_POINTING.search(obj) or len(words) > 10:
        return None  # "I grew up with them", "I grew up in that house": the thing is not named
    return kind, f"Grew up {clean(obj, 10)}"


def studied(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    return "personal", f"{groups['verb'].capitalize()} {clean(groups.get('obj', ''), 8)}"


def was_life(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "I was a swimmer in college": what the speaker was at a time of life, not an event."""
    obj = groups.get("obj", "")
    words = WORD.findall(obj.lower())
    if (
        not words
        or PAST_POINTING.search(obj)
        or len(words) > 8
        or words[0].endswith("ing")
        or words[0] in _MOMENT_STATES
    ):
        return None  # "I was there as a kid", "I was playing outside when I was 5": events
    return kind, f"Was {clean(obj, 8)} {third_person(groups['when'])}"


def past_life(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "I played hockey growing up" (past_life), "I've lived here for 30 years" (perfect_span)."""
    obj = groups.get("obj", "")
    verb = (groups.get("verb") or groups.get("pp")).lower()
    words = WORD.findall(obj.lower())
    had = verb == "had" and HAVE_OBJECTS.search(obj) and not HAVE_NOT.match(obj)  # "I had a dog growing up"
    here = words[:1] == ["here"] and verb in ("lived", "worked", "been")  # "I've lived here for 30 years"
    if (
        (
            verb in _PAST_NOT_LIFE
            and not had
            and not (template == "perfect_span" and verb in ("used", "enjoyed"))
        )
        or not words
        or (words[0] in NO_OBJECT and not here)
        or PAST_POINTING.search(obj)
        or len(words) > 8
    ):
        return None  # "I thought so as a kid", "I've known him for years", "I saw it in college"
    when = groups["when"]
    if template == "perfect_span":
        kind = "role" if verb == "worked" and words[0] in ("as", "at", "for", "in") else kind
        if verb in _WORK_DONE or (verb == "worked" and words[0] in ("on", "with")):
            kind = "expertise"  # "I've done incident reviews for years"
        return kind, f"Has {verb} {clean(obj, 8)} {third_person(when)}"
    kind = "role" if verb in ("worked", "taught") and words[0] in ("as", "at", "for", "in") else kind
    return kind, f"{verb.capitalize()} {clean(obj, 8)} {third_person(when)}"


def used_to(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "I used to teach": a past role when it is work or being one, else a past part of their life."""
    obj = groups.get("obj", "")
    first = WORD.findall(obj.lower())[:1]
    if not first or first[0] in ("it", "that", "this", "them") or YOU.search(obj):
        return None
    role = first[0] == "work" or (first[0] == "be" and ROLE_NOUN.search(obj) and not FAMILY_NOUN.search(obj))
    return ("role" if role else "personal"), f"Used to {clean(obj, 10)}"
