"""The offline model's judgement: a conservative rules-based extractor of durable statements a user makes
about themselves (precision over recall). Pure, deterministic, general English patterns only.

`extract(messages, known, kinds)` answers what prompts/extract/v1 asks for: `create` / `update` actions
with third-person content ("Works as a data engineer") and verbatim quotes (the clause that says it).

What it refuses to read as a fact: questions, hypotheticals and wishes, plans and current tasks, one-off
requests, statements about anyone but the speaker (other people, the organisation), negations, sarcasm,
quoted or pasted text, transient states, and instructions aimed at the assistant ("remember that ...").
"""

from __future__ import annotations

import itertools
import re

from agent_signals.core.prompts import PromptMessage, PromptSignal
from agent_signals_offline.words import WORD, content_words

# The offline model reads the same rendered prompt a real model reads: messages and known signals as
# prompts/extract/v1 shows them.
Message = PromptMessage  # (handle, text)
Known = PromptSignal  # (handle, content, tier, kind, origin)


CORE_KINDS = frozenset({"role", "team", "ownership", "expertise", "communication", "writing"})
EXCLUSIVE_KINDS = frozenset({"role", "team"})  # a new statement of these supersedes the old one
MAX_CONTENT = 120
MAX_ACTIONS = 50

# ---------------------------------------------------------------------------------------------------
# Splitting: sentences, then clauses. Quoted and pasted text is blanked out first (same length, so that
# offsets still point into the original message and quotes stay verbatim).

_QUOTED = re.compile(r"\"[^\"\n]*\"|\u201c[^\u201d\n]*\u201d|`[^`]*`|^\s*>.*$", re.MULTILINE)
_PASTED = re.compile(
    r"(?:\b(?:says|said|wrote|writes|pasted|quote|quoting|posted)\b[^:\n]{0,40}:|"
    # "here's their bio:", "here's the customer's email:" (not "here's my situation:": that is the speaker's)
    r"\bhere(?:'s|\u2019s| is| are) (?:their|his|her|its|what (?:he|she|they)|(?:the|an?|some) (?:[\w'\u2019-]+ ){0,3}"
    r"(?:text|draft|email|message|description|post|bio|profile|transcript|excerpt|copy|listing|ad|advert|notes|"
    r"reply|response|review|feedback|statement|announcement|letter|doc|document|thread|chat|conversation|"
    r"wording|template|posting|jd|cv|resume|summary))\b[^:\n]{0,30}:|"
    # a label for someone else's text: "Job description:", "advisory text:", "their reply:"
    r"\b(?:job (?:description|posting|ad|advert|listing|spec)|jd|transcript|excerpt|[\w-]+ text|"
    r"(?:their|his|her|the (?:original|customer'?s?|candidate'?s?|vendor'?s?|client'?s?|other)) "
    r"(?:text|draft|email|message|bio|reply|response|wording|copy|post|description)):)[\s\S]*$",
    re.I,
)
# "Alex: I'll take it": a line of a pasted chat transcript, said by whoever is named before the colon (a label
# of the speaker's own, "Context: I'm a PM", is not a name)
_SPEAKER_LINE = re.compile(
    r"^[ \t]*(?:\[[\d:apm .]{3,12}\][ \t]*)?(?P<who>[A-Z][\w.'-]{0,20}(?: [A-Z][\w.'-]{0,20})?)[ \t]*"
    r"(?:\([^)\n]{0,20}\))?:[ \t]+\S.*$",
    re.M,
)
_LABELS = frozenset(
    ["context", "update", "edit", "note", "notes", "fyi", "background", "ps", "p.s", "tldr", "question", "q", "a",
     "summary", "info", "me", "re", "bio", "goal", "goals", "problem", "issue", "task", "ask", "details",
     "example", "answer", "also", "btw", "hi", "hey", "hello", "ok", "okay", "so", "important", "reminder",
     "warning", "error", "output", "input", "result", "step", "plan", "status", "role", "team", "title", "name",
     "location", "timezone", "pronouns", "stack", "constraints", "requirements", "disclaimer", "caveat", "yes",
     "no", "thanks", "side note", "quick question", "for context", "about me", "my role", "my team", "subject",
     "my background", "tl", "why", "what", "how", "but", "and", "well", "honestly", "basically", "actually",
     "short version", "long story short", "situation", "anyway", "also note", "p.p.s", "pps"]
)  # fmt: skip
_CLAUSE_END = re.compile(
    r"[.!?;\n]+(?<!tl;)|(?=[\s,:])(?:,?\s+(?:and|but|so|because|though|although|while|since|plus)\s+"
    r"(?=(?:i|i'm|my|he|she|they|we|it|his|her|our|their|you|your)\b)|,\s+(?:but|so|because|though|although)\s+|"
    r"\s+-\s+|\s+—\s+|:\s+)",
    re.I,
)
_COMMA = re.compile(r",\s+")
# "my wife and I ...": the pair is the subject, not the end of a clause
_PAIR_BEFORE = re.compile(
    r"\b(?:wife|husband|kids|children|partner|son|daughter|family|friends?|brother|sister|dog|mom|dad|"
    r"boyfriend|girlfriend|fianc[eé]e?|me)$",
    re.I,
)


def _blank(match: re.Match[str]) -> str:
    return " " * len(match[0])


def _blank_speaker(match: re.Match[str]) -> str:
    return match[0] if match["who"].lower() in _LABELS else " " * len(match[0])


def _visible(text: str) -> str:
    """The text with quoted and pasted parts blanked out (same length)."""
    visible = text
    if '"' in text or "`" in text or ">" in text or "\u201c" in text:
        visible = _QUOTED.sub(_blank, visible)
    if ":" in text:
        visible = _PASTED.sub(_blank, visible)
        visible = _SPEAKER_LINE.sub(_blank_speaker, visible)
    return visible


def _clauses(text: str) -> list[tuple[str, bool]]:
    """(clause, is_question) pairs: verbatim substrings of `text`, quoted/pasted parts removed."""
    visible = _visible(text)
    found: list[tuple[str, bool]] = []
    start = 0
    ends = [
        m
        for m in _CLAUSE_END.finditer(visible)
        if not (
            m[0].lstrip(", ").lower().startswith("and")
            and _PAIR_BEFORE.search(visible, max(0, m.start() - 12), m.start())
        )
    ]
    for match in [*ends, None]:
        end = match.start() if match else len(visible)
        question = bool(match and "?" in match[0])
        piece_start = start
        parts: list[tuple[str, bool]] = []
        for part in [*_COMMA.finditer(visible[start:end]), None]:
            part_end = start + part.start() if part else end
            clause = text[piece_start:part_end].strip()
            parts.append((clause, bool(clause) and visible[piece_start:part_end].strip() == clause))
            piece_start = start + part.end() if part else end
        # "I'm a welder, do you travel?": only the asking part is the question, unless it is a tag ("right?")
        tag = question and len(parts[-1][0].split()) <= 3
        for index, (clause, visible_ok) in enumerate(parts):
            if visible_ok:
                found.append((clause, question and (tag or index == len(parts) - 1)))
        start = match.end() if match else len(visible)
    return found


# ---------------------------------------------------------------------------------------------------
# What is never a durable self-statement.

_SKIP_SINGLE = frozenset(
    [
        "if",
        "unless",
        "whether",
        "maybe",
        "perhaps",
        "probably",
        "might",
        "would",
        "could",
        "should",
        "suppose",
        "imagine",
        "hypothetically",
        "wish",
        "hope",
        "hoping",
        "wonder",
        "someday",
        "gonna",
        "wanna",
        "planning",
        "today",
        "tonight",
        "tomorrow",
        "yesterday",
        "currently",
        "recently",
        "lately",
        "soon",
        "anymore",
        "remember",
        "memorize",
        "memorise",
        "considering",
        "ignore",
        "instruction",
        "instructions",
        "pretend",
        "jk",
        "i'd",
        "id",
        "i'll",
        "ill",
        "wouldn't",
        "couldn't",
        "shouldn't",
    ]
)
_SKIP_PHRASES = re.compile(
    r"\b(?:one day|plan on|planning on|(?:am|'m|im|are|'re|is|'s|was|were) going to|plan to|about to|need to|"
    r"have to|has to|had to|want to|trying to|try to|right now|at the moment|"
    r"this (?:week|morning|afternoon|evening|weekend|sprint|month|year)|next (?:week|month|year)|"
    r"last (?:week|night|month|year)|all (?:day|night|morning|afternoon|evening|week|weekend)|just (?:\w+ed|got|came|went|had|did|saw|made|took|bought|found|began|"
    r"started|been|met|won|ate|left|heard|read|wrote|ran|sent|gave|told)|note that|thinking (?:of|about)|"
    r"store (?:this|that|it)|save (?:this|that|it)|act as|you are|system prompt|yeah right|as if|"
    r"just kidding|i will|i won'?t|i was(?! (?:born|raised)\b)|i wasn'?t|i did)\b|/s\b|\bsystem\s*:|[<>{}]"
)
_TOKEN = re.compile(r"[a-z']+")


def _skipped(core: str) -> bool:
    """Whether the clause is a question-like, hypothetical, planned, momentary or injected statement."""
    lower = core.lower().replace("\u2019", "'")
    if lower.startswith("i was ") and (_WAS_DURABLE.match(core) or _WAS_LIFE.match(core)):
        lower = lower[6:]  # "I was a nurse for ten years": a past role, not a moment
    if _NEW_ROLE.match(
        lower
    ):  # "I just started as a life coach", "I was hired as a cashier": a role from now on
        lower = re.sub(r"\b(?:just|recently|i was hired)\b", "", lower)
    if _TRY_HABIT.match(lower):  # "I try to keep my pull requests small": a standing effort, not an attempt
        lower = lower.replace("try to", "", 1)
    if "i was " in lower:  # "I played the violin when I was younger": a time of life, not a moment
        lower = _WHEN_I_WAS.sub("", lower)
    return not _SKIP_SINGLE.isdisjoint(_TOKEN.findall(lower)) or _SKIP_PHRASES.search(lower) is not None


_NEGATION = re.compile(
    r"\b(?:not|never|no longer|don'?t|doesn'?t|didn'?t|can'?t|cannot|isn'?t|aren'?t|nor|haven'?t|hasn'?t|"
    r"hadn'?t|wasn'?t|weren'?t|won'?t|wouldn'?t|shouldn'?t|couldn'?t|ain'?t)\b",
    re.I,
)
_ORG = re.compile(
    r"^(?:we|our|the (?:company|team|org|organisation|organization)|everyone|everybody)\b", re.I
)
_QUESTION_START = re.compile(
    r"^(?:do|does|did|are|is|was|were|can|could|would|will|should|have|has|what|how|why|when|where|who|"
    r"which|any|anyone)\b",
    re.I,
)
_CONJUNCTION = re.compile(r"\s+(?:even\s+)?(?:and|but|so|because|cause|when|while|since|though|although|which|who|until)\s",
                          re.I)  # fmt: skip
_LEAD = re.compile(
    r"^(?:(?:oh|ah|well|yes|yeah|yep|no|ok|okay|so|also|and|but|btw|by the way|honestly|actually|"
    r"for context|fyi|for what it'?s worth|as i said|as i mentioned|like i said|quick one|hi|hey|hello|"
    r"haha|wow|cool|nice|great|same|me too|true|personally|to be honest|i mean|you know|"
    r"fortunately|thankfully|luckily|unfortunately|sadly|lol|lmao|hmm|um|uh|aww|aw|omg|gosh|yea|yup|nope|"
    r"indeed|anyway|anyways|of course|hahaha|hehe|ha|now|these days|nowadays|"
    r"in my (?:spare|free|down|off|leisure) ?time|on (?:the )?weekends|for fun|"
    r"i (?:think|guess|feel like|believe|suppose) (?:that )?(?=i\b|i'|my\b))\b[\s,!.]*)+",
    re.I,
)
_ADVERB = (
    r"(?:(?:really|absolutely|truly|just|also|definitely|totally|actually|still|always|kind of|sort of|do|"
    r"usually|often|sometimes|mostly|generally|normally|mainly|regularly|certainly|sure|even|both|already)\s+)*"
)

# ---------------------------------------------------------------------------------------------------
# Statement patterns: (kind, compiled pattern, content template). The pattern is matched at the start of
# a clause (after discourse words); `obj` is the rest of the clause that the content carries over.

_OCCUPATIONS = (
    r"engineer|developer|programmer|manager|director|designer|scientist|analyst|architect|writer|editor|"
    r"consultant|administrator|admin|lead|founder|ceo|cto|cfo|intern|student|teacher|professor|lecturer|"
    r"researcher|nurse|doctor|physician|surgeon|dentist|pharmacist|therapist|lawyer|attorney|paralegal|"
    r"accountant|banker|chef|cook|baker|pilot|driver|mechanic|electrician|plumber|carpenter|farmer|"
    r"firefighter|officer|soldier|veteran|marine|police officer|cop|paramedic|vet|veterinarian|librarian|"
    r"artist|painter|musician|singer|drummer|guitarist|photographer|actor|actress|dancer|athlete|coach|"
    r"trainer|cashier|waiter|waitress|bartender|barista|clerk|salesman|saleswoman|salesperson|"
    r"realtor|agent|journalist|reporter|author|blogger|freelancer|contractor|technician|tester|"
    r"specialist|coordinator|recruiter|secretary|assistant manager|housewife|stay at home mom|"
    r"stay-at-home mom|homemaker|mom|mother|dad|father|grandmother|grandfather|grandma|grandpa|retiree|"
    r"sre|qa engineer|devops engineer|worker|employee|guide|operator|supervisor|foreman|janitor|custodian|"
    r"attendant|instructor|tutor|counsel(?:l)?or|hairdresser|stylist|welder|miner|trucker|courier|"
    r"entrepreneur|businessman|businesswoman|investor|stockbroker|trader|caregiver|nanny|babysitter|"
    r"housekeeper|gardener|landscaper|lifeguard|bouncer|guard|sniper|sailor|ranger|scientist|"
    r"\w+(?:ologist|ician|ographer)"
)
_ROLE_NOUN = re.compile(rf"\b(?:{_OCCUPATIONS})s?\b", re.I)
_DEGREE = (
    r"(?:(?:very|pretty|quite|fairly|extremely|slightly|partially|partly|mostly|completely|totally|a little|"
    r"a bit|somewhat|so|super|already|happily|now|only|also|legally|profoundly|severely|mildly) )*"
)
_DURABLE_ADJECTIVES = (
    r"female|male|non[- ]binary|transgender|overweight|underweight|tall|nearsighted|farsighted|"
    r"short[- ]sighted|long[- ]sighted|hard of hearing|autistic|dyslexic|asthmatic|epileptic|celiac|coeliac|"
    r"sober|pagan|hindu|catholic|protestant|mormon|agnostic|sikh|an? (?:pagan|hindu|catholic|agnostic)|"
    r"vegetarian|vegan|pescatarian|married|single|divorced|widowed|engaged|retired|pregnant|left[- ]handed|"
    r"right[- ]handed|colou?r ?blind|deaf|blind|diabetic|allergic to [\w ]+|lactose intolerant|an? introvert|"
    r"unemployed|self[- ]employed|bilingual|trilingual|adopted|homeschooled|disabled|athletic|religious|"
    r"spiritual|shy|outgoing|introverted|extroverted|an only child|the (?:oldest|youngest|middle) child|"
    r"my own boss|an? extrovert|an? early bird|an? night owl|an? morning person|an? night person|an? only child|"
    r"an? twin|a (?:big|huge) fan of [\w' -]+|a (?:cat|dog) person|christian|muslim|jewish|buddhist|atheist"
)
_ANSWER_WORDS = re.compile(
    r"\b(?:answers?|responses?|replies|explanations?|examples?|bullet points?|bullets|summar(?:y|ies)|code|"
    r"detail|details|steps|tl;?dr|straight to the point|concise|brief|short|terse|verbose|long)\b",
    re.I,
)
_PRONOUN_OBJECT = re.compile(r"\b(?:it|this|that|them|these|those)\b", re.I)
_ANSWER_STYLE = re.compile(
    r"\b(?:answers?|responses?|replies|explanations?|bullet points?|bullets|summar(?:y|ies)|tl;?dr|"
    r"code (?:samples?|snippets?|examples?|blocks?|first)|step[- ]by[- ]step)\b",
    re.I,
)
_WRITING_STYLE = re.compile(
    r"\b(?:british english|american english|oxford comma|active voice|passive voice|emojis?|jargon|"
    r"plain (?:language|english)|sentence case|title case|markdown|headings)\b",
    re.I,
)
_WRITING_WORDS = re.compile(
    r"\b(?:spelling|british english|american english|oxford comma|active voice|passive voice|emojis?|"
    r"jargon|plain (?:language|english)|tone|formal|informal|documents?|docs|drafts?|write|written|prose|"
    r"headings|markdown|sentence case|title case)\b",
    re.I,
)
_CLUB_OBJ = re.compile(
    r"^(?P<prep>in|part of|a member of)\s+(?P<obj>(?:a|an|the|my)\s+(?:[\w&/'-]+ ){0,4}(?:club|band|choir|league|"
    r"church|community|association|union|society|orchestra|troupe|guild|fraternity|sorority|congregation)s?)\b",
    re.I,
)
_TEAM_OBJ = re.compile(r"^(?:on|in|part of)\s+(?:the\s+)?([\w&/ -]{2,40}?)\s+(team|squad|group|org)\b", re.I)
_OWNED = re.compile(
    r"\b(?:service|services|system|pipeline|api|apis|dashboard|database|warehouse|model|models|platform|"
    r"infrastructure|infra|tooling|runbooks?|codebase|repo|repository|library|sdk|app|application|backend|"
    r"frontend|gateway|indexer|store|bus|queue|cluster|budget|roadmap|process|product|feature|project|"
    r"etl|integration|deploys?|releases?|on-?call)\b",
    re.I,
)

