import { spawnSync } from "node:child_process";

/** One answer as `curl -i` printed it: status line, headers and body. */
export interface CurlAnswer {
  request: string;
  status: number;
  raw: string;
}

/**
 * Fetches a URL with `curl`, another process on this machine, as a sandboxed shell with
 * `PARLEY_SHELL_NETWORK=on` or a visitor behind a proxy would: no cookie, any Host header.
 */
export function curl(
  url: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): CurlAnswer {
  const args = ["-s", "-i", "--max-time", "20", "-X", options.method ?? "GET"];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}: ${value}`);
  const result = spawnSync("curl", [...args, url], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`curl ${url} failed (${result.status}): ${result.stderr}`);
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(result.stdout)?.[1] ?? 0);
  const host = options.headers?.Host ?? options.headers?.host;
  return {
    request: `${options.method ?? "GET"} ${url}${host ? ` (Host: ${host})` : ""}`,
    status,
    raw: result.stdout,
  };
}

/** Every script and stylesheet a page references on its own origin (the app's JavaScript and CSS). */
export function assetsOf(html: string): string[] {
  const paths = new Set<string>();
  for (const match of html.matchAll(/(?:src|href)="(\/_next\/[^"]+)"/g)) if (match[1]) paths.add(match[1]);
  return [...paths];
}

/**
 * Every page of the web app (each route, an unknown one, the local sign-in paths) with the Host
 * headers a local browser, a DNS-rebinding page and a reverse proxy (nginx's default forwards
 * `Host: 127.0.0.1:<port>`) send, plus the files those pages load, and every HTTP path of the API.
 */
export function fetchEveryPage(web_url: string, api_url: string): CurlAnswer[] {
  const port = new URL(web_url).port;
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`, "parley.example.com", `rebound.test:${port}`];
  const proxied = {
    "X-Forwarded-For": "203.0.113.7",
    "X-Forwarded-Host": "parley.example.com",
    "X-Real-IP": "203.0.113.7",
  };
  const pages = [
    "/",
    "/sign-in",
    "/admin",
    "/?session=s_1",
    "/no-such-page",
    "/local-sign-in",
    "/local-sign-in?code=guess",
  ];
  const answers: CurlAnswer[] = [];
  for (const host of hosts) {
    for (const path of pages) {
      answers.push(curl(`${web_url}${path}`, { headers: { Host: host } }));
      answers.push(curl(`${web_url}${path}`, { headers: { Host: host, ...proxied } }));
    }
    const exchanges: Record<string, string>[] = [
      {},
      { "x-parley-local-session": "1" },
      { "x-parley-local-session": "1", Cookie: "parley_local_session=guess" },
    ];
    for (const headers of exchanges) {
      answers.push(
        curl(`${web_url}/local-session/token`, { method: "POST", headers: { Host: host, ...headers } }),
      );
    }
    answers.push(curl(`${web_url}/local-session/token`, { headers: { Host: host } }));
  }
  const home = answers[0]?.raw ?? "";
  for (const asset of assetsOf(home)) answers.push(curl(`${web_url}${asset}`));
  for (const path of [
    "/",
    "/healthz",
    "/metrics",
    "/openapi.json",
    "/trpc/auth.whoami",
    "/trpc/session.list",
  ]) {
    answers.push(curl(`${api_url}${path}`));
  }
  return answers;
}
