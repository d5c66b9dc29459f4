import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createLocalSignIn } from "../../local-sign-in.mjs";

const TOKEN = "parley_local_admin_token";
const CODE = "one-time-code";

/** `server.mjs` in small: the local sign-in first, then a page that must never see the secrets. */
async function startServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const localSignIn = createLocalSignIn({ token: TOKEN, code: CODE });
  const server = http.createServer((request, response) => {
    if (localSignIn(request, response)) return;
    response.writeHead(200, { "content-type": "text/html" }).end("<html>the app</html>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function exchange(url: string, headers: Record<string, string>) {
  return fetch(`${url}/local-session/token`, { method: "POST", headers });
}

describe("createLocalSignIn (the one-time link of npm start)", () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it("the right code sets an HttpOnly SameSite=Strict cookie once; the cookie, and only it, gets the token", async () => {
    const { url, close } = await startServer();
    closers.push(close);
    expect((await fetch(`${url}/local-sign-in?code=wrong`, { redirect: "manual" })).status).toBe(403);

    const signIn = await fetch(`${url}/local-sign-in?code=${CODE}`, { redirect: "manual" });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("location")).toBe("/");
    const cookie = signIn.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^parley_local_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    const session = cookie.split(";")[0] ?? "";

    const again = await fetch(`${url}/local-sign-in?code=${CODE}`, { redirect: "manual" });
    expect(again.status).toBe(403);
    expect(again.headers.get("set-cookie")).toBeNull();

    const granted = await exchange(url, { cookie: session, "x-parley-local-session": "1" });
    expect(await granted.json()).toEqual({ token: TOKEN });
    expect(granted.headers.get("cache-control")).toBe("no-store");
    const refused: Record<string, string>[] = [
      { "x-parley-local-session": "1" },
      { cookie: session },
      { cookie: "parley_local_session=guess", "x-parley-local-session": "1" },
    ];
    for (const headers of refused) {
      expect(await (await exchange(url, headers)).json()).toEqual({ token: null });
    }
    expect((await fetch(`${url}/local-session/token`, { headers: { cookie: session } })).status).toBe(405);
    const page = await (await fetch(`${url}/`, { headers: { cookie: session } })).text();
    expect(page).not.toContain(TOKEN);
  });
});
