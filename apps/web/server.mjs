#!/usr/bin/env node
// The web app's server for `npm start` (and the browser tests): Next.js behind a plain Node HTTP
// server that also answers the local sign-in (`local-sign-in.mjs`): the one-time link and the
// cookie-for-token exchange. The token and the code stay in this module: they are removed from
// `process.env` before Next starts, so no page can render them.
//
// Env: WEB_PORT (3000), HOST (127.0.0.1), PARLEY_API_URL (what the app reads), and from `npm start`
// PARLEY_LOCAL_TOKEN with PARLEY_SIGN_IN_CODE (both or neither).
import http from "node:http";
import { fileURLToPath } from "node:url";
import next from "next";
import { createLocalSignIn } from "./local-sign-in.mjs";

const port = Number(process.env.WEB_PORT ?? 3000);
const host = process.env.HOST?.trim() || "127.0.0.1";
const localToken = process.env.PARLEY_LOCAL_TOKEN?.trim() ?? "";
const signInCode = process.env.PARLEY_SIGN_IN_CODE?.trim() ?? "";
delete process.env.PARLEY_LOCAL_TOKEN;
delete process.env.PARLEY_SIGN_IN_CODE;
const localSignIn =
  localToken !== "" && signInCode !== "" ? createLocalSignIn({ token: localToken, code: signInCode }) : null;
// Tells the app (runtime config) to ask for the local session's token; no secret.
process.env.PARLEY_LOCAL_SIGN_IN = localSignIn === null ? "off" : "on";

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
  if (localSignIn?.(request, response)) return;
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
