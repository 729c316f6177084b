import type { SkillsyncServer } from "../../../server/index.js";

export interface ConsoleAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * A browser's side of the console over real HTTP, without a browser: one cookie (the session),
 * redirects not followed (so each answer is seen), the Origin a page of the console would send.
 */
export function consoleClient(server: SkillsyncServer) {
  let cookie: string | undefined;
  const request = async (
    method: string,
    path: string,
    form?: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<ConsoleAnswer> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      redirect: "manual",
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(form ? { "content-type": "application/x-www-form-urlencoded", origin: server.url } : {}),
        ...headers,
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    const set = res.headers.get("set-cookie");
    if (set) {
      const [pair] = set.split(";");
      cookie = pair!.endsWith("=") ? undefined : pair;
    }
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  return {
    get: (path: string, headers?: Record<string, string>) => request("GET", path, undefined, headers),
    post: (path: string, form: Record<string, string>, headers?: Record<string, string>) =>
      request("POST", path, form, headers),
    /** Follows the one-time link; the client is then signed in (or not). */
    signIn: (link: string) => request("GET", new URL(link).pathname + new URL(link).search),
    signedIn: () => cookie !== undefined,
    /** The CSRF token of the page's forms. */
    csrfOf: (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1],
  };
}
