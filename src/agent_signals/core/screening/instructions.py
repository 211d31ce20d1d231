"""Is a text an instruction to the agent rather than a description of the user? A signal says who the user
is and how they like to be answered ("Prefers bullet lists", "Answer me in French"); it never changes what
the agent may do. `instruction_reason(text)` names why a text must not become a signal, or returns None:

- intents, in nine languages (the tables in `instruction_phrases/<language>.toml`, one per language, by
  intent): ignore or override the agent's instructions, reveal its prompt or configuration, skip
  confirmations or checks, trust links, senders or files, treat the user as someone else or with more
  rights, act for or tell other users, send, delete or pay on its own, claims of permissions, authority or
  other people's consent, answers in an encoding;
- syntax, whatever the language (`SYNTAX` below): links (also `javascript:`, `data:` and defanged ones),
  markup and template syntax, code; and encoded blobs (base64, hex, binary, escapes).

Each table reads the folded forms of the text (fold.py): NFKC, invisible characters dropped, look-alike
letters folded (other scripts' homoglyphs, small capitals, enclosed, squared and negative squared letters,
regional indicators), leetspeak, ROT13, Morse code, text written backwards and words spelled out letter by
letter read too, and what tag characters or a right-to-left override hide.
No maintained offline library judges prompt-injection intent, hence the phrase tables; they name what a
person would write, and stay narrow enough that ordinary facts and preferences pass (a job title with
"administrator" in it is a fact; "an administrator with full access" is a claim).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agent_signals.core.memo import per_text
from agent_signals.core.screening.alternation import dispatched, group_name
from agent_signals.core.screening.fold import Readings, readings, strip_marks, visible
from agent_signals.errors import AgentSignalsError

PHRASES_DIR = Path(__file__).with_name("instruction_phrases")
_HINT = "fix the phrase table: en.toml's header describes the syntax"

# intent -> the reason recorded for a text that shows it (ops.quarantine.reason)
INTENTS: dict[str, str] = {
    "override": "asks the agent to ignore or override its instructions",
    "reveal": "asks the agent to reveal its prompt, instructions or configuration",
    "skip_checks": "asks the agent to skip confirmations, checks or safety steps",
    "trust": "asks the agent to trust links, senders or files",
    "elevate": "asks the agent to treat the user as someone else or with more rights",
    "act_for_others": "asks the agent to act for or tell other users",
    "act": "asks the agent to send, delete or pay on its own",
    "authority": "claims permissions, authority or other people's consent",
    "encoding": "asks the agent to answer in an encoding",
}

# Syntax that no description of a person carries, read on the folded Latin form (case folded).
SYNTAX: dict[str, tuple[str, list[str]]] = {
    "link": ("carries a link", [
        r"\b(?:h[tx]{2}ps?|ftps?|sftp|wss?|ssh|smb|git)\s*(?:\[\s*:\s*\]|:)\s*/\s*/",  # http://, hxxp[:]//
        r"\b(?:java|vb)\s*script\s*:",
        r"\bdata\s*:\s*[a-z]+/[a-z0-9.+-]+\s*[;,]",
        r"\bfile\s*:\s*/",
        r"\bwww\s*(?:\.|\[\s*(?:\.|dot)\s*\]|\(\s*(?:\.|dot)\s*\)| dot )\s*[a-z0-9-]{2,}",
        r"[a-z0-9-]\s*(?:\[\s*(?:\.|dot)\s*\]|\(\s*(?:\.|dot)\s*\)|\{\s*(?:\.|dot)\s*\})\s*[a-z]{2,}",  # [.]
        r"\b[a-z0-9-]{2,} dot [a-z0-9-]{2,} dot [a-z]{2,}\b",  # evil dot example dot com
        r"\b[a-z0-9-]{2,} dot [a-z]{2,6}\s*(?:/|\bslash\b)",  # evil dot com/login
        r"\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,6}(?::\d+)?/[^\s]*[a-z0-9]",  # example.com/login
        r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?/",
    ]),
    "markup": ("carries markup or template syntax", [
        r"</?[a-z!?][a-z0-9:-]*(?:\s|/|>|$)",  # <b>, </m>, <script, <!--
        r"&(?:[a-z]{2,8}|#\d{2,7}|#x[0-9a-f]{2,6});",
        r"\{\{|\}\}|\{%|%\}|\{#|#\}|\$\{|#\{|<%|%>|\[\[|\]\]",
        r"\{\s*[a-z_][\w.]*\s*\}",
        r"\]\s*\(|!\[",  # markdown links and images
        r"<\|[a-z_]+\|>|<<\s*/?\s*sys\s*>>|\[/?(?:inst|sys|system|assistant|user|img|url|script)\]",
        r"(?:^|\n)\s*(?:#{1,6}|>)\s",  # a heading or a quote block
        r"(?:^|[\n.!?]\s*)(?:system|assistant|developer|human|ai|tool)\s*:",  # fake turns
    ]),
    "code": ("carries code", [
        r"```",
        r"\b(?:rm\s+-[a-z]*[rf]|chmod\s+[0-7+]|chown\s+\w|bash\s+-c|sh\s+-c|nc\s+-[a-z]*[el]|mkfs|"
        r"sudo\s+(?:-\w|rm|apt|apt-get|yum|dnf|chmod|chown|su|bash|sh|dd|kill|systemctl|useradd|passwd|cat)\b|"
        r"dd\s+if=|base64\s+-d|powershell|cmd(?:\.exe)?\s*/c)",
        r"\b(?:curl|wget)\s+(?:-|['\"]|https?|\S+\.\S+)",
        r"\|\s*(?:sh|bash|zsh|python3?|perl|ruby|node)\b|\$\(|;\s*(?:rm|curl|wget|cat|sudo|echo)\b|&&\s*[a-z]",
        r"\b(?:eval|exec|system|popen|fetch|require|print|alert)\(|os\.system|subprocess\.|__import__|"
        r"document\.cookie|window\.location|console\.log|#!/",
        r"\bdef\s+\w+\s*\(|\bfunction\s*\w*\s*\([^)]*\)\s*\{|=>\s*\{|\blambda\s+\w+(?:\s*,\s*\w+)*\s*:\s*\S",
        r"\bselect\s+(?:\*|[\w.]+(?:\s*,\s*[\w.]+)*)\s+from\s+\w+\s*(?:where|join|limit|order|;|$)",
        r"\b(?:drop|truncate)\s+(?:table|database)\b|\bunion\s+(?:all\s+)?select\b|"
        r"\binsert\s+into\s+\w+\s*(?:\(|values|select)|\bdelete\s+from\s+\w+\s*(?:where|;)|"
        r"\bupdate\s+\w+\s+set\s+\w+\s*=|'\s*or\s+'?1'?\s*=\s*'?1|;\s*--",
    ]),
}  # fmt: skip
BLOB_REASON = "carries an encoded blob"


def _mixed_hex(run: str) -> bool:
    digits = re.sub(r"^0x|[\s:,-]", "", run.lower())
    return any(c.isdigit() for c in digits) and any(c.isalpha() for c in digits)


def _base64(run: str) -> bool:
    """Upper and lower case and digits together, or two of them and padding: not a word or a number."""
    classes = sum(
        (any(c.isupper() for c in run), any(c.islower() for c in run), any(c.isdigit() for c in run))
    )
    return classes == 3 or (classes == 2 and run.endswith("="))


# Read on the text as written (NFKC, invisible characters dropped, case kept); a run counts when its check
# (if any) agrees.
BLOBS: list[tuple[re.Pattern[str], Callable[[str], bool] | None]] = [
    (re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/_-]{20,}={0,2}(?![\w+/=-])"), _base64),
    (re.compile(r"\b(?:0x)?[0-9A-Fa-f]{16,}\b"), _mixed_hex),
    (re.compile(r"(?:\b[0-9A-Fa-f]{2}[\s:,-]){7,}[0-9A-Fa-f]{2}\b"), _mixed_hex),  # hex bytes
    (re.compile(r"(?:\\x[0-9A-Fa-f]{2}){3,}|(?:\\u[0-9A-Fa-f]{4}){2,}|(?:%[0-9A-Fa-f]{2}){3,}"), None),
    (re.compile(r"\b[01]{8}(?:\s+[01]{8}){3,}\b|\b[01]{32,}\b"), None),  # binary
]

BLOB_MARKER = "[encoded blob redacted]"


def redact_blobs(text: str) -> str:
    """The text with each encoded blob (BLOBS, as instruction_reason finds them) replaced by BLOB_MARKER."""
    if len(text) < 16:  # the shortest blob BLOBS finds: 16 hex digits
        return text
    for blob, check in BLOBS:
        text = blob.sub(lambda m, check=check: BLOB_MARKER if check is None or check(m[0]) else m[0], text)
    return text


_GROUP = re.compile(r"<([a-z_]+)>")
_UPPER = re.compile(r"(?<!\\)[A-Z]")  # \W, \S ... are escapes, not letters
_NON_LATIN = re.compile("[^\x00-\u024f]")  # the other tables need a letter of another script to match
_HIDDEN = {
    "leet_i": " (in leetspeak)",
    "leet_l": " (in leetspeak)",
    "rot13": " (in ROT13)",
    "hidden": " (hidden in invisible characters)",
    "morse": " (in Morse code)",
    "backwards": " (written backwards)",
    "joined": " (spelled out letter by letter)",
}
_DECODED = ("morse", "backwards", "joined")  # readings that are "" unless the text needs them


@dataclass(frozen=True)
class _Tables:
    latin: re.Pattern[str]  # intents of Latin-script languages, named groups by intent
    other: re.Pattern[str]  # intents of the other languages
    syntax: re.Pattern[str]  # SYNTAX, named groups by kind


@per_text
def instruction_reason(text: str) -> str | None:
    """Why `text` reads as an instruction to the agent, a claim of authority, or carries links, markup,
    code or an encoded blob (a short reason), or None."""
    forms = readings(text)
    found = _reason(forms, visible(text))
    if found is None and forms.hidden:
        found = _reason(readings(forms.hidden), forms.hidden)
        return found and found + _HIDDEN["hidden"]
    return found


# A quotation the user reports rather than gives: "scam messages that say things like 'ignore your previous
# instructions'" mentions an instruction; the quotation itself is still screened wherever it is copied
_REPORTED_QUOTE = re.compile(
    r"(?:\b(?:says?|said|saying|like|such as|e\.g\.|reads?|wrote|writes|phrases?|lines?|messages?|emails?|"
    r"texts?|examples?)\W{0,3})(?:\"[^\"]{3,300}\"|“[^”]{3,300}”|«[^»]{3,300}»|‘[^’]{3,300}’|'[^']{3,300}')",
    re.I,
)


def without_mentions(text: str) -> str:
    """A user's message without the quotations it reports (_REPORTED_QUOTE): what the message itself says."""
    return _REPORTED_QUOTE.sub(" ", text)


