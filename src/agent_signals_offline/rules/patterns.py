"""The ordered table of statement patterns (kind, pattern, template) and how a matched clause becomes
(kind, content): by the builder of its kind or template (roles, life, personal, habits, preferences), or by
filling its template in."""

from __future__ import annotations

import re
from collections.abc import Callable

from agent_signals_offline.rules.kinds import habits, life, personal, preferences, roles
from agent_signals_offline.rules.phrasing import article, clean
from agent_signals_offline.rules.vocabulary import PRONOUN_OBJECT, YOU

Builder = Callable[[str, str, dict[str, str]], tuple[str, str] | None]

# The statement patterns, tried in this order at the start of a clause (after discourse words): (kind,
# pattern, template). The first whose content is not refused wins, so a narrower form comes before a wider
# one. `obj` is the rest of the clause that the content carries over. A template with braces is formatted
# (content_of's `formatted`); a bare name is the builder of that name (BY_TEMPLATE); the kinds of BY_KIND
# have builders of their own, whatever the template.
PATTERNS: list[tuple[str, re.Pattern[str], str]] = [
    # "I just started as a life coach", "I was hired as a cashier", "I got a job at the library": a new role
    ("role", roles.NEW_ROLE, "new_role"),
    ("role", roles.WORKS_AS, "Works as {obj}"),
    ("role", roles.IS_A_TITLE, "Is {art}{obj}"),
    ("role", roles.HEAD_OF, "Is the {obj}"),
    ("role", roles.THE_TITLE, "the_title"),
    ("role", roles.BARE_ROLE, "bare_role"),
    ("role", roles.LEADS_A_TEAM_OF, "team_of"),
    ("role", roles.WORKS_WHERE, "Works {obj}"),
    ("role", roles.TEACHES_AT, "Teaches {obj}"),
    ("role", roles.IN_SCHOOL_OR_SERVICE, "Is {obj}"),
    ("role", roles.HAS_BEEN_A_ROLE, "Has been {obj}"),
    ("personal", life.MOVED, "event"),
    ("personal", life.ACQUIRED, "acquired"),
    ("personal", life.HAS_HAD, "Has had {obj}"),
    ("personal", habits.ONGOING, "ongoing"),
    ("personal", habits.CAN, "ability"),
    ("personal", life.GRADUATED, "Graduated {obj}"),
    ("role", roles.WORKED_AS, "Worked {obj}"),
    ("role", roles.WAS_ROLE, "Was {obj}"),
    ("role", roles.WAS_SERVED, "Was {obj}"),
    ("role", roles.EX_MILITARY, "Is {obj}"),
    ("personal", life.LIFE_EVENT, "event"),
    ("personal", personal.MY_NAME, "Is called {obj}"),
    ("personal", personal.MY_NOUN_IS, "my_fact"),
    ("personal", personal.IS_MY_HOBBY, "my_fact"),
    ("personal", life.HAS_BEEN_TO, "Has been to {obj}"),
    ("expertise", roles.DONE_MANY, "done_many"),
    ("personal", life.COUNTED, "counted"),
    ("personal", habits.HAS_BEEN_DOING, "Has been {obj}"),
    ("personal", life.WENT_TO_SCHOOL, "Went to {obj}"),
    ("personal", personal.HAS_BEEN_AFRAID_OR_FAN, "Has been {obj}"),
    ("personal", life.STUDIES, "Studies {obj}"),
    ("personal", life.STUDIED, "studied"),
    ("used", life.USED_TO, "Used to {obj}"),
    ("personal", life.PAST_LIFE, "past_life"),
    ("personal", life.WAS_LIFE, "was_life"),
    ("personal", habits.TRIES_TO, "try"),
    ("team", roles.ON_A_TEAM, "team"),
    ("team", roles.LEADS_THE_TEAM, "Leads {obj}"),
    ("ownership", roles.OWNS, "ownership"),
    ("ownership", roles.RESPONSIBLE_FOR, "Is responsible for {obj}"),
    ("expertise", roles.EXPERT_IN, "Is an expert in {obj}"),
    ("expertise", roles.SPECIALISES_IN, "Specialises in {obj}"),
    ("expertise", roles.PRACTISED_FOR_YEARS, "Has been {obj}"),
    ("personal", life.PERFECT_SPAN, "perfect_span"),
    ("pref", preferences.PREFERS_OR_WANTS, "pref"),
    ("please", preferences.PLEASE, "please"),
    ("writing", preferences.WRITES_IN, "Writes in {obj}"),
    ("preference", preferences.LIKES, "preference"),
    ("preference", preferences.ALWAYS_LIKED, "preference"),
    ("preference", preferences.FAN_OF, "Is a fan of {obj}"),
    ("preference", preferences.INTO, "Is {obj}"),
    ("personal", personal.KNOWN_FOR, "known"),
    ("role", roles.MILITARY_MEMBER, "Is {obj}"),
    ("preference", preferences.INTERESTED_IN, "interest"),
    ("personal", personal.AFRAID_OF, "Is {obj}"),
    ("preference", preferences.MY_FAVOURITE, "fav"),
    ("preference", preferences.IS_MY_FAVOURITE, "fav"),
    ("personal", personal.LIVES, "Lives {obj}"),
    ("personal", personal.FROM, "Is {obj}"),
    ("personal", personal.BASED_IN, "based"),
    ("personal", personal.TIME_ZONE, "Is on {obj} time"),
    ("personal", personal.LIVES_IN_A_HOME, "Lives in {obj}"),
    ("personal", life.GREW_UP_IN, "Grew up {obj}"),
    ("personal", life.GREW_UP, "grew_up"),
    ("personal", personal.HAS, "has"),
    ("personal", personal.DURABLE_TRAIT, "Is {obj}"),
    ("personal", habits.GOOD_AT, "ability_is"),
    ("preference", preferences.A_FAN, "fan"),
    ("isa", personal.IS_A, "isa"),
    ("personal", personal.AGE, "Is {obj} years old"),
    ("personal", personal.AGE_NUMBER, "Is {obj} years old"),
    ("personal", personal.AGE_DECADE, "Is in their {obj}"),
    ("personal", habits.HABIT, "habit"),
    ("personal", habits.GENERIC, "generic"),
]

