"""E-mail addresses (plain and spelled out), street addresses and dates of birth."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from babel import Locale

from agent_signals.core.screening import sensitive_words
from agent_signals.core.screening.sensitive.finding import LETTER, Finding

# ---------------------------------------------------------------------------------------------------
# E-mail addresses, plain and spelled out

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_BRACKETED = r"[\[({{<]\s*(?:{})\s*[\])}}>]"
_AT = rf"\s*(?:{_BRACKETED.format(sensitive_words.EMAIL_AT_WORDS + '|@')}|＠)\s*|\s+(?P<at_word>{sensitive_words.EMAIL_AT_WORDS})\s+"
_DOT = rf"\s*{_BRACKETED.format(sensitive_words.EMAIL_DOT_WORDS + '|[.]')}\s*|\s+(?:{sensitive_words.EMAIL_DOT_WORDS})\s+|[.．]"
_SPELLED_EMAIL = re.compile(
    rf"(?<![\w.@])[\w+-]+(?:(?:{_DOT})[\w+-]+)*(?P<at>{_AT})(?P<domain>[\w-]+(?:(?:{_DOT})[\w-]+)*?(?:{_DOT})[A-Za-z]{{2,12}})(?![\w@])",
    re.I,
)
_SPELLED_DOT = re.compile(rf"\s(?P<word>{sensitive_words.EMAIL_DOT_WORDS})\s", re.I)
_EMAIL_CUE = re.compile(rf"(?:{sensitive_words.EMAIL_CUES})", re.I)


def find_emails(text: str) -> Iterator[Finding]:
    for match in _EMAIL.finditer(text):
        yield Finding("email", match.start(), match.end())
    for match in _SPELLED_EMAIL.finditer(text):
        if match["at_word"] and not _spelled_address(match, text):
            continue
        yield Finding("email", match.start(), match.end())


def _spelled_address(match: re.Match[str], text: str) -> bool:
    """An "at" written as a word makes an address with the same language's "dot" ("jane at example
    dot com"), or with real dots after a word about mail ("e-mail: jane at example.com"); "works at
    example.com" is a workplace, "at some point in the past" a phrase."""
    dots = [d.lower() for d in _SPELLED_DOT.findall(match["domain"])]
    if dots:
        return set(dots) <= set(sensitive_words.EMAIL_SPELLINGS[match["at_word"].lower()])
    return _EMAIL_CUE.search(text, max(0, match.start() - 40), match.start()) is not None


# ---------------------------------------------------------------------------------------------------
# Street addresses

_NOT_YEAR = r"(?!(?:19|20)\d\d\b)"
_ADDRESSES = (
    # "221B Baker Street", "10 Downing St"
    re.compile(
        rf"\b\d{{1,5}}[A-Za-z]?,?\s+(?:[A-Z][\w'’.-]*\s+){{1,3}}(?:{sensitive_words.STREET_SUFFIXES_EN})\b\.?"
    ),
    # "I live at 12 main street" (lower case only after a word about living there)
    re.compile(
        r"\b(?:live[sd]?|living|stay(?:s|ing)?|address(?: is)?|moved|home is|house is|flat is)\s+(?:at|on|in|to|is|:)?\s*"
        rf"(?:the\s+)?(?P<address>\d{{1,5}}[a-z]?,?\s+(?:[\w'’.-]+\s+){{1,3}}(?:{sensitive_words.STREET_SUFFIXES_EN})\b\.?)",
        re.I,
    ),
    # "42 rue de la Paix", "12 bis avenue Foch", "3 place de la République"
    re.compile(
        rf"(?<![\d])\d{{1,4}}(?:\s?(?:bis|ter))?,?\s+(?:(?:{sensitive_words.STREET_WORDS_NUMBER_FIRST})\s+(?:de\s+la\s+|d[eu]s?\s+|l['’]\s*)?[\w'’-]+"
        rf"|(?:{sensitive_words.STREET_WORDS_NUMBER_FIRST_NAMED})\s+(?:de\s+la\s+|d[eu]s?\s+|l['’]\s*)?(?-i:[A-ZÀ-Ý])[\w'’-]*)",
        re.I,
    ),
    # "Calle Mayor 3", "Via Giuseppe Garibaldi 12", "Rua Augusta, 100", "улица Ленина, д. 5"
    re.compile(
        rf"(?<![{LETTER}])(?:{sensitive_words.STREET_WORDS_NUMBER_LAST})\s+(?:(?:de|del|de la|della|dei|delle|do|da|dos|das|di|los|las)\s+)*"
        rf"(?-i:[A-ZÁÉÍÓÚÀÈÌÒÙÂÊÔÃÕÇА-ЯЁ])[\w'’.-]*(?:\s+[\w'’.-]+){{0,3}}?,?\s*(?:n[º°o.]?\s*|д\.\s*|дом\s*)?{_NOT_YEAR}\d{{1,4}}[A-Za-z]?(?![\d.,:]?\d)",
        re.I,
    ),
    # "Hauptstraße 5", "Kalverstraat 12", "Berliner Straße 5"
    re.compile(
        rf"\b[A-ZÄÖÜ][\wäöüß-]*(?:{sensitive_words.STREET_SUFFIXES_COMPOUND}|\s+(?:{sensitive_words.STREET_WORDS_AFTER_ADJECTIVE}))"
        rf"\s*{_NOT_YEAR}\d{{1,4}}(?:\s?[a-z]\b)?(?![\w.,]\d)"
    ),
    # a full UK postcode, "W11 2ES" (the inward code's letters exclude C, I, K, M, O and V)
    re.compile(r"\b(?:[A-Z]{1,2}\d[A-Z\d]?|GIR) ?\d[ABD-HJLNP-UW-Z]{2}\b"),
    # "南京路123号", "1丁目2番3号", "3番地"
    re.compile(rf"[\u4e00-\u9fff]{{1,10}}(?:{sensitive_words.CJK_STREET})\s*\d{{1,5}}\s*[号號]"),
    re.compile(r"\d{1,4}\s*丁目(?:\s*\d{1,4}\s*番地?)?(?:\s*\d{1,4}\s*号)?|\d{1,4}\s*番地"),
)


