"""Relatives, pets and possessions the speaker names as their own: "My wife and I ...", "I took my dogs to
the beach", "We have two dogs and a cat", "my job at the bank", "tomatoes from my garden" (not a late,
former or imagined one, nor one in a wish or a plan)."""

from __future__ import annotations

import re

from agent_signals_offline.rules.phrasing import clean
from agent_signals_offline.rules.refusals import NEGATION, QUESTION_START, REQUEST, unreal
from agent_signals_offline.rules.vocabulary import ADVERB, FIGURATIVE_PLACE, PAST_POINTING, YOU
from agent_signals_offline.rules.word_lists import word_set

FAMILY = re.compile(
    r"^(?P<me>me and )?my (?:(?P<count>two|three|four|five|six|seven|eight|\d)\s+)?(?:(?:oldest|youngest|eldest|older|"
    r"younger|little|big|baby|new|only|twin|grown|adult|teenage|teen|lovely|beautiful|sweet|wonderful|"
    r"amazing|dear|awesome|two|three|four)\s+)*(?P<rel>wife|husband|fianc[eé]e?|partner|boyfriend|girlfriend|"
    r"sons?|daughters?|kids?|children|child|grandsons?|granddaughters?|grandkids|grandchildren|grandchild|"
    r"brothers?|sisters?|siblings|twins|dogs?|cats?|puppy|puppies|kittens?|horses?|pets?|parrots?|birds?|"
    r"snakes?|rabbits?|bunny|bunnies|hamsters?|lizards?|turtles?|stepsons?|stepdaughters?)\b(?(me)| and (?:I|me|myself)\b)",
    re.I,
)

# "I took my dogs to the beach": a first-person statement that names the speaker's own partner, children,
# siblings or pets says that they have them (the same relations as above; not parents, not friends). A
# statement whose subject is the relative ("My wife likes to cook") stays refused: it is about them.
MY_REL = re.compile(
    r"\bmy (?:(?P<count>two|three|four|five|six|seven|eight)\s+)?(?:(?:oldest|youngest|eldest|older|younger|little|"
    r"big|baby|only|twin|grown|adult|teenage|teen|two|three|four|pet)\s+)*(?P<rel>wife|husband|fianc[eé]e?|partner|"
    r"(?:youngest|oldest|eldest|little ones?)(?= (?:is|was|just|turned|turns|has|had|will|who|in|goes|started|"
    r"loves|likes|plays|got|gets|and)\b|'s\b)|spouse|hubby|sis|bf|gf|kiddos|pups?|doggos?|boyfriend|girlfriend|sons?|daughters?|kids|children|grandsons?|granddaughters?|grandkids|grandchildren|"
    r"brothers?|sisters?|siblings|twins|nephews?|nieces?|dogs?|cats?|puppy|puppies|kittens?|horses?|parrots?|"
    r"rabbits?|bunny|bunnies|hamsters?|snakes?|lizards?|turtles?|tortoises?|ferrets?|guinea pigs?|pets?|"
    r"cows?|goats?|chickens|hens|pigs?|pony|ponies|birds?|ducks|donkeys?|alpacas?|llamas?|roommates?|"
    r"flatmates?|housemates?|stepsons?|stepdaughters?)\b(?!['’]s? (?:friend|boss|manager|colleague))",
    re.I,
)
_MY_REL_LOST = re.compile(
    r"\b(?:lost|miss|missed|missing|buried|bury|passed|died|dead|late|ex|former|deceased|divorced|divorcing|"
    r"adopt|adopting|borrow|borrowing|sitting for|future|imaginary|virtual|"
    r"pretend|fake|someday|mine)\b",
    re.I,
)
_REL_LEFT = re.compile(r"(?:\s+\w+)?\s+(?:left|leaving|is leaving|has left|walked out|moved out)\b", re.I)
PLURAL_REL = {
    "kids",
    "children",
    "a child",
    "grandkids",
    "grandchildren",
    "siblings",
    "twins",
    "puppies",
    "bunnies",
}

# "My job at the bank keeps me busy", "tomatoes from my garden": a job or a lasting possession the speaker
# names as their own in passing.
_MY_JOB = re.compile(
    r"\bmy (?:new |current |day |full[- ]time |part[- ]time |real |regular )?(?:job|work|gig) "
    r"(?P<obj>(?:at|in|with) (?:the |a |an )?(?!(?:moment|end|time|same|morning|evening|night|weekend|start)\b)"
    r"[\w'-]+(?: [\w'-]+){0,3}|as (?:an? )?[\w'-]+(?: [\w'-]+){0,2})",
    re.I,
)
_MY_THING = re.compile(
    r"\bmy (?P<own>own )?(?:(?:new|little|big|vegetable|herb|flower|family|backyard|small)\s+)?"
    r"(?P<thing>garden|farm|ranch|band|business|bakery|restaurant|salon|car|truck|motorcycle|motorbike|boat|"
    r"jeep|van|blog|podcast|youtube channel|apartment|condo|dorm|house|trailer|cabin)\b(?! (?:school|class|classes|course|degree|name|idea|plan|plans|plants?|party|parties|keys?|work|chores|music|rules|warming|hunting|search|sitter|sitting|shirts?|mates?|guests?)\b)",
    re.I,
)
_JOB_STOP = word_set(
    "is was are were keeps kept went goes makes made has had pays takes took gets got lets allows "
    "starts ends so very too they i he she it we and but or to which that when because me them would "
    "will can could as is for since while then now today all every this these those"
)
_JOB_LEFT = re.compile(
    r"\b(?:quit|quitting|fired|laid off|lost|losing|lose|left|leave|leaving|resigned|old|"
    r"former|previous|last|first|dream|future|next)\b",
    re.I,
)


