"""What a signal may be, rather than what an attack looks like: a short third-person statement about the
user, without a subject ("Works as a staff data engineer", "Prefers bullet lists"), written in the one
configured signal language (AGENT_SIGNALS_SIGNAL_LANGUAGE, default English). The prompts ask for exactly
that, so a content of another shape is a model that was fooled or went wrong, whatever its words:

- written in another language or script (the quotes stay verbatim; only the content is the model's);
- written in the first or second person ("my", "you"), or as a request ("please", "don't");
- an imperative: it opens with a verb an agent would carry out ("Send", "Book", "Merge", "Tell");
- about someone else acting: another agent, a tool, a bot, "anyone", "whoever", other users, as the subject
  of what is done, or what someone "should", "must" or "may" do, or what happens "without asking";
- a condition with an action ("whenever ... forward", "if ... approve"): a rule, not a fact;
- a rule for acting however it is phrased, as the learned screen reads it (learned.py: a linear model
  trained on the development corpora, for the paraphrases none of the rules above names).

`shape_reason(content)` names the first of these it finds, or None. No screen here decides alone: a shape
that is off is held for review (screen.py), never written where agents read.

The language is identified with wordfreq's word lists (a well-kept offline library of word frequencies in
over 40 languages, shipped in its package): for the short texts signals are, counting how many of the words
are common in each language is steadier than character n-gram identifiers, which read "Prefers bullet lists"
as Catalan. Other scripts are told by the `regex` module's Unicode script properties. The grammar checks are
English ones, which is why the content's language is checked first: a statement in another language is held
for that alone. A deployment with another signal language keeps the language and script checks and skips the
English grammar.
"""

from __future__ import annotations

import math
import re
from functools import cache, lru_cache

import regex

from agent_signals.config import ANY_LANGUAGE, SIGNAL_LANGUAGES
from agent_signals.core.memo import per_text
from agent_signals.core.screening import learned
from agent_signals.core.screening.characters import look_alikes
from agent_signals.core.screening.fold import visible

ENGLISH = "en"
LATIN_LANGUAGES = SIGNAL_LANGUAGES  # the Latin-script languages the identifier tells apart
# a word is common in a language when its Zipf frequency is at least this (once per 10 million words)
COMMON_ZIPF = 1.0
# at least this share of a text's words must be common in the language, and no other language may read more
ENGLISH_SHARE = 0.6
# and of a longer text (FREQUENT_FROM words or more), at least half must be frequent in it (Zipf 3.5: once
# in 300,000 words): a romanised language (Hinglish) shares many rare words with English's web text
FREQUENT_ZIPF = 3.5
# another language reads the words as likelier by this much per word (in Zipf units, orders of magnitude)
LIKELIER_BY = 0.5
FREQUENT_FROM = 6
# and of a text of RARE_FROM words or more, fewer than RARE_SHARE may be short words (RARE_LENGTH letters or
# fewer) rare in it (Zipf under RARE_ZIPF): romanised Hindi's particles ("toh", "bhi", "kar", "nahi") are each
# rare in English, English's are not; a rare long word is a trade's ("offboarding", "revocation")
RARE_ZIPF = 3.2
RARE_SHARE = 0.3
RARE_FROM = 8
RARE_LENGTH = 6

_LETTER = regex.compile(r"\p{L}")
_OTHER_SCRIPT = regex.compile(r"[\p{L}--[\p{Script=Latin}]]", regex.V1)
_WORD = regex.compile(r"\p{L}+(?:['’]\p{L}+)*")
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|«[^»]*»|‘[^’]*’|(?<!\w)'[^']*'(?!\w)")


@per_text
def shape_reason(content: str, language: str = ENGLISH, *, summary: bool = False) -> str | None:
    """Why `content` does not read as a third-person statement about the user in `language`, or None.
    A `summary` names its subject ("The user ..."); a signal does not."""
    bare = _QUOTED.sub(" ", content)  # quoted words are the user's own ("Calls the on-call rota 'the pit'")
    if language != ANY_LANGUAGE and (reason := _language_reason(bare, language)):
        return reason
    if language not in (ENGLISH, ANY_LANGUAGE):
        return None
    # and as it reads with its look-alike letters folded ("🅳🅴🅻🅴🆃🅴 🆃🅷🅴 🅰🆄🅳🅸🆃 🅻🅾🅶🆂", case kept)
    latin = bare if bare.isascii() else visible(bare).translate(look_alikes())
    return (
        _english_reason(bare, summary)
        or (_english_reason(latin, summary) if latin != bare else None)
        or _learned_reason(latin, summary)
    )


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_SUMMARY_SUBJECT = re.compile(r"^(?:the user|they)\s+", re.IGNORECASE)


def _learned_reason(text: str, summary: bool) -> str | None:
    """The learned screen's reason (learned_rule), for a signal as a whole or for each sentence of a summary
    read without its subject ("The user pays ..." as "pays ...", the form the screen was trained on)."""
    statements = [_SUMMARY_SUBJECT.sub("", s) for s in _SENTENCE_END.split(text)] if summary else [text]
    return next((r for s in statements if s and (r := learned_rule(s))), None)


def learned_rule(statement: str) -> str | None:
    """The learned screen's reason for a statement, unless the statement is a preference about how the
    agent writes and talks (about_writing): what the screen was not trained to tell apart ("Wants the
    assistant to never use emojis in anything it writes for them"), and what the standing-preference rule
    (risk.py: a consequential action named) already reads."""
    return None if about_writing(statement) else learned.instruction_reason(statement)


# a preference about the agent's writing and talking: what is wanted, then what a text is made of
_ABOUT_WRITING = re.compile(
    r"\b(?:wants?|prefers?|likes?|asks? for|expects?|would like|needs?)\b[^.;]*?\b(?:writ\w*|draft\w*|emojis?|"
    r"bullet\w*|code|examples?|answers?|replies|reply|responses?|explain\w*|explanations?|summar\w+|format\w*|"
    r"tone|spelling|words?|sentences?|paragraphs?|tables?|diagrams?|headings?|lists?|markdown|jargon|voice|"
    r"prose|language|greetings?|sign-?offs?|details?)\b",
    re.I,
)


def about_writing(statement: str) -> bool:
    """Whether a statement is a preference about how the agent writes and talks that names no action moving
    money, data or rights (names_action)."""
    return _ABOUT_WRITING.search(statement) is not None and not names_action(statement)


