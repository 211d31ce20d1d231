"""The offline model's judgement: a conservative rules-based extractor of durable statements a user makes
about themselves (precision over recall). Pure, deterministic, general English patterns only.

`extract(messages, known, kinds)` answers what prompts/extract/v1 asks for: `create` / `update` actions
with third-person content ("Works as a data engineer") and verbatim quotes (the clause that says it).

What it refuses to read as a fact: questions, hypotheticals and wishes, plans and current tasks, one-off
requests, statements about anyone but the speaker (other people, the organisation), negations, sarcasm,
quoted or pasted text, transient states, and instructions aimed at the assistant ("remember that ...").
"""

from __future__ import annotations

import re

from agent_signals.offline.words import WORD, content_words
from agent_signals.prompts import PromptMessage, PromptSignal

# The offline model reads the same rendered prompt a real model reads: messages and known signals as
# prompts/extract/v1 shows them.
Message = PromptMessage  # (handle, text)
Known = PromptSignal  # (handle, content, tier, kind, origin)


CORE_KINDS = frozenset({"role", "team", "ownership", "expertise", "communication", "writing"})
EXCLUSIVE_KINDS = frozenset({"role", "team"})  # a new statement of these supersedes the old one
MAX_CONTENT = 120
MAX_ACTIONS = 50

# ---------------------------------------------------------------------------------------------------
# Splitting: sentences, then clauses. Quoted and pasted text is blanked out first (same length, so that
# offsets still point into the original message and quotes stay verbatim).

_QUOTED = re.compile(r"\"[^\"\n]*\"|\u201c[^\u201d\n]*\u201d|`[^`]*`|^\s*>.*$", re.MULTILINE)
_PASTED = re.compile(
    r"(?:\b(?:says|said|wrote|writes|pasted|quote|quoting|posted)\b[^:\n]{0,40}:)[\s\S]*$", re.I
)
_CLAUSE_END = re.compile(
    r"[.!?;\n]+|,?\s+(?:and|but|so|because|though|although|while|since|plus)\s+"
    r"(?=(?:i|i'm|my|he|she|they|we|it|his|her|our|their|you|your)\b)|,\s+(?:but|so|because|though|although)\s+|"
    r"\s+-\s+|\s+—\s+|:\s+",
    re.I,
)
_COMMA = re.compile(r",\s+")


def _blank(match: re.Match[str]) -> str:
    return " " * len(match[0])


def _clauses(text: str) -> list[tuple[str, bool]]:
    """(clause, is_question) pairs: verbatim substrings of `text`, quoted/pasted parts removed."""
    visible = _PASTED.sub(_blank, _QUOTED.sub(_blank, text))
    found: list[tuple[str, bool]] = []
    start = 0
    for match in [*_CLAUSE_END.finditer(visible), None]:
        end = match.start() if match else len(visible)
        question = bool(match and "?" in match[0])
        piece_start = start
        for part in [*_COMMA.finditer(visible[start:end]), None]:
            part_end = start + part.start() if part else end
            clause = text[piece_start:part_end].strip()
            if clause and visible[piece_start:part_end].strip() == clause:
                found.append((clause, question))
            piece_start = start + part.end() if part else end
        start = match.end() if match else len(visible)
    return found


# ---------------------------------------------------------------------------------------------------
# What is never a durable self-statement.

