"""Special categories of personal data (GDPR Art. 9: ethnic origin, political opinions, religious or
philosophical beliefs, trade union membership, genetic and biometric data, health, sex life and sexual
orientation; and gender identity) and criminal records (Art. 10) stated in a text, in any of the languages of
core/screening/data/special_categories.toml (English, French, German, Spanish, Italian, Portuguese, Russian, Chinese,
Japanese, Korean, Arabic, Turkish, Polish, Greek, Ukrainian, Hindi in Devanagari and romanised, Swedish,
Vietnamese, Indonesian, Thai, Hebrew, Dutch).

No well-kept offline library detects these, so the phrases are a hand table (one per language and category),
matched on the folded forms the instruction screen reads (fold.py, whose hidden and look-alike characters are
characters.py's, as storage's are): Latin-script languages on the Latin folding (look-alikes, small
capitals, enclosed and squared letters, Morse, text written backwards, words spelled out), the others on the
text as written; a few English patterns that need the case of the letters (an acronym) on the text as written
with its case. It flags what a text states, about the user or anyone else; the model's
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
from functools import cache
from pathlib import Path

from agent_signals.core.screening.fold import Readings, readings, strip_marks, visible

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
# the letters of the languages written without spaces between words (Chinese, Japanese, Thai) or whose
# table is read without word boundaries (Korean, whose particles are written onto the word)
_UNSPACED = re.compile(
    r"[\u0e00-\u0e7f\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3"
    r"\uf900-\ufaff\uff66-\uff9f]"
)
# what continues a word: \w, and the vowel signs and other marks of Devanagari that \w leaves out ("दल" is
# not in "दलित"), and combining marks of texts read with them
_IN_WORD = r"\w\u0300-\u036f\u0900-\u0903\u093a-\u094f\u0951-\u0957\u0962\u0963"

# Sentences, then clauses: the unit a redaction replaces. Conjunctions of the table's languages end a clause
# ("I have type 2 diabetes so I keep snacks at my desk": the first clause goes, the accommodation stays).
# Only conjunctions no language of the table uses otherwise: not Polish "a", Dutch "en" (French, Spanish "in")
# or "want", Swedish "men", Hinglish "to"; Polish "i" and Indonesian "dan" in lower case only (English "I",
# "Dan"); Arabic and Hebrew write "and" onto the next word, Korean its conjunctions onto the verb, Thai no
# spaces: their sentences are replaced whole unless a comma parts them.
_CLOSING = ".!?。！？…।؟"
_SENTENCE_END = re.compile(r"(?<=[.!?。！？।؟\n])(?![.!?。！？।؟])\s*")
_CLAUSE_END = re.compile(
    r"[,;:，、；：،؛]\s*|\s+[-–—]\s+|\s+(?:and|but|so|because|since|which|who|though|although|while|whereas|"
    r"et|mais|donc|car|parce que|puisque|und|aber|weil|denn|deshalb|daher|sondern|y|pero|porque|así que|"
    r"e|ma|perché|quindi|poiché|mas|então|pois|и|но|а|потому что|поэтому|так что|"
    r"ve|ama|fakat|çünkü|bu yüzden|o yüzden|(?-i:i)|ale|więc|bo|ponieważ|maar|omdat|dus|och|eftersom|"
    r"(?-i:dan)|tapi|tetapi|karena|jadi|sehingga|và|nhưng|nên|vì|aur|lekin|kyunki|isliye|toh|"
    r"και|αλλά|επειδή|οπότε|γιατί|άρα|і|та|але|тому що|тому|тож|אבל|כי|לכן|لكن|لأن|لذلك|"
    r"और|लेकिन|पर|क्योंकि|इसलिए|तो)\s+",
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


# One alternation of a few thousand phrases is tried at each position of a text, each phrase in turn; the
# engine passes over a phrase that starts with a letter other than the text's in one step. So the phrases
# are split into their alternatives, a leading group written out ("(?:is|was) deaf" as "is deaf", "was
# deaf") and the alternatives gathered by their first letters ("d(?:eaf|iabetes)"): a position tries a few
# dozen first letters instead of every phrase (a call over msc-valid's gold facts as signals takes half the
# time). The set of texts matched is the same; which alternative matches first is not kept (only whether one
# does is read).
_QUANTIFIER = "?*+{"
# A leading group of more alternatives than this is left as it is. Compiling the table (once a process) takes
# about 0.5 s at 24, 0.17 s for plain alternations; calls are 5% slower at 16, 25% at 8.
_MAX_WRITTEN_OUT = 24


def _class_end(pattern: str, start: int) -> int:
    """The index of the "]" closing the character class that opens at pattern[start]."""
    i = start + 1
    i += 1 if pattern[i : i + 1] == "^" else 0
    i += 1 if pattern[i : i + 1] == "]" else 0
    while pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i


def _group_end(pattern: str, start: int = 0) -> int:
    """The index of the ")" closing the group that opens at pattern[start]."""
    depth, i = 0, start
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 1
        elif char == "[":
            i = _class_end(pattern, i)
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError(f"unbalanced group in {pattern!r}")


def _top_level(pattern: str) -> list[str]:
    """The alternatives of `pattern` outside any group or character class."""
    parts, start, i = [], 0, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 1
        elif char == "[":
            i = _class_end(pattern, i)
        elif char == "(":
            i = _group_end(pattern, i)
        elif char == "|":
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


def _written_out(alternative: str) -> list[str]:
    """An alternative with its leading group written out: "(?:a|b)c" as "ac", "bc" (not when the group is
    repeated, or has too many alternatives)."""
    if not alternative.startswith("(?:"):
        return [alternative]
    end = _group_end(alternative)
    rest = alternative[end + 1 :]
    inner = _top_level(alternative[3:end])
    if (rest and rest[0] in _QUANTIFIER) or len(inner) > _MAX_WRITTEN_OUT:
        return [alternative]
    out = [written for part in inner for written in _written_out(part + rest)]
    return out if len(out) <= _MAX_WRITTEN_OUT else [alternative]


def _by_first_letter(alternatives: list[str], depth: int = 2) -> str:
    """The alternatives as one, those that start with a letter gathered under it (to `depth` letters)."""
    heads: dict[str, list[str]] = {}
    rest = []
    for alternative in alternatives:
        if alternative[:1].isalnum() and (len(alternative) == 1 or alternative[1] not in _QUANTIFIER):
            heads.setdefault(alternative[0], []).append(alternative[1:])
        else:
            rest.append(f"(?:{alternative})")
    gathered = [
        f"{head}(?:{_by_first_letter(tails, depth - 1) if depth > 1 and len(tails) > 1 else '|'.join(tails)})"
        for head, tails in sorted(heads.items())
    ]
    return "|".join(gathered + rest)


def _alternation(patterns: list[str]) -> str:
    """The patterns as one alternation that matches where one of them does, quicker to try (above)."""
    alternatives = [
        written
        for pattern in patterns
        for alternative in _top_level(pattern)
        for written in _written_out(alternative)
    ]
    return _by_first_letter(alternatives)


def _folded_pattern(pattern: str, strip_accents: bool) -> str:
    """A pattern in the normal form the text it reads is in: NFKC (Devanagari letters with a nukta as two
    characters), and without combining marks for languages matched without them (an Arabic hamza, a Hebrew
    vowel point, an accent written into a pattern by mistake)."""
    pattern = unicodedata.normalize("NFKC", pattern)
    return strip_marks(pattern) if strip_accents else pattern


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
                _folded_pattern(
                    _MACRO.sub(lambda m, macros=macros: macros[m[1]], pattern), spec["strip_accents"]
                )
                for pattern in patterns
            )
    compiled: _Matchers = {}
    for (script, strip, bounded), by_category in groups.items():
        compiled[script, strip, bounded] = {}
        for category, patterns in by_category.items():
            union = _alternation(patterns)
            compiled[script, strip, bounded][category] = re.compile(
                rf"(?<![{_IN_WORD}])(?:{union})(?![{_IN_WORD}])" if bounded else union
            )
    return compiled


@cache
def _cased() -> dict[str, re.Pattern[str]]:
    """The table's `cased` patterns (English: an acronym told by its capitals), per category, read on the
    text as written with its case (hidden characters dropped, NFKC); `{name}` is a macro of the language's
    `macros` table, as in its other patterns."""
    table = tomllib.loads(TABLE.read_text(encoding="utf-8"))
    by_category: dict[str, list[str]] = {}
    for spec in table.values():
        macros = spec.get("macros", {})
        for category, patterns in spec.get("cased", {}).items():
            by_category.setdefault(category, []).extend(
                _MACRO.sub(lambda m, macros=macros: macros[m[1]], pattern) for pattern in patterns
            )
    return {
        category: re.compile(rf"(?<!\w)(?:{'|'.join(f'(?:{p})' for p in patterns)})(?!\w)")
        for category, patterns in by_category.items()
    }


_TOKEN = re.compile(r"[^\W\d_][\w'’-]*")


# The Latin-script languages of the table other than English that wordfreq has word lists for
_OTHER_LATIN = ("nl", "tr", "id", "sv", "pl", "de", "fr", "es", "it", "pt", "vi")


@cache
def _everyday_word(word: str) -> bool:
    """Whether a brand name is an everyday word of one of the table's other Latin-script languages and a rare
    one in English ("zeven", seven in Dutch, is a brand of dalbavancin; "saha", a field in Turkish, of
    vorinostat): about three words in a hundred thousand or more there (a Zipf frequency of 3.5), under one
    in a million in English."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") < 3 and any(zipf_frequency(word, lang) >= 3.5 for lang in _OTHER_LATIN)


