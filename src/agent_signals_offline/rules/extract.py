"""The offline model's judgement: a conservative rules-based extractor of durable statements a user makes
about themselves (precision over recall). Pure, deterministic, general English patterns only.

`extract(messages, known, kinds)` answers what prompts/extract/v1 asks for: `create` / `update` actions
with third-person content ("Works as a data engineer") and verbatim quotes (the clause that says it).

What it refuses to read as a fact: questions, hypotheticals and wishes, plans and current tasks, one-off
requests, statements about anyone but the speaker (other people, the organisation), negations, sarcasm,
quoted or pasted text, transient states, and instructions aimed at the assistant ("remember that ...")."""

from __future__ import annotations

import itertools

from agent_signals.core.prompting.prompts import PromptMessage, PromptSignal
from agent_signals_offline.rules.clauses import CONJUNCTION, SENTENCE, split_clauses, visible_text
from agent_signals_offline.rules.kinds.preferences import FAV_PRONOUN, favourite_of
from agent_signals_offline.rules.kinds.standing_requests import (
    FORMAT_LOWER,
    STANDING_ANY,
    STANDING_HINT,
    standing_request,
)
from agent_signals_offline.rules.kinds.workplace import (
    WORKPLACE_HINT,
    also_said,
    role_in_passing,
    workplace_statements,
)
from agent_signals_offline.rules.refusals import INJECTION, INJECTION_HINTS, SARCASM, sarcasm_hint
from agent_signals_offline.rules.statement import ASKED, clause_statement
from agent_signals_offline.words import content_words

# The offline model reads the same rendered prompt a real model reads: messages and known signals as
# prompts/extract/v1 shows them.
Message = PromptMessage  # (handle, text)
Known = PromptSignal  # (handle, content, tier, kind, origin)
CORE_KINDS = frozenset({"role", "team", "ownership", "expertise", "communication", "writing"})
EXCLUSIVE_KINDS = frozenset({"role", "team"})  # a new statement of these supersedes the old one
MAX_CONTENT = 120
MAX_ACTIONS = 50


def _key(text: str) -> set[str]:
    return set(content_words(text))


def _similar(a: str, b: str) -> bool:
    ka, kb = _key(a), _key(b)
    return bool(ka and kb) and len(ka & kb) / len(ka | kb) >= 0.6


def _match_known(kind: str, content: str, known: list[Known]) -> Known | None:
    """The known signal this candidate restates (similar text) or supersedes (same exclusive kind). A
    manual signal it touches comes first: the caller then says nothing, whatever else it also touches."""
    restated = [
        signal
        for signal in known
        if signal.content.lower() == content.lower()
        or (signal.kind == kind and _similar(signal.content, content))
    ]
    superseded = [signal for signal in known if kind in EXCLUSIVE_KINDS and signal.kind == kind]
    touched = restated + superseded
    return next((signal for signal in touched if signal.origin == "manual"), touched[0] if touched else None)


def _emit(state: dict, handle: str, kind: str, content: str, quote: str) -> bool:
    """Add (or add evidence to) the action for one fact; False when no more actions may be added."""
    actions: dict[str, dict] = state["actions"]
    content = content[:1].upper() + content[1:]
    if kind not in state["allowed"] or not 3 <= len(content) <= MAX_CONTENT:
        return True
    if state["sarcastic"] and kind in ("preference", "communication", "writing"):
        return True
    if kind in ("communication", "writing"):
        state["answered"].append(quote)
    key = content.lower()
    if key in actions:
        evidence = actions[key]["evidence"]
        if len(evidence) < 5 and all(e["message"] != handle for e in evidence):
            evidence.append({"message": handle, "quote": quote})
        return True
    if len(actions) >= MAX_ACTIONS:
        return False
    past = content.startswith(("Used to", "Was ", "Worked ", "No longer ", "Taught "))
    tier = "core" if kind in CORE_KINDS and not past else "contextual"
    action: dict = {
        "action": "create",
        "content": content,
        "tier": tier,
        "kind": kind,
        "evidence": [{"message": handle, "quote": quote}],
    }
    target = _match_known(kind, content, state["known"])
    if target is not None:
        if target.origin == "manual":
            return True  # the user's own word wins: never restated, never contradicted
        action = {
            "action": "update",
            "signal": target.handle,
            **{k: v for k, v in action.items() if k != "action"},
        }
        state["known"] = [
            k for k in state["known"] if k.handle != target.handle
        ]  # one update per known signal
    actions[key] = action
    return True


