"""Phone numbers: phonenumbers for digits, and digits read out as sensitive_words."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import phonenumbers

from agent_signals.core.screening import sensitive_words
from agent_signals.core.screening.sensitive.finding import LETTER, Finding

# ---------------------------------------------------------------------------------------------------
# Phone numbers: phonenumbers, and digits read out as words

# A national number is only recognised with its country's conventions, so the matcher runs once per
# country of the languages read here (an international number, +44 ..., is found by any of them).
# Leniency VALID: the number must be a real, assignable number of its region; POSSIBLE also takes
# years, version numbers and dates ("2019", "3.11.4", "1988-03-12"), STRICT_GROUPING misses numbers
# written without their usual grouping ("13812345678").
PHONE_REGIONS = ("US", "GB", "FR", "DE", "ES", "IT", "PT", "BR", "NL", "RU", "CN", "JP")
_PHONE_LENIENCY = phonenumbers.Leniency.VALID
_MIN_SPOKEN_DIGITS = 7  # the shortest local number


# Seven digits or more with at most a few separators between each two: the shape of any phone number.
_PHONE_SHAPED = re.compile(r"\d(?:[\s().\-–/]{0,3}\d){6,}")
_PHONE_CUE = re.compile(rf"(?<![{LETTER}])(?:{sensitive_words.PHONE_CUES})(?![{LETTER}])", re.I)
_MIN_POSSIBLE_DIGITS = 9  # a number that is only possible: the shortest national number with its code
_CUE_REACH = 40  # characters from a cue ("my mobile is") to the number it announces


def find_phones(text: str) -> Iterable[Finding]:
    shaped = [m.span() for m in _PHONE_SHAPED.finditer(text)]
    if not shaped:  # the matchers cost about 0.1 ms a region
        return ()
    spans = set()
    for region in PHONE_REGIONS:
        for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=_PHONE_LENIENCY):
            spans.add((match.start, match.end))
    # A number written in international form, or one the text calls a phone number, need only be
    # possible: the ranges kept for fiction and examples (+44 7700 900123) are not "valid".
    if all(any(s < end and start < e for s, e in spans) for start, end in shaped):
        return (Finding("phone", start, end) for start, end in spans)
    cues = [m.end() for m in _PHONE_CUE.finditer(text)]
    for region in (None, *PHONE_REGIONS) if cues else (None,):
        for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.POSSIBLE):
            announced = any(0 <= match.start - cue <= _CUE_REACH for cue in cues)
            digits = sum(ch.isdigit() for ch in match.raw_string)
            if (match.raw_string.startswith("+") or announced) and digits >= _MIN_POSSIBLE_DIGITS:
                spans.add((match.start, match.end))
    return (Finding("phone", start, end) for start, end in spans)


_TOKEN = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*|\d{1,4}")
_BETWEEN_NUMBERS = re.compile(r"[\s,.\-–/()]*")
_NUMBER_PIECE = "|".join(re.escape(w) for w in sorted(sensitive_words.NUMBER_WORDS, key=len, reverse=True))
_JOINER_PIECE = "|".join(re.escape(w) for w in sensitive_words.NUMBER_JOINERS)
_COMPOUND = re.compile(rf"(?:{_NUMBER_PIECE})(?:-?(?:{_JOINER_PIECE})?-?(?:{_NUMBER_PIECE}))*")
_PIECE = re.compile(_NUMBER_PIECE)
_CJK_DIGITS = re.compile(
    rf"[{sensitive_words.CJK_DIGITS}](?:[\s\-]?[{sensitive_words.CJK_DIGITS}]){{{_MIN_SPOKEN_DIGITS - 1},}}"
)


def _place(word: str) -> int | None:
    """The place of a number word's highest digit (0 units, 1 tens, 2 hundreds), compounds included
    ("trente-quatre", "dreiundzwanzig"); None for any other word."""
    if word in sensitive_words.NUMBER_WORDS:
        return sensitive_words.NUMBER_WORDS[word]
    if _COMPOUND.fullmatch(word):
        return max(sensitive_words.NUMBER_WORDS.get(piece, 0) for piece in _PIECE.findall(word))
    return None


def find_spoken_phones(text: str) -> Iterator[Finding]:
    """Seven or more digits read out in words, one by one or in groups ("five five five, one two
    three four", "zéro six, douze, trente-quatre"), possibly mixed with figures; and runs of Chinese
    or Japanese digit characters."""
    run: list[tuple[re.Match[str], str]] = []  # (token, "number" | "figure" | "repeat" | "joiner")
    for token in [*_TOKEN.finditer(text), None]:
        role = _number_role(token[0].lower()) if token else None
        joined = (
            bool(run)
            and token is not None
            and _BETWEEN_NUMBERS.fullmatch(text, run[-1][0].end(), token.start())
        )
        if run and not (role and joined):
            while run and run[-1][1] == "joiner":
                run.pop()
            if _spoken_digits(run) >= _MIN_SPOKEN_DIGITS and sum(r == "number" for _, r in run) >= 3:
                yield Finding("phone", run[0][0].start(), run[-1][0].end())
            run = []
        if role and (run or role != "joiner"):
            run.append((token, role))
    for match in _CJK_DIGITS.finditer(text):
        yield Finding("phone", match.start(), match.end())


def _number_role(word: str) -> str | None:
    if word.isdigit():
        return "figure"
    if word in sensitive_words.DIGIT_REPEATS:
        return "repeat"
    if word in sensitive_words.NUMBER_JOINERS:
        return "joiner"
    return "number" if _place(word) is not None else None


def _spoken_digits(run: list[tuple[re.Match[str], str]]) -> int:
    """How many digits a run of number words says: a word starts a new group unless it is of a lower
    place than the word before ("сто двадцать три" is one group of three digits)."""
    count, previous, repeat = 0, None, 1
    for token, role in run:
        word = token[0].lower()
        if role == "figure":
            count, previous = count + len(word), None
        elif role == "repeat":
            repeat = sensitive_words.DIGIT_REPEATS[word]
        elif role == "number":
            place = _place(word)
            if previous is None or place >= previous:
                count += (place + 1) * repeat
            previous, repeat = place, 1
    return count