_PLEASE = re.compile(
    r"^(?:please\s+)?(?P<when>always|never|from now on|in general|by default)\b,?\s*(?:please\s+)?(?P<obj>.+)$",
    re.I,
)
_I = r"(?:i|I)"
# Activities a person does as a habit: "I play the guitar", "I volunteer at the shelter", "I swim".
_INTRANSITIVE = (
    r"bake|cook|paint|knit|crochet|sew|hike|run|jog|swim|surf|ski|snowboard|skate|garden|fish|hunt|sing|"
    r"dance|draw|travel|camp|meditate|climb|bike|cycle|box|golf|bowl|kayak|sail|dive|scuba dive|workout|"
    r"exercise|homeschool"
)
_HABIT_VERBS = (
    rf"{_INTRANSITIVE}|play|collect|volunteer|write|read|ride|drive|go|watch|listen to|teach|eat|drink|grow|"
    r"raise|breed|build|make|restore|fix|practice|practise|train|coach|attend|speak|foster|rescue|compete|"
    r"race|lift|wear|visit|study|walk|sell|spend|use|help|donate|do|own|love|like|enjoy|tend to|"
    r"listen|work out|shop|babysit|tutor|sew"
)
_IM = rf"(?:{_I}'m|{_I}\u2019m|{_I} am|im|Im|{_I} m(?= ))"
_MILITARY = r"(?:army|navy|air force|marines|military|national guard|coast guard|peace corps|reserves)"
_WAS_ROLE = re.compile(rf"^{_I} was (?P<obj>an? (?:[\w-]+ ){{0,3}}(?:{_OCCUPATIONS})s?)\b.*$", re.I)
_WAS_SERVED = re.compile(rf"^{_I} was (?P<obj>in the (?:[\w-]+ )?{_MILITARY})\b.*$", re.I)
_WAS_DURABLE = re.compile(
    rf"^{_I} was (?:an? (?:[\w-]+ ){{0,3}}(?:{_OCCUPATIONS})s?|in the (?:[\w-]+ )?{_MILITARY})\b", re.I
)
# Long-lasting medical conditions a person says they have ("I have asthma"), as opposed to a cold.
_CONDITIONS = (
    r"asthma|diabetes|arthritis|epilepsy|adhd|add|autism|dyslexia|celiac disease|coeliac disease|cancer|"
    r"migraines|insomnia|anxiety|depression|ptsd|ocd|tinnitus|eczema|psoriasis|lupus|fibromyalgia|"
    r"crohn'?s|ms|multiple sclerosis|parkinson'?s|a heart condition|high blood pressure|allergies|"
    r"(?:a |an )?(?:\w+ )?allergy|(?:a )?(?:food|nut|peanut|gluten|lactose) intolerance"
)
# A time of life that makes a past statement biographical ("I played hockey growing up", "I lived in Spain for
# ten years") rather than an event of the last days.
_NUMBER_WORD = r"(?:\d+|a few|many|several|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty)"
_LIFE_TIME = (
    r"(?:as a (?:kid|child|teen|teenager|youngster|young (?:man|woman|girl|boy|adult)|little (?:girl|boy))|growing up|"
    r"in (?:high school|middle school|grade school|elementary school|college|university|uni|grad school|law school|"
    r"med school|my (?:youth|teens|twenties|thirties|20s|30s|younger days|childhood))|"
    r"(?:when|while|since) i was (?:younger|young|little|small|a (?:kid|child|teen|teenager|toddler|baby|little "
    r"(?:girl|boy))|in (?:high school|college|school|university)|\d{1,2}|(?:two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen)(?: years old)?)|"
    rf"for (?:about |over |almost |nearly |more than |quite |well over )?{_NUMBER_WORD} (?:years|decades))"
)
_WHEN_I_WAS = re.compile(
    r"\b(?:when|while|since) i was (?:younger|young|little|small|a (?:kid|child|teen|teenager|toddler|baby|little "
    r"(?:girl|boy))|in (?:high school|college|school|university)|\d{1,2}|(?:two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen)(?: years old)?)\b"
)
_PAST_LIFE = re.compile(
    rf"^{_I} {_ADVERB}(?P<verb>[a-z]+ed|{'|'.join(sorted(['taught', 'grew', 'rode', 'drove', 'ran', 'swam', 'sang', 'wrote', 'read', 'spent', 'built', 'won', 'had', 'went', 'did', 'made', 'fought', 'sold', 'flew', 'broke', 'began', 'took']))}) "
    rf"(?P<obj>.+?) (?P<when>{_LIFE_TIME})\b.*$",
    re.I,
)
_PERFECT_SPAN = re.compile(
    rf"^{_I}(?:'ve| have) {_ADVERB}(?P<pp>[a-z]+ed|known|been|taught|grown|ridden|driven|run|sung|done|worn|"
    rf"written|read|spent|built|had|led|managed|run|designed|developed|programmed|coded) (?P<obj>.+?) "
    rf"(?P<when>(?:for (?:about |over |almost |nearly |more than |quite |well over )?{_NUMBER_WORD} (?:years|decades)|"
    rf"for (?:many |several |so many )?(?:years|decades)|(?:all|most of) my (?:life|adult life|career)|"
    rf"since (?:i was \w+(?: \w+)?|childhood|high school|college|birth|\d{{4}})))\b.*$",
    re.I,
)
# Past verbs that tell a thought or an exchange, not a part of one's life.
_PAST_NOT_LIFE = frozenset(["thought", "felt", "said", "told", "asked", "knew", "heard", "forgot", "meant", "wondered",
                            "guessed", "realized", "realised", "figured", "assumed", "hoped", "wished", "got",
                            "needed", "wanted", "tried", "decided", "managed", "used", "seemed", "noticed",
                            "mentioned", "talked", "asked", "answered", "replied", "laughed", "cried", "missed",
                            "imagined", "believed", "expected", "agreed", "searched", "looked", "checked",
                            "finished", "started", "stopped", "happened", "called", "texted", "emailed", "wished",
                            "enjoyed", "had", "did", "went", "made", "took"])  # fmt: skip
_WAS_LIFE = re.compile(
    rf"^{_I} was (?P<obj>(?!(?:just|about|going|thinking|planning|hoping|talking|telling|so|too|very)\b).+?) (?P<when>{_LIFE_TIME})\b.*$",
    re.I,
)
# Feelings and states that pass: never a trait, whenever they were felt.
_MOMENT_STATES = frozenset(["tired", "exhausted", "sick", "ill", "busy", "hungry", "thirsty", "bored", "sad", "upset",
                            "angry", "mad", "worried", "stressed", "excited", "nervous", "sleepy", "late", "sorry",
                            "glad", "happy", "scared", "afraid", "annoyed", "confused", "surprised", "there", "here",
                            "at", "in", "on", "out", "home", "away", "able", "about", "almost"])  # fmt: skip
