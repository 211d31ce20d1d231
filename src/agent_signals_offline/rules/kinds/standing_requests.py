"""Standing requests about how to answer, read sentence by sentence: "give me checklists not prose,
always", "every time you give me code, add comments", "I like it when you show a quick example". What makes
one standing, not a one-off: always, never, in general, from now on, every time, for anything."""

from __future__ import annotations

import re

from agent_signals_offline.rules.clauses import LEAD
from agent_signals_offline.rules.phrasing import clean, verb_s
from agent_signals_offline.rules.refusals import QUESTION_START, skipped
from agent_signals_offline.rules.vocabulary import PRONOUN_OBJECT, YOU

# A standing request about how to answer. What makes it standing, not a one-off: always, ever, never, in
# general, from now on, any time, every time, for anything, "any jargon you use", "keep explaining ...".
_STANDING = re.compile(
    r"\b(?:always|ever|never|in general|from now on|going forward|by default|as a rule|for (?:anything|everything|"
    r"all)\b|any ?time|every ?time|whenever|each time|(?:any|all|every) (?:[\w-]+ ){1,2}(?:you|u) (?:use|write|"
    r"give|send|draft|produce|suggest|make|show|explain|create|generate)|(?:anything|everything|whatever) (?:for|"
    r"you|that|aimed|going|meant))\b",
    re.I,
)
_FORMAT_WORDS = re.compile(
    r"\b(?:answers?|responses?|replies|explanations?|examples?|bullet(?: point)?s?|summar(?:y|ies)|tl;?dr|code|"
    r"comments?|snippets?|checklists?|lists?|tables?|diagrams?|mermaid|templates?|markdown|headings?|headers?|"
    r"steps?|prose|paragraphs?|sources?|links?|citations?|references?|numbers|units|versions?|short(?:er)?|brief|"
    r"concise|terse|verbose|long(?:er)?|detail(?:ed|s)?|tone|emojis?|jargon|acronyms?|spelling|english|"
    r"format(?:ted|ting)?|sql|yaml|json|pros and cons|trade-?offs|caveats|assumptions|rollback|tests?|"
    r"diffs?|options|language|wording|bold|italics?|formal|informal|casual|friendly|plain|simple|simpler|"
    r"high[- ]level|eli5|analog(?:y|ies)|metaphors?|words|sentences?|tldr)\b",
    re.I,
)
_WRITING_FOR = re.compile(
    r"\b(?:tone|spelling|british english|american english|oxford comma|active voice|passive voice|sentence case|"
    r"title case|emojis?|jargon|plain (?:language|english)|customers?|customer[- ]facing|clients?|external|"
    r"emails?|docs|documentation|drafts?|copy|posts?|wording|formal|informal)\b",
    re.I,
)
_REQUEST_VERB = re.compile(
    r"^(?:keep|give|use|write|put|show|explain|add|include|format|make|start|end|lead|avoid|skip|stick|spell|"
    r"default|answer|reply|respond|list|link|cite|mark|label|number|bold|highlight|break|split|summari[sz]e|"
    r"translate|flag|call out|mention|tell|walk|send|offer|provide|present|structure|wrap|quote|define|"
    r"double[- ]check|return|output|limit|cap|drop|leave out|go easy on|stop|sign off|open with|close with|"
    r"no|don'?t|do not|never|always)\b",
    re.I,
)
_LEAD_IN = re.compile(
    r"^(?:(?:pls|please|plz|kindly|also|and|oh|btw|one more thing|going forward|from now on|in general|"
    r"by default|as a rule|generally|and also|oh and|ah|ok|okay|so|hey|hi)\b[,:]?\s*)+",
    re.I,
)
_ASK_FRAME = re.compile(
    r"^(?:(?:can|could|would|will) (?:you|u) (?:please |pls |kindly )?(?=\w)|"
    r"i(?:'d| would) (?:like|love|prefer|appreciate) (?:it )?(?:if )?(?:you|u) (?:to |would |could )?|"
    r"i (?:want|need) (?:you|u) to )",
    re.I,
)
_LIKE_WHEN = re.compile(
    r"^i (?:(?:really|always|just|do|generally) )*(?P<verb>like|love|prefer|appreciate) (?:it )?when (?:you|u) "
    r"(?P<obj>(?:show|give|add|use|include|explain|write|put|keep|break|summari[sz]e|start|end|list|format|"
    r"number|link|cite|spell|walk|answer|reply|respond|draw|sketch|lay|bold|highlight|label|mark|compare|"
    r"illustrate|quote|define|flag|call) .+)$",
    re.I,
)
_I_WANT = re.compile(
    r"^i (?:(?:always|generally|usually|really|do) )*(?P<verb>want|need|like|prefer|appreciate) (?P<obj>.+)$",
    re.I,
)
_MARKER_WORDS = re.compile(
    r",?\s*\b(?:always|ever|in general|from now on|going forward|by default|as a rule|please|pls|plz|kindly|"
    r"thanks|thx|ty|thank you)\b[,!.]*",
    re.I,
)
_TO_ME = re.compile(r"\b(?:me|my|you|your|u|ur|answers?|responses?|replies|explanations?)\b", re.I)
_POINTING_ONE = re.compile(r"\b(?:this|that|these|those|it|above|below|here|today|tomorrow|now)\b", re.I)
_KEEP_THEM = re.compile(
    r"^keep (?:them|your (?:answers|replies|responses|explanations)|answers|replies|responses|explanations) "
    r"(?P<how>short|shorter|brief|concise|tight|simple|high[- ]level|to the point)\b",
    re.I,
)
_MAKING = re.compile(r"\b(?:write|draft|give me|list|generate|create|make|send|suggest|rewrite)\b", re.I)
_SCOPE = re.compile(
    r"^(?P<scope>(?:every ?time|any ?time|whenever|each time) (?:you|u) [^,]{1,60},|"
    r"(?:for|in) (?:anything|everything|all|any) (?:[\w'-]+ ){0,4}?(?=(?:use|write|keep|give|put|add|avoid|"
    r"skip|make|start|format|include|stick|spell)\b)|(?:for|in) (?:anything|everything|all|any) [^,]{1,40},)\s*",
    re.I,
)


