/** What the browser needs to reach the API, read at request time so one build serves any API URL. */
export interface RuntimeConfig {
  readonly api_url: string;
  /**
   * True under the root `npm start` (`server.mjs` with a local token): a browser that opened the
   * one-time sign-in link holds a session cookie, which the app exchanges for its token. Carries no
   * secret itself.
   */
  readonly local_sign_in: boolean;
}

export function readRuntimeConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): RuntimeConfig {
  const apiUrl = env.PARLEY_API_URL?.trim() || "http://localhost:4000";
  return { api_url: apiUrl.replace(/\/+$/, ""), local_sign_in: env.PARLEY_LOCAL_SIGN_IN === "on" };
}
