"""Identifiers of any country, all kind `national_id`:

- a run of 9 or more digits, however grouped (spaces, dots, dashes, slashes), that is not a date, a
  year, a list of small numbers, a version or an address, nor a quantity a fact needs (money, a count
  with thousands separators, a measurement with its unit, a range). Aadhaar, RRN, PESEL, SIN, Thai and
  Turkish ids, AMKA, personnummer and Teudat Zehut all have 9 digits or more.
- a token of letters and digits (6 to 20 characters, at least 4 digits) that a module of python-stdnum's
  whole catalogue validates (every country module with `is_valid`, over 200: Indian PAN, Spanish DNI,
  Irish PPS...), in the module's own format (its `is_valid` compacts and checks the length and the
  letters' places). Without a word for an identity number near (cues.py), a module's check must say
  something for the token's shape (random tokens of that shape fail it often enough: estimated once per
  module and shape, `_pass_rate`): a module that checks only the length counts no token, and a number
  of 6 to 8 digits needs a strong check, as it passes one of 200 modules' weaker checks by chance.
- a passport number: a token of letters and digits (6 to 9 characters) within a sentence of the word for
  "passport" or "travel document" in thirty languages (cues.py), or of the shapes most passports use
  anywhere; a passport's machine-readable zone (ICAO 9303) anywhere.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from functools import cache
from types import ModuleType

from stdnum import isbn
from stdnum.util import get_module_name, get_number_modules

from agent_signals.core.screening.sensitive.cues import ID_WORDS, PASSPORT_WORDS, cue
from agent_signals.core.screening.sensitive.finding import Finding

MIN_RUN_DIGITS = 9
MIN_CATALOGUE_DIGITS = 4  # an Indian PAN has four

# ---------------------------------------------------------------------------------------------------
# Long runs of digits

# Edges: not inside a Latin word or a decimal number; a number may touch the letters of a script that
# glues particles to it ("주민번호는 900101-1234567입니다", "身份证号码是360426199101010071").
_RUN = re.compile(r"(?<![\dA-Za-z.,+])\d+(?:(?:[ .\-/\u00a0]| [-–] )\d+)*(?![\dA-Za-z])")
_DATE = re.compile(
    r"(?<!\d)(?:[0-3]?\d(?P<s>[./-])[01]?\d(?P=s)(?:(?:1[89]|20)\d\d|\d\d)"
    r"|(?:1[89]|20)\d\d(?P<t>[./-])[01]?\d(?P=t)[0-3]?\d)(?!\d)"
)
_YEAR = re.compile(r"(?:1[89]|20)\d\d")
_DOTTED_QUAD = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_THOUSANDS = re.compile(r"\d{1,3}(?P<s>[ .\u00a0])\d{3}(?:(?P=s)\d{3})+")
_CURRENCY_BEFORE = re.compile(
    r"(?:[$€£¥₹₩₺₽₪฿₫]|\b(?:rs|inr|usd|eur|gbp|jpy|krw|try|pln|r\$|rp|rm|kr|czk|huf))\.?\s?$", re.I
)
# A unit, a currency or a count word after a number: what makes it a quantity.
_UNIT_AFTER = re.compile(
    r"\s?(?:%|x\b|[$€£¥₹₩₺₽₪฿₫]|(?:k?m|cm|mm|km|mi|ft|kg|g|mg|lbs?|t|l|ml|gb|mb|tb|kb|bytes?|b|hz|mhz|ghz|w|kw|kwh"
    r"|mah|px|fps|ms|s|sec|min|h|hrs?|days?|years?|steps|views|rows|users|people|followers|subscribers"
    r"|points|votes|copies|miles|meters|metres|dollars|euros|pounds|rupees|yen|won|lira|zł|złotych|руб\w*"
    r"|usd|eur|gbp|inr|million|billion|lakh|crore|원|円|元|萬|万|億|亿|baht|บาท|đ|đồng|vnd|rp|ringgit)\b)",
    re.I,
)
_VERSION_BEFORE = re.compile(r"(?:\bv|version|build|release|ver\.?)\s?$", re.I)


def find_digit_runs(text: str) -> Iterator[Finding]:
    for match in _RUN.finditer(text):
        run = match[0]
        if sum(c.isdigit() for c in run) >= MIN_RUN_DIGITS and not _ordinary_number(text, match):
            yield Finding("national_id", match.start(), match.end())


def _ordinary_number(text: str, match: re.Match[str]) -> bool:
    run = match[0]
    groups = re.findall(r"\d+", run)
    spaced = re.findall(r"(?<=\d) (\d+)", run)
    if any(len(g) == 1 for g in spaced) or (
        len(groups) >= 5 and all(len(g) <= 2 for g in groups) and " " in run
    ):
        return True  # "12 5 76 34 8 45": a list of small numbers
    if all(_YEAR.fullmatch(g) for g in groups):
        return True  # "1998 2004 2010", "2019-2021"
    if sum(c.isdigit() for c in _DATE.sub("", run)) < MIN_RUN_DIGITS:
        return True  # "01.01.2020-31.12.2020"
    if _DOTTED_QUAD.fullmatch(run) or (
        set(re.sub(r"\d", "", run)) == {"."} and len(groups) >= 3 and len(groups[0]) <= 2
    ):
        return True  # an address on a network, a version ("10.0.19045.3803")
    if _VERSION_BEFORE.search(text, 0, match.start()) or _isbn(run):
        return True
    if _CURRENCY_BEFORE.search(text, max(0, match.start() - 5), match.start()):
        return True
    if _UNIT_AFTER.match(text, match.end()):
        return True
    if _THOUSANDS.fullmatch(run) and run.endswith("000"):
        return True  # "8 400 000", "12.500.000"
    halves = re.split(r"\s?[-–]\s?", run)
    return len(halves) == 2 and all(h.endswith("00") for h in halves)  # "100000-150000"


def _isbn(run: str) -> bool:
    return run.startswith(("978", "979")) and isbn.is_valid(run)


# ---------------------------------------------------------------------------------------------------
# python-stdnum's catalogue

_ID_TOKEN = re.compile(
    r"(?<![\dA-Za-z-])(?=(?:[\w-]*\d){4})[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){5,21}(?![\dA-Za-z-])"
)
_ID_CUE = cue(ID_WORDS)
_LETTER = re.compile("[A-Za-z]")
_HEX = re.compile("0x", re.I)
_CUE_REACH = 40
_STRONG = 0.005  # the share of random numbers of a shape that a module may pass and its check still count
# ... and of random tokens with letters: a module that checks nothing but the length (a securities code,
# an excise number) passes them all; an Indian PAN's fourth letter is one of ten, 0.4 pass.
_CHECKS_SOMETHING = 0.6
_SAMPLES = 100


# Country modules that number things, not people or their accounts: postal codes, securities, goods,
# payment slips, meters, plots of land, receipts, classifications; and the bare check algorithms.
_NOT_PEOPLE = re.compile(
    r"postal|postcode|postleitzahl|excise|stock exchange|wertpapier|securit|nace|banknote|ec number|creditor"
    r"|payment slip|ogm|leitweg|meter point|real estate|comprobante|routing|iso 7064|activity establishment",
    re.I,
)


@cache
def _catalogue() -> tuple[ModuleType, ...]:
    """Every country module of python-stdnum that validates a number (its generic modules, ISBNs,
    ISINs, EANs and the like, name things that are not people), less those of _NOT_PEOPLE."""
    return tuple(
        m
        for m in get_number_modules()
        if m.__name__.count(".") == 2
        and hasattr(m, "is_valid")
        and not _NOT_PEOPLE.search(f"{m.__name__} {get_module_name(m)}")
    )


def find_catalogue_ids(text: str) -> Iterator[Finding]:
    cues = None
    for match in _ID_TOKEN.finditer(text):
        token = match[0]
        compact = token.replace("-", "")
        if not 6 <= len(compact) <= 20 or (compact.isdigit() and len(compact) >= MIN_RUN_DIGITS):
            continue  # long runs of digits are judged above
        digits = sum(c.isdigit() for c in compact)
        if digits < 6 and not (digits >= 4 and len(compact) >= 10 and _LETTER.search(compact)):
            continue  # a number needs 6 digits; an Indian PAN has 5 letters, 4 digits and a letter
        if _HEX.match(token):
            continue
        valid = [m for m in _catalogue() if _is_valid(m, token)]
        if not valid:
            continue
        if cues is None:
            cues = [m.span() for m in _ID_CUE.finditer(text)]
        near = any(s - _CUE_REACH <= match.start() and match.end() <= e + _CUE_REACH for s, e in cues)
        limit = _STRONG if compact.isdigit() else _CHECKS_SOMETHING
        if near or any(_pass_rate(m, _shape(token)) <= limit for m in valid):
            yield Finding("national_id", match.start(), match.end())


def _is_valid(module: ModuleType, token: str) -> bool:
    try:
        return bool(module.is_valid(token))
    except Exception:  # a module of the catalogue that fails on an input it did not expect
        return False


def _shape(token: str) -> str:
    return re.sub(r"[A-Za-z]", "A", re.sub(r"\d", "0", token.upper()))


@cache
def _pass_rate(module: ModuleType, shape: str) -> float:
    """The share of random tokens of a shape that a module validates: how much its check says."""
    rng = random.Random(shape)
    letters, digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"
    passed = 0
    for _ in range(_SAMPLES):
        sample = "".join(
            rng.choice(digits) if c == "0" else rng.choice(letters) if c == "A" else c for c in shape
        )
        passed += _is_valid(module, sample)
    return passed / _SAMPLES


# ---------------------------------------------------------------------------------------------------
# Passport numbers and machine-readable zones

_PASSPORT_CUE = cue(PASSPORT_WORDS)
_PASSPORT_NUMBER = re.compile(
    r"(?<![\dA-Za-z-])(?=[A-Z0-9]*[A-Z])(?=(?:[A-Z]*\d){4})[A-Z0-9]{6,9}(?![\dA-Za-z-])", re.I
)
# The shapes of many countries' passport numbers, found without the word: one or two letters and seven
# or eight digits ("M48120396", "E12345678"), or France's two digits, two letters, five digits.
_PASSPORT_SHAPED = re.compile(r"(?<![\dA-Za-z-])(?:[A-Z]{1,2}\d{7,8}|\d{2}[A-Z]{2}\d{5})(?![\dA-Za-z-])")
_SENTENCE_END = re.compile(r"[.!?。！？\n](?:\s|$)|[。！？\n]")
_MRZ = re.compile(r"(?<![A-Z0-9<])(?=[A-Z0-9<]*<<)[A-Z0-9<]{28,46}(?![A-Z0-9<])")


def find_passports(text: str) -> Iterator[Finding]:
    if "<<" in text:
        for match in _MRZ.finditer(text):
            yield Finding("national_id", match.start(), match.end())
    if not re.search(r"\d", text):
        return
    for match in _PASSPORT_SHAPED.finditer(text):
        yield Finding("national_id", match.start(), match.end())
    for match in _PASSPORT_CUE.finditer(text):
        start, end = _sentences_around(text, match.start(), match.end())
        for number in _PASSPORT_NUMBER.finditer(text, start, end):
            yield Finding("national_id", number.start(), number.end())


def _sentences_around(text: str, start: int, end: int) -> tuple[int, int]:
    """From the start of the sentence before the cue's to the end of the sentence after it."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    before = [e for e in ends if e <= start]
    after = [e for e in ends if e > end]
    return (before[-2] if len(before) >= 2 else 0), (after[1] if len(after) >= 2 else len(text))