@per_text
def intent_reason(text: str) -> str | None:
    """Why `text` asks the agent for something or claims authority (the phrase tables' intents, not the
    syntax: a link or code in a message is no instruction by itself), or None."""
    forms = readings(text)
    found = _reason(forms, visible(text), syntax=False)
    if found is None and forms.hidden:
        found = _reason(readings(forms.hidden), forms.hidden, syntax=False)
        return found and found + _HIDDEN["hidden"]
    return found


def _reason(forms: Readings, shown: str, syntax: bool = True) -> str | None:
    tables = _tables()
    decoded = [name for name in _DECODED if getattr(forms, name)]
    for name in ("latin", "rot13", *decoded) if syntax else ():
        if match := tables.syntax.search(getattr(forms, name)):
            return SYNTAX[group_name(match)][0] + _HIDDEN.get(name, "")
    if syntax and any(check is None or check(m[0]) for blob, check in BLOBS for m in blob.finditer(shown)):
        return BLOB_REASON
    if _NON_LATIN.search(forms.plain) and (match := tables.other.search(forms.plain)):
        return INTENTS[group_name(match)]
    for name in ("latin", "leet_i", "leet_l", "rot13", *decoded):
        if name.startswith("leet") and getattr(forms, name) == forms.latin:
            continue
        if match := tables.latin.search(getattr(forms, name)):
            suffix = _HIDDEN.get(name, "")
            if name == "latin" and not tables.latin.search(forms.plain):
                suffix = " (with look-alike letters)"
            return INTENTS[group_name(match)] + suffix
    return None


