"""Passwords in any language: a password-shaped token wherever it stands, and a value stated after the
word for "password", "PIN", "passcode", "Wi-Fi key" or "code" in over thirty languages (cues.py).

No library judges a token in prose: detect-secrets (credentials.py) needs 16 random characters or a
keyword in an assignment; zxcvbn scores a password someone chose, not whether a token is one. So the
shape is judged here: letters and digits with a password symbol inside ("Sunflower!1987",
"Tr0ub4dor&3"), or case and digits interleaved as in a generated one ("xK9mP2qL"), and never a word,
a version, a product or model name or a quantity ("Python3", "iPhone15", "GPT-4o", "COVID-19",
"v2.3.1", "10x", "4K", "i7-12700K", "10+years", "50%off").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

from agent_signals.core.screening.sensitive.cues import CODE_WORDS, PASSWORD_WORDS, cue
from agent_signals.core.screening.sensitive.finding import Finding

# ---------------------------------------------------------------------------------------------------
# A password-shaped token, wherever it stands

# Most texts have no token of 8 characters mixing a letter and a digit: the pre-filter.
_CANDIDATE = re.compile(r"(?<!\S)(?=\S*[^\W\d_])(?=\S*\d)\S{8,64}")
_WRAPPING = "\"'“”‘’«»()[]{}<>*_~`.,;:!?"
_PASSWORD_SYMBOL = re.compile(r"[!#$%^&*+=?~|\\<>@]")
_MIN_BITS = 20  # Shannon entropy of the token times its length: "aaaa1111!!" has less
# What a token with a symbol may be that is not a password: an address, a path, an assignment, a sum,
# a quantity ("10+", "50%", "$5", "5*"), an acronym joined by "&" ("AT&T", "R&D"), a language ("C++").
_ORDINARY_WITH_SYMBOL = re.compile(
    r"://|^www\.|^[@#$€£¥₹]|[\w.+-]+@[\w-]+\.\w|^[\w.-]+=|\d[+%*]|[+%*]\d|^\d+[xX×*]\d|\b[A-Z]{1,3}&[A-Z]{1,3}(?![a-z])"
    r"|\b[A-Za-z]\+\+|\b[A-Za-z]#|&(?:amp|lt|gt|quot|#\d+);|\?\w+=|\.(?:com|org|net|io|html?|php|py|js|md|pdf|png|jpe?g)\b",
    re.I,
)
_SEGMENTS = re.compile(r"[^\W\d_]+|\d+")
_CASE_CHUNK = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def find_shaped_passwords(text: str) -> Iterator[Finding]:
    for match in _CANDIDATE.finditer(text):
        token, start = _unwrap(match[0], match.start())
        if token and password_shaped(token):
            yield Finding("password", start, start + len(token))


def password_shaped(token: str) -> bool:
    """A password someone chose or a generator made, rather than a word, code, version or quantity."""
    if not 8 <= len(token) <= 64 or not re.search(r"\d", token) or not re.search(r"[^\W\d_]", token):
        return False
    if _bits(token) < _MIN_BITS:
        return False
    inner = token[1:-1]
    if _PASSWORD_SYMBOL.search(inner) and not _ORDINARY_WITH_SYMBOL.search(token):
        return True
    return _generated(token)


def _generated(token: str) -> bool:
    """Upper and lower case and digits interleaved, in chunks too short to be words: "xK9mP2qL",
    "Tr0ub4dor3" (not "iPhone15", "MacBookPro2019", "RTX4090Ti")."""
    if not token.isascii() or not token.isalnum():
        return False
    if not (re.search(r"[a-z]", token) and re.search(r"[A-Z]", token)):
        return False
    segments = _SEGMENTS.findall(token)
    letters = [s for s in segments if s.isalpha()]
    if len(segments) < 4 or sum(map(len, letters)) < 3 or sum(c.isdigit() for c in token) < 2:
        return False
    chunks = [c for s in letters for c in _CASE_CHUNK.findall(s)]
    return sum(map(len, chunks)) / len(chunks) < 2.5


def _bits(token: str) -> float:
    counts = Counter(token)
    return -sum(n * math.log2(n / len(token)) for n in counts.values())


def _unwrap(token: str, start: int) -> tuple[str, int]:
    """The token without the quotes, brackets, markup and sentence punctuation around it."""
    stripped = token.lstrip(_WRAPPING)
    start += len(token) - len(stripped)
    return stripped.rstrip(_WRAPPING), start


# ---------------------------------------------------------------------------------------------------
# A value stated after the word for a password, in any language

# One scan for both tables: a bare "code" (weak) only where no word for a password starts.
_CUES = re.compile(rf"(?P<strong>{cue(PASSWORD_WORDS).pattern})|{cue(CODE_WORDS).pattern}", re.I)
_REACH = 80  # characters after the cue where its value may stand
_MAX_WORDS = 6  # words between the cue and its value ("mật khẩu wifi nhà mình là meomeo2020")
_CLAUSE_END = re.compile(r"\n|[。！？；]|[.!?;](?=\s|$)")
_TOKEN = re.compile(
    r"[\"“«‘'「『](?P<quoted>[^\"”»’'」』\n]{1,80})[\"”»’'」』]|(?P<plain>[^\s,，、。()\[\]]+)"
)
_MARK = re.compile(r"^[:=：—–-]+$")
_LATIN_HEAD = re.compile(r"^[\x21-\x7e]+")
_NON_LATIN = re.compile(r"[^\x00-\u024f]")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_PREFIXED_NUMBER = re.compile(r"^[\u0590-\u06ff]{1,2}-(?=\d)")
# A value that is a quantity, a version, a model or an ordinal, not a secret ("3x", "v2", "2FA", "4K").
_NOT_A_VALUE = re.compile(
    r"^(?:v?\d+(?:[.,]\d+)+\w*|(?:19|20)\d\d[-–/](?:19|20)?\d\d|\d+(?:[.,]\d+)?[^\W\d_]{1,3}|[A-Z]{1,4}-?\d{1,4}[a-z]?)$"
)
_WORD = re.compile(r"^[^\W\d_]+$")


def find_stated_values(text: str) -> Iterator[Finding]:
    """ "<word for password> [up to six words] [mark or copula] <value>": the value has a digit or a
    symbol, or is quoted, or follows a mark (":", "="); after a bare "code", only a value after a mark."""
    for match in _CUES.finditer(text):
        found = _value_after(text, match.end(), weak=match["strong"] is None)
        if found:
            yield Finding("password", *found)


def _value_after(text: str, at: int, weak: bool) -> tuple[int, int] | None:
    end = min(len(text), at + _REACH)
    clause = _CLAUSE_END.search(text, at, end)
    end = clause.start() if clause else end
    marked = False
    tokens = list(_TOKEN.finditer(text, at, end))
    for i, token in enumerate(tokens[: _MAX_WORDS + 1]):
        if token["quoted"]:
            return token.start("quoted"), token.end("quoted")
        value, start = token["plain"], token.start()
        if _MARK.match(value):
            marked = True
            continue
        if value.endswith((":", "：", "=")):
            marked = True
            continue
        prefix = _PREFIXED_NUMBER.match(value)  # "ל-300": "to 300"
        if prefix:
            value, start = value[prefix.end() :], start + prefix.end()
        raw, value = value, _trim(value)
        after = tokens[i + 1]["plain"] if i + 1 < len(tokens) and tokens[i + 1]["plain"] else ""
        if raw != value or not text[token.end() : token.end() + 1].isspace():
            after = ""  # "4490, unutursam sor": the value ends its clause
        if value and _is_value(value, marked, weak, i, after):
            return start, start + len(value)
        if marked:
            return None  # the value stands right after its mark
    return None


def _trim(value: str) -> str:
    """A value without the sentence punctuation after it, nor the particle a script glues to it
    ("qwerty12야", "abc123です")."""
    head = _LATIN_HEAD.match(value)
    if head and _NON_LATIN.search(value):
        value = head[0]
    return value.rstrip(".,;:!?)'\"’”»")


def _is_value(value: str, marked: bool, weak: bool, position: int, after: str) -> bool:
    digits = sum(c.isdigit() for c in value)
    if len(value) < 4 or _NOT_A_VALUE.match(value):
        return False
    if value.isdigit():
        if marked:
            return True
        if weak or _YEAR.match(value):
            return False
        return not (len(after) >= 4 and _WORD.match(after))  # "on 1500 servers": a count
    if weak and not marked:
        return False
    if digits or _PASSWORD_SYMBOL.search(value):
        return True
    # a word after a mark: a password ("password: sunflower"), not after a bare "code" ("code: type hints")
    return marked and not weak and len(value) >= 4 and _WORD.match(value) is not None
