"""Workplace forms that do not start like a statement: a terse self-introduction ("DBA here"), years of
practice said without a verb ("8 years of Swift"), a place named with the hour it is there, a role said in
passing ("As a nurse, I ..."), and what else a role or team statement says (the team beside the role)."""

from __future__ import annotations

import re

from agent_signals_offline.rules.clauses import clause_core
from agent_signals_offline.rules.kinds.roles import TEAM_IN
from agent_signals_offline.rules.phrasing import article, clean
from agent_signals_offline.rules.refusals import NEGATION, skipped
from agent_signals_offline.rules.vocabulary import (
    DURABLE_ADJECTIVES,
    FAMILY_NOUN,
    I_AM,
    I_SUBJECT,
    PAST_POINTING,
    ROLE_NOUN,
    THE_WORDS,
    TITLE,
    TITLE_NOUN,
    YOU,
)
from agent_signals_offline.rules.word_lists import word_set

_NOT_TERSE = re.compile(
    r"^(?:the|my|our|your|his|her|their|no|not|any|some|every|all|many|lots|most|few|other|those|these|that|"
    r"this|which|what|who|we|they|you|he|she|it|there|is|are|was|were|i|me|one|only|same|such|best|worst)\b",
    re.I,
)
_TERSE = re.compile(
    r"^(?:(?:just|also|another|fellow|a|an|lowly|humble)\s+)*"
    r"(?P<role>(?:(?!(?:of|at|on|for|in|with|and|or|to|from|here|is|are|was|were|be|been|have|has|got|need|"
    rf"needs|want|wants|not|no)\b)[\w+#./&'-]+ ){{0,3}}(?:{TITLE}|em))"
    r"(?P<rest> (?:of|at|on|for|in|with) (?!(?:call|duty|leave|shift|site|vacation|holiday|break|it|this|that|"
    r"you|your|here|there)\b)[\w+#./&' -]{1,50}?)?(?P<here> here)?$",
    re.I,
)
_YEARS_NEXT = re.compile(
    r"\s*,\s*(?:about |over |almost |nearly |~)?(?:\d{1,2}\+?|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|fifteen|twenty) ?(?:years?|yrs?|yoe)\b",
    re.I,
)
_NUM_YEARS = (
    r"(?:\d{1,2}\+?|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a dozen)"
)
_YEARS_OF = re.compile(
    rf"^(?:(?:about|around|over|almost|nearly|roughly|~) ?)?(?P<n>{_NUM_YEARS}) ?(?:years?|yrs?)"
    r"(?: of (?:professional |hands-on )?(?:experience|exp)(?: (?P<p1>in|with))?| (?P<p2>of|in|with|doing|writing|"
    r"using|building|running|managing|leading|teaching)) (?P<obj>[\w+#./&-]+(?: [\w+#./&-]+){0,3}?)"
    r"(?: (?:overall|total|in total|now|professionally|experience))?$",
    re.I,
)
_FOR_YEARS = re.compile(
    rf"^(?P<obj>[\w+#./&-]+(?: [\w+#./&-]+){{0,2}}) (?:for|since) (?:about |over |almost |nearly |"
    rf"the (?:last|past) )?(?P<n>{_NUM_YEARS}) (?:years?|yrs?)(?: now)?$",
    re.I,
)

# Words that begin "X for 12 years" when it says how long a state lasted, not a skill practised
_NOT_SKILL = word_set(
    "married together sober clean here there vegan vegetarian single divorced engaged retired "
    "friends best dating living alive pregnant unemployed home same not only just almost nearly been "
    "about me us them him her it that this we they you i my our so and but also still now then even "
    "yes no well oh lol wow partners neighbors neighbours roommates marriage age life school college "
    "university uni prison jail a the in sick ill gone away open closed dead missing waiting working "
    "nothing something everything anything high grad med law row ago old later before after more "
    "less each every all some many few several mom dad wife husband kids family parents his their "
    "your"
)
_IN_PLACE = re.compile(rf"^{I_AM} (?:now |over )?in (?P<obj>[A-Z][\w'.-]+(?:,? [A-Z][\w'.-]+){{0,2}})$")
_TIME_THERE = re.compile(
    r"\s*(?:[,(\u2014-]\s*)?(?:(?:so|and|which means|where)\s+)?(?:it'?s|it is|its)\s+(?:\w+\s+){0,2}?"
    r"(?:early|late|morning|evening|night|midnight|lunchtime|\d{1,2}(?::\d\d)?\s*(?:am|pm))\b|"
    r"\s*\(?\s*(?:utc|gmt)\s*[+-]\s*\d|\s*(?:[,(]\s*)?(?:so |and )?(?:a |an )?(?:different|other) time ?zones?\b",
    re.I,
)
_NOT_A_TEAM = word_set(
    "call duty leave shift site vacation holiday break contract staff board loan secondment mobile "
    "weekends nights"
)
WORKPLACE_HINT = re.compile("year|yr|(?:i'm|i\u2019m|i am|im) in ")


