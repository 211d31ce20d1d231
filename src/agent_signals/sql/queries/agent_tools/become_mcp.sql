-- The session becomes the MCP server's role (m028): the context views and the functions of schema mcp,
-- nothing else. Its login role must be a member of agent_signals_mcp.
set role agent_signals_mcp