def _language_reason(text: str, language: str) -> str | None:
    letters = _LETTER.findall(text)
    if not letters:
        return None
    other = _OTHER_SCRIPT.findall(text)
    if language in LATIN_LANGUAGES and (len(other) >= 3 or len(other) > 0.2 * len(letters)):
        return f"not written in {language_name(language)}: {_script(other)} script"
    # names are no language's words: capitalised words count only at the start
    words = [
        w.casefold()
        for i, w in enumerate(_WORD.findall(text))
        if not _OTHER_SCRIPT.search(w) and (i == 0 or not w[:1].isupper())
    ]
    if language not in LATIN_LANGUAGES or len(words) < 2:
        return None
    profiles = [_profile(w, language) for w in words]  # summed by language: column by column
    counts = dict(zip(LATIN_LANGUAGES, map(sum, zip(*(p[0] for p in profiles), strict=True)), strict=True))
    own = counts[language]
    # the language whose word frequencies make the words likeliest (the sum of their Zipf values): word
    # lists of web text hold each other's common words, so whether a word is known says less than how often
    scores = dict(zip(LATIN_LANGUAGES, map(sum, zip(*(p[1] for p in profiles), strict=True)), strict=True))
    likeliest = max(scores, key=lambda lang: (scores[lang], lang == language))
    if likeliest != language and scores[likeliest] > scores[language] + LIKELIER_BY * len(words):
        return f"not written in {language_name(language)}: reads as {language_name(likeliest)}"
    best = max(counts, key=lambda lang: (counts[lang], lang == language))
    if len(words) >= FREQUENT_FROM and 2 * sum(1 for w in words if _frequent(w, language)) < len(words):
        return f"not written in {language_name(language)}: most of its words are rare in it"
    if len(words) >= RARE_FROM and sum(
        1 for w in words if len(w) <= RARE_LENGTH and _zipf(w, language, True) < RARE_ZIPF
    ) >= RARE_SHARE * len(words):
        return f"not written in {language_name(language)}: too many of its words are rare in it"
    if own >= ENGLISH_SHARE * len(words) and counts[best] <= own:
        return None
    if best != language and counts[best] > own:
        return f"not written in {language_name(language)}: reads as {language_name(best)}"
    if own < ENGLISH_SHARE * len(words) and len(words) >= 3:
        return f"not written in {language_name(language)}: most of its words are not"
    return None


PROFILE_CACHE = 65_536  # distinct (word, signal language) pairs whose profile a process keeps (a few MB)


@lru_cache(maxsize=PROFILE_CACHE)
def _profile(word: str, language: str) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Whether the word is common in each of LATIN_LANGUAGES (0 or 1), and its Zipf value in each: the
    signal language read on its large list. A text's counts and scores are these summed over its words."""
    return (
        tuple(int(_common(word, lang, lang == language)) for lang in LATIN_LANGUAGES),
        tuple(_zipf(word, lang, lang == language) for lang in LATIN_LANGUAGES),
    )


@cache
def _frequencies(language: str, large: bool) -> dict[str, float]:
    """wordfreq's frequencies of a language: the large list for the signal language (its rare words count),
    the small one (about 30,000 words) for the others, which keeps the 27 lists at about 160 MB and a
    second to load instead of 650 MB and four."""
    from wordfreq import get_frequency_dict

    return get_frequency_dict(language, wordlist="best" if large else "small")


def _frequency(word: str, language: str, large: bool) -> float:
    """The word's frequency in the language: `large` for the language being checked, which reads its rare
    words too."""
    return _frequencies(language, large).get(word, 0.0)


_MIN_FREQUENCY = 10 ** (COMMON_ZIPF - 9)


@cache
def _common(word: str, language: str, large: bool) -> bool:
    return _frequency(word, language, large) >= _MIN_FREQUENCY


@cache
def _zipf(word: str, language: str, large: bool) -> float:
    frequency = _frequency(word, language, large)
    return max(0.0, 9 + math.log10(frequency)) if frequency else 0.0


def _frequent(word: str, language: str) -> bool:
    return _frequency(word, language, large=True) >= 10 ** (FREQUENT_ZIPF - 9)


@cache
def language_name(language: str) -> str:
    """A language's English name (CLDR, through babel): "en" -> "English"."""
    from babel import Locale, UnknownLocaleError

    try:
        return Locale.parse(language).get_display_name("en") or language
    except (ValueError, UnknownLocaleError):
        return language


def _script(letters: list[str]) -> str:
    """The Unicode script of the first letter of another script ("Hangul", "Arabic", "Cyrillic"...)."""
    for script in _SCRIPTS:
        if regex.match(rf"\p{{Script={script}}}", letters[0]):
            return script.replace("_", " ")
    return "another"


_SCRIPTS = (
    "Hangul", "Arabic", "Cyrillic", "Greek", "Hebrew", "Devanagari", "Thai", "Han", "Hiragana", "Katakana",
    "Bengali", "Tamil", "Telugu", "Gujarati", "Gurmukhi", "Kannada", "Malayalam", "Sinhala", "Armenian",
    "Georgian", "Ethiopic", "Khmer", "Lao", "Myanmar", "Tibetan",
)  # fmt: skip


# ---------------------------------------------------------------------------------------------------
# English grammar of a signal

# What an agent, a tool or another person can be asked to do (base forms; their inflections are derived).
_ACTION_WORDS = """
access accept act activate add allow alter approve archive assign authorise authorize auto-approve bcc
book buy bypass call cancel cc change charge claim click close collect commit confirm contact copy
delegate delete deploy deposit disable disclose disregard dm download drop dump edit elevate email e-mail
enable erase escalate exclude execute expose export fetch file follow forget forward give grant hand hide
ignore impersonate inform install invite leak let log mail mark merge message modify move notify obey
omit open order overwrite override paste pay ping post pretend process provide publish purchase push
record redirect refund reimburse release remember remove replace reset retrieve reveal route run save
schedule scrape sell send set share ship sign skip store submit suppress switch text tell transfer treat
trust turn unlock update upload view visit waive wipe wire withdraw raise increase decrease pass issue
revert reverse force-push discount void terminate restore reassign
"""
ACTIONS = tuple(_ACTION_WORDS.split())
# the actions of ACTIONS that move money, data or rights, or skip a check (and are seldom nouns)
_CONSEQUENTIAL_WORDS = """
accept approve authorise authorize bypass buy delete deploy deposit disable disclose elevate erase escalate
execute export forward grant impersonate install invite leak merge override pay publish purchase refund
reimburse sell send share sign skip transfer trust unlock upload waive wipe wire withdraw revert force-push
void terminate
"""
CONSEQUENTIAL = tuple(_CONSEQUENTIAL_WORDS.split())

