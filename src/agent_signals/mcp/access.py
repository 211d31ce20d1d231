"""Who may call the MCP server over HTTP: bearer tokens, each reaching every user and agent or limited to an
allow-list of users and/or agents. AGENT_SIGNALS_MCP_TOKEN is one token that reaches everyone;
AGENT_SIGNALS_MCP_TOKENS_FILE a TOML file of limited ones (docs/agents.md, "Tokens"):

    [[tokens]]
    name = "support-bot"                  # named in logs and errors, never the token
    sha256 = "9f86d081884c7d65..."        # the token's SHA-256 (hex); or `token = "..."` in clear
    users = ["u000001", "u000002"]        # absent: every user
    agents = ["support"]                  # absent: every agent and the profile

A presented token is compared with every known one in constant time (hmac.compare_digest of SHA-256
digests), so neither which token matched nor how much of one did shows in the time of an answer."""

from __future__ import annotations

import hashlib
import hmac
import tomllib
from dataclasses import dataclass
from pathlib import Path

from agent_signals.config import Settings, variable_of
from agent_signals.errors import AgentSignalsError, ConfigurationError

MIN_TOKEN_CHARS = 16


class AccessDenied(AgentSignalsError):
    """A caller asked for a user or an agent its token does not reach."""


@dataclass(frozen=True)
class Grant:
    """What one token reaches: None for users or agents is every one."""

    name: str
    users: frozenset[str] | None = None
    agents: frozenset[str] | None = None

    def check(self, user_id: str, agent_id: str | None) -> None:
        """Refuse a user or an agent out of reach. A token limited to agents reaches only their blocks and
        signals: it names one of its agents on every call (the profile alone is out of its reach)."""
        self.check_user(user_id)
        if self.agents is not None and agent_id not in self.agents:
            named = "no agent" if agent_id is None else f"agent {agent_id!r}"
            raise AccessDenied(
                f"token {self.name!r} may not act for {named}",
                hint=f"name one of its agents in agent_id: {', '.join(sorted(self.agents))}",
            )

    def check_user(self, user_id: str) -> None:
        if self.users is not None and user_id not in self.users:
            raise AccessDenied(
                f"token {self.name!r} may not reach user {user_id!r}",
                hint="ask the server's operator to add the user to this token's `users`",
            )

    @property
    def agent_list(self) -> list[str] | None:
        return None if self.agents is None else sorted(self.agents)


EVERYONE = Grant("stdio")  # the local process that started the server over stdio reaches everyone


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


@dataclass(frozen=True)
class Tokens:
    """The known tokens, as (SHA-256 digest, grant)."""

    known: tuple[tuple[bytes, Grant], ...]

    def grant(self, presented: str | None) -> Grant | None:
        """The grant of the token presented, or None. Every known token is compared, whatever matched."""
        if not presented:
            return None
        digest = _digest(presented)
        found = None
        for known, grant in self.known:
            if hmac.compare_digest(digest, known) and found is None:
                found = grant
        return found


def load_tokens(settings: Settings) -> Tokens:
    """The tokens of AGENT_SIGNALS_MCP_TOKEN and AGENT_SIGNALS_MCP_TOKENS_FILE; a ConfigurationError when there
    is none (HTTP without a token is refused) or the file is wrong."""
    known: list[tuple[bytes, Grant]] = []
    if settings.mcp.token is not None and settings.mcp.token.get_secret_value():  # set but empty: unset
        token = settings.mcp.token.get_secret_value()
        _long_enough(token, variable_of("mcp", "token"))
        known.append((_digest(token), Grant("AGENT_SIGNALS_MCP_TOKEN")))
    if settings.mcp.tokens_file is not None:
        known += _read_file(settings.mcp.tokens_file)
    if not known:
        raise ConfigurationError(
            "agent-signals mcp --http needs a bearer token",
            hint=f"set {variable_of('mcp', 'token')} (e.g. to `python -c 'import secrets; "
            f"print(secrets.token_urlsafe(32))'`) or {variable_of('mcp', 'tokens_file')} (docs/agents.md)",
        )
    return Tokens(tuple(known))


def _long_enough(token: str, where: str) -> None:
    if len(token.strip()) < MIN_TOKEN_CHARS:
        raise ConfigurationError(
            f"{where}: a token needs at least {MIN_TOKEN_CHARS} characters",
            hint="use a random one: python -c 'import secrets; print(secrets.token_urlsafe(32))'",
        )


def _read_file(path: Path) -> list[tuple[bytes, Grant]]:
    where = variable_of("mcp", "tokens_file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigurationError(
            f"{where}: cannot read {path}: {exc.strerror}", hint="check the path"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(
            f"{where}: {path} is not TOML: {exc}", hint="see docs/agents.md, Tokens"
        ) from None
    entries = data.get("tokens")
    if not isinstance(entries, list) or not entries or set(data) - {"tokens"}:
        raise ConfigurationError(
            f"{where}: {path} must hold only [[tokens]] tables, at least one",
            hint="see docs/agents.md, Tokens",
        )
    found: list[tuple[bytes, Grant]] = []
    names: set[str] = set()
    for i, entry in enumerate(entries):
        at = f"{where}: {path}, tokens[{i}]"
        unknown = set(entry) - {"name", "token", "sha256", "users", "agents"}
        if unknown:
            raise ConfigurationError(f"{at}: unknown keys {', '.join(sorted(unknown))}",
                                     hint="a token has name, token or sha256, users, agents")  # fmt: skip
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip() or name in names:
            raise ConfigurationError(f"{at}: each token needs a name of its own", hint='name = "support-bot"')
        names.add(name)
        if ("token" in entry) == ("sha256" in entry):
            raise ConfigurationError(f"{at} ({name}): give one of token or sha256",
                                     hint="sha256 = the hex SHA-256 of the token, so the file holds no secret")  # fmt: skip
        if "token" in entry:
            if not isinstance(entry["token"], str):
                raise ConfigurationError(f"{at} ({name}): token must be a string")
            _long_enough(entry["token"], f"{at} ({name})")
            digest = _digest(entry["token"])
        else:
            try:
                digest = bytes.fromhex(entry["sha256"])
            except (TypeError, ValueError):
                digest = b""
            if len(digest) != hashlib.sha256().digest_size:
                raise ConfigurationError(f"{at} ({name}): sha256 must be 64 hex digits",
                                         hint="printf %s TOKEN | sha256sum")  # fmt: skip
        found.append((digest, Grant(name, _names(entry, "users", at), _names(entry, "agents", at))))
    return found


def _names(entry: dict, key: str, at: str) -> frozenset[str] | None:
    if key not in entry:
        return None
    value = entry[key]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigurationError(f"{at}: {key} must be a non-empty list of ids",
                                 hint=f"leave {key} out to reach every one")  # fmt: skip
    return frozenset(value)
