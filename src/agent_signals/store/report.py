"""The run report: the markdown each flow run publishes as a Prefect artifact (the same figures are in
ops.runs for SQL)."""

from __future__ import annotations

import psycopg

from agent_signals.config import Settings
from agent_signals.store.sqlfiles import query


def run_markdown(conn: psycopg.Connection | None, settings: Settings, summary: dict) -> str:
    """Counts by action and bucket, model usage, failures with reasons, the slowest users."""
    lines = [
        f"# {summary['kind']} dry run (nothing written): {summary['status']}"
        if summary.get("dry_run")  # no row in ops.runs: no run id
        else f"# {summary['kind']} run `{summary['run_id']}`: {summary['status']}",
        "",
        f"{summary['users']} users, {summary['conversations']} conversations, {summary['messages']} messages."
        + (f" Answers asked as {summary['answer_mode']}." if summary.get("answer_mode") else ""),
        "",
        "| LLM calls | by purpose | prompt tokens | of which cached | completion tokens | embedding calls "
        "| cost (USD) |",
        "|---:|---|---:|---:|---:|---:|---:|",
        f"| {summary['llm_calls']} | "
        + (", ".join(f"{k} {v}" for k, v in summary["llm_calls_by_purpose"].items()) or "-")
        + f" | {summary['prompt_tokens']} | {summary['cached_prompt_tokens']} | {summary['completion_tokens']} | "
        f"{summary['embedding_calls']} | {summary['cost_usd']:.6f} |",
        "",
        "## Actions",
        "",
        "| action | count |",
        "|---|---:|",
        *[f"| {action} | {count} |" for action, count in summary["actions"].items()],
    ]
    if conn is not None:
        rows = conn.execute(
            query(settings, "run_actions_by_bucket"), {"run_id": summary["run_id"]}
        ).fetchall()
        if rows:
            lines += ["", "## Changes by bucket", "", "| action | bucket | signals |", "|---|---|---:|"]
            lines += [f"| {action} | {bucket} | {count} |" for action, bucket, count in rows]
    if summary["skipped_users"]:
        lines += [
            "",
            "Users left for the next run: "
            + ", ".join(f"{k} {v}" for k, v in summary["skipped_users"].items()),
        ]
    lines += ["", f"## Failures ({summary['failures']})", ""]
    failures = (
        conn.execute(query(settings, "run_failures"), {"run_id": summary["run_id"]}).fetchall()
        if conn
        else []
    )
    if failures:
        lines += ["| user | stage | kind | message |", "|---|---|---|---|"]
        lines += [f"| {u} | {stage} | {kind} | {_cell(message)} |" for u, stage, kind, message in failures]
    else:
        lines.append("none")
    if summary.get("stage_seconds"):
        lines += ["", "## Time by stage", "", "| stage | seconds |", "|---|---:|"]
        lines += [f"| {name} | {seconds:.3f} |" for name, seconds in summary["stage_seconds"].items()]
    if summary["slowest_users"]:
        lines += ["", "## Slowest users", "", "| user | seconds |", "|---|---:|"]
        lines += [f"| {user} | {seconds:.3f} |" for user, seconds in summary["slowest_users"]]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")