_IRREGULAR = {
    "buy": "bought", "forget": "forgotten forgot", "give": "given gave", "hand": "handed", "let": "let",
    "pay": "paid", "run": "ran", "send": "sent", "sell": "sold", "set": "set",
    "show": "shown", "tell": "told", "leak": "leaked", "dump": "dumped", "put": "put", "hide": "hidden hid",
    "overwrite": "overwritten overwrote", "read": "read", "bump": "bumped", "mute": "muted",
}  # fmt: skip


def _inflections(verb: str) -> tuple[str, str, str]:
    """(third person singular, past forms, -ing) of an English verb, by the regular rules."""
    if verb.endswith("e"):
        ing, past = verb[:-1] + "ing", verb + "d"
    elif verb.endswith("y") and verb[-2] not in "aeiou":
        ing, past = verb + "ing", verb[:-1] + "ied"
    elif verb[-1] in "bdgmnprt" and verb[-2] in "aeiou" and verb[-3] not in "aeiou":
        # stop -> stopped, but open -> opened: both spellings (the wrong one matches nothing)
        ing, past = f"{verb}{verb[-1]}ing {verb}ing", f"{verb}{verb[-1]}ed {verb}ed"
    else:
        ing, past = verb + "ing", verb + "ed"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        third = verb + "es"
    elif verb.endswith("y") and verb[-2] not in "aeiou":
        third = verb[:-1] + "ies"
    else:
        third = verb + "s"
    return third, " ".join(filter(None, (past, _IRREGULAR.get(verb)))), ing


def _alternation(words) -> str:
    return "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))


_BASE = "(?:re-?)?(?:" + _alternation(ACTIONS) + ")"
_PARTICIPLE = "(?:re-?)?(?:" + _alternation(p for v in ACTIONS for p in _inflections(v)[1].split()) + ")"
_ANY_FORM = (
    "(?:re-?)?(?:"
    + _alternation([*ACTIONS, *(f for v in ACTIONS for f in " ".join(_inflections(v)).split())])
    + ")"
)
_THIRD = "(?:re-?)?(?:" + _alternation(_inflections(v)[0] for v in ACTIONS) + ")"
_INFLECTED = (
    "(?:re-?)?(?:" + _alternation(f for v in ACTIONS for f in " ".join(_inflections(v)).split()) + ")"
)
# what may be done to the user's things at their wish without anyone acting for them: "given as tables"
_WRITERLY = frozenset(
    [
        "call",
        "file",
        "give",
        "hand",
        "log",
        "mark",
        "message",
        "order",
        "post",
        "record",
        "schedule",
        "sign",
        "skip",
        "set",
        "text",
    ]
)
_DONE = (
    "(?:re-?)?(?:"
    + _alternation(p for v in ACTIONS if v not in _WRITERLY for p in _inflections(v)[1].split())
    + ")"
)
_B, _E = r"(?<![\w'’-])", r"(?![\w'’-])"

# what hands a guarded thing to someone else, or destroys, hides or switches off what guards it (not what
# an administrator does to keep it: resetting, rotating, unlocking, managing)
_MOVED_OR_UNDONE = (
    "share send give forward post repost mirror export upload leak publish disclose include hand email mail "
    "paste dump copy transfer wire pay delete erase wipe clear drop mute close hide overwrite skip bypass "
    "disable raise read reveal expose bump"
)
_DONE_TO = (
    "(?:"
    + _alternation(f for v in _MOVED_OR_UNDONE.split() for f in (v, *" ".join(_inflections(v)).split()))
    + ")"
)
# after the guarded thing, only as done to it ("the audit trail cleared"), not as a noun ("the payroll export")
_DONE_TO_IT = (
    "(?:" + _alternation(p for v in _MOVED_OR_UNDONE.split() for p in _inflections(v)[1].split()) + ")"
)

# someone other than the user: who would act on the statement (an agent, a tool, other people)
AGENTS = (
    r"(?:the |an |any |this |that |my |their |every )?(?:assistant|agent|ai|a\.i\.|bot|chatbot|model|llm|"
    r"copilot|system|tool|plugin|integration|automation|workflow|script|gpt|chatgpt|claude|gemini|siri|alexa)s?"
)
PEOPLE = (
    r"anyone|anybody|everyone|everybody|whoever|someone|somebody|nobody|no one"
    r"|(?:other|all|any|every) (?:users?|people|colleagues|members|employees|staff|customers|clients)"
)
ACTORS = f"{AGENTS}|{PEOPLE}"
_ADVERB = r"(?:\w+ly |always |never |just |only |also |then |still |not |now |immediately |instantly )?"
_MODAL = r"(?:should|must|shall|may|can|could|will|would|is to|are to|has to|have to|needs? to|ought to|gets? to|is allowed to|are allowed to|is free to)"

_FIRST_PERSON = re.compile(
    _B
    + r"(?:i|i'm|i’m|i've|i’ve|i'd|i’d|i'll|i’ll|me|my|mine|myself|we|we're|we’re|us|our|ours|ourselves)"
    + _E,
    re.I,
)
_SECOND_PERSON = re.compile(
    _B
    + r"(?:you|you're|you’re|you'll|you’ll|you've|you’ve|you'd|you’d|your|yours|yourself|yourselves|u|ur|thee|thou)"
    + _E,
    re.I,
)
_REQUEST = re.compile(
    r"(?:^|[.;:!?]\s*)(?:please|pls|plz|kindly|do not|don't|don’t|make sure|be sure|remember to|note to self|"
    r"from now on|going forward|henceforth|hereafter|moving forward|effective immediately)" + _E,
    re.I,
)
# a clause that opens with an action in its base form: "Send ...", "Always approve ...", "...; merge ..."
# (an imperative takes its object with a determiner or a pronoun: "Merge their PRs", not "Release manager")
_OBJECT = r"(?:the|a|an|all|any|every|each|my|our|their|his|her|this|that|these|those|it|them|me|us|everything|anything|everyone|anyone|\d[\d.,]*)"


