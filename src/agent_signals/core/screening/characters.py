"""What a character does to the reading of a text: the one definition of hidden, disguising and look-alike
characters that storage (text.py: what is stripped before a text is stored, what marks a message as
disguised) and screening (fold.py's readings, which instructions.py and special.py match) share, so that
what is stored and what is screened never disagree (tests/test_text.py checks it code point by code point).

- hidden (`HIDDEN_CHARACTERS`): invisible characters, Unicode's Default_Ignorable_Code_Point set and every
  other format character (category Cf). Storage strips them; screening drops them.
- disguising (`disguises`, `hidden_text`): bidi embeddings and overrides (a run shown reversed) and Unicode
  tag characters (invisible ASCII) outside the flag emoji they spell. Hidden too; storage flags a message
  that has them, screening also reads what they carry. Storage also flags a message that writes a word in
  letter-like forms of Latin letters (`LETTER_FORMS`: circled, parenthesized, squared and negative squared
  letters, mathematical letters, small capitals), which no keyboard types: screening reads them as the
  letters they show (look-alikes, below), and a message written in them is hostile whatever it says.
- look-alikes (`look_alikes`, `cyrillic_look_alikes`): characters that read as a Latin
  letter, digit or ASCII sign without being one. Storage keeps them (the stored text is what the user
  wrote); screening folds them (after NFKC, which already reads fullwidth, mathematical, circled and
  squared letters, and writes parenthesized ones "(a)", which fold.py reads as a word spelled out). Two
  sources:
  - Unicode's confusables (UTS #39, as the confusable-homoglyphs package ships them): letters of other
    scripts that look Latin (Cyrillic а, Greek Ι, Cherokee Ꭺ ...);
  - anyascii (a maintained transliteration table covering all of Unicode, chosen over unidecode for its
    coverage of recent blocks such as the enclosed alphanumerics) for what the confusables miss, and only
    for letter-like forms of Latin letters: Latin-script letters (small capitals ᴀ ɪ ʀ, modifier and
    superscript letters ᵃ ʰ, IPA and extended letters ɑ ł) and symbols named after a Latin letter (negative
    squared 🅰, negative circled 🅐, regional indicators 🇦). Never for letters of another script: a real
    Cyrillic, Greek or CJK word keeps its letters (the other languages' tables read it as it is).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

# Invisible characters: Unicode's Default_Ignorable_Code_Point set (zero-width space, ZWNJ, ZWJ, soft hyphen,
# word joiner, BOM, the bidi controls LRM/RLM/ALM, LRE..RLO and LRI..PDI, variation selectors, Hangul fillers,
# tag characters U+E0000-E007F and the rest of U+E0000-E0FFF) and every other format character (category Cf).
# Written in the regex syntax both Python's re and PostgreSQL's regular expressions read: the SQL twin,
# signals.clean_text in sql/functions/10_text.sql, holds this very literal (tests/test_text.py).
HIDDEN_CHARACTERS = (
    r"[\u00AD\u034F\u0600-\u0605\u061C\u06DD\u070F\u0890-\u0891\u08E2\u115F-\u1160\u17B4-\u17B5"
    r"\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB"
    r"\U000110BD\U000110CD\U00013430-\U0001343F\U0001BCA0-\U0001BCA3\U0001D173-\U0001D17A"
    r"\U000E0000-\U000E0FFF]"
)
HIDDEN = re.compile(HIDDEN_CHARACTERS)
HIDDEN_RUN = re.compile(HIDDEN_CHARACTERS + "+")

# Characters that make text read differently from how it is stored: bidi embeddings and overrides (a
# run shown reversed) and Unicode tag characters (invisible ASCII), outside the flag emoji they spell.
DISGUISING = re.compile("[\u202a-\u202e\U000e0000-\U000e007f]")
TAG_FLAG = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
_TAG_TEXT = re.compile("[\U000e0020-\U000e007e]+")
_UNTAG = {code: code - 0xE0000 for code in range(0xE0020, 0xE007F)}
_RIGHT_TO_LEFT = re.compile("\u202e([^\u202a-\u202e\u2066-\u2069\n]*)")
# Letter-like forms of Latin letters a keyboard does not type (small capitals ᴀ ʙ ɢ ʀ ꜱ, parenthesized,
# circled, squared and negative squared letters, mathematical letters and digits; not fullwidth forms,
# which Japanese and Chinese input methods type, nor regional indicators, which spell flags): four or more
# in a run, spaces between them allowed, are a word written to slip past a reader.
LETTER_FORMS = (
    "[\u0262\u026a\u0274\u0280\u028f\u0299\u029c\u029f\u1d00-\u1d22\ua730\ua731\u249c-\u24e9"
    "\U0001d400-\U0001d7ff\U0001f130-\U0001f189]"
)
_LETTER_FORM_WORD = re.compile(rf"{LETTER_FORMS}(?:\s?{LETTER_FORMS}){{3,}}")


def disguises(text: str) -> bool:
    """Whether a text hides what it says from its reader (bidi embeddings or overrides, tag characters
    outside a flag emoji) or disguises its letters (a word in LETTER_FORMS)."""
    if text.isascii():
        return False
    return bool(DISGUISING.search(TAG_FLAG.sub("", text)) or _LETTER_FORM_WORD.search(text))


def hidden_text(text: str) -> str:
    """What disguising characters carry, not yet folded ("" when none): tag characters decoded to the ASCII
    they encode (outside flag emoji), and each run under a right-to-left override in the order it is shown."""
    if text.isascii():
        return ""
    text = TAG_FLAG.sub("", text)
    tags = [run.translate(_UNTAG) for run in _TAG_TEXT.findall(text)]
    reversed_runs = [HIDDEN.sub("", run)[::-1] for run in _RIGHT_TO_LEFT.findall(text)]
    return " ".join(part for part in (*tags, *reversed_runs) if part.strip())


# Symbols named after the Latin letter they show (So: 🅰 NEGATIVE SQUARED LATIN CAPITAL LETTER A, 🇦 REGIONAL
# INDICATOR SYMBOL LETTER A, 🄫 CIRCLED ITALIC LATIN CAPITAL LETTER C)
_LETTER_SYMBOL = re.compile(
    r"\bLATIN (?:CAPITAL|SMALL) LETTER [A-Z]$|^REGIONAL INDICATOR SYMBOL LETTER [A-Z]$"
)
_ONE_LETTER = re.compile(r"\(?([A-Za-z])\)?")


def _latin_letter_like(char: str) -> str | None:
    """The ASCII letter a letter-like form of a Latin letter stands for, by anyascii (None: not one)."""
    category = unicodedata.category(char)
    if category in ("Ll", "Lu", "Lt", "Lm"):
        if _script(char) != "Latin":
            return None
    elif category != "So" or not _LETTER_SYMBOL.search(unicodedata.name(char, "")):
        return None
    from anyascii import anyascii

    found = _ONE_LETTER.fullmatch(anyascii(char).strip())
    return found[1] if found else None


def _script(char: str) -> str:
    import regex

    return "Latin" if regex.match(r"\p{Script=Latin}", char) else "other"


def _ascii_look_alike(char: str, depth: int = 0) -> str | None:
    """The ASCII character `char` is confusable with, following the data up to two steps (Cyrillic т is
    listed as small capital ᴛ, which is listed as T)."""
    from confusable_homoglyphs.confusables import confusables_data

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


# Blocks where letter-like forms of Latin letters live (Latin Extended, IPA, spacing modifiers, phonetic
# extensions, letterlike symbols, enclosed alphanumerics and their supplement, Latin Extended-F and -G)
_LETTER_LIKE_BLOCKS = (
    range(0x00A0, 0x0370),
    range(0x1D00, 0x1F00),
    range(0x2070, 0x2200),
    range(0x2460, 0x2500),
    range(0x2C60, 0x2C80),
    range(0xA720, 0xA800),
    range(0xAB30, 0xAB70),
    range(0x10780, 0x107C0),
    range(0x1DF00, 0x1E000),
    range(0x1F100, 0x1F200),
)


@cache
def look_alikes() -> dict[int, str]:
    """Every non-ASCII character (as NFKC leaves it) that reads as a Latin letter, digit or ASCII sign, to
    that character: confusables first, then letter-like forms of Latin letters (see the module's
    docstring). Accented letters are left out: their marks are dropped later, which keeps "é" an e rather
    than whatever its accent resembles."""
    from confusable_homoglyphs.confusables import confusables_data

    table: dict[int, str] = {}
    for block in _LETTER_LIKE_BLOCKS:
        for code in block:
            char = chr(code)
            if unicodedata.normalize("NFKC", char) != char or unicodedata.normalize("NFD", char)[0] < "\x80":
                continue
            if found := _latin_letter_like(char):
                table[code] = found
    for char in confusables_data:
        if len(char) != 1 or char < "\x80" or unicodedata.normalize("NFD", char)[0] < "\x80":
            continue
        if found := _ascii_look_alike(char):
            table[ord(char)] = found
    return table


@cache
def cyrillic_look_alikes() -> dict[int, str]:
    """Latin letters to their Cyrillic look-alikes (a to а, p to р ...), for words written in Cyrillic."""
    from confusable_homoglyphs.categories import alias
    from confusable_homoglyphs.confusables import confusables_data

    table: dict[int, str] = {}
    for char in confusables_data:
        found = _ascii_look_alike(char) if len(char) == 1 and alias(char) == "CYRILLIC" else None
        if found and found.isalpha() and found.islower() == char.islower():
            table.setdefault(ord(found), char)
    return table
