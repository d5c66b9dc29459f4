/** The request header through which `src/proxy.ts` hands the per-request nonce to the layout. */
export const NONCE_HEADER = "x-nonce";

/** `ws(s)://` of an `http(s)://` origin: the API's WebSocket. */
function webSocketOrigin(origin: string): string {
  return origin.replace(/^http/, "ws");
}

/**
 * The Content-Security-Policy of every page (DESIGN §10.8): `default-src 'self'`, plus what Next
 * needs and nothing more.
 * - Scripts: Next's inline bootstrap and flight data carry the per-request nonce; `'strict-dynamic'`
 *   lets the chunks those load run. No `'unsafe-inline'`, no `'unsafe-eval'` (production build).
 * - Styles: the app's stylesheets and Next's are files (`'self'`); an inline style needs the nonce.
 * - Connections: this origin, and the API over HTTP and WebSocket (it may sit on another port).
 * - Images: this origin and `data:`/`blob:` only, so agent markdown can never make the browser
 *   fetch a remote URL (the renderer shows no images either: `components/markdown.tsx`).
 * - No frames, objects, foreign forms or framing by others.
 */
export function contentSecurityPolicy(options: { nonce: string; api_url: string }): string {
  const api = new URL(options.api_url).origin;
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${options.nonce}' 'strict-dynamic'`,
    `style-src 'self' 'nonce-${options.nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src 'self' ${api} ${webSocketOrigin(api)}`,
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