def workplace_statements(clause: str, text: str) -> list[tuple[str, str]]:
    """(kind, content) pairs for a clause in a workplace form that does not start with "I"."""
    core = clause_core(clause)
    lower = core.lower()
    at = text.find(clause)
    after = at + len(clause) if at >= 0 else -1
    years_next = after >= 0 and _YEARS_NEXT.match(text, after) is not None
    in_years = "year" in lower or "yr" in lower
    if (
        not core
        or not (lower.endswith(" here") or years_next or in_years or core[:1] in "Ii")
        or skipped(core)
        or NEGATION.search(core)
        or YOU.search(core)
    ):
        return []
    terse = _TERSE.match(core) if lower.endswith(" here") or years_next else None
    if terse and not _NOT_TERSE.match(core) and not FAMILY_NOUN.search(terse["role"]):
        if not terse["here"] and (terse["rest"] or not years_next):
            return []  # a bare title says who they are only before the years they have put in
        rest = terse["rest"] or ""
        role = clean(terse["role"] + rest, 10)
        if role[:1].isupper() and not role.split()[0].isupper():
            role = role[:1].lower() + role[1:]  # "Backend eng here": a capital of the sentence, not a name
        found = [("role", f"Is {article(role)} {role}")]
        team = TEAM_IN.match(rest.strip())
        place = rest.strip()[3:] if rest.strip().lower().startswith("on ") else ""
        if team:  # "Data analyst on the risk team here"
            found.append(("team", f"Is on the {clean(team['team'], 4)} {team['unit'].lower()}"))
        elif place and len(place.split()) <= 3 and place.split()[0].lower() not in _NOT_A_TEAM | THE_WORDS:
            found.append(("team", f"Works on {clean(place, 3)}"))  # "Frontend dev on billing here"
        return found
    years = _YEARS_OF.match(core) if in_years else None
    if years:
        obj = years["obj"]
        prep = (years["p1"] or years["p2"] or "with").lower()
        words = obj.lower().split()
        if words[0] in _NOT_SKILL or words[-1] in _NOT_SKILL or PAST_POINTING.search(obj):
            return []  # "20 years of marriage", "3 years in a row"
        if prep == "in" and obj[:1].isupper() and not obj.isupper() and len(words) == 1:
            return []  # "5 years in Berlin": a place
        if prep in ("of", "with", "in"):
            return [
                (
                    "expertise",
                    f"Has {years['n']} years of experience {'in' if prep == 'in' else 'with'} {clean(obj, 4)}",
                )
            ]
        return [("expertise", f"Has {years['n']} years of {prep} {clean(obj, 4)}")]
    for_years = _FOR_YEARS.match(core) if in_years else None
    if for_years:
        obj = for_years["obj"]
        words = obj.lower().split()
        if (
            any(w in _NOT_SKILL for w in words)
            or words[0].endswith(("ed", "ing", "ly", "'s"))
            or re.fullmatch(DURABLE_ADJECTIVES, obj, re.I)
            or ROLE_NOUN.search(obj)
        ):
            return []  # "Married for 12 years", "Vegetarian for ten years"
        return [("expertise", f"Has {for_years['n']} years of experience with {clean(obj, 3)}")]
    place = _IN_PLACE.match(core) if core[:1] in "Ii" else None
    if place and after >= 0 and _TIME_THERE.match(text, after):  # "I'm in Singapore so it's early for me"
        return [("personal", f"Is based in {clean(place['obj'], 4)}")]
    return []


_MANAGES_TEAM = re.compile(r"^i (?:\w+ )?manage (?P<obj>the .+ team)\b", re.I)


def also_said(clause: str, found: tuple[str, str]) -> list[tuple[str, str]]:
    """What else a role or team statement says: the team beside a role, the role of a team's manager."""
    kind, content = found
    core = clause_core(clause)
    if not I_SUBJECT.match(core) or YOU.search(core):
        return []
    if kind == "role" and content.startswith("Is "):  # "I'm a backend engineer on the checkout team"
        team = TEAM_IN.search(core)
        if team:
            return [("team", f"Is on the {clean(team['team'], 4)} {team['unit'].lower()}")]
    managed = _MANAGES_TEAM.match(core)
    if kind == "team" and managed:  # "I manage the support team": a manager
        return [("role", f"Manages {clean(managed['obj'], 8)}")]
    return []


# "As a nurse, I ...", "Being a piano teacher I ...", "as a dad myself": what the speaker is, said in passing
# before a statement of their own
_AS_A = re.compile(
    r"^(?:as|being) (?P<obj>an? (?:fellow )?(?:(?!myself\b)[\w-]+ ){0,3}(?!myself\b)[\w-]+|"
    # "As the release manager for the iOS app, I ..."
    rf"the (?:[\w-]+ ){{0,2}}?{TITLE}(?: (?:for|of|on|at|in) (?:the |our |a |an )?[\w&/+.-]+(?: [\w&/+.-]+){{0,3}}?)?)"
    r"(?P<self> myself)?(?P<then>,? (?:i|i'm|i am|i've|i have|my)\b.*)?$",
    re.I,
)
_AS_A_NEXT = re.compile(r"\s*,?\s*(?:i|i'm|i am|i've|i have|my)\b", re.I)


def role_in_passing(clause: str, text: str) -> tuple[str, str] | None:
    found = _AS_A.match(clause)
    if not found:
        return None
    if not (found["self"] or found["then"]):
        at = text.find(clause)
        if at < 0 or not _AS_A_NEXT.match(text, at + len(clause)):
            return None  # "Being a teacher is hard": about anyone who is one
    obj = re.sub(r"^(an?) fellow ", r"\1 ", found["obj"], flags=re.I)
    if found["then"] and YOU.search(found["then"]):
        return None
    if obj[:4].lower() == "the ":
        if FAMILY_NOUN.search(obj) or not TITLE_NOUN.search(obj) or YOU.search(obj):
            return None  # "As the oldest child, I ..."
        return "role", f"Is {clean(obj, 10)}"
    if ROLE_NOUN.search(obj) and not FAMILY_NOUN.search(obj):
        return "role", f"Is {clean(obj, 5)}"
    if re.fullmatch(
        rf"an? (?:{DURABLE_ADJECTIVES}|mom|mother|dad|father|parent|grandparent|grandmother|"
        r"grandfather|veteran|vegan|vegetarian)",
        obj,
        re.I,
    ):
        return "personal", f"Is {clean(obj, 5)}"
    return None