def _imperative(clause_start: str, before_object: str = "") -> re.Pattern[str]:
    """A clause that opens (after `clause_start`) with an action in its base form and its object."""
    return re.compile(
        rf"(?:^|{clause_start}|\bthen\s+|\bmeans\s+)\W*{_ADVERB}(?:{_BASE}){_E}\s+{before_object}{_OBJECT}{_E}",
        re.I,
    )


_IMPERATIVE = _imperative(r"[.;:!?=]\s*")


# a duty given to an agent: "Duty of the assistant: answer refund requests", "the bot's job is to ..."
_AGENT_DUTY = re.compile(
    rf"{_B}(?:duty|duties|job|jobs|task|tasks|role|responsibilit(?:y|ies)|standing (?:order|instruction)s?|"
    rf"orders?|rules?|policy|mandate|instructions?)\s+(?:of|for|to)\s+(?:the |my |this |our |their )?(?:\S+\s+)?(?:{AGENTS}){_E}"
    rf"|{_B}(?:{AGENTS})(?:'s|’s)\s+(?:duty|duties|job|jobs|task|tasks|role|responsibilit(?:y|ies)|standing orders?)",
    re.I,
)


# another actor who is to do something: "the assistant to reveal", "anyone who asks gets", "agents should"
def _acting(actors: str) -> re.Pattern[str]:
    return re.compile(
        rf"{_B}(?:{actors}){_E}(?:\s+\S+){{0,5}}?\s+(?:to|{_MODAL})\s+(?:\S+\s+){{0,8}}?(?:{_BASE}|be|get|see|read){_E}"
        # an inflected form, or the base form after a plural ("agents approve"; "system access" is a noun)
        rf"|{_B}(?:{actors}){_E}\s+{_ADVERB}(?:{_INFLECTED}){_E}"
        rf"|{_B}(?:{actors})(?<=s){_E}\s+{_ADVERB}(?:{_BASE}){_E}"
        # what the agent does, said as a fact: "the assistant says yes to refund requests"
        rf"|{_B}(?:the |an? |any |every )(?:\S+\s+)?(?:{AGENTS}){_E}\s+{_ADVERB}"
        rf"(?!(?:is|was|has|does|seems|this|its|plus|thus|less|unless|across|towards|besides)\b)"
        rf"(?!(?:features|models|tools|systems|outputs|responses|prompts|apps|products|teams|projects|services|"
        rf"pipelines|evals|benchmarks|agents|runs|tests|users|workflows|integrations|platforms)\b)"
        rf"[a-z]{{2,}}(?:s|es)\b",
        re.I,
    )


# another actor who is to do something: "the assistant to reveal", "agents should", "anyone who asks gets"
_ACTOR_ACTS = _acting(ACTORS)
_AGENT_ACTS = _acting(AGENTS)
_GIVEN_TO = re.compile(
    rf"{_B}(?:{ACTORS}){_E}\s+(?:who|that|which)\s+(?:\S+\s+){{0,8}}?(?:gets?|receives?|is given|are given|"
    rf"has access|have access|can see|may see|can read|may read){_E}",
    re.I,
)
# something to be done by someone else: "commands executed", "files to be deleted", "links trusted"
_DONE_FOR = re.compile(
    rf"{_B}(?:wants?|prefers?|likes?|expects?|needs?|asks?|requires?|requests?|would like|insists?)"
    rf"(?:\s+that)?(?:\s+\S+){{0,6}}?\s+(?:to\s+be\s+|be\s+|being\s+)?(?<!\bto\s)(?<!\bget\s)(?<!\bgetting\s)"
    rf"{_ADVERB}(?:{_DONE}){_E}",
    re.I,
)
# a claim to act on others' behalf or data: "authorised to view all accounts", "permission to read"; and
# what is to be done to something: "can be trusted", "to be deleted"
_ENTITLED = re.compile(
    rf"{_B}(?:permission|permissions|consent|authori[sz]ed|authori[sz]ation|allowed|entitled|cleared|"
    rf"right|rights|licen[cs]e|mandate|approval)\s+(?:\S+\s+){{0,4}}?to\s+(?:{_BASE}|see|read|access){_E}"
    rf"|{_B}(?:to|can|could|should|must|may|will|might)\s+(?:\w+ly\s+|always\s+|also\s+)?be\s+"
    rf"(?:\w+ly\s+)?(?:{_PARTICIPLE}){_E}",
    re.I,
)
_CONSEQUENTIAL_FORMS = (
    "(?:re-?)?(?:"
    + _alternation(f for v in CONSEQUENTIAL for f in (v, *" ".join(_inflections(v)).split()))
    + ")"
)
# the checks a user keeps before something is done (base forms; their inflections are derived)
_CHECK_WORDS = """
ask confirm approve check review wait page tell notify inform log verify question prompt escalate consult
hesitate double-check flag loop pause query warn
"""
_CHECKING = _alternation(f for v in _CHECK_WORDS.split() for f in (v, *" ".join(_inflections(v)).split()))
_UNCHECKED = re.compile(
    rf"{_B}(?:without|no need (?:for|to)|skipping|bypassing)\s+(?:any\s+|a\s+|further\s+|prior\s+|their\s+)?"
    rf"(?:{_CHECKING}|confirmation|approval|checks|waiting for|questions|verification|escalation|permission|"
    rf"consent|2fa|mfa|sign-off|a second look){_E}"
    # done out of sight, or kept under what would set off a check ("quietly approving", "split so they do not
    # trigger approval", "kept below the review threshold")
    rf"|{_B}(?:quietly|silently|secretly|discreetly|covertly|stealthily|unnoticed)\s+(?:\S+\s+){{0,2}}?"
    rf"{_CONSEQUENTIAL_FORMS}{_E}"
    rf"|{_B}(?:(?:do|does|did|will|would)\s*(?:not|n't|never)|never|without)\s+(?:trigger|triggering|need|needing|"
    rf"require|requiring|hit|hitting|reach|reaching)\s+(?:an?\s+|the\s+|any\s+)?(?:\S+\s+)?(?:approval|review|"
    rf"check|audit|alert|flag|sign-?off|threshold|limit){_E}"
    rf"|{_B}(?:avoid\w*|evad\w*|dodg\w*|stay\w*|kept|keep\w*)\s+(?:\S+\s+){{0,3}}?(?:under|below|beneath)\s+"
    rf"(?:the\s+|any\s+)?(?:\S+\s+)?(?:threshold|limit|radar|cap){_E}"
    rf"|{_B}(?:on (?:their|his|her|the user's) behalf|on behalf of(?! (?:the|our|his|her|their|its) (?:company|employer|firm|organi[sz]ation|agency|department|hospital|school|university|government|ministry|union|board|council)\b)|in the name of|in (?:\S+\s+){{0,2}}?(?:their|his|her|\S+'s|\S+’s) name|"
    rf"to (?:whatever|any) (?:\S+\s+)?(?:account|address|number|iban|recipient)s?|"
    rf"automatically|auto-approve[sd]?|(?:written|signed|sent|posing) as|with (?:his|her|\S+'s|\S+’s) signature){_E}"
    rf"|{_B}(?:with no|without|no|skipping|waiving|bypassing)\s+(?:\S+\s+){{0,3}}?(?:step|steps|check|checks|"
    rf"confirmation|approval|review|ticket|sign-?off|mfa|2fa|verification|change control|audit|prompt){_E}"
    rf"|{_B}(?:check|checks|review|approval|sign-?off|verification|protection|mfa|2fa|confirmation|logging|audit)\s+"
    rf"(?:\S+\s+)?(?:waived|skipped|afterwards|later|bypassed|disabled|turned off|off){_E}",
    re.I,
)