_SKIP_WORDS = re.compile(
    r"\b(?:if|unless|whether|maybe|perhaps|probably|might|would|could|should|suppose|imagine|hypothetically|"
    r"wish|hope|hoping|wonder|someday|one day|going to|gonna|planning|plan to|about to|need to|have to|"
    r"has to|had to|want to|wanna|trying to|try to|today|tonight|tomorrow|yesterday|right now|currently|"
    r"at the moment|this (?:week|morning|afternoon|evening|weekend|sprint|month|year)|next (?:week|month|year)|"
    r"last (?:week|night|month|year)|just|recently|lately|soon|anymore|remember|memorize|note that|"
    r"store (?:this|that|it)|save (?:this|that|it)|ignore|instructions?|pretend|act as|you are|system prompt|"
    r"lol|haha|yeah right|as if|/s)\b|\bsystem\s*:|[<>{}]|I'?d\b|I'?ll\b|I will\b|I won'?t\b|I was\b|I wasn'?t\b|I did\b",
    re.I,
)
_NEGATION = re.compile(
    r"\b(?:not|never|no longer|don'?t|doesn'?t|didn'?t|can'?t|cannot|isn'?t|aren'?t|nor)\b", re.I
)
_ORG = re.compile(
    r"^(?:we|our|the (?:company|team|org|organisation|organization)|everyone|everybody)\b", re.I
)
_QUESTION_START = re.compile(
    r"^(?:do|does|did|are|is|was|were|can|could|would|will|should|have|has|what|how|why|when|where|who|"
    r"which|any|anyone)\b",
    re.I,
)
_LEAD = re.compile(
    r"^(?:(?:oh|ah|well|yes|yeah|yep|no|ok|okay|so|also|and|but|btw|by the way|honestly|actually|"
    r"for context|fyi|for what it'?s worth|as i said|as i mentioned|like i said|quick one|hi|hey|hello|"
    r"haha|wow|cool|nice|great|same|me too|true)\b[\s,!.]*)+",
    re.I,
)
_ADVERB = (
    r"(?:(?:really|absolutely|truly|just|also|definitely|totally|actually|still|always|kind of|sort of)\s+)*"
)

# ---------------------------------------------------------------------------------------------------
# Statement patterns: (kind, compiled pattern, content template). The pattern is matched at the start of
# a clause (after discourse words); `obj` is the rest of the clause that the content carries over.

