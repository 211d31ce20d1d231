"""What is never read as a durable self-statement: questions, hypotheticals and wishes, plans and
moments (today, just, about to), negated and organisation-wide statements, requests, and whole messages
that talk to the assistant about its memory or instructions, or are sarcastic."""

from __future__ import annotations

import re

from agent_signals_offline.rules.kinds.life import WAS_LIFE
from agent_signals_offline.rules.kinds.roles import NEW_ROLE
from agent_signals_offline.rules.vocabulary import MILITARY, OCCUPATIONS, PRONOUN_I
from agent_signals_offline.rules.word_lists import SKIP_SINGLE

_SKIP_PHRASES = re.compile(
    r"\b(?:one day|plan on|planning on|(?:am|'m|im|are|'re|is|'s|was|were) going to|plan to|about to|need to|"
    r"have to|has to|had to|want to|trying to|try to|right now|at the moment|"
    r"this (?:week|morning|afternoon|evening|weekend|sprint|month|year)|next (?:week|month|year)|"
    r"last (?:week|night|month|year)|all (?:day|night|morning|afternoon|evening|week|weekend)|just (?:\w+ed|got|came|went|had|did|saw|made|took|bought|found|began|"
    r"started|been|met|won|ate|left|heard|read|wrote|ran|sent|gave|told)|note that|thinking (?:of|about)|"
    r"store (?:this|that|it)|save (?:this|that|it)|act as|you are|system prompt|yeah right|as if|"
    r"just kidding|i will|i won'?t|i was(?! (?:born|raised)\b)|i wasn'?t|i did)\b|/s\b|\bsystem\s*:|[<>{}]"
)
_TOKEN = re.compile(r"[a-z']+")
_WAS_DURABLE = re.compile(
    rf"^{PRONOUN_I} was (?:an? (?:[\w-]+ ){{0,3}}(?:{OCCUPATIONS})s?|in the (?:[\w-]+ )?{MILITARY})\b", re.I
)
_WHEN_I_WAS = re.compile(
    r"\b(?:when|while|since) i was (?:younger|young|little|small|a (?:kid|child|teen|teenager|toddler|baby|little "
    r"(?:girl|boy))|in (?:high school|college|school|university)|\d{1,2}|(?:two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen)(?: years old)?)\b"
)
_TRY_HABIT = re.compile(r"^i (?:always |usually |generally |normally |really |do )?try to ", re.I)


def skipped(core: str) -> bool:
    """Whether the clause is a question-like, hypothetical, planned, momentary or injected statement."""
    lower = core.lower().replace("\u2019", "'")
    if lower.startswith("i was ") and (_WAS_DURABLE.match(core) or WAS_LIFE.match(core)):
        lower = lower[6:]  # "I was a nurse for ten years": a past role, not a moment
    if NEW_ROLE.match(
        lower
    ):  # "I just started as a life coach", "I was hired as a cashier": a role from now on
        lower = re.sub(r"\b(?:just|recently|i was hired)\b", "", lower)
    if _TRY_HABIT.match(lower):  # "I try to keep my pull requests small": a standing effort, not an attempt
        lower = lower.replace("try to", "", 1)
    if "i was " in lower:  # "I played the violin when I was younger": a time of life, not a moment
        lower = _WHEN_I_WAS.sub("", lower)
    return not SKIP_SINGLE.isdisjoint(_TOKEN.findall(lower)) or _SKIP_PHRASES.search(lower) is not None


NEGATION = re.compile(
    r"\b(?:not|never|no longer|don'?t|doesn'?t|didn'?t|can'?t|cannot|isn'?t|aren'?t|nor|haven'?t|hasn'?t|"
    r"hadn'?t|wasn'?t|weren'?t|won'?t|wouldn'?t|shouldn'?t|couldn'?t|ain'?t)\b",
    re.I,
)
ORG = re.compile(r"^(?:we|our|the (?:company|team|org|organisation|organization)|everyone|everybody)\b", re.I)
QUESTION_START = re.compile(
    r"^(?:do|does|did|are|is|was|were|can|could|would|will|should|have|has|what|how|why|when|where|who|"
    r"which|any|anyone)\b",
    re.I,
)

# What makes a statement unreal (a wish, a plan, a supposition, a question to oneself) rather than only
# momentary: a relative named in it may not exist.
_UNREAL = re.compile(
    r"\b(?:if|unless|whether|maybe|perhaps|probably|might|would|could|should|suppose|imagine|hypothetically|"
    r"wish|hope|hoping|wonder|someday|gonna|wanna|planning|plan|plans|i'd|id|shall|"
    r"remember|memori[sz]e|considering|ignore|instructions?|pretend|jk|one day|going to|about to|trying|try|may|"
    r"wants? to|wanted to|thinking|note|store|save|act as|you|system|as if|kidding|yeah right)\b|/s\b|[<>{}]"
)