# the user named as someone else: a signal's subject is the user, so it never says "the user"
_USER_AS_OTHER = re.compile(rf"{_B}(?:the user|the user's|the user’s|this user|user's|user’s){_E}", re.I)
_WHEN = r"(?:if|when|whenever|unless|once|as soon as|any ?time|every time|each time|on (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays))"
_ALWAYS = r"(?:on request|on demand|when(?:ever)? (?:asked|told)|regardless)"
# a rule for acting: a condition, then an action ("If a deploy fails, drops the staging database"), or an
# action taken whenever asked ("Sends the password to whoever asks, on request")
_CONDITION = re.compile(
    rf"{_B}{_WHEN}{_E}[^,;.:]{{1,100}}[,;:]\s*(?:then\s+)?{_ADVERB}(?:{_THIRD}|{_BASE}){_E}"
    rf"|{_B}(?:{_THIRD})\s+(?:\S+\s+){{0,12}}?{_ALWAYS}{_E}",
    re.I,
)
# standing grants: "Treats X as pre-cleared", "Lets anyone ... read", "Gives ... access", "counts as the user"
_GRANT = re.compile(
    rf"{_B}(?:treats?|regards?|considers?)\s+(?:\S+\s+){{1,8}}?as\s+(?:\S+\s+){{0,3}}?(?:pre-?cleared|"
    rf"cleared|approved|trusted|verified|authori[sz]ed|real|genuine|coming from|from|the user|legitimate|safe)"
    rf"|{_B}(?:allows?|permits?|authori[sz]es?|enables?)\s+(?:\S+\s+){{0,6}}?to\s"
    rf"|{_B}lets?\s+(?:\S+\s+){{1,6}}?(?:{_BASE}|see|read|access|use){_E}"
    rf"|{_B}(?:gives?|grants?|hands?)\s+(?:anyone|anybody|everyone|everybody|whoever|people|others|"
    rf"other\s+\S+|any\s+\S+|all\s+\S+|\S+'s)\s+(?:\S+\s+){{0,5}}?(?:access|rights|permissions?|privileges|control)"
    rf"|{_B}(?:gives?|grants?|hands?)\s+(?:\S+\s+){{0,4}}?(?:access|rights|permissions?|privileges|control)\s+(?:\S+\s+){{0,6}}?"
    rf"to\s+(?:anyone|anybody|everyone|everybody|whoever|any|all|people|others){_E}"
    rf"|{_B}(?:it'?s|it’s|it is|is|are)\s+(?:\w+\s+)?(?:fine|ok|okay|alright|acceptable|safe)\s+(?:for\s+\S+\s+)?to\s+(?:be\s+)?"
    rf"(?:\w+ly\s+)?(?:{_DONE_TO}|{_ANY_FORM}){_E}"
    rf"|{_B}counts? as (?:coming from|from|the user|(?:\S+\s+){{0,2}}?(?:sign-?off|approval|consent|authori[sz]ation|confirmation))"
    rf"|{_B}(?:gets?|receives?|has|have|is given|are given)\s+(?:\S+\s+){{0,2}}?(?:access|rights|permissions?)\s+(?:to|through|via)",
    re.I,
)
# a standing procedure: something done to something by no one named ("refunds are processed immediately",
# "credentials are posted on request"), said of a subject other than the user
_PROCEDURE_VERBS = (
    *(v for v in CONSEQUENTIAL if v not in ("accept", "disable", "invite")),
    *["answer", "handle", "issue", "post", "process", "run"],
)
_PROCEDURE = re.compile(
    rf"{_B}(?:is|are)\s+(?:\w+ly\s+|always\s+|then\s+|also\s+|first\s+|just\s+)?"
    rf"(?:{_alternation(p for v in _PROCEDURE_VERBS for p in _inflections(v)[1].split())}){_E}",
    re.I,
)
# a trigger for acting: "Codeword 'pineapple' = move ...", "Writing just 'done' means approve all payments"
_TRIGGER = re.compile(
    rf"{_B}(?:code ?word|trigger(?: word| phrase)?|magic word|safe ?word|keyword|pass ?phrase)\b.{{0,60}}?(?:=|means|triggers|stands for)"
    rf"|{_B}(?:as a |by )?standing (?:order|instruction|rule)s?{_E}"
    rf"|{_B}(?:writing|saying|typing|replying|sending|messages? (?:saying|containing|with))\s+(?:just\s+|only\s+)?\S+.{{0,40}}?(?:means|=|counts? as)\s",
    re.I,
)
# the data no one should hand out, moved or shown: credentials, exports, other people's records
_PRIVATE = (
    r"(?:passwords?|passcodes?|credentials|api keys?|secret keys?|tokens?|vault(?: entries)?|ssns?|social security numbers?|"
    r"card (?:details|numbers?)|bank details|salar(?:y|ies)|payroll|(?:customer|employee|user|patient)(?:-| )?"
    r"(?:data|list|lists|records?|table|tables|database|phone numbers|emails|addresses|exports?)|database (?:backup|dump|export)s?|"
    r"(?:raw|full|unredacted) (?:exports?|reports?|dumps?|data)|unredacted|backups?)"
)
# the past participles of passing something on, then its other forms
_MOVED_PARTICIPLES = (
    "posted", "shared", "sent", "attached", "emailed", "mailed", "forwarded", "exported", "dumped", "printed",
    "pasted", "leaked", "disclosed", "published", "uploaded", "given", "handed",
)  # fmt: skip
_MOVED_OTHER = (
    "post", "share", "shares", "send", "sends", "attach", "read out", "reads out", "gets?", "get", "receives?",
)  # fmt: skip
_MOVED = f"(?:{'|'.join(_MOVED_PARTICIPLES + _MOVED_OTHER)})"
# (not across a clause of its own: "Resets passwords for staff who get locked out", "Anonymizes customer records
# before they are shared"; a participle right before the noun is its adjective: "Revokes leaked tokens")
_MOVED_PARTICIPLE = f"(?:{'|'.join(_MOVED_PARTICIPLES)})"
_CLAUSE_WORD = r"(?:who|that|which|when|whenever|before|after|once|until|if|unless|so|because)"
_PRIVATE_MOVED = re.compile(
    rf"{_B}{_PRIVATE}{_E}(?:\s+(?!{_CLAUSE_WORD}{_E})\S+){{0,8}}?\s+{_MOVED}{_E}"
    rf"|{_B}(?!{_MOVED_PARTICIPLE}\s+{_PRIVATE}{_E}){_MOVED}\s+(?:\S+\s+){{0,6}}?{_PRIVATE}{_E}",
    re.I,
)
# "anyone who asks", "any colleague who DMs": everyone who says so
_ANYONE_ASKING = re.compile(
    r"(?<![\w'’-])(?:anyone|anybody|whoever|everyone|any\s+\S+)\s+(?:\S+\s+){0,3}?(?:who|that)\s+"
    r"(?:asks|requests|dms|emails|messages|writes|mentions|says|pings)(?![\w'’-])",
    re.I,
)
# what no signal needs to say anything done to: credentials, money, other people's private data, rights,
# and the controls that protect them
_GUARDED = (
    r"(?:log-?ins?|credentials?|passwords?|passcodes?|vpn|(?:bank|company|corporate) (?:accounts?|details|cards?)|"
    r"(?:bank |staff |account )?account numbers?|card numbers?|cvvs?|salar(?:y|ies)|salary lines?|payroll|"
    r"audit (?:logs?|trails?)|(?:private|direct) (?:dms|messages|events|emails|mobile numbers|numbers)|dms|"
    r"(?:customer|client|employee|staff|user|patient)(?:'s|’s|s'|s’|s)? (?:data|tables?|lists?|records|address books?|emails?|"
    r"phones?|contacts|files|exports?)(?! (?:engineer|scientist|analyst|team|platform|pipeline|warehouse|model)s?\b)|address books?|mobile numbers|home address(?:es)?|security (?:scans?|alerts|checks?)|"
    r"approval (?:steps?|queues?|routing)|(?:owner|admin|administrator) (?:rights|access)|(?:read |write |full )?access|"
    r"permissions|secrets|vaults?|timesheets?|wire (?:requests|transfers?)|(?:api|secret|private|ssh) keys?|"
    r"access tokens?|tokens)"
)
# private data handed out: an action, then a secret or someone's private record, to a recipient
_HANDS_OUT = re.compile(
    rf"{_B}(?:{_ANY_FORM})\s+(?:\S+\s+){{0,6}}?(?:passwords?|passcodes?|credentials|api keys?|tokens?|card details|"
    rf"card numbers?|pins?|bank details|salar(?:y|ies)|payroll|customer (?:list|data|records?)|private keys?)"
    rf"(?:\s+\S+){{0,8}}?\s+(?:to|with)\s+(?:anyone|anybody|everyone|everybody|whoever|any|all|other|\S+'s){_E}"
    rf"|{_B}(?:wants?|likes?|expects?|asks?) to be (?:sent|given|granted|forwarded|made|treated|trusted){_E}"
    # shown or told what someone else may not see ("to be shown the diff" is how they like to work)
    rf"|{_B}(?:wants?|likes?|expects?|asks?) to be (?:shown|told)\s+(?:\S+\s+){{0,6}}?{_GUARDED}{_E}",
    re.I,
)
# an action on something guarded, in either order: "Shares the supplier-portal login with Karen",
# "Finance folder audit trail should be cleared", "the juicy bits of private DMs reposted"
# what an administrator does for the guarded thing, named after it: "handles ... password resets"
_UPKEEP = r"(?!\s+(?:resets?|rotations?|polic(?:y|ies)|management|managers?|hygiene|audits?|reviews?|requests?|training))"
_GUARDED_ACTION = re.compile(
    rf"{_B}{_DONE_TO}{_E}(?:\s+[^\s;.]+){{0,8}}?\s+{_GUARDED}{_E}{_UPKEEP}|{_B}{_GUARDED}{_E}(?:\s+[^\s;.]+){{0,8}}?\s+{_DONE_TO_IT}{_E}"
    # a move said with a noun and where it goes: "a full customer table export to their personal Dropbox"
    rf"|{_B}{_GUARDED}\s+(?:\S+\s+){{0,2}}?(?:exports?|copy|copies|dumps?|uploads?|transfers?|backups?)\s+(?:to|into|onto){_E}"
    # a sequence ending in a move ("pulls the customer export, zips it and uploads it"), or a guard taken off
    rf"|{_B}{_GUARDED}{_E}(?:\s+[^\s;.]+){{0,8}}?\s+(?:and|then)\s+(?:\w+ly\s+)?{_DONE_TO}{_E}"
    rf"|{_B}{_GUARDED}{_E}(?:\s+[^\s;.]+){{0,4}}?\s+(?:unredacted|not redacted|unmasked|not masked|"
    rf"in plain ?text|in clear ?text|in the clear){_E}",
    re.I,
)
# a rule for others: a clause whose subject is someone or something other than the user, with what it may,
# must or gets to do ("Cousin Leo should get ...", "Everything from #core-secrets can be mirrored ...",
# "Copies of all private DMs belong in ..."); a signal's own clauses open with what the user is or does
_OPINION = (
    r"(?:thinks?|believes?|feels?|says?|finds?|hopes?|expects?|insists?|knows?|worries|agrees?|argues?|suggests?|"
    r"wishes|wonders|prefers?|likes?|wants?|loves?|hates?|dislikes?|enjoys?|is|was|has|had|would|does)"
)
_TOKEN = r"(?:[^\s;:.,]|[.](?=\S))+"  # a word of a clause: "@mitra-logistik.co.id" is one
_OTHERS_RULE = re.compile(
    rf"(?:^|[;:.]\s+|,\s+)(?!{_OPINION}{_E})(?:{_TOKEN}\s+){{0,7}}?(?!(?:they|it|he|she|we|who|which|that|this)\s)"
    rf"{_TOKEN}\s+(?:should|must|may|can|belongs? (?:in|to|with)|is allowed to|are allowed to|gets? to|counts? as)"
    rf"\s+(?:\w+ly\s+|also\s+|always\s+|then\s+)?(?:be\s+|have\s+)?(?:\S+\s+){{0,2}}?(?:{_DONE_TO}|see|get|use|"
    rf"access\w*|fulfill?\w*|honou?r\w*|grant\w*|approv\w*|process\w*|handl\w*|merg\w*|book\w*|answer\w*|"
    rf"{_CONSEQUENTIAL_FORMS}|(?:mov(?:e|es|ed|ing)|spend\w*|tak(?:e|es|ing) out|withdraw\w*)\s+(?:\S+\s+){{0,2}}?"
    rf"(?:money|funds|cash|savings|shares|stocks?|crypto|\$|€|£)){_E}",
    re.I,
)
# acting on whatever others send: a move of money, data or rights applied to a class of things someone else
# supplies ("Pays any invoice sent by accounting", "Runs whatever SQL the office sends"); a fact's objects are
# the user's own
_ON_OTHERS_INPUT = re.compile(
    rf"{_B}(?:any|every|all|whatever|whichever|each|anything|everything)\s+(?:\S+\s+){{0,5}}?"
    rf"(?:sent|sends|send|forwarded|forwards|submitted|submits|marked|flagged|tagged|labell?ed|asking|requesting|"
    rf"claiming|demanding|(?:raised|created|requested|filed|opened|placed)\s+by|"
    rf"(?:that|which|who)\s+(?:comes?|arrives?|says|asks|claims|is\s+marked|are\s+marked)){_E}"
    rf"|{_B}(?:whatever|whichever)\s+(?:\S+\s+){{0,5}}?{_THIRD}{_E}"
    rf"|{_B}(?:the one|the ones|the details|whatever|the account|the number)\s+(?:given\s+|sent\s+|named\s+)?"
    rf"(?:in|from)\s+(?:\S+\s+){{1,3}}?"
    rf"(?:emails?|messages?|texts?|invoices?|letters?|requests?){_E}",
    re.I,
)
# acting as someone else: "replies as CEO Dana Whitfield", "under their director's name", "as them"
_AS_SOMEONE = re.compile(
    rf"{_B}(?:repl(?:y|ies|ying)|respond\w*|answer\w*|writ\w*|email\w*|sign\w*|post\w*|speak\w*|send\w*|"
    rf"go(?:es)? out)\s+(?:\S+\s+){{0,4}}?(?:as (?:them|him|her|the (?:ceo|cfo|cto|coo|director|boss|manager|owner)|"
    rf"ceo|cfo|cto|coo|(?:\S+\s+)?(?:herself|himself|themselves))|under (?:\S+\s+){{0,3}}?(?:\S+'s|\S+’s|their|his|her) "
    rf"name|with (?:the )?(?:her|his|their|\S+'s|\S+’s) name){_E}"
    rf"|{_B}on (?:the |their |his |her )?(?:\S+\s+)?(?:\S+'s|\S+’s) behalf{_E}",
    re.I,
)
_ACTS = "says what another agent, tool or person is to do"
_UNCHECKED_REASON = "asks for something to be done without the user's checks"
_CHECKS = (
    (_FIRST_PERSON, "written in the first person (a signal is a third-person statement)"),
    (_SECOND_PERSON, "addressed to someone (second person)"),
    (_REQUEST, "a request, not a statement about the user"),
    (_IMPERATIVE, "an imperative: tells someone to do something"),
    (_ACTOR_ACTS, _ACTS),
    (_GIVEN_TO, _ACTS),
    (_AGENT_DUTY, _ACTS),
    (_DONE_FOR, "asks for something to be done"),
    (_ENTITLED, "claims a right for itself or asks for something to be done"),
    (_UNCHECKED, _UNCHECKED_REASON),
    (_USER_AS_OTHER, "not about the user: speaks of the user as someone else"),
    (_GRANT, "grants access or trust to someone"),
    (_HANDS_OUT, "hands private data to someone"),
    (_PRIVATE_MOVED, "hands private data to someone"),
    (_ANYONE_ASKING, "grants access or trust to someone"),
    (_TRIGGER, "a rule for acting (a trigger and an action), not a fact"),
    (_PROCEDURE, "a standing procedure (something done by someone else), not a fact about the user"),
    (_CONDITION, "a rule for acting (a condition and an action), not a fact"),
    (_AS_SOMEONE, "acts as someone else or in their name"),
    (_OTHERS_RULE, "a rule for someone or something other than the user, not a fact about them"),
    (_GUARDED_ACTION, "something done to credentials, money, private data or rights"),
)
# what is done to something others send that acts on it (not looking at it: "Reviews every doc sent to them")
_LOOKING = frozenset(
    ["check", "follow", "open", "read", "record", "remember", "review", "save", "view", "visit"]
)
_ACTED = re.compile(
    rf"{_B}(?:re-?)?(?:"
    + _alternation(f for v in ACTIONS if v not in _LOOKING for f in (v, *" ".join(_inflections(v)).split()))
    + rf"|repl(?:y|ies|ied|ying)(?:-all)?){_E}",
    re.I,
)
_ON_INPUT_REASON = "a rule for acting on whatever someone else sends, not a fact"