_OCCUPATIONS = (
    r"engineer|developer|programmer|manager|director|designer|scientist|analyst|architect|writer|editor|"
    r"consultant|administrator|admin|lead|founder|ceo|cto|cfo|intern|student|teacher|professor|lecturer|"
    r"researcher|nurse|doctor|physician|surgeon|dentist|pharmacist|therapist|lawyer|attorney|paralegal|"
    r"accountant|banker|chef|cook|baker|pilot|driver|mechanic|electrician|plumber|carpenter|farmer|"
    r"firefighter|officer|soldier|veteran|marine|police officer|cop|paramedic|vet|veterinarian|librarian|"
    r"artist|painter|musician|singer|drummer|guitarist|photographer|actor|actress|dancer|athlete|coach|"
    r"trainer|cashier|waiter|waitress|bartender|barista|clerk|salesman|saleswoman|salesperson|"
    r"realtor|agent|journalist|reporter|author|blogger|freelancer|contractor|technician|tester|"
    r"specialist|coordinator|recruiter|secretary|assistant manager|housewife|stay at home mom|"
    r"stay-at-home mom|homemaker|mom|mother|dad|father|grandmother|grandfather|grandma|grandpa|retiree|"
    r"sre|qa engineer|devops engineer"
)
_ROLE_NOUN = re.compile(rf"\b(?:{_OCCUPATIONS})s?\b", re.I)
_DURABLE_ADJECTIVES = (
    r"vegetarian|vegan|pescatarian|married|single|divorced|widowed|engaged|retired|pregnant|left[- ]handed|"
    r"right[- ]handed|colou?r ?blind|deaf|blind|diabetic|allergic to [\w ]+|lactose intolerant|an? introvert|"
    r"an? extrovert|an? early bird|an? night owl|an? morning person|an? night person|an? only child|"
    r"an? twin|a (?:big|huge) fan of [\w' -]+|a (?:cat|dog) person|christian|muslim|jewish|buddhist|atheist"
)
_ANSWER_WORDS = re.compile(
    r"\b(?:answers?|responses?|replies|explanations?|examples?|bullet points?|bullets|summar(?:y|ies)|code|"
    r"detail|details|steps|tl;?dr|straight to the point|concise|brief|short|terse|verbose|long)\b",
    re.I,
)
_WRITING_WORDS = re.compile(
    r"\b(?:spelling|british english|american english|oxford comma|active voice|passive voice|emojis?|"
    r"jargon|plain (?:language|english)|tone|formal|informal|documents?|docs|drafts?|write|written|prose|"
    r"headings|markdown|sentence case|title case)\b",
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

_PLEASE = re.compile(
    r"^(?:please\s+)?(?P<when>always|never|from now on|in general|by default)\b,?\s*(?:please\s+)?(?P<obj>.+)$",
    re.I,
)
_I = r"(?:i|I)"
_IM = rf"(?:{_I}'m|{_I}\u2019m|{_I} am|im|Im)"
_PATTERNS: list[tuple[str, re.Pattern[str], str]] = [
    # role
    ("role", re.compile(rf"^{_I} work(?:s)? as (?P<obj>an? .+)$", re.I), "Works as {obj}"),
    (
        "role",
        re.compile(rf"^{_IM} {_ADVERB}(?:a|an) (?P<obj>(?:[\w-]+ ){{0,4}}(?:{_OCCUPATIONS})s?)\b.*$", re.I),
        "Is {art}{obj}",
    ),
    (
        "role",
        re.compile(
            rf"^{_IM} {_ADVERB}(?:the )?(?P<obj>(?:tech |team |engineering |product )?(?:lead|head|owner|manager|director) of .+)$",
            re.I,
        ),
        "Is the {obj}",
    ),
    ("role", re.compile(rf"^{_I} (?:work|teach) (?P<obj>(?:at|for|in) .+)$", re.I), "Works {obj}"),
    (
        "role",
        re.compile(rf"^{_I} (?:study|am studying|'m studying|major in|'m majoring in) (?P<obj>.+)$", re.I),
        "Studies {obj}",
    ),
    ("role", re.compile(rf"^{_I} used to (?P<obj>(?:work|be) .+)$", re.I), "Used to {obj}"),
    # team
    ("team", re.compile(rf"^(?:{_IM}|{_I} work|{_I} sit) (?P<obj>(?:on|in|part of) .+)$", re.I), "team"),
    ("team", re.compile(rf"^{_I} (?:lead|manage|run) (?P<obj>the .+ team)\b.*$", re.I), "Leads {obj}"),
    # ownership
    (
        "ownership",
        re.compile(rf"^{_I} {_ADVERB}(?P<verb>own|maintain|run) (?P<obj>(?:the|our) .+)$", re.I),
        "ownership",
    ),
    (
        "ownership",
        re.compile(
            rf"^{_IM} {_ADVERB}(?:the )?(?:owner of|responsible for|in charge of|on call for) (?P<obj>.+)$",
            re.I,
        ),
        "Is responsible for {obj}",
    ),
    # expertise
    (
        "expertise",
        re.compile(rf"^{_IM} {_ADVERB}(?:an? )?(?:expert|specialist) (?:in|on|at|with) (?P<obj>.+)$", re.I),
        "Is an expert in {obj}",
    ),
    ("expertise", re.compile(rf"^{_I} speciali[sz]e in (?P<obj>.+)$", re.I), "Specialises in {obj}"),
    (
        "expertise",
        re.compile(
            rf"^{_I}(?:'ve| have) been (?P<obj>(?:writing|coding in|programming in|using|working with|doing|teaching|playing|practicing|practising) .+ for (?:about |over |almost |nearly )?(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|many|several) (?:years?|decades?))\b.*$",
            re.I,
        ),
        "Has been {obj}",
    ),
    # communication and writing (standing preferences about answers and text)
    (
        "pref",
        re.compile(rf"^{_I} {_ADVERB}(?P<verb>prefer|like|love|want|need|appreciate) (?P<obj>.+)$", re.I),
        "pref",
    ),
    ("please", _PLEASE, "please"),
    ("writing", re.compile(rf"^{_I} (?:always )?write in (?P<obj>.+)$", re.I), "Writes in {obj}"),
    # preference
    (
        "preference",
        re.compile(rf"^{_I} {_ADVERB}(?P<verb>love|like|enjoy|adore|hate|dislike|prefer) (?P<obj>.+)$", re.I),
        "preference",
    ),
    (
        "preference",
        re.compile(rf"^{_IM} {_ADVERB}(?:a )?(?:big |huge )?fan of (?P<obj>.+)$", re.I),
        "Is a fan of {obj}",
    ),
    (
        "preference",
        re.compile(r"^my (?:absolute )?fav(?:ou?rite) (?P<what>[\w ]{2,30}?) (?:is|are) (?P<obj>.+)$", re.I),
        "Favourite {what} is {obj}",
    ),
    (
        "preference",
        re.compile(
            r"^(?P<obj>[\w' -]{2,40}?) (?:is|are) my (?:absolute )?fav(?:ou?rite)(?: (?P<what>[\w ]{2,30}))?$",
            re.I,
        ),
        "Favourite {what} is {obj}",
    ),
    # personal
    (
        "personal",
        re.compile(rf"^{_I} {_ADVERB}(?:live|reside) (?P<obj>(?:in|near|on|outside|by) .+)$", re.I),
        "Lives {obj}",
    ),
    ("personal", re.compile(rf"^{_IM} {_ADVERB}(?:originally )?(?P<obj>from .+)$", re.I), "Is {obj}"),
    (
        "personal",
        re.compile(rf"^{_I} (?:grew up|was born|was raised) (?P<obj>(?:in|on|near) .+)$", re.I),
        "Grew up {obj}",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I} {_ADVERB}(?:have|own|got) (?P<obj>(?:a|an|two|three|four|five|six|\d+|several|many|some) .+)$",
            re.I,
        ),
        "Has {obj}",
    ),
    ("personal", re.compile(rf"^{_IM} {_ADVERB}(?P<obj>{_DURABLE_ADJECTIVES})\b.*$", re.I), "Is {obj}"),
    (
        "personal",
        re.compile(rf"^{_IM} (?P<obj>\d{{1,2}}) (?:years old|yrs old|yo)\b.*$", re.I),
        "Is {obj} years old",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I} {_ADVERB}(?P<verb>play|collect|volunteer|bake|cook|paint|knit|hike|run|swim|surf|ski|garden|fish|hunt|sing|dance|write|read|draw|travel|camp|ride|drive|go) (?P<obj>.+)$",
            re.I,
        ),
        "habit",
    ),
]
_HAVE_OBJECTS = re.compile(
    r"\b(?:kids?|children|child|sons?|daughters?|babies|baby|twins|wife|husband|partner|boyfriend|girlfriend|"
    r"fianc[eé]e?|brothers?|sisters?|siblings?|parents?|grandchildren|grandkids?|dogs?|cats?|pets?|puppy|"
    r"puppies|kittens?|horses?|birds?|fish|rabbits?|hamsters?|snakes?|cars?|trucks?|house|home|farm|boat|"
    r"bikes?|motorcycles?|degree|masters|phd|allergy|allergies|job|jobs|business|shop|store|restaurant|"
    r"collection|garden|tattoos?|piano|guitar)\b",
    re.I,
)
_HABIT_OBJECTS = re.compile(
    r"\b(?:every|on weekends?|weekly|daily|often|regularly|a lot|for fun|in my free time|as a hobby)\b|\b(?:the \w+|guitar|piano|violin|drums|soccer|football|basketball|baseball|tennis|golf|chess|video games|games|sports?)\b",
    re.I,
)
_PRONOUNS = [
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bmy\b", re.I), "their"),
    (re.compile(r"\bmine\b", re.I), "theirs"),
    (re.compile(r"\bme\b", re.I), "them"),
    (re.compile(r"\bI'm\b|\bI am\b", re.I), "they are"),
    (re.compile(r"\bI\b"), "they"),
    (re.compile(r"\bour\b", re.I), "their"),
    (re.compile(r"\bus\b", re.I), "them"),
]
_TRAILING = re.compile(r"[\s,;:.!?\-\u2014]+$|\s+(?:too|as well|though|haha|lol)$", re.I)
_VERB_S = {"go": "goes", "do": "does", "have": "has", "watch": "watches", "teach": "teaches", "fish": "fishes",
           "study": "studies", "carry": "carries", "try": "tries"}  # fmt: skip