def _possession(core: str) -> tuple[str, str] | None:
    job = _MY_JOB.search(core)
    if job:
        words = job["obj"].split()
        for index, word in enumerate(words[1:], start=1):  # the place or role ends where the clause goes on
            if word.lower() in _JOB_STOP or word.lower().endswith(("ly", "'s")):
                words = words[:index]
                break
        obj = " ".join(words)
        if (
            len(words) < 2
            or words[1].lower() in _JOB_STOP
            or PAST_POINTING.search(obj)
            or YOU.search(core[: job.start()])
            or _JOB_LEFT.search(core)
        ):
            return None  # "my job as is", "I quit my job in Alaska"
        if words[0].lower() == "as":
            return "role", f"Works as {clean(' '.join(words[1:]), 6)}"
        return "role", f"Works {clean(obj, 6)}"
    thing = _MY_THING.search(core)
    if not thing or YOU.search(core[: thing.start()]) or _MY_REL_LOST.search(core):
        return None
    name = thing["thing"].lower()
    if name in ("apartment", "condo", "dorm", "house", "trailer", "cabin"):
        return "personal", f"Lives in {'an' if name[0] in 'aeiou' else 'a'} {name}"
    if name == "business":
        return "personal", "Has their own business"
    if name == "band":
        return "personal", "Plays in a band"
    return "personal", f"Has {'an' if name[0] in 'aeiou' else 'a'} {name}"


# What a household (never an organisation) does: "We live in the desert", "We have two dogs and a cat",
# "We've been married for five years".
_HOUSEHOLD_ANIMALS = (
    r"kids|children|sons|daughters|boys|girls|twins|teens|grandkids|grandchildren|dogs?|cats?|puppies|puppy|"
    r"kittens?|horses?|ponies|cows|cattle|chickens|hens|goats?|sheep|pigs?|ducks|rabbits?|bunnies|birds|fish|"
    r"hamsters?|guinea pigs?|parrots?|snakes?|lizards?|turtles?|pets?|alpacas|llamas"
)
_HOUSEHOLD = re.compile(
    rf"^we(?:'ve)? {ADVERB}(?:(?P<live>live|lived|moved) (?P<where>(?!{FIGURATIVE_PLACE})(?:in|on|near|outside|by) .+)|"
    rf"(?:have|own|raise|keep|have got) (?P<what>(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|"
    rf"some|several|lots of|a few|many) (?:[\w-]+ ){{0,2}}(?:{_HOUSEHOLD_ANIMALS})(?: and (?:a|an|one|two|three|"
    rf"four|five|six|\d+) (?:[\w-]+ ){{0,2}}(?:{_HOUSEHOLD_ANIMALS}))?)|"
    rf"(?:have |'ve )?been married (?P<married>(?:for )?(?:almost |nearly |over |about )?\S+ years?))\b(?P<rest>.*)$",
    re.I,
)


def household_statement(core: str) -> tuple[str, str] | None:
    found = _HOUSEHOLD.match(core)
    if not found or YOU.search(core) or PAST_POINTING.search(found["where"] or found["what"] or ""):
        return None
    if found["where"]:
        if len(found["where"].split()) > 8:
            return None
        verb = {"live": "Lives", "lived": "Lived", "moved": "Moved"}[found["live"].lower()]
        return "personal", f"{verb} {clean(found['where'], 8)}"
    if found["what"]:
        if re.match(
            r"(?:some|several|lots of|a few|many) (?:[\w-]+ )*(?:kids|children|sons|daughters|boys|girls|"
            r"teens|twins|grandkids|grandchildren)\b",
            found["what"],
            re.I,
        ):
            return None  # "We have some teens that read to the kids": people of a place, not a family
        return "personal", f"Has {clean(found['what'], 8)}"
    return "personal", f"Has been married {clean(found['married'], 5)}"


def named_relation(core: str) -> tuple[str, str] | None:
    """ "We took my dogs to the beach": a relative or pet named as the speaker's own in a statement whose
    subject is someone else, when the statement is neither a question, a wish, a plan nor a negation."""
    lower = core.lower()
    if REQUEST.match(lower):
        return None  # "Give me three names for my dog": a request, not a statement
    if unreal(lower) or QUESTION_START.match(core) or NEGATION.search(core):
        return None
    return relation_statement(core)


def relation_statement(core: str) -> tuple[str, str] | None:
    """ "I'm walking my dog": the relative or pet the speaker names as their own, as (kind, content)."""
    found = MY_REL.search(core)
    if not found:
        return _possession(core)
    if (
        not found
        or _MY_REL_LOST.search(core)
        or YOU.search(core[: found.start()])
        or _REL_LEFT.match(core, found.end())  # "my wife left me"
    ):
        return None  # "I miss my late husband", "I'm sitting for my neighbour's dog", "you and my sister"
    rel = found["rel"].lower()
    rel = {
        "bunny": "rabbit",
        "bunnies": "rabbits",
        "puppy": "dog",
        "puppies": "dogs",
        "kitten": "cat",
        "kittens": "cats",
        "youngest": "children",
        "oldest": "children",
        "eldest": "children",
        "little one": "a child",
        "little ones": "children",
        "hubby": "husband",
        "sis": "sister",
        "bf": "boyfriend",
        "gf": "girlfriend",
        "kiddos": "kids",
        "pup": "dog",
        "pups": "dogs",
        "doggo": "dog",
        "doggos": "dogs",
    }.get(rel, rel)
    if found["count"]:
        return "personal", f"Has {found['count'].lower()} {rel}"
    plural = rel in PLURAL_REL or (rel.endswith("s") and not rel.endswith("ss"))
    return "personal", f"Has {rel}" if plural else f"Has {'an' if rel[0] in 'aeiou' else 'a'} {rel}"
