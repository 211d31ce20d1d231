"""Errors a person can act on: each says what went wrong and how to fix it."""

from __future__ import annotations


class AgentSignalsError(Exception):
    """Base of every error the CLI prints as one line (plus a hint) instead of a traceback, then exits with
    `exit_code`."""

    exit_code = 1

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class ConfigurationError(AgentSignalsError):
    """The configuration cannot work (a setting, a model, its key): nothing a retry or the next user can fix.
    Exit code 2, as for a wrong argument."""

    exit_code = 2


class SettingsError(ConfigurationError):
    """A setting in the environment has a value it cannot take."""


class DatabaseUnavailable(AgentSignalsError):
    """The server cannot be reached or refused the connection."""


class SchemaError(AgentSignalsError):
    """The database schema is missing, newer than this code, or was edited after it was applied."""


class LoadError(AgentSignalsError):
    """A conversations file was refused; nothing of it was loaded."""


class UnknownUser(AgentSignalsError):
    """A command named a user that has no conversations and no signals."""
