"""What the terminal shows of a flow run (flows/foreground.py runs it, explained errors printed once):
SIGINT/SIGTERM ending the process in one line, the run's summary, and the exit of a run in which every user
failed."""

from __future__ import annotations

import click

from agent_signals.errors import AgentSignalsError


def interrupted(signum: int, summary: dict | None) -> None:
    """The run was interrupted and its ledger row written: say so in one line and end the process now
    (Prefect's temporary server got the signal too; waiting on it would only print tracebacks)."""
    from prefect.server.api.server import SubprocessASGIServer

    from agent_signals.stages.run.interrupts import exit_process

    # the temporary server of this process, if any is still running
    exit_process(signum, summary, before_exit=SubprocessASGIServer().stop)


def fail_if_nothing_worked(summary: dict) -> None:
    """A run in which every user it tried failed did nothing: say so, and exit non-zero."""
    if summary["users"] and summary["failures"] >= summary["users"]:
        raise AgentSignalsError(
            f"all {summary['users']} user(s) of run {summary['run_id']} failed",
            hint="the reasons are in ops.failures (select * from ops.failures where run_id = "
            f"'{summary['run_id']}'); the users stay pending and the next run retries them",
        )


def print_summary(summary: dict, seconds: float) -> None:
    actions = ", ".join(f"{k} {v}" for k, v in summary["actions"].items()) or "none"
    purposes = ", ".join(f"{k} {v}" for k, v in summary["llm_calls_by_purpose"].items())
    click.echo(
        f"\n{_run_name(summary)}: {summary['status']} in {seconds:.1f}s\n"
        f"  users {summary['users']}, conversations {summary['conversations']}, messages {summary['messages']}\n"
        f"  actions: {actions}\n"
        f"  llm calls {summary['llm_calls']}{f' ({purposes})' if purposes else ''}"
        f"{f', answers as {mode}' if (mode := summary.get('answer_mode')) else ''}, "
        f"prompt tokens {summary['prompt_tokens']}"
        + (f" ({summary['cached_prompt_tokens']} cached)" if summary.get("cached_prompt_tokens") else "")
        + f", completion tokens {summary['completion_tokens']}, cost ${summary['cost_usd']:.4f}\n"
        f"  failures {summary['failures']}"
        + (
            "\n  batches: " + ", ".join(f"{k} {v}" for k, v in summary["batches"].items())
            if summary.get("batches")
            else ""
        )
        + (
            "\n  left for the next run: " + ", ".join(f"{k} {v}" for k, v in summary["skipped_users"].items())
            if summary.get("skipped_users")
            else ""
        )
    )


def _run_name(summary: dict) -> str:
    """How the summary names its run: a dry run has no row in ops.runs, so no run id."""
    if summary.get("dry_run"):
        return f"dry run ({summary['kind']}, nothing written)"
    return f"run {summary['run_id']} ({summary['kind']})"