def names_medicine(text: str) -> bool:
    """Whether a text names a medicine (health data whatever the sentence around it says): a word or words
    that drug-named-entity-recognition's dictionary (DrugBank, MeSH, NHS and MedlinePlus names and brand
    names, shipped in its package) knows as a drug with a MedlinePlus entry, which leaves out the foods,
    plants and chemicals the dictionary also holds ("black olive", "cashews", "caps"), and a brand name
    that is an everyday word of another language of the table (_everyday_word)."""
    tokens = _TOKEN.findall(text)
    if not tokens:
        return False
    from drug_named_entity_recognition import find_drugs  # its dictionary loads on first use (about 4 s)

    return any(
        "medline_plus_id" in drug
        and not (
            end - start == 1
            and tokens[start].casefold() != drug["name"].casefold()
            and _everyday_word(tokens[start].casefold())
        )
        for drug, start, end in find_drugs(tokens)
    )


def special_categories(text: str) -> list[str]:
    """The special categories of personal data a text states (about anyone), in CATEGORIES order: the
    table's phrases, and a medicine named (health); read as written and with each gloss in the place of the
    words it glosses (`glossed`)."""
    found: set[str] = set()
    for form in (text, *glossed(text)):
        _find(form, found)
    return [category for category in CATEGORIES if category in found]


