import { LOCAL_SESSION_HEADER, LOCAL_SESSION_TOKEN_PATH } from "../../local-session-paths.mjs";

/**
 * The local admin token for a browser that opened `npm start`'s sign-in link: its HttpOnly cookie
 * is exchanged, same origin, for the token, which then lives in memory only (never in storage or
 * in a page). `null` when this browser holds no local session.
 */
export async function fetchLocalSessionToken(): Promise<string | null> {
  const response = await fetch(LOCAL_SESSION_TOKEN_PATH, {
    method: "POST",
    credentials: "same-origin",
    cache: "no-store",
    headers: { [LOCAL_SESSION_HEADER]: "1" },
  });
  if (!response.ok) return null;
  const body = (await response.json()) as { token?: unknown };
  return typeof body.token === "string" && body.token !== "" ? body.token : null;
}
