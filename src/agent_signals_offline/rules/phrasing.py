"""How a matched object becomes a signal's content: third person ("my" -> "their"), cut to a few words at a
joint, without a trailing subordinate clause or dangling word; verbs in the third person singular, and the
article a role takes."""

from __future__ import annotations

import re

_PRONOUNS = [
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bmy\b", re.I), "their"),
    (re.compile(r"\bmine\b", re.I), "theirs"),
    (re.compile(r"\bme\b", re.I), "them"),
    (re.compile(r"\bI'm\b|\bI am\b", re.I), "they are"),
    (re.compile(r"\bI was\b", re.I), "they were"),
    (re.compile(r"\bI\b"), "they"),
    (re.compile(r"\bour\b", re.I), "their"),
    (re.compile(r"\bus\b", re.I), "them"),
]


def third_person(text: str) -> str:
    for pattern, replacement in _PRONOUNS:
        text = pattern.sub(replacement, text)
    return text


_TRAILING = re.compile(
    r"[\s,;:.!?\-\u2014]+$|\s+(?:too|as well|though|haha|lol|so|by the way|anyway|honestly|either|"
    # a phrase cut at the word limit must not end on a word that needs another
    r"a|an|the|and|or|but|to|of|with|for|in|on|at|by|from|as|my|your|their|his|her|our|its|that|which|who|"
    r"very|really|just|some|any|this|these|those)$",
    re.I,
)
_JOINTS = frozenset(["and", "or", "but", "with", "who", "which", "that", "because", "when", "while", "since"])


def clean(obj: str, max_words: int = 10) -> str:
    words = obj.split()
    if len(words) > max_words:  # cut at the last joint inside the limit rather than mid-phrase
        words = words[:max_words]
        joints = [i for i, w in enumerate(words) if i >= 2 and w.lower() in _JOINTS]
        if joints:
            words = words[: joints[-1]]
    obj = " ".join(words)
    previous = None
    while previous != obj:
        previous, obj = obj, _TRAILING.sub("", obj)
    return third_person(obj)


_SUBORDINATE = re.compile(
    r"\s+(?:when|whenever|where|because|since|while|if|so that|so|but|though|although|which|who|until|before|"
    r"after|as long as|unless|whereas|(?:just |in order )?to (?:help|pay|make|earn|keep|get|stay|save|relax|"
    r"unwind|decompress|cover|support))\b.*$",
    re.I,
)


def object_head(obj: str) -> str:
    """The object without the clause that follows it: "kids who have trouble reading" -> "kids"."""
    return _SUBORDINATE.sub("", obj)


_VERB_S = {
    "go": "goes",
    "do": "does",
    "have": "has",
    "watch": "watches",
    "teach": "teaches",
    "fish": "fishes",
    "study": "studies",
    "carry": "carries",
    "try": "tries",
}


def verb_s(verb: str) -> str:
    verb = verb.lower()
    return _VERB_S.get(verb, verb + ("es" if verb.endswith(("s", "sh", "ch", "x")) else "s"))


def article(phrase: str) -> str:
    word = phrase.split()[0] if phrase.split() else ""
    if word.isupper() and len(word) <= 5:  # "an SRE", "a CTO"
        return "an" if word[0] in "AEFHILMNORSX" else "a"
    return "an" if word[:1].lower() in "aeiou" else "a"
