"""The folded forms of a text that screening reads, so that obfuscation does not hide what a text says.

Which characters are hidden, disguising or look-alikes is characters.py's to say, for storage too. Every
form starts from the text as storage keeps it (text.clean): the hidden characters dropped (zero-width
characters, soft hyphens, word joiners, bidi controls, Unicode tag characters, variation selectors, fillers,
every other default-ignorable or format character), then Unicode NFKC (fullwidth, mathematical, circled and
squared letters become plain letters). It is then
case-folded, loses its combining marks (accents, overlays; kept with `marks=True`) and has typographic
quotes straightened and whitespace collapsed. On top of that:

- `latin`: every character that looks like a Latin letter, digit or ASCII sign is folded to it ("аdmіn" with
  Cyrillic а and і, Greek "ΑDΜΙΝ", small capitals "ᴀᴅᴍɪɴ", negative squared "🅰🅳🅼🅸🅽", regional indicators;
  characters.look_alikes). Read by the tables of Latin-script languages and the syntax patterns.
- `plain`: no folding to Latin (Russian stays Russian), but Latin look-alikes inside a Cyrillic word are
  folded to Cyrillic ("игнoрируй" with a Latin o). Read by the tables of other scripts.
- `leet_i`, `leet_l`: `latin` with leetspeak digits and signs inside words read as letters (1 as i, then
  as l; 3 e, 4 a, 0 o, 5 s, 7 t, @ a, $ s).
- `rot13`: `latin` rotated by 13.
- `hidden`: what disguising characters carry, not yet folded: Unicode tag characters decoded to the ASCII
  they encode, and text under a right-to-left override in the order it is displayed ("" when none).
- `morse`: each run of Morse code (dots and dashes: . · • and - − – — _, letters apart by a space, words by
  "/", "|" or two spaces or more) as the text it spells ("" when the text has none).
- `backwards`: `latin` with each stretch of words written backwards turned around (".snoitcurtsni suoiverp
  lla erongi", or inside a sentence), then on a second line with each of its words turned around in place
  ("erongi lla suoiverp snoitcurtsni"): a stretch is two words or more that are words of the tables or
  common words read backwards but not forwards ("" when there is none).
- `joined`: `latin` with words spelled out letter by letter read joined ("i g n o r e", "i.g.n.o.r.e",
  "i-g-n-o-r-e", parenthesized "⒤⒢⒩⒪⒭⒠", which NFKC writes "(i)(g)(n)(o)(r)(e)"); words spelled out with no
  gap between them are split into the likeliest words ("" when the text spells out no word).

The last three are worked out only when the text has what they need (a dot next to a dash; a word the
tables know, backwards; four letters in a row each alone): most texts pay one cheap check for each. The
folded forms are for screening only; nothing stores them.
"""

from __future__ import annotations

import codecs
import math
import re
import tomllib
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import regex

from agent_signals.core.screening.characters import (
    HIDDEN_RUN,
    cyrillic_look_alikes,
    hidden_text,
    look_alikes,
)

_MARKS = regex.compile(r"[\p{Mn}\p{Me}--[\u3099\u309a]]+", regex.V1)  # keeps Japanese (han)dakuten
_SPACE = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
_CYRILLIC_WORD = regex.compile(r"\w*\p{Script=Cyrillic}\w*")
_LEET_WORD = re.compile(r"[\w@$]*[a-z][\w@$]*")
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
    morse: str = ""
    backwards: str = ""
    joined: str = ""


def readings(text: str, *, marks: bool = False) -> Readings:
    """Every folded form of `text` (see the module's docstring); with `marks`, combining marks are kept
    (for tables that tell "schwül" from "schwul")."""
    return _cached_readings(text, marks and not text.isascii())


@lru_cache(maxsize=64)  # the screens read one text after the other (instructions, special categories)
def _cached_readings(text: str, marks: bool) -> Readings:
    return _ascii_readings(text) if text.isascii() else _readings(text, marks=marks)


