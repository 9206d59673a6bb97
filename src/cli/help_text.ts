// The text of `harness --help`: every command, flag, permission flag and exit code of the
// command-line contract in DESIGN.md. Kept apart from the parser so each stays short.

/** Printed by `harness --help`. */
export const HELP = `harness: a terminal agent for local LLMs

Usage:
  harness [flags] [Deno permission flags]        interactive REPL
  harness -p "PROMPT" [flags]                    one-shot run, prints the final answer
  harness tool NAME 'JSON'                       run one tool without a model
  harness sessions [list|export ID|search TEXT|delete ID|import FILE|DIR]
                                                 (--limit N, list --all, delete --yes,
                                                 export --format md|jsonl --output FILE;
                                                 import: Claude Code, Codex, Gemini CLI,
                                                 opencode transcripts)
  harness policy explain TOOL 'JSON'             show which rule decides a call
  harness plugin new NAME                        write a plugin skeleton to ./plugins
  harness plugin trust [FILE...]                 trust ./plugins files as they are now
  harness acp [flags] [Deno permission flags]    serve an editor over the Agent Client Protocol
  harness index --allow-read=.                   build the code graph of this folder
  harness mcp add NAME -- COMMAND ARGS...        add a stdio MCP server (--url URL for HTTP)
  harness mcp list|remove NAME|import FILE       check, remove or import MCP servers
  harness agents [trust]                         list agent files found here (or trust the project's)
  harness skills [trust]                         list SKILL.md skills found here (or trust the project's)
  harness stats [--since WHEN] [--json]          usage per tool and model from the session log
  harness doctor [--json] [flags]                probe the model server: window, tool calls, speed

Flags:
  -p, --print PROMPT     run one prompt and exit ("-" reads it from stdin)
  --base-url URL         model server (default: the first local server found, Ollama first)
  --model NAME           model name (required if the server lists more than one)
  --api-key KEY          else $HARNESS_API_KEY / $OPENAI_API_KEY ($ANTHROPIC_API_KEY for anthropic)
  --provider NAME        openai | ollama | anthropic (default: ollama for an Ollama root URL,
                         anthropic for a URL ending in /v1/messages or api.anthropic.com)
  --max-iterations N     model turns per user message (default 10)
  --max-tool-calls N     tool calls run per model turn (default 15)
  --yes, -y              approve every call the sandbox allows (policy denies still apply)
  --policies FILE        extra policy file (after ~/.config/harness/policies.jsonc)
  --plugins DIR          extra plugin folder (repeatable)
  --resume [ID]          resume a session (pick from a list without ID)
  --continue, -c         resume the latest session in this folder
  --no-session           record nothing (no session log)
  --output-format F      text | json | stream-json (with -p; default text)
  --no-curator           read_file returns long files whole (no outline and sections)
  --num-ctx N            context length to request from Ollama (default 8192)
  --context-length N     the model's context window in tokens (default: what the server states)
  --first-byte-timeout S seconds to wait for the model's first output (default 600)
  --stall-timeout S      seconds of silence allowed once the answer streams (default 120)
  --tool-call-ids MODE   native | short (9 alphanumerics, for Mistral on vLLM)
  --text-tool-calls auto|off
                         parse tool calls that a model wrote as text (default auto);
                         --no-text-tool-calls is the same as off
  --model-file PATH      run a GGUF model in-process (node-llama-cpp); also an hf: reference
                         or a URL, downloaded once into the cache folder
  --ctx-size N           context size for --model-file (default: model's, at most 8192)
  --gpu MODE             auto | off (with --model-file; default auto)
  --command-sandbox MODE auto | required | off: run_command's OS sandbox (bubblewrap on Linux,
                         sandbox-exec on macOS); auto confines when it can (default)
  --writable-git         let commands write .git (commit, branch); it stays read-only by
                         default, as hooks and config there run outside harness
  -V, --version          print the version
  -h, --help             print this help

Deno permission flags (the sandbox every tool runs in; nothing is granted by default):
  --allow-read[=PATHS] -R   --allow-write[=PATHS] -W   --allow-net[=HOSTS] -N
  --allow-run[=PROGRAMS]    --allow-env[=VARS] -E      --allow-sys[=APIS] -S
  --allow-ffi[=PATHS]       -A, --allow-all            --deny-<name>[=...]

Exit codes: 0 answered, 1 runtime error, 2 usage or config error, 3 stopped by a limit,
130 interrupted`;
