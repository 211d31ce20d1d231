"""An address stated after the words that announce one, in any language: "my address is ...", "home
address: ...", "I live at ...", "Lives at ...", "Η διεύθυνσή μου είναι ...", "ghar ka address hai: ..."
(the cue tables of cues.py). The structural detectors (streets.py, contacts.py) need a street-type word
beside the house number; an address announced as one needs none ("Αριστοτέλους 35", "flat 302, Sai
Krupa Apartments").

The value runs from the cue (and a copula or a colon after it) to the end of its clause (a full stop,
"!", "?", ";", a new line, a word that opens another clause: "with", "since"; commas stay inside,
addresses have them), at most 100 characters, and counts only with a house number or a postal code
near its start: a number that counts nothing ("3 days", "2019", "3 different places": a lower-case
word after it) and is not an IP address, a time, an age or a date.
So "my address is on the invoice" and "lives at home with 2 cats" are not addresses.
"""

from __future__ import annotations

from collections.abc import Iterator

import regex as re  # `re` has no word character for a combining mark (Thai, Hindi)

from agent_signals.core.screening.sensitive.cues import ADDRESS_LABEL_WORDS, ADDRESS_WORDS, cue
from agent_signals.core.screening.sensitive.finding import Finding
from agent_signals.core.screening.sensitive.street_words import NOT_HOUSE_NUMBER

_CUE = cue(ADDRESS_WORDS)
_LABEL = cue(ADDRESS_LABEL_WORDS)
# A copula or a mark between the cue and the value: "is", ":", "hai:", "είναι", "lautet", "คือ", "는".
_COPULA = (
    r"is|was|are|est|c['’]est|ist|lautet|es|era|è|é|fica|jest|to|это|је|είναι|ειναι|d[ıi]r|är|er|on|je|van|este"
    r"|l[àa]|adalah|ialah|ay|היא|הוא|هو|هي|است|है|hai|hei"
)
_AFTER_CUE = re.compile(
    rf"(?:(?P<particle>คือ|[는은가は是为為])|[ \t]*(?P<copula>(?<![^\W\d_])(?:{_COPULA})(?![^\W\d_])))?"
    r"[ \t]*(?P<mark>[:：=\-–—]+)?[ \t]*",
    re.I,
)
# Not a postal address: an e-mail, IP, MAC or wallet address ("IP address is 10.0.0.1", "이메일 주소는").
_OTHER_ADDRESS_BEFORE = re.compile(
    r"(?<![^\W\d_])(?:e-?mail|mail|ip|ipv[46]|mac|web|url|wallet|bitcoin|btc|eth|server|memory|이메일|메일|邮箱|邮件|郵件|電郵)[\s-]*$",
    re.I,
)
_OTHER_ADDRESS_AFTER = re.compile(
    r"\s*(?:e-?mail|mail|ip\b|mac\b|de correo|electr[óo]nic|электронн|почт|електронн|courriel|web\b|url\b)",
    re.I,
)
_MAX_VALUE = 100  # characters of a value
_NUMBER_WITHIN = 50  # characters from the start of the value to its house number or postal code
# The end of a clause: "!", "?", ";", a new line, a Chinese comma or full stop, a full stop (not one of
# an abbreviation or a number, "ul.", "No.", "m.", "3.", unless a sentence follows: "Rd. Call me").
_CLAUSE_END = re.compile(
    r"[!?;\n。！？；，]|(?:(?<!(?:^|\W)[^\W\d_]{1,3}|\d)|(?<=(?:^|\W)[A-Z][^\W\d_]{2}))\.(?!\S)(?!\s+\d)"
    r"|(?<!\d)\.(?=\s+\p{Lu}[^\W\d_]*\s+\p{Ll})"
)
# A word that starts a new clause inside a sentence: "Lives at 12 Oak Lane with 2 dogs".
_CLAUSE_WORD = re.compile(
    r"\s(?:with|but|since|because|who|which|while|until|seit|weil|depuis|parce que|desde|porque|perch[ée]|sedan|eftersom)\s",
    re.I,
)
_RUN = re.compile(r"(?<![A-Za-z0-9$€£¥₹])\d+(?:[./-]\d+)*")
_YEAR = re.compile(r"(?:1[89]|20)\d\d")
_DATE = re.compile(
    r"\d{1,2}[./]\d{1,2}[./](?:19|20)?\d\d|\d{1,2}-\d{1,2}-(?:19|20)\d\d|(?:19|20)\d\d[./-]\d{1,2}(?:[./-]\d{1,2})?"
)
# A number after one of these is an age, a time or a count: "still lives at home at 19".
_NOT_HOUSE_BEFORE = re.compile(
    r"(?<![^\W\d_])(?:at|age|aged|since|for|by|until|till|from|around|about|only|just|over|under|after|before)\s*$",
    re.I,
)
_NOT_HOUSE = re.compile(rf"\s?(?:{NOT_HOUSE_NUMBER})", re.I)
# A letter after a house number, a storey, a Roman-numeral floor: "221B", "2ºB", "141-II".
_SUFFIX = re.compile(r"(?:[A-Za-z]{1,2}|[ºª°][A-Za-z]?|-[IVXivx]{1,4})(?![^\W\d_])")


def find_stated_addresses(text: str) -> Iterator[Finding]:
    spans = set()
    for pattern, needs_mark in ((_CUE, False), (_LABEL, True)):
        for match in pattern.finditer(text):
            if _OTHER_ADDRESS_BEFORE.search(text, max(0, match.start() - 20), match.start()):
                continue
            after = _AFTER_CUE.match(text, match.end())
            if needs_mark and not (after["copula"] or after["mark"] or after["particle"]):
                continue
            start = after.end()
            if _OTHER_ADDRESS_AFTER.match(text, start):
                continue
            end = _value_end(text, start)
            if end > start and (start, end) not in spans and _has_house_number(text[start:end]):
                spans.add((start, end))
                yield Finding("address", start, end)


def _value_end(text: str, start: int) -> int:
    limit = min(len(text), start + _MAX_VALUE)
    stop = _CLAUSE_END.search(text, start, limit)
    end = stop.start() if stop else limit
    word = _CLAUSE_WORD.search(text, start, end)
    end = word.start() if word else end
    while end > start and (text[end - 1].isspace() or text[end - 1] in ".,،-–—:"):
        end -= 1
    return end


def _has_house_number(value: str) -> bool:
    """A house number or a postal code near the start of the value: a number that counts nothing."""
    for run in _RUN.finditer(value, 0, min(len(value), _NUMBER_WITHIN + 10)):
        if run.start() > _NUMBER_WITHIN:
            break
        number = run[0]
        if _YEAR.fullmatch(number) or _DATE.fullmatch(number) or number.count(".") >= 2:
            continue
        rest = value[run.end() :]
        if _NOT_HOUSE.match(rest) or _NOT_HOUSE_BEFORE.search(value, 0, run.start()):
            continue
        suffix = _SUFFIX.match(rest)
        if suffix:
            rest = rest[suffix.end() :]
        if _ends_a_number(rest):
            return True
    return False


def _ends_a_number(rest: str) -> bool:
    """What follows a house number or postal code: the end, a comma, a slash, a dash, another number, a
    capitalised word ("221 Baker", "69007 Lyon") or a word of a script without case ("12길", "59/12 ซอย")."""
    stripped = rest.lstrip(" \t")
    if not stripped:
        return True
    first = stripped[0]
    if first in ",،/-–)":
        return True
    if first.isdigit():
        return len(stripped) < len(rest)  # "302 5" is two numbers; "302.5" is one
    return first.isalpha() and not first.islower()
