#!/usr/bin/env node
// The web app's server for `npm start` (and the browser tests): Next.js behind a plain Node HTTP
// server, so that the local admin token reaches only a local browser. Next's request headers cannot
// tell the peer's address (an `x-forwarded-for` sent by the client is kept), so this server decides
// from the socket and passes the answer on in a header holding a per-process secret, after dropping
// any such header the client sent. The layout renders the token only when that header matches.
//
// Env: WEB_PORT (3000), HOST (127.0.0.1), plus what the app reads (PARLEY_API_URL, PARLEY_LOCAL_TOKEN).
import { randomBytes } from "node:crypto";
import http from "node:http";
import { fileURLToPath } from "node:url";
import next from "next";
import { isLocalRequest, LOCAL_PEER_HEADER } from "./local-request.mjs";

const port = Number(process.env.WEB_PORT ?? 3000);
const host = process.env.HOST?.trim() || "127.0.0.1";
const secret = randomBytes(32).toString("hex");
// Read by the layout in this same process; never sent anywhere.
process.env.PARLEY_LOCAL_PEER_SECRET = secret;

const app = next({ dev: false, dir: fileURLToPath(new URL(".", import.meta.url)), hostname: host, port });
const handle = app.getRequestHandler();

try {
  await app.prepare();
} catch (error) {
  console.error(
    `web: ${error instanceof Error ? error.message.split("\n")[0] : error}. Fix: run npm run build first.`,
  );
  process.exit(1);
}

const server = http.createServer((request, response) => {
  delete request.headers[LOCAL_PEER_HEADER];
  if (isLocalRequest({ remoteAddress: request.socket.remoteAddress, host: request.headers.host })) {
    request.headers[LOCAL_PEER_HEADER] = secret;
  }
  void handle(request, response);
});
server.once("error", (error) => {
  const code = /** @type {NodeJS.ErrnoException} */ (error).code;
  console.error(
    code === "EADDRINUSE"
      ? `web: port ${port} on ${host} is already in use. Fix: stop the other process or set WEB_PORT.`
      : `web: cannot listen on ${host}:${port} (${error.message}).`,
  );
  process.exit(1);
});
server.listen(port, host, () => console.log(`web listening on http://${host}:${port}`));

const stop = () => server.close(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