def _third_person(text: str) -> str:
    for pattern, replacement in _PRONOUNS:
        text = pattern.sub(replacement, text)
    return text


def _clean(obj: str, max_words: int = 10) -> str:
    words = obj.split()
    obj = " ".join(words[:max_words])
    previous = None
    while previous != obj:
        previous, obj = obj, _TRAILING.sub("", obj)
    return _third_person(obj)


def _verb_s(verb: str) -> str:
    verb = verb.lower()
    return _VERB_S.get(verb, verb + ("es" if verb.endswith(("s", "sh", "ch", "x")) else "s"))


def _content(kind: str, template: str, match: re.Match[str]) -> tuple[str, str] | None:
    """(kind, content) for a matched clause, or None when the clause does not carry a durable fact."""
    groups = {k: v or "" for k, v in match.groupdict().items()}
    obj = groups.get("obj", "")
    if kind == "team":
        if template != "team":
            return kind, template.format(obj=_clean(obj))
        team = _TEAM_OBJ.match(obj)
        if not team:
            return None
        return kind, f"Is on the {_clean(team[1])} {team[2].lower()}"
    if kind == "ownership":
        if template == "ownership":
            if not _OWNED.search(obj):
                return None  # "I run every morning", "I own a cat": not ownership of work
            return (
                kind,
                f"{'Owns' if groups['verb'].lower() == 'own' else _verb_s(groups['verb']).capitalize()} {_clean(obj)}",
            )
        return kind, template.format(obj=_clean(obj))
    if kind == "pref":
        if _WRITING_WORDS.search(obj):
            kind = "writing"
        elif _ANSWER_WORDS.search(obj):
            kind = "communication"
        else:
            return _content("preference", "preference", match)
        verb = groups["verb"].lower()
        return (
            kind,
            f"{'Prefers' if verb in ('prefer', 'want', 'need') else _verb_s(verb).capitalize()} {_clean(obj, 14)}",
        )
    if kind == "please":
        if _WRITING_WORDS.search(obj):
            kind = "writing"
        elif _ANSWER_WORDS.search(obj):
            kind = "communication"
        else:
            return None  # a standing request about something else is not a preference we keep
        when = groups["when"].lower()
        lead = "Wants the assistant to never" if when == "never" else "Wants the assistant to always"
        return kind, f"{lead} {_clean(obj, 14)}"
    if kind == "preference" and template == "preference":
        verb = groups["verb"].lower()
        if _ANSWER_WORDS.search(obj) and re.search(
            r"\b(?:answers?|responses?|explanations?|bullet)\b", obj, re.I
        ):
            return None  # handled as communication by the "pref" pattern
        words = WORD.findall(obj.lower())
        if not words or words[0] in (
            "it",
            "that",
            "this",
            "those",
            "these",
            "them",
            "to",
            "you",
            "your",
            "her",
            "him",
            "his",
        ):
            return None  # "I love it", "I like that", "I'd like to": no object worth keeping
        label = {"hate": "Dislikes", "dislike": "Dislikes", "prefer": "Prefers"}.get(
            verb, _verb_s(verb).capitalize()
        )
        return kind, f"{label} {_clean(obj, 8)}"
    if kind == "personal" and template.startswith("Has "):
        if not _HAVE_OBJECTS.search(obj):
            return None  # "I have a question", "I have a meeting": not a fact about the person
        return kind, f"Has {_clean(obj, 8)}"
    if kind == "personal" and template == "habit":
        if not _HABIT_OBJECTS.search(obj):
            return None
        return kind, f"{_verb_s(groups['verb']).capitalize()} {_clean(obj, 8)}"
    art = ""
    if "{art}" in template:
        art = "an " if obj[:1].lower() in "aeiou" else "a "
    values = {
        "obj": _clean(obj, 10),
        "art": art,
        "what": _clean(groups.get("what", ""), 4) or "thing",
    }
    return kind, template.format(**values)


