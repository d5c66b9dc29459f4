/**
 * The WebSocket constructor the tRPC ws client uses. Browsers (and Node ≥ 22) have a global one.
 * Node 20 has none, so the `ws` package is loaded — lazily, with a dynamic import that bundlers
 * leave alone, so browser bundles never pull it in.
 *
 * tRPC constructs the socket synchronously but resolves the URL asynchronously first; the URL
 * callback awaits `loadWebSocketImplementation()`, so by construction time the implementation is
 * known and the constructor below hands out a real socket.
 */
type WebSocketConstructor = typeof globalThis.WebSocket;

let loaded: WebSocketConstructor | null = null;

export async function loadWebSocketImplementation(): Promise<WebSocketConstructor> {
  if (loaded !== null) return loaded;
  if (typeof globalThis.WebSocket === "function") {
    loaded = globalThis.WebSocket;
    return loaded;
  }
  const moduleName = "ws";
  const imported = (await import(/* webpackIgnore: true */ /* @vite-ignore */ moduleName)) as {
    WebSocket?: unknown;
    default?: unknown;
  };
  loaded = (imported.WebSocket ?? imported.default) as WebSocketConstructor;
  return loaded;
}

/** Stands in for `WebSocket` until the real one is loaded; `new` returns a real socket. */
function DeferredWebSocket(this: unknown, url: string | URL, protocols?: string | string[]): WebSocket {
  if (loaded === null) throw new Error("WebSocket implementation not loaded yet");
  return new loaded(url, protocols);
}
Object.assign(DeferredWebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });

export const deferredWebSocket = DeferredWebSocket as unknown as WebSocketConstructor;