_TRY_HABIT = re.compile(r"^i (?:always |usually |generally |normally |really |do )?try to ", re.I)
_AGE_ADVERB = r"(?:(?:only|just|almost|nearly|about|barely|already|now|still) )?"
# "I live in a world of microservices": a figure of speech, not a place
_FIGURATIVE_PLACE = r"in (?:a|an|the|this|that) (?:[\w-]+ )?(?:world|age|era|time|times|society|bubble|dream|fantasy|simulation)\b|in (?:fear|hope|denial)\b"
_NEW_ROLE = re.compile(
    rf"^{_I} {_ADVERB}(?:(?:recently|finally|just|now) )?(?:(?:started|began) (?:working |work )?|was hired |"
    rf"got hired |got a (?:new |full[- ]time |part[- ]time )?job |got a position |became |have become |"
    rf"'ve become |now work )(?P<obj>(?:as|at) .+|(?:a|an) (?:[\w-]+ ){{0,3}}(?:{_OCCUPATIONS})s?\b.*)$",
    re.I,
)
# Job titles a workplace self-introduction uses beyond _OCCUPATIONS ("Backend eng here", "I'm the PM for ...")
_WORK_TITLES = (
    r"dev|eng|swe|sde|pm|tpm|dba|sre|qa|ux|cto|ceo|cfo|coo|cpo|cmo|ciso|cio|vp|svp|co-?founder|cofounder|"
    r"marketer|copywriter|scrum master|product owner|data steward|steward|bdr|sdr|csm|devrel|pmm|hr"
)
_TITLE = rf"(?:{_OCCUPATIONS}|{_WORK_TITLES})"
_TITLE_NOUN = re.compile(rf"\b{_TITLE}\b", re.I)
# Titles that say a role even without an article ("I am nurse in Madrid"); "lead", "agent", "guide" and
# the like also say a task or a thing, and family words are not jobs.
_BARE_TITLE = (
    r"engineer|developer|programmer|designer|scientist|analyst|architect|consultant|teacher|professor|"
    r"lecturer|researcher|nurse|doctor|physician|surgeon|dentist|pharmacist|therapist|lawyer|attorney|"
    r"accountant|banker|chef|pilot|mechanic|electrician|plumber|carpenter|farmer|librarian|journalist|"
    r"reporter|translator|interpreter|student|freelancer|recruiter|economist|physicist|chemist|biologist|"
    r"psychologist|architect|product manager|project manager|software engineer|data engineer|data scientist"
)
_BARE_ROLE = re.compile(
    rf"^(?:{_I} am|{_I}'m|im) (?P<obj>(?:(?:senior|junior|lead|staff|principal|chief|head|freelance|"
    rf"software|data|web|mobile|backend|frontend|full[- ]stack|java|python|ios|android|qa|ux|ui|it|"
    rf"civil|mechanical|electrical|chemical|research|medical|school|english|math|maths|high school) )*"
    rf"(?:{_BARE_TITLE}))(?P<rest> (?:in|at|from|for|with) (?!(?:the moment|this|that|it|you|your)\b)"
    rf"[\w&' .-]{{2,40}})?$",
    re.I,
)
# "I'm the PM for the onboarding squad", "I'm the data steward for finance"
_THE_TITLE = re.compile(
    rf"^{_IM} {_ADVERB}(?:the|one of the) (?P<obj>(?!(?:\w+est|only|first|last|same|one|other)\b)"
    rf"(?:[\w-]+ ){{0,3}}?{_TITLE}(?: on call)?)(?P<rest> (?:for|of|on|at|in) .+)?$",
    re.I,
)
# A team named in a clause about one's role: "... on the checkout team", "... for the onboarding squad"
_TEAM_IN = re.compile(
    r"\b(?:on|in|for|of|with|to) (?:the |our )?(?P<team>(?!(?:a|an|my|your|his|her|their|this|that|same|"
    r"whole|entire|other|new|old|first|best|football|soccer|basketball|baseball|hockey|volleyball|softball|"
    r"swim|swimming|track|debate|cheer|cheerleading|chess|tennis|golf|rugby|cricket|bowling|school|"
    r"varsity|national|home|away)\b)[\w&/+-]+(?: [\w&/+-]+){0,2}?) (?P<unit>team|squad|tribe|pod|chapter)\b",
    re.I,
)
# A work schedule: "I work part-time on Fridays", "I work 9-3 on Mondays", "I work from home"
_SCHEDULE = re.compile(
    r"^(?:(?:part[- ]time|full[- ]time)\b.*\b(?:on|mon|tues|wednes|thurs|fri|satur|sun|days?|mornings?|"
    r"afternoons?|evenings?|hours?|week)\b|\d|(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|weekdays\b|"
    r"weekends\b|mornings\b|afternoons\b|evenings\b|[\w-]+ days a week\b|remotely\b|remote\b|hybrid\b|"
    r"from home\b)",
    re.I,
)
# Work done many times: "I've done about 40 of these migrations", "I've led dozens of these workshops"
_DONE_MANY = re.compile(
    rf"^{_I}(?:'ve| have) {_ADVERB}(?P<verb>done|run|led|shipped|built|handled|migrated|written|reviewed|"
    rf"designed|hired|interviewed|taught|delivered|launched|planned|facilitated|managed|organi[sz]ed|"
    rf"investigated|debugged|fixed|audited|deployed|negotiated|closed) (?P<n>(?:(?:about|around|over|more than|"
    rf"well over|probably|easily|at least|maybe) )?(?:\d+|dozens|hundreds|a dozen|a few dozen|a couple dozen|"
    rf"countless|loads|tons)) of (?:these|those|them|such) (?P<obj>[\w-]+(?: [\w-]+){{0,2}})$",
    re.I,
)
_PATTERNS: list[tuple[str, re.Pattern[str], str]] = [
    # "I just started as a life coach", "I was hired as a cashier", "I got a job at the library": a new role
    ("role", _NEW_ROLE, "new_role"),
    # role
    ("role", re.compile(rf"^{_I} work(?:s)? as (?P<obj>an? .+)$", re.I), "Works as {obj}"),
    (
        "role",
        re.compile(rf"^{_IM} {_ADVERB}(?:a|an) (?P<obj>(?:[\w-]+ ){{0,4}}{_TITLE}s?)\b.*$", re.I),
        "Is {art}{obj}",
    ),
    (
        "role",
        re.compile(
            rf"^{_IM} {_ADVERB}(?:the )?(?P<obj>(?:tech |team |engineering |product )?(?:lead|head|owner|manager|director) of .+)$",
            re.I,
        ),
        "Is the {obj}",
    ),
    ("role", _THE_TITLE, "the_title"),
    ("role", _BARE_ROLE, "bare_role"),
    # "I manage a team of six analysts"
    (
        "role",
        re.compile(
            rf"^{_I} {_ADVERB}(?P<verb>lead|manage|run) (?P<obj>an? (?:[\w-]+ ){{0,2}}team of .+)$", re.I
        ),
        "team_of",
    ),
    (
        "role",
        re.compile(
            rf"^{_I} {_ADVERB}work (?P<obj>(?:at|for|in|from|with|as|part[- ]time|full[- ]time|nights|night shifts?|"
            rf"two jobs|three jobs|long hours|overtime|weekends|weekdays|remotely|remote|hybrid|mornings|afternoons|"
            rf"evenings|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|[\w-]+ days a week|"
            rf"\d{{1,2}}(?::\d\d)?\s*(?:am|pm)?\s*(?:-|\u2013|to|till|until)\s*\d)\b.*)$",
            re.I,
        ),
        "Works {obj}",
    ),
    ("role", re.compile(rf"^{_I} teach (?P<obj>(?:at|in) .+)$", re.I), "Teaches {obj}"),
    (
        "role",
        re.compile(
            rf"^{_IM} {_ADVERB}(?P<obj>in (?:(?:high|middle|grad|graduate|law|medical|nursing|culinary|art|"
            rf"business|elementary|primary|secondary|night|beauty|film|dental|vet|veterinary|cooking|"
            rf"flight|trade|the) )?(?:school|college|university|uni|the (?:army|navy|air force|marines|military|"
            rf"national guard|reserves)|\w+ grade|grade \w+))\b.*$",
            re.I,
        ),
        "Is {obj}",
    ),
    (
        "role",
        re.compile(
            rf"^{_I}(?:'ve| have) been (?P<obj>an? (?:[\w-]+ ){{0,3}}(?:{_OCCUPATIONS})s?\b.*)$", re.I
        ),
        "Has been {obj}",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I} {_ADVERB}(?P<verb>moved|relocated) (?P<obj>(?:to|over to|here|back to|from|out of|into) .+|here)$",
            re.I,
        ),
        "event",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I} {_ADVERB}(?P<verb>bought|adopted|got|rescued|inherited|built|quit) (?P<obj>(?:a|an|my|two|three|"
            rf"\d+|our) .+)$",
            re.I,
        ),
        "acquired",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I}(?:'ve| have) {_ADVERB}had (?P<obj>.+ for (?:about |over |almost |nearly )?\S+ "
            rf"(?:years?|months|decades?))\b.*$",
            re.I,
        ),
        "Has had {obj}",
    ),
    (
        "personal",
        re.compile(
            rf"^{_IM} {_ADVERB}(?P<verb>learning|training|raising|writing|volunteering|practicing|practising|"
            rf"teaching|living|working|taking|saving up|coaching|homeschooling|fostering|restoring|growing|"
            rf"majoring|minoring|dating|married to|engaged to) (?P<obj>.+)$",
            re.I,
        ),
        "ongoing",
    ),
    (
        "personal",
        re.compile(rf"^{_I} {_ADVERB}can (?P<obj>(?:{_HABIT_VERBS})\b.*)$", re.I),
        "ability",
    ),
    (
        "personal",
        re.compile(rf"^{_I} {_ADVERB}graduated (?P<obj>(?:from|with|in) .+)$", re.I),
        "Graduated {obj}",
    ),
    (
        "role",
        re.compile(rf"^{_I} {_ADVERB}(?:worked|served) (?P<obj>(?:as|at|for|in|with) .+)$", re.I),
        "Worked {obj}",
    ),
    ("role", _WAS_ROLE, "Was {obj}"),
    ("role", _WAS_SERVED, "Was {obj}"),
    ("role", re.compile(rf"^{_IM} {_ADVERB}(?P<obj>ex[- ]?(?:{_MILITARY}))\b.*$", re.I), "Is {obj}"),
    (
        "personal",
        re.compile(
            rf"^{_I}(?:'ve| have)? {_ADVERB}(?P<verb>joined|learned|learnt|won|started|took up|retired|volunteered|"
            rf"competed|trained) (?P<obj>.+)$",
            re.I,
        ),
        "event",
    ),
    (
        "personal",
        re.compile(r"^my name(?: is|'s|\u2019s) (?P<obj>[A-Z][\w'-]+(?: [A-Z][\w'-]+)?)$", re.I),
        "Is called {obj}",
    ),
    # "My hobby is woodworking", "Climbing is my passion", "My role is staff engineer": facts the speaker
    # states about their own life through a noun that is theirs
    (
        "personal",
        re.compile(
            r"^my (?:main |favou?rite |biggest |new |current |only )?(?P<what>hobby|hobbies|passion|pastimes?|"
            r"role|title|job title|job|day job|position|background|specialty|speciality|native language|"
            r"first language|mother tongue|birthday|hometown|home town|major|degree|"
            r"(?:eye|hair) colou?r) (?P<verb>is|are|include|includes|was) (?P<in>in )?(?P<obj>.+)$",
            re.I,
        ),
        "my_fact",
    ),
    (
        "personal",
        re.compile(
            r"^(?P<obj>[\w' -]{2,40}?) (?:is|are) (?:also |definitely |really |kind of )?(?P<one>(?:one|some) of )?"
            r"my (?:main |biggest |greatest |true |real )?(?P<what>hobby|hobbies|passion|passions|pastimes?)$",
            re.I,
        ),
        "my_fact",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I}(?:'ve| have) {_ADVERB}(?:been to|traveled to|travelled to) (?P<obj>(?:[\w'-]+ ){{0,5}}[\w'-]+)$",
            re.I,
        ),
        "Has been to {obj}",
    ),
    ("expertise", _DONE_MANY, "done_many"),
    # "I've been on many cruises", "I've run three marathons": experiences counted
    (
        "personal",
        re.compile(
            rf"^{_I}(?:'ve| have) {_ADVERB}(?:only )?(?P<verb>been on|run|ran|done|climbed|hiked|visited|owned|"
            rf"raised|written|published|played in|performed in|competed in|won) (?P<obj>(?:many|several|a few|"
            rf"a couple of|a lot of|lots of|dozens of|hundreds of|two|three|four|five|six|seven|eight|nine|ten|"
            rf"\d+|over \d+|more than \d+) [\w'-]+(?: [\w'-]+){{0,3}})$",
            re.I,
        ),
        "counted",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I}(?:'ve| have) {_ADVERB}been (?P<obj>(?!thinking|wondering|meaning|wanting|trying|hoping|"
            rf"looking|waiting|planning|busy|feeling|getting|going|having|doing|talking|reading about|"
            rf".* for (?:about |over |almost |nearly )?(?:\S+ )?(?:years?|decades?)\b)"
            rf"\w+ing .+)$",
            re.I,
        ),
        "Has been {obj}",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I} {_ADVERB}(?:went|go) to (?P<obj>(?:the )?(?:[\w.'-]+ ){{0,4}}(?:university|college|"
            rf"school|high school|law school|med school|academy|institute|uni)\b.*)$",
            re.I,
        ),
        "Went to {obj}",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I}(?:'ve| have) {_ADVERB}been (?P<obj>(?:afraid|scared|terrified) of .+|(?:a|an) (?:big |huge )?"
            rf"fan of .+|into .+)$",
            re.I,
        ),
        "Has been {obj}",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I}(?: study| am studying|'m studying| major in|'m majoring in) (?P<obj>(?!to\b|up\b|it\b|this\b|"
            rf"that\b|the\b).+)$",
            re.I,
        ),
        "Studies {obj}",
    ),
    # studies and a degree: "I studied chemistry", "I majored in economics"
    (
        "personal",
        re.compile(
            rf"^{_I} {_ADVERB}(?P<verb>studied|majored in|minored in|did my (?:degree|masters|phd|ba|bs|ma|ms) in) "
            rf"(?P<obj>(?!the |this |that |it\b|them\b|those |these |your |his |her |their |a |an |some |hard\b|"
            rf"all\b|for\b|with\b|up\b)[\w' &-]+)$",
            re.I,
        ),
        "studied",
    ),
    ("used", re.compile(rf"^{_I} {_ADVERB}used to (?P<obj>[\w'-]+(?: .+)?)$", re.I), "Used to {obj}"),
    ("personal", _PAST_LIFE, "past_life"),
    ("personal", _WAS_LIFE, "was_life"),
    (
        "personal",
        re.compile(
            rf"^{_I} {_ADVERB}try to (?P<verb>{_HABIT_VERBS}|keep|avoid|stay|limit|stick to|wake up|get up|sleep|hit|get in|"
            rf"take|cut|eat|exercise|meditate|write|reply|answer|review|finish|leave|start) (?P<obj>.+)$",
            re.I,
        ),
        "try",
    ),
    # team
    (
        "team",
        re.compile(
            rf"^(?:{_IM} {_ADVERB}|{_I} work |{_I} sit )(?P<obj>(?:on|in|part of|a member of) .+)$", re.I
        ),
        "team",
    ),
    ("team", re.compile(rf"^{_I} (?:lead|manage|run) (?P<obj>the .+ team)\b.*$", re.I), "Leads {obj}"),
    # ownership
    (
        "ownership",
        re.compile(rf"^{_I} {_ADVERB}(?P<verb>own|maintain|run) (?P<obj>(?:the|our) .+)$", re.I),
        "ownership",
    ),
    (
        "ownership",
        re.compile(
            rf"^{_IM} {_ADVERB}(?:the )?(?:owner of|responsible for|in charge of|on call for) (?P<obj>.+)$",
            re.I,
        ),
        "Is responsible for {obj}",
    ),
    # expertise
    (
        "expertise",
        re.compile(rf"^{_IM} {_ADVERB}(?:an? )?(?:expert|specialist) (?:in|on|at|with) (?P<obj>.+)$", re.I),
        "Is an expert in {obj}",
    ),
    ("expertise", re.compile(rf"^{_I} speciali[sz]e in (?P<obj>.+)$", re.I), "Specialises in {obj}"),
    (
        "expertise",
        re.compile(
            rf"^{_I}(?:'ve| have) been (?P<obj>(?:writing|coding in|programming in|using|working with|doing|teaching|playing|practicing|practising) .+ for (?:(?:about |over |almost |nearly )?(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|many|several) (?:years?|decades?)|"
            rf"(?:many |several |so many )?(?:years|decades)))\b.*$",
            re.I,
        ),
        "Has been {obj}",
    ),
    ("personal", _PERFECT_SPAN, "perfect_span"),
    # communication and writing (standing preferences about answers and text)
    (
        "pref",
        re.compile(rf"^{_I} {_ADVERB}(?P<verb>prefer|like|love|want|need|appreciate) (?P<obj>.+)$", re.I),
        "pref",
    ),
    ("please", _PLEASE, "please"),
    ("writing", re.compile(rf"^{_I} (?:always )?write in (?P<obj>.+)$", re.I), "Writes in {obj}"),
    # preference
    (
        "preference",
        re.compile(
            rf"^{_I}(?P<perfect>'ve| have)? {_ADVERB}(?P<verb>love|like|enjoy|adore|hate|dislike|prefer)"
            rf"(?(perfect)(?:d|ed)|) (?P<obj>.+)$",
            re.I,
        ),
        "preference",
    ),
    # "I always liked the flipper bots": a taste held all along
    (
        "preference",
        re.compile(
            rf"^{_I} (?:really )?always (?:really )?(?P<verb>love|like|enjoy|adore|hate|dislike)(?:d|ed) (?P<obj>.+)$",
            re.I,
        ),
        "preference",
    ),
    (
        "preference",
        re.compile(rf"^{_IM} {_ADVERB}(?:a )?(?:big |huge )?fan of (?P<obj>.+)$", re.I),
        "Is a fan of {obj}",
    ),
    (
        "preference",
        re.compile(
            rf"^{_IM} {_ADVERB}(?P<obj>(?:into|obsessed with|addicted to|passionate about|crazy about|"
            rf"a sucker for|big on|a lover of|fond of|partial to) .+)$",
            re.I,
        ),
        "Is {obj}",
    ),
    # "I'm known for my barbecue", "I'm used to working nights": what the speaker is, by habit or repute
    (
        "personal",
        re.compile(
            rf"^{_IM} {_ADVERB}{_DEGREE}(?P<obj>(?:known|famous|well known) for [\w' -]+|used to (?:\w+ing|the|a|an|"
            rf"being|having|living|working) [\w' -]+)$",
            re.I,
        ),
        "known",
    ),
    (
        "role",
        re.compile(
            rf"^{_IM} {_ADVERB}(?:a )?(?P<obj>(?:part|member) of the (?:[\w-]+ )?{_MILITARY})\b.*$", re.I
        ),
        "Is {obj}",
    ),
    # "I'm fascinated by forensics", "I'm interested in astronomy": a lasting interest, when it is named
    (
        "preference",
        re.compile(
            rf"^{_IM} {_ADVERB}{_DEGREE}(?P<obj>(?:interested in|fascinated (?:by|with)|intrigued by|keen on|"
            rf"enthusiastic about|passionate about|devoted to) .+)$",
            re.I,
        ),
        "interest",
    ),
    (
        "personal",
        re.compile(rf"^{_IM} {_ADVERB}(?P<obj>(?:afraid|scared|terrified|allergic) (?:of|to) .+)$", re.I),
        "Is {obj}",
    ),
    (
        "preference",
        re.compile(
            r"^my (?P<least>least )?(?:absolute |all[- ]time |very )?fav(?:ou?rite|e)(?: (?P<what>[\w ]{2,30}?))? "
            r"(?:is|are|has to be|would have to be|has always been|will always be) (?P<obj>.+)$",
            re.I,
        ),
        "fav",
    ),
    (
        "preference",
        re.compile(
            r"^(?P<obj>[\w' -]{2,40}?) (?P<be>is|are|has to be|has always been|will always be) "
            r"(?:(?:still|also|definitely|probably|actually|easily|really|by far|always|just|hands down) )*"
            r"(?P<one>(?:one|another one|another|two|some|a few) of )?my (?P<least>least )?(?:absolute |all[- ]time |very )?"
            r"fav(?:ou?rite|e)?s?(?: (?P<what>[\w ]{2,30}))?$",
            re.I,
        ),
        "fav",
    ),
    # personal
    (
        "personal",
        re.compile(
            rf"^{_I} {_ADVERB}(?:live|reside) (?P<obj>(?!{_FIGURATIVE_PLACE})(?:in|near|on|outside|by) .+|alone|"
            rf"by myself|on my own|"
            rf"with (?:my|a|an|two|three|\d+) .+)$",
            re.I,
        ),
        "Lives {obj}",
    ),
    ("personal", re.compile(rf"^{_IM} {_ADVERB}(?:originally )?(?P<obj>from .+)$", re.I), "Is {obj}"),
    # "I'm based in Lisbon", "I'm based out of Toronto"
    (
        "personal",
        re.compile(
            rf"^{_IM} {_ADVERB}(?:now )?based (?:in|out of|near|at) (?P<obj>[\w.,'& -]{{2,60}})$", re.I
        ),
        "based",
    ),
    # "I'm on Pacific time", "I'm in the CET time zone"
    (
        "personal",
        re.compile(
            rf"^{_IM} {_ADVERB}(?:on|in) (?:the )?(?P<obj>(?:[A-Z][\w/+-]*|utc|gmt)(?: ?[+-]\d{{1,2}})?(?: [A-Z][\w/+-]*)?) "
            rf"(?P<tz>time ?zone|time)$"
        ),
        "Is on {obj} time",
    ),
    # "I'm in an apartment just off the base": where the speaker lives
    (
        "personal",
        re.compile(
            rf"^{_IM} {_ADVERB}(?:now )?in (?P<obj>an? (?:[\w-]+ ){{0,2}}(?:apartment|house|condo|dorm|flat|"
            rf"trailer|duplex|townhouse|bungalow|cottage))\b.*$",
            re.I,
        ),
        "Lives in {obj}",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I} {_ADVERB}(?:grew up|was born(?: and raised)?|was raised|was brought up) (?P<obj>(?:in|on|near) .+)$",
            re.I,
        ),
        "Grew up {obj}",
    ),
    # "I grew up listening to jazz", "I grew up poor", "I grew up with four brothers"
    (
        "personal",
        re.compile(
            rf"^{_I} {_ADVERB}(?:grew up|was raised|was brought up) (?P<obj>(?:with|around|as|by|on|in|"
            rf"listening to|watching|playing|speaking|going to|riding|helping|working|reading|poor|rich|"
            rf"wealthy|religious|catholic|christian|jewish|muslim|bilingual|an? )\b.+|poor|rich|wealthy)$",
            re.I,
        ),
        "grew_up",
    ),
    (
        "personal",
        re.compile(
            rf"^(?:{_I} {_ADVERB}(?:have|own|have got) |{_I}'ve {_ADVERB}(?:got )?|ive (?:got )?)"
            rf"(?P<obj>(?:my own|a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|several|many|some|lots of|"
            rf"kids|children|grandchildren|grandkids|pets|dogs|cats|siblings|brothers|sisters|twins|horses|"
            rf"chickens|goats|cows|tattoos|family|relatives|cousins|nephews|nieces|grandparents|"
            rf"(?:[\w-]+,? (?:and )?){{0,3}}(?:hair|eyes|skin|freckles|beard)|{_CONDITIONS})\b.*)$",
            re.I,
        ),
        "Has {obj}",
    ),
    (
        "personal",
        re.compile(rf"^{_IM} {_ADVERB}{_DEGREE}(?P<obj>{_DURABLE_ADJECTIVES})\b.*$", re.I),
        "Is {obj}",
    ),
    # abilities: "I'm fluent in Spanish", "I'm good at SQL", "I'm terrible with names"
    (
        "personal",
        re.compile(
            rf"^{_IM} {_ADVERB}{_DEGREE}(?P<obj>(?:fluent|proficient|conversational) in [\w' +#.-]+|"
            rf"(?:good|great|decent|bad|terrible|awful|hopeless|useless|skilled|talented) (?:at|with) [\w' +#.-]+)$",
            re.I,
        ),
        "ability_is",
    ),
    # "I'm a huge Mariners fan", "I'm more of a tea person"
    (
        "preference",
        re.compile(
            rf"^{_IM} {_ADVERB}(?P<obj>(?:more of |kind of |sort of |such )?an? (?:(?:big|huge|massive|real|total|"
            rf"die[- ]hard|lifelong|avid|serious) )?(?:[\w'-]+ ){{1,3}}(?:fan|lover|buff|nerd|geek|junkie|"
            rf"enthusiast|person|drinker|eater|reader|gamer|type|fanatic|addict))(?: myself| at heart)?$",
            re.I,
        ),
        "fan",
    ),
    (
        "isa",
        re.compile(
            rf"^{_IM} {_ADVERB}(?P<obj>(?:a|an) (?!(?:bit|little|lot|few|couple|mess|wreck|fool|idiot|"
            rf"moron|loser|joke|good|great|nice|real|total|complete|huge|big)\b)[\w'-]+(?: [\w'-]+){{0,3}}"
            rf"(?: (?:at|in|for|with|from|on) [\w' -]+)?)$",
            re.I,
        ),
        "isa",
    ),
    (
        "personal",
        re.compile(
            rf"^{_IM} {_AGE_ADVERB}(?P<obj>\d{{1,2}}) (?:years? old|yrs old|yo|y/o|years of age)\b.*$", re.I
        ),
        "Is {obj} years old",
    ),
    ("personal", re.compile(rf"^{_IM} {_AGE_ADVERB}(?P<obj>[1-9]\d)$", re.I), "Is {obj} years old"),
    (
        "personal",
        re.compile(
            rf"^{_IM} {_AGE_ADVERB}in my (?P<obj>(?:early |mid |late )?(?:[1-9]0s|'[1-9]0s|twenties|thirties|"
            rf"forties|fifties|sixties|seventies|eighties|nineties))\b.*$",
            re.I,
        ),
        "Is in their {obj}",
    ),
    (
        "personal",
        re.compile(
            rf"^{_I} {_ADVERB}(?P<verb>{_HABIT_VERBS})(?: (?P<obj>.+))?$",
            re.I,
        ),
        "habit",
    ),
    (
        "personal",
        re.compile(rf"^{_I} {_ADVERB}(?P<verb>[a-z]{{3,}}) (?P<obj>[a-z][\w' -]+)$", re.I),
        "generic",
    ),
]
# Verbs after "I" that say nothing lasting about the speaker: talk about the conversation, thoughts,
# feelings of the moment, modals and auxiliaries, and past events.
_NOT_HABIT = frozenset(
    [
        "think",
        "thought",
        "guess",
        "know",
        "knew",
        "hope",
        "bet",
        "mean",
        "meant",
        "agree",
        "understand",
        "see",
        "saw",
        "hear",
        "heard",
        "feel",
        "felt",
        "wish",
        "suppose",
        "imagine",
        "believe",
        "wonder",
        "remember",
        "forget",
        "forgot",
        "say",
        "said",
        "tell",
        "told",
        "ask",
        "asked",
        "thank",
        "appreciate",
        "apologize",
        "apologise",
        "need",
        "want",
        "can",
        "could",
        "would",
        "will",
        "shall",
        "should",
        "must",
        "may",
        "might",
        "am",
        "was",
        "were",
        "is",
        "are",
        "be",
        "been",
        "do",
        "did",
        "does",
        "have",
        "had",
        "has",
        "get",
        "got",
        "gotta",
        "gonna",
        "wanna",
        "let",
        "hate",
        "love",
        "like",
        "enjoy",
        "prefer",
        "adore",
        "dislike",
        "guess",
        "figure",
        "find",
        "found",
        "realize",
        "realise",
        "mean",
        "hope",
        "doubt",
        "assume",
        "expect",
        "promise",
        "swear",
        "admit",
        "recommend",
        "suggest",
        "totally",
        "really",
        "just",
        "also",
        "can't",
        "cannot",
        "couldn't",
        "wouldn't",
        "won't",
        "don't",
        "didn't",
        "haven't",
        "hadn't",
        "wasn't",
        "isn't",
        "aren't",
        "shouldn't",
        "dont",
        "cant",
        "wont",
        "try",
        "tried",
        "sure",
        "too",
        "only",
        "even",
        "still",
        "already",
        "always",
        "never",
        "ever",
        "definitely",
        "probably",
        "actually",
        "hate",
        "hated",
        "went",
        "came",
        "made",
        "took",
        "bought",
        "gave",
        "left",
        "lost",
        "won",
        "ate",
        "drank",
        "ran",
        "sat",
        "stood",
        "slept",
        "woke",
        "wrote",
        "read",
        "spent",
        "met",
        "started",
        "stopped",
        "decided",
        "managed",
        "needed",
        "wanted",
        "liked",
        "loved",
        "looked",
        "watched",
        "played",
        "worked",
        "lived",
        "moved",
        "used",
        "tend",
        "look",
        "sound",
        "seem",
        "seems",
        "keep",
        "kept",
        "miss",
        "missed",
        "care",
        "cared",
        "worry",
        "worried",
        "love",
        "loved",
        "quite",
        "about",
        "kinda",
        "rather",
        "pretty",
        "almost",
        "barely",
        "hardly",
        "literally",
        "honestly",
        "basically",
        "seriously",
    ]
)
_IRREGULAR_PAST = frozenset(
    [
        "sent",
        "spent",
        "lent",
        "bent",
        "built",
        "taught",
        "caught",
        "brought",
        "thought",
        "fought",
        "sought",
        "bought",
        "sold",
        "told",
        "held",
        "felt",
        "kept",
        "slept",
        "swept",
        "wept",
        "left",
        "meant",
        "dealt",
        "knelt",
        "dreamt",
        "burnt",
        "learnt",
        "began",
        "drank",
        "sang",
        "rang",
        "swam",
        "ran",
        "came",
        "became",
        "gave",
        "forgave",
        "wrote",
        "rode",
        "drove",
        "rose",
        "chose",
        "froze",
        "spoke",
        "broke",
        "stole",
        "woke",
        "wore",
        "tore",
        "swore",
        "bore",
        "threw",
        "grew",
        "knew",
        "flew",
        "drew",
        "blew",
        "saw",
        "did",
        "went",
        "took",
        "shook",
        "forgot",
        "got",
        "hid",
        "bit",
        "lit",
        "fed",
        "led",
        "sped",
        "fled",
        "met",
        "paid",
        "laid",
        "said",
        "heard",
        "made",
        "had",
        "sat",
        "stood",
        "understood",
        "won",
        "lost",
        "shot",
        "ate",
        "fell",
        "hung",
        "stuck",
        "struck",
        "dug",
    ]
)
_HAVE_OBJECTS = re.compile(
    r"\b(?:kids?|children|child|sons?|daughters?|babies|baby|twins|wife|husband|partner|boyfriend|girlfriend|"
    r"fianc[eé]e?|brothers?|sisters?|siblings?|parents?|grandchildren|grandkids?|dogs?|cats?|pets?|puppy|"
    r"puppies|kittens?|horses?|birds?|fish|rabbits?|hamsters?|snakes?|cars?|trucks?|house|home|farm|boat|"
    r"bikes?|motorcycles?|degree|masters|phd|allergy|allergies|job|jobs|business|shop|store|restaurant|"
    r"collection|garden|tattoos?|piano|guitar)\b",
    re.I,
)
_HABIT_OBJECTS = re.compile(
    r"\b(?:every|on weekends?|weekly|daily|often|regularly|a lot|for fun|in my free time|as a hobby)\b|\b(?:the \w+|guitar|piano|violin|drums|soccer|football|basketball|baseball|tennis|golf|chess|video games|games|sports?)\b",
    re.I,
)
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
_HAVE_NOT = re.compile(
    r"^(?:\w+ ){0,3}(?:question|questions|idea|ideas|feeling|bit|chance|meeting|meetings|"
    r"appointment|test|exam|quiz|plan|plans|problem|problems|issue|issues|request|suggestion|favou?r|day|"
    r"(?:good|great|hard|tough|rough|fun|wonderful|lovely|long|busy|difficult|little|no|some|the) time|"
    r"night|week|weekend|moment|minute|minutes|second|look|try|clue|doubt|headache|cold|flu|fever|hangover|"
    r"date|interview|deadline|call|party|trip|vacation|holiday|surgery|point|thought|thoughts|story|tip|"
    r"recommendation|guess|hunch|answer|reason|way|thing|things|something|nothing|anything|everything|"
    r"work|homework|errands?|shift|class|lesson|game|match|event|concert|show|feeling)\b",
    re.I,
)
_NO_OBJECT = frozenset(
    ["it", "that", "this", "those", "these", "them", "you", "your", "yours", "her", "him", "his", "there",
     "here", "so", "too", "then", "when", "what", "one", "ones", "some", "any", "more", "less", "back",
     "out", "home", "along", "with", "again", "like"]
)  # fmt: skip
_YOU = re.compile(r"\b(?:you|your|yours|u|ur)\b", re.I)
_FAMILY = re.compile(
    r"^(?P<me>me and )?my (?:(?P<count>two|three|four|five|six|seven|eight|\d)\s+)?(?:(?:oldest|youngest|eldest|older|"
    r"younger|little|big|baby|new|only|twin|grown|adult|teenage|teen|lovely|beautiful|sweet|wonderful|"
    r"amazing|dear|awesome|two|three|four)\s+)*(?P<rel>wife|husband|fianc[eé]e?|partner|boyfriend|girlfriend|"
    r"sons?|daughters?|kids?|children|child|grandsons?|granddaughters?|grandkids|grandchildren|grandchild|"
    r"brothers?|sisters?|siblings|twins|dogs?|cats?|puppy|puppies|kittens?|horses?|pets?|parrots?|birds?|"
    r"snakes?|rabbits?|bunny|bunnies|hamsters?|lizards?|turtles?|stepsons?|stepdaughters?)\b(?(me)| and (?:I|me|myself)\b)",
    re.I,
)
# "I took my dogs to the beach": a first-person statement that names the speaker's own partner, children,
# siblings or pets says that they have them (the same relations as above; not parents, not friends). A
# statement whose subject is the relative ("My wife likes to cook") stays refused: it is about them.
_MY_REL = re.compile(
    r"\bmy (?:(?P<count>two|three|four|five|six|seven|eight)\s+)?(?:(?:oldest|youngest|eldest|older|younger|little|"
    r"big|baby|only|twin|grown|adult|teenage|teen|two|three|four|pet)\s+)*(?P<rel>wife|husband|fianc[eé]e?|partner|"
    r"(?:youngest|oldest|eldest|little ones?)(?= (?:is|was|just|turned|turns|has|had|will|who|in|goes|started|"
    r"loves|likes|plays|got|gets|and)\b|'s\b)|spouse|hubby|sis|bf|gf|kiddos|pups?|doggos?|boyfriend|girlfriend|sons?|daughters?|kids|children|grandsons?|granddaughters?|grandkids|grandchildren|"
    r"brothers?|sisters?|siblings|twins|nephews?|nieces?|dogs?|cats?|puppy|puppies|kittens?|horses?|parrots?|"
    r"rabbits?|bunny|bunnies|hamsters?|snakes?|lizards?|turtles?|tortoises?|ferrets?|guinea pigs?|pets?|"
    r"cows?|goats?|chickens|hens|pigs?|pony|ponies|birds?|ducks|donkeys?|alpacas?|llamas?|roommates?|"
    r"flatmates?|housemates?|stepsons?|stepdaughters?)\b(?!['’]s? (?:friend|boss|manager|colleague))",
    re.I,
)
_MY_REL_LOST = re.compile(
    r"\b(?:lost|miss|missed|missing|buried|bury|passed|died|dead|late|ex|former|deceased|divorced|divorcing|"
    r"adopt|adopting|borrow|borrowing|sitting for|future|imaginary|virtual|"
    r"pretend|fake|someday|mine)\b",
    re.I,
)
_REL_LEFT = re.compile(r"(?:\s+\w+)?\s+(?:left|leaving|is leaving|has left|walked out|moved out)\b", re.I)
_I_SUBJECT = re.compile(r"^(?:i|i'm|i’m|im|i've|i’ve|ive|i am|i have)\b", re.I)
_PLURAL_REL = {
    "kids",
    "children",
    "a child",
    "grandkids",
    "grandchildren",
    "siblings",
    "twins",
    "puppies",
    "bunnies",
}
_TRAILING = re.compile(
    r"[\s,;:.!?\-\u2014]+$|\s+(?:too|as well|though|haha|lol|so|by the way|anyway|honestly|either|"
    # a phrase cut at the word limit must not end on a word that needs another
    r"a|an|the|and|or|but|to|of|with|for|in|on|at|by|from|as|my|your|their|his|her|our|its|that|which|who|"
    r"very|really|just|some|any|this|these|those)$",
    re.I,
)
_VERB_S = {"go": "goes", "do": "does", "have": "has", "watch": "watches", "teach": "teaches", "fish": "fishes",
           "study": "studies", "carry": "carries", "try": "tries"}  # fmt: skip


