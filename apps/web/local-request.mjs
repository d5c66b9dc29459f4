// Who may receive the local admin token (README.md#sign-in-tokens-and-limits): a browser on this
// machine, i.e. a loopback peer that also named the server `localhost` or `127.0.0.1` in its Host
// header. The Host check stops DNS rebinding: a page from evil.example whose name now resolves to
// 127.0.0.1 still sends `Host: evil.example`.

/** The request header `server.mjs` sets (to a per-process secret) for a local request only. */
export const LOCAL_PEER_HEADER = "x-parley-local-peer";

const LOCAL_HOST_NAMES = new Set(["localhost", "127.0.0.1"]);

/** @param {string | undefined} address */
function isLoopbackAddress(address) {
  if (address === undefined) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
  return v4.startsWith("127.") || address === "::1";
}

/** @param {string | undefined} host */
function isLocalHostHeader(host) {
  if (host === undefined) return false;
  const match = /^([^:]+)(?::\d{1,5})?$/.exec(host.trim().toLowerCase());
  return match !== null && LOCAL_HOST_NAMES.has(match[1] ?? "");
}

/**
 * @param {{ remoteAddress: string | undefined, host: string | undefined }} request
 * @returns {boolean}
 */
export function isLocalRequest(request) {
  return isLoopbackAddress(request.remoteAddress) && isLocalHostHeader(request.host);
}
