"""The run report: the markdown each flow run publishes as a Prefect artifact (the same figures are in
ops.runs for SQL)."""

from __future__ import annotations

import psycopg

from agent_signals.config import Settings
from agent_signals.store.ledger.batch_report import batches_out
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
        rows = conn.execute(query("report/run_actions_by_bucket"), {"run_id": summary["run_id"]}).fetchall()
        if rows:
            lines += ["", "## Changes by bucket", "", "| action | bucket | signals |", "|---|---|---:|"]
            lines += [f"| {action} | {bucket} | {count} |" for action, bucket, count in rows]
    if summary["skipped_users"]:
        lines += [
            "",
            "Users left for the next run: "
            + ", ".join(f"{k} {v}" for k, v in summary["skipped_users"].items()),
        ]
    by_mode = summary.get("by_mode") or {}
    if "batch" in by_mode or summary.get("batches"):
        lines += ["", "## Calls by mode", "", "| mode | calls | prompt tokens | completion tokens | cost (USD) |",
                  "|---|---:|---:|---:|---:|"]  # fmt: skip
        lines += [
            f"| {mode} | {f.get('calls', 0)} | {f.get('prompt_tokens', 0)} | {f.get('completion_tokens', 0)} | "
            f"{f.get('cost_usd', 0):.6f} |"
            for mode, f in by_mode.items()
        ]
        if summary.get("batches"):
            lines += ["", "Batches: " + ", ".join(f"{k} {v}" for k, v in summary["batches"].items())]
    if conn is not None:
        lines += batches_section(conn, settings)
    lines += ["", f"## Failures ({summary['failures']})", ""]
    failures = (
        conn.execute(query("report/run_failures"), {"run_id": summary["run_id"]}).fetchall() if conn else []
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


def batches_section(conn: psycopg.Connection, settings: Settings) -> list[str]:
    """The provider batches not collected yet, with their age; those out longer than
    AGENT_SIGNALS_BATCH_WARN_AGE_S marked (the run logged a warning for each)."""
    rows = batches_out(conn)
    if not rows:
        return []
    lines = ["", f"## Batches in flight ({len(rows)})", "",
             "| batch | provider id | status | provider says | requests | users waiting | age (h) |",
             "|---|---|---|---|---:|---:|---:|"]  # fmt: skip
    for b in rows:
        old = " **too old**" if b.too_old(settings) else ""
        lines.append(f"| {b.batch_key} | {b.provider_batch_id} | {b.status} | {b.provider_status} | {b.requests} | "
                     f"{b.users_waiting} | {b.age_s / 3600:.2f}{old} |")  # fmt: skip
    return lines


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")
