"""A first-person gold fact ("I have two dogs") in the form the prompts ask a signal to take ("Has two
dogs"): third person without a subject. By rule, for measuring what the screens make of the facts a dataset
labels (bench/screen_false_positives.py) and for test models that answer a dataset's labels."""

from __future__ import annotations

import re

from agent_signals.core.screening.signal_shape import ACTIONS

_FIRST_VERB = {"am": "Is", "'m": "Is", "have": "Has", "'ve": "Has", "do": "Does", "go": "Goes", "'ll": "Will",
               "'d": "Would"}  # fmt: skip
_PRONOUNS = [(r"\bmy\b", "their"), (r"\bme\b", "them"), (r"\bmyself\b", "themselves"), (r"\bmine\b", "theirs"),
             (r"\bI'm\b", "they're"), (r"\b[Ii]\b", "they"), (r"\bwe\b", "they"), (r"\bour\b", "their"),
             (r"\bus\b", "them")]  # fmt: skip


def as_signal(fact: str) -> str:
    """A first-person gold fact as the third-person signal the prompts ask for, by rule: the leading "I" and
    its verb ("I have" -> "Has", "I like" -> "Likes"), a leading "My" as "Their", the other pronouns."""
    text = fact.strip()
    if match := re.match(r"^[Ii]\s*('m|'ve|'ll|'d|\s\w+)\s*(.*)$", text):
        verb, rest = match[1].strip(), match[2]
        if verb.lower() in _FIRST_VERB:
            verb = _FIRST_VERB[verb.lower()]
        elif verb.lower() in ("was", "can", "will", "would", "could", "should", "had", "did", "must", "may"):
            pass
        elif verb.endswith(("s", "sh", "ch", "x", "o")):
            verb += "es"
        elif verb.endswith("y") and verb[-2:-1] not in ("a", "e", "i", "o", "u"):
            verb = verb[:-1] + "ies"
        elif not verb.endswith("ed"):
            verb += "s"
        text = f"{verb[:1].upper()}{verb[1:]} {rest}"
    elif text.split(" ", 1)[0].lower() in ACTIONS:  # a request stated as a fact: "Sign emails 'Best, Maja'"
        text = "Wants to " + text[:1].lower() + text[1:]
    elif re.match(r"^my\b", text, re.I):
        text = "Their" + text[2:]
    elif re.match(r"^our\b", text, re.I):
        text = "Their" + text[3:]
    elif match := re.match(r"^we\s+(\w+)\s*(.*)$", text, re.I):  # "We live on a farm" -> "Lives on a farm"
        text = as_signal(f"I {match[1]} {match[2]}")
    for pattern, replacement in _PRONOUNS:
        text = re.sub(pattern, replacement, text)
    return text