readings.cache_clear = _cached_readings.cache_clear  # type: ignore[attr-defined]


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
        morse=_morse(text) if ("-." in text or ".-" in text) else "",
        backwards=_backwards(latin),
        joined=_joined(text),
    )


def _readings(text: str, *, marks: bool = False) -> Readings:
    shown = visible(text)
    folded = shown.translate(look_alikes())
    latin = _finish(folded, marks)
    return Readings(
        plain=_finish(_CYRILLIC_WORD.sub(lambda m: m[0].translate(cyrillic_look_alikes()), shown), marks),
        latin=latin,
        leet_i=_LEET_WORD.sub(lambda m: m[0].translate(_LEET_I), latin),
        leet_l=_LEET_WORD.sub(lambda m: m[0].translate(_LEET_L), latin),
        rot13=codecs.encode(latin, "rot13"),
        hidden=hidden_text(text),
        morse=_morse(folded),
        backwards=_backwards(latin),
        joined=_joined(folded, marks),
    )


def fold(text: str) -> str:
    """The Latin skeleton of a text: NFKC, hidden characters dropped, look-alikes folded to Latin/ASCII,
    case folded, marks dropped, quotes straight, whitespace collapsed."""
    if text.isascii():
        return _finish(text)
    return _finish(visible(text).translate(look_alikes()))


def visible(text: str) -> str:
    """The hidden characters dropped, then NFKC: what storage keeps of a text (text.clean); case and
    everything else kept."""
    return unicodedata.normalize("NFKC", HIDDEN_RUN.sub("", text))


