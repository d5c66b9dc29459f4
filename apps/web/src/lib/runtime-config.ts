/** What the browser needs to reach the API, read at request time so one build serves any API URL. */
export interface RuntimeConfig {
  readonly api_url: string;
  /** Set only for the local `npm start`: the browser signs in with it automatically. */
  readonly local_token: string | null;
}

export function readRuntimeConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): RuntimeConfig {
  const apiUrl = env.PARLEY_API_URL?.trim() || "http://localhost:4000";
  const localToken = env.PARLEY_LOCAL_TOKEN?.trim() || null;
  return { api_url: apiUrl.replace(/\/+$/, ""), local_token: localToken };
}
