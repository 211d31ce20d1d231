"""Evidence quotes as real models write them (text.find_span, validate.cited_span): a quote equal to a span
of its message up to case, whitespace, invisible characters, compatibility forms, quote marks and
apostrophes of any kind, an ellipsis at either end or a short one inside, maps back to EXACTLY that span of
the message; a quote with a word the message does not have is rejected."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_signals.config import Settings
from agent_signals.core.outcome import validate_answer
from agent_signals.core.prompting.answers import parse_extract_actions
from agent_signals.core.prompting.extract_calls import SourceMessage, UserMessages, build_calls
from agent_signals.core.text import ELIDED_GAP_CHARS, clean, find_span

pytestmark = pytest.mark.unit

MESSAGE = "Hi! I\u2019m the lead of the Payments team at Caf\u00e9 Zo\u00eb, \u00abfive\u00bb years now\u2026 it's fun."


@pytest.mark.parametrize(
    ("quote", "span"),
    [
        ("i'm the LEAD of the payments team", "I\u2019m the lead of the Payments team"),  # case, apostrophe
        ("I\u02bcm the lead", "I\u2019m the lead"),  # modifier letter apostrophe
        ("I`m the lead", "I\u2019m the lead"),  # grave accent
        ("I\u00b4m the lead", "I\u2019m the lead"),  # acute accent
        ("I\u2032m the lead", "I\u2019m the lead"),  # prime
        ("I\u2018m the lead", "I\u2019m the lead"),  # the wrong curly quote
        ('"five" years', "\u00abfive\u00bb years"),  # guillemets written as straight quotes
        ("it\u2019s fun", "it's fun"),  # a curly quote for the message's straight one
        ("I\u2019m the lead...", "I\u2019m the lead"),  # trailing ellipsis
        ("I\u2019m the lead \u2026", "I\u2019m the lead"),
        ("...the Payments team", "the Payments team"),  # leading ellipsis
        ("\u2026 the Payments team \u2026", "the Payments team"),
        ("[...] the Payments team", "the Payments team"),
        ('"I\u2019m the lead of the Payments team."', "I\u2019m the lead of the Payments team"),  # in quotes
        ("Hi!", "Hi!"),  # marks the message has stay in the span
        ("years now...", "years now\u2026"),  # the message's own ellipsis is not dropped from the span
        ("at cafe\u0301 zoe\u0308", "at Caf\u00e9 Zo\u00eb"),  # decomposed accents
        ("I\u2019m the lead ... Payments team", "I\u2019m the lead of the Payments team"),  # elided middle
        (
            "I\u2019m the lead [\u2026] team at Caf\u00e9",
            "I\u2019m the lead of the Payments team at Caf\u00e9",
        ),
    ],
)
def test_a_quote_as_models_write_it_maps_to_the_exact_span(quote, span):
    assert find_span(quote, MESSAGE) == span
    assert find_span(quote, clean(MESSAGE)) == clean(span)  # the message as validation reads it


@pytest.mark.parametrize(
    "quote",
    [
        "I am the lead",  # other words
        "I\u2019m the head of the Payments team",  # one word changed
        "the Payments team at Acme",  # a word the message does not have
        "I\u2019m the lead ... Acme",  # an elided quote whose last part is not in the message
        "Payments team ... I\u2019m the lead",  # parts out of order
        "Cafe Zoe",  # accents are letters: not folded away
        "...",
        "\u2026",
        '" "',
        "",
    ],
)
def test_a_quote_not_in_the_message_is_rejected(quote):
    assert find_span(quote, MESSAGE) is None


def test_an_elided_gap_is_short():
    text = "I lead " + "and so on " * 20 + "the payments team"
    assert find_span("I lead ... the payments team", text) is None
    near = "I lead " + "x" * (ELIDED_GAP_CHARS - 2) + " the payments team"
    assert find_span("I lead ... the payments team", near) == near


def test_an_elided_quote_is_the_shortest_span_holding_its_parts():
    assert find_span("i lead...team", "I lead the team. I lead the big team") == "I lead the team"
    assert find_span("I ... team", "Hi! I lead the team") == "I lead the team"


def test_the_span_keeps_the_texts_hidden_multibyte_and_compatibility_characters():
    text = "Ich wohne in der Stra\u00dfe 5, mein \ufb01le ist \u2460 gro\u00df \U0001f600 und pi\u200blot"
    assert find_span("in der STRASSE 5", text) == "in der Stra\u00dfe 5"
    assert find_span("mein file ist 1", text) == "mein \ufb01le ist \u2460"
    assert find_span("gross \U0001f600 und pilot", text) == "gro\u00df \U0001f600 und pi\u200blot"
    assert find_span("stras", text) is None  # half of \u00df is not a character of the text
    assert find_span("cafe", "I love cafe\u0301s") is None  # nor a letter without its accent
    assert find_span(
        "\u6570\u636e\u5de5\u7a0b\u5e08", "\u6211\u662f\u4e00\u540d\u6570\u636e\u5de5\u7a0b\u5e08\u3002"
    ) == ("\u6570\u636e\u5de5\u7a0b\u5e08")  # no spaces between words in Chinese


# Property: the message is words of SPAN_UNITS (the span, somewhere inside) between words of OTHER_UNITS,
# which share no character with them even folded, so the span is the only place the quote can match.
SPAN_UNITS = [
    "a",
    "b",
    "k",
    "Q",
    "\u00e9",
    "e\u0301",
    "\u00df",
    "\ufb01",
    "\uff21",
    "\u6f22",
    "\U0001f600",
    "\u00f1",
]
APOSTROPHES = ["'", "\u2019", "\u2018", "\u02bc", "\u2032", "`", "\u00b4"]
OTHER_UNITS = ["\u03b1", "\u03b2", "\u03b3", "7", "8", "9", "-", "\u0436"]
HIDDEN = ["\u200b", "\u00ad", "\u2060", "\u200d", "\ufeff"]
SPACES = [" ", "  ", "\n", "\t", "\u00a0", " \n "]


@st.composite
def word(draw, units, hidden=True):
    parts = [draw(st.sampled_from(units))]
    for _ in range(draw(st.integers(0, 4))):
        if hidden and draw(st.booleans()):
            parts.append(draw(st.sampled_from(HIDDEN + APOSTROPHES)))
        parts.append(draw(st.sampled_from(units)))
    return "".join(parts)


@st.composite
def message_with_span(draw):
    def words(units, low, high):
        out = [draw(word(units)) for _ in range(draw(st.integers(low, high)))]
        return "".join(w + draw(st.sampled_from(SPACES)) for w in out)

    span_words = [draw(word(SPAN_UNITS)) for _ in range(draw(st.integers(1, 6)))]
    span = span_words[0] + "".join(draw(st.sampled_from(SPACES)) + w for w in span_words[1:])
    before, after = words(OTHER_UNITS, 0, 3), words(OTHER_UNITS, 0, 3)
    return before + span + " " + after, span, span_words


@st.composite
def perturbed(draw, span):
    quote = draw(st.sampled_from(SPACES)).join(span.split())
    quote = draw(st.sampled_from([str.upper, str.lower, str.swapcase, str.title, lambda s: s]))(quote)
    quote = "".join(draw(st.sampled_from(APOSTROPHES)) if c in APOSTROPHES else c for c in quote)
    if draw(st.booleans()):
        quote = clean(quote)  # as the prompt shows a message: invisible characters out, NFKC
    lead, trail = (
        draw(st.sampled_from(["", "...", "\u2026 ", '"', "\u201c", "'"])),
        draw(st.sampled_from(["", "...", " \u2026", '"', "\u201d", ".", "\u2019", "!"])),
    )
    return lead + quote + trail


@given(st.data())
def test_any_span_quoted_with_any_of_those_variations_maps_back_to_exactly_that_span(data):
    text, span, _words = data.draw(message_with_span())
    quote = data.draw(perturbed(span))
    assert find_span(quote, text) == span
    assert find_span(quote, clean(text)) == clean(span)  # the message as validation reads it


@given(st.data())
def test_a_quote_with_a_word_the_message_lacks_is_rejected(data):
    text, span, _words = data.draw(message_with_span())
    words = data.draw(perturbed(span)).split(" ")
    stranger = data.draw(st.sampled_from(["\u0444\u044b\u0432", "xyz", "\u00e7a", "\u4e2d\u6587", "word"]))
    words.insert(data.draw(st.integers(0, len(words))), stranger)
    assert find_span(" ".join(words), text) is None


@given(st.data())
def test_an_elided_middle_maps_to_the_span_from_the_first_part_to_the_last(data):
    text, span, words = data.draw(message_with_span())
    # runes begin and end the span, once each in the message, so no shorter span holds the quote's parts
    text, span, words = (
        text.replace(span, f"\u16a0 {span} \u16b1"),
        f"\u16a0 {span} \u16b1",
        ["\u16a0", *words, "\u16b1"],
    )
    cut = data.draw(st.integers(1, len(words) - 2))  # one word elided: a gap well under ELIDED_GAP_CHARS
    first, last = " ".join(words[:cut]), " ".join(words[cut + 1 :])
    ellipsis = data.draw(st.sampled_from([" ... ", "...", " \u2026 ", " [...] "]))
    assert find_span(first + ellipsis + last, text) == span


def test_validation_stores_the_exact_span_and_rejects_only_the_action_whose_quote_is_not_there():
    text = "Morning! I\u2019m the lead of the Payments team at Caf\u00e9 Zo\u00eb \u2014 \ufb01ve years now."
    batch = UserMessages("u", [SourceMessage.read("c1", "1", text, datetime.now(UTC))])
    (call,) = build_calls(batch, Settings(), date(2026, 11, 22))

    def create(content: str, quote: str) -> dict:
        return {"action": "create", "content": content, "tier": "core", "kind": "role",
                "evidence": [{"message": "m1", "quote": quote}]}  # fmt: skip

    raw = json.dumps({"actions": [
        create("Leads the payments team", "\"i'm the LEAD of the payments team...\""),
        create("Has worked there five years", "I\u02bcm the lead \u2026 five years now"),
        create("Leads the checkout team", "I'm the lead of the checkout team"),
    ]})  # fmt: skip
    validated = validate_answer(parse_extract_actions(raw), call, Settings())
    assert (
        [p.evidence[0].quote for p in validated.proposals]
        == [
            "I\u2019m the lead of the Payments team",
            "I\u2019m the lead of the Payments team at Caf\u00e9 Zo\u00eb \u2014 five years now",  # cleaned: \ufb01 is fi
        ]
    )
    (rejected,) = validated.rejected
    assert rejected.reason == "actions.2.evidence.0.quote: not in message m1"
