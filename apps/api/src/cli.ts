import { parseArgs } from "node:util";
import { pino } from "pino";
import { openDatabase } from "./database-connection.js";
import { parseEnv } from "./env.js";
import { createLogger } from "./logger.js";

const USAGE = "usage: parley token create --user NAME [--admin]";

/**
 * `npm run parley -- token create --user NAME [--admin]`: creates the user if needed and prints a
 * new token as the last line of stdout. Talks to the database directly, so it works with the API
 * stopped (and bootstraps the first admin).
 */
async function runCli(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group !== "token" || command !== "create") {
    console.error(USAGE);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: { user: { type: "string" }, admin: { type: "boolean", default: false } },
    strict: true,
  });
  const name = values.user?.trim();
  if (name === undefined || name === "") {
    console.error(USAGE);
    return 2;
  }
  const env = parseEnv(process.env);
  const logger = createLogger(env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL, pino.destination(2));
  const opened = await openDatabase(env, logger);
  try {
    const { auth } = opened.database;
    const role = values.admin ? "admin" : "member";
    const user = await auth.ensureUser({ name, role });
    const token = await auth.issueToken(user.user_id);
    process.stdout.write(`user ${user.name} (${user.role}) ${user.user_id}\n${token}\n`);
    return 0;
  } finally {
    await opened.close();
  }
}

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
