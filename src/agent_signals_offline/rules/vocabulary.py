"""Shared vocabulary of the offline rules: regex fragments that statement patterns of every kind are built
from (the first person, adverbs, occupations and titles, durable traits, times of life) and the small
matchers many rules ask ("is the listener named?", "does the object point back at something?")."""

from __future__ import annotations

import re

from agent_signals_offline.rules.word_lists import word_set

PRONOUN_I = r"(?:i|I)"
I_AM = rf"(?:{PRONOUN_I}'m|{PRONOUN_I}\u2019m|{PRONOUN_I} am|im|Im|{PRONOUN_I} m(?= ))"
ADVERB = (
    r"(?:(?:really|absolutely|truly|just|also|definitely|totally|actually|still|always|kind of|sort of|do|"
    r"usually|often|sometimes|mostly|generally|normally|mainly|regularly|certainly|sure|even|both|already)\s+)*"
)
DEGREE = (
    r"(?:(?:very|pretty|quite|fairly|extremely|slightly|partially|partly|mostly|completely|totally|a little|"
    r"a bit|somewhat|so|super|already|happily|now|only|also|legally|profoundly|severely|mildly) )*"
)
AGE_ADVERB = r"(?:(?:only|just|almost|nearly|about|barely|already|now|still) )?"
OCCUPATIONS = (
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
ROLE_NOUN = re.compile(rf"\b(?:{OCCUPATIONS})s?\b", re.I)

# Job titles a workplace self-introduction uses beyond OCCUPATIONS ("Backend eng here", "I'm the PM for ...")
_WORK_TITLES = (
    r"dev|eng|swe|sde|pm|tpm|dba|sre|qa|ux|cto|ceo|cfo|coo|cpo|cmo|ciso|cio|vp|svp|co-?founder|cofounder|"
    r"marketer|copywriter|scrum master|product owner|data steward|steward|bdr|sdr|csm|devrel|pmm|hr"
)
TITLE = rf"(?:{OCCUPATIONS}|{_WORK_TITLES})"
TITLE_NOUN = re.compile(rf"\b{TITLE}\b", re.I)
MILITARY = r"(?:army|navy|air force|marines|military|national guard|coast guard|peace corps|reserves)"

# Activities a person does as a habit: "I play the guitar", "I volunteer at the shelter", "I swim".
INTRANSITIVE = (
    r"bake|cook|paint|knit|crochet|sew|hike|run|jog|swim|surf|ski|snowboard|skate|garden|fish|hunt|sing|"
    r"dance|draw|travel|camp|meditate|climb|bike|cycle|box|golf|bowl|kayak|sail|dive|scuba dive|workout|"
    r"exercise|homeschool"
)
HABIT_VERBS = (
    rf"{INTRANSITIVE}|play|collect|volunteer|write|read|ride|drive|go|watch|listen to|teach|eat|drink|grow|"
    r"raise|breed|build|make|restore|fix|practice|practise|train|coach|attend|speak|foster|rescue|compete|"
    r"race|lift|wear|visit|study|walk|sell|spend|use|help|donate|do|own|love|like|enjoy|tend to|"
    r"listen|work out|shop|babysit|tutor|sew"
)

# Long-lasting medical conditions a person says they have ("I have asthma"), as opposed to a cold.
CONDITIONS = (
    r"asthma|diabetes|arthritis|epilepsy|adhd|add|autism|dyslexia|celiac disease|coeliac disease|cancer|"
    r"migraines|insomnia|anxiety|depression|ptsd|ocd|tinnitus|eczema|psoriasis|lupus|fibromyalgia|"
    r"crohn'?s|ms|multiple sclerosis|parkinson'?s|a heart condition|high blood pressure|allergies|"
    r"(?:a |an )?(?:\w+ )?allergy|(?:a )?(?:food|nut|peanut|gluten|lactose) intolerance"
)
DURABLE_ADJECTIVES = (
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

# A time of life that makes a past statement biographical ("I played hockey growing up", "I lived in Spain for
# ten years") rather than an event of the last days.
NUMBER_WORD = r"(?:\d+|a few|many|several|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty)"
LIFE_TIME = (
    r"(?:as a (?:kid|child|teen|teenager|youngster|young (?:man|woman|girl|boy|adult)|little (?:girl|boy))|growing up|"
    r"in (?:high school|middle school|grade school|elementary school|college|university|uni|grad school|law school|"
    r"med school|my (?:youth|teens|twenties|thirties|20s|30s|younger days|childhood))|"
    r"(?:when|while|since) i was (?:younger|young|little|small|a (?:kid|child|teen|teenager|toddler|baby|little "
    r"(?:girl|boy))|in (?:high school|college|school|university)|\d{1,2}|(?:two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen)(?: years old)?)|"
    rf"for (?:about |over |almost |nearly |more than |quite |well over )?{NUMBER_WORD} (?:years|decades))"
)

# "I live in a world of microservices": a figure of speech, not a place
FIGURATIVE_PLACE = r"in (?:a|an|the|this|that) (?:[\w-]+ )?(?:world|age|era|time|times|society|bubble|dream|fantasy|simulation)\b|in (?:fear|hope|denial)\b"
HAVE_OBJECTS = re.compile(
    r"\b(?:kids?|children|child|sons?|daughters?|babies|baby|twins|wife|husband|partner|boyfriend|girlfriend|"
    r"fianc[eé]e?|brothers?|sisters?|siblings?|parents?|grandchildren|grandkids?|dogs?|cats?|pets?|puppy|"
    r"puppies|kittens?|horses?|birds?|fish|rabbits?|hamsters?|snakes?|cars?|trucks?|house|home|farm|boat|"
    r"bikes?|motorcycles?|degree|masters|phd|allergy|allergies|job|jobs|business|shop|store|restaurant|"
    r"collection|garden|tattoos?|piano|guitar)\b",
    re.I,
)
HAVE_NOT = re.compile(
    r"^(?:\w+ ){0,3}(?:question|questions|idea|ideas|feeling|bit|chance|meeting|meetings|"
    r"appointment|test|exam|quiz|plan|plans|problem|problems|issue|issues|request|suggestion|favou?r|day|"
    r"(?:good|great|hard|tough|rough|fun|wonderful|lovely|long|busy|difficult|little|no|some|the) time|"
    r"night|week|weekend|moment|minute|minutes|second|look|try|clue|doubt|headache|cold|flu|fever|hangover|"
    r"date|interview|deadline|call|party|trip|vacation|holiday|surgery|point|thought|thoughts|story|tip|"
    r"recommendation|guess|hunch|answer|reason|way|thing|things|something|nothing|anything|everything|"
    r"work|homework|errands?|shift|class|lesson|game|match|event|concert|show|feeling)\b",
    re.I,
)
NO_OBJECT = word_set(
    "it that this those these them you your yours her him his there here so too then when what one "
    "ones some any more less back out home along with again like"
)
THE_WORDS = frozenset(
    ["the", "this", "that", "these", "those", "up", "down", "back", "out", "some", "something"]
)
YOU = re.compile(r"\b(?:you|your|yours|u|ur)\b", re.I)
ME = re.compile(r"\b(?:me|us|myself)\b", re.I)
I_SUBJECT = re.compile(r"^(?:i|i'm|i’m|im|i've|i’ve|ive|i am|i have)\b", re.I)
PRONOUN_OBJECT = re.compile(r"\b(?:it|this|that|them|these|those)\b", re.I)
PAST_POINTING = re.compile(
    r"\b(?:it|this|that|these|those|you|your|him|her|them|he|she|they|there|one)\b", re.I
)
NEG_POINTING = re.compile(r"\b(?:it|this|that|these|those|you|your|here|there|yet|anymore|any more)\b", re.I)

# "Back to the Future": a title or a name, capitalised, though it starts with a little word
NAMED = re.compile(r"^(?!(?:It|That|This|Them|Those|These|You|Your|Him|Her|There|Here|One|So|Too)\b)[A-Z]")
FAMILY_NOUN = re.compile(
    r"\b(?:mom|mother|dad|father|grandmother|grandfather|grandma|grandpa|housewife|homemaker|retiree|"
    r"stay[- ]at[- ]home (?:mom|dad|parent))s?\b",
    re.I,
)
