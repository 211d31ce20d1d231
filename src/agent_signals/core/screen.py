"""Screening of what the model writes before it is stored: this pipeline writes what an agent will
believe about a person, so it refuses secrets and personal contact data, never writes an instruction to
the agent as a "fact" (quarantined for review instead), and never re-learns its own output (a pasted
context block, a signal quoted back). The model can be fooled: nothing here trusts its judgement.

- secrets, identifiers and contact data (core/sensitive/) in a candidate's content, or a number the content
  repeats from such data in its quote: the candidate is rejected (`skipped_sensitive`); in an evidence
  quote only: the quote is stored redacted.
- a special category of personal data (special.py) in a candidate's content: rejected (`skipped_special`);
  in an evidence quote: the clause stating it is stored redacted. Unless the deployment keeps them
  (AGENT_SIGNALS_SPECIAL_CATEGORIES=keep).
- a candidate that reads as an instruction to the agent, claims authority or consent, or carries links,
  markup, code or encoded blobs (instructions.py, in nine languages and through obfuscation):
  quarantined (ops.quarantine) with the reason, not written; so is a candidate citing a message that hides
  text from its reader (bidi overrides, tag characters: text.disguises_text).
- a candidate whose evidence is the pipeline's own text: rejected (`skipped_recall`).
- any other text the model writes (a summary, a reconciliation's merged content): `screen_text` says why
  it must not be stored; the caller refuses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from agent_signals.core.batching import KnownSignal, is_pipeline_output
from agent_signals.core.instructions import instruction_reason
from agent_signals.core.sensitive import findings, sensitive_kinds
from agent_signals.core.sensitive import redact as redact_sensitive
from agent_signals.core.special import redact_special, special_categories
from agent_signals.core.text import normalize_content
from agent_signals.core.validate import Proposal


def redact(text: str) -> str:
    """A text with its secrets, identifiers, contact data and special-category clauses replaced by
    `[<kind> redacted]`: evidence quotes, and everything the pipeline keeps or logs beside the signals."""
    return redact_special(redact_sensitive(text))


def is_instruction(content: str) -> bool:
    """A candidate that tells the agent what to do (beyond how to phrase answers) is not a fact."""
    return instruction_reason(content) is not None


def screen_text(text: str, *, keep_special: bool = False) -> str | None:
    """Why a text the model wrote (a summary, a merged signal) must not be stored where agents read it, or
    None. One place for every screen of free text."""
    if kinds := sensitive_kinds(text):
        return f"holds {', '.join(kinds).replace('_', ' ')}"
    if not keep_special and (categories := special_categories(text)):
        return f"states {', '.join(categories).replace('_', ' ')}"
    return instruction_reason(text)


WITHHELD_COUNTERS = frozenset({"skipped_sensitive", "skipped_special"})


@dataclass
class Screened:
    keep: list[Proposal]
    quarantine: list[tuple[Proposal, str]]
    rejected: dict[str, int]  # reason -> candidates
    # each rejected candidate, with why, and whether its text must not be kept (it holds what is refused)
    dropped: list[tuple[Proposal, str, bool]] = field(default_factory=list)

    def reject(self, proposal: Proposal, counter: str, reason: str) -> None:
        self.rejected[counter] = self.rejected.get(counter, 0) + 1
        self.dropped.append((proposal, reason, counter in WITHHELD_COUNTERS))


def screen(proposals: list[Proposal], known: list[KnownSignal], *, keep_special: bool) -> Screened:
    """Sort validated candidates into written, quarantined and rejected; `keep_special` is
    AGENT_SIGNALS_SPECIAL_CATEGORIES=keep."""
    known_texts = {s.normalized for s in known}
    result = Screened([], [], {})
    for proposal in proposals:
        kinds = sensitive_kinds(proposal.content)
        if kinds or _repeats_redacted(proposal):  # nor a number its quote holds as sensitive
            result.reject(
                proposal, "skipped_sensitive", f"sensitive: {', '.join(kinds) or 'repeats redacted data'}"
            )
            continue
        if not keep_special and (categories := special_categories(proposal.content)):
            result.reject(proposal, "skipped_special", f"special category: {', '.join(categories)}")
            continue
        if any(
            is_pipeline_output(c.message) or _quotes_known(c.quote, known_texts) for c in proposal.evidence
        ):
            result.reject(proposal, "skipped_recall", "recall: cites the pipeline's own output")
            continue
        if any(c.message.disguised for c in proposal.evidence):
            result.quarantine.append(
                (proposal, "cites a message that hides text (bidi overrides or tag characters)")
            )
            continue
        if reason := instruction_reason(proposal.content):
            result.quarantine.append((proposal, reason))
            continue
        cites = tuple(
            replace(c, quote=redact_sensitive(c.quote) if keep_special else redact(c.quote))
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
