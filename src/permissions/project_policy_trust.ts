// Trust for the project's policy file. `./.harness/policies.jsonc` arrives with a cloned
// repository, and its allow rules would let calls run without asking (even `{"tool": "*",
// "action": "allow"}`). So, as with project plugins, its allow rules apply only once the user
// trusts the file's current content (by SHA-256, in the same trust store); until then they
// ask instead. Its deny and ask rules always apply, but until trusted only to make a decision
// stricter: an untrusted `ask` never replaces the user's `deny` (rules are marked `untrusted`,
// see evaluatePolicy). A file without allow rules is not asked about: trust would only let it
// loosen the user's own rules.

import type { LoadedRule } from "./policy.ts";
import { carryTrust, checkProjectTrust, type TrustIO, type TrustWording } from "./project_trust.ts";
import { linkOutOfWorkspace } from "../config/workspace_link.ts";
import { paths } from "../platform/paths.ts";

const POLICY_WORDING: TrustWording = {
  noun: "project policy file",
  why: "The project's policy file has allow rules: calls they match would run without asking",
  question: "Trust its allow rules?",
  withoutTrust: "Its allow rules will ask instead",
  skipping: "Asking instead of allowing for",
};

/** The rules to use, and whether the project file's allow rules are trusted. */
export interface ProjectPolicyTrust {
  rules: LoadedRule[];
  /** True when the project file has no rules or the user trusts its content. */
  trusted: boolean;
}

/**
 * Applies trust to the project policy file's rules: trusted content keeps them; else, when
 * the file has allow rules, the REPL asks once per content (`interactive`). Without trust its
 * allow rules become "ask" and all its rules are marked `untrusted` (they can only make a
 * decision stricter).
 *
 * @param rules All loaded rules, in order.
 * @param options The project policy file, I/O, mode and (for tests) the trust store.
 * @returns The rules with an untrusted file's rules turned strict-only.
 *
 * @example
 * ```ts
 * import { trustProjectPolicy } from "./project_policy_trust.ts";
 * const io = { readLine: () => Promise.resolve(null), write: () => {} };
 * const rules = [{ tool: "*", action: "allow" as const, file: "/u.jsonc", index: 1 }];
 * const r = await trustProjectPolicy(rules, { projectFile: "/p.jsonc", io, interactive: false });
 * if (!r.trusted || r.rules[0]?.action !== "allow") throw new Error();
 * ```
 */
export async function trustProjectPolicy(
  rules: readonly LoadedRule[],
  options: {
    projectFile: string;
    io: TrustIO;
    interactive: boolean;
    cwd?: string;
    storeFile?: string;
  },
): Promise<ProjectPolicyTrust> {
  const fromProject = rules.filter((rule) => rule.file === options.projectFile);
  if (fromProject.length === 0) return { rules: [...rules], trusted: true };
  // A .harness (or policy file) that is a link out of the workspace is another folder's: its
  // rules stay strict-only, whatever was trusted there (issue 38).
  const workspace = paths.resolve(options.projectFile, "..", "..");
  const linked = linkOutOfWorkspace(workspace, options.projectFile);
  if (linked !== undefined) {
    options.io.write(`Warning: ${linked.replace("harness ignores it", "its allow rules ask")}\n`);
    return { rules: strictOnly(rules, options.projectFile), trusted: false };
  }
  // Only allow rules need a question; without them, trust is looked up without a word.
  const allows = fromProject.some((rule) => rule.action === "allow");
  const quiet: TrustIO = { readLine: () => Promise.resolve(null), write: () => {} };
  const result = await checkProjectTrust([options.projectFile], {
    io: allows ? options.io : quiet,
    interactive: options.interactive && allows,
    wording: POLICY_WORDING,
    workspace,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.storeFile !== undefined ? { storeFile: options.storeFile } : {}),
  });
  if (result.load.length > 0) return { rules: [...rules], trusted: true };
  return { rules: strictOnly(rules, options.projectFile), trusted: false };
}

/** The rules with those of `file` made strict-only: allow asks, all marked `untrusted`. */
function strictOnly(rules: readonly LoadedRule[], file: string): LoadedRule[] {
  return rules.map((rule) =>
    rule.file === file
      ? { ...rule, action: rule.action === "allow" ? "ask" : rule.action, untrusted: true }
      : rule
  );
}

/**
 * After harness saved an approved rule into the project policy file: keeps the file trusted
 * when the content the rule was added to is the content the user trusted (what else wrote to
 * the file meanwhile, such as the model, is asked about next time).
 *
 * @param file The file the rule was saved to.
 * @param options The project policy file, whether it was trusted, I/O, the trust store and
 *   the file's hashes before and after the rule was saved.
 */
export async function keepProjectPolicyTrusted(
  file: string,
  options: {
    projectFile: string;
    trusted: boolean;
    io: TrustIO;
    storeFile?: string;
    before?: string;
    after?: string;
  },
): Promise<void> {
  const { before, after } = options;
  if (file !== options.projectFile || !options.trusted || !before || !after) return;
  await carryTrust(file, {
    before,
    after,
    io: options.io,
    // The workspace of `.harness/policies.jsonc`, as trustProjectPolicy binds it.
    workspace: paths.resolve(file, "..", ".."),
    ...(options.storeFile !== undefined ? { storeFile: options.storeFile } : {}),
  });
}