def extract(messages: list[Message], known: list[Known], kinds: tuple[str, ...] | list[str]) -> list[dict]:
    """The actions for one user's messages, given what is already known about them."""
    actions: dict[str, dict] = {}  # by lower-cased content: one action per fact, evidence accumulated
    state: dict = {"actions": actions, "known": list(known), "allowed": set(kinds)}
    for message in messages:
        lower = message.text.lower()
        if any(hint in lower for hint in INJECTION_HINTS) and INJECTION.search(message.text):
            continue
        # a love said with an eye-roll: no taste of the message is taken at its word
        state["sarcastic"] = sarcasm_hint(lower) and SARCASM.search(message.text) is not None
        state["answered"] = []  # quotes of communication and writing signals read from clauses
        _read_clauses(state, message, lower)
        # standing requests about answers, read sentence by sentence ("give me checklists not prose, always")
        if STANDING_HINT.search(lower):
            _read_standing_requests(state, message)
    return list(actions.values())


def _read_clauses(state: dict, message: Message, lower: str) -> None:
    """Emit what the message's clauses say, clause by clause; stops when no more actions may be added."""
    workplace = WORKPLACE_HINT.search(lower) is not None  # a cheap test before workplace_statements
    previous = ""
    for clause, question in split_clauses(message.text):
        before, previous = previous, clause
        resolved = None
        if not question and before and FAV_PRONOUN.match(clause):
            resolved = favourite_of(before, clause, message.text)  # "Do you like twitter? It's my favorite!"
        if resolved is not None:
            found, clause = resolved
        elif question:
            # "I like animals I have two cats how about you": a statement run into the question after it
            asked = ASKED.search(clause)
            if asked is None or asked.start() == 0:
                continue
            clause = clause[: asked.start()].rstrip()
        if resolved is None:
            found = clause_statement(clause)
        if found is None and clause[:2].lower() in ("as", "be"):  # "As a nurse, I work nights"
            found = role_in_passing(clause, message.text)
        results = [found] if found is not None else []
        if found is None and (workplace or "here" in clause.lower()):
            results = workplace_statements(clause, message.text)
        if not results:  # "I am 19 and just want to see my friends": the first part may stand alone
            for head in itertools.islice(CONJUNCTION.finditer(clause), 3):
                found = clause_statement(clause[: head.start()].rstrip())
                if found is not None:
                    clause = clause[: head.start()].rstrip()
                    results = [found]
                    break
            if not results:
                continue
        if found is not None and found[0] in ("role", "team"):
            results += also_said(clause, found)
        if not all(_emit(state, message.handle, kind, content, clause) for kind, content in results):
            return


def _read_standing_requests(state: dict, message: Message) -> None:
    """Emit the standing requests about answers the message's sentences make, unless a clause already
    said them; stops when no more actions may be added."""
    visible = visible_text(message.text)
    for sentence in SENTENCE.finditer(visible):
        quote = message.text[sentence.start() : sentence.end()].strip().rstrip(".!? ").strip()
        if not quote or any(q in quote or quote in q for q in state["answered"]):
            continue
        low = quote.lower()
        if not STANDING_HINT.search(low) or not STANDING_ANY.search(low) or not FORMAT_LOWER.search(low):
            continue
        found = standing_request(quote, message.text)
        if found is not None and not _emit(state, message.handle, *found, quote):
            return
