"""Card numbers, IBANs and national identification numbers, each checked with python-stdnum."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

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

from agent_signals.core.screening import sensitive_words
from agent_signals.core.screening.sensitive.finding import END, LETTER, START, Finding

# ---------------------------------------------------------------------------------------------------
# Card numbers, IBANs and national identification numbers: python-stdnum

MIN_ID_DIGITS = 6  # the fewest digits of any number looked for (a National Insurance number)
_IBAN = re.compile(rf"{START}[A-Z]{{2}}\d{{2}}(?:[ -]?[A-Z0-9]){{11,32}}", re.I)
_CARD = re.compile(r"(?<![\d.,])[2-6](?:[ -]?\d){12,18}(?![\d])")
# (format, validator): each format as people write the number, each validator checks the number's
# own structure and check digits. The UK National Insurance number has no check digit and stdnum has
# no module for it: its official prefix rules (HMRC NIM39110) are the pattern.
_NATIONAL_IDS = (
    (re.compile(START + r"\d{3}[- ]\d{2}[- ]\d{4}" + END), ssn.is_valid),  # US SSN
    (re.compile(START + r"\d{3}[ -]?\d{3}[ -]?\d{4}" + END), nhs.is_valid),  # UK NHS number
    (
        re.compile(
            START
            + r"(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]"
            + END,
            re.I,
        ),
        None,
    ),  # UK National Insurance number
    (
        re.compile(START + r"[12] ?\d{2} ?\d{2} ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}" + END),
        nir.is_valid,
    ),  # FR NIR
    (re.compile(START + r"\d{2} ?\d{3} ?\d{3} ?\d{3}" + END), idnr.is_valid),  # DE Steuer-IdNr
    (re.compile(START + r"\d{8}-?[A-Z]" + END, re.I), dni.is_valid),  # ES DNI
    (re.compile(START + r"[XYZ]-?\d{7}-?[A-Z]" + END, re.I), nie.is_valid),  # ES NIE
    (
        re.compile(
            START + r"[A-Z]{6}[\dLMNPQRSTUV]{2}[A-Z][\dLMNPQRSTUV]{2}[A-Z][\dLMNPQRSTUV]{3}[A-Z]" + END,
            re.I,
        ),
        codicefiscale.is_valid,
    ),  # IT
    (re.compile(START + r"\d{8} ?\d ?[A-Z]{2}\d" + END, re.I), cc.is_valid),  # PT Cartão de Cidadão
    (re.compile(START + r"\d{3}\.\d{3}\.\d{3}-\d{2}" + END), cpf.is_valid),  # BR CPF
    (re.compile(START + r"\d{6}(?:19|20)?\d{2}\d{3}[\dX]" + END, re.I), ric.is_valid),  # CN resident ID
    (re.compile(START + r"\d{12}" + END), inn.is_valid),  # RU INN of a person
)


_ANNOUNCED_ID = re.compile(
    rf"(?<![{LETTER}])(?:{sensitive_words.NATIONAL_ID_CUES})(?![{LETTER}])[^\n.!?。\d]{{0,20}}?"
    rf"(?P<value>{START}[A-Z]{{0,3}}[ -]?\d(?:[ .-]?\d){{4,17}}(?:[ -]?[A-Z]{{1,2}})?){END}",
    re.I,
)


def find_numbers(text: str) -> Iterator[Finding]:
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
