// The flags of a conversation run, as the command line gives them (cli/args.ts parses them):
// the settings flags (config/settings.ts) plus what a run is asked for. A front end passes
// them on to the run; the editor front end gets the same ones from `harness acp`.

import type { SettingFlags } from "../config/settings.ts";

/** How `-p` prints its result. */
export type OutputFormat = "text" | "json" | "stream-json";

/** A run's flags. */
export interface RunFlags extends SettingFlags {
  yes: boolean;
  policies?: string;
  plugins: string[];
  resume?: string | true;
  continue: boolean;
  noSession: boolean;
  outputFormat: OutputFormat;
  prompt?: string;
  /** --plan: the conversation starts in plan mode (plan_mode.ts). */
  plan?: boolean;
}
