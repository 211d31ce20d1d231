"""Recovery phrases and backup codes, both kind `password`.

- A crypto wallet's recovery phrase: 12, 15, 18, 21 or 24 words in a row, all from one BIP-39 word list,
  in every language the `mnemonic` package ships (English, Spanish, French, Italian, Portuguese, Czech,
  Russian, Turkish, Korean, Japanese and both Chinese lists). Ordinary prose never strings twelve such
  words together: its articles, pronouns and particles are in none of the lists. Words are compared
  without accents (the lists are designed to be told apart that way). A Chinese list's characters count
  only written apart, one by one: ordinary Chinese is made of the same common characters.
- Two-factor backup codes: two or more code-shaped tokens in a list, of one shape (6 to 10 digits, or
  groups of 4 or 5 letters and digits such as "a1b2-c3d4"): the codes of one set share their format;
  and one recovery key or backup code of three or more such groups ("R7KQ-2MXP-9DLT-V4HN-6WCJ",
  "K7QP-2MXD-9RTA"), most of them mixing letters and digits as generated keys do.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache
from itertools import pairwise

import regex
from mnemonic import Mnemonic

from agent_signals.core.screening.sensitive.finding import Finding

_PHRASE_LENGTHS = (24, 21, 18, 15, 12)
_WORD = regex.compile(r"[\p{L}\p{M}]+")  # `re` cuts a word at a combining mark (a decomposed "é", "ご")


@cache
def _word_lists() -> tuple[frozenset[str], ...]:
    return tuple(
        frozenset(_fold(w) for w in Mnemonic(language).wordlist) for language in Mnemonic.list_languages()
    )


@cache
def _any_list() -> frozenset[str]:
    """The words of every list, folded and as written (most words are looked up without folding)."""
    lists = _word_lists()
    return frozenset().union(*lists, *(Mnemonic(lang).wordlist for lang in Mnemonic.list_languages()))


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word.casefold()) if not unicodedata.combining(c))


def find_recovery_phrases(text: str) -> Iterator[Finding]:
    if text.count(" ") + text.count("\u3000") < _PHRASE_LENGTHS[-1] - 1:
        return
    words = list(_WORD.finditer(text))
    if len(words) < _PHRASE_LENGTHS[-1] or not _long_run(words):
        return
    folded = [_fold(w[0]) for w in words]
    for listed in _word_lists():
        start = 0
        while start <= len(words) - _PHRASE_LENGTHS[-1]:
            end = start
            while end < len(words) and folded[end] in listed and _apart(text, words, start, end):
                end += 1
            if end - start >= _PHRASE_LENGTHS[-1]:
                yield Finding("password", words[start].start(), words[end - 1].end())
            start = max(end, start + 1)


def _long_run(words: list[regex.Match[str]]) -> bool:
    """Twelve words in a row that some list has: one look-up a word, before any list is tried alone."""
    known, run = _any_list(), 0
    for word in words:
        lowered = word[0].casefold()
        run = run + 1 if lowered in known or (not lowered.isascii() and _fold(lowered) in known) else 0
        if run >= _PHRASE_LENGTHS[-1]:
            return True
    return False


def _apart(text: str, words: list[regex.Match[str]], start: int, at: int) -> bool:
    """A word of one character (a Chinese list's) counts only apart from the word before it."""
    word = words[at]
    if len(word[0]) > 1 or at == start:
        return True
    return word.start() > words[at - 1].end()


# ---------------------------------------------------------------------------------------------------
# Two-factor backup codes

_CODE = r"(?<![\w.,/:-])(?:\d{6,10}|(?=[a-z\d-]*\d)[a-z\d]{4,5}[- ][a-z\d]{4,5})(?![\w.,/:%-]\w)"
_SEPARATOR = r"\s*[,;|•·/]\s*|\s*\n\s*(?:[-*•]\s*|\d{1,2}[.)]\s*)?| {1,3}"
_CODES = re.compile(rf"{_CODE}(?:(?:{_SEPARATOR}){_CODE})+", re.I)
_ONE_CODE = re.compile(_CODE, re.I)
_CURRENCY = re.compile(r"[$€£¥₹₩]\s*$")


def find_backup_codes(text: str) -> Iterator[Finding]:
    if not re.search(r"\d", text):
        return
    for match in _CODES.finditer(text):
        codes = list(_ONE_CODE.finditer(match[0]))
        if len({_shape(code[0]) for code in codes}) != 1 or _CURRENCY.search(text, 0, match.start()):
            continue
        if any(code[0].endswith("00") for code in codes):
            continue  # "250000, 300000": round amounts, not random codes
        gaps = [match[0][a.end() : b.start()] for a, b in pairwise(codes)]
        if " " in codes[0][0] and any(not gap.strip() and "\n" not in gap for gap in gaps):
            continue  # "1234 5678 9012 3456": one number in groups, not codes in a list
        yield Finding("password", match.start(), match.end())


_KEY = re.compile(r"(?<![\w-])[A-Za-z\d]{4,6}(?:-[A-Za-z\d]{4,6}){2,7}(?![\w-])")
_LETTERS_AND_DIGITS = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])")


def find_recovery_keys(text: str) -> Iterator[Finding]:
    for match in _KEY.finditer(text):
        groups = match[0].split("-")
        mixed = sum(1 for group in groups if _LETTERS_AND_DIGITS.match(group))
        if 2 * mixed > len(groups) and len({len(group) for group in groups}) == 1:
            yield Finding("password", match.start(), match.end())


def _shape(code: str) -> str:
    """Codes of one set share a shape: their length and where their separators stand."""
    return re.sub(r"[a-z\d]", "x", code.lower())