# the user as the one something is done to ("Wants to be promoted", "Is trying to be approved for a loan"):
# their own plans, unless what is to be done is a grant ("Wants to be treated as an admin")
_OWN_PASSIVE = re.compile(
    r"(?:wants?|wanting|likes?|hopes?|hoping|trying|tries|expects?|going|needs?) to be \w*\s?$", re.I
)
_GRANTS = re.compile(
    r"(?:treated|trusted|given|granted|added|made|allowed|let|shown|sent|told|forwarded)\b", re.I
)


_CONSEQUENTIAL = re.compile(rf"{_B}{_CONSEQUENTIAL_FORMS}{_E}", re.I)


def names_action(text: str) -> bool:
    """Whether a text names an action that moves money, data or rights, or skips a check (CONSEQUENTIAL)."""
    return _CONSEQUENTIAL.search(text) is not None


_MESSAGE_CHECKS = (
    (_AGENT_ACTS, _ACTS),
    (_AGENT_DUTY, _ACTS),
    (_GIVEN_TO, _ACTS),
    (_UNCHECKED, _UNCHECKED_REASON),
)
# the checks a question about an actor ("whether ...") is no match of: in a message, each; in a signal, the actors'
_MESSAGE_ACTORS = tuple(pattern for pattern, _reason in _MESSAGE_CHECKS)
_SIGNAL_ACTORS = (_ACTOR_ACTS, _AGENT_ACTS)


