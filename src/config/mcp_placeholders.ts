// Placeholders in MCP server entries, as the agents that wrote them use them: `${VAR}` and
// `${VAR:-default}` (Claude Code), `${env:VAR}` (VS Code, Cursor), `{env:VAR}` (opencode),
// `${input:id}` (VS Code asks the user), `${CLAUDE_PLUGIN_ROOT}`, `${workspaceFolder}`...
// Importing a file resolves the folders it means and turns every variable into `${VAR}`;
// starting a server fills `${VAR}` and `${VAR:-default}` from harness's environment. A
// placeholder that cannot be filled is named, and the server does not start: a literal `${...}`
// never reaches a server. Pure.

/** Where a variable is used in an entry: `args[2]`, `env.TOKEN`, `headers.Authorization`. */
export interface MissingVariable {
  variable: string;
  where: string;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
/** Any placeholder left after filling, known or not. */
const ANY_PLACEHOLDER = /\$\{[^}]*\}|\{env:[^}]*\}/;
/** The parts of an entry that placeholders are filled in. */
const FILLED_KEYS = ["command", "args", "env", "cwd", "url", "headers"] as const;

/** Calls `visit` on each string of the filled parts of an entry, replacing it by the result. */
function mapStrings(
  entry: Record<string, unknown>,
  visit: (text: string, where: string) => string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...entry };
  for (const key of FILLED_KEYS) {
    const value = entry[key];
    if (typeof value === "string") out[key] = visit(value, key);
    else if (Array.isArray(value)) {
      out[key] = value.map((item, i) =>
        typeof item === "string" ? visit(item, `${key}[${i}]`) : item
      );
    } else if (value !== null && typeof value === "object") {
      out[key] = Object.fromEntries(
        Object.entries(value).map((
          [k, v],
        ) => [k, typeof v === "string" ? visit(v, `${key}.${k}`) : v]),
      );
    }
  }
  return out;
}

/**
 * Fills `${VAR}` and `${VAR:-default}` in a server entry from the environment (an empty
 * variable counts as unset, as in the shell's `:-`).
 *
 * @param entry The entry as configured.
 * @param env Looks a variable up.
 * @returns The filled entry, or every placeholder that cannot be filled and where.
 *
 * @example
 * ```ts
 * import { fillPlaceholders } from "./mcp_placeholders.ts";
 * const env = (name: string) => ({ TOKEN: "t" } as Record<string, string>)[name];
 * const filled = fillPlaceholders({ url: "https://x/mcp", headers: { A: "Bearer ${TOKEN}", B: "${LEVEL:-info}" } }, env);
 * if (!("entry" in filled) || JSON.stringify(filled.entry.headers) !== '{"A":"Bearer t","B":"info"}') throw new Error();
 * const missing = fillPlaceholders({ command: "x", args: ["${NOPE}"] }, env);
 * if (!("missing" in missing) || missing.missing[0]?.where !== "args[0]") throw new Error();
 * ```
 */
export function fillPlaceholders(
  entry: Record<string, unknown>,
  env: (name: string) => string | undefined,
): { entry: Record<string, unknown> } | { missing: MissingVariable[] } {
  const missing: MissingVariable[] = [];
  const filled = mapStrings(entry, (text, where) => {
    const out = text.replace(VARIABLE, (all, name: string, fallback: string | undefined) => {
      const value = env(name);
      if (value !== undefined && value !== "") return value;
      if (fallback !== undefined) return fallback;
      missing.push({ variable: name, where });
      return all;
    });
    const left = ANY_PLACEHOLDER.exec(out);
    if (left && !missing.some((m) => m.where === where)) {
      missing.push({ variable: left[0], where });
    }
    return out;
  });
  return missing.length > 0 ? { missing } : { entry: filled };
}

/**
 * Every variable an entry's placeholders read (`${VAR}` and `${VAR:-default}` alike), and
 * where its value goes, in the entry's order.
 *
 * @param entry The entry as configured.
 * @returns One item per use.
 *
 * @example
 * ```ts
 * import { variablesRead } from "./mcp_placeholders.ts";
 * const read = variablesRead({ url: "u", headers: { A: "Bearer ${T}", B: "${L:-x}" } });
 * if (JSON.stringify(read) !== '[{"variable":"T","where":"headers.A"},{"variable":"L","where":"headers.B"}]') throw new Error();
 * ```
 */
export function variablesRead(entry: Record<string, unknown>): MissingVariable[] {
  const read: MissingVariable[] = [];
  mapStrings(entry, (text, where) => {
    for (const match of text.matchAll(VARIABLE)) read.push({ variable: match[1]!, where });
    return text;
  });
  return read;
}