def _third_person(text: str) -> str:
    for pattern, replacement in _PRONOUNS:
        text = pattern.sub(replacement, text)
    return text


_JOINTS = frozenset(["and", "or", "but", "with", "who", "which", "that", "because", "when", "while", "since"])


def _clean(obj: str, max_words: int = 10) -> str:
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
    return _third_person(obj)


_SUBORDINATE = re.compile(
    r"\s+(?:when|whenever|where|because|since|while|if|so that|so|but|though|although|which|who|until|before|"
    r"after|as long as|unless|whereas|(?:just |in order )?to (?:help|pay|make|earn|keep|get|stay|save|relax|"
    r"unwind|decompress|cover|support))\b.*$",
    re.I,
)


_RUN_ON = re.compile(r"\s+(?:i|i'm|im|i've|ive|i am)\s.*$", re.I)  # a second statement run on without a stop


def _head(obj: str) -> str:
    """The object without the clause that follows it: "kids who have trouble reading" -> "kids"."""
    return _SUBORDINATE.sub("", obj)


def _verb_s(verb: str) -> str:
    verb = verb.lower()
    return _VERB_S.get(verb, verb + ("es" if verb.endswith(("s", "sh", "ch", "x")) else "s"))


def _content(kind: str, template: str, match: re.Match[str]) -> tuple[str, str] | None:
    """(kind, content) for a matched clause, or None when the clause does not carry a durable fact."""
    groups = {k: v or "" for k, v in match.groupdict().items()}
    obj = groups.get("obj", "")
    if kind == "team":
        if template != "team":
            return kind, template.format(obj=_clean(obj))
        team = _TEAM_OBJ.match(obj)
        if not team:
            club = _CLUB_OBJ.match(obj)
            if club and not _YOU.search(obj):  # "I'm part of a cycling club": a membership, not a work team
                return "personal", f"Is {club['prep'].lower()} {_clean(club['obj'], 8)}"
            return None
        return kind, f"Is on the {_clean(team[1])} {team[2].lower()}"
    if kind == "ownership":
        if template == "ownership":
            if not _OWNED.search(obj):
                return None  # "I run every morning", "I own a cat": not ownership of work
            return (
                kind,
                f"{'Owns' if groups['verb'].lower() == 'own' else _verb_s(groups['verb']).capitalize()} {_clean(obj)}",
            )
        return kind, template.format(obj=_clean(obj))
    if kind == "expertise" and _PRONOUN_OBJECT.search(obj):
        return None  # "I've been doing it for ten years": the skill is not named in the clause
    if kind == "pref":  # "I like X" is about answers or text only when X names them, not "short hair"
        if _WRITING_STYLE.search(obj):
            kind = "writing"
        elif _ANSWER_STYLE.search(obj):
            kind = "communication"
        elif groups["verb"].lower() in ("want", "need"):
            return None  # "I want a new car": a wish, not a lasting taste
        else:
            return _content("preference", "preference", match)
        verb = groups["verb"].lower()
        return (
            kind,
            f"{'Prefers' if verb in ('prefer', 'want', 'need') else _verb_s(verb).capitalize()} {_clean(obj, 14)}",
        )
    if kind == "please":
        if _WRITING_WORDS.search(obj):
            kind = "writing"
        elif _ANSWER_WORDS.search(obj):
            kind = "communication"
        else:
            return None  # a standing request about something else is not a preference we keep
        when = groups["when"].lower()
        lead = "Wants the assistant to never" if when == "never" else "Wants the assistant to always"
        return kind, f"{lead} {_clean(obj, 14)}"
    if kind == "preference" and template == "preference":
        verb = groups["verb"].lower()
        if _ANSWER_WORDS.search(obj) and re.search(
            r"\b(?:answers?|responses?|explanations?|bullet)\b", obj, re.I
        ):
            return None  # handled as communication by the "pref" pattern
        words = WORD.findall(obj.lower())
        if words[:1] in (["some"], ["any"], ["more"]) and _QUANTIFIED.match(obj):
            words = words[1:]  # "I do like some Taylor Swift", "I love any uptempo rock songs"
        if not words or _YOU.search(obj) or (words[0] in _NO_OBJECT and not _NAMED.match(obj)):
            return None  # "I love it", "I like that", "I'd like to": no object worth keeping
        label = {"hate": "Dislikes", "dislike": "Dislikes", "prefer": "Prefers"}.get(
            verb, _verb_s(verb).capitalize()
        )
        return kind, f"{label} {_clean(_RUN_ON.sub('', obj), 8)}"  # "I like animals I have two cats"
    if template == "ability_is":
        words = WORD.findall(obj.lower())
        if _NEG_POINTING.search(obj) or words[-1] in _NO_OBJECT or len(words) > 8 or words[2:3] == ["the"]:
            return None  # "I'm really bad at it", "I'm good with that", "I'm good at the moment"
        return kind, f"Is {_clean(obj, 8)}"
    if template == "fan":
        words = WORD.findall(obj.lower())
        named = [w for w in words if w not in _FAN_FILLER]
        if _YOU.search(obj) or _NEG_POINTING.search(obj) or len(words) > 8 or len(named) < 2:
            return None  # "I'm a big fan": of nothing named
        return kind, f"Is {_clean(obj, 8)}"
    if template == "new_role":
        obj = _head(obj)
        words = WORD.findall(obj.lower())
        if _PAST_POINTING.search(obj) or len(words) > 8 or len(words) < 2:
            return None  # "I started as one of them"
        if words[0] == "at":
            return kind, f"Works {_clean(obj, 8)}"
        role = obj.split(" ", 1)[1] if words[0] == "as" else obj
        return kind, f"Works as {_clean(role, 8)}"
    if template == "known":
        words = WORD.findall(obj.lower())
        if _PAST_POINTING.search(obj) or _ME.search(obj) or len(words) > 10 or words[-1] in _NO_OBJECT:
            return None  # "I'm used to it", "I'm known for that"
        return kind, f"Is {_clean(obj, 10)}"
    if template == "counted":
        if _PAST_POINTING.search(obj):
            return None  # "I've done a few of those"
        verb = groups["verb"].lower().replace("ran", "run")
        return kind, f"Has {verb} {_clean(obj, 8)}"
    if template == "interest":
        words = WORD.findall(obj.lower())
        named = (
            words[2:] if words[1:2] in (["in"], ["by"], ["with"], ["on"], ["about"], ["to"]) else words[1:]
        )
        if (
            not named
            or named[0] in _NO_OBJECT
            or named[0] in _ONE_OFF_ING
            or _PAST_POINTING.search(obj)
            or len(named) > 8
        ):
            return None  # "I'm interested in that", "I'm interested in buying it": not a lasting interest
        return kind, f"Is {_clean(obj, 10)}"
    if template == "grew_up":
        words = WORD.findall(obj.lower())
        if _PAST_POINTING.search(obj) or len(words) > 10:
            return None  # "I grew up with them", "I grew up in that house": the thing is not named
        return kind, f"Grew up {_clean(obj, 10)}"
    if template == "studied":
        return "personal", f"{groups['verb'].capitalize()} {_clean(obj, 8)}"
    if template == "the_title":
        rest = groups["rest"]
        if _YOU.search(obj + rest) or _PAST_POINTING.search(rest) or len(WORD.findall(obj + rest)) > 12:
            return None  # "I'm the designer for your project", "I'm the lead on this"
        kind = "personal" if _FAMILY_NOUN.search(obj) else kind
        return kind, f"Is the {_clean(obj + rest, 10)}"
    if template == "bare_role":  # "I am nurse in Madrid": a role said without its article
        role = _clean(obj + groups["rest"], 8)
        return kind, f"Is {_article(role)} {role}"
    if template == "team_of":
        if _PAST_POINTING.search(obj) or len(WORD.findall(obj)) > 10:
            return None
        return kind, f"{_verb_s(groups['verb']).capitalize()} {_clean(_head(obj), 10)}"
    if template == "based":
        obj = _head(obj)
        if _PAST_POINTING.search(obj) or len(WORD.findall(obj)) > 8:
            return None  # "I'm based in that office"
        return kind, f"Is based in {_clean(obj, 8)}"
    if template == "done_many":
        obj = _head(obj)
        if _PAST_POINTING.search(obj):
            return None
        count = re.sub(r"^(?:probably|easily|maybe) ", "", groups["n"].lower())
        count += " of" if count.endswith(("dozens", "hundreds", "loads", "tons")) else ""
        return kind, f"Has {groups['verb'].lower()} {count} {_clean(obj, 4)}"
    if template == "try":
        obj = _head(obj)
        words = WORD.findall(obj.lower())
        if not words or words[0] in _NO_OBJECT or _PAST_POINTING.search(obj) or len(words) > 10:
            return None  # "I try to fix it", "I try to help you"
        return kind, f"Tries to {groups['verb'].lower()} {_clean(obj, 10)}"
    if template == "my_fact":
        what = groups["what"].lower()
        words = WORD.findall(obj.lower())
        if (
            not words
            or words[0] in _NO_OBJECT
            or _PAST_POINTING.search(obj)
            or _ME.search(obj)
            or len(words) > 10
            or (groups.get("verb") == "was" and what not in ("background", "major", "degree"))
        ):
            return None  # "it is my passion", "my job is killing me this week" (moment words are skipped)
        if what.startswith("passion"):
            return "preference", f"Is passionate about {_clean(obj, 8)}"
        if what in ("hobby", "hobbies", "pastime", "pastimes"):
            return (
                "preference",
                f"{'Hobbies include' if what.endswith('s') or groups.get('one') else 'Hobby is'} {_clean(obj, 8)}",
            )
        if what in ("role", "title", "job title", "position", "job", "day job"):
            if what in ("job", "day job") and not (_ROLE_NOUN.search(obj) or re.match(r"\w+ing\b", obj)):
                return None  # "my job is stressful": not a role
            return "role", f"{'Day job' if what == 'day job' else 'Role'} is {_clean(obj, 8)}"
        if what in ("background", "specialty", "speciality"):
            return "expertise", f"Has a background in {_clean(obj, 8)}"
        verb = "are" if groups["verb"] == "are" else "is"
        return "personal", f"{what.capitalize()} {verb} {groups.get('in') or ''}{_clean(obj, 8)}"
    if template == "was_life":
        words = WORD.findall(obj.lower())
        if (
            not words
            or _PAST_POINTING.search(obj)
            or len(words) > 8
            or words[0].endswith("ing")
            or words[0] in _MOMENT_STATES
        ):
            return None  # "I was there as a kid", "I was playing outside when I was 5": events
        return kind, f"Was {_clean(obj, 8)} {_third_person(groups['when'])}"
    if template in ("past_life", "perfect_span"):
        verb = (groups.get("verb") or groups.get("pp")).lower()
        words = WORD.findall(obj.lower())
        had = (
            verb == "had" and _HAVE_OBJECTS.search(obj) and not _HAVE_NOT.match(obj)
        )  # "I had a dog growing up"
        here = words[:1] == ["here"] and verb in ("lived", "worked", "been")  # "I've lived here for 30 years"
        if (
            (
                verb in _PAST_NOT_LIFE
                and not had
                and not (template == "perfect_span" and verb in ("used", "enjoyed"))
            )
            or not words
            or (words[0] in _NO_OBJECT and not here)
            or _PAST_POINTING.search(obj)
            or len(words) > 8
        ):
            return None  # "I thought so as a kid", "I've known him for years", "I saw it in college"
        when = groups["when"]
        if template == "perfect_span":
            kind = "role" if verb == "worked" and words[0] in ("as", "at", "for", "in") else kind
            if verb in _WORK_DONE or (verb == "worked" and words[0] in ("on", "with")):
                kind = "expertise"  # "I've done incident reviews for years"
            return kind, f"Has {verb} {_clean(obj, 8)} {_third_person(when)}"
        kind = "role" if verb in ("worked", "taught") and words[0] in ("as", "at", "for", "in") else kind
        return kind, f"{verb.capitalize()} {_clean(obj, 8)} {_third_person(when)}"
    if kind == "personal" and template == "Has {obj}":
        if _HAVE_NOT.match(obj) or (not _HAVE_OBJECTS.search(obj) and _YOU.search(obj)):
            return None  # "I have a question", "I have a meeting": not a fact about the person
        words = WORD.findall(obj.lower())
        if words[0] == "one" and not _HAVE_OBJECTS.match(" ".join(words[1:2])):
            return None  # "I have one for each of them": the thing is not named
        return kind, f"Has {_clean(obj, 8)}"
    if kind == "personal" and template == "habit":
        verb = groups["verb"].lower()
        if not obj:
            if not re.fullmatch(_INTRANSITIVE, verb):
                return None  # "I read", "I go": nothing said
            return kind, _verb_s(verb).capitalize()
        first = WORD.findall(obj.lower())[:1]
        if first and first[0] in ("with", "out") and _PARTICLE_OBJECT.match(obj):
            first = ["the"]  # "I help out at the food bank", "I compete with show dogs": a named object
        if not first or first[0] in _NO_OBJECT or first[0] in _NOT_HABIT or _YOU.search(obj):
            return None  # "I watch it", "I go there", "I play with you", "I do know": no lasting object
        obj = _head(obj)
        if not _HABIT_OBJECTS.search(obj) and len(WORD.findall(obj)) > 8:
            return None  # a long story, not a habit
        verb, _, rest = verb.partition(" ")
        return kind, f"{_verb_s(verb).capitalize()} {(rest + ' ') if rest else ''}{_clean(obj, 8)}"
    if kind == "personal" and template == "ability":
        words = WORD.findall(obj.lower())
        if _YOU.search(obj) or (len(words) > 1 and words[1] in _NO_OBJECT) or len(words) > 10:
            return None  # "I can do that", "I can help you"
        return kind, f"Can {_clean(obj, 10)}"
    if kind == "personal" and template == "generic":
        verb = groups["verb"].lower()
        if verb == "live" and re.match(_FIGURATIVE_PLACE, obj, re.I):
            return None  # "I live in a world of microservices"
        if not _YOU.search(obj):
            obj = _head(obj)
        words = WORD.findall(obj.lower())
        if (
            verb in _NOT_HABIT
            or verb.endswith(("ed", "ing", "n't", "ly"))
            or verb in _IRREGULAR_PAST
            or not words
            or words[0] in _NO_OBJECT
            or _YOU.search(obj)
            or not 1 <= len(words) <= 14
        ):
            return None
        return kind, f"{_verb_s(verb).capitalize()} {_clean(obj, 8)}"
    if kind == "personal" and template == "ongoing":
        verb = groups["verb"].lower()
        words = WORD.findall(obj.lower())
        if not words or words[0] in _NO_OBJECT or _YOU.search(obj) or len(words) > 10:
            return None
        if verb == "working" and words[0] not in ("as", "at", "for", "in", "with", "from"):
            return None  # "I'm working on a flaky test": a task of the moment
        if verb == "taking" and not re.search(r"\b(?:class|classes|lessons?|courses?|degree)\b", obj, re.I):
            return None
        if verb in ("writing", "taking") and re.search(r"\bnow\b", obj, re.I):
            return None  # "I'm writing the launch email now": a task of the moment
        if verb == "writing" and (words[0] in _THE_WORDS or _WORK_DOC.search(obj)):
            return None  # "I'm writing a PRD for search": work in hand, not a pursuit
        if verb == "living":
            return kind, f"Lives {_clean(obj, 8)}"
        return ("role" if verb == "working" else kind), f"Is {verb} {_clean(obj, 8)}"
    if kind == "personal" and template == "acquired":
        verb = groups["verb"].lower()
        lasting = _HAVE_OBJECTS.search(obj) or re.search(
            r"\b(?:license|licence|diploma|certificate)\b", obj, re.I
        )
        if not lasting or _YOU.search(obj) or len(WORD.findall(obj)) > 10:
            return None  # "I got a sandwich": not a lasting change
        if verb == "quit" and not re.search(r"\b(?:job|smoking|drinking|school|college)\b", obj, re.I):
            return None
        return kind, f"{verb.capitalize()} {_clean(obj, 10)}"
    if kind == "personal" and template == "event":
        words = WORD.findall(obj.lower())
        here = words[:2] == ["here", "to"] and len(words) > 3  # "I moved here to coach at a university"
        if not words or (words[0] in _NO_OBJECT and not here) or _YOU.search(obj) or len(words) > 10:
            return None
        verb = groups["verb"].lower().replace("learnt", "learned")
        team = _TEAM_IN.match(re.sub(r"^over ", "", obj, flags=re.I)) if verb in ("moved",) else None
        if team and obj.lower().startswith(("to ", "over to ")):  # "I moved over to the identity team"
            return "team", f"Is on the {_clean(team['team'], 4)} {team['unit'].lower()}"
        return kind, f"{verb.capitalize()} {_clean(obj, 10)}"
    if kind == "used":
        first = WORD.findall(obj.lower())[:1]
        if not first or first[0] in ("it", "that", "this", "them") or _YOU.search(obj):
            return None
        role = first[0] == "work" or (
            first[0] == "be" and _ROLE_NOUN.search(obj) and not _FAMILY_NOUN.search(obj)
        )
        return ("role" if role else "personal"), f"Used to {_clean(obj, 10)}"
    if template == "fav":
        words = WORD.findall(obj.lower())
        if (
            not words
            or words[0] in _NO_OBJECT
            or _FAV_NOT_NAMED.search(obj)
            or groups["what"].startswith("of ")
        ):
            return None  # "that is my favourite", "he is one of my favourites", "one of my favourites of his"
        what = _clean(groups["what"], 4)
        least = "least favourite" if groups["least"] else "favourite"
        if groups.get("one"):  # "Dune is one of my favourite books"
            return (
                kind,
                f"{_clean(obj, 8)} {'are' if groups['be'] == 'are' else 'is'} among their {least} {what or 'things'}",
            )
        if not what and groups.get("be"):  # "Autumn is hands down my favourite"
            plural = groups["be"] == "are"
            return kind, f"{_clean(obj, 8)} {'are' if plural else 'is'} their {least}{'s' if plural else ''}"
        return kind, f"{least.capitalize()} {what or 'thing'} is {_clean(obj, 10)}"
    if kind == "isa":
        words = WORD.findall(obj.lower())
        if _YOU.search(obj) or words[-1] in ("of", "in", "at", "for", "to", "with", "and", "or", "the"):
            return None
        kind = "role" if _ROLE_NOUN.search(obj) and not _FAMILY_NOUN.search(obj) else "personal"
        return kind, f"Is {_clean(obj, 6)}"
    if _YOU.search(obj):
        return None  # "I'm a fan of your work", "I work with you": about the listener
    if template == "Works {obj}" and _SCHEDULE.match(obj):
        kind = "personal"  # "I work part-time on Fridays": when they work, not what they do
    art = ""
    if "{art}" in template:
        art = _article(obj) + " "
    values = {
        "obj": _clean(obj, 10),
        "art": art,
        "what": _clean(groups.get("what", ""), 4) or "thing",
    }
    return kind, template.format(**values)