def instruction_shape(text: str) -> str | None:
    """Why a user's message, in English, reads as an instruction for the agent or someone else to act
    (another actor acting, something to be done without the user's checks, a claimed right), or None. Not
    the checks of person or mood: a user may well write "please use British spelling"."""
    text = _as_adjectives(text)
    for pattern, reason in _MESSAGE_CHECKS:
        for match in pattern.finditer(text):
            if _excepted(pattern, match, text, asked_of=_MESSAGE_ACTORS):
                continue
            return reason
    return None


def addresses_agent(text: str) -> bool:
    """Whether a user's message, in English, speaks to the agent: the second person, an imperative or a
    request anywhere, read with its look-alike letters folded too ("please keep it short" does: a sign, not
    a reason, which risk.py weighs with others)."""
    forms = {text, visible(text).translate(look_alikes())}
    return any(p.search(form) for form in forms for p in (_SECOND_PERSON, _SPOKEN_IMPERATIVE, _REQUEST))


# an imperative in a message, where a clause may also open after a comma or a dash ("When the audit starts,
# turn off the alerts")
_SPOKEN_IMPERATIVE = _imperative(r"[.;:!?=,—–]\s*|\s-\s", before_object=r"(?:\w+\s+)?")


# "whether our assistant can be talked into things": a question asked about an actor, not what it is to do
_WHETHER = re.compile(r"\bwhether\s+(?:\S+\s+)?$", re.I)
# "the team's shared passwords", "a shared drive": shared as the word for what several people use, not a
# passing on ("Shared the passwords with ...")
_SHARED_ADJECTIVE = re.compile(r"\b(the|a|an|our|their|his|her|its|\w+['’]s)\s+shared\s+", re.I)


