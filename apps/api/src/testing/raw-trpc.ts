/** What a raw tRPC HTTP call answered: the status and either the data or the error's codes. */
export interface RawTrpcResult {
  status: number;
  data?: unknown;
  error?: { message: string; code: string; parley_code: string | null };
}

/**
 * Calls one procedure over plain HTTP with any input at all (no client-side typing or
 * validation), as a hostile or buggy client would. `input` undefined sends none.
 */
export async function callRaw(options: {
  url: string;
  token: string | null;
  path: string;
  kind: "query" | "mutation";
  input?: unknown;
  /** Sent verbatim as the POST body instead of `JSON.stringify(input)`. */
  raw_body?: string;
}): Promise<RawTrpcResult> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.token !== null) headers.authorization = `Bearer ${options.token}`;
  let response: Response;
  if (options.kind === "query") {
    const query =
      options.input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(options.input))}`;
    response = await fetch(`${options.url}/trpc/${options.path}${query}`, { headers });
  } else {
    response = await fetch(`${options.url}/trpc/${options.path}`, {
      method: "POST",
      headers,
      body: options.raw_body ?? (options.input === undefined ? undefined : JSON.stringify(options.input)),
    });
  }
  const text = await response.text();
  let body: { result?: { data?: unknown }; error?: { message?: string; data?: Record<string, unknown> } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`Non-JSON answer (${response.status}) from ${options.path}: ${text.slice(0, 200)}`);
  }
  if (body.error !== undefined) {
    return {
      status: response.status,
      error: {
        message: body.error.message ?? "",
        code: String(body.error.data?.code ?? ""),
        parley_code: (body.error.data?.parley_code as string | null | undefined) ?? null,
      },
    };
  }
  return { status: response.status, data: body.result?.data };
}