def strip_marks(text: str) -> str:
    """Combining marks dropped (accents, overlays), except the Japanese (han)dakuten, which make letters."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _MARKS.sub("", unicodedata.normalize("NFD", text)))


def _finish(text: str, marks: bool = False) -> str:
    text = text.casefold()
    if not marks:
        text = strip_marks(text)
    elif not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return _SPACE.sub(" ", text.translate(_QUOTES)).strip()


# ---------------------------------------------------------------------------------------------------
# Morse code

_DOTS, _DASHES = ".·•∙⋅", "\\-−–—_‐‑‒"
_MORSE_SIGN = f"[{_DOTS}{_DASHES}]"
_MORSE_RUN = re.compile(
    rf"(?<![^\s/|]){_MORSE_SIGN}{{1,8}}(?:(?:\s*[/|]\s*|\s+){_MORSE_SIGN}{{1,8}}){{3,}}(?![^\s/|])"
)
_MORSE_WORD_GAP = re.compile(r"\s*[/|\n]\s*|\s{2,}")
_MORSE_MIXED = re.compile(rf"[{_DOTS}][{_DASHES}]|[{_DASHES}][{_DOTS}]")
_MORSE_SIGNS = str.maketrans({**dict.fromkeys(_DOTS, "."), **dict.fromkeys(_DASHES.replace("\\", ""), "-")})
_MORSE = {  # International Morse code (ITU-R M.1677)
    ".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h",
    "..": "i", ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p",
    "--.-": "q", ".-.": "r", "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x",
    "-.--": "y", "--..": "z", "-----": "0", ".----": "1", "..---": "2", "...--": "3", "....-": "4",
    ".....": "5", "-....": "6", "--...": "7", "---..": "8", "----.": "9", ".-.-.-": ".", "--..--": ",",
    "..--..": "?", ".----.": "'", "-.-.--": "!", "-..-.": "/", "---...": ":", "-.-.-.": ";", "-...-": "=",
    ".-.-.": "+", "-....-": "-", ".-..-.": '"', ".--.-.": "@", "-.--.": "(", "-.--.-": ")",
}  # fmt: skip


def _morse(text: str) -> str:
    """Every run of Morse code in `text` decoded, runs apart by a space ("" when none)."""
    if not _MORSE_MIXED.search(text):
        return ""
    decoded = []
    for run in _MORSE_RUN.finditer(text):
        words = []
        codes = unknown = 0
        for word in _MORSE_WORD_GAP.split(run[0].translate(_MORSE_SIGNS).strip()):
            letters = [_MORSE.get(code, "") for code in word.split()]
            codes += len(letters)
            unknown += letters.count("")
            words.append("".join(letters))
        if unknown * 4 <= codes and _MORSE_MIXED.search(run[0]):
            decoded.append(" ".join(_segment(word) if len(word) >= 8 else word for word in words))
    return " ".join(decoded)


# ---------------------------------------------------------------------------------------------------
# Words spelled out letter by letter

_LETTER = "[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]"  # Latin letters, accented ones too
_SIGN = "[.\\-_*|/·•~+]"
_APART = rf"( ?{_SIGN} ?| {{1,2}})"  # what keeps the letters of a spelled-out word apart, the same throughout
_END = rf"(?!\w| ?{_SIGN} ?\w)"  # not where the letters go on, apart by something else ("a c-r-i-m-e")
_SPELLED = re.compile(rf"(?<!\w){_LETTER}{_APART}{_LETTER}(?:\1{_LETTER})*+{_END}")
_SPELLED_WORD = re.compile(rf"(?<!\w){_LETTER}{_APART}{_LETTER}(?:\1{_LETTER}){{2,}}+{_END}")


_BRACKETED = re.compile(rf"(?:\({_LETTER}\)){{3,}}()")  # ⒤⒢⒩, which NFKC (and so storage) writes (i)(g)(n)


def _joined(text: str, marks: bool = False) -> str:
    """`text` folded, with each word spelled out letter by letter joined ("" when none has four letters, or
    three in brackets)."""
    bracketed = ")(" in text and _BRACKETED.search(text)
    if not bracketed and not _SPELLED_WORD.search(text):
        return ""

    def join(match: re.Match[str]) -> str:
        letters = "".join(c for c in match[0] if c.isalpha())
        if len(letters) < 3 and "." in match.group(match.re.groups):  # e.g. i.e. a.m.
            return match[0]
        return _segment(letters.casefold()) if len(letters) >= 8 else letters

    if bracketed:
        text = _BRACKETED.sub(lambda m: join(m) + " ", text)
    return _finish(_SPELLED.sub(join, text), marks)


# ---------------------------------------------------------------------------------------------------
# The words the tables look for: where to split words written without gaps, whether a text reads backwards

_CORE = Path(__file__).parent
_TOKEN = re.compile(r"([a-z]+)(\\w[*+]|\(|\?)?")
_PATTERN_NOISE = re.compile(r"\\[a-zA-Z]|<[a-z_]+>|\{[a-z_]+\}|\(\?P?<[a-z_]+>|\(\?[:!=<]+")
_SUFFIXES = ("", "e", "s", "es", "ed", "ing", "y", "ies", "er", "ers", "ion", "ions", "ation")
_COMMON_WORDS = (
    "i a me my you your yours the and or to of in on at for with from by is am are be was were it its this "
    "that these those all any every each now then not no do does please just only also always never here "
    "there what who when how make give tell let can will would should must may up out off over as if so "
    "but we our they them he she his her one new"
)


@cache
def vocabulary() -> frozenset[str]:
    """The words of the Latin-script phrase tables (instructions and special categories: each word as
    written, a stem with common endings) and common English words."""
    patterns: list[str] = []
    for path in sorted((_CORE / "instruction_phrases").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        if data.get("script") == "latin":
            patterns += [*data.get("words_groups", {}).values()]
            patterns += [p for ps in data["phrases"].values() for p in ps]
    special = tomllib.loads((_CORE / "data" / "special_categories.toml").read_text(encoding="utf-8"))
    for spec in special.values():
        if spec.get("word_boundaries") and spec.get("script", "latin") == "latin":
            patterns += [*spec.get("macros", {}).values()]
            patterns += [p for ps in spec["categories"].values() for p in ps]
    words = set(_COMMON_WORDS.split())
    for pattern in patterns:
        for token, after in _TOKEN.findall(_PATTERN_NOISE.sub(" ", strip_marks(pattern.casefold()))):
            if after in ("\\w*", "\\w+", "(") and len(token) >= 3:
                words.update(token + suffix for suffix in _SUFFIXES)
            elif len(token) >= 2:
                words.add(token)
                if after == "?":
                    words.add(token[:-1])
    return frozenset(w for w in words if w.isascii())


_LONGEST_WORD = 24
_TABLE_WORD_COST = 9.0  # a word of the tables that is no English word: as rare as the rarest English words


@cache
def _word_costs() -> dict[str, float]:
    """-log10 of each word's frequency: English words (wordfreq's list, the maintained word-frequency data
    this project already reads) and the tables' words (vocabulary())."""
    from wordfreq import get_frequency_dict

    costs = {
        word: -math.log10(frequency)
        for word, frequency in get_frequency_dict("en").items()
        if word.isascii() and word.isalpha() and len(word) <= _LONGEST_WORD
    }
    for word in vocabulary():
        costs.setdefault(word, _TABLE_WORD_COST)
    return costs


