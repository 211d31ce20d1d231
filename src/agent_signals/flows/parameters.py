"""The parameters every flow takes from its caller and never from a deployment. `settings`: the run's Settings, passed by its caller (the CLI, eval,
tests, benchmarks). Unset (a deployment's flow run, started by Prefect with the deployment's parameters),
the flow builds them from the environment once, as it starts. The parameter is kept out of the
deployments' parameter schema (Prefect's UI offers no settings form), and Prefect stores it among the flow
run's parameters without the secrets (config.Settings leaves them out of every serialised form).
`listeners`: what the caller hears of the run in its own process (stages/run/context.py's RunListeners: the
CLI's progress bar and interrupt handling), kept out of the schema too. A deployment's flow run, which has
its process to itself, stops on SIGINT and SIGTERM as the CLI's runs do (listeners_or_own_process)."""

from __future__ import annotations

from pydantic.json_schema import SkipJsonSchema

from agent_signals.config import Settings, load_settings
from agent_signals.stages.run import interrupts
from agent_signals.stages.run.context import RunListeners

SettingsParameter = SkipJsonSchema[Settings | None]
ListenersParameter = SkipJsonSchema[RunListeners | None]


def settings_or_environment(settings: Settings | None) -> Settings:
    """The settings passed, else the environment's (a bad value: one SettingsError naming its variable)."""
    return settings if settings is not None else load_settings()


def listeners_or_own_process(listeners: RunListeners | None) -> RunListeners | None:
    """The listeners passed (the CLI's), else, in a deployment's flow run (its own process, started by
    `serve` or a worker), the interrupt handling of interrupts.exit_process: SIGINT or SIGTERM (Ctrl-C on
    serve, serve stopping, Prefect cancelling the flow run) leaves an `interrupted` row, as in the CLI. A
    flow called in-process (tests, eval) keeps its caller's signal handling."""
    if listeners is not None:
        return listeners
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    if context is None or context.flow_run is None or context.flow_run.deployment_id is None:
        return None
    return RunListeners(interrupted=interrupts.exit_process)
