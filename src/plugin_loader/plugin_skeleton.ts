// `harness plugin new NAME`: writes a ready-to-edit plugin file in factory form
// (`plugins/NAME.ts`) and the self-contained type declarations it imports
// (`plugins/harness_plugin.d.ts`). The CLI wires the command; this module only writes files.

import { join } from "node:path";
import { type AgentError, err, ok, type Result } from "../errors.ts";
import { HARNESS_PLUGIN_DTS } from "./harness_plugin_dts.ts";

/** File name of the type declarations written next to plugins. */
export const PLUGIN_TYPES_FILE = "harness_plugin.d.ts";

/** What a plugin (tool) name must look like: it is also the file name and the model's tool name. */
export const PLUGIN_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;

const MAX_NAME_LENGTH = 64; // OpenAI-compatible servers reject longer function names.

/** Where and under which name to create a plugin. */
export interface PluginSkeletonOptions {
  /** Plugin folder, usually `./plugins` of the working directory; created if missing. */
  dir: string;
  /** Tool name; must match {@linkcode PLUGIN_NAME_PATTERN}. */
  name: string;
}

/**
 * Checks a plugin name for `harness plugin new`.
 *
 * @param name The requested tool name.
 * @returns The name, or a usage error saying what a valid name looks like.
 *
 * @example
 * ```ts
 * import { validatePluginName } from "./plugin_skeleton.ts";
 * if (!validatePluginName("word_count").ok) throw new Error();
 * if (validatePluginName("Word-Count").ok) throw new Error();
 * ```
 */
export function validatePluginName(name: string): Result<string, AgentError> {
  if (!PLUGIN_NAME_PATTERN.test(name)) {
    return err({
      kind: "usage",
      message: `Invalid plugin name "${name}": use lowercase letters, digits and "_", ` +
        `starting with a letter (it must match /^[a-z][a-z0-9_]*$/), e.g. "word_count"`,
    });
  }
  if (name.length > MAX_NAME_LENGTH) {
    return err({
      kind: "usage",
      message: `Invalid plugin name "${name}": it has ${name.length} characters; ` +
        `use at most ${MAX_NAME_LENGTH}`,
    });
  }
  if (name === "harness_plugin") {
    return err({
      kind: "usage",
      message: `Invalid plugin name "${name}": it is reserved for "${PLUGIN_TYPES_FILE}"; ` +
        `choose another name`,
    });
  }
  return ok(name);
}

/**
 * The source of a new factory-form plugin named `name` (not validated here).
 *
 * @param name The tool name, which is also the file name.
 * @returns TypeScript source for `plugins/NAME.ts`.
 *
 * @example
 * ```ts
 * import { pluginSkeletonSource } from "./plugin_skeleton.ts";
 * const source = pluginSkeletonSource("greet");
 * if (!source.includes('name: "greet"')) throw new Error(source);
 * ```
 */
export function pluginSkeletonSource(name: string): string {
  return `// ${name}: a harness plugin (one tool per file), created by \`harness plugin new ${name}\`.
// The harness loads this file from disk at run time (./plugins, ~/.config/harness/plugins or
// --plugins DIR) and calls the default export with { z, ToolError, defineTool }, so it needs no
// imports at run time. The \`import type\` below is for your editor and \`deno check\` only.
import type { PluginApi } from "./${PLUGIN_TYPES_FILE}";

export default ({ z, ToolError, defineTool }: PluginApi) =>
  defineTool({
    // Must equal the file name.
    name: "${name}",
    // One or two factual sentences: the model reads this to decide when to call the tool.
    description: "Greet someone by name. Replace this with what ${name} does.",
    // safe | low | medium | high: decides whether the user is asked before a call.
    risk: "safe",
    // Describe every field: the descriptions become the JSON Schema the model sees.
    parameters: z.object({
      who: z.string().describe("Name of the person to greet"),
      shout: z.boolean().default(false).describe("Answer in capital letters"),
    }),
    // Deno permissions the sandbox may grant, e.g. { read: ["."] }; a key left out is denied.
    permissions: {},
    run({ who, shout }, _ctx) {
      if (who.trim() === "") {
        // A ToolError goes back to the model as data: say what to do next.
        throw new ToolError("validation_failed", "\`who\` is empty. Call ${name} again with a name");
      }
      const text = \`Hello, \${who.trim()}!\`;
      return { output: shout ? text.toUpperCase() : text };
    },
  });
`;
}

/**
 * Writes `DIR/NAME.ts` (a factory-form plugin to edit) and, if missing,
 * `DIR/harness_plugin.d.ts` (its types). Never overwrites: an existing plugin file is a usage
 * error, and an existing types file is kept as it is.
 *
 * @param options The plugin folder and the tool name.
 * @returns The paths (joined onto `dir`) of the plugin and types files, or a usage error.
 *
 * @example
 * ```ts
 * import { writePluginSkeleton } from "./plugin_skeleton.ts";
 * const dir = await Deno.makeTempDir();
 * const result = await writePluginSkeleton({ dir, name: "greet" });
 * if (!result.ok) throw new Error(result.error.kind);
 * const again = await writePluginSkeleton({ dir, name: "greet" });
 * if (again.ok) throw new Error("must not overwrite");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writePluginSkeleton(
  options: PluginSkeletonOptions,
): Promise<Result<{ pluginPath: string; typesPath: string }, AgentError>> {
  const valid = validatePluginName(options.name);
  if (!valid.ok) return valid;
  const pluginPath = join(options.dir, `${options.name}.ts`);
  const typesPath = join(options.dir, PLUGIN_TYPES_FILE);
  try {
    await Deno.mkdir(options.dir, { recursive: true });
  } catch (error) {
    return err(writeFailed(options.dir, error));
  }
  const written = await writeNewFile(pluginPath, pluginSkeletonSource(options.name));
  if (written.status === "exists") {
    return err({
      kind: "usage",
      message: `Plugin file "${pluginPath}" already exists: choose another name, or delete ` +
        `or rename the file first`,
    });
  }
  if (written.status === "failed") return err(writeFailed(pluginPath, written.error));
  // An existing types file is kept: the user may have extended it.
  const typesWritten = await writeNewFile(typesPath, HARNESS_PLUGIN_DTS);
  if (typesWritten.status === "failed") return err(writeFailed(typesPath, typesWritten.error));
  return ok({ pluginPath, typesPath });
}

type WriteOutcome = { status: "written" } | { status: "exists" } | {
  status: "failed";
  error: unknown;
};

/** Creates a file that must not exist yet (createNew is atomic: no check-then-write race). */
async function writeNewFile(path: string, text: string): Promise<WriteOutcome> {
  try {
    await Deno.writeTextFile(path, text, { createNew: true });
    return { status: "written" };
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return { status: "exists" };
    return { status: "failed", error };
  }
}

function writeFailed(path: string, error: unknown): AgentError {
  const detail = error instanceof Error ? error.message : String(error);
  return {
    kind: "usage",
    message: `Cannot write "${path}": ${detail}; check that the folder is writable or pass ` +
      `another folder`,
  };
}
