// Trust for the project's policy file. `./.harness/policies.jsonc` arrives with a cloned
// repository, and its allow rules would let calls run without asking (even `{"tool": "*",
// "action": "allow"}`). So, as with project plugins, its allow rules apply only once the user
// trusts the file's current content (by SHA-256, in the same trust store); until then they
// ask instead. Its deny and ask rules always apply: they only make harness stricter.

import type { LoadedRule } from "../permissions/policy.ts";
import {
  checkProjectTrust,
  markTrusted,
  type TrustIO,
  type TrustWording,
} from "../plugins/project_trust.ts";

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
  /** True when the file has no allow rules or the user trusts its content. */
  trusted: boolean;
}

/**
 * Applies trust to the project policy file's allow rules: trusted content keeps them; else
 * the REPL asks once per content (`interactive`), and without trust they become "ask".
 *
 * @param rules All loaded rules, in order.
 * @param options The project policy file, I/O, mode and (for tests) the trust store.
 * @returns The rules with untrusted allow rules turned into ask rules.
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
  const allows = rules.some((rule) => rule.file === options.projectFile && rule.action === "allow");
  if (!allows) return { rules: [...rules], trusted: true };
  const result = await checkProjectTrust([options.projectFile], {
    io: options.io,
    interactive: options.interactive,
    wording: POLICY_WORDING,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.storeFile !== undefined ? { storeFile: options.storeFile } : {}),
  });
  if (result.load.length > 0) return { rules: [...rules], trusted: true };
  return {
    rules: rules.map((rule) =>
      rule.file === options.projectFile && rule.action === "allow"
        ? { ...rule, action: "ask" }
        : rule
    ),
    trusted: false,
  };
}

/**
 * After harness saved an approved rule into the project policy file: keeps the file trusted
 * when it was (its new content is what the user had trusted plus what they just approved).
 *
 * @param file The file the rule was saved to.
 * @param options The project policy file, whether it was trusted, I/O and the trust store.
 */
export async function keepProjectPolicyTrusted(
  file: string,
  options: { projectFile: string; trusted: boolean; io: TrustIO; storeFile?: string },
): Promise<void> {
  if (file !== options.projectFile || !options.trusted) return;
  await markTrusted(file, {
    io: options.io,
    ...(options.storeFile !== undefined ? { storeFile: options.storeFile } : {}),
  });
}
