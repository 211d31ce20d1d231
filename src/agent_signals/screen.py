"""Screening of validated candidates before they are written: this pipeline writes what an agent will
believe about a person, so it refuses secrets and personal contact data, never writes an instruction to
the agent as a "fact" (quarantined for review instead), and never re-learns its own output (a pasted
context block, a signal quoted back).

- secrets and contact data in a candidate's content: the candidate is rejected (`skipped_sensitive`);
  in an evidence quote only: the quote is stored redacted.
- a candidate that reads as an instruction to the agent: quarantined (ops.quarantine), not written.
- a candidate whose evidence is the pipeline's own text: rejected (`skipped_recall`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from agent_signals.extract import KnownSignal, is_pipeline_output
from agent_signals.text import normalize_content
from agent_signals.validate import Proposal

_SECRETS: list[tuple[str, re.Pattern[str]]] = [
    ("email", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    (
        "api_key",
        re.compile(
            r"\b(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_])?[A-Za-z0-9_-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}|"
            r"\bAKIA[0-9A-Z]{16}\b|\bxox[abposr]-[A-Za-z0-9-]{10,}|\bAIza[0-9A-Za-z_-]{30,}|"
            r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,}|"  # JWT
            r"\b(?=[A-Za-z0-9+/_-]{32,}\b)(?=[^\s]*\d)(?=[^\s]*[A-Za-z])[A-Za-z0-9+/_-]{32,}\b"
        ),
    ),
    (
        "password",
        re.compile(
            r"\b(?:password|passwd|passcode|pwd|passphrase|pin|api[ _-]?key|secret|token)\b\s*(?:is|was|=|:)\s*\S+",
            re.I,
        ),
    ),
    ("phone", re.compile(r"(?<![\w/])\+?\(?\d[\d\s().-]{7,}\d(?![\w/])")),
    ("card_number", re.compile(r"\b(?:\d[ -]?){13,19}\b")),
]
_PHONE_DIGITS = (9, 15)

_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|override|bypass|jailbreak|reveal|leak|exfiltrate|system prompt|your (?:rules|"
    r"instructions|guidelines|prompt)|developer mode|you (?:must|should|have to|will)|the (?:assistant|agent|"
    r"ai|model) (?:must|should|will)|always (?:say|respond|reply|answer) (?:that|with)|tell (?:everyone|"
    r"other users|all users)|grant (?:me|them|admin)|admin (?:access|rights|privileges)|send (?:all|every|"
    r"the|my|their)\b.*\bto\b|forward (?:all|every)|execute|run (?:this|the) (?:command|code|script)|"
    r"delete (?:all|every)|transfer (?:money|funds)|https?://|www\.|passwords?|credentials?|api keys?|"
    r"access tokens?|secrets?)",
    re.I,
)


def sensitive_kinds(text: str) -> list[str]:
    """The kinds of secret or contact data found in a text."""
    found = []
    for kind, pattern in _SECRETS:
        for match in pattern.finditer(text):
            if (
                kind == "phone"
                and not _PHONE_DIGITS[0] <= sum(c.isdigit() for c in match[0]) <= _PHONE_DIGITS[1]
            ):
                continue
            if kind == "card_number" and not _luhn(match[0]):
                continue
            found.append(kind)
            break
    return found


def redact(text: str) -> str:
    for kind, pattern in _SECRETS:

        def hide(match: re.Match[str], kind: str = kind) -> str:
            if (
                kind == "phone"
                and not _PHONE_DIGITS[0] <= sum(c.isdigit() for c in match[0]) <= _PHONE_DIGITS[1]
            ):
                return match[0]
            if kind == "card_number" and not _luhn(match[0]):
                return match[0]
            return f"[{kind} redacted]"

        text = pattern.sub(hide, text)
    return text


def _luhn(candidate: str) -> bool:
    digits = [int(c) for c in candidate if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, digit in enumerate(reversed(digits)):
        if i % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def is_instruction(content: str) -> bool:
    """A candidate that tells the agent what to do (beyond how to phrase answers) is not a fact."""
    return bool(_INSTRUCTION.search(content))


@dataclass
class Screened:
    keep: list[Proposal]
    quarantine: list[tuple[Proposal, str]]
    rejected: dict[str, int]  # reason -> candidates
    dropped: list[tuple[Proposal, str]] = field(default_factory=list)  # each rejected candidate, with why

    def reject(self, proposal: Proposal, counter: str, reason: str) -> None:
        self.rejected[counter] = self.rejected.get(counter, 0) + 1
        self.dropped.append((proposal, reason))


def screen(proposals: list[Proposal], known: list[KnownSignal]) -> Screened:
    """Sort validated candidates into written, quarantined and rejected."""
    known_texts = {s.normalized for s in known}
    result = Screened([], [], {})
    for proposal in proposals:
        kinds = sensitive_kinds(proposal.content)
        if kinds or redact(proposal.content) != proposal.content:  # what redaction would hide is not kept
            result.reject(proposal, "skipped_sensitive", f"sensitive: {', '.join(kinds) or 'redacted text'}")
            continue
        if any(
            is_pipeline_output(c.message) or _quotes_known(c.quote, known_texts) for c in proposal.evidence
        ):
            result.reject(proposal, "skipped_recall", "recall: cites the pipeline's own output")
            continue
        if is_instruction(proposal.content):
            result.quarantine.append((proposal, "reads as an instruction to the agent"))
            continue
        cites = tuple(replace(c, quote=redact(c.quote)) for c in proposal.evidence)
        result.keep.append(replace(proposal, evidence=cites) if cites != proposal.evidence else proposal)
    return result


def _quotes_known(quote: str, known_texts: set[str]) -> bool:
    """The user quoting back one of their own signals verbatim ("Works as a data engineer"): the
    signals are third person without a subject, which a person rarely says about themselves."""
    return normalize_content(quote) in known_texts
