// One check for every base URL harness is given (flag or config file), so a value that would
// only fail at the first request ("http://[::1", "http://a b") is refused up front.

/**
 * Why `value` is not a usable http:// or https:// URL, or undefined when it is.
 *
 * @example
 * ```ts
 * import { httpUrlProblem } from "./http_url.ts";
 * if (httpUrlProblem("http://127.0.0.1:11434/v1") !== undefined) throw new Error("valid");
 * if (httpUrlProblem("http://[::1") === undefined) throw new Error("invalid");
 * ```
 */
export function httpUrlProblem(value: string): string | undefined {
  if (!/^https?:\/\//i.test(value)) return "expected an http:// or https:// URL";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "not a valid URL: check the host, the brackets around an IPv6 address and the port";
  }
  if (url.hostname === "") return "a URL without a host";
  if (url.username !== "" || url.password !== "") {
    return "a URL with a user name or password: pass the key with --api-key instead";
  }
  return undefined;
}
