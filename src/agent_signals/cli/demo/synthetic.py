"""Deterministic synthetic conversations for the demo, the tests and the benchmarks.

Each user gets a persona (role, team, what they own, expertise, how they like answers and writing, a few
tastes and personal facts) and two or three conversations with a work assistant. Their messages mix
durable self-statements with the things a restrictive extractor must skip: task context, org-wide facts,
statements about other people, hypotheticals, one-off requests, chit-chat and quoted text. The assistant
states facts about itself, tools print output, and about one conversation in six is not flagged.

Every user message carries a `Label`, so the demo doubles as a labelled set (`agent_signals.cli.demo.seeding.score`).
Generation streams: user i depends only on (seed, i), so the first N users of a larger set are the same
N users, and 100,000 users never sit in memory at once.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

KINDS = ("role", "team", "ownership", "expertise", "communication", "writing", "preference", "personal")
CORE_KINDS = frozenset({"role", "team", "ownership", "expertise", "communication", "writing"})
NEGATIVE_CATEGORIES = (
    "task_context",
    "org_fact",
    "other_people",
    "hypothetical",
    "request",
    "chitchat",
    "quoted",
)
DEFAULT_START = datetime(2026, 1, 5, 9, tzinfo=UTC)


@dataclass(frozen=True)
class Label:
    """What one user message is: `durable` (a self-statement worth a signal) or a negative category."""

    message_id: str
    category: str
    kind: str | None = None
    tier: str | None = None


@dataclass(frozen=True)
class DemoConversation:
    record: dict  # the shape `agent-signals load` takes
    labels: tuple[Label, ...]  # one per user message, in order


ROLES = (
    "data engineer",
    "staff data engineer",
    "analytics engineer",
    "backend developer",
    "site reliability engineer",
    "product manager",
    "engineering manager",
    "data scientist",
    "security engineer",
    "frontend developer",
    "machine learning engineer",
    "platform engineer",
    "technical writer",
    "solutions architect",
    "QA engineer",
)
TEAMS = (
    "payments",
    "growth",
    "search",
    "billing",
    "identity",
    "data platform",
    "mobile",
    "checkout",
    "infrastructure",
    "risk",
    "onboarding",
    "notifications",
    "pricing",
    "support tooling",
    "ads",
)
SYSTEMS = (
    "billing service",
    "nightly ETL",
    "fraud model",
    "search indexer",
    "checkout API",
    "feature store",
    "on-call runbooks",
    "design system",
    "metrics pipeline",
    "auth gateway",
    "data warehouse",
    "release tooling",
    "recommendation service",
    "event bus",
    "customer dashboard",
)
TECH = (
    "Kubernetes",
    "PostgreSQL",
    "Spark",
    "Terraform",
    "React",
    "Kafka",
    "dbt",
    "Airflow",
    "Rust",
    "Go",
    "TypeScript",
    "Snowflake",
    "Python",
    "Elasticsearch",
    "Redis",
)
LANGS = ("Python", "Go", "Java", "Scala", "TypeScript", "Rust", "SQL", "C++", "Kotlin", "Ruby")
HOBBIES = (
    "hiking",
    "rock climbing",
    "baking bread",
    "chess",
    "trail running",
    "woodworking",
    "birdwatching",
    "playing the piano",
    "cycling",
    "board games",
    "gardening",
    "photography",
)
CITIES = (
    "Denver",
    "Lisbon",
    "Toronto",
    "Berlin",
    "Melbourne",
    "Austin",
    "Dublin",
    "Nairobi",
    "Osaka",
    "Leeds",
)
PETS = ("Biscuit", "Miso", "Pepper", "Luna", "Otis", "Juniper")
NAMES = ("Priya", "Marco", "Aisha", "Tomasz", "Lena", "Kwame", "Sofia", "Dan", "Mei", "Omar")
DATABASES = ("PostgreSQL", "MySQL", "Snowflake", "BigQuery", "Redshift")
CLOUDS = ("AWS", "GCP", "Azure")

# Durable self-statements by kind. Placeholders: {role} {team} {system} {tech} {lang} {years} {hobby} {city} {pet}
DURABLE = {
    "role": (
        "I'm {a_role}.",
        "I work as {a_role}.",
        "For context, I'm {a_role}.",
        "I am {a_role}, so keep that in mind.",
    ),
    "team": (
        "I'm on the {team} team.",
        "I work on the {team} team.",
        "I'm part of the {team} team.",
    ),
    "ownership": (
        "I own the {system}.",
        "I'm responsible for the {system}.",
        "I maintain the {system}.",
    ),
    "expertise": (
        "I've been writing {lang} for {years} years.",
        "I'm an expert in {tech}.",
        "I specialise in {tech}.",
    ),
    "communication": (
        "I prefer short answers with bullet points.",
        "I prefer examples over long explanations.",
        "I like answers that get straight to the point.",
        "Please always show the code first and explain it after.",
    ),
    "writing": (
        "I write in British English, so I prefer British spelling.",
        "I prefer active voice in anything you draft for me.",
        "Please never use emojis in anything you write for me.",
        "I prefer plain language over jargon in documents.",
    ),
    "preference": (
        "I love {hobby}.",
        "I enjoy {hobby} on weekends.",
        "I really like {hobby}.",
    ),
    "personal": (
        "I live in {city}.",
        "I have two kids.",
        "I have a dog named {pet}.",
        "I'm vegetarian.",
        "I'm originally from {city}.",
    ),
}
# A durable statement buried in task context: the message is durable, only one clause of it is.
DURABLE_WITH_CONTEXT = (
    "{statement} Right now I'm chasing a bug in the {system2}.",
    "Quick one. {statement} Can you look at this stack trace?",
)
NEGATIVE = {
    "task_context": (
        "I'm debugging the {system2} today, it keeps timing out.",
        "Currently migrating the {system2} to {tech}.",
        "I need to finish the quarterly report by Friday.",
        "This week I'm working on a flaky test in the {system2}.",
        "I'm going to refactor the {system2} tomorrow.",
        "Just deployed the fix, watching the dashboards now.",
    ),
    "org_fact": (
        "We use {db} for everything here.",
        "Our company runs on {cloud}.",
        "The whole org moved to {tech} last year.",
        "Our deploys go out on Tuesdays.",
        "The company has about 400 engineers.",
    ),
    "other_people": (
        "My manager is {a_role2}.",
        "{name} is on the {team2} team.",
        "My colleague {name} owns the {system2}.",
        "{name} prefers long design docs.",
        "She's an expert in {tech}.",
    ),
    "hypothetical": (
        "If I were {a_role2}, I'd use {tech} for this.",
        "Suppose I owned the {system2}, what would you change first?",
        "Maybe I'll move to the {team2} team next year.",
        "If I had more time I would learn {lang}.",
    ),
    "request": (
        "Can you write a SQL query that counts daily active users?",
        "Please fix the typo in this paragraph.",
        "Give me three names for a new dashboard.",
        "Could you summarise this incident report in five lines?",
        "What's the difference between a left join and an inner join?",
    ),
    "chitchat": (
        "Thanks, that helps!",
        "Haha, fair enough.",
        "Good morning!",
        "Ok, makes sense.",
        "Perfect, thank you.",
    ),
    "quoted": (
        'The old ticket says "I am the owner of the {system2}" but that was the previous assignee.',
        '{name} wrote "I prefer tabs over spaces" in the style guide, is that still current?',
        "Someone pasted this in the channel:\n> I'm the tech lead for {team2}, ping me for reviews.",
    ),
}
ASSISTANT_SELF = (
    "As an AI assistant, I prefer to double-check queries before running them.",
    "I'm a language model, so I don't have access to your production database.",
    "I like to keep my answers concise. Here is the query.",
    "I am the workspace assistant; I can read the docs you share with me.",
)
ASSISTANT_REPLY = (
    "Sure, here is a first version.",
    "Got it. Let me know if you want more detail.",
    "Here is what I found.",
    "That makes sense. Anything else?",
    "Noted. Here is a draft.",
)
TOOL_OUTPUT = (
    '{{"rows": {n}, "elapsed_ms": {ms}}}',
    'ERROR: relation "events_{n}" does not exist',
    "200 OK: {n} items returned in {ms} ms",
)
SYSTEM_TEXT = "You are the workspace assistant. Answer questions about the team's data and code."
CHANNELS = ("web", "slack", "ide")


def generate(
    users: int,
    *,
    seed: int = 7,
    user_messages_per_user: int = 10,
    start: datetime = DEFAULT_START,
) -> Iterator[DemoConversation]:
    """Stream the conversations of users 0..users-1, user by user."""
    for index in range(users):
        yield from _user_conversations(index, seed, user_messages_per_user, start)


SHOWCASE_USER = "showcase"
# A hand-written user whose facts show what the default prompt adds to plain facts: a role that ended (with
# the day it ended) and a way of writing said to one of the product's agents only (scoped to that agent).
SHOWCASE = (
    (None, ("I'm a data engineer on the platform team.", "I was a team lead on payments until March 2025.")),
    ("writer", ("Always write to me in British English.",)),
)


def showcase(start: datetime = DEFAULT_START) -> list[DemoConversation]:
    """The showcase user's conversations (SHOWCASE): one with the workspace assistant, one with an agent."""
    out = []
    for number, (agent, texts) in enumerate(SHOWCASE, start=1):
        cid = f"c-{SHOWCASE_USER}-{number}"
        clock = start + timedelta(days=number)
        messages = [
            {"message_id": f"{cid}:{i:03d}", "role": "user", "content": text,
             "created_at": (clock + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ")}
            for i, text in enumerate(texts, start=1)
        ]  # fmt: skip
        record = {"conversation_id": cid, "user_id": SHOWCASE_USER, "channel": "web", "extract": True,
                  "messages": messages, **({"agent_id": agent} if agent else {})}  # fmt: skip
        labels = tuple(Label(m["message_id"], "durable") for m in messages)
        out.append(DemoConversation(record, labels))
    return out


def user_id(index: int) -> str:
    return f"u{index:06d}"


def _user_conversations(index: int, seed: int, per_user: int, start: datetime) -> Iterator[DemoConversation]:
    rng = random.Random(f"{seed}:{index}")
    persona = {
        "role": rng.choice(ROLES),
        "team": rng.choice(TEAMS),
        "system": rng.choice(SYSTEMS),
        "tech": rng.choice(TECH),
        "lang": rng.choice(LANGS),
        "years": rng.randint(2, 15),
        "hobby": rng.choice(HOBBIES),
        "city": rng.choice(CITIES),
        "pet": rng.choice(PETS),
    }
    # The user's durable facts: each kind at most once, so restatements reinforce instead of contradicting.
    facts = {kind: rng.choice(templates) for kind, templates in DURABLE.items()}
    plan = _message_plan(rng, per_user, list(facts))
    conversation_count = min(len(plan), rng.choice((2, 3, 3)))
    cuts = sorted(rng.sample(range(1, len(plan)), conversation_count - 1)) if conversation_count > 1 else []
    bounds = list(zip([0, *cuts], [*cuts, len(plan)], strict=True))

    uid = user_id(index)
    day = start + timedelta(days=index % 28, minutes=(index * 7) % 480)
    for number, (lo, hi) in enumerate(bounds, start=1):
        flagged = number == 1 or rng.random() >= 1 / 6
        cid = f"c{index:06d}-{number}"
        clock = day + timedelta(days=3 * (number - 1))
        messages: list[dict] = []
        labels: list[Label] = []

        def add(
            role: str, content: str, cid: str = cid, clock: datetime = clock, messages: list = messages
        ) -> str:
            mid = f"{cid}:{len(messages) + 1:03d}"
            created = clock + timedelta(minutes=len(messages))
            messages.append(
                {
                    "message_id": mid,
                    "role": role,
                    "content": content,
                    "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                }
            )
            return mid

        if rng.random() < 0.3:
            add("system", SYSTEM_TEXT)
        for category, kind in plan[lo:hi]:
            text = _user_text(rng, persona, facts, category, kind)
            mid = add("user", text)
            tier = ("core" if kind in CORE_KINDS else "contextual") if kind else None
            labels.append(Label(mid, category, kind, tier))
            if rng.random() < 0.2:
                add("tool", rng.choice(TOOL_OUTPUT).format(n=rng.randint(1, 999), ms=rng.randint(3, 900)))
            reply = rng.choice(ASSISTANT_SELF) if rng.random() < 0.25 else rng.choice(ASSISTANT_REPLY)
            add("assistant", reply)
        record = {
            "conversation_id": cid,
            "user_id": uid,
            "channel": rng.choice(CHANNELS),
            "extract": flagged,
            "messages": messages,
        }
        yield DemoConversation(record, tuple(labels))


def _message_plan(rng: random.Random, count: int, kinds: list[str]) -> list[tuple[str, str | None]]:
    """Which category (and kind, for durable ones) each of the user's messages is, in order."""
    durable = max(1, round(count * rng.uniform(0.3, 0.4)))
    chosen = rng.sample(kinds, min(durable, len(kinds)))
    # beyond one statement per kind, later messages restate an earlier fact (a reinforcement)
    chosen += [rng.choice(chosen) for _ in range(durable - len(chosen))]
    plan: list[tuple[str, str | None]] = [("durable", kind) for kind in chosen]
    plan += [(rng.choice(NEGATIVE_CATEGORIES), None) for _ in range(count - len(plan))]
    rng.shuffle(plan)
    return plan


def _user_text(
    rng: random.Random, persona: dict, facts: dict[str, str], category: str, kind: str | None
) -> str:
    values = {
        **persona,
        "system2": rng.choice(SYSTEMS),
        "team2": rng.choice(TEAMS),
        "a_role2": _article(rng.choice(ROLES)),
        "name": rng.choice(NAMES),
        "a_role": _article(persona["role"]),
        "db": rng.choice(DATABASES),
        "cloud": rng.choice(CLOUDS),
    }
    if category == "durable":
        assert kind is not None
        statement = facts[kind].format(**values)
        if rng.random() < 0.2:
            return rng.choice(DURABLE_WITH_CONTEXT).format(statement=statement, **values)
        return statement
    return rng.choice(NEGATIVE[category]).format(**values)


def _article(noun: str) -> str:
    return f"{'an' if noun[0].lower() in 'aeiou' else 'a'} {noun}"
