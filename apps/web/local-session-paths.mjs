// The paths of the local sign-in (`local-sign-in.mjs`), shared with the browser code. No secrets here.

/** `GET /local-sign-in?code=…`: the one-time link `npm start` prints. */
export const LOCAL_SIGN_IN_PATH = "/local-sign-in";

/** `POST /local-session/token` (with `LOCAL_SESSION_HEADER: 1`): the signed-in browser's API token. */
export const LOCAL_SESSION_TOKEN_PATH = "/local-session/token";

/**
 * A header a cross-site page cannot send without a CORS preflight, which this server never
 * grants: the exchange answers only the app's own scripts (the SameSite=Strict cookie already
 * stays home; this is the second lock).
 */
export const LOCAL_SESSION_HEADER = "x-parley-local-session";
