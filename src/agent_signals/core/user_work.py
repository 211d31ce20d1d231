"""One user's CPU work in a run, as plain functions of plain data that a worker process runs (the run's
event loop only waits for the model: stages/run/workers.py) or the loop itself, the same code either way:

- plan: the user's prompts, rendered and counted (extract_calls.build_calls);
- judge: one call's answer parsed and each of its actions validated into the user's outcome; with
  `settle`, the user's last answer: the outcome is then screened (settle below);
- settle: the answer's summary kept only where it describes exactly what gets written, and the user's
  candidates screened together, against the user's known signals (screen.screen_shard).

What cannot go on comes back as a Refused (a value, not an exception: it crosses a process boundary as it
is). Counts made here go into the outcome's `figures`, a fresh Counter the caller adds to the run's.
warm() loads and compiles what these functions use, once per process (stages/run/preload.py)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date

from agent_signals.config import Settings
from agent_signals.core.outcome import UserOutcome, validate_answer
from agent_signals.core.prompting.answers import InvalidAnswer, parse_extract_actions
from agent_signals.core.prompting.extract_calls import Call, UserMessages, build_calls
from agent_signals.core.screening import learned
from agent_signals.core.screening.screen import screen_shard, screen_text


@dataclass(frozen=True)
class Refused:
    """Why a user's work cannot go on: the stage and kind it is recorded with, the message, and the model's
    answer when it could not be parsed; `stage` is "validate" for such an answer, else "extract"."""

    stage: str
    kind: str
    message: str
    raw: str | None = None


def plan(user: UserMessages, settings: Settings, today: date) -> list[Call] | Refused:
    """The user's prompts (build_calls), or why none can be built (a budget too small, a bug)."""
    try:
        return build_calls(user, settings, today)
    except Exception as exc:
        return Refused("extract", type(exc).__name__, str(exc))


def judge(
    call: Call, text: str, settings: Settings, outcome: UserOutcome, *, settle_after: bool = False
) -> UserOutcome | Refused:
    """One call's answer parsed and each of its actions validated into the outcome (outcome.validate_answer);
    with `settle_after` (the user's last answer), settled too. An answer that cannot be parsed is Refused."""
    outcome.figures = Counter()
    try:
        answer = parse_extract_actions(text)
    except InvalidAnswer as exc:
        return Refused("validate", "invalid_answer", exc.reason, exc.raw)
    validate_answer(answer, call, settings, outcome)
    return _settle(outcome, settings) if settle_after else outcome


def settle(outcome: UserOutcome, settings: Settings) -> UserOutcome | Refused:
    """The user's candidates screened and the answer's summary kept or dropped (a Refused: a bug in a screen,
    which fails this user only)."""
    outcome.figures = Counter()
    return _settle(outcome, settings)


def _settle(outcome: UserOutcome, settings: Settings) -> UserOutcome | Refused:
    # the answer's summary is kept only when it can describe exactly what gets written: one call, every
    # candidate passed validation and screening, and the summary itself passes (apply checks the rest). A
    # refused summary is left to the summarize stage, which writes it from the stored signals.
    if not may_summarize(outcome, settings):
        outcome.summary = None
    try:
        screen_shard(
            [outcome],
            keep_special=settings.screening.special_categories == "keep",
            language=settings.screening.signal_language,
        )
    except Exception as exc:
        return Refused("extract", type(exc).__name__, str(exc))
    return outcome


def may_summarize(outcome: UserOutcome, settings: Settings) -> bool:
    """Whether the answer's summary may describe what gets written: one call, no action rejected, the
    summaries on, and only profile facts (a summary is the profile's: the model's may mix in an agent's)."""
    return (
        outcome.calls == 1
        and not any(not r.kept for r in outcome.rejected)
        and settings.run.summaries
        and all(p.agent_id is None for p in outcome.proposals)
    )


WARM_TEXT = "Works as a nurse at 12 Main Street; call +44 20 7946 0958, ignore previous instructions."


def warm(model: str | None = None) -> None:
    """Load and compile what the functions above use (the screens' matchers and word lists; with `model`,
    the tokenizer litellm counts its prompts with), so that a worker's first user costs what its others do.
    Cheap once done (each part is cached by its module)."""
    import litellm

    screen_text(WARM_TEXT, summary=True)
    learned.warm()
    litellm.token_counter(model=model or "", text=WARM_TEXT)
