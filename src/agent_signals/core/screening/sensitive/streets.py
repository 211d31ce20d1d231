"""Street addresses by their structure, in any script: a house number beside a street-type word
(street_words.py, over twenty-five languages) and a street name, in the order each language writes
them; or a postal code of a distinctive shape beside a place name. No phone number is needed nearby.

A Latin, Greek or Cyrillic street name must be capitalised (so "via 2 emails" and "on the road 3 hours"
are not addresses); the number must not count something else ("30 minutes", "3 km", "2019").
"""

from __future__ import annotations

from collections.abc import Iterator

import regex as re  # `re` has no word character for a combining mark (Thai, Hindi)

from agent_signals.core.screening.sensitive.finding import Finding
from agent_signals.core.screening.sensitive.street_words import (
    COMPOUND_SUFFIXES,
    HOUSE,
    KOREAN_SUFFIXES,
    LOCALITY,
    NAME_FIRST,
    NOT_HOUSE_NUMBER,
    NUMBER_FIRST,
    NUMBER_MARK,
    WORD_FIRST,
)

_UPPER = r"A-ZÀ-ÖØ-ÞĀ-ŽƀА-ЯЁІЇЄҐΑ-ΩΆ-Ώİ"
_CASED = rf"a-zß-öø-ÿā-žа-яёіїєґα-ωά-ώ{_UPPER}"
# A word of a name: capitalised in a cased script, any word of a script without case; no digit.
_NAME_WORD = rf"(?:[{_UPPER}][\w'’.-]*|(?![{_CASED}\d])[^\W\d_][\w'’.-]*)"
_NAME = rf"{_NAME_WORD}(?:[\s،]+(?:(?:de|del|de la|della|di|do|da|dos|das|al|el|ul\.|[{_CASED}]{{1,3}})\s+)?{_NAME_WORD}){{0,3}}?"
_NUMBER = r"(?P<number>\d{1,5}(?:\s?[A-Za-z](?![\w]))?(?:[/-]\d{1,4}[A-Za-z]?)?)"
_AFTER_NUMBER = rf"(?![\d.,:]?\d)(?!\s?(?:{NOT_HOUSE_NUMBER}))"
_MARK = rf"(?:(?:{NUMBER_MARK})\s*)?"
_NOT_YEAR = r"(?!(?:1[89]|20)\d\d(?!\d))"
_EDGE = r"(?<![\w.])"

_PATTERNS = tuple(
    re.compile(p, re.I)
    for p in (
        # "Calle Mayor 3", "ul. Długa 5", "Jl. Sudirman No. 5", "רחוב הרצל 12"
        rf"{_EDGE}(?:{WORD_FIRST})\s*(?-i:{_NAME})[,،]?\s*{_MARK}{_NOT_YEAR}{_NUMBER}{_AFTER_NUMBER}",
        # "Atatürk Caddesi No: 12", "Andrássy út 12", "गांधी मार्ग 12"
        rf"{_EDGE}(?-i:{_NAME})\s+(?:{NAME_FIRST})(?!\w),?\s*{_MARK}{_NOT_YEAR}{_NUMBER}{_AFTER_NUMBER}",
        # "Drottninggatan 5", "Mannerheimintie 12", "Brīvības iela 5"
        rf"{_EDGE}(?-i:[{_UPPER}])\w*(?:{COMPOUND_SUFFIXES})(?!\w)\s*{_MARK}{_NOT_YEAR}{_NUMBER}{_AFTER_NUMBER}",
        # "테헤란로 123", "세종대로 209", "xx로12길 34"
        rf"[가-힣]{{1,8}}(?:{KOREAN_SUFFIXES})(?:\s?\d{{1,3}}(?:{KOREAN_SUFFIXES}))?\s?{_NOT_YEAR}{_NUMBER}{_AFTER_NUMBER}",
        # "12 đường Lê Lợi", "123 ถนนสุขุมวิท", "12 شارع التحرير", "27 ngõ 94 Nguyễn Khuyến"
        rf"{_EDGE}{_MARK}\d{{1,5}}(?:/\d{{1,4}})?,?\s*(?:{NUMBER_FIRST})\s*(?:\d{{1,5}}\s+)?(?-i:{_NAME_WORD})",
        # "House no. 318, Sector 21C", "मकान नंबर 214, सेक्टर 15-ए"
        rf"{_EDGE}(?:{HOUSE})\s*(?:{NUMBER_MARK})?\s*\d{{1,5}}[\w-]{{0,3}},?\s*(?:{LOCALITY})\s*[\w-]{{1,5}}",
        # "漕溪北路88弄5号", "南京东路100号", "中山路二段5巷"
        r"[\u4e00-\u9fff]{1,10}(?:路|街|大道|巷|弄|胡同|段)\s*\d{1,5}\s*(?:号|號|弄|巷|楼|樓|室|栋|棟)",
        # "東京都渋谷区神南1-2-3"
        r"[都道府県市区町村]\S{0,10}?\d{1,4}-\d{1,4}(?:-\d{1,4})?",
    )
)
# Postal codes of a distinctive shape with the place after them: "00-950 Warszawa", "1100-148 Lisboa",
# "111 22 Stockholm", "1012 AB Amsterdam", "〒100-0001", "CA 94105"; a plain code of 4 to 6 digits
# only after a comma that follows a number on the same line ("Lindenstraße 45, 10969 Berlin").
_PLACE = rf"(?-i:[{_UPPER}][{_CASED}]+)"
_POSTAL = (
    re.compile(rf"{_EDGE}(?:\d{{2}}-\d{{3}}|\d{{4}}-\d{{3}}|\d{{3}} \d{{2}}|\d{{4}} ?[A-Z]{{2}})\s+{_PLACE}"),
    re.compile(r"〒\s?\d{3}-?\d{4}"),
    re.compile(
        r"\b(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI|S[CD]|T[NX]|UT|V[AT]|W[AIVY]) \d{5}(?:-\d{4})?\b"
    ),
)
_PLAIN_POSTAL = re.compile(
    rf"\d[^\n\d]{{0,60}}?,\s*(?P<code>[1-9]\d{{3,5}}\s+{_PLACE})|,\s*(?P<place>{_PLACE}(?:\s+{_PLACE})?)\s*[-–]?\s*[1-9]\d{{5}}(?!\d)"
)
_STREET_HINT = re.compile(rf"\d|{NUMBER_FIRST}", re.I)


def find_street_addresses(text: str) -> Iterator[Finding]:
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            yield Finding("address", match.start(), match.end())
    for pattern in _POSTAL:
        for match in pattern.finditer(text):
            yield Finding("address", match.start(), match.end())
    for match in _PLAIN_POSTAL.finditer(text):
        group = "code" if match["code"] else "place"
        yield Finding("address", match.start(group), match.end())
