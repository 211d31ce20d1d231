"""Secrets and personal identifiers in free text, found with well-kept libraries where one exists:
detect-secrets for credentials and high-entropy strings, python-stdnum for IBANs, card numbers and
national identification numbers (each with its check digits), phonenumbers for phone numbers and
babel (CLDR) for month names. What no library lists, the phrases around the data ("my password is",
"door code", "born on", "jane at example dot com", digits read out as words, street words), is in
sensitive_words.py, in eleven languages.

`sensitive_kinds(text)` names what a text holds; `redact(text)` replaces each finding with
`[<kind> redacted]`. Both are pure: nothing here reads a file or the network (detect-secrets runs
in-process with a fixed plugin list and its default filters, and without verification, the only
step of it that goes online).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache

import phonenumbers
from babel import Locale
from detect_secrets.core.scan import scan_line
from detect_secrets.plugins.high_entropy_strings import (
    Base64HighEntropyString,
    HexHighEntropyString,
    HighEntropyStringsPlugin,
)
from detect_secrets.settings import Settings, get_settings
from stdnum import iban, luhn
from stdnum.br import cpf
from stdnum.cn import ric
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.fr import nir
from stdnum.gb import nhs
from stdnum.it import codicefiscale
from stdnum.pt import cc
from stdnum.ru import inn
from stdnum.us import ssn

from agent_signals.core import sensitive_words as words

# Every kind of finding, in the order sensitive_kinds() reports them.
KINDS = (
    "api_key",
    "password",
    "card_number",
    "iban",
    "national_id",
    "phone",
    "email",
    "address",
    "door_code",
    "date_of_birth",
)


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int


def sensitive_kinds(text: str) -> list[str]:
    """The kinds of secret, identifier or contact data found in a text."""
    found = {f.kind for f in findings(text)}
    return [kind for kind in KINDS if kind in found]


def redact(text: str) -> str:
    """The text with each finding replaced by `[<kind> redacted]` (overlapping findings merge)."""
    spans = sorted(findings(text), key=lambda f: (f.start, -f.end))
    pieces, cursor = [], 0
    for finding in spans:
        if pieces and (finding.start < cursor or (finding.start == cursor and finding.kind == pieces[-1][2])):
            # inside, overlapping or continuing the previous finding: one marker
            if finding.end > cursor:
                pieces[-1] = (pieces[-1][0], finding.end, pieces[-1][2])
                cursor = finding.end
            continue
        pieces.append((finding.start, finding.end, finding.kind))
        cursor = finding.end
    out, last = [], 0
    for start, end, kind in pieces:
        out.append(text[last:start])
        out.append(f"[{kind} redacted]")
        last = end
    out.append(text[last:])
    return "".join(out)


def findings(text: str) -> list[Finding]:
    """Every secret, identifier and piece of contact data in a text, with its span (none inside a
    `[<kind> redacted]` marker: redacting twice changes nothing more)."""
    digits = sum(ch.isdigit() for ch in text)
    found = [*_credentials(text), *_stated_passwords(text), *_emails(text), *_spoken_phones(text)]
    if digits:
        found += [*_door_codes(text), *_birth_dates(text), *_addresses(text)]
    if digits >= _MIN_ID_DIGITS:
        found += [*_numbers(text), *_phones(text)]
    markers = [m.span() for m in _MARKER.finditer(text)]
    return [f for f in found if not any(start <= f.start and f.end <= end for start, end in markers)]


_MARKER = re.compile(rf"\[(?:{'|'.join(KINDS)}) redacted\]")
# Where a number or code starts and ends: not inside a Latin word or a longer number (a CJK character
# may touch it: "身份证号码是360426199101010071").
_START = r"(?<![A-Za-z0-9-])"
_END = r"(?![A-Za-z0-9-])"


# ---------------------------------------------------------------------------------------------------
# Credentials and high-entropy strings: detect-secrets, line by line

# The plugins that find credentials in prose: every detector of a named service's key format, the
# keyword and basic-auth detectors, a private key's header, and the two entropy detectors. Left out:
# IPPublicDetector (version numbers such as 1.2.3.4 read as public addresses).
_DETECTORS = (
    "AWSKeyDetector",
    "ArtifactoryDetector",
    "AzureStorageKeyDetector",
    "BasicAuthDetector",
    "CloudantDetector",
    "DiscordBotTokenDetector",
    "GitHubTokenDetector",
    "GitLabTokenDetector",
    "IbmCloudIamDetector",
    "IbmCosHmacDetector",
    "JwtTokenDetector",
    "KeywordDetector",
    "MailchimpDetector",
    "NpmDetector",
    "OpenAIDetector",
    "PrivateKeyDetector",
    "PypiTokenDetector",
    "SendGridDetector",
    "SlackDetector",
    "SoftlayerDetector",
    "SquareOAuthDetector",
    "StripeDetector",
    "TelegramBotTokenDetector",
    "TwilioKeyDetector",
)
# The ad hoc scan reports every word as an entropy candidate and leaves the limit to its caller.
_ENTROPY = {p.secret_type: p for p in (Base64HighEntropyString(limit=4.5), HexHighEntropyString(limit=3.0))}
_MIN_ENTROPY_LENGTH = 16
_PASSWORD_TYPES = frozenset({"Secret Keyword", "Basic Auth Credentials"})
# The one filter that calls a service's API to verify a secret: it must never be configured.
_VERIFY_FILTER = "detect_secrets.filters.common.is_ignored_due_to_verification_policies"
# Lines that cannot hold a credential skip the scan (it costs 1-3 ms a line): every detector needs
# a token of 11 or more characters mixing letters and digits (the shortest key format, Artifactory's,
# has 11), or of 23 or more (a base64 entropy over 4.5 bits needs 23 distinct characters; a hex one
# over 3 bits without a digit cannot be), a URL's credentials, a private key's header or an
# assignment to a keyword such as "password:" or "api_key=".
_MAYBE_SECRET = re.compile(
    r"(?<!\S)(?=\S*[A-Za-z])(?=\S*\d)\S{11,}|\S{23,}|BEGIN|://|"
    r"(?:key|pass|pwd|secret|token|contrase)\w*\W{0,3}[:=]",
    re.I,
)
_settings_lock = threading.Lock()


def _credentials(text: str) -> Iterator[Finding]:
    offset = 0
    for line in text.splitlines(keepends=True):
        if _MAYBE_SECRET.search(line):
            _configure_detect_secrets()  # a no-op unless something else in the process changed it
            for secret in scan_line(line):
                value = secret.secret_value
                entropy = _ENTROPY.get(secret.type)
                if not value or (entropy and not _random_enough(entropy, value)):
                    continue
                kind = "password" if secret.type in _PASSWORD_TYPES else "api_key"
                for match in re.finditer(re.escape(value), line):
                    yield Finding(kind, offset + match.start(), offset + match.end())
        offset += len(line)


def _random_enough(plugin: HighEntropyStringsPlugin, value: str) -> bool:
    """The entropy check the ad hoc scan leaves to its caller, on tokens long enough to be a key
    (a 9-character hex-looking word such as "AB123456C" passes the limit by chance)."""
    return (
        len(value) >= _MIN_ENTROPY_LENGTH and plugin.calculate_shannon_entropy(value) > plugin.entropy_limit
    )


def _configure_detect_secrets() -> None:
    """detect-secrets keeps its plugins and filters in a process-wide object: set ours once (and
    again should anything else in the process change it), never from a file."""
    settings = get_settings()
    if set(settings.plugins) == _PLUGIN_NAMES and _VERIFY_FILTER not in settings.filters:
        return
    with _settings_lock:
        settings = get_settings()
        settings.clear()  # the default filters, no plugin
        settings.configure_plugins(
            [
                *({"name": name} for name in _DETECTORS),
                *({"name": type(p).__name__, "limit": p.entropy_limit} for p in _ENTROPY.values()),
            ]
        )
        settings.configure_filters([{"path": path} for path in sorted(_DEFAULT_FILTERS)])


_PLUGIN_NAMES = frozenset([*_DETECTORS, *(type(p).__name__ for p in _ENTROPY.values())])
_DEFAULT_FILTERS = frozenset(Settings().filters) - {_VERIFY_FILTER}
_configure_detect_secrets()  # at import, before any thread scans


# ---------------------------------------------------------------------------------------------------
# Passwords, PINs and passphrases stated in words; door codes

_LETTER = "A-Za-zÀ-ÖØ-öø-ɏА-яЁё"  # Latin and Cyrillic letters: the edges of a Latin or Cyrillic word
_VALUE = (
    r"(?:[\"“«'‘「『](?P<quoted>[^\"”»'’」』\n]{1,80})[\"”»'’」』]"
    r"|(?P<value>[^\s，。、！？「」『』“”«»()\[\]]+))"
)
_MARK = words.PASSWORD_MARK_CONNECTORS


def _stated_password_pattern(owners: str, triggers: str, connectors: str) -> re.Pattern[str]:
    """ "[owner] <trigger> [up to four words] <connector> <value>", or "<trigger> <value>"."""
    connector = rf"(?:{connectors})(?![{_LETTER}'’])|{_MARK}"
    return re.compile(
        rf"(?:(?<![{_LETTER}])(?P<owner>{owners})\s*)?"
        rf"(?<![{_LETTER}])(?P<trigger>{triggers})(?![{_LETTER}])"
        rf"(?:(?:\s+(?!{connector})[\w'’-]+){{0,4}}?\s*(?P<connector>{connector})\s*|\s+)"
        rf"(?:(?:{words.VALUE_ARTICLES})\s+)?{_VALUE}",
        re.I,
    )


_STATED_PASSWORDS = tuple(_stated_password_pattern(*phrases) for phrases in words.STATED_PASSWORDS.values())
_ARTICLE = re.compile(words.VALUE_ARTICLES, re.I)
_ALNUM = re.compile(r"[^\W_]")  # a value has a letter or a digit (a dash is a connector, not a value)
_PHRASE_TRIGGER = re.compile(rf"^(?:{words.PHRASE_TRIGGERS})$", re.I)
_STRONG_CONNECTOR = re.compile(rf"^(?:{words.STRONG_CONNECTORS})$", re.I)
_TRAILING = ".,;:!?)'\"’"  # sentence punctuation after a value is not part of it
_CLAUSE_END = re.compile(r"[\n.;!?。！？]|,\s")
_NOT_LATIN = re.compile(r"[^\x00-\u024f]")
_SYMBOL_OR_DIGIT = re.compile(r"[\d\W_]")
_DOOR_CODE = re.compile(
    rf"(?<![{_LETTER}])(?:{words.DOOR_CODE_TRIGGERS})(?![{_LETTER}])[^\n.!?。\d]{{0,25}}?"
    rf"(?P<value>(?<![{_LETTER}\d#*])[#*]?[{_LETTER}]?\d[\d#*{_LETTER}]{{2,9}})(?![{_LETTER}\d])",
    re.I,
)


def _stated_passwords(text: str) -> Iterator[Finding]:
    for pattern in _STATED_PASSWORDS:
        for match in pattern.finditer(text):
            value_group = "quoted" if match["quoted"] else "value"
            value = match[value_group] if match["quoted"] else match[value_group].rstrip(_TRAILING)
            if not _ALNUM.search(value) or _ARTICLE.fullmatch(value) or not _stated(match, value):
                continue
            start, end = match.start(value_group), match.start(value_group) + len(value)
            if _PHRASE_TRIGGER.match(match["trigger"]) and not match["quoted"]:
                clause = _CLAUSE_END.search(text, end)
                end = clause.start() if clause else len(text)
            yield Finding("password", start, end)


def _stated(match: re.Match[str], value: str) -> bool:
    """Whether "<trigger> <connector> <value>" states a credential rather than talks about one
    ("the secret is to have a plan", "the password is too short")."""
    connector = match["connector"]
    own = match["owner"] is not None or _NOT_LATIN.search(match["trigger"]) is not None
    telling = bool(match["quoted"]) or _SYMBOL_OR_DIGIT.search(value) is not None
    if connector is None:
        return telling and own
    return own or telling or _STRONG_CONNECTOR.match(connector) is not None


def _door_codes(text: str) -> Iterator[Finding]:
    for match in _DOOR_CODE.finditer(text):
        yield Finding("door_code", match.start("value"), match.end("value"))


# ---------------------------------------------------------------------------------------------------
# Card numbers, IBANs and national identification numbers: python-stdnum

_MIN_ID_DIGITS = 6  # the fewest digits of any number looked for (a National Insurance number)
_IBAN = re.compile(rf"{_START}[A-Z]{{2}}\d{{2}}(?:[ -]?[A-Z0-9]){{11,32}}", re.I)
_CARD = re.compile(r"(?<![\d.,])[2-6](?:[ -]?\d){12,18}(?![\d])")
# (format, validator): each format as people write the number, each validator checks the number's
# own structure and check digits. The UK National Insurance number has no check digit and stdnum has
# no module for it: its official prefix rules (HMRC NIM39110) are the pattern.
_NATIONAL_IDS = (
    (re.compile(_START + r"\d{3}[- ]\d{2}[- ]\d{4}" + _END), ssn.is_valid),  # US SSN
    (re.compile(_START + r"\d{3}[ -]?\d{3}[ -]?\d{4}" + _END), nhs.is_valid),  # UK NHS number
    (
        re.compile(
            _START
            + r"(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]"
            + _END,
            re.I,
        ),
        None,
    ),  # UK National Insurance number
    (
        re.compile(_START + r"[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}" + _END),
        nir.is_valid,
    ),  # FR NIR
    (re.compile(_START + r"\d{2} ?\d{3} ?\d{3} ?\d{3}" + _END), idnr.is_valid),  # DE Steuer-IdNr
    (re.compile(_START + r"\d{8}-?[A-Z]" + _END, re.I), dni.is_valid),  # ES DNI
    (re.compile(_START + r"[XYZ]-?\d{7}-?[A-Z]" + _END, re.I), nie.is_valid),  # ES NIE
    (
        re.compile(
            _START + r"[A-Z]{6}[\dLMNPQRSTUV]{2}[A-Z][\dLMNPQRSTUV]{2}[A-Z][\dLMNPQRSTUV]{3}[A-Z]" + _END,
            re.I,
        ),
        codicefiscale.is_valid,
    ),  # IT
    (re.compile(_START + r"\d{8} ?\d ?[A-Z]{2}\d" + _END, re.I), cc.is_valid),  # PT Cartão de Cidadão
    (re.compile(_START + r"\d{3}\.\d{3}\.\d{3}-\d{2}" + _END), cpf.is_valid),  # BR CPF
    (re.compile(_START + r"\d{6}(?:19|20)?\d{2}\d{3}[\dX]" + _END, re.I), ric.is_valid),  # CN resident ID
    (re.compile(_START + r"\d{12}" + _END), inn.is_valid),  # RU INN of a person
)


_ANNOUNCED_ID = re.compile(
    rf"(?<![{_LETTER}])(?:{words.NATIONAL_ID_CUES})(?![{_LETTER}])[^\n.!?。\d]{{0,20}}?"
    rf"(?P<value>{_START}[A-Z]{{0,3}}[ -]?\d(?:[ .-]?\d){{4,17}}(?:[ -]?[A-Z]{{1,2}})?){_END}",
    re.I,
)


def _numbers(text: str) -> Iterator[Finding]:
    for match in _IBAN.finditer(text):
        span = _longest_valid(match, iban.is_valid)
        if span:
            yield Finding("iban", *span)
    for match in _CARD.finditer(text):
        if luhn.is_valid(re.sub(r"\D", "", match[0])):
            yield Finding("card_number", match.start(), match.end())
    for pattern, is_valid in _NATIONAL_IDS:
        for match in pattern.finditer(text):
            if is_valid is None or is_valid(match[0]):
                yield Finding("national_id", match.start(), match.end())
    for match in _ANNOUNCED_ID.finditer(text):
        yield Finding("national_id", match.start("value"), match.end("value"))


def _longest_valid(match: re.Match[str], is_valid: Callable[[str], bool]) -> tuple[int, int] | None:
    """The longest prefix of a greedy match that validates (an IBAN runs into the words after it)."""
    for end in range(match.end(), match.start() + 15, -1):
        if match.string[end - 1].isalnum() and is_valid(match.string[match.start() : end]):
            return match.start(), end
    return None


# ---------------------------------------------------------------------------------------------------
# Phone numbers: phonenumbers, and digits read out as words

# A national number is only recognised with its country's conventions, so the matcher runs once per
# country of the languages read here (an international number, +44 ..., is found by any of them).
# Leniency VALID: the number must be a real, assignable number of its region; POSSIBLE also takes
# years, version numbers and dates ("2019", "3.11.4", "1988-03-12"), STRICT_GROUPING misses numbers
# written without their usual grouping ("13812345678").
PHONE_REGIONS = ("US", "GB", "FR", "DE", "ES", "IT", "PT", "BR", "NL", "RU", "CN", "JP")
_PHONE_LENIENCY = phonenumbers.Leniency.VALID
_MIN_SPOKEN_DIGITS = 7  # the shortest local number


# Seven digits or more with at most a few separators between each two: the shape of any phone number.
_PHONE_SHAPED = re.compile(r"\d(?:[\s().\-–/]{0,3}\d){6,}")
_PHONE_CUE = re.compile(rf"(?<![{_LETTER}])(?:{words.PHONE_CUES})(?![{_LETTER}])", re.I)
_MIN_POSSIBLE_DIGITS = 9  # a number that is only possible: the shortest national number with its code
_CUE_REACH = 40  # characters from a cue ("my mobile is") to the number it announces


def _phones(text: str) -> Iterable[Finding]:
    shaped = [m.span() for m in _PHONE_SHAPED.finditer(text)]
    if not shaped:  # the matchers cost about 0.1 ms a region
        return ()
    spans = set()
    for region in PHONE_REGIONS:
        for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=_PHONE_LENIENCY):
            spans.add((match.start, match.end))
    # A number written in international form, or one the text calls a phone number, need only be
    # possible: the ranges kept for fiction and examples (+44 7700 900123) are not "valid".
    if all(any(s < end and start < e for s, e in spans) for start, end in shaped):
        return (Finding("phone", start, end) for start, end in spans)
    cues = [m.end() for m in _PHONE_CUE.finditer(text)]
    for region in (None, *PHONE_REGIONS) if cues else (None,):
        for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.POSSIBLE):
            announced = any(0 <= match.start - cue <= _CUE_REACH for cue in cues)
            digits = sum(ch.isdigit() for ch in match.raw_string)
            if (match.raw_string.startswith("+") or announced) and digits >= _MIN_POSSIBLE_DIGITS:
                spans.add((match.start, match.end))
    return (Finding("phone", start, end) for start, end in spans)


_TOKEN = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*|\d{1,4}")
_BETWEEN_NUMBERS = re.compile(r"[\s,.\-–/()]*")
_NUMBER_PIECE = "|".join(re.escape(w) for w in sorted(words.NUMBER_WORDS, key=len, reverse=True))
_JOINER_PIECE = "|".join(re.escape(w) for w in words.NUMBER_JOINERS)
_COMPOUND = re.compile(rf"(?:{_NUMBER_PIECE})(?:-?(?:{_JOINER_PIECE})?-?(?:{_NUMBER_PIECE}))*")
_PIECE = re.compile(_NUMBER_PIECE)
_CJK_DIGITS = re.compile(rf"[{words.CJK_DIGITS}](?:[\s\-]?[{words.CJK_DIGITS}]){{{_MIN_SPOKEN_DIGITS - 1},}}")


def _place(word: str) -> int | None:
    """The place of a number word's highest digit (0 units, 1 tens, 2 hundreds), compounds included
    ("trente-quatre", "dreiundzwanzig"); None for any other word."""
    if word in words.NUMBER_WORDS:
        return words.NUMBER_WORDS[word]
    if _COMPOUND.fullmatch(word):
        return max(words.NUMBER_WORDS.get(piece, 0) for piece in _PIECE.findall(word))
    return None


def _spoken_phones(text: str) -> Iterator[Finding]:
    """Seven or more digits read out in words, one by one or in groups ("five five five, one two
    three four", "zéro six, douze, trente-quatre"), possibly mixed with figures; and runs of Chinese
    or Japanese digit characters."""
    run: list[tuple[re.Match[str], str]] = []  # (token, "number" | "figure" | "repeat" | "joiner")
    for token in [*_TOKEN.finditer(text), None]:
        role = _number_role(token[0].lower()) if token else None
        joined = (
            bool(run)
            and token is not None
            and _BETWEEN_NUMBERS.fullmatch(text, run[-1][0].end(), token.start())
        )
        if run and not (role and joined):
            while run and run[-1][1] == "joiner":
                run.pop()
            if _spoken_digits(run) >= _MIN_SPOKEN_DIGITS and sum(r == "number" for _, r in run) >= 3:
                yield Finding("phone", run[0][0].start(), run[-1][0].end())
            run = []
        if role and (run or role != "joiner"):
            run.append((token, role))
    for match in _CJK_DIGITS.finditer(text):
        yield Finding("phone", match.start(), match.end())


def _number_role(word: str) -> str | None:
    if word.isdigit():
        return "figure"
    if word in words.DIGIT_REPEATS:
        return "repeat"
    if word in words.NUMBER_JOINERS:
        return "joiner"
    return "number" if _place(word) is not None else None


def _spoken_digits(run: list[tuple[re.Match[str], str]]) -> int:
    """How many digits a run of number words says: a word starts a new group unless it is of a lower
    place than the word before ("сто двадцать три" is one group of three digits)."""
    count, previous, repeat = 0, None, 1
    for token, role in run:
        word = token[0].lower()
        if role == "figure":
            count, previous = count + len(word), None
        elif role == "repeat":
            repeat = words.DIGIT_REPEATS[word]
        elif role == "number":
            place = _place(word)
            if previous is None or place >= previous:
                count += (place + 1) * repeat
            previous, repeat = place, 1
    return count


# ---------------------------------------------------------------------------------------------------
# E-mail addresses, plain and spelled out

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_BRACKETED = r"[\[({{<]\s*(?:{})\s*[\])}}>]"
_AT = rf"\s*(?:{_BRACKETED.format(words.EMAIL_AT_WORDS + '|@')}|＠)\s*|\s+(?P<at_word>{words.EMAIL_AT_WORDS})\s+"
_DOT = rf"\s*{_BRACKETED.format(words.EMAIL_DOT_WORDS + '|[.]')}\s*|\s+(?:{words.EMAIL_DOT_WORDS})\s+|[.．]"
_SPELLED_EMAIL = re.compile(
    rf"(?<![\w.@])[\w+-]+(?:(?:{_DOT})[\w+-]+)*(?P<at>{_AT})(?P<domain>[\w-]+(?:(?:{_DOT})[\w-]+)*?(?:{_DOT})[A-Za-z]{{2,12}})(?![\w@])",
    re.I,
)
_SPELLED_DOT = re.compile(rf"\s(?P<word>{words.EMAIL_DOT_WORDS})\s", re.I)
_EMAIL_CUE = re.compile(rf"(?:{words.EMAIL_CUES})", re.I)


def _emails(text: str) -> Iterator[Finding]:
    for match in _EMAIL.finditer(text):
        yield Finding("email", match.start(), match.end())
    for match in _SPELLED_EMAIL.finditer(text):
        if match["at_word"] and not _spelled_address(match, text):
            continue
        yield Finding("email", match.start(), match.end())


def _spelled_address(match: re.Match[str], text: str) -> bool:
    """An "at" written as a word makes an address with the same language's "dot" ("jane at example
    dot com"), or with real dots after a word about mail ("e-mail: jane at example.com"); "works at
    example.com" is a workplace, "at some point in the past" a phrase."""
    dots = [d.lower() for d in _SPELLED_DOT.findall(match["domain"])]
    if dots:
        return set(dots) <= set(words.EMAIL_SPELLINGS[match["at_word"].lower()])
    return _EMAIL_CUE.search(text, max(0, match.start() - 40), match.start()) is not None


# ---------------------------------------------------------------------------------------------------
# Street addresses

_NOT_YEAR = r"(?!(?:19|20)\d\d\b)"
_ADDRESSES = (
    # "221B Baker Street", "10 Downing St"
    re.compile(rf"\b\d{{1,5}}[A-Za-z]?,?\s+(?:[A-Z][\w'’.-]*\s+){{1,3}}(?:{words.STREET_SUFFIXES_EN})\b\.?"),
    # "I live at 12 main street" (lower case only after a word about living there)
    re.compile(
        r"\b(?:live[sd]?|living|stay(?:s|ing)?|address(?: is)?|moved|home is|house is|flat is)\s+(?:at|on|in|to|is|:)?\s*"
        rf"(?:the\s+)?(?P<address>\d{{1,5}}[a-z]?,?\s+(?:[\w'’.-]+\s+){{1,3}}(?:{words.STREET_SUFFIXES_EN})\b\.?)",
        re.I,
    ),
    # "42 rue de la Paix", "12 bis avenue Foch", "3 place de la République"
    re.compile(
        rf"(?<![\d])\d{{1,4}}(?:\s?(?:bis|ter))?,?\s+(?:(?:{words.STREET_WORDS_NUMBER_FIRST})\s+(?:de\s+la\s+|d[eu]s?\s+|l['’]\s*)?[\w'’-]+"
        rf"|(?:{words.STREET_WORDS_NUMBER_FIRST_NAMED})\s+(?:de\s+la\s+|d[eu]s?\s+|l['’]\s*)?(?-i:[A-ZÀ-Ý])[\w'’-]*)",
        re.I,
    ),
    # "Calle Mayor 3", "Via Giuseppe Garibaldi 12", "Rua Augusta, 100", "улица Ленина, д. 5"
    re.compile(
        rf"(?<![{_LETTER}])(?:{words.STREET_WORDS_NUMBER_LAST})\s+(?:(?:de|del|de la|della|dei|delle|do|da|dos|das|di|los|las)\s+)*"
        rf"(?-i:[A-ZÁÉÍÓÚÀÈÌÒÙÂÊÔÃÕÇА-ЯЁ])[\w'’.-]*(?:\s+[\w'’.-]+){{0,3}}?,?\s*(?:n[º°o.]?\s*|д\.\s*|дом\s*)?{_NOT_YEAR}\d{{1,4}}[A-Za-z]?(?![\d.,:]?\d)",
        re.I,
    ),
    # "Hauptstraße 5", "Kalverstraat 12", "Berliner Straße 5"
    re.compile(
        rf"\b[A-ZÄÖÜ][\wäöüß-]*(?:{words.STREET_SUFFIXES_COMPOUND}|\s+(?:{words.STREET_WORDS_AFTER_ADJECTIVE}))"
        rf"\s*{_NOT_YEAR}\d{{1,4}}(?:\s?[a-z]\b)?(?![\w.,]\d)"
    ),
    # a full UK postcode, "W11 2ES" (the inward code's letters exclude C, I, K, M, O and V)
    re.compile(r"\b(?:[A-Z]{1,2}\d[A-Z\d]?|GIR) ?\d[ABD-HJLNP-UW-Z]{2}\b"),
    # "南京路123号", "1丁目2番3号", "3番地"
    re.compile(rf"[\u4e00-\u9fff]{{1,10}}(?:{words.CJK_STREET})\s*\d{{1,5}}\s*[号號]"),
    re.compile(r"\d{1,4}\s*丁目(?:\s*\d{1,4}\s*番地?)?(?:\s*\d{1,4}\s*号)?|\d{1,4}\s*番地"),
)


def _addresses(text: str) -> Iterator[Finding]:
    for pattern in _ADDRESSES:
        for match in pattern.finditer(text):
            group = "address" if "address" in pattern.groupindex else 0
            yield Finding("address", match.start(group), match.end(group))


# ---------------------------------------------------------------------------------------------------
# Dates of birth


@cache
def _month_names() -> str:
    """Month names (wide and abbreviated, in running text and alone) of every language read here."""
    names = set()
    for language in words.LANGUAGES:
        months = Locale.parse(language).months
        for context in ("format", "stand-alone"):
            for width in ("wide", "abbreviated"):
                names.update(name.rstrip(".").lower() for name in months[context][width].values())
    names = {n for n in names if not n[0].isdigit()}  # "3月": the CJK forms have their own pattern
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


_DAY = r"\d{1,2}(?:st|nd|rd|th|er|e|\.|º|°)?"
_YEAR = r"\d{4}|'\d{2}"


@cache
def _date_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    months = _month_names()
    date = "|".join(
        [
            r"\d{1,2}(?P<sep>[./-])\d{1,2}(?P=sep)(?:\d{4}|\d{2})(?!\d)",  # 12/03/1988, 12.03.88
            r"\d{1,2}/\d{1,2}(?![/\d])",  # 03/04
            r"\d{4}[./-]\d{1,2}[./-]\d{1,2}(?!\d)",  # 1988-03-12
            rf"(?:the\s+)?{_DAY}\s*(?:of\s+|de\s+)?(?:{months})\.?(?![{_LETTER}])(?:,?\s*(?:de\s+)?(?:{_YEAR}))?",
            rf"(?<![{_LETTER}])(?:{months})\.?\s+{_DAY}(?!\d)(?:,?\s*(?:{_YEAR}))?",
            r"(?:\d{4}\s*年\s*)?\d{1,2}\s*月\s*\d{1,2}\s*[日号號]?",  # 1988年3月12日
            r"[一二三四五六七八九十]{1,3}月[一二三四五六七八九十]{1,3}[日号號]",
        ]
    )
    after_trigger = re.compile(
        rf"(?<![{_LETTER}])(?:{words.BIRTH_TRIGGERS})(?![{_LETTER}])[^\n.,!?。，;]{{0,30}}?(?P<date>{date})",
        re.I,
    )
    before_trigger = re.compile(rf"(?P<date>{date})\s*(?:{words.BIRTH_AFTER})", re.I)
    return after_trigger, before_trigger


def _birth_dates(text: str) -> Iterator[Finding]:
    for pattern in _date_patterns():
        for match in pattern.finditer(text):
            yield Finding("date_of_birth", match.start("date"), match.end("date"))
