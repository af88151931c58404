// `mcp-host --help`: the usage of the whole CLI (the subcommands with their own options have a
// --help of their own in their files).

export const USAGE = `Usage:
  mcp-host list [--json] -- CMD [ARGS...]                 the server's tools (with their arguments),
                                                          resources, templates, prompts and instructions
  mcp-host call TOOL [--args JSON] [--json] [--task] -- CMD [ARGS...]
  mcp-host read URI [--json] -- CMD [ARGS...]
  mcp-host prompt NAME [--args JSON] [--json] -- CMD [ARGS...]
  mcp-host --config FILE                                  the servers a config file defines
  mcp-host report [--json] [--fail-on error|warning|info] -- CMD [ARGS...]
                                                          the server quality report (Markdown): tools,
                                                          tokens, schemas, names, descriptions, a grade;
                                                          --config FILE without --server: every server
                                                          of the file, duplicate names across them
                                                          (mcp-host report --help)
  mcp-host doctor [--config FILE] [--server NAME] [--json]
                                                          a checklist of what keeps a server from
                                                          starting, with a fix for each failed line;
                                                          every server of the file without --server
                                                          (also -- CMD, --url URL; mcp-host doctor --help)
  mcp-host search [QUERY] [--registry URL] [--json]
                                                          servers of an MCP registry (default the
                                                          official one; mcp-host search --help)
  mcp-host add NAME[@VERSION] [--registry URL] [--config FILE]
                                                          writes a registry server's entry into
                                                          mcp.json, version pinned, secrets as
                                                          \${input:} (mcp-host add --help)
  mcp-host list --registry NAME[@VERSION]                 tries a registry server without adding it;
                                                          a secret it needs (e.g. API_KEY) only from
                                                          $MCP_HOST_SECRET_API_KEY, set for the run
  mcp-host serve --config FILE [--server NAME]... [--port N] [--token T|--token-file F]
                                                          share the servers with other MCP clients over
                                                          loopback HTTP (mcp-host serve --help)
  mcp-host conformance SERVER_URL   (the client of the official MCP conformance suite)
  mcp-host --help

Instead of "-- CMD [ARGS...]":
  --config FILE --server NAME   a server of a VS Code mcp.json or an mcpServers file (stdio or http)
  --url URL                     a remote server (Streamable HTTP, falling back to HTTP+SSE)
Remote servers:
  --header "Name: value"        an HTTP header for every request (repeatable)
  --transport http|sse          http (default: Streamable HTTP, then HTTP+SSE) or sse (HTTP+SSE only)
  --no-token-store              keep OAuth tokens in memory only
  A server that needs OAuth sign-in gets a URL printed to open in a browser; tokens are kept in an
  owner-only file (MCP_HOST_TOKEN_FILE, default ~/.config/mcp-host/oauth-tokens.json).
Options:
  --timeout MS   timeout of every request (default 60000)
  --era auto|modern|legacy   the protocol era: auto (default) asks with server/discover and falls
                 back to initialize; modern (2026-07-28) or legacy (initialize) skip that probe.
                 A remote server found legacy is not asked again for a day (MCP_HOST_ERA_FILE,
                 default $XDG_CACHE_HOME or ~/.cache, then mcp-host/endpoint-eras.json; digests
                 only; 'off' for none, which also makes this run probe); doctor and report
                 always probe
  --verbose      show the server's stderr and its log messages (notifications/message), prefixed
                 with its name
  --log-level LEVEL   ask the server for log messages from LEVEL up (logging/setLevel: debug, info,
                 notice, warning, error, critical, alert, emergency) and show them on stderr
  --trace FILE   write every protocol message, both directions, to FILE as JSON Lines (the
                 traffic view's export format; secrets redacted)
  --args JSON    the tool's arguments, or the prompt's (a JSON object)
  --json         print the protocol result as JSON
  --task         run a tool that allows tasks as a task (one that requires them always is): its
                 status goes to stderr, Ctrl-C cancels it
Exit status: 0 ok; 1 the server answered with an error (a tool's isError, an unknown tool, prompt or
resource); 2 usage or config error; 3 the server failed (could not start, crashed, timed out).
list: 0 also when the server refuses some of its lists (each named on stderr and in --json "errors").
doctor: 0 no check failed (warnings allowed); 2 usage error; 3 a check failed for some server.`;