_WORK_DONE = frozenset(["done", "used", "built", "led", "managed", "run", "designed", "developed", "programmed",
                        "coded", "written"])  # fmt: skip
_THE_WORDS = frozenset(
    ["the", "this", "that", "these", "those", "up", "down", "back", "out", "some", "something"]
)
_WORK_DOC = re.compile(
    r"\b(?:docs?|spec|specs|proposal|prd|rfc|report|e-?mails?|post-?mortem|ticket|tests?|script|query|queries|"
    r"function|code|migration|readme|review|plan|deck|brief|memo|summary|update|message|reply|response|"
    r"cover letter|job (?:description|ad|post)|policy|runbook|slides|presentation|notes|changelog|okrs?|"
    r"announcement|newsletter|copy|landing page|contract|invoice|quote|estimate|ticket|pr|patch)\b",
    re.I,
)


def _article(phrase: str) -> str:
    word = phrase.split()[0] if phrase.split() else ""
    if word.isupper() and len(word) <= 5:  # "an SRE", "a CTO"
        return "an" if word[0] in "AEFHILMNORSX" else "a"
    return "an" if word[:1].lower() in "aeiou" else "a"


# "with show dogs", "out at the local soup kitchen", "out a lot": a particle before something named
_PARTICLE_OBJECT = re.compile(
    r"^(?:out (?:at|with|in|on|for|a lot|all the time)|with)\b(?! (?:it|that|this|them|those|these|him|her|"
    r"you|your|me|us|one|some|any|there|what|which|whom)\b)(?: [\w'-]+)+$",
    re.I,
)
# -ing words after "interested in" that make it an intention of the moment ("interested in buying one")
_ONE_OFF_ING = frozenset(["buying", "becoming", "getting", "seeing", "hearing", "trying", "going", "joining", "coming",
                          "meeting", "reading", "knowing", "learning", "finding", "taking", "having", "doing",
                          "talking", "watching", "visiting", "renting", "selling", "attending", "helping",
                          "working", "hiring", "adopting", "checking", "what", "how", "why", "whether",
                          "more", "any", "anything", "some", "something"])  # fmt: skip
# "some Taylor Swift", "any uptempo rock songs", "more modern artists": a quantity of something named
_QUANTIFIED = re.compile(
    r"^(?:some|any|more)(?: of the)? (?!(?:of|more|less|too|it|that|this|them|those|these|one|ones|time|way|"
    r"other|others|else|kind|kinds|sort|sorts|type|types|thing|things|day|days|help|ideas?)\b)[a-z]",
    re.I,
)
# "Back to the Future": a title or a name, capitalised, though it starts with a little word
_NAMED = re.compile(r"^(?!(?:It|That|This|Them|Those|These|You|Your|Him|Her|There|Here|One|So|Too)\b)[A-Z]")
_FAN_FILLER = frozenset(["more", "of", "kind", "sort", "such", "a", "an", "big", "huge", "massive", "real", "total",
                         "die", "hard", "lifelong", "avid", "serious", "new", "casual", "fellow", "true", "great"])  # fmt: skip
_DISLIKED_POINTER = re.compile(r"^(?:to \w+ |\w+ing )?(?:it|that|this|you|them|those|these|him|her)\b", re.I)
_ME = re.compile(r"\b(?:me|us|myself)\b", re.I)
_PAST_POINTING = re.compile(
    r"\b(?:it|this|that|these|those|you|your|him|her|them|he|she|they|there|one)\b", re.I
)
_FAV_NOT_NAMED = re.compile(r"\b(?:i|he|she|they|him|her|his|their|my|your|you|we|our|think|guess)\b", re.I)
_FAMILY_NOUN = re.compile(
    r"\b(?:mom|mother|dad|father|grandmother|grandfather|grandma|grandpa|housewife|homemaker|retiree|"
    r"stay[- ]at[- ]home (?:mom|dad|parent))s?\b",
    re.I,
)
_DISLIKE = re.compile(
    rf"^(?:{_IM} {_ADVERB}not (?:really |very |much |that |super |too |overly |all that |particularly )?(?:a |an )?(?:big |huge |great |real )?"
    rf"(?:fan of|into|big on|fond of|keen on)|{_I} {_ADVERB}(?:hate|dislike|can'?t stand|detest|"
    rf"don'?t (?:really |much )?(?:like|enjoy|care for))) (?P<obj>.+)$",
    re.I,
)
# A clause that can carry a self-statement starts with one of these (after discourse words): a cheap test
# that spares the pattern list for most clauses.
_MY_NOUN_TAIL = re.compile(r"fav|\bmy (?:\w+ )?(?:hobb|passion|pastime)", re.I)
_START = re.compile(r"^(?:me and my\b|i\b|i'|i’|im\b|ive\b|my\b|please\b|always\b|never\b|from now on\b|"
                    r"in general\b|by default\b)", re.I)  # fmt: skip


# Durable negations: a habit or taste the speaker does not have ("I don't drink coffee"), what they have
# never done ("I've never used Kubernetes"), what they no longer do, and what they cannot do at all. A
# negated state ("I'm not sure", "I'm not a manager"), a negated event ("I didn't sleep"), a negated
# possession ("I don't have time") and anything modal stays refused.
_NEG_HABIT_VERBS = (
    rf"{_INTRANSITIVE}|like|enjoy|care for|eat|drink|smoke|vape|gamble|watch|play|drive|read|listen to|own|use|"
    r"wear|celebrate|speak|write|code|program|follow|believe in|go out|go to|do drugs|work (?:on|at|in|for)"
)
_NEG_HABIT = re.compile(
    rf"^{_I} {_ADVERB}(?P<neg>don'?t|do not|dont|never|no longer) (?P<adv>{_ADVERB})(?P<verb>{_NEG_HABIT_VERBS})"
    rf"(?: (?P<obj>.+))?$",
    re.I,
)
_NEG_NEVER = re.compile(
    rf"^{_I}(?:'ve| have|ve)? {_ADVERB}(?:never|not ever|haven'?t ever|never ever) {_ADVERB}"
    rf"(?P<pp>been|had|owned|lived|worked|visited|tried|played|used|eaten|driven|ridden|traveled|travelled|"
    rf"flown|smoked|skied|gone|learned|learnt|studied|met|seen|watched|read|cooked|coded|programmed|written|"
    rf"listened to)"
    rf"(?: (?P<obj>.+))?$",
    re.I,
)
_NEG_CANNOT = re.compile(
    rf"^{_I} {_ADVERB}(?:can'?t|cannot|can not) {_ADVERB}(?P<obj>(?:{_INTRANSITIVE}|drive|read music|"
    r"(?:speak|eat|drink|have|tolerate) [\w' -]+))$",
    re.I,
)
# A negated habit whose object is empty, pronominal, vague or a moment is not a fact about the person.
_NEG_POINTER = frozenset(["that", "it", "this", "there", "here", "you", "them", "those", "these", "one", "ones",
                          "what", "how", "why", "when", "where", "for", "with", "like", "about", "right", "back",
                          "again", "so", "too", "very", "better", "as"])  # fmt: skip