def find_addresses(text: str) -> Iterator[Finding]:
    for pattern in _ADDRESSES:
        for match in pattern.finditer(text):
            group = "address" if "address" in pattern.groupindex else 0
            yield Finding("address", match.start(group), match.end(group))


# ---------------------------------------------------------------------------------------------------
# Dates of birth


@cache
def _month_names() -> str:
    """Month names (wide and abbreviated, in running text and alone) of every language read here."""
    names = set()
    for language in sensitive_words.LANGUAGES:
        months = Locale.parse(language).months
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                names.update(name.rstrip(".").lower() for name in months[context][width].values())
    names = {n for n in names if not n[0].isdigit()}  # "3月": the CJK forms have their own pattern
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


_DAY = r"\d{1,2}(?:st|nd|rd|th|er|e|\.|º|°)?"
_YEAR = r"\d{4}|'\d{2}"


@cache
def _date_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    months = _month_names()
    date = "|".join(
        [
            r"\d{1,2}(?P<sep>[./-])\d{1,2}(?P=sep)(?:\d{4}|\d{2})(?!\d)",  # 12/03/1988, 12.03.88
            r"\d{1,2}/\d{1,2}(?![/\d])",  # 03/04
            r"\d{4}[./-]\d{1,2}[./-]\d{1,2}(?!\d)",  # 1988-03-12
            rf"(?:the\s+)?{_DAY}\s*(?:of\s+|de\s+)?(?:{months})\.?(?![{LETTER}])(?:,?\s*(?:de\s+)?(?:{_YEAR}))?",
            rf"(?<![{LETTER}])(?:{months})\.?\s+{_DAY}(?!\d)(?:,?\s*(?:{_YEAR}))?",
            r"(?:\d{4}\s*年\s*)?\d{1,2}\s*月\s*\d{1,2}\s*[日号號]?",  # 1988年3月12日
            r"[一二三四五六七八九十]{1,3}月[一二三四五六七八九十]{1,3}[日号號]",
        ]
    )
    after_trigger = re.compile(
        rf"(?<![{LETTER}])(?:{sensitive_words.BIRTH_TRIGGERS})(?![{LETTER}])[^\n.,!?。，;]{{0,30}}?(?P<date>{date})",
        re.I,
    )
    before_trigger = re.compile(rf"(?P<date>{date})\s*(?:{sensitive_words.BIRTH_AFTER})", re.I)
    return after_trigger, before_trigger


def find_birth_dates(text: str) -> Iterator[Finding]:
    for pattern in _date_patterns():
        for match in pattern.finditer(text):
            yield Finding("date_of_birth", match.start("date"), match.end("date"))
