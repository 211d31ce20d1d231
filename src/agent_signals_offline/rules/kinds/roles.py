"""Work statements: the speaker's role ("I'm a data engineer", "I work at a bank", "I was hired as a
cashier"), team ("I'm on the checkout team"), what they own at work ("I maintain the billing service") and
expertise ("I specialise in Postgres", "I've done about 40 of these migrations"): the patterns and the
builders of their content."""

from __future__ import annotations

import re

from agent_signals_offline.rules.phrasing import article, clean, object_head, verb_s
from agent_signals_offline.rules.vocabulary import (
    ADVERB,
    FAMILY_NOUN,
    I_AM,
    MILITARY,
    OCCUPATIONS,
    PAST_POINTING,
    PRONOUN_I,
    TITLE,
    YOU,
)
from agent_signals_offline.words import WORD

NEW_ROLE = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?:(?:recently|finally|just|now) )?(?:(?:started|began) (?:working |work )?|was hired |"
    rf"got hired |got a (?:new |full[- ]time |part[- ]time )?job |got a position |became |have become |"
    rf"'ve become |now work )(?P<obj>(?:as|at) .+|(?:a|an) (?:[\w-]+ ){{0,3}}(?:{OCCUPATIONS})s?\b.*)$",
    re.I,
)
WAS_ROLE = re.compile(rf"^{PRONOUN_I} was (?P<obj>an? (?:[\w-]+ ){{0,3}}(?:{OCCUPATIONS})s?)\b.*$", re.I)
WAS_SERVED = re.compile(rf"^{PRONOUN_I} was (?P<obj>in the (?:[\w-]+ )?{MILITARY})\b.*$", re.I)

# Titles that say a role even without an article ("I am nurse in Madrid"); "lead", "agent", "guide" and
# the like also say a task or a thing, and family words are not jobs.
_BARE_TITLE = (
    r"engineer|developer|programmer|designer|scientist|analyst|architect|consultant|teacher|professor|"
    r"lecturer|researcher|nurse|doctor|physician|surgeon|dentist|pharmacist|therapist|lawyer|attorney|"
    r"accountant|banker|chef|pilot|mechanic|electrician|plumber|carpenter|farmer|librarian|journalist|"
    r"reporter|translator|interpreter|student|freelancer|recruiter|economist|physicist|chemist|biologist|"
    r"psychologist|architect|product manager|project manager|software engineer|data engineer|data scientist"
)
BARE_ROLE = re.compile(
    rf"^(?:{PRONOUN_I} am|{PRONOUN_I}'m|im) (?P<obj>(?:(?:senior|junior|lead|staff|principal|chief|head|freelance|"
    rf"software|data|web|mobile|backend|frontend|full[- ]stack|java|python|ios|android|qa|ux|ui|it|"
    rf"civil|mechanical|electrical|chemical|research|medical|school|english|math|maths|high school) )*"
    rf"(?:{_BARE_TITLE}))(?P<rest> (?:in|at|from|for|with) (?!(?:the moment|this|that|it|you|your)\b)"
    rf"[\w&' .-]{{2,40}})?$",
    re.I,
)

# "I'm the PM for the onboarding squad", "I'm the data steward for finance"
THE_TITLE = re.compile(
    rf"^{I_AM} {ADVERB}(?:the|one of the) (?P<obj>(?!(?:\w+est|only|first|last|same|one|other)\b)"
    rf"(?:[\w-]+ ){{0,3}}?{TITLE}(?: on call)?)(?P<rest> (?:for|of|on|at|in) .+)?$",
    re.I,
)

# A team named in a clause about one's role: "... on the checkout team", "... for the onboarding squad"
TEAM_IN = re.compile(
    r"\b(?:on|in|for|of|with|to) (?:the |our )?(?P<team>(?!(?:a|an|my|your|his|her|their|this|that|same|"
    r"whole|entire|other|new|old|first|best|football|soccer|basketball|baseball|hockey|volleyball|softball|"
    r"swim|swimming|track|debate|cheer|cheerleading|chess|tennis|golf|rugby|cricket|bowling|school|"
    r"varsity|national|home|away)\b)[\w&/+-]+(?: [\w&/+-]+){0,2}?) (?P<unit>team|squad|tribe|pod|chapter)\b",
    re.I,
)

# A work schedule: "I work part-time on Fridays", "I work 9-3 on Mondays", "I work from home"
SCHEDULE = re.compile(
    r"^(?:(?:part[- ]time|full[- ]time)\b.*\b(?:on|mon|tues|wednes|thurs|fri|satur|sun|days?|mornings?|"
    r"afternoons?|evenings?|hours?|week)\b|\d|(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|weekdays\b|"
    r"weekends\b|mornings\b|afternoons\b|evenings\b|[\w-]+ days a week\b|remotely\b|remote\b|hybrid\b|"
    r"from home\b)",
    re.I,
)