def _statement(clause: str) -> tuple[str, str] | None:
    """(kind, content) when the clause is a durable statement the speaker makes about themselves."""
    core = _LEAD.sub("", clause).strip()
    if not core or _SKIP_WORDS.search(core) or _ORG.match(core) or _QUESTION_START.match(core):
        return None
    negated = _NEGATION.search(core) and not _PLEASE.match(core)
    if negated and not re.match(rf"^{_I} (?:don'?t|do not) (?:like|enjoy|eat|drink)\b", core, re.I):
        return None
    if negated:  # "I don't like X" is a lasting dislike
        obj = re.sub(rf"^{_I} (?:don'?t|do not) ", "", core, flags=re.I)
        verb, _, rest = obj.partition(" ")
        if not rest or WORD.findall(rest.lower())[:1] in (["it"], ["that"], ["this"]):
            return None
        return "preference", f"Does not {verb.lower()} {_clean(rest, 8)}"
    for kind, pattern, template in _PATTERNS:
        match = pattern.match(core)
        if match:
            result = _content(kind, template, match)
            if result:
                return result
    return None


# ---------------------------------------------------------------------------------------------------


def _key(text: str) -> set[str]:
    return set(content_words(text))


def _similar(a: str, b: str) -> bool:
    ka, kb = _key(a), _key(b)
    return bool(ka and kb) and len(ka & kb) / len(ka | kb) >= 0.5


