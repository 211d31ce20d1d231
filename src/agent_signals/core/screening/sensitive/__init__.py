"""Secrets and personal identifiers in free text, found with well-kept libraries where one exists:
detect-secrets for credentials and high-entropy strings, python-stdnum for IBANs, card numbers and
national identification numbers (each with its check digits; its whole catalogue in identifiers.py),
phonenumbers for phone numbers, babel (CLDR) for month names and mnemonic for the BIP-39 word lists of
recovery phrases. What no library lists, the phrases around the data ("my password is", "door code",
"born on", "jane at example dot com", digits read out as words, street words), is in
core/screening/sensitive_words.py, in eleven languages, and in cues.py and street_words.py, in over thirty.

Detectors that do not depend on the language: password-shaped tokens (passwords.py), recovery phrases
and backup codes (phrases.py), long runs of digits, python-stdnum's catalogue, passport numbers and
machine-readable zones (identifiers.py), street addresses by structure (streets.py) or after the words
that announce one (stated_address.py) and dates of birth (birth.py). Each has a cheap pre-filter (a
digit, a long token, enough words): most messages skip it.

`sensitive_kinds(text)` names what a text holds; `redact(text)` replaces each finding with
`[<kind> redacted]`. Both are pure: nothing here reads a file or the network (detect-secrets runs
in-process with a fixed plugin list and its default filters, and without verification, the only
step of it that goes online).
"""

from __future__ import annotations

import re

from agent_signals.core.screening.sensitive.birth import find_birth_dates_any
from agent_signals.core.screening.sensitive.contacts import find_addresses, find_birth_dates, find_emails
from agent_signals.core.screening.sensitive.credentials import (
    find_credentials,
    find_door_codes,
    find_stated_passwords,
)
from agent_signals.core.screening.sensitive.finding import Finding
from agent_signals.core.screening.sensitive.identifiers import (
    MIN_CATALOGUE_DIGITS,
    MIN_RUN_DIGITS,
    find_catalogue_ids,
    find_digit_runs,
    find_passports,
)
from agent_signals.core.screening.sensitive.numbers import MIN_ID_DIGITS, find_numbers
from agent_signals.core.screening.sensitive.passwords import find_shaped_passwords, find_stated_values
from agent_signals.core.screening.sensitive.phones import find_phones, find_spoken_phones
from agent_signals.core.screening.sensitive.phrases import (
    find_backup_codes,
    find_recovery_keys,
    find_recovery_phrases,
)
from agent_signals.core.screening.sensitive.stated_address import find_stated_addresses
from agent_signals.core.screening.sensitive.streets import find_street_addresses

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
    digits = len(_DIGIT.findall(text))
    found = [
        *find_credentials(text),
        *find_stated_passwords(text),
        *find_stated_values(text),
        *find_emails(text),
        *find_spoken_phones(text),
        *find_recovery_phrases(text),
        *find_passports(text),
    ]
    if digits:
        found += [*find_door_codes(text), *find_birth_dates(text), *find_addresses(text)]
        found += [*find_shaped_passwords(text), *find_backup_codes(text), *find_recovery_keys(text)]
        found += [*find_street_addresses(text), *find_stated_addresses(text), *find_birth_dates_any(text)]
    if digits >= MIN_CATALOGUE_DIGITS:
        found += find_catalogue_ids(text)
    if digits >= MIN_ID_DIGITS:
        found += [*find_numbers(text), *find_phones(text)]
    if digits >= MIN_RUN_DIGITS:
        numbers = [f for f in found if f.kind in _NUMBER_KINDS]
        found += [r for r in find_digit_runs(text) if not any(_overlap(r, f) for f in numbers)]
    markers = [m.span() for m in _MARKER.finditer(text)]
    return [f for f in found if not any(start <= f.start and f.end <= end for start, end in markers)]


# A long run of digits that is one of these is that, not an identity number.
_NUMBER_KINDS = frozenset({"phone", "card_number", "iban", "national_id", "date_of_birth", "address"})


def _overlap(a: Finding, b: Finding) -> bool:
    return a.start < b.end and b.start < a.end


_DIGIT = re.compile(r"\d")
_MARKER = re.compile(rf"\[(?:{'|'.join(KINDS)}) redacted\]")