# Builders by kind (any template of that kind), then by template name
BY_KIND: dict[str, Builder] = {
    "team": roles.team_statement,
    "ownership": roles.ownership_statement,
    "pref": preferences.answer_preference,
    "please": preferences.please,
    "used": life.used_to,
    "isa": personal.is_a,
}
BY_TEMPLATE: dict[str, Builder] = {
    "preference": preferences.preference,
    "ability_is": habits.ability_is,
    "fan": preferences.fan,
    "new_role": roles.new_role,
    "known": personal.known_for,
    "counted": life.counted,
    "interest": preferences.interest,
    "grew_up": life.grew_up,
    "studied": life.studied,
    "the_title": roles.the_title,
    "bare_role": roles.bare_role,
    "team_of": roles.team_of,
    "based": personal.based,
    "done_many": roles.done_many,
    "try": habits.try_to,
    "my_fact": personal.my_fact,
    "was_life": life.was_life,
    "past_life": life.past_life,
    "perfect_span": life.past_life,
    "has": personal.has,
    "habit": habits.habit,
    "ability": habits.ability,
    "generic": habits.generic,
    "ongoing": habits.ongoing,
    "acquired": life.acquired,
    "event": life.event,
    "fav": preferences.favourite,
}


def content_of(kind: str, template: str, match: re.Match[str]) -> tuple[str, str] | None:
    """(kind, content) for a clause a pattern matched, or None when the clause does not carry a durable fact."""
    groups = {k: v or "" for k, v in match.groupdict().items()}
    if kind == "expertise" and PRONOUN_OBJECT.search(groups.get("obj", "")):
        return None  # "I've been doing it for ten years": the skill is not named in the clause
    build = BY_KIND.get(kind) or BY_TEMPLATE.get(template) or formatted
    return build(kind, template, groups)


def formatted(kind: str, template: str, groups: dict[str, str]) -> tuple[str, str] | None:
    """The template filled in: {obj} the cleaned object, {art} its article, {what} the thing named."""
    obj = groups.get("obj", "")
    if YOU.search(obj):
        return None  # "I'm a fan of your work", "I work with you": about the listener
    if template == "Works {obj}" and roles.SCHEDULE.match(obj):
        kind = "personal"  # "I work part-time on Fridays": when they work, not what they do
    art = ""
    if "{art}" in template:
        art = article(obj) + " "
    values = {
        "obj": clean(obj, 10),
        "art": art,
        "what": clean(groups.get("what", ""), 4) or "thing",
    }
    return kind, template.format(**values)
