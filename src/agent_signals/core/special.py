"""Special categories of personal data (GDPR Art. 9: ethnic origin, political opinions, religious or
philosophical beliefs, trade union membership, genetic and biometric data, health, sex life and sexual
orientation; and gender identity) and criminal records (Art. 10) stated in a text, in any of the languages of
core/data/special_categories.toml (English, French, German, Spanish, Italian, Portuguese, Russian, Chinese,
Japanese).

No well-kept offline library detects these, so the phrases are a hand table (one per language and category),
matched on a folded form of the text. It flags what a text states, about the user or anyone else; the model's
judgement plays no part. The accommodation is not the condition: "Prefers short sentences" passes, "Has
dyslexia" does not.

- `special_categories(text)`: the categories a text states, in CATEGORIES order.
- `redact_special(text)`: the clauses stating them replaced by `[<category> redacted]` (the whole sentence
  when no single clause states it); what is left states none.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CATEGORIES = (
    "ethnic_origin",
    "political_opinion",
    "religion",
    "trade_union",
    "genetic",
    "biometric",
    "health",
    "sexuality",
    "gender_identity",
    "criminal_record",
)
TABLE = Path(__file__).parent / "data" / "special_categories.toml"

_FOLD = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"', "ё": "е"})
_SPACE = re.compile(r"\s+")
_MACRO = re.compile(r"\{([a-z_]+)\}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]")

# Sentences, then clauses: the unit a redaction replaces. Conjunctions of the table's languages end a clause
# ("I have type 2 diabetes so I keep snacks at my desk": the first clause goes, the accommodation stays).
_CLOSING = ".!?。！？…"
_SENTENCE_END = re.compile(r"(?<=[.!?。！？\n])(?![.!?。！？])\s*")
_CLAUSE_END = re.compile(
    r"[,;:，、；：]\s*|\s+[-–—]\s+|\s+(?:and|but|so|because|since|which|who|though|although|while|whereas|"
    r"et|mais|donc|car|parce que|puisque|und|aber|weil|denn|deshalb|daher|sondern|y|pero|porque|así que|"
    r"e|ma|perché|quindi|poiché|mas|então|pois|и|но|а|потому что|поэтому|так что)\s+",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Matchers:
    """Per category, one alternation of every language's patterns for each way of folding the text."""

    plain: dict[str, re.Pattern[str]]  # over fold(text), languages with word boundaries
    stripped: dict[str, re.Pattern[str]]  # over fold(text, strip_accents=True)
    unspaced: dict[str, re.Pattern[str]]  # over fold(text), languages without (only tried on CJK text)


def fold(text: str, *, strip_accents: bool = False) -> str:
    """The form the table is matched on: NFKC, invisible format characters (zero-width, bidi, tags) dropped,
    casefolded, typographic apostrophes straightened, "ё" as "е", whitespace collapsed; with `strip_accents`,
    combining marks removed as well ("diabète" -> "diabete")."""
    text = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    text = _SPACE.sub(" ", text.casefold().translate(_FOLD)).strip()
    if strip_accents:
        text = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
        text = unicodedata.normalize("NFC", text)
    return text


@cache
def _matchers() -> _Matchers:
    """The table compiled once: per category, one alternation over every language matched on the plain
    fold, one over the languages matched without accents."""
    table = tomllib.loads(TABLE.read_text(encoding="utf-8"))
    # (strip_accents, word_boundaries) -> category -> patterns
    groups: dict[tuple[bool, bool], dict[str, list[str]]] = {}
    for language, spec in table.items():
        macros = spec.get("macros", {})
        unknown = set(spec["categories"]) - set(CATEGORIES)
        if unknown:
            raise ValueError(f"{TABLE.name}: [{language}] names unknown categories {sorted(unknown)}")
        group = groups.setdefault((spec["strip_accents"], spec["word_boundaries"]), {})
        for category, patterns in spec["categories"].items():
            group.setdefault(category, []).extend(
                _MACRO.sub(lambda m, macros=macros: macros[m[1]], pattern) for pattern in patterns
            )

    def compile_group(strip: bool, bounded: bool) -> dict[str, re.Pattern[str]]:
        compiled = {}
        for category, patterns in groups.get((strip, bounded), {}).items():
            union = "|".join(f"(?:{p})" for p in patterns)
            compiled[category] = re.compile(rf"(?<!\w)(?:{union})(?!\w)" if bounded else union)
        return compiled

    if (True, False) in groups:
        raise ValueError(f"{TABLE.name}: a language without word boundaries cannot strip accents")
    return _Matchers(compile_group(False, True), compile_group(True, True), compile_group(False, False))


def special_categories(text: str) -> list[str]:
    """The special categories of personal data a text states (about anyone), in CATEGORIES order."""
    matchers = _matchers()
    plain, stripped = fold(text), fold(text, strip_accents=True)
    folds = [(matchers.plain, plain), (matchers.stripped, stripped)]
    if _CJK.search(plain):
        folds.append((matchers.unspaced, plain))
    return [
        category
        for category in CATEGORIES
        if any(category in patterns and patterns[category].search(folded) for patterns, folded in folds)
    ]


def _placeholder(categories: list[str], replaced: str) -> str:
    """What stands for `replaced`: its leading space and closing punctuation kept."""
    body = replaced.strip().rstrip(_CLOSING)
    start = replaced.index(body) if body else 0
    return (
        replaced[:start]
        + " ".join(f"[{category} redacted]" for category in categories)
        + replaced[start + len(body) :]
    )


def _pieces(text: str, separator: re.Pattern[str]) -> list[tuple[str, str]]:
    """(piece, separator after it) pairs; joined back they are `text`."""
    pieces, start = [], 0
    for match in separator.finditer(text):
        if match.end() > start:
            pieces.append((text[start : match.start()], match[0]))
            start = match.end()
    pieces.append((text[start:], ""))
    return pieces


def redact_special(text: str) -> str:
    """The text with each clause stating a special category replaced by `[<category> redacted]`; a sentence
    that states one across its clauses is replaced whole."""
    out = []
    for sentence, gap in _pieces(text, _SENTENCE_END):
        found = special_categories(sentence)
        if found:
            clauses = []
            for clause, separator in _pieces(sentence, _CLAUSE_END):
                categories = special_categories(clause)
                clauses.append((_placeholder(categories, clause) if categories else clause) + separator)
            redacted = "".join(clauses)
            if redacted == sentence or special_categories(redacted):
                redacted = _placeholder(found, sentence)
            sentence = redacted
        out.append(sentence + gap)
    return "".join(out)