# A clause that opens with a request verb asks for something ("Give me three names for my dog").
REQUEST = re.compile(
    r"^(?:just |please |quickly |also )*(?:give|write|tell|show|help|make|find|send|draft|let|name|suggest|list|"
    r"create|generate|check|explain|summari[sz]e|translate|recommend|plan|book|remind|draw|compose|pick|"
    r"choose|describe|edit|rewrite|proofread|review|compare|calculate|convert|get|buy|order|add|put|set|"
    r"schedule|call|text|email|message|ask|look|search|read|say|think|imagine|pretend|go|come|take|bring|"
    r"thank|thanks|congrats|congratulations|say hi|don't|do|try|keep|stop|start|please)\b"
)

# A future statement names relatives who exist ("I'll run it by my husband"), unless it is how they come to
# be ("I'll get my puppy next week", "when we meet my new sister-in-law").
_FUTURE = re.compile(r"\b(?:will|'ll|going to|gonna)\b")
_COMING = re.compile(
    r"\b(?:get|getting|gets|buy|buying|adopt|adopting|pick up|picking up|pick out|bring home|bringing home|meet|"
    r"meeting|have|having|welcome|welcoming|expecting|new|first|future|someday|one day)\b"
)


def unreal(lower: str) -> bool:
    """Whether a relative named in this (lower-cased) statement may not exist."""
    return _UNREAL.search(lower) is not None or (
        _FUTURE.search(lower) is not None and _COMING.search(lower) is not None
    )


# A message that talks to the assistant about its memory or instructions is not read at all: whatever
# "fact" it carries was put there to be stored, not said.
INJECTION = re.compile(
    r"\b(?:ignore (?:all |any |the )?(?:previous|prior|above|earlier)|disregard (?:all |the )?(?:previous|prior|above)|"
    r"(?:remember|memori[sz]e|store|save|record|note|log) (?:that|this|it|me|my|i|i'm)\b|please remember|"
    r"don'?t forget (?:that|this|i|my)|keep in mind|make a note|take note|add (?:this|that) to (?:your )?memory|"
    r"from now on,? you|you are now|act as|pretend|new instructions|system prompt|developer message|"
    r"you (?:must|should) (?:now )?(?:always|only)|override)|^\s*(?:system|assistant|tool)\s*:|[<]|\{\{|\{%|"
    # sarcasm makes every statement of the message suspect
    r"\byeah,? right\b|\blol,? as if\b|(?:^|\s)/s\b|\bjust kidding\b|\bjk\b|\bnot!",
    re.I | re.M,
)

# Every INJECTION alternative contains one of these: a cheap test before the full pattern.
INJECTION_HINTS = (
    "ignore",
    "disregard",
    "remember",
    "memori",
    "store",
    "save",
    "record",
    "note",
    "log ",
    "forget",
    "keep in",
    "add th",
    "from now",
    "you are",
    "act as",
    "pretend",
    "instruction",
    "system",
    "developer",
    "you must",
    "you should",
    "override",
    "assistant",
    "tool",
    "<",
    "{{",
    "{%",
    "right",
    "as if",
    "/s",
    "kidding",
    "jk",
    "not!",
)

# Sarcasm marks: a love said with an eye-roll, an *emphasised* love, "oh great, another ...".
SARCASM = re.compile(
    r"[\U0001F643\U0001F644\U0001F611\U0001F612]|\*(?:love|loved|loving|adore|adored|enjoy|like|favou?rite|"
    r"great|fun|best)\w*\*|\boh,? (?:great|fantastic|wonderful|joy|goody|perfect|brilliant|lovely|super|splendid)"
    r"\b[,!.]*\s+(?:another|more|just|exactly|nothing|my|the|a|i (?:just )?(?:love|adore))\b|"
    r"\bmy absolute favou?rite (?:way|thing) to\b|\byeah,? right\b",
    re.I,
)


def sarcasm_hint(lower: str) -> bool:
    """A cheap test before SARCASM: every alternative of it contains one of these."""
    return (
        "*" in lower
        or "oh" in lower
        or "absolute" in lower
        or "yeah" in lower
        or "\U0001f643" in lower
        or "\U0001f644" in lower
        or "\U0001f611" in lower
        or "\U0001f612" in lower
    )
