/** What the browser needs to reach the API, read at request time so one build serves any API URL. */
export interface RuntimeConfig {
  readonly api_url: string;
  /** Set only for the local `npm start`, and only for a local browser: it signs in with it. */
  readonly local_token: string | null;
}

/**
 * The config for one request. The local token goes only to a request that `server.mjs` marked
 * as local (`local_peer_header` equals this process's secret); under plain `next start` there is
 * no secret, so it never goes out.
 */
export function readRuntimeConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  local_peer_header: string | null = null,
): RuntimeConfig {
  const apiUrl = env.PARLEY_API_URL?.trim() || "http://localhost:4000";
  const secret = env.PARLEY_LOCAL_PEER_SECRET?.trim() || null;
  const isLocal = secret !== null && local_peer_header === secret;
  const localToken = isLocal ? env.PARLEY_LOCAL_TOKEN?.trim() || null : null;
  return { api_url: apiUrl.replace(/\/+$/, ""), local_token: localToken };
}
