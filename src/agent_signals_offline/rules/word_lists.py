"""Word lists of the offline rules (data): words that make a clause not a durable statement, verbs after
"I" that say nothing lasting about the speaker, and irregular past forms."""

from __future__ import annotations


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text`: a long word list written as prose."""
    return frozenset(text.split())


SKIP_SINGLE = word_set(
    "if unless whether maybe perhaps probably might would could should suppose imagine "
    "hypothetically wish hope hoping wonder someday gonna wanna planning today tonight tomorrow "
    "yesterday currently recently lately soon anymore remember memorize memorise considering ignore "
    "instruction instructions pretend jk i'd id i'll ill wouldn't couldn't shouldn't"
)

# Verbs after "I" that say nothing lasting about the speaker: talk about the conversation, thoughts,
# feelings of the moment, modals and auxiliaries, and past events.
NOT_HABIT = word_set(
    "think thought guess know knew hope bet mean meant agree understand see saw hear heard feel felt "
    "wish suppose imagine believe wonder remember forget forgot say said tell told ask asked thank "
    "appreciate apologize apologise need want can could would will shall should must may might am "
    "was were is are be been do did does have had has get got gotta gonna wanna let hate love like "
    "enjoy prefer adore dislike guess figure find found realize realise mean hope doubt assume "
    "expect promise swear admit recommend suggest totally really just also can't cannot couldn't "
    "wouldn't won't don't didn't haven't hadn't wasn't isn't aren't shouldn't dont cant wont try "
    "tried sure too only even still already always never ever definitely probably actually hate "
    "hated went came made took bought gave left lost won ate drank ran sat stood slept woke wrote "
    "read spent met started stopped decided managed needed wanted liked loved looked watched played "
    "worked lived moved used tend look sound seem seems keep kept miss missed care cared worry "
    "worried love loved quite about kinda rather pretty almost barely hardly literally honestly "
    "basically seriously"
)
IRREGULAR_PAST = word_set(
    "sent spent lent bent built taught caught brought thought fought sought bought sold told held "
    "felt kept slept swept wept left meant dealt knelt dreamt burnt learnt began drank sang rang "
    "swam ran came became gave forgave wrote rode drove rose chose froze spoke broke stole woke wore "
    "tore swore bore threw grew knew flew drew blew saw did went took shook forgot got hid bit lit "
    "fed led sped fled met paid laid said heard made had sat stood understood won lost shot ate fell "
    "hung stuck struck dug"
)
