"""Screening of validated candidates before they are written: this pipeline writes what an agent will
believe about a person, so it refuses secrets and personal contact data, never writes an instruction to
the agent as a "fact" (quarantined for review instead), and never re-learns its own output (a pasted
context block, a signal quoted back).

- secrets, identifiers and contact data (sensitive.py) in a candidate's content: the candidate is
  rejected (`skipped_sensitive`); in an evidence quote only: the quote is stored redacted.
- a special category of personal data (special.py) in a candidate's content: rejected (`skipped_special`);
  in an evidence quote: the clause stating it is stored redacted. Unless the deployment keeps them
  (AGENT_SIGNALS_SPECIAL_CATEGORIES=keep).
- a candidate that reads as an instruction to the agent: quarantined (ops.quarantine), not written.
- a candidate whose evidence is the pipeline's own text: rejected (`skipped_recall`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from agent_signals.extract import KnownSignal, is_pipeline_output
from agent_signals.sensitive import findings, redact, sensitive_kinds
from agent_signals.special import redact_special, special_categories
from agent_signals.text import normalize_content
from agent_signals.validate import Proposal

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


def is_instruction(content: str) -> bool:
    """A candidate that tells the agent what to do (beyond how to phrase answers) is not a fact."""
    return bool(_INSTRUCTION.search(content))


@dataclass
class Screened:
    keep: list[Proposal]
    quarantine: list[tuple[Proposal, str]]
    rejected: dict[str, int]  # reason -> candidates


def screen(proposals: list[Proposal], known: list[KnownSignal], *, keep_special: bool) -> Screened:
    """Sort validated candidates into written, quarantined and rejected; `keep_special` is
    AGENT_SIGNALS_SPECIAL_CATEGORIES=keep."""
    known_texts = {s.normalized for s in known}
    result = Screened([], [], {})
    for proposal in proposals:
        if sensitive_kinds(proposal.content) or _repeats_redacted(proposal):
            result.rejected["skipped_sensitive"] = result.rejected.get("skipped_sensitive", 0) + 1
            continue
        if not keep_special and special_categories(proposal.content):
            result.rejected["skipped_special"] = result.rejected.get("skipped_special", 0) + 1
            continue
        if any(
            is_pipeline_output(c.message) or _quotes_known(c.quote, known_texts) for c in proposal.evidence
        ):
            result.rejected["skipped_recall"] = result.rejected.get("skipped_recall", 0) + 1
            continue
        if is_instruction(proposal.content):
            result.quarantine.append((proposal, "reads as an instruction to the agent"))
            continue
        cites = tuple(
            replace(c, quote=redact(c.quote) if keep_special else redact_special(redact(c.quote)))
            for c in proposal.evidence
        )
        result.keep.append(replace(proposal, evidence=cites) if cites != proposal.evidence else proposal)
    return result


def _quotes_known(quote: str, known_texts: set[str]) -> bool:
    """The user quoting back one of their own signals verbatim ("Works as a data engineer"): the
    signals are third person without a subject, which a person rarely says about themselves."""
    return normalize_content(quote) in known_texts


_NUMBER_TOKEN = re.compile(r"\w*\d\w*")


def _repeats_redacted(proposal: Proposal) -> bool:
    """The content repeats a number of something its quotes hold as a secret, identifier or contact detail
    ("Grew up on 14 March 1987" from "I was born on 14 March 1987"): the content's own words need not be
    the cue the screen knows."""
    content = set(_NUMBER_TOKEN.findall(proposal.content.casefold()))
    if not content:
        return False
    for cite in proposal.evidence:
        for found in findings(cite.quote):
            if content & set(_NUMBER_TOKEN.findall(cite.quote[found.start : found.end].casefold())):
                return True
    return False