def standing_request(sentence: str, text: str) -> tuple[str, str] | None:
    """(kind, content) for a sentence that asks the assistant to answer some way from now on."""
    raw = " ".join(sentence.replace("\u2019", "'").split()).rstrip("?!. ")
    if not raw or len(raw) > 240:
        return None
    led = raw if re.match(r"^no \w", raw, re.I) else LEAD.sub("", raw)  # "no emoji ...": not a "no" of reply
    body = _ASK_FRAME.sub("", _LEAD_IN.sub("", led))
    framed = body != led or re.search(r"\b(?:please|pls|plz|kindly)\b", raw, re.I) is not None
    body = _LEAD_IN.sub("", body)  # "can you always ...": the marker after the frame
    if not body or not _FORMAT_WORDS.search(body):
        return None
    if QUESTION_START.match(body) and not framed and not _SCOPE.match(body):
        return None
    like = _LIKE_WHEN.match(body)
    keep_them = _KEEP_THEM.match(body)
    keeping = re.match(r"^(?:keep (?!going\b|up\b|it\b)|stop )\w+ing\b", body, re.I)  # "stop using emoji"
    marked = _STANDING.search(raw) is not None or like is not None or keeping is not None
    if not (marked or keep_them):
        return None
    kind = "writing" if _WRITING_FOR.search(body) else "communication"
    if like:  # "I like it when you show a quick example"
        verb, _, rest = like["obj"].partition(" ")
        if _POINTING_ONE.search(rest) or skipped(rest) or not rest:
            return None
        label = {"like": "Likes", "love": "Loves", "prefer": "Prefers", "appreciate": "Appreciates"}
        return kind, f"{label[like['verb'].lower()]} it when the assistant {verb_s(verb)} {clean(rest, 12)}"
    plain = _MARKER_WORDS.sub("", body).strip(" ,")
    if not plain or _POINTING_ONE.search(plain if not keep_them else plain.replace("them", "")):
        return None  # "always add comments to this function", "give me the short version today"
    if skipped(re.sub(r"\b(?:always|ever)\b", "", plain)):
        return None
    want = _I_WANT.match(plain)
    if want:  # "I always want rollback steps spelled out explicitly"
        if (
            not marked
            or PRONOUN_OBJECT.match(want["obj"])
            or want["obj"].lower().startswith("to ")
            or YOU.search(want["obj"])
        ):
            return None
        verb = want["verb"].lower()
        label = {"like": "Likes", "prefer": "Prefers", "appreciate": "Appreciates"}.get(verb, "Wants")
        return kind, f"{label} {clean(want['obj'], 14)}"
    # "every time you give me code, add comments", "for anything customer-facing use British spelling"
    scope = _SCOPE.match(plain)
    if not (framed or keep_them or _TO_ME.search(raw) or (scope and kind == "writing")):
        return None  # "always make a list before shopping": advice, not a request to the assistant
    if keep_them and not marked:
        if _MAKING.search(text.replace(sentence, "")):
            return None  # "write three emails, keep them short": about those emails
        return "communication", f"Wants answers kept {keep_them['how'].lower()}"
    tail = ""
    if scope:
        plain, tail = plain[scope.end() :], " " + clean(scope["scope"].strip(" ,"), 10)
    if not (_REQUEST_VERB.match(plain) or keeping):
        return None
    plain = plain[:1].lower() + plain[1:]
    never = re.match(r"^(?:don'?t|do not|never)\s+(?:ever\s+)?", plain, re.I)
    if never:
        return kind, f"Wants the assistant to never {clean(plain[never.end() :], 14)}{tail}"
    if plain[:3].lower() == "no ":  # "no emoji in your answers, ever"
        return kind, f"Wants no {clean(plain[3:], 14)}{tail}"
    if re.search(r"\bnever\b", raw, re.I):
        return None  # "give me tables, never prose": said both ways, left to the clause reading
    if keeping:  # "keep explaining stuff with examples", "stop using emoji": already standing
        return kind, f"Wants the assistant to {clean(plain, 14)}{tail}"
    return kind, f"Wants the assistant to always {clean(plain, 14)}{tail}"


# A cheap test before the standing requests: each of them holds one of these
STANDING_HINT = re.compile(
    r"always|ever|general|from now|forward|default|as a rule|any|each time|keep|stop|when (?:you|u)"
)
STANDING_ANY = re.compile(
    rf"{_STANDING.pattern}|\b(?:keep|stop) \w|\bwhen (?:you|u)\b"
)  # on lower-cased text
FORMAT_LOWER = re.compile(_FORMAT_WORDS.pattern)