# Work done many times: "I've done about 40 of these migrations", "I've led dozens of these workshops"
DONE_MANY = re.compile(
    rf"^{PRONOUN_I}(?:'ve| have) {ADVERB}(?P<verb>done|run|led|shipped|built|handled|migrated|written|reviewed|"
    rf"designed|hired|interviewed|taught|delivered|launched|planned|facilitated|managed|organi[sz]ed|"
    rf"investigated|debugged|fixed|audited|deployed|negotiated|closed) (?P<n>(?:(?:about|around|over|more than|"
    rf"well over|probably|easily|at least|maybe) )?(?:\d+|dozens|hundreds|a dozen|a few dozen|a couple dozen|"
    rf"countless|loads|tons)) of (?:these|those|them|such) (?P<obj>[\w-]+(?: [\w-]+){{0,2}})$",
    re.I,
)
_CLUB_OBJ = re.compile(
    r"^(?P<prep>in|part of|a member of)\s+(?P<obj>(?:a|an|the|my)\s+(?:[\w&/'-]+ ){0,4}(?:club|band|choir|league|"
    r"church|community|association|union|society|orchestra|troupe|guild|fraternity|sorority|congregation)s?)\b",
    re.I,
)
_TEAM_OBJ = re.compile(r"^(?:on|in|part of)\s+(?:the\s+)?([\w&/ -]{2,40}?)\s+(team|squad|group|org)\b", re.I)
_OWNED = re.compile(
    r"\b(?:service|services|system|pipeline|api|apis|dashboard|database|warehouse|model|models|platform|"
    r"infrastructure|infra|tooling|runbooks?|codebase|repo|repository|library|sdk|app|application|backend|"
    r"frontend|gateway|indexer|store|bus|queue|cluster|budget|roadmap|process|product|feature|project|"
    r"etl|integration|deploys?|releases?|on-?call)\b",
    re.I,
)
WORKING_AS = re.compile(
    rf"\bworking (?:[\w-]+ ){{0,3}}as (?P<obj>an? (?:[\w-]+ ){{0,2}}(?:{OCCUPATIONS})s?)\b", re.I
)


# ---------------------------------------------------------------------------------------------------
# Statement patterns (patterns.PATTERNS says in which order they are tried)


WORKS_AS = re.compile(rf"^{PRONOUN_I} work(?:s)? as (?P<obj>an? .+)$", re.I)
IS_A_TITLE = re.compile(rf"^{I_AM} {ADVERB}(?:a|an) (?P<obj>(?:[\w-]+ ){{0,4}}{TITLE}s?)\b.*$", re.I)
HEAD_OF = re.compile(
    rf"^{I_AM} {ADVERB}(?:the )?(?P<obj>(?:tech |team |engineering |product )?(?:lead|head|owner|manager|director) of .+)$",
    re.I,
)