_NEG_VAGUE = frozenset(["anything", "much", "many", "any", "more", "now", "yet", "either", "well", "enough",
                        "everything", "really", "the", "a", "an", "best", "worst", "lot", "lots", "of", "that",
                        "often", "else", "at", "all", "in", "while", "long", "time"])  # fmt: skip


def _vague(words: list[str]) -> bool:
    return not words or words[0] in _NEG_POINTER or all(w in _NEG_VAGUE for w in words)


_NEG_POINTING = re.compile(r"\b(?:it|this|that|these|those|you|your|here|there|yet|anymore|any more)\b", re.I)
_ANYMORE = re.compile(r",?\s+any ?more$", re.I)
_FREQUENCY = frozenset(["usually", "often", "always", "generally", "normally", "regularly", "mostly", "even"])
_NO_CHANCE = re.compile(
    r"^(?:\w+ )?(?:chance|opportunity|time|luck|pleasure|reason|need|problem|issue)\b", re.I
)
_BEFORE = re.compile(r"(?:^|\s+)(?:before|in my life|ever)\s*$", re.I)
_PAST_PARTICIPLE = {"been": "been", "had": "had", "eaten": "eaten", "gone": "gone", "seen": "seen", "read": "read",
                    "met": "met", "written": "written", "ridden": "ridden", "flown": "flown", "driven": "driven"}  # fmt: skip


def _negative(core: str) -> tuple[str, str] | None:
    """(kind, content) for a durable negation, None for any other negated clause."""
    anymore = _ANYMORE.search(core) is not None
    core = _ANYMORE.sub("", core)
    match = _NEG_HABIT.match(core)
    if match:
        verb, obj = match["verb"].lower(), _BEFORE.sub("", match["obj"] or "")
        obj = re.sub(r"^(?:or|and|nor)\b.*$", "", obj, flags=re.I)  # "I never drink or use drugs"
        words = WORD.findall(obj.lower())
        if words and (_vague(words) or _NEG_POINTING.search(obj) or len(words) > 8):
            return None  # "I don't like it", "I don't watch much", "I don't use that here"
        if not words and not re.fullmatch(rf"{_INTRANSITIVE}|drink|smoke|vape|gamble|drive|go out", verb):
            return None  # "I don't play": nothing named
        neg = match["neg"].lower()
        if verb in ("like", "enjoy", "care for") and neg not in ("no longer",):
            return ("preference", f"Dislikes {_clean(obj, 8)}") if words else None
        head, _, rest = verb.partition(" ")
        adv = " ".join(w for w in match["adv"].lower().split() if w in _FREQUENCY)
        phrase = f"{head}{(' ' + rest) if rest else ''}{(' ' + _clean(obj, 8)) if words else ''}"
        if adv:  # "I don't often eat seafood": the frequency is part of the fact
            phrase = f"{adv} {phrase}"
        kind = (
            "preference" if head in ("eat", "drink", "smoke", "vape", "like", "enjoy", "care") else "personal"
        )
        if head == "work" and (neg == "no longer" or anymore) and rest in ("at", "for", "on", "in"):
            kind = "role"  # "I no longer work at Acme": a past role; "I don't work on weekends" is a habit
        if neg == "no longer" or anymore:
            return (
                kind,
                f"No longer {_verb_s(head)}{(' ' + rest) if rest else ''}{(' ' + _clean(obj, 8)) if words else ''}",
            )
        if neg == "never":
            return (
                kind,
                f"Never {_verb_s(head)}{(' ' + rest) if rest else ''}{(' ' + _clean(obj, 8)) if words else ''}",
            )
        return kind, f"Does not {phrase}"
    if anymore:
        return None
    match = _NEG_NEVER.match(core)
    if match:
        pp, obj = match["pp"].lower(), _BEFORE.sub("", match["obj"] or "")
        words = WORD.findall(obj.lower())
        if not words:
            return (
                ("personal", f"Has never {pp}")
                if pp in ("smoked", "skied", "flown", "traveled", "travelled")
                else None
            )
        if _vague(words) or _NEG_POINTING.search(obj) or len(words) > 8 or _NO_CHANCE.match(obj):
            return None  # "I've never been so happy", "I've never seen this error", "never had the chance"
        if pp == "been" and not re.match(
            r"(?:to|in|on|abroad|overseas|outside|married|engaged|divorced|an? )", obj, re.I
        ):
            return None  # "I've never been better": a feeling, not an experience
        if pp in ("seen", "watched", "read") and not re.match(r"(?:an?|any) ", obj, re.I):
            return None  # "I've never seen the new dashboard": a moment of the task, not a fact
        return "personal", f"Has never {pp} {_clean(obj, 8)}"
    match = _NEG_CANNOT.match(core)
    if match:
        obj = match["obj"]
        words = WORD.findall(obj.lower())
        if len(words) > 6 or (len(words) > 1 and _vague(words[1:])) or _NEG_POINTING.search(obj):
            return None  # "I can't eat anything", "I can't have that"
        return "personal", f"Cannot {_clean(obj, 6)}"
    return None


def _core(clause: str) -> str:
    """The clause without its lead-in ("well, ", "honestly"), curly apostrophes straightened, spaces folded."""
    return " ".join(_LEAD.sub("", clause.replace("\u2019", "'")).split())


def _statement(clause: str) -> tuple[str, str] | None:
    """(kind, content) when the clause is a durable statement the speaker makes about themselves."""
    core = _core(clause)
    if not core:
        return None
    fronted = _FRONTED.match(core)
    if fronted:  # "Usually I walk to work": the same as "I usually walk to work"
        core = f"{fronted['subject']} {fronted['adverb'].lower()} {core[fronted.end() :]}"
    scoped = _PREFER_SCOPE.match(core) if core[:2].lower() in ("fo", "wi", "in", "on", "wh") else None
    if scoped:  # "For complex screens I prefer Figma over sketches": the preference holds there
        found = _statement(core[scoped.end() :])
        if found is None or found[0] not in ("preference", "communication", "writing"):
            return None
        return found[0], f"{found[1]} {_clean(scoped['scope'].lower(), 6)}"
    if core[:2].lower() == "we" and not _NEGATION.search(core) and not _skipped(core):
        household = _household(core)  # "We live on a farm", "We have four dogs": the speaker's household
        if household:
            return household
    if not (_START.match(core) or _MY_NOUN_TAIL.search(core)):
        interjected = _INTERJECTION.match(core)
        ran_on = _AFTER_QUESTION.search(core) if interjected is None else None
        if interjected and interjected["word"].lower() not in _NOT_INTERJECTION:
            core = core[interjected.end() :]  # "Awe I love the ASPCA": a word of reaction, then the statement
        elif ran_on and _QUESTION_WORD.search(core, 0, ran_on.end()):
            core = core[ran_on.end() :]  # "how old are you I am 34": the answer after the question
        else:
            return _named_relation(core) if "my " in core.lower() else None
    asked = _ASKED.search(core) if "you" in core.lower() or " u" in core.lower() else None
    if asked and asked.start() > 0:  # "I love the winter what is your fave weather": the asking part aside
        core = core[: asked.start()]
    offer = _OFFER.search(core)
    if offer and offer.start() > 0:  # "I have a big home library if you are interested": the offer aside
        core = core[: offer.start()]
    if _PREFERS.match(core):  # "I prefer Python over R if you give code": the taste, without its occasion
        tail = _PREFER_TAIL.search(core)
        if tail and tail.start() > 0:
            core = core[: tail.start()]
    negated = _NEGATION.search(core) is not None
    # "I don't smoke anymore": a habit given up, said with a word that otherwise marks a moment
    checked = _ANYMORE.sub("", core) if negated else core
    if _ORG.match(core) or _QUESTION_START.match(core):
        return None
    if _skipped(checked):
        # "I took my dog to the vet yesterday": a moment, but the dog is theirs (not so in a wish or a plan)
        if negated or _unreal(core.lower()) or "my " not in core.lower():
            return None
        return _relation(core)
    family = _FAMILY.match(core)
    if family:  # "My wife and I met in college": the speaker is the subject, and has a wife
        rel = family["rel"].lower()
        rel = {"bunny": "rabbit", "bunnies": "rabbits", "puppies": "puppies"}.get(rel, rel)
        if family["count"]:
            return "personal", f"Has {family['count'].lower()} {rel}"
        plural = rel in _PLURAL_REL or (rel.endswith("s") and not rel.endswith("ss"))
        return "personal", f"Has {rel}" if plural else f"Has {'an' if rel[0] in 'aeiou' else 'a'} {rel}"
    if core[:3].lower() == "my " and _MY_REL.match(core):  # "My son is in junior high": has a son
        return _relation(core)
    disliked = _DISLIKE.match(core)
    if disliked:
        obj = disliked["obj"]
        if _DISLIKED_POINTER.match(obj):
            return None  # "I don't like it", "I hate to do that": nothing named
        return "preference", f"Dislikes {_clean(obj, 8)}"
    if negated and not _PLEASE.match(core):
        return _negative(core)
    for kind, pattern, template in _PATTERNS:
        match = pattern.match(core)
        if match:
            result = _content(kind, template, match)
            if result:
                return result
    if _I_SUBJECT.match(core):
        working = _WORKING_AS.search(
            core
        )  # "I'm sick of working at home as a vet": the role, said in passing
        if working and not _YOU.search(core):
            return "role", f"Works as {_clean(working['obj'], 6)}"
    if "my " in core.lower():
        return _named_relation(core)
    return None


# "My job at the bank keeps me busy", "tomatoes from my garden": a job or a lasting possession the speaker
# names as their own in passing.
_MY_JOB = re.compile(
    r"\bmy (?:new |current |day |full[- ]time |part[- ]time |real |regular )?(?:job|work|gig) "
    r"(?P<obj>(?:at|in|with) (?:the |a |an )?(?!(?:moment|end|time|same|morning|evening|night|weekend|start)\b)"
    r"[\w'-]+(?: [\w'-]+){0,3}|as (?:an? )?[\w'-]+(?: [\w'-]+){0,2})",
    re.I,
)
_MY_THING = re.compile(
    r"\bmy (?P<own>own )?(?:(?:new|little|big|vegetable|herb|flower|family|backyard|small)\s+)?"
    r"(?P<thing>garden|farm|ranch|band|business|bakery|restaurant|salon|car|truck|motorcycle|motorbike|boat|"
    r"jeep|van|blog|podcast|youtube channel|apartment|condo|dorm|house|trailer|cabin)\b(?! (?:school|class|classes|course|degree|name|idea|plan|plans|plants?|party|parties|keys?|work|chores|music|rules|warming|hunting|search|sitter|sitting|shirts?|mates?|guests?)\b)",
    re.I,
)


_JOB_STOP = frozenset(["is", "was", "are", "were", "keeps", "kept", "went", "goes", "makes", "made", "has", "had",
                       "pays", "takes", "took", "gets", "got", "lets", "allows", "starts", "ends", "so", "very",
                       "too", "they", "i", "he", "she", "it", "we", "and", "but", "or", "to", "which", "that",
                       "when", "because", "me", "them", "would", "will", "can", "could", "as", "is", "for",
                       "since", "while", "then", "now", "today", "all", "every", "this", "these", "those"])  # fmt: skip
_JOB_LEFT = re.compile(r"\b(?:quit|quitting|fired|laid off|lost|losing|lose|left|leave|leaving|resigned|old|"
                       r"former|previous|last|first|dream|future|next)\b", re.I)  # fmt: skip


def _possession(core: str) -> tuple[str, str] | None:
    job = _MY_JOB.search(core)
    if job:
        words = job["obj"].split()
        for index, word in enumerate(words[1:], start=1):  # the place or role ends where the clause goes on
            if word.lower() in _JOB_STOP or word.lower().endswith(("ly", "'s")):
                words = words[:index]
                break
        obj = " ".join(words)
        if (
            len(words) < 2
            or words[1].lower() in _JOB_STOP
            or _PAST_POINTING.search(obj)
            or _YOU.search(core[: job.start()])
            or _JOB_LEFT.search(core)
        ):
            return None  # "my job as is", "I quit my job in Alaska"
        if words[0].lower() == "as":
            return "role", f"Works as {_clean(' '.join(words[1:]), 6)}"
        return "role", f"Works {_clean(obj, 6)}"
    thing = _MY_THING.search(core)
    if not thing or _YOU.search(core[: thing.start()]) or _MY_REL_LOST.search(core):
        return None
    name = thing["thing"].lower()
    if name in ("apartment", "condo", "dorm", "house", "trailer", "cabin"):
        return "personal", f"Lives in {'an' if name[0] in 'aeiou' else 'a'} {name}"
    if name == "business":
        return "personal", "Has their own business"
    if name == "band":
        return "personal", "Plays in a band"
    return "personal", f"Has {'an' if name[0] in 'aeiou' else 'a'} {name}"


# "For complex screens I prefer ...", "When it comes to dashboards, I prefer ..."
_PREFER_SCOPE = re.compile(
    r"^(?P<scope>(?:for|with|in|on|when it comes to) (?!(?:me|now|example|instance|sure|real|once|today|the moment|a "
    r"while|years|ages|some reason|what|how|that|this|it|you|your|him|her|them)\b)(?:[\w'-]+ ){0,3}[\w'-]+),? "
    r"(?=i (?:(?:really|usually|generally|always|much|definitely|tend to) )*prefer\b)",
    re.I,
)
_PREFERS = re.compile(
    r"^i (?:(?:really|usually|generally|always|much|definitely|do|also) )*(?:prefer|like|love)\b", re.I
)
# What follows a taste and is about the assistant: "..., so don't ...", "... if you give code"
_PREFER_TAIL = re.compile(
    r",?\s+(?:if|when|whenever) (?:you|u)\b.*$|,?\s+so (?:don'?t|do not|please|pls|no|never|avoid|skip|stop)\b.*$",
    re.I,
)
_WORKING_AS = re.compile(
    rf"\bworking (?:[\w-]+ ){{0,3}}as (?P<obj>an? (?:[\w-]+ ){{0,2}}(?:{_OCCUPATIONS})s?)\b", re.I
)


# What a household (never an organisation) does: "We live in the desert", "We have two dogs and a cat",
# "We've been married for five years".
_HOUSEHOLD_ANIMALS = (
    r"kids|children|sons|daughters|boys|girls|twins|teens|grandkids|grandchildren|dogs?|cats?|puppies|puppy|"
    r"kittens?|horses?|ponies|cows|cattle|chickens|hens|goats?|sheep|pigs?|ducks|rabbits?|bunnies|birds|fish|"
    r"hamsters?|guinea pigs?|parrots?|snakes?|lizards?|turtles?|pets?|alpacas|llamas"
)
_HOUSEHOLD = re.compile(
    rf"^we(?:'ve)? {_ADVERB}(?:(?P<live>live|lived|moved) (?P<where>(?!{_FIGURATIVE_PLACE})(?:in|on|near|outside|by) .+)|"
    rf"(?:have|own|raise|keep|have got) (?P<what>(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|"
    rf"some|several|lots of|a few|many) (?:[\w-]+ ){{0,2}}(?:{_HOUSEHOLD_ANIMALS})(?: and (?:a|an|one|two|three|"
    rf"four|five|six|\d+) (?:[\w-]+ ){{0,2}}(?:{_HOUSEHOLD_ANIMALS}))?)|"
    rf"(?:have |'ve )?been married (?P<married>(?:for )?(?:almost |nearly |over |about )?\S+ years?))\b(?P<rest>.*)$",
    re.I,
)


def _household(core: str) -> tuple[str, str] | None:
    found = _HOUSEHOLD.match(core)
    if not found or _YOU.search(core) or _PAST_POINTING.search(found["where"] or found["what"] or ""):
        return None
    if found["where"]:
        if len(found["where"].split()) > 8:
            return None
        verb = {"live": "Lives", "lived": "Lived", "moved": "Moved"}[found["live"].lower()]
        return "personal", f"{verb} {_clean(found['where'], 8)}"
    if found["what"]:
        if re.match(r"(?:some|several|lots of|a few|many) (?:[\w-]+ )*(?:kids|children|sons|daughters|boys|girls|"
                    r"teens|twins|grandkids|grandchildren)\b", found["what"], re.I):  # fmt: skip
            return None  # "We have some teens that read to the kids": people of a place, not a family
        return "personal", f"Has {_clean(found['what'], 8)}"
    return "personal", f"Has been married {_clean(found['married'], 5)}"


# What makes a statement unreal (a wish, a plan, a supposition, a question to oneself) rather than only
# momentary: a relative named in it may not exist.
_UNREAL = re.compile(
    r"\b(?:if|unless|whether|maybe|perhaps|probably|might|would|could|should|suppose|imagine|hypothetically|"
    r"wish|hope|hoping|wonder|someday|gonna|wanna|planning|plan|plans|i'd|id|shall|"
    r"remember|memori[sz]e|considering|ignore|instructions?|pretend|jk|one day|going to|about to|trying|try|may|"
    r"wants? to|wanted to|thinking|note|store|save|act as|you|system|as if|kidding|yeah right)\b|/s\b|[<>{}]"
)


# A clause that opens with a request verb asks for something ("Give me three names for my dog").
_REQUEST = re.compile(
    r"^(?:just |please |quickly |also )*(?:give|write|tell|show|help|make|find|send|draft|let|name|suggest|list|"
    r"create|generate|check|explain|summari[sz]e|translate|recommend|plan|book|remind|draw|compose|pick|"
    r"choose|describe|edit|rewrite|proofread|review|compare|calculate|convert|get|buy|order|add|put|set|"
    r"schedule|call|text|email|message|ask|look|search|read|say|think|imagine|pretend|go|come|take|bring|"
    r"thank|thanks|congrats|congratulations|say hi|don't|do|try|keep|stop|start|please)\b"
)


