"""The folded forms of a text that screening reads, so that obfuscation does not hide what a text says.

Every form starts from Unicode NFKC (fullwidth and mathematical letters become plain letters) with the
default-ignorable code points dropped (zero-width characters, bidi controls, Unicode tag characters,
variation selectors, fillers), then is case-folded, loses its combining marks (accents, overlays) and has
typographic quotes straightened and whitespace collapsed. On top of that:

- `latin`: every letter that looks like a Latin letter, digit or ASCII sign is folded to it ("аdmіn" with
  Cyrillic а and і, Greek "ΑDΜΙΝ"), from Unicode's confusables data (UTS #39) as the confusable-homoglyphs
  package ships it. Read by the tables of Latin-script languages and the syntax patterns.
- `plain`: no folding to Latin (Russian stays Russian), but Latin look-alikes inside a Cyrillic word are
  folded to Cyrillic ("игнoрируй" with a Latin o). Read by the tables of other scripts.
- `leet_i`, `leet_l`: `latin` with leetspeak digits and signs inside words read as letters (1 as i, then
  as l; 3 e, 4 a, 0 o, 5 s, 7 t, @ a, $ s).
- `rot13`: `latin` rotated by 13.
- `hidden`: what invisible characters carry, not yet folded: Unicode tag characters decoded to the ASCII
  they encode, and text under a right-to-left override in the order it is displayed ("" when none).

The folded forms are for screening only; nothing stores them.
"""

from __future__ import annotations

import codecs
import unicodedata
from dataclasses import dataclass
from functools import cache

import regex
from confusable_homoglyphs.categories import alias
from confusable_homoglyphs.confusables import confusables_data

_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}+")
_TAG_TEXT = regex.compile(r"[\U000E0020-\U000E007E]+")
_RIGHT_TO_LEFT = regex.compile(r"\u202e([^\u202a-\u202e\u2066-\u2069\n]*)")
_MARKS = regex.compile(r"[\p{Mn}\p{Me}--[\u3099\u309a]]+", regex.V1)  # keeps Japanese (han)dakuten
_SPACE = regex.compile(r"\s+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
_CYRILLIC_WORD = regex.compile(r"\w*\p{Script=Cyrillic}\w*")
_LEET_WORD = regex.compile(r"[\w@$]*[a-z][\w@$]*")
_UNTAG = {code: code - 0xE0000 for code in range(0xE0020, 0xE007F)}
_LEET = {"3": "e", "4": "a", "0": "o", "5": "s", "7": "t", "@": "a", "$": "s"}
_LEET_I = str.maketrans({**_LEET, "1": "i"})
_LEET_L = str.maketrans({**_LEET, "1": "l"})
_LEET_SIGNS = frozenset({*_LEET, "1"})


@dataclass(frozen=True)
class Readings:
    plain: str
    latin: str
    leet_i: str
    leet_l: str
    rot13: str
    hidden: str


def readings(text: str) -> Readings:
    """Every folded form of `text` (see the module's docstring)."""
    return _ascii_readings(text) if text.isascii() else _readings(text)


def _ascii_readings(text: str) -> Readings:
    """readings() of an ASCII text, faster: nothing to normalize, fold to Latin, un-mark or hide."""
    latin = _finish(text)
    leet = any(c in latin for c in _LEET_SIGNS)
    return Readings(
        plain=latin,
        latin=latin,
        leet_i=_LEET_WORD.sub(lambda m: m[0].translate(_LEET_I), latin) if leet else latin,
        leet_l=_LEET_WORD.sub(lambda m: m[0].translate(_LEET_L), latin) if leet else latin,
        rot13=codecs.encode(latin, "rot13"),
        hidden="",
    )


def _readings(text: str) -> Readings:
    nfkc = unicodedata.normalize("NFKC", text)
    shown = _IGNORABLE.sub("", nfkc)
    latin = _finish(shown.translate(_to_latin()))
    tags = [run.translate(_UNTAG) for run in _TAG_TEXT.findall(nfkc)]
    reversed_runs = [_IGNORABLE.sub("", run)[::-1] for run in _RIGHT_TO_LEFT.findall(nfkc)]
    hidden = " ".join(part for part in (*tags, *reversed_runs) if part.strip())
    return Readings(
        plain=_finish(_CYRILLIC_WORD.sub(lambda m: m[0].translate(_to_cyrillic()), shown)),
        latin=latin,
        leet_i=_LEET_WORD.sub(lambda m: m[0].translate(_LEET_I), latin),
        leet_l=_LEET_WORD.sub(lambda m: m[0].translate(_LEET_L), latin),
        rot13=codecs.encode(latin, "rot13"),
        hidden=hidden,
    )


def fold(text: str) -> str:
    """The Latin skeleton of a text: NFKC, ignorables dropped, look-alikes folded to Latin/ASCII, case
    folded, marks dropped, quotes straight, whitespace collapsed."""
    return _finish(visible(text).translate(_to_latin()))


def visible(text: str) -> str:
    """NFKC with the default-ignorable code points dropped; case and everything else kept."""
    return _IGNORABLE.sub("", unicodedata.normalize("NFKC", text))


def strip_marks(text: str) -> str:
    """Combining marks dropped (accents, overlays), except the Japanese (han)dakuten, which make letters."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _MARKS.sub("", unicodedata.normalize("NFD", text)))


def _finish(text: str) -> str:
    return _SPACE.sub(" ", strip_marks(text.casefold()).translate(_QUOTES)).strip()


def _ascii_look_alike(char: str, depth: int = 0) -> str | None:
    """The ASCII character `char` is confusable with, following the data up to two steps (Cyrillic т is
    listed as small capital ᴛ, which is listed as T)."""
    glyphs = [g["c"] for g in confusables_data.get(char, [])]
    for glyph in glyphs:
        if len(glyph) == 1 and " " < glyph < "\x7f":
            # Unicode's prototype of I-like letters is "l": a capital stays a capital I
            return "I" if glyph == "l" and unicodedata.category(char) == "Lu" else glyph
    if depth < 2:
        for glyph in glyphs:
            if len(glyph) == 1 and glyph > "\x7f" and (found := _ascii_look_alike(glyph, depth + 1)):
                return found
    return None


@cache
def _to_latin() -> dict[int, str]:
    """Every non-ASCII character with an ASCII look-alike, except accented letters (their marks are
    dropped later, which keeps "é" an e rather than whatever its accent resembles)."""
    table: dict[int, str] = {}
    for char in confusables_data:
        if len(char) != 1 or char < "\x80" or unicodedata.normalize("NFD", char)[0] < "\x80":
            continue
        if found := _ascii_look_alike(char):
            table[ord(char)] = found
    return table


@cache
def _to_cyrillic() -> dict[int, str]:
    """Latin letters to their Cyrillic look-alikes (a to а, p to р ...), for words written in Cyrillic."""
    table: dict[int, str] = {}
    for char in confusables_data:
        found = _ascii_look_alike(char) if len(char) == 1 and alias(char) == "CYRILLIC" else None
        if found and found.isalpha() and found.islower() == char.islower():
            table.setdefault(ord(found), char)
    return table
