"""The commands that measure prompts and models: `eval` (precision and recall against a dataset's gold
facts, in a scratch database) and `replay` (a candidate prompt over history, without writing)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import click
from pydantic import SecretStr

from agent_signals import setting_checks
from agent_signals.cli.describe import scope, validity
from agent_signals.cli.options import MOMENT, settings_of, utc
from agent_signals.config import Settings
from agent_signals.errors import AgentSignalsError


@click.command("eval")
@click.option("--dataset", "dataset_path", required=True, type=click.Path(path_type=Path, dir_okay=False),
              help="Conversations with gold facts (the shape of msc-valid.json, or eval/workplace-signals.json).")  # fmt: skip
@click.option("--model", default=None, help="litellm model to evaluate (default: AGENT_SIGNALS_MODEL).")
@click.option("--limit-users", type=click.IntRange(min=1), default=None, help="Only the first N users.")
@click.option("--prompt-version", "versions", multiple=True,
              help="Prompt version to score (repeat to compare versions side by side on the same users; "
                   "default: AGENT_SIGNALS_PROMPT_VERSION).")  # fmt: skip
@click.option("--record", "record_dir", default=None, type=click.Path(path_type=Path, file_okay=False),
              help="Keep the prompts the run sends under DIR/<version>/ for a model to answer (the run answers "
                   "each with nothing found).")  # fmt: skip
@click.option(
    "--replay",
    "replay_dir",
    default=None,
    type=click.Path(path_type=Path, file_okay=False),
    help="Answer each prompt with the answer recorded under DIR/<version>/, over HTTP through litellm.",
)
@click.pass_context
def eval_cmd(ctx: click.Context, dataset_path: Path, model: str | None, limit_users: int | None,
             versions: tuple[str, ...], record_dir: Path | None, replay_dir: Path | None) -> None:  # fmt: skip
    """Precision and recall of the stored signals against a dataset's gold facts, from a real run in a
    scratch database (never the project's signals). Ends with one JSON line per prompt version."""
    import json

    from agent_signals.evaluation import evaluate

    settings = settings_of(ctx)
    if model:  # checked as AGENT_SIGNALS_MODEL is when the settings load
        setting_checks.model("--model", model, settings.model.api_key)
    versions = tuple(_version(settings, version) for version in versions)
    if record_dir and replay_dir:
        raise AgentSignalsError("--record and --replay together", hint="record first, answer, then replay")
    if (record_dir or replay_dir) and model:
        raise AgentSignalsError(
            "--model with --record or --replay", hint="a recorded run's model is the recording"
        )
    try:
        raw = json.loads(dataset_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise AgentSignalsError(
            f"cannot read {dataset_path}: {exc}", hint="pass a JSON dataset file"
        ) from exc
    dataset = evaluate.read_dataset(raw, str(dataset_path), limit_users)
    if not dataset.users:
        raise AgentSignalsError(
            f"{dataset_path}: no users to evaluate", hint="check --limit-users and the file"
        )
    results = []
    for version in versions or (settings.model.prompt_version,):
        scored = settings.replace(prompt_version=version)
        if record_dir or replay_dir:
            report, summary, used = _recorded(scored, dataset, record_dir, replay_dir)
        else:
            report, summary = evaluate.run(scored, dataset, model)
            used = model or settings.model.name
        result = {
            "dataset": str(dataset_path), "model": used, "prompt_version": scored.model.prompt_version,
            "users": len(dataset.users),
            **report.as_dict(), "llm_calls": summary["llm_calls"], "prompt_tokens": summary["prompt_tokens"],
            "completion_tokens": summary["completion_tokens"], "cost_usd": summary["cost_usd"],
            "failures": summary.get("failures", 0),
        }  # fmt: skip
        if record_dir:
            continue
        print_report(result, report)
        results.append(result)
    if len(results) > 1:
        print_comparison(results)
    for result in results:
        click.echo(json.dumps(result))
    failed = [r for r in results if r["failures"]]
    if failed:  # a score of users the model never answered is no score
        raise AgentSignalsError(
            "; ".join(
                f"{r['failures']} of {r['users']} users failed under {r['prompt_version']}" for r in failed
            )
            + ": the figures above leave them out",
            hint="the run's log above says why (a missing or refused key, a model that is down): fix it and run "
            "eval again",
        )


def _version(settings: Settings, version: str) -> str:
    """A --prompt-version of eval or replay, checked as AGENT_SIGNALS_PROMPT_VERSION is."""
    try:
        Settings.model_validate({"prompt_version": version})
    except ValueError:
        raise click.BadParameter(
            f"{version!r} is not a version, e.g. v4", param_hint="--prompt-version"
        ) from None
    setting_checks.prompt_version("--prompt-version", settings.prompts_dir, version)
    return version


def _recorded(settings: Settings, dataset, record_dir: Path | None, replay_dir: Path | None):
    """A run answered by the recorded model of DIR/<version>/ (replay), or recording its prompts there."""
    from agent_signals.evaluation import evaluate
    from agent_signals.evaluation.recorded import API_KEY, MODEL, RecordingError, recorded_model

    root = (record_dir or replay_dir) / settings.model.prompt_version
    with recorded_model(root, replay=replay_dir is not None) as (recordings, server):
        pointed = settings.replace(model=MODEL, api_base=server.url, api_key=SecretStr(API_KEY))
        try:
            report, summary = evaluate.run(pointed, dataset)
        except AgentSignalsError:  # a prompt with no answer fails the run as a refused request does
            if not recordings.missing:
                raise
    if record_dir:
        unanswered = recordings.unanswered()
        click.echo(f"recorded {len(set(recordings.asked))} prompts of {settings.model.prompt_version} in {root} "
                   f"({len(unanswered)} without an answer: write each as <key>.answer.json, then record again "
                   "until none is new)")  # fmt: skip
    elif recordings.missing:
        raise RecordingError(
            f"{len(set(recordings.missing))} of the {len(set(recordings.asked))} prompts of "
            f"{settings.model.prompt_version} have no recorded answer in {root} (the prompt's wording or the users "
            "changed since they were recorded)",
            hint="record them again with `eval --record DIR` and answer the new prompts",
        )
    return report, summary, f"recorded ({root})"


def print_report(result: dict, report) -> None:
    click.echo(
        f"{result['dataset']}: {result['users']} users, model {result['model']}, prompt {result['prompt_version']}"
    )
    click.echo(f"  precision {result['precision']:.3f}  recall {result['recall']:.3f}  F1 {result['f1']:.3f}  "
               f"({report.correct}/{report.signals} signals right, {report.found_facts}/{report.expected_facts} facts found)")  # fmt: skip
    click.echo(f"  recall with one fact per signal (the matcher before consolidated signals were credited): "
               f"{result['recall_single_match']:.3f} ({report.found_single}/{report.expected_facts})")  # fmt: skip
    click.echo(f"  wrong speaker {report.wrong_speaker} ({result['wrong_speaker_rate']:.1%})  "
               f"negatives stored: {result['negative_hits'] or 'none'}  tier accuracy {result['tier_accuracy']}")  # fmt: skip
    click.echo(f"  scope accuracy {ratio(report.scope['all'])}  (profile facts {ratio(report.scope['profile'])}, "
               f"agent facts {ratio(report.scope['agent'])})")  # fmt: skip
    click.echo(f"  validity accuracy {ratio(report.validity['all'])}  (with an end {ratio(report.validity['valid_to'])}, "
               f"still holding {ratio(report.validity['no_valid_to'])}, "
               f"with a start {ratio(report.validity['valid_from'])})")  # fmt: skip
    click.echo(f"  model calls {result['llm_calls']}, prompt tokens {result['prompt_tokens']}, "
               f"completion tokens {result['completion_tokens']}, cost ${result['cost_usd']:.4f}, "
               f"failed users {result['failures']}")  # fmt: skip
    # two tables: a fact may be found by a signal of another kind, so a kind's recall is not its signals'
    click.echo("  stored signals by the kind they were stored with (precision: matching an expected fact)")
    click.echo(f"  {'stored kind':<22}{'signals':>8}{'right':>8}{'precision':>11}")
    for kind, row in result["by_signal_kind"].items():
        click.echo(f"  {kind:<22}{row['signals']:>8}{row['correct']:>8}{row['precision']:>11.3f}")
    click.echo("  expected facts by their gold kind, kind_hint (recall: found by a signal of any kind)")
    click.echo(f"  {'gold kind':<22}{'facts':>8}{'found':>8}{'recall':>11}")
    for kind, row in result["by_fact_kind"].items():
        click.echo(f"  {kind:<22}{row['expected_facts']:>8}{row['found_facts']:>8}{row['recall']:>11.3f}")


def print_comparison(results: list[dict]) -> None:
    """The versions side by side, on the same users."""
    click.echo(f"  {'prompt':<8}{'signals':>8}{'precision':>11}{'recall':>8}{'F1':>7}{'scope':>7}{'validity':>9}"
               f"{'calls':>7}{'failed':>7}")  # fmt: skip
    fmt = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    for r in results:
        click.echo(f"  {r['prompt_version']:<8}{r['signals']:>8}{r['precision']:>11.3f}{r['recall']:>8.3f}"
                   f"{r['f1']:>7.3f}{fmt(r['scope_accuracy']):>7}{fmt(r['validity_accuracy']):>9}"
                   f"{r['llm_calls']:>7}{r['failures']:>7}")  # fmt: skip


def ratio(tally) -> str:
    """A tally of evaluation.accuracy as the table prints it: `0.750 (3/4)`, `- (0/0)` when nothing was
    checked."""
    accuracy = tally.accuracy
    return f"{'-' if accuracy is None else f'{accuracy:.3f}'} ({tally.right}/{tally.checked})"


@click.command("replay")
@click.option("--prompt-version", required=True, help="Candidate prompt, e.g. v2 (prompts/extract/v2.*).")
@click.option(
    "--since",
    required=True,
    type=MOMENT,
    help="Start of the window of history (UTC unless an offset is given).",
)
@click.option("--until", default=None, type=MOMENT, help="End of the window, excluded (default: now).")
@click.option("--user", "users", multiple=True, help="Only this user (repeat for several).")
@click.option("--show", default=5, show_default=True, help="Examples listed per kind of difference.")
@click.pass_context
def replay_cmd(ctx: click.Context, prompt_version: str, since: datetime, until: datetime | None,
               users: tuple[str, ...], show: int) -> None:  # fmt: skip
    """Run a candidate prompt over historical messages WITHOUT writing, and print how its signals differ
    from the stored ones (would add, drop, change, re-tier, re-scope, change validity), with model calls and
    cost."""
    import json

    settings = settings_of(ctx)
    candidate = settings.replace(prompt_version=_version(settings, prompt_version))
    # the pipeline (litellm among it) only once the arguments are known to be good
    from agent_signals.core import windows
    from agent_signals.evaluation.replay import replay
    from agent_signals.store.schema.migrate import check_current
    from agent_signals.store.source import Window

    since, until = utc(since), utc(until or datetime.now(UTC))
    windows.check_window(since, until)
    from agent_signals.store import database

    with database.session(settings) as conn:
        check_current(conn, settings)
    window = Window(until=until, since=since, users=tuple(users) or None, ignore_watermarks=True)
    diff, usage = asyncio.run(replay(candidate, window))
    if usage["users"] == 0:
        raise AgentSignalsError(
            f"no flagged user messages between {since.isoformat()} and {until.isoformat()}"
            + (f" for {', '.join(users)}" if users else ""),
            hint="check the window and the user ids",
        )
    click.echo(f"replay of {usage['prompt_version']} over {usage['users']} users, {usage['messages']} messages "
               f"(nothing written)")  # fmt: skip
    click.echo(f"  would add {len(diff.add)}, drop {len(diff.drop)}, change {len(diff.change)}, "
               f"re-tier {len(diff.retier)}, re-scope {len(diff.rescope)}, change validity {len(diff.revalidity)}; "
               f"unchanged {diff.unchanged}")  # fmt: skip
    click.echo(f"  model calls {usage['llm_calls']}, prompt tokens {usage['prompt_tokens']}, "
               f"completion tokens {usage['completion_tokens']}, cost ${usage['cost_usd']:.4f}, "
               f"failures {usage['failures']}")  # fmt: skip
    for c in diff.add[:show]:
        click.echo(f"  + {c.user_id}: {c.content} [{c.tier}/{c.kind}]")
    for s in diff.drop[:show]:
        click.echo(f"  - {s.user_id}: {s.content} [{s.tier}/{s.kind}]")
    for s, c in diff.change[:show]:
        click.echo(f"  ~ {s.user_id}: {s.content} -> {c.content}")
    for s, c in diff.retier[:show]:
        click.echo(f"  ^ {s.user_id}: {s.content} [{s.tier} -> {c.tier}]")
    for s, c in diff.rescope[:show]:
        click.echo(f"  @ {s.user_id}: {s.content} [{scope(s)} -> {scope(c)}]")
    for s, c in diff.revalidity[:show]:
        click.echo(f"  = {s.user_id}: {s.content} [{validity(s)} -> {validity(c)}]")
    click.echo(json.dumps({**usage, "add": len(diff.add), "drop": len(diff.drop), "change": len(diff.change),
                           "retier": len(diff.retier), "rescope": len(diff.rescope),
                           "revalidity": len(diff.revalidity), "unchanged": diff.unchanged}))  # fmt: skip
    if usage["failures"]:  # a difference that leaves users out is no difference
        raise AgentSignalsError(
            f"{usage['failures']} of {usage['users']} users failed under {prompt_version}: the differences "
            "above leave them out",
            hint="the log above says why (a model that is down, an answer that cannot be read): fix it and "
            "replay again",
        )