_INTERJECTION = re.compile(r"^(?P<word>[a-z]+)[\s,.!]+(?=(?:i|i'm|im|i've|ive|my)\b)", re.I)
# Words that open a clause the statement depends on, or that make it not a statement
_NOT_INTERJECTION = frozenset(
    ["when", "whenever", "if", "because", "cause", "since", "while", "after", "before", "until", "unless", "once",
     "as", "though", "although", "whether", "that", "what", "which", "where", "how", "why", "who", "than", "like",
     "so", "then", "maybe", "perhaps", "probably", "hopefully", "someday", "tomorrow", "today", "tonight",
     "yesterday", "currently", "recently", "lately", "soon", "not", "never", "unfortunately", "and", "but", "or",
     "do", "does", "did", "are", "is", "was", "were", "can", "could", "would", "will", "should", "have", "has",
     "had", "may", "might", "must", "shall", "you", "your", "he", "she", "they", "we", "it", "his", "her",
     "their", "our", "its", "thanks", "thank", "please", "imagine", "suppose", "pretend", "remember", "say",
     "says", "said", "tell", "told", "even", "except", "besides", "hence", "till", "where", "whereas", "sometimes",
     "wish", "hope", "guess", "think", "believe", "know", "bet", "feel", "sure", "glad", "sorry", "plus", "until",
     "for", "to", "of", "in", "on", "at", "with", "by", "from", "about", "into", "after", "if", "lest", "yet",
     "also", "first", "next", "last", "later", "earlier", "again", "still", "just", "only", "ever", "all",
     "anything", "everything", "something", "nothing", "much", "more", "less", "the", "a", "an", "this",
     "these", "those", "some", "any", "every", "each", "no", "one", "none", "rather", "instead", "otherwise"]
)  # fmt: skip
# A courtesy to the listener after a statement: "..., if you are interested", "... if you want"
_OFFER = re.compile(
    r",?\s+if (?:you|u)(?:'re| are| were)? (?:\w+ )?(?:interested|want|like|wish|need|ever|fancy|would like|"
    r"are curious|need one|want one)\b.*$",
    re.I,
)
# "how old are you I am 34", "what do you do I work at a bank": a question run into the statement after it
_AFTER_QUESTION = re.compile(
    r"\b(?:are|do|did|have|were|is) (?:you|u)(?: \w+){0,2}? (?=(?:i'm|i am|im|i|my) )", re.I
)
_QUESTION_WORD = re.compile(r"\b(?:how|what|where|which|who|why|when|are|do|did|have|were|is)\b", re.I)
_FRONTED = re.compile(
    r"^(?P<adverb>usually|often|sometimes|always|generally|normally|mostly|regularly),? "
    r"(?P<subject>i'm|i am|i've|i have|i)\b ?",
    re.I,
)


# A future statement names relatives who exist ("I'll run it by my husband"), unless it is how they come to
# be ("I'll get my puppy next week", "when we meet my new sister-in-law").
_FUTURE = re.compile(r"\b(?:will|'ll|going to|gonna)\b")
_COMING = re.compile(
    r"\b(?:get|getting|gets|buy|buying|adopt|adopting|pick up|picking up|pick out|bring home|bringing home|meet|"
    r"meeting|have|having|welcome|welcoming|expecting|new|first|future|someday|one day)\b"
)


def _unreal(lower: str) -> bool:
    """Whether a relative named in this (lower-cased) statement may not exist."""
    return _UNREAL.search(lower) is not None or (
        _FUTURE.search(lower) is not None and _COMING.search(lower) is not None
    )


def _named_relation(core: str) -> tuple[str, str] | None:
    """ "We took my dogs to the beach": a relative or pet named as the speaker's own in a statement whose
    subject is someone else, when the statement is neither a question, a wish, a plan nor a negation."""
    lower = core.lower()
    if _REQUEST.match(lower):
        return None  # "Give me three names for my dog": a request, not a statement
    if _unreal(lower) or _QUESTION_START.match(core) or _NEGATION.search(core):
        return None
    return _relation(core)


def _relation(core: str) -> tuple[str, str] | None:
    """ "I'm walking my dog": the relative or pet the speaker names as their own, as (kind, content)."""
    found = _MY_REL.search(core)
    if not found:
        return _possession(core)
    if (
        not found
        or _MY_REL_LOST.search(core)
        or _YOU.search(core[: found.start()])
        or _REL_LEFT.match(core, found.end())  # "my wife left me"
    ):
        return None  # "I miss my late husband", "I'm sitting for my neighbour's dog", "you and my sister"
    rel = found["rel"].lower()
    rel = {"bunny": "rabbit", "bunnies": "rabbits", "puppy": "dog", "puppies": "dogs", "kitten": "cat",
           "kittens": "cats", "youngest": "children", "oldest": "children", "eldest": "children",
           "little one": "a child", "little ones": "children", "hubby": "husband", "sis": "sister",
           "bf": "boyfriend", "gf": "girlfriend", "kiddos": "kids", "pup": "dog", "pups": "dogs", "doggo": "dog",
           "doggos": "dogs"}.get(rel, rel)  # fmt: skip
    if found["count"]:
        return "personal", f"Has {found['count'].lower()} {rel}"
    plural = rel in _PLURAL_REL or (rel.endswith("s") and not rel.endswith("ss"))
    return "personal", f"Has {rel}" if plural else f"Has {'an' if rel[0] in 'aeiou' else 'a'} {rel}"


# ---------------------------------------------------------------------------------------------------


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


# A message that talks to the assistant about its memory or instructions is not read at all: whatever
# "fact" it carries was put there to be stored, not said.
_INJECTION = re.compile(
    r"\b(?:ignore (?:all |any |the )?(?:previous|prior|above|earlier)|disregard (?:all |the )?(?:previous|prior|above)|"
    r"(?:remember|memori[sz]e|store|save|record|note|log) (?:that|this|it|me|my|i|i'm)\b|please remember|"
    r"don'?t forget (?:that|this|i|my)|keep in mind|make a note|take note|add (?:this|that) to (?:your )?memory|"
    r"from now on,? you|you are now|act as|pretend|new instructions|system prompt|developer message|"
    r"you (?:must|should) (?:now )?(?:always|only)|override)|^\s*(?:system|assistant|tool)\s*:|[<]|\{\{|\{%|"
    # sarcasm makes every statement of the message suspect
    r"\byeah,? right\b|\blol,? as if\b|(?:^|\s)/s\b|\bjust kidding\b|\bjk\b|\bnot!",
    re.I | re.M,
)


# Every _INJECTION alternative contains one of these: a cheap test before the full pattern.
_INJECTION_HINTS = (
    "ignore", "disregard", "remember", "memori", "store", "save", "record", "note", "log ", "forget", "keep in",
    "add th", "from now", "you are", "act as", "pretend", "instruction", "system", "developer", "you must",
    "you should", "override", "assistant", "tool", "<", "{{", "{%", "right", "as if", "/s", "kidding", "jk",
    "not!",
)  # fmt: skip


# "As a nurse, I ...", "Being a piano teacher I ...", "as a dad myself": what the speaker is, said in passing
# before a statement of their own
_AS_A = re.compile(
    r"^(?:as|being) (?P<obj>an? (?:fellow )?(?:(?!myself\b)[\w-]+ ){0,3}(?!myself\b)[\w-]+|"
    # "As the release manager for the iOS app, I ..."
    rf"the (?:[\w-]+ ){{0,2}}?{_TITLE}(?: (?:for|of|on|at|in) (?:the |our |a |an )?[\w&/+.-]+(?: [\w&/+.-]+){{0,3}}?)?)"
    r"(?P<self> myself)?(?P<then>,? (?:i|i'm|i am|i've|i have|my)\b.*)?$",
    re.I,
)
_AS_A_NEXT = re.compile(r"\s*,?\s*(?:i|i'm|i am|i've|i have|my)\b", re.I)


def _as_a(clause: str, text: str) -> tuple[str, str] | None:
    found = _AS_A.match(clause)
    if not found:
        return None
    if not (found["self"] or found["then"]):
        at = text.find(clause)
        if at < 0 or not _AS_A_NEXT.match(text, at + len(clause)):
            return None  # "Being a teacher is hard": about anyone who is one
    obj = re.sub(r"^(an?) fellow ", r"\1 ", found["obj"], flags=re.I)
    if found["then"] and _YOU.search(found["then"]):
        return None
    if obj[:4].lower() == "the ":
        if _FAMILY_NOUN.search(obj) or not _TITLE_NOUN.search(obj) or _YOU.search(obj):
            return None  # "As the oldest child, I ..."
        return "role", f"Is {_clean(obj, 10)}"
    if _ROLE_NOUN.search(obj) and not _FAMILY_NOUN.search(obj):
        return "role", f"Is {_clean(obj, 5)}"
    if re.fullmatch(rf"an? (?:{_DURABLE_ADJECTIVES}|mom|mother|dad|father|parent|grandparent|grandmother|"
                    r"grandfather|veteran|vegan|vegetarian)", obj, re.I):  # fmt: skip
        return "personal", f"Is {_clean(obj, 5)}"
    return None


# "It is my favorite", "That's one of my favourite hobbies": a favourite named by a pronoun, resolved only to
# what the sentence just before names: "Do you like twitter? It is my favorite!", "I like shawarma. It's my
# favourite."
_FAV_PRONOUN = re.compile(
    r"^(?:(?:oh|yes|yeah|and|well),? )?(?:it|that|they|those|this|he|she)(?:'s|\u2019s| is| are| was)? "
    r"(?:\w+ )?(?P<one>(?:one|some) of )?my (?:absolute |all[- ]time |very )?fav(?:ou?rite|e)?s?"
    r"(?: (?P<what>[a-z]+(?: [a-z]+)?))?[\s!.]*$",
    re.I,
)
_ANTECEDENT = re.compile(
    r"^(?:(?:oh|yes|yeah|well|so|hey|wow|cool),? )*(?:(?:do|did|have|would) (?:you|u) (?:ever )?(?:like|love|enjoy|eat|"
    r"watch|play|listen to|follow|use|seen|tried|heard of|been to|read)|i (?:really |also |do )?(?:like|love|"
    r"enjoy|adore)) (?P<x>[\w'&. -]+?)[\s?!.]*$",
    re.I,
)


def _favourite_of(before: str, clause: str, text: str) -> tuple[tuple[str, str], str] | None:
    """((kind, content), quote) for a pronoun favourite whose thing the clause before names."""
    fav = _FAV_PRONOUN.match(clause)
    named = _ANTECEDENT.match(before)
    if not fav or not named:
        return None
    thing = _head(named["x"].strip())
    words = WORD.findall(thing.lower())
    if (
        not 1 <= len(words) <= 5
        or _PAST_POINTING.search(thing)
        or _YOU.search(thing)
        or (words[0] in _NO_OBJECT and not _NAMED.match(thing))
    ):
        return None  # "Do you like them? They are my favourite": nothing named
    if fav["what"] and fav["what"].lower().split()[0] in (
        "part",
        "thing",
        "one",
        "ones",
        "of",
        "too",
        "though",
    ):
        return None  # "That's my favourite part of it"
    start, end = text.find(before), text.find(clause)
    if start < 0 or end < start:
        return None
    quote = text[start : end + len(clause)]
    what = (fav["what"] or "").lower()
    if fav["one"]:
        return ("preference", f"{_clean(thing, 5)} is among their favourite {what or 'things'}"), quote
    if what:
        return ("preference", f"Favourite {what} is {_clean(thing, 5)}"), quote
    return ("preference", f"{_clean(thing, 5)} is their favourite"), quote


# Where a run-on question starts after a statement: "... do you", "... how about you", "... what kind of
# music do you play".
_ASKED = re.compile(
    r"\s+(?:(?:do|does|did|are|is|have|has|would|will|can|could|were|was)\s+(?:you|u|ya)\b|"
    r"(?:what|how|where|who|which|when|why)\b(?:\s+[\w']+){0,4}?\s+(?:you|u|ya|your)\b|"
    r"(?:and|what about|how about)\s+(?:you|u|ya|yours)\b)",
    re.I,
)


# ---------------------------------------------------------------------------------------------------
# Workplace forms: a terse self-introduction ("DBA here"), years of practice said without a verb ("8 years
# of Swift"), a place named with the hour it is there, a team named beside a role, and standing requests
# about how to answer ("give me checklists not prose, always").

_NOT_TERSE = re.compile(
    r"^(?:the|my|our|your|his|her|their|no|not|any|some|every|all|many|lots|most|few|other|those|these|that|"
    r"this|which|what|who|we|they|you|he|she|it|there|is|are|was|were|i|me|one|only|same|such|best|worst)\b",
    re.I,
)
_TERSE = re.compile(
    r"^(?:(?:just|also|another|fellow|a|an|lowly|humble)\s+)*"
    r"(?P<role>(?:(?!(?:of|at|on|for|in|with|and|or|to|from|here|is|are|was|were|be|been|have|has|got|need|"
    rf"needs|want|wants|not|no)\b)[\w+#./&'-]+ ){{0,3}}(?:{_TITLE}|em))"
    r"(?P<rest> (?:of|at|on|for|in|with) (?!(?:call|duty|leave|shift|site|vacation|holiday|break|it|this|that|"
    r"you|your|here|there)\b)[\w+#./&' -]{1,50}?)?(?P<here> here)?$",
    re.I,
)
_YEARS_NEXT = re.compile(
    r"\s*,\s*(?:about |over |almost |nearly |~)?(?:\d{1,2}\+?|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|fifteen|twenty) ?(?:years?|yrs?|yoe)\b",
    re.I,
)
_NUM_YEARS = (
    r"(?:\d{1,2}\+?|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a dozen)"
)
_YEARS_OF = re.compile(
    rf"^(?:(?:about|around|over|almost|nearly|roughly|~) ?)?(?P<n>{_NUM_YEARS}) ?(?:years?|yrs?)"
    r"(?: of (?:professional |hands-on )?(?:experience|exp)(?: (?P<p1>in|with))?| (?P<p2>of|in|with|doing|writing|"
    r"using|building|running|managing|leading|teaching)) (?P<obj>[\w+#./&-]+(?: [\w+#./&-]+){0,3}?)"
    r"(?: (?:overall|total|in total|now|professionally|experience))?$",
    re.I,
)
_FOR_YEARS = re.compile(
    rf"^(?P<obj>[\w+#./&-]+(?: [\w+#./&-]+){{0,2}}) (?:for|since) (?:about |over |almost |nearly |"
    rf"the (?:last|past) )?(?P<n>{_NUM_YEARS}) (?:years?|yrs?)(?: now)?$",
    re.I,
)
# Words that begin "X for 12 years" when it says how long a state lasted, not a skill practised
_NOT_SKILL = frozenset(
    ["married", "together", "sober", "clean", "here", "there", "vegan", "vegetarian", "single", "divorced",
     "engaged", "retired", "friends", "best", "dating", "living", "alive", "pregnant", "unemployed", "home",
     "same", "not", "only", "just", "almost", "nearly", "been", "about", "me", "us", "them", "him", "her", "it",
     "that", "this", "we", "they", "you", "i", "my", "our", "so", "and", "but", "also", "still", "now", "then",
     "even", "yes", "no", "well", "oh", "lol", "wow", "partners", "neighbors", "neighbours", "roommates",
     "marriage", "age", "life", "school", "college", "university", "uni", "prison", "jail", "a", "the", "in",
     "sick", "ill", "gone", "away", "open", "closed", "dead", "missing", "waiting", "working", "nothing",
     "something", "everything", "anything", "high", "grad", "med", "law", "row", "ago", "old", "later",
     "before", "after", "more", "less", "each", "every", "all", "some", "many", "few", "several", "mom", "dad",
     "wife", "husband", "kids", "family", "parents", "his", "their", "your"]
)  # fmt: skip
_IN_PLACE = re.compile(rf"^{_IM} (?:now |over )?in (?P<obj>[A-Z][\w'.-]+(?:,? [A-Z][\w'.-]+){{0,2}})$")
_TIME_THERE = re.compile(
    r"\s*(?:[,(\u2014-]\s*)?(?:(?:so|and|which means|where)\s+)?(?:it'?s|it is|its)\s+(?:\w+\s+){0,2}?"
    r"(?:early|late|morning|evening|night|midnight|lunchtime|\d{1,2}(?::\d\d)?\s*(?:am|pm))\b|"
    r"\s*\(?\s*(?:utc|gmt)\s*[+-]\s*\d|\s*(?:[,(]\s*)?(?:so |and )?(?:a |an )?(?:different|other) time ?zones?\b",
    re.I,
)
_NOT_A_TEAM = frozenset(["call", "duty", "leave", "shift", "site", "vacation", "holiday", "break", "contract",
                         "staff", "board", "loan", "secondment", "mobile", "weekends", "nights"])  # fmt: skip