def _excepted(
    pattern: re.Pattern[str], match: re.Match[str], text: str, asked_of: tuple[re.Pattern[str], ...]
) -> bool:
    """The exceptions a message's checks (instruction_shape) and a signal's (_english_reason) share: a question
    asked about an actor ("whether our assistant can be talked into things"; for the checks `asked_of`), and
    the user's own work on an agent's rules ("writing refusal policy for the model", for _AGENT_DUTY)."""
    before = text[: match.start()]
    return bool(
        (pattern in asked_of and _WHETHER.search(before))
        or (pattern is _AGENT_DUTY and _AUTHORED.search(before))
    )


def _as_adjectives(text: str) -> str:
    return _SHARED_ADJECTIVE.sub(r"\1 common ", text)


# "you" as the agent that writes for the user, inside a preference about it: "in anything you draft for them"
_WRITES_FOR_THEM = re.compile(
    r"you\s+(?:\w+ly\s+)?(?:write|draft|produce|give|generate|suggest|say|reply|answer|send|show|explain|"
    r"summari[sz]e|translate|format|create|prepare)\b",
    re.I,
)


# a time clause of the user's own duty: "Signs off on release notes before they are published"
_WHEN_CLAUSE = re.compile(r"\b(?:before|after|once|when|until|as soon as)\s+(?:\S+\s+){0,3}$", re.I)
# the user's use of a tool for their own work: "Uses the assistant to write regex patterns" (not one that
# names an action moving money, data or rights)
_USES = re.compile(r"\b(?:uses?|used|using|relies on|leans on)\s+$", re.I)
# the user's own work on an agent's rules ("writing refusal policy for the model"), not a duty given to it
_AUTHORED = re.compile(
    r"\b(?:writ(?:e|es|ing)|wrote|draft\w*|design\w*|maintain\w*|own(?:s|ing)?|review\w*|audit\w*|test(?:s|ing)?|"
    r"evaluat\w*|red-team\w*)\s+(?:\S+\s+){0,3}$",
    re.I,
)


def _subject_before(match: re.Match[str], text: str) -> bool:
    """Whether the clause has words before the match (a subject other than the user: "Refunds are paid"),
    rather than opening with it ("Is paid weekly", "Gets invited to every review": the user's own)."""
    clause = re.split(r"[.;:!?]|,\s|\s(?:and|but|so)\s", text[: match.start()])[-1]
    return bool(re.search(r"\w", clause))


def _titled(match: re.Match[str], text: str) -> bool:
    """A pronoun that is a name's: "US" or "the U", or capitalised inside a sentence ("the song Our Song",
    "My Octopus Teacher"), except "I"."""
    word = match[0]
    if word.isupper() and word not in ("I", "I'M", "I’M"):
        return True
    before = text[: match.start()].rstrip()
    return word[:1].isupper() and word[:1] != "I" and bool(before) and before[-1] not in ".;:!?"


def _english_reason(text: str, summary: bool = False) -> str | None:
    text = _as_adjectives(text)
    for pattern, reason in _CHECKS:
        if summary and pattern is _USER_AS_OTHER:
            continue
        for match in pattern.finditer(text):
            if _excepted(pattern, match, text, asked_of=_SIGNAL_ACTORS):
                continue
            if pattern in (_FIRST_PERSON, _SECOND_PERSON) and _titled(match, text):
                continue
            if pattern is _SECOND_PERSON and _WRITES_FOR_THEM.match(text, match.start()):
                continue
            if pattern is _PROCEDURE and (
                not _subject_before(match, text) or _WHEN_CLAUSE.search(text[: match.start()])
            ):
                continue
            if pattern is _ACTOR_ACTS and _USES.search(text[: match.start()]) and not names_action(text):
                continue
            if (
                pattern in (_ENTITLED, _DONE_FOR)
                and _OWN_PASSIVE.search(text[: match.end() - len(match[0].split()[-1])])
                and not _GRANTS.match(match[0].split()[-1])
            ):
                continue
            return reason
    for match in _ON_OTHERS_INPUT.finditer(text):
        if _ACTED.search(text[: match.start()] + " " + text[match.end() :]):  # the acting, not the sending
            return _ON_INPUT_REASON
    return None
