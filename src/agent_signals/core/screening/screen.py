"""Screening of what the model writes before it is stored: this pipeline writes what an agent will
believe about a person, so it refuses secrets and personal contact data, never writes an instruction to
the agent as a "fact" (quarantined for review instead), never re-learns its own output (a pasted
context block, a signal quoted back), and holds for a person to review what no deterministic check can
decide. The model can be fooled: nothing here trusts its judgement.

- secrets, identifiers and contact data (core/screening/sensitive/) in a candidate's content, or a number the content
  repeats from such data in its quote: the candidate is rejected (`skipped_sensitive`); in an evidence
  quote only: the quote is stored redacted.
- a special category of personal data (special.py) in a candidate's content: rejected (`skipped_special`);
  in an evidence quote: the clause stating it is stored redacted. Unless the deployment keeps them
  (AGENT_SIGNALS_SPECIAL_CATEGORIES=keep).
- a candidate that reads as an instruction to the agent, claims authority or consent, or carries links,
  markup, code or encoded blobs (instructions.py, in nine languages and through obfuscation):
  quarantined (ops.quarantine) with the reason, not written.
- a candidate no check can decide, held for review (the outcome's `held`, with the reason): stored as a signal of
  status `pending`, out of every view until a reviewer approves it (AGENT_SIGNALS_REVIEW=reject: rejected,
  `skipped_review`). A candidate citing a message that hides text from its reader (bidi overrides, tag
  characters: text.disguises_text) is held: what was hidden cannot be screened, and the rest may be true.
- a candidate whose evidence is the pipeline's own text: rejected (`skipped_recall`).
- any other text the model writes (a summary, a reconciliation's merged content): `screen_text` says why
  it must not be stored; the caller refuses it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from agent_signals.core.actions import Count
from agent_signals.core.memo import per_text
from agent_signals.core.outcome import UserOutcome
from agent_signals.core.prompting.extract_calls import KnownSignal, UserMessages, is_pipeline_output
from agent_signals.core.screening import risk
from agent_signals.core.screening.instructions import instruction_reason, redact_blobs
from agent_signals.core.screening.sensitive import findings, sensitive_kinds
from agent_signals.core.screening.sensitive import redact as redact_sensitive
from agent_signals.core.screening.signal_shape import ENGLISH, shape_reason
from agent_signals.core.screening.special import redact_special, special_categories
from agent_signals.core.text import normalize_content
from agent_signals.core.validate import Proposal, Rejection


def redact(text: str) -> str:
    """A text with its secrets, identifiers, contact data, encoded blobs and special-category clauses
    replaced by `[<kind> redacted]`: evidence quotes, and everything the pipeline keeps or logs beside the
    signals (a blob is redacted because what it encodes cannot be screened)."""
    return redact_special(redact_blobs(redact_sensitive(text)))


def is_instruction(content: str) -> bool:
    """A candidate that tells the agent what to do (beyond how to phrase answers) is not a fact."""
    return instruction_reason(content) is not None


def screen_text(
    text: str, *, keep_special: bool = False, language: str = ENGLISH, summary: bool = False
) -> str | None:
    """Why a text the model wrote (a summary, a merged signal) must not be stored where agents read it, or
    None: what the text screens find, or a shape no signal or summary has (signal_shape.py: another
    language, the first or second person, an instruction's grammar; a summary may name "the user"). One
    place for every screen of free text."""
    return _refusal(_read(text, keep_special)) or shape_reason(text, language, summary=summary)


@dataclass(frozen=True)
class _Found:
    """What the text screens find in one text (None: nothing)."""

    sensitive: str | None  # the kinds of secret, identifier or contact data, comma-separated
    special: str | None  # the special categories it states (None too when the deployment keeps them)
    instruction: str | None  # why it reads as an instruction to the agent


@per_text
def _read(text: str, keep_special: bool) -> _Found:
    """What the text screens find in a text (each distinct text read once in a process: memo.py)."""
    kinds = sensitive_kinds(text)
    categories = [] if keep_special else special_categories(text)
    return _Found(", ".join(kinds) or None, ", ".join(categories) or None, instruction_reason(text))


def _refusal(found: _Found) -> str | None:
    if found.sensitive:
        return f"holds {found.sensitive.replace('_', ' ')}"
    if found.special:
        return f"states {found.special.replace('_', ' ')}"
    return found.instruction


WITHHELD_COUNTERS = frozenset({Count.SKIPPED_SENSITIVE, Count.SKIPPED_SPECIAL})


@dataclass
class _Sorted:
    """One user's candidates as screening sorts them, before the user's outcome takes them."""

    keep: list[Proposal] = field(default_factory=list)
    quarantine: list[tuple[Proposal, str]] = field(default_factory=list)
    held: list[tuple[Proposal, str]] = field(default_factory=list)  # their quotes redacted as a kept one's
    rejected: list[Rejection] = field(default_factory=list)
    counts: Counter[Count] = field(default_factory=Counter)

    def reject(self, proposal: Proposal, counter: Count, reason: str) -> None:
        """Rejected as `counter`; its texts not kept at all when it holds what is refused (WITHHELD_COUNTERS)."""
        self.counts[counter] += 1
        self.rejected.append(Rejection.of(proposal, "screen", reason, withhold=counter in WITHHELD_COUNTERS))


def screen(proposals: list[Proposal], known: list[KnownSignal], *, keep_special: bool) -> UserOutcome:
    """One user's validated candidates sorted into written, held for review, quarantined and rejected (a
    user's outcome of them alone); `keep_special` is AGENT_SIGNALS_SPECIAL_CATEGORIES=keep."""
    outcome = UserOutcome(UserMessages("", known=list(known)), proposals=list(proposals))
    screen_shard([outcome], keep_special=keep_special)
    return outcome


def screen_shard(outcomes: Sequence[UserOutcome], *, keep_special: bool, language: str = ENGLISH) -> None:
    """Screen the candidates of users (each outcome's proposals, against its user's known signals; a run
    screens each user as its answers come in: core/user_work.py), a row per candidate: each distinct text (a
    content, a summary) is read by the text screens once (_read keeps their findings), the checks of a
    candidate's evidence beside it, and _decide decides each row, in this order: sensitive, special category, recall (rejected), instruction
    (quarantined), hidden text (held for review). Then the set (risk.py): a candidate whose message another
    candidate was quarantined for goes with it, and one with a risk mark is held for review. Each outcome's
    summary is screened in the same pass, shape included, and dropped when it is refused (counted
    `summary_refused`) or when any candidate was not kept as it is (it may state what was refused or held:
    agents must not read it before a reviewer does). `language` is the signal language
    (AGENT_SIGNALS_SIGNAL_LANGUAGE). The outcomes change only once every user is screened: a screen that
    raises leaves them as they were."""
    users = {o.user_id: (o.proposals, o.user_messages.known) for o in outcomes}
    summaries = {o.user_id: o.summary for o in outcomes if o.summary is not None}
    rows = []
    for user_id, (proposals, known) in users.items():
        known_texts = {s.normalized for s in known}
        rows += [
            (user_id, row, p.content, _repeats_redacted(p), _recalls(p, known_texts),
             any(c.message.disguised for c in p.evidence))
            for row, p in enumerate(proposals)
        ]  # fmt: skip
    texts = dict.fromkeys([content for _u, _r, content, *_rest in rows] + list(summaries.values()))
    found = {text: _read(text, keep_special) for text in texts}
    refusals = {user_id: _summary_refusal(found, summaries.get(user_id), language) for user_id in users}
    result = {user_id: _Sorted() for user_id in users}
    decisions = {
        (user_id, row): _decide(found[content], repeats, recall, disguised)
        for user_id, row, content, repeats, recall, disguised in rows
    }
    marks = risk.mark(users, decisions, language)
    tainted, refused_values = _withheld(users, decisions)
    for (user_id, row), (counter, reason) in decisions.items():
        if (user_id, row) in marks.refuse:
            counter, reason = "quarantine", marks.refuse[user_id, row]
        elif counter is None and (user_id, row) in marks.hold:
            counter, reason = "hold", marks.hold[user_id, row]
        proposal, screened = users[user_id][0][row], result[user_id]
        taints = [
            tainted[user_id, c.message_key] for c in proposal.evidence if (user_id, c.message_key) in tainted
        ]
        if counter is None and _repeats_refused_value(proposal, user_id, refused_values):
            # the refused candidate's number or code, kept in words the detectors did not read as one
            counter, reason = (
                Count.SKIPPED_SENSITIVE.value,
                "holds a value another candidate of its message was refused for",
            )
        if taints and counter in ("quarantine", "hold"):
            # its text is the model's word for a message that holds what was refused: not kept at all
            counter, reason = taints[0][0], f"{taints[0][1]} (stated by another candidate of its message)"
        if counter == "quarantine":
            screened.quarantine.append((proposal, reason))
        elif counter == "hold":
            screened.held.append((_redacted(proposal, keep_special), reason))
        elif counter is not None:
            screened.reject(proposal, Count(counter), reason)
        else:
            kept = _redacted(proposal, keep_special)
            if taints:
                kept = _quotes_withheld(kept, proposal, user_id, tainted)
            screened.keep.append(kept)
    for outcome in outcomes:
        screened = result[outcome.user_id]
        outcome.proposals = screened.keep
        outcome.quarantine += screened.quarantine
        outcome.held += screened.held
        outcome.rejected += screened.rejected
        for counter, n in screened.counts.items():
            outcome.count(counter, n)
        if screened.rejected or screened.quarantine or screened.held:
            outcome.summary = None
        elif outcome.summary is not None and refusals[outcome.user_id] is not None:
            outcome.summary = None
            outcome.count(Count.SUMMARY_REFUSED)


_VALUE = re.compile(r"[^\s,;()]*\d[^\s,;()]*")
VALUE_MIN_CHARACTERS = 4  # a number or code at least this long, read without its separators ("7-3-1-9-8")


def _values(text: str) -> set[str]:
    """The numbers and codes of a text, without their separators."""
    values = {re.sub(r"[\W_]", "", v) for v in _VALUE.findall(text)}
    return {v for v in values if len(v) >= VALUE_MIN_CHARACTERS}


def _withheld(
    users: Mapping[str, tuple[Sequence[Proposal], Sequence[KnownSignal]]],
    decisions: Mapping[tuple[str, int], tuple[str | None, str | None]],
) -> tuple[dict[tuple[str, tuple[str, str]], tuple[str, str]], dict[tuple[str, tuple[str, str]], set[str]]]:
    """What the candidates rejected for what their text holds (a secret, a special category) leave on their
    messages, by (user, message): the taint, (the counter, the reason), and the numbers and codes of those
    refused for a secret or an identifier. The tables may find it only in the model's words (the message in a
    language they do not read), so the message's other candidates must carry neither."""
    tainted: dict[tuple[str, tuple[str, str]], tuple[str, str]] = {}
    refused: dict[tuple[str, tuple[str, str]], set[str]] = {}
    for (user_id, row), (counter, reason) in decisions.items():
        if counter not in WITHHELD_COUNTERS:
            continue
        proposal = users[user_id][0][row]
        values = _values(proposal.content) if counter == Count.SKIPPED_SENSITIVE else set()
        for cite in proposal.evidence:
            tainted.setdefault((user_id, cite.message_key), (counter, reason or counter))
            if values:
                refused.setdefault((user_id, cite.message_key), set()).update(values)
    return tainted, refused


def _repeats_refused_value(proposal: Proposal, user_id: str, refused: Mapping) -> bool:
    """Whether a candidate's content carries a number or code of a candidate of the same message that was
    refused for a secret or an identifier (its copy in the message's words may be read by no detector)."""
    cited = [
        refused[user_id, c.message_key] for c in proposal.evidence if (user_id, c.message_key) in refused
    ]
    return bool(cited) and any(_values(proposal.content) & values for values in cited)


def _quotes_withheld(kept: Proposal, proposal: Proposal, user_id: str, tainted: dict) -> Proposal:
    """A kept candidate's quotes of a tainted message: redacted whole where redaction found nothing in them
    (what is refused is there, in words the screens do not read)."""
    cites = []
    for before, after in zip(proposal.evidence, kept.evidence, strict=True):
        taint = tainted.get((user_id, before.message_key))
        if taint and after.quote == before.quote:
            label = (taint[1].split(": ", 1)[-1].split(",")[0].strip() or "data").replace(" ", "_")
            after = replace(after, quote=f"[{label} redacted]")
        cites.append(after)
    return replace(kept, evidence=tuple(cites))


def _summary_refusal(found: dict[str, _Found], summary: str | None, language: str) -> str | None:
    if summary is None:
        return None
    return _refusal(found[summary]) or shape_reason(summary, language, summary=True)


def _decide(found: _Found, repeats: bool, recall: bool, hides: bool) -> tuple[str | None, str | None]:
    """A candidate's outcome (the counter of a rejection, "quarantine", "hold": held for review, or None:
    written) and its reason. What a deterministic check decides comes first; "hold" is for what none can."""
    if found.sensitive is not None or repeats:
        return Count.SKIPPED_SENSITIVE.value, f"sensitive: {found.sensitive or 'repeats redacted data'}"
    if found.special is not None:
        return Count.SKIPPED_SPECIAL.value, f"special category: {found.special}"
    if recall:
        return Count.SKIPPED_RECALL.value, "recall: cites the pipeline's own output"
    if found.instruction is not None:
        return "quarantine", found.instruction
    if hides:
        return "hold", "cites a message that hides text (bidi overrides or tag characters)"
    return None, None


def _recalls(proposal: Proposal, known_texts: set[str]) -> bool:
    """Its evidence is the pipeline's own text: a pasted context block, or a signal quoted back."""
    return any(
        is_pipeline_output(c.message) or _quotes_known(c.quote, known_texts) for c in proposal.evidence
    )


def _redacted(proposal: Proposal, keep_special: bool) -> Proposal:
    """The candidate with its evidence quotes redacted."""
    cites = tuple(replace(c, quote=_redacted_quote(c.quote, keep_special)) for c in proposal.evidence)
    return replace(proposal, evidence=cites) if cites != proposal.evidence else proposal


@per_text
def _redacted_quote(quote: str, keep_special: bool) -> str:
    return redact_sensitive(quote) if keep_special else redact(quote)


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
