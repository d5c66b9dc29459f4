/**
 * The embedded PostgreSQL could not start. `message` is one line: what failed, then the fix —
 * what `npm start` and the API print instead of a stack trace.
 */
export class EmbeddedPostgresError extends Error {
  override readonly name = "EmbeddedPostgresError";

  constructor(problem: string, fix: string) {
    super(`Embedded PostgreSQL: ${problem}. Fix: ${fix}.`);
  }
}
