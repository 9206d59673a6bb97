// The corpus of real files from public repositories (tests/fixtures/real_files/SOURCES): each
// row names a fixture, the repository, commit and path it came from, and its license. The tests
// of each reader go through the rows of their kind; real_files_test.ts holds the corpus itself
// to its promises (every row's file present, every file listed, five or more of each kind).

import { fileURLToPath } from "node:url";

/** The corpus folder. */
export const REAL_FILES = fileURLToPath(new URL("../fixtures/real_files/", import.meta.url));

/** The kinds of the corpus, by their folder. */
export type RealFileKind = "mcp" | "agents" | "skills" | "places";

/** One row of SOURCES. */
export interface RealFile {
  /** Path under tests/fixtures/real_files/. */
  fixture: string;
  kind: RealFileKind;
  repository: string;
  commit: string;
  path: string;
  license: string;
}

/** The rows of SOURCES. */
export function realFiles(): RealFile[] {
  const text = Deno.readTextFileSync(`${REAL_FILES}SOURCES`);
  return text.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#")).map(
    (line) => {
      const [fixture, repository, commit, path, license] = line.split("\t");
      return {
        fixture: fixture!,
        kind: fixture!.split("/")[0] as RealFileKind,
        repository: repository!,
        commit: commit!,
        path: path!,
        license: license!,
      };
    },
  );
}

/** The absolute path of a fixture. */
export function realFile(fixture: string): string {
  return `${REAL_FILES}${fixture}`;
}