_GLOSS = re.compile(r"\(([^()]{2,60})\)")
GLOSSED_WORDS = 4  # how many words before a gloss it may stand for


def glossed(text: str) -> list[str]:
    """A statement that keeps the user's own word and glosses it in parentheses ("Is Kürt (Kurdish)",
    "fasts during Wielki Post (Lent)") read with the gloss in that word's place: for each gloss, the text with
    the gloss standing for the one to GLOSSED_WORDS words before it (the tables read "Is Kurdish", "during
    Lent")."""
    forms = []
    for match in _GLOSS.finditer(text):
        words = text[: match.start()].rstrip().split(" ")
        for n in range(1, min(GLOSSED_WORDS, len(words)) + 1):
            forms.append(" ".join([*words[:-n], match[1]]) + text[match.end() :])
    return forms


def _find(text: str, found: set[str]) -> None:
    for (script, strip, bounded), patterns in _matchers().items():
        if script != "latin" and (text.isascii() or not _NON_LATIN.search(text)):
            continue  # the other scripts' patterns need a letter of theirs
        folded = forms(text, script, strip)
        if not bounded and not _UNSPACED.search(folded[0]):  # Chinese, Japanese, Korean, Thai
            continue
        found.update(
            category
            for category, pattern in patterns.items()
            if category not in found and any(pattern.search(form) for form in folded)
        )
    cased = _cased()
    if cased and not set(cased) <= found:
        shown = visible(text)
        found.update(category for category, pattern in cased.items() if pattern.search(shown))
    if "health" not in found and names_medicine(text):
        found.add("health")


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
