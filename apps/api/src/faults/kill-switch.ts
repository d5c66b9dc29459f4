import { createRequire } from "node:module";

/**
 * Where in an interaction's life the API process kills itself with SIGKILL (fault suite only):
 * - `request-commit`: the transaction that creates a pending Interaction has written its rows and
 *   is about to COMMIT; the COMMIT is never sent.
 * - `respond-commit`: the transaction that answers an Interaction has written its rows and is about
 *   to COMMIT; the COMMIT is never sent (Postgres rolls it back when the connection drops).
 * - `respond-committed`: that COMMIT succeeded; the process dies before the result reaches the
 *   runtime, so the waiting tool never resumes in this process.
 */
export type FaultPhase = "request-commit" | "respond-commit" | "respond-committed";

export const FAULT_PHASE_ENV = "PARLEY_FAULT_PHASE";

const FAULT_PHASES: readonly FaultPhase[] = ["request-commit", "respond-commit", "respond-committed"];

/** INSERT INTO / UPDATE of the `interactions` table, however the store quotes or qualifies it. */
const INTERACTIONS_WRITE = /\b(?:insert\s+into|update)\s+(?:"?public"?\.)?"?interactions"?[\s(]/i;

interface QueryConfigLike {
  text?: unknown;
  values?: unknown;
}

function queryParts(args: unknown[]): { text: string; values: unknown[] } {
  const [first, second] = args;
  if (typeof first === "string") return { text: first, values: Array.isArray(second) ? second : [] };
  const config = (first ?? {}) as QueryConfigLike;
  const values = Array.isArray(config.values) ? config.values : Array.isArray(second) ? second : [];
  return { text: typeof config.text === "string" ? config.text : "", values };
}

/**
 * A bound value that sets one of `statuses`: the bare column value, or a JSON document of rows
 * (`jsonb_to_recordset($1)`, as `@parley/db` writes several rows in one statement).
 */
function carriesStatus(value: unknown, statuses: readonly string[]): boolean {
  if (typeof value !== "string") return false;
  return statuses.some((status) => value === status || value.includes(`"status":"${status}"`));
}

function killNow(): never {
  process.kill(process.pid, "SIGKILL");
  // SIGKILL to ourselves does not return; this only satisfies the type checker.
  throw new Error("unreachable");
}

/**
 * Wraps `pg.Client.prototype.query` of the process's `pg` (the driver under Prisma's adapter and
 * under the NOTIFY bus) so that the API dies at exactly `phase`. A connection is armed when, inside
 * a transaction, it writes the `interactions` table with a bound value that sets the status that
 * phase is about (`pending` for a request, `resolved`/`denied` for an answer); its next COMMIT is
 * the fault point. Outside a transaction such a write is a whole revision in one statement, and
 * the statement itself is the fault point. The runtime is untouched: this only observes the SQL the store sends.
 */
export function installKillSwitch(phase: FaultPhase): void {
  const require = createRequire(import.meta.url);
  const pg = require("pg") as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
  const original = pg.Client.prototype.query;
  const armed = new WeakSet<object>();
  const inTransaction = new WeakSet<object>();
  const statuses = phase === "request-commit" ? ["pending"] : ["resolved", "denied"];

  /** Runs the query and dies once it succeeded, before the caller sees the result (promise or callback, as `pg.Pool` calls it). */
  const killAfterSuccess = (client: object, args: unknown[]) => {
    const callback = args.at(-1);
    if (typeof callback === "function") {
      const wrapped = (error: unknown, ...rest: unknown[]) => {
        if (!error) killNow();
        return (callback as (...values: unknown[]) => unknown)(error, ...rest);
      };
      return original.apply(client, [...args.slice(0, -1), wrapped]);
    }
    const result = original.apply(client, args);
    if (result instanceof Promise) return result.then(() => killNow());
    return result;
  };

  pg.Client.prototype.query = function patchedQuery(this: object, ...args: unknown[]) {
    const { text, values } = queryParts(args);
    const statement = text.trim().toUpperCase();
    if (INTERACTIONS_WRITE.test(text) && values.some((value) => carriesStatus(value, statuses))) {
      if (!inTransaction.has(this)) {
        // A revision committed as ONE statement (autocommit, `@parley/db`'s commit path): the
        // statement is its own COMMIT, so it is killed before it is sent, or right after its result.
        if (phase !== "respond-committed") killNow();
        return killAfterSuccess(this, args);
      }
      armed.add(this);
    } else if (statement === "BEGIN" || statement.startsWith("ROLLBACK")) {
      armed.delete(this);
      if (statement === "BEGIN") inTransaction.add(this);
      else inTransaction.delete(this);
    } else if (statement === "COMMIT") {
      // Every COMMIT ends the transaction, armed or not: a pooled connection that ran an unrelated
      // transaction (e.g. a queued session command) must not count as inside one afterwards.
      inTransaction.delete(this);
      if (!armed.has(this)) return original.apply(this, args);
      armed.delete(this);
      if (phase !== "respond-committed") killNow();
      const result = original.apply(this, args);
      if (result instanceof Promise) return result.then(() => killNow());
      return result;
    }
    return original.apply(this, args);
  };
}

export function faultPhaseFromEnv(env: Record<string, string | undefined>): FaultPhase | null {
  const value = env[FAULT_PHASE_ENV];
  if (value === undefined || value === "") return null;
  if (!FAULT_PHASES.includes(value as FaultPhase)) {
    throw new Error(`${FAULT_PHASE_ENV} must be one of ${FAULT_PHASES.join(", ")}, got ${value}`);
  }
  return value as FaultPhase;
}
