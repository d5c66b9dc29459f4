import { parseArgs } from "node:util";
import { pino } from "pino";
import { parseDuration } from "./auth/duration.js";
import { openDatabase } from "./database-connection.js";
import { parseEnv } from "./env.js";
import { createLogger } from "./logger.js";
import { describeStartupFailure } from "./startup-failure.js";

const USAGE = [
  "usage: parley token create --user NAME [--admin] [--expires-in DURATION]   (DURATION: 90s, 15m, 12h, 30d, 2w)",
  "       parley token revoke --user NAME",
].join("\n");

class UsageError extends Error {}

type Command =
  | { kind: "create"; name: string; admin: boolean; expires_in_ms: number | null }
  | { kind: "revoke"; name: string };

function parseCommand(argv: string[]): Command {
  const [group, command, ...rest] = argv;
  if (group !== "token" || (command !== "create" && command !== "revoke")) throw new UsageError();
  const { values } = parseArgs({
    args: rest,
    options: {
      user: { type: "string" },
      admin: { type: "boolean", default: false },
      "expires-in": { type: "string" },
    },
    strict: true,
  });
  const name = values.user?.trim();
  if (name === undefined || name === "") throw new UsageError();
  if (command === "revoke") {
    if (values.admin || values["expires-in"] !== undefined) throw new UsageError();
    return { kind: "revoke", name };
  }
  const expiresIn = values["expires-in"];
  const expires_in_ms = expiresIn === undefined ? null : parseDuration(expiresIn);
  if (expiresIn !== undefined && expires_in_ms === null) throw new UsageError();
  return { kind: "create", name, admin: values.admin, expires_in_ms };
}

/**
 * `npm run parley -- token create --user NAME [--admin] [--expires-in 30d]`: creates the user if
 * needed and prints a new token as the last line of stdout. `token revoke --user NAME` deletes
 * every token of the user (running APIs refuse them within about a second and close their
 * WebSockets). Talks to the database directly, so it works with the API stopped (and bootstraps the
 * first admin).
 */
async function runCli(argv: string[]): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv);
  } catch {
    console.error(USAGE);
    return 2;
  }
  const env = parseEnv(process.env);
  const logger = createLogger(env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL, pino.destination(2));
  const opened = await openDatabase(env, logger);
  try {
    const { auth } = opened.database;
    if (command.kind === "revoke") {
      const user = await auth.findUserByName(command.name);
      if (user === null) {
        console.error(`No user named ${command.name}`);
        return 1;
      }
      const revoked = await auth.revokeTokens(user.user_id);
      process.stdout.write(`revoked ${revoked} token(s) of ${user.name} (${user.user_id})\n`);
      return 0;
    }
    const role = command.admin ? "admin" : "member";
    const user = await auth.ensureUser({ name: command.name, role });
    const expires_at = command.expires_in_ms === null ? null : Date.now() + command.expires_in_ms;
    const token = await auth.issueToken(user.user_id, { expires_at });
    const expiry = expires_at === null ? "" : `, expires ${new Date(expires_at).toISOString()}`;
    process.stdout.write(`user ${user.name} (${user.role}) ${user.user_id}${expiry}\n${token}\n`);
    return 0;
  } finally {
    await opened.close();
  }
}

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`parley: ${describeStartupFailure(error, { host: "127.0.0.1", port: 0 })}`);
    process.exit(1);
  },
);
