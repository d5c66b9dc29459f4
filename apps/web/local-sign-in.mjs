// The local sign-in of `npm start` (DESIGN §10.8), as Jupyter does it: `npm start` prints a link
// holding a one-time code; opening it sets an HttpOnly, SameSite=Strict cookie naming a browser
// session of this process and spends the code. No page ever carries a token: the app's scripts
// exchange the cookie for the local admin token (POST, same origin, a custom header) and keep it in
// memory only. Whatever fetches a page (curl from a sandboxed shell, a visitor behind a proxy that
// forwards `Host: 127.0.0.1:3000`) gets no token, because it has no cookie.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import {
  LOCAL_SESSION_HEADER,
  LOCAL_SESSION_TOKEN_PATH,
  LOCAL_SIGN_IN_PATH,
} from "./local-session-paths.mjs";

export const LOCAL_SESSION_COOKIE = "parley_local_session";

/** @param {string} value */
const digest = (value) => createHash("sha256").update(value).digest();

/** @param {string} given @param {string} expected */
function sameSecret(given, expected) {
  return timingSafeEqual(digest(given), digest(expected));
}

/** @param {string | undefined} header @returns {string | null} */
function sessionCookieOf(header) {
  for (const part of (header ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === LOCAL_SESSION_COOKIE) return value.join("=");
  }
  return null;
}

/** @param {import("node:http").ServerResponse} response @param {number} status @param {string} html */
function page(response, status, html) {
  response
    .writeHead(status, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
      "referrer-policy": "no-referrer",
    })
    .end(
      `<!doctype html><html lang="en"><meta charset="utf-8"><title>Parley</title><body>${html}</body></html>`,
    );
}

/**
 * @param {{ token: string, code: string }} secrets the local admin token and the link's one-time code
 * @returns {(request: import("node:http").IncomingMessage, response: import("node:http").ServerResponse) => boolean}
 *   answers the request when it is one of the local sign-in paths (then true)
 */
export function createLocalSignIn(secrets) {
  /** @type {string | null} */
  let code = secrets.code;
  /** Browser sessions this process signed in, by the SHA-256 of their cookie. */
  const sessions = new Set();

  return (request, response) => {
    const url = new URL(request.url ?? "/", "http://local");
    if (url.pathname === LOCAL_SIGN_IN_PATH && request.method === "GET") {
      const given = url.searchParams.get("code") ?? "";
      if (code === null || given === "" || !sameSecret(given, code)) {
        page(
          response,
          403,
          '<h1>This sign-in link was already used or is not valid</h1><p>Each link works once. Restart <code>npm start</code> for a new one, or <a href="/sign-in">sign in with a token</a>.</p>',
        );
        return true;
      }
      code = null;
      const session = randomBytes(32).toString("base64url");
      sessions.add(digest(session).toString("hex"));
      response
        .writeHead(303, {
          location: "/",
          "cache-control": "no-store",
          "referrer-policy": "no-referrer",
          "set-cookie": `${LOCAL_SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Strict`,
        })
        .end();
      return true;
    }
    if (url.pathname === LOCAL_SESSION_TOKEN_PATH) {
      if (request.method !== "POST") {
        response.writeHead(405, { allow: "POST", "cache-control": "no-store" }).end();
        return true;
      }
      const session = sessionCookieOf(request.headers.cookie);
      const allowed =
        request.headers[LOCAL_SESSION_HEADER] === "1" &&
        session !== null &&
        sessions.has(digest(session).toString("hex"));
      // `null` (not an error status) for a browser without the cookie: it shows the sign-in form.
      response
        .writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
        .end(JSON.stringify({ token: allowed ? secrets.token : null }));
      return true;
    }
    return false;
  };
}
