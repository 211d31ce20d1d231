"""What agents reach through the MCP server (agent_tools.py): the calls of the functions of schema mcp, as the
least-privileged role agent_signals_mcp."""
