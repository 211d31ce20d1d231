"""Special categories of personal data (GDPR Art. 9: ethnic origin, political opinions, religious or
philosophical beliefs, trade union membership, genetic and biometric data, health, sex life and sexual
orientation; and gender identity) and criminal records (Art. 10) stated in a text, in any of the languages of
core/data/special_categories.toml (English, French, German, Spanish, Italian, Portuguese, Russian, Chinese,
Japanese).

No well-kept offline library detects these, so the phrases are a hand table (one per language and category),
matched on the folded forms the instruction screen reads (fold.py, whose hidden and look-alike characters are
characters.py's, as storage's are): Latin-script languages on the Latin folding (look-alikes, small
capitals, enclosed and squared letters, Morse, text written backwards, words spelled out), the others on the
text as written. It flags what a text states, about the user or anyone else; the model's
judgement plays no part. The accommodation is not the condition: "Prefers short sentences" passes, "Has
dyslexia" does not.

- `special_categories(text)`: the categories a text states, in CATEGORIES order.
- `redact_special(text)`: the clauses stating them replaced by `[<category> redacted]` (the whole sentence
  when no single clause states it); what is left states none.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

from agent_signals.core.fold import Readings, readings

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

_MACRO = re.compile(r"\{([a-z_]+)\}")
_NON_LATIN = re.compile("[^\x00-\u024f]")
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


# (script, strip_accents, word_boundaries) of a group of languages -> category -> one alternation
_Matchers = dict[tuple[str, bool, bool], dict[str, re.Pattern[str]]]


def forms(text: str, script: str, strip_accents: bool) -> list[str]:
    """The folded forms a group of languages is matched on (fold.py): Latin-script languages on the Latin
    folding and what Morse code, backwards text and spelled-out words read as; the others on the text as
    written (`plain`, "ё" as "е"); with `strip_accents`, combining marks removed ("diabète" -> "diabete")."""
    read: Readings = readings(text, marks=not strip_accents)
    if script != "latin":
        return [read.plain.replace("ё", "е")]
    return [read.latin, *(form for form in (read.morse, read.backwards, read.joined) if form)]


@cache
def _matchers() -> _Matchers:
    """The table compiled once: per group of languages read on the same folded forms, per category, one
    alternation over every language of the group."""
    table = tomllib.loads(TABLE.read_text(encoding="utf-8"))
    groups: dict[tuple[str, bool, bool], dict[str, list[str]]] = {}
    for language, spec in table.items():
        macros = spec.get("macros", {})
        unknown = set(spec["categories"]) - set(CATEGORIES)
        if unknown:
            raise ValueError(f"{TABLE.name}: [{language}] names unknown categories {sorted(unknown)}")
        if spec["script"] not in ("latin", "other"):
            raise ValueError(f"{TABLE.name}: [{language}] script must be latin or other")
        if spec["strip_accents"] and not spec["word_boundaries"]:
            raise ValueError(f"{TABLE.name}: a language without word boundaries cannot strip accents")
        group = groups.setdefault((spec["script"], spec["strip_accents"], spec["word_boundaries"]), {})
        for category, patterns in spec["categories"].items():
            group.setdefault(category, []).extend(
                _MACRO.sub(lambda m, macros=macros: macros[m[1]], pattern) for pattern in patterns
            )
    compiled: _Matchers = {}
    for (script, strip, bounded), by_category in groups.items():
        compiled[script, strip, bounded] = {}
        for category, patterns in by_category.items():
            union = "|".join(f"(?:{p})" for p in patterns)
            compiled[script, strip, bounded][category] = re.compile(
                rf"(?<!\w)(?:{union})(?!\w)" if bounded else union
            )
    return compiled


_TOKEN = re.compile(r"[^\W\d_][\w'’-]*")


def names_medicine(text: str) -> bool:
    """Whether a text names a medicine (health data whatever the sentence around it says): a word or words
    that drug-named-entity-recognition's dictionary (DrugBank, MeSH, NHS and MedlinePlus names and brand
    names, shipped in its package) knows as a drug with a MedlinePlus entry, which leaves out the foods,
    plants and chemicals the dictionary also holds ("black olive", "cashews", "caps")."""
    tokens = _TOKEN.findall(text)
    if not tokens:
        return False
    from drug_named_entity_recognition import find_drugs  # its dictionary loads on first use (about 4 s)

    return any("medline_plus_id" in drug for drug, _start, _end in find_drugs(tokens))


def special_categories(text: str) -> list[str]:
    """The special categories of personal data a text states (about anyone), in CATEGORIES order: the
    table's phrases, and a medicine named (health)."""
    found: set[str] = set()
    for (script, strip, bounded), patterns in _matchers().items():
        if script != "latin" and (text.isascii() or not _NON_LATIN.search(text)):
            continue  # the other scripts' patterns need a letter of theirs
        folded = forms(text, script, strip)
        if not bounded and not _CJK.search(folded[0]):  # languages without spaces: Chinese, Japanese
            continue
        found.update(
            category
            for category, pattern in patterns.items()
            if category not in found and any(pattern.search(form) for form in folded)
        )
    if "health" not in found and names_medicine(text):
        found.add("health")
    return [category for category in CATEGORIES if category in found]


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