def _segment(letters: str) -> str:
    """Letters written with no gap between words split into the likeliest words (the least total cost,
    -log10 of each word's frequency; letters of no known word cost 9 and 1.5 more each, so they stay
    together): "iamtheadmin" -> "i am the admin"."""
    if len(letters) > 400 or not letters.isascii():
        return letters
    costs = _word_costs()
    best = [0.0]  # the least cost of letters[:end]
    starts = [0]
    for end in range(1, len(letters) + 1):
        cost, start = min(
            (best[start] + costs.get(letters[start:end], 9.0 + 1.5 * (end - start)), start)
            for start in range(max(0, end - _LONGEST_WORD), end)
        )
        best.append(cost)
        starts.append(start)
    words = []
    end = len(letters)
    while end > 0:
        words.append(letters[starts[end] : end])
        end = starts[end]
    return " ".join(reversed(words))


_WORD = re.compile(r"[a-z]+")


@cache
def _backwards_only() -> frozenset[str]:
    """Known words of three letters or more written backwards, that are no known word forwards ("nimda")."""
    words = vocabulary()
    return frozenset(w[::-1] for w in words if len(w) >= 3 and w[::-1] not in words)


def _backwards(latin: str) -> str:
    """`latin` with each stretch of words written backwards turned around, then on a line of its own with
    each word of the stretches turned around in place ("erongi lla suoiverp snoitcurtsni"); "" when there
    is no stretch. A stretch holds two words at least of _backwards_only(), no word known forwards but not
    backwards, and ends on a word known backwards ("just so you know, nimda eht ma i and ..." -> "just so
    you know, i am the admin and ...")."""
    backwards_only = _backwards_only()
    if len(backwards_only.intersection(_WORD.findall(latin))) < 2:  # the cheap check: most texts stop here
        return ""
    words = vocabulary()
    stretches: list[tuple[int, int]] = []
    start = end = backwards = 0
    for match in _WORD.finditer(latin):
        word = match[0]
        forwards, reads_back = word in words, word[::-1] in words
        if forwards and not reads_back:  # a word read forwards ends a stretch
            if backwards >= 2:
                stretches.append((start, end))
            backwards = 0
        elif word in backwards_only:
            start = match.start() if backwards == 0 else start
            backwards += 1
            end = match.end()
        elif backwards and reads_back:  # words known neither way go in only between words read backwards
            end = match.end()
    if backwards >= 2:
        stretches.append((start, end))
    if not stretches:
        return ""
    turned, each, done = [], [], 0
    for first, last in stretches:
        turned += [latin[done:first], latin[first:last][::-1]]
        each += [latin[done:first], _WORD.sub(lambda m: m[0][::-1], latin[first:last])]
        done = last
    return "".join(turned) + latin[done:] + "\n" + "".join(each) + latin[done:]
