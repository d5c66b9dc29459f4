/**
 * The bearer token of an HTTP request (`Authorization: Bearer <token>`) or of a WebSocket / SSE
 * connection (`connectionParams.token`, since browsers cannot set headers on those).
 */
export function readBearerToken(input: {
  authorization: string | string[] | undefined;
  connectionParams: Record<string, string | undefined> | null | undefined;
}): string | null {
  const header = Array.isArray(input.authorization) ? input.authorization[0] : input.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match?.[1] !== undefined) return match[1];
  }
  const fromParams = input.connectionParams?.token;
  return typeof fromParams === "string" && fromParams.length > 0 ? fromParams : null;
}
