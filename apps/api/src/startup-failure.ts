/**
 * What a failed start prints: one line saying what went wrong and how to fix it, never a stack
 * trace. Known causes get their fix; anything else its message folded into one line.
 */
export function describeStartupFailure(error: unknown, context: { host: string; port: number }): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "EADDRINUSE":
      return `Port ${context.port} on ${context.host} is already in use. Fix: stop the other process or set PORT to a free port.`;
    case "EADDRNOTAVAIL":
      return `Cannot listen on ${context.host}: no such address here. Fix: set HOST to 127.0.0.1, 0.0.0.0 or an address of this machine.`;
    case "EACCES":
      if (message.includes("listen")) {
        return `Not allowed to listen on ${context.host}:${context.port}. Fix: use a PORT above 1023.`;
      }
      break;
    case "ECONNREFUSED":
      return `The database refused the connection (${message}). Fix: start PostgreSQL or correct DATABASE_URL.`;
    case "ENOTFOUND":
      return `The database host was not found (${message}). Fix: correct DATABASE_URL.`;
    case "28P01":
    case "28000":
      return `The database rejected the credentials (${message}). Fix: correct the user and password in DATABASE_URL.`;
    case "3D000":
      return `The database does not exist (${message}). Fix: create it or correct DATABASE_URL.`;
  }
  // A multi-line message (e.g. every invalid env entry) is folded into the one line.
  const lines = message
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return lines.length === 0 ? "unknown error" : lines.join(" ");
}