def _match_known(kind: str, content: str, known: list[Known]) -> Known | None:
    """The known signal this candidate restates (similar text) or supersedes (same exclusive kind)."""
    for signal in known:
        if signal.content.lower() == content.lower() or (
            signal.kind == kind and _similar(signal.content, content)
        ):
            return signal
    for signal in known:
        if kind in EXCLUSIVE_KINDS and signal.kind == kind:
            return signal
    return None


# A message that talks to the assistant about its memory or instructions is not read at all: whatever
# "fact" it carries was put there to be stored, not said.
_INJECTION = re.compile(
    r"\b(?:ignore (?:all |any |the )?(?:previous|prior|above|earlier)|disregard (?:all |the )?(?:previous|prior|above)|"
    r"(?:remember|memori[sz]e|store|save|record|note) (?:that|this|it)\b|from now on,? you|you are now|act as|"
    r"pretend|new instructions|system prompt|developer message)|^\s*(?:system|assistant|tool)\s*:|</?\w+>|\{\{|\{%",
    re.I | re.M,
)


def extract(messages: list[Message], known: list[Known], kinds: tuple[str, ...] | list[str]) -> list[dict]:
    """The actions for one user's messages, given what is already known about them."""
    allowed = set(kinds)
    actions: dict[str, dict] = {}  # by lower-cased content: one action per fact, evidence accumulated
    for message in messages:
        if _INJECTION.search(message.text):
            continue
        for clause, question in _clauses(message.text):
            if question:
                continue
            found = _statement(clause)
            if found is None:
                continue
            kind, content = found
            content = content[:1].upper() + content[1:]
            if kind not in allowed or not 3 <= len(content) <= MAX_CONTENT:
                continue
            key = content.lower()
            if key in actions:
                evidence = actions[key]["evidence"]
                if len(evidence) < 5 and all(e["message"] != message.handle for e in evidence):
                    evidence.append({"message": message.handle, "quote": clause})
                continue
            if len(actions) >= MAX_ACTIONS:
                break
            tier = "core" if kind in CORE_KINDS else "contextual"
            action: dict = {"action": "create", "content": content, "tier": tier, "kind": kind,
                            "evidence": [{"message": message.handle, "quote": clause}]}  # fmt: skip
            target = _match_known(kind, content, known)
            if target is not None:
                if target.origin == "manual":
                    continue  # the user's own word wins: never restated, never contradicted
                action = {
                    "action": "update",
                    "signal": target.handle,
                    **{k: v for k, v in action.items() if k != "action"},
                }
                known = [k for k in known if k.handle != target.handle]  # one update per known signal
            actions[key] = action
    return list(actions.values())