def _workplace(clause: str, text: str) -> list[tuple[str, str]]:
    """(kind, content) pairs for a clause in a workplace form that does not start with "I"."""
    core = _core(clause)
    lower = core.lower()
    at = text.find(clause)
    after = at + len(clause) if at >= 0 else -1
    years_next = after >= 0 and _YEARS_NEXT.match(text, after) is not None
    in_years = "year" in lower or "yr" in lower
    if (
        not core
        or not (lower.endswith(" here") or years_next or in_years or core[:1] in "Ii")
        or _skipped(core)
        or _NEGATION.search(core)
        or _YOU.search(core)
    ):
        return []
    terse = _TERSE.match(core) if lower.endswith(" here") or years_next else None
    if terse and not _NOT_TERSE.match(core) and not _FAMILY_NOUN.search(terse["role"]):
        if not terse["here"] and (terse["rest"] or not years_next):
            return []  # a bare title says who they are only before the years they have put in
        rest = terse["rest"] or ""
        role = _clean(terse["role"] + rest, 10)
        if role[:1].isupper() and not role.split()[0].isupper():
            role = role[:1].lower() + role[1:]  # "Backend eng here": a capital of the sentence, not a name
        found = [("role", f"Is {_article(role)} {role}")]
        team = _TEAM_IN.match(rest.strip())
        place = rest.strip()[3:] if rest.strip().lower().startswith("on ") else ""
        if team:  # "Data analyst on the risk team here"
            found.append(("team", f"Is on the {_clean(team['team'], 4)} {team['unit'].lower()}"))
        elif place and len(place.split()) <= 3 and place.split()[0].lower() not in _NOT_A_TEAM | _THE_WORDS:
            found.append(("team", f"Works on {_clean(place, 3)}"))  # "Frontend dev on billing here"
        return found
    years = _YEARS_OF.match(core) if in_years else None
    if years:
        obj = years["obj"]
        prep = (years["p1"] or years["p2"] or "with").lower()
        words = obj.lower().split()
        if words[0] in _NOT_SKILL or words[-1] in _NOT_SKILL or _PAST_POINTING.search(obj):
            return []  # "20 years of marriage", "3 years in a row"
        if prep == "in" and obj[:1].isupper() and not obj.isupper() and len(words) == 1:
            return []  # "5 years in Berlin": a place
        if prep in ("of", "with", "in"):
            return [
                (
                    "expertise",
                    f"Has {years['n']} years of experience {'in' if prep == 'in' else 'with'} {_clean(obj, 4)}",
                )
            ]
        return [("expertise", f"Has {years['n']} years of {prep} {_clean(obj, 4)}")]
    for_years = _FOR_YEARS.match(core) if in_years else None
    if for_years:
        obj = for_years["obj"]
        words = obj.lower().split()
        if (
            any(w in _NOT_SKILL for w in words)
            or words[0].endswith(("ed", "ing", "ly", "'s"))
            or re.fullmatch(_DURABLE_ADJECTIVES, obj, re.I)
            or _ROLE_NOUN.search(obj)
        ):
            return []  # "Married for 12 years", "Vegetarian for ten years"
        return [("expertise", f"Has {for_years['n']} years of experience with {_clean(obj, 3)}")]
    place = _IN_PLACE.match(core) if core[:1] in "Ii" else None
    if place and after >= 0 and _TIME_THERE.match(text, after):  # "I'm in Singapore so it's early for me"
        return [("personal", f"Is based in {_clean(place['obj'], 4)}")]
    return []


_MANAGES_TEAM = re.compile(r"^i (?:\w+ )?manage (?P<obj>the .+ team)\b", re.I)


def _also(clause: str, found: tuple[str, str]) -> list[tuple[str, str]]:
    """What else a role or team statement says: the team beside a role, the role of a team's manager."""
    kind, content = found
    core = _core(clause)
    if not _I_SUBJECT.match(core) or _YOU.search(core):
        return []
    if kind == "role" and content.startswith("Is "):  # "I'm a backend engineer on the checkout team"
        team = _TEAM_IN.search(core)
        if team:
            return [("team", f"Is on the {_clean(team['team'], 4)} {team['unit'].lower()}")]
    managed = _MANAGES_TEAM.match(core)
    if kind == "team" and managed:  # "I manage the support team": a manager
        return [("role", f"Manages {_clean(managed['obj'], 8)}")]
    return []


# A standing request about how to answer. What makes it standing, not a one-off: always, ever, never, in
# general, from now on, any time, every time, for anything, "any jargon you use", "keep explaining ...".
_STANDING = re.compile(
    r"\b(?:always|ever|never|in general|from now on|going forward|by default|as a rule|for (?:anything|everything|"
    r"all)\b|any ?time|every ?time|whenever|each time|(?:any|all|every) (?:[\w-]+ ){1,2}(?:you|u) (?:use|write|"
    r"give|send|draft|produce|suggest|make|show|explain|create|generate)|(?:anything|everything|whatever) (?:for|"
    r"you|that|aimed|going|meant))\b",
    re.I,
)
_FORMAT_WORDS = re.compile(
    r"\b(?:answers?|responses?|replies|explanations?|examples?|bullet(?: point)?s?|summar(?:y|ies)|tl;?dr|code|"
    r"comments?|snippets?|checklists?|lists?|tables?|diagrams?|mermaid|templates?|markdown|headings?|headers?|"
    r"steps?|prose|paragraphs?|sources?|links?|citations?|references?|numbers|units|versions?|short(?:er)?|brief|"
    r"concise|terse|verbose|long(?:er)?|detail(?:ed|s)?|tone|emojis?|jargon|acronyms?|spelling|english|"
    r"format(?:ted|ting)?|sql|yaml|json|pros and cons|trade-?offs|caveats|assumptions|rollback|tests?|"
    r"diffs?|options|language|wording|bold|italics?|formal|informal|casual|friendly|plain|simple|simpler|"
    r"high[- ]level|eli5|analog(?:y|ies)|metaphors?|words|sentences?|tldr)\b",
    re.I,
)
_WRITING_FOR = re.compile(
    r"\b(?:tone|spelling|british english|american english|oxford comma|active voice|passive voice|sentence case|"
    r"title case|emojis?|jargon|plain (?:language|english)|customers?|customer[- ]facing|clients?|external|"
    r"emails?|docs|documentation|drafts?|copy|posts?|wording|formal|informal)\b",
    re.I,
)
_REQUEST_VERB = re.compile(
    r"^(?:keep|give|use|write|put|show|explain|add|include|format|make|start|end|lead|avoid|skip|stick|spell|"
    r"default|answer|reply|respond|list|link|cite|mark|label|number|bold|highlight|break|split|summari[sz]e|"
    r"translate|flag|call out|mention|tell|walk|send|offer|provide|present|structure|wrap|quote|define|"
    r"double[- ]check|return|output|limit|cap|drop|leave out|go easy on|stop|sign off|open with|close with|"
    r"no|don'?t|do not|never|always)\b",
    re.I,
)
_LEAD_IN = re.compile(
    r"^(?:(?:pls|please|plz|kindly|also|and|oh|btw|one more thing|going forward|from now on|in general|"
    r"by default|as a rule|generally|and also|oh and|ah|ok|okay|so|hey|hi)\b[,:]?\s*)+",
    re.I,
)
_ASK_FRAME = re.compile(
    r"^(?:(?:can|could|would|will) (?:you|u) (?:please |pls |kindly )?(?=\w)|"
    r"i(?:'d| would) (?:like|love|prefer|appreciate) (?:it )?(?:if )?(?:you|u) (?:to |would |could )?|"
    r"i (?:want|need) (?:you|u) to )",
    re.I,
)
_LIKE_WHEN = re.compile(
    r"^i (?:(?:really|always|just|do|generally) )*(?P<verb>like|love|prefer|appreciate) (?:it )?when (?:you|u) "
    r"(?P<obj>(?:show|give|add|use|include|explain|write|put|keep|break|summari[sz]e|start|end|list|format|"
    r"number|link|cite|spell|walk|answer|reply|respond|draw|sketch|lay|bold|highlight|label|mark|compare|"
    r"illustrate|quote|define|flag|call) .+)$",
    re.I,
)
_I_WANT = re.compile(
    r"^i (?:(?:always|generally|usually|really|do) )*(?P<verb>want|need|like|prefer|appreciate) (?P<obj>.+)$",
    re.I,
)
_MARKER_WORDS = re.compile(
    r",?\s*\b(?:always|ever|in general|from now on|going forward|by default|as a rule|please|pls|plz|kindly|"
    r"thanks|thx|ty|thank you)\b[,!.]*",
    re.I,
)
_TO_ME = re.compile(r"\b(?:me|my|you|your|u|ur|answers?|responses?|replies|explanations?)\b", re.I)
_POINTING_ONE = re.compile(r"\b(?:this|that|these|those|it|above|below|here|today|tomorrow|now)\b", re.I)
_KEEP_THEM = re.compile(
    r"^keep (?:them|your (?:answers|replies|responses|explanations)|answers|replies|responses|explanations) "
    r"(?P<how>short|shorter|brief|concise|tight|simple|high[- ]level|to the point)\b",
    re.I,
)
_MAKING = re.compile(r"\b(?:write|draft|give me|list|generate|create|make|send|suggest|rewrite)\b", re.I)


def _standing_request(sentence: str, text: str) -> tuple[str, str] | None:
    """(kind, content) for a sentence that asks the assistant to answer some way from now on."""
    raw = " ".join(sentence.replace("\u2019", "'").split()).rstrip("?!. ")
    if not raw or len(raw) > 240:
        return None
    led = raw if re.match(r"^no \w", raw, re.I) else _LEAD.sub("", raw)  # "no emoji ...": not a "no" of reply
    body = _ASK_FRAME.sub("", _LEAD_IN.sub("", led))
    framed = body != led or re.search(r"\b(?:please|pls|plz|kindly)\b", raw, re.I) is not None
    body = _LEAD_IN.sub("", body)  # "can you always ...": the marker after the frame
    if not body or not _FORMAT_WORDS.search(body):
        return None
    if _QUESTION_START.match(body) and not framed and not _SCOPE.match(body):
        return None
    like = _LIKE_WHEN.match(body)
    keep_them = _KEEP_THEM.match(body)
    keeping = re.match(r"^(?:keep (?!going\b|up\b|it\b)|stop )\w+ing\b", body, re.I)  # "stop using emoji"
    marked = _STANDING.search(raw) is not None or like is not None or keeping is not None
    if not (marked or keep_them):
        return None
    kind = "writing" if _WRITING_FOR.search(body) else "communication"
    if like:  # "I like it when you show a quick example"
        verb, _, rest = like["obj"].partition(" ")
        if _POINTING_ONE.search(rest) or _skipped(rest) or not rest:
            return None
        label = {"like": "Likes", "love": "Loves", "prefer": "Prefers", "appreciate": "Appreciates"}
        return kind, f"{label[like['verb'].lower()]} it when the assistant {_verb_s(verb)} {_clean(rest, 12)}"
    plain = _MARKER_WORDS.sub("", body).strip(" ,")
    if not plain or _POINTING_ONE.search(plain if not keep_them else plain.replace("them", "")):
        return None  # "always add comments to this function", "give me the short version today"
    if _skipped(re.sub(r"\b(?:always|ever)\b", "", plain)):
        return None
    want = _I_WANT.match(plain)
    if want:  # "I always want rollback steps spelled out explicitly"
        if (
            not marked
            or _PRONOUN_OBJECT.match(want["obj"])
            or want["obj"].lower().startswith("to ")
            or _YOU.search(want["obj"])
        ):
            return None
        verb = want["verb"].lower()
        label = {"like": "Likes", "prefer": "Prefers", "appreciate": "Appreciates"}.get(verb, "Wants")
        return kind, f"{label} {_clean(want['obj'], 14)}"
    # "every time you give me code, add comments", "for anything customer-facing use British spelling"
    scope = _SCOPE.match(plain)
    if not (framed or keep_them or _TO_ME.search(raw) or (scope and kind == "writing")):
        return None  # "always make a list before shopping": advice, not a request to the assistant
    if keep_them and not marked:
        if _MAKING.search(text.replace(sentence, "")):
            return None  # "write three emails, keep them short": about those emails
        return "communication", f"Wants answers kept {keep_them['how'].lower()}"
    tail = ""
    if scope:
        plain, tail = plain[scope.end() :], " " + _clean(scope["scope"].strip(" ,"), 10)
    if not (_REQUEST_VERB.match(plain) or keeping):
        return None
    plain = plain[:1].lower() + plain[1:]
    never = re.match(r"^(?:don'?t|do not|never)\s+(?:ever\s+)?", plain, re.I)
    if never:
        return kind, f"Wants the assistant to never {_clean(plain[never.end() :], 14)}{tail}"
    if plain[:3].lower() == "no ":  # "no emoji in your answers, ever"
        return kind, f"Wants no {_clean(plain[3:], 14)}{tail}"
    if re.search(r"\bnever\b", raw, re.I):
        return None  # "give me tables, never prose": said both ways, left to the clause reading
    if keeping:  # "keep explaining stuff with examples", "stop using emoji": already standing
        return kind, f"Wants the assistant to {_clean(plain, 14)}{tail}"
    return kind, f"Wants the assistant to always {_clean(plain, 14)}{tail}"


_SCOPE = re.compile(
    r"^(?P<scope>(?:every ?time|any ?time|whenever|each time) (?:you|u) [^,]{1,60},|"
    r"(?:for|in) (?:anything|everything|all|any) (?:[\w'-]+ ){0,4}?(?=(?:use|write|keep|give|put|add|avoid|"
    r"skip|make|start|format|include|stick|spell)\b)|(?:for|in) (?:anything|everything|all|any) [^,]{1,40},)\s*",
    re.I,
)


# Sarcasm marks: a love said with an eye-roll, an *emphasised* love, "oh great, another ...".
_SARCASM = re.compile(
    r"[\U0001F643\U0001F644\U0001F611\U0001F612]|\*(?:love|loved|loving|adore|adored|enjoy|like|favou?rite|"
    r"great|fun|best)\w*\*|\boh,? (?:great|fantastic|wonderful|joy|goody|perfect|brilliant|lovely|super|splendid)"
    r"\b[,!.]*\s+(?:another|more|just|exactly|nothing|my|the|a|i (?:just )?(?:love|adore))\b|"
    r"\bmy absolute favou?rite (?:way|thing) to\b|\byeah,? right\b",
    re.I,
)


def _sarcasm_hint(lower: str) -> bool:
    """A cheap test before _SARCASM: every alternative of it contains one of these."""
    return (
        "*" in lower
        or "oh" in lower
        or "absolute" in lower
        or "yeah" in lower
        or "\U0001f643" in lower
        or "\U0001f644" in lower
        or "\U0001f611" in lower
        or "\U0001f612" in lower
    )


_WORKPLACE_HINT = re.compile("year|yr|(?:i'm|i\u2019m|i am|im) in ")
# A cheap test before the standing requests: each of them holds one of these
_STANDING_HINT = re.compile(
    r"always|ever|general|from now|forward|default|as a rule|any|each time|keep|stop|when (?:you|u)"
)
_STANDING_ANY = re.compile(
    rf"{_STANDING.pattern}|\b(?:keep|stop) \w|\bwhen (?:you|u)\b"
)  # on lower-cased text
_FORMAT_LOWER = re.compile(_FORMAT_WORDS.pattern)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")


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
    action: dict = {"action": "create", "content": content, "tier": tier, "kind": kind,
                    "evidence": [{"message": handle, "quote": quote}]}  # fmt: skip
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
        if any(hint in lower for hint in _INJECTION_HINTS) and _INJECTION.search(message.text):
            continue
        # a love said with an eye-roll: no taste of the message is taken at its word
        state["sarcastic"] = _sarcasm_hint(lower) and _SARCASM.search(message.text) is not None
        answered: list[str] = []  # quotes of communication and writing signals read from clauses
        state["answered"] = answered
        workplace = _WORKPLACE_HINT.search(lower) is not None  # a cheap test before _workplace
        previous = ""
        for clause, question in _clauses(message.text):
            before, previous = previous, clause
            resolved = None
            if not question and before and _FAV_PRONOUN.match(clause):
                resolved = _favourite_of(
                    before, clause, message.text
                )  # "Do you like twitter? It's my favorite!"
            if resolved is not None:
                found, clause = resolved
            elif question:
                # "I like animals I have two cats how about you": a statement run into the question after it
                asked = _ASKED.search(clause)
                if asked is None or asked.start() == 0:
                    continue
                clause = clause[: asked.start()].rstrip()
            if resolved is None:
                found = _statement(clause)
            if found is None and clause[:2].lower() in ("as", "be"):  # "As a nurse, I work nights"
                found = _as_a(clause, message.text)
            results = [found] if found is not None else []
            if found is None and (workplace or "here" in clause.lower()):
                results = _workplace(clause, message.text)
            if not results:  # "I am 19 and just want to see my friends": the first part may stand alone
                for head in itertools.islice(_CONJUNCTION.finditer(clause), 3):
                    found = _statement(clause[: head.start()].rstrip())
                    if found is not None:
                        clause = clause[: head.start()].rstrip()
                        results = [found]
                        break
                if not results:
                    continue
            if found is not None and found[0] in ("role", "team"):
                results += _also(clause, found)
            if not all(_emit(state, message.handle, kind, content, clause) for kind, content in results):
                break
        # standing requests about answers, read sentence by sentence ("give me checklists not prose, always")
        if not _STANDING_HINT.search(lower):
            continue
        visible = _visible(message.text)
        for sentence in _SENTENCE.finditer(visible):
            quote = message.text[sentence.start() : sentence.end()].strip().rstrip(".!? ").strip()
            if not quote or any(q in quote or quote in q for q in answered):
                continue
            low = quote.lower()
            if (
                not _STANDING_HINT.search(low)
                or not _STANDING_ANY.search(low)
                or not _FORMAT_LOWER.search(low)
            ):
                continue
            found = _standing_request(quote, message.text)
            if found is not None and not _emit(state, message.handle, *found, quote):
                break
    return list(actions.values())
