"""Credentials: detect-secrets (service key formats, keywords, entropy), passwords, PINs and
passphrases stated in words, and door codes."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

from detect_secrets.core.scan import scan_line
from detect_secrets.plugins.high_entropy_strings import (
    Base64HighEntropyString,
    HexHighEntropyString,
    HighEntropyStringsPlugin,
)
from detect_secrets.settings import Settings, get_settings

from agent_signals.core.screening import sensitive_words
from agent_signals.core.screening.sensitive.finding import LETTER, Finding

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


def find_credentials(text: str) -> Iterator[Finding]:
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

_VALUE = (
    r"(?:[\"“«'‘「『](?P<quoted>[^\"”»'’」』\n]{1,80})[\"”»'’」』]"
    r"|(?P<value>[^\s，。、！？「」『』“”«»()\[\]]+))"
)
_MARK = sensitive_words.PASSWORD_MARK_CONNECTORS


def _stated_password_pattern(owners: str, triggers: str, connectors: str) -> re.Pattern[str]:
    """ "[owner] <trigger> [up to four words] <connector> <value>", or "<trigger> <value>"."""
    connector = rf"(?:{connectors})(?![{LETTER}'’])|{_MARK}"
    return re.compile(
        rf"(?:(?<![{LETTER}])(?P<owner>{owners})\s*)?"
        rf"(?<![{LETTER}])(?P<trigger>{triggers})(?![{LETTER}])"
        rf"(?:(?:\s+(?!{connector})[\w'’-]+){{0,4}}?\s*(?P<connector>{connector})\s*|\s+)"
        rf"(?:(?:{sensitive_words.VALUE_ARTICLES})\s+)?{_VALUE}",
        re.I,
    )


_STATED_PASSWORDS = tuple(
    _stated_password_pattern(*phrases) for phrases in sensitive_words.STATED_PASSWORDS.values()
)
_ARTICLE = re.compile(sensitive_words.VALUE_ARTICLES, re.I)
_ALNUM = re.compile(r"[^\W_]")  # a value has a letter or a digit (a dash is a connector, not a value)
_PHRASE_TRIGGER = re.compile(rf"^(?:{sensitive_words.PHRASE_TRIGGERS})$", re.I)
_STRONG_CONNECTOR = re.compile(rf"^(?:{sensitive_words.STRONG_CONNECTORS})$", re.I)
_TRAILING = ".,;:!?)'\"’"  # sentence punctuation after a value is not part of it
_CLAUSEEND = re.compile(r"[\n.;!?。！？]|,\s")
_NOT_LATIN = re.compile(r"[^\x00-\u024f]")
_SYMBOL_OR_DIGIT = re.compile(r"[\d\W_]")
_DOOR_CODE = re.compile(
    rf"(?<![{LETTER}])(?:{sensitive_words.DOOR_CODE_TRIGGERS})(?![{LETTER}])[^\n.!?。\d]{{0,25}}?"
    # "4471", "#1234*", "A113", and spoken digit by digit: "8-0-5-2-9", "4 4 7 1"
    rf"(?P<value>(?<![{LETTER}\d#*])[#*]?[{LETTER}]?\d(?:[\d#*{LETTER}]{{2,9}}|(?:[-. ]\d){{3,9}}))(?![{LETTER}\d])",
    re.I,
)


def find_stated_passwords(text: str) -> Iterator[Finding]:
    for pattern in _STATED_PASSWORDS:
        for match in pattern.finditer(text):
            value_group = "quoted" if match["quoted"] else "value"
            value = match[value_group] if match["quoted"] else match[value_group].rstrip(_TRAILING)
            if not _ALNUM.search(value) or _ARTICLE.fullmatch(value) or not _stated(match, value):
                continue
            start, end = match.start(value_group), match.start(value_group) + len(value)
            if _PHRASE_TRIGGER.match(match["trigger"]) and not match["quoted"]:
                clause = _CLAUSEEND.search(text, end)
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


def find_door_codes(text: str) -> Iterator[Finding]:
    for match in _DOOR_CODE.finditer(text):
        yield Finding("door_code", match.start("value"), match.end("value"))