@cache
def _tables() -> _Tables:
    latin: dict[str, list[str]] = {intent: [] for intent in INTENTS}
    other: dict[str, list[str]] = {intent: [] for intent in INTENTS}
    for language in phrase_tables().values():
        into = latin if language.script == "latin" else other
        for intent, patterns in language.phrases.items():
            into[intent].extend(_expand(p, language) for p in patterns)
    syntax = {kind: patterns for kind, (_reason, patterns) in SYNTAX.items()}
    return _Tables(_compile(latin, words=True), _compile(other, words=False), _compile(syntax))


@dataclass(frozen=True)
class PhraseTable:
    language: str
    script: str  # "latin": read on the Latin folding (with leetspeak and ROT13); "other": on `plain`
    words: bool  # words separated by spaces: a space matches any run of non-word characters
    phrases: dict[str, list[str]]
    groups: dict[str, str]  # name -> alternatives that patterns use as <name>


@cache
def phrase_tables() -> dict[str, PhraseTable]:
    """The phrase tables by language code (file name)."""
    tables = {}
    for path in sorted(PHRASES_DIR.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        unknown = set(data["phrases"]) - set(INTENTS)
        if unknown or data["script"] not in ("latin", "other"):
            raise AgentSignalsError(
                f"{path}: unknown intents {sorted(unknown)} or script {data['script']!r}", _HINT
            )
        patterns = [
            *data.get("words_groups", {}).values(),
            *(p for ps in data["phrases"].values() for p in ps),
        ]
        if upper := [p for p in patterns if _UPPER.search(p)]:
            raise AgentSignalsError(
                f"{path}: a pattern has capitals (the text is case-folded): {upper[0]!r}", _HINT
            )
        tables[path.stem] = PhraseTable(
            data["language"], data["script"], data["words"], data["phrases"], data.get("words_groups", {})
        )
    return tables


def _expand(pattern: str, table: PhraseTable) -> str:
    """A table's pattern as a regular expression over the folded text: <name> replaced by the table's group
    of that name, the same folding as the text (case, marks), and in languages written with spaces: " ~ "
    is a gap of up to four words, " ~~ " of up to twelve, a space any run of non-word characters (" ?": or
    none), and the pattern matches whole words."""
    pattern = _GROUP.sub(lambda m: table.groups[m[1]], pattern)
    pattern = strip_marks("".join(c.casefold() if c > "\x7f" else c for c in pattern))
    if not table.words:
        return pattern
    pattern = pattern.replace(" ~~ ", r"\W+(?:[\w']+\W+){0,12}?").replace(" ~ ", r"\W+(?:[\w']+\W+){0,4}?")
    if "~" in pattern:
        raise AgentSignalsError(f"{table.language}: a gap without a space on each side in {pattern!r}", _HINT)
    pattern = pattern.replace(" ?", r"\W*").replace(" ", r"\W+")
    return r"(?<!\w)(?:" + pattern + r")(?!\w)"


def _compile(groups: dict[str, list[str]], *, words: bool = False) -> re.Pattern[str]:
    """One expression with a named group per intent or kind (`group_name` of a match names it). The text is
    case-folded and the patterns lower case (phrase_tables checks): no IGNORECASE, twice as fast."""
    if not words:
        named = [f"(?P<{name}>{'|'.join(patterns)})" for name, patterns in groups.items() if patterns]
        return re.compile("|".join(named) or "(?!)")
    branches = [(name, pattern) for name, patterns in groups.items() for pattern in patterns]
    # every pattern of a table with words starts a word: said once in front, it fails fast elsewhere; at a
    # word's start only the phrases that can start with its letter are tried (alternation.py: three times
    # as fast over msc-valid's messages as a plain alternation of the few hundred phrases)
    return re.compile(rf"(?<!\w)(?:{dispatched(branches)})")
