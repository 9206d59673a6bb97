// The first paths of a listing in the built-in walk's order (walk_tree.ts: folders depth-first,
// names sorted), for a listing that came in another order (fd's). Only the folders that hold
// the first paths are ordered, so a capped listing costs little more than one pass.

/**
 * The first `limit` paths in walk order: a folder's entries sorted by name as the walk sorts
 * them, each folder's contents right after its name.
 *
 * @param paths Workspace-relative paths with forward slashes, no two alike.
 * @param limit How many to return (all when larger than the listing).
 * @returns The first `limit` paths in walk order.
 *
 * @example
 * ```ts
 * import { firstInWalkOrder } from "./walk_order.ts";
 * const order = firstInWalkOrder(["ab", "a-b/x", "a/y", "a/b/z"], 3);
 * if (order.join() !== "a/b/z,a/y,a-b/x") throw new Error(order.join());
 * ```
 */
export function firstInWalkOrder(paths: readonly string[], limit: number): string[] {
  const out: string[] = [];
  /** Places paths that share their first `from` characters (a folder and "/", or ""). */
  const place = (group: readonly string[], from: number): void => {
    // A folder every path of the group is under (most are, near the top): no bucketing.
    const first = group[0];
    const slash = first === undefined ? -1 : first.indexOf("/", from);
    if (slash !== -1) {
      const folder = first!.slice(from, slash + 1);
      if (group.every((path) => path.startsWith(folder, from))) return place(group, slash + 1);
    }
    const byName = new Map<string, string[]>();
    for (const path of group) {
      const slash = path.indexOf("/", from);
      const name = slash === -1 ? path.slice(from) : path.slice(from, slash);
      const same = byName.get(name);
      if (same === undefined) byName.set(name, [path]);
      else same.push(path);
    }
    const names = [...byName.keys()].sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
    for (const name of names) {
      if (out.length >= limit) return;
      const same = byName.get(name)!;
      if (same.length === 1) {
        out.push(same[0]!);
        continue;
      }
      // The entry itself comes before what is under it.
      const end = from + name.length;
      const under: string[] = [];
      for (const path of same) {
        if (path.length === end) out.push(path);
        else under.push(path);
      }
      if (under.length > 0) place(under, end + 1);
    }
  };
  place(paths, 0);
  return out.length > limit ? out.slice(0, limit) : out;
}
