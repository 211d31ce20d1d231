"""`agent-signals mcp`: agents read a user's context, search their signals, remember and forget through the
Model Context Protocol (docs/agents.md). `tools.py` holds what each tool does (plain functions on a
connection that became agent_signals_mcp), `access.py` who may call them over HTTP (bearer tokens, each
limited to some users or agents), `server.py` the thin adapter onto the MCP SDK and its two transports."""