/**
 * Why a server does not start: the placeholders its entry needs that are not set.
 *
 * @example
 * ```ts
 * import { missingVariablesMessage } from "./mcp_placeholders.ts";
 * const text = missingVariablesMessage("github", [{ variable: "GITHUB_TOKEN", where: "headers.Authorization" }]);
 * if (!text.startsWith('MCP server "github" not started: ${GITHUB_TOKEN} (headers.Authorization) is not set')) throw new Error(text);
 * ```
 */
export function missingVariablesMessage(
  server: string,
  missing: readonly MissingVariable[],
): string {
  const listed = missing.map((m) =>
    /^[A-Za-z_]\w*$/.test(m.variable)
      ? `\${${m.variable}} (${m.where})`
      : `${m.variable} (${m.where})`
  ).join(", ");
  const names = missing.filter((m) => /^[A-Za-z_]\w*$/.test(m.variable)).map((m) => m.variable);
  return `MCP server "${server}" not started: ${listed} ${
    missing.length === 1 ? "is" : "are"
  } not set: ` +
    (names.length > 0
      ? `set ${
        names.join(", ")
      } in the environment harness starts in, or write the value into its entry`
      : "write the value into its entry");
}

/** What an imported file's folders are, for the placeholders that name them. */
export interface ImportPlaces {
  /** The file imported. */
  file: string;
  home: string;
  /** VS Code's input prompts (`inputs` of mcp.json), by id: their descriptions. */
  inputs?: Record<string, string>;
}

/** The variable an `${input:id}` is read from: its id in capitals (`github_token` -> GITHUB_TOKEN). */
export function inputVariable(id: string): string {
  const name = id.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, "").toUpperCase();
  return /^[0-9]/.test(name) || name === "" ? `INPUT_${name}` : name;
}

function folderOf(path: string): string {
  return path.replace(/[\\/][^\\/]*$/, "") || "/";
}

/**
 * Rewrites the placeholders of an entry from another agent's file for harness: the folders it
 * means become paths (`${CLAUDE_PLUGIN_ROOT}` the plugin's folder, `${workspaceFolder}` and
 * `${CLAUDE_PROJECT_DIR}` the project's, `${userHome}` the home), every variable form becomes
 * `${VAR}` (filled when the server starts), `${input:id}` becomes `${ID}` with a note.
 *
 * @param entry The entry, already in harness's shape.
 * @param places The file and the folders.
 * @returns The entry and lines for the user about what was rewritten.
 *
 * @example
 * ```ts
 * import { importPlaceholders } from "./mcp_placeholders.ts";
 * const out = importPlaceholders(
 *   { command: "${CLAUDE_PLUGIN_ROOT}/server", env: { KEY: "{env:API_KEY}", T: "${input:tok}" } },
 *   { file: "/p/plugin/.mcp.json", home: "/h", inputs: { tok: "Your token" } },
 * );
 * if (out.entry.command !== "/p/plugin/server" || JSON.stringify(out.entry.env) !== '{"KEY":"${API_KEY}","T":"${TOK}"}') throw new Error(JSON.stringify(out));
 * if (!out.notes[0]?.includes('${input:tok} ("Your token")')) throw new Error(out.notes[0]);
 * ```
 */
export function importPlaceholders(
  entry: Record<string, unknown>,
  places: ImportPlaces,
): { entry: Record<string, unknown>; notes: string[] } {
  const notes: string[] = [];
  const folder = folderOf(places.file);
  const inDot = /[\\/]\.(vscode|cursor|claude-plugin|gemini|codex|opencode)$/.test(folder);
  const project = inDot ? folderOf(folder) : folder;
  const known: Record<string, string> = {
    CLAUDE_PLUGIN_ROOT: /[\\/]\.claude-plugin$/.test(folder) ? folderOf(folder) : folder,
    CLAUDE_PROJECT_DIR: project,
    workspaceFolder: project,
    workspaceRoot: project,
    userHome: places.home,
    pathSeparator: "/",
  };
  const rewritten = mapStrings(entry, (text) =>
    text
      .replace(
        /\$\{(CLAUDE_PLUGIN_ROOT|CLAUDE_PROJECT_DIR|workspaceFolder|workspaceRoot|userHome|pathSeparator)\}/g,
        (_all, name: string) => known[name]!,
      )
      .replace(/\$\{env:([A-Za-z_]\w*)\}|\{env:([A-Za-z_]\w*)\}/g, (_all, a?: string, b?: string) =>
        `\${${a ?? b}}`)
      .replace(/\$\{input:([^}]+)\}/g, (all, id: string) => {
        const variable = inputVariable(id);
        const described = places.inputs?.[id];
        const note = `${all}${described ? ` (${JSON.stringify(described)})` : ""} is asked by ` +
          `VS Code; harness reads it from $${variable}`;
        if (!notes.includes(note)) {
          notes.push(note);
        }
        return `\${${variable}}`;
      }));
  return { entry: rewritten, notes };
}