# "I manage a team of six analysts"
LEADS_A_TEAM_OF = re.compile(
    rf"^{PRONOUN_I} {ADVERB}(?P<verb>lead|manage|run) (?P<obj>an? (?:[\w-]+ ){{0,2}}team of .+)$", re.I
)
WORKS_WHERE = re.compile(
    rf"^{PRONOUN_I} {ADVERB}work (?P<obj>(?:at|for|in|from|with|as|part[- ]time|full[- ]time|nights|night shifts?|"
    rf"two jobs|three jobs|long hours|overtime|weekends|weekdays|remotely|remote|hybrid|mornings|afternoons|"
    rf"evenings|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|[\w-]+ days a week|"
    rf"\d{{1,2}}(?::\d\d)?\s*(?:am|pm)?\s*(?:-|\u2013|to|till|until)\s*\d)\b.*)$",
    re.I,
)
TEACHES_AT = re.compile(rf"^{PRONOUN_I} teach (?P<obj>(?:at|in) .+)$", re.I)
IN_SCHOOL_OR_SERVICE = re.compile(
    rf"^{I_AM} {ADVERB}(?P<obj>in (?:(?:high|middle|grad|graduate|law|medical|nursing|culinary|art|"
    rf"business|elementary|primary|secondary|night|beauty|film|dental|vet|veterinary|cooking|"
    rf"flight|trade|the) )?(?:school|college|university|uni|the (?:army|navy|air force|marines|military|"
    rf"national guard|reserves)|\w+ grade|grade \w+))\b.*$",
    re.I,
)
HAS_BEEN_A_ROLE = re.compile(
    rf"^{PRONOUN_I}(?:'ve| have) been (?P<obj>an? (?:[\w-]+ ){{0,3}}(?:{OCCUPATIONS})s?\b.*)$", re.I
)
WORKED_AS = re.compile(rf"^{PRONOUN_I} {ADVERB}(?:worked|served) (?P<obj>(?:as|at|for|in|with) .+)$", re.I)
EX_MILITARY = re.compile(rf"^{I_AM} {ADVERB}(?P<obj>ex[- ]?(?:{MILITARY}))\b.*$", re.I)
ON_A_TEAM = re.compile(
    rf"^(?:{I_AM} {ADVERB}|{PRONOUN_I} work |{PRONOUN_I} sit )(?P<obj>(?:on|in|part of|a member of) .+)$",
    re.I,
)
LEADS_THE_TEAM = re.compile(rf"^{PRONOUN_I} (?:lead|manage|run) (?P<obj>the .+ team)\b.*$", re.I)
OWNS = re.compile(rf"^{PRONOUN_I} {ADVERB}(?P<verb>own|maintain|run) (?P<obj>(?:the|our) .+)$", re.I)
RESPONSIBLE_FOR = re.compile(
    rf"^{I_AM} {ADVERB}(?:the )?(?:owner of|responsible for|in charge of|on call for) (?P<obj>.+)$",
    re.I,
)
EXPERT_IN = re.compile(
    rf"^{I_AM} {ADVERB}(?:an? )?(?:expert|specialist) (?:in|on|at|with) (?P<obj>.+)$", re.I
)
SPECIALISES_IN = re.compile(rf"^{PRONOUN_I} speciali[sz]e in (?P<obj>.+)$", re.I)
PRACTISED_FOR_YEARS = re.compile(
    rf"^{PRONOUN_I}(?:'ve| have) been (?P<obj>(?:writing|coding in|programming in|using|working with|doing|teaching|playing|practicing|practising) .+ for (?:(?:about |over |almost |nearly )?(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|many|several) (?:years?|decades?)|"
    rf"(?:many |several |so many )?(?:years|decades)))\b.*$",
    re.I,
)
MILITARY_MEMBER = re.compile(
    rf"^{I_AM} {ADVERB}(?:a )?(?P<obj>(?:part|member) of the (?:[\w-]+ )?{MILITARY})\b.*$", re.I
)


def team_statement(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """A team the speaker is on; a club, band or church they are part of is a membership, not a work team."""
    obj = groups.get("obj", "")
    if template != "team":
        return kind, template.format(obj=clean(obj))
    found = _TEAM_OBJ.match(obj)
    if not found:
        club = _CLUB_OBJ.match(obj)
        if club and not YOU.search(obj):  # "I'm part of a cycling club": a membership, not a work team
            return "personal", f"Is {club['prep'].lower()} {clean(club['obj'], 8)}"
        return None
    return kind, f"Is on the {clean(found[1])} {found[2].lower()}"


def ownership_statement(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """What the speaker owns, maintains or runs at work (a service, a pipeline, a process)."""
    obj = groups.get("obj", "")
    if template == "ownership":
        if not _OWNED.search(obj):
            return None  # "I run every morning", "I own a cat": not ownership of work
        return (
            kind,
            f"{'Owns' if groups['verb'].lower() == 'own' else verb_s(groups['verb']).capitalize()} {clean(obj)}",
        )
    return kind, template.format(obj=clean(obj))


def new_role(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = object_head(groups.get("obj", ""))
    words = WORD.findall(obj.lower())
    if PAST_POINTING.search(obj) or len(words) > 8 or len(words) < 2:
        return None  # "I started as one of them"
    if words[0] == "at":
        return kind, f"Works {clean(obj, 8)}"
    role = obj.split(" ", 1)[1] if words[0] == "as" else obj
    return kind, f"Works as {clean(role, 8)}"


def the_title(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = groups.get("obj", "")
    rest = groups["rest"]
    if YOU.search(obj + rest) or PAST_POINTING.search(rest) or len(WORD.findall(obj + rest)) > 12:
        return None  # "I'm the designer for your project", "I'm the lead on this"
    kind = "personal" if FAMILY_NOUN.search(obj) else kind
    return kind, f"Is the {clean(obj + rest, 10)}"


def bare_role(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """ "I am nurse in Madrid": a role said without its article."""
    role = clean(groups.get("obj", "") + groups["rest"], 8)
    return kind, f"Is {article(role)} {role}"


def team_of(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = groups.get("obj", "")
    if PAST_POINTING.search(obj) or len(WORD.findall(obj)) > 10:
        return None
    return kind, f"{verb_s(groups['verb']).capitalize()} {clean(object_head(obj), 10)}"


def done_many(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    obj = object_head(groups.get("obj", ""))
    if PAST_POINTING.search(obj):
        return None
    count = re.sub(r"^(?:probably|easily|maybe) ", "", groups["n"].lower())
    count += " of" if count.endswith(("dozens", "hundreds", "loads", "tons")) else ""
    return kind, f"Has {groups['verb'].lower()} {count} {clean(obj, 4)}"
