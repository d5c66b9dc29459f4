import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { logEntriesBetween, STORED_MESSAGE_SNAPSHOT, turnLeaseHolder } from "@parley/db/testing";
import type { SessionMutation } from "@parley/session-core";
import pg from "pg";

const apiSource = path.resolve(import.meta.dirname, "..");

/** Creates an admin with the real CLI (`cli.ts token create --admin`); returns its token. */
export function createAdminToken(databaseUrl: string, workspaceRoot: string): string {
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--conditions=parley-source",
      path.join(apiSource, "cli.ts"),
      "token",
      "create",
      "--user",
      "fault-admin",
      "--admin",
    ],
    {
      encoding: "utf8",
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PARLEY_WORKSPACE_ROOT: workspaceRoot,
        LOG_LEVEL: "warn",
      },
    },
  );
  const lines = result.stdout.trim().split("\n");
  const token = lines[lines.length - 1];
  if (result.status !== 0 || !token) throw new Error(`token create failed: ${result.stderr}${result.stdout}`);
  return token;
}

export async function withClient<T>(
  databaseUrl: string,
  action: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}

/** The session's replay log as committed: event ids in order, with their mutations. */
export function readSessionEvents(databaseUrl: string, session_id: string) {
  return withClient(databaseUrl, async (client) => {
    const statement = logEntriesBetween({ session_id, after: 0 });
    const result = await client.query<{ event_id: number; mutation: SessionMutation }>(
      statement.text,
      statement.values,
    );
    return result.rows;
  });
}

/** Every interaction row of the session (the inbox index), oldest first. */
export function readInteractions(databaseUrl: string, session_id: string) {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query<{
      interaction_id: string;
      tool_call_id: string;
      status: string;
      resumed_at: string | null;
    }>(
      "SELECT interaction_id, tool_call_id, status, resumed_at FROM interactions WHERE session_id = $1 ORDER BY created_at, interaction_id",
      [session_id],
    );
    return result.rows;
  });
}

/** Lines the side-effect command appended (0 when it never ran). */
export function sideEffectLines(workspaceRoot: string, session_id: string, file: string): string[] {
  const target = path.join(workspaceRoot, session_id, file);
  if (!existsSync(target)) return [];
  return readFileSync(target, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

/**
 * Polls `check` until it returns a value (not undefined) or `timeoutMs` passes; on timeout the
 * error carries what `diagnose` reports (e.g. the committed state), so a failure says why.
 */
export async function waitUntil<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  diagnose?: () => Promise<unknown>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const detail = diagnose ? `\n${JSON.stringify(await diagnose(), null, 1)}` : "";
      throw new Error(`timed out waiting for ${what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The committed state of a session, for failure messages. */
export async function describeSession(databaseUrl: string, session_id: string) {
  return withClient(databaseUrl, async (client) => {
    const messages = await client.query<{
      sequence: number;
      type: string;
      status: string | null;
      snapshot: unknown;
    }>(
      `SELECT m.sequence, m.type, m.status, ${STORED_MESSAGE_SNAPSHOT} AS snapshot FROM messages m
        WHERE m.session_id = $1 ORDER BY m.sequence`,
      [session_id],
    );
    const interactions = await client.query(
      "SELECT interaction_id, status, tool_call_id FROM interactions WHERE session_id = $1",
      [session_id],
    );
    const lease_holder = await turnLeaseHolder(client, session_id);
    return { messages: messages.rows, interactions: interactions.rows, lease_holder };
  });
}

/** What one client received on `session.subscribe`, in arrival order. */
export class ReceivedMutations {
  readonly items: SessionMutation[] = [];
  readonly listener = (mutation: SessionMutation): void => {
    this.items.push(mutation);
  };
  get event_ids(): number[] {
    return this.items.map((mutation) => mutation.event_id);
  }
  lastEventId(): number {
    return this.items[this.items.length - 1]?.event_id ?? 0;
  }
  find(predicate: (mutation: SessionMutation) => boolean): SessionMutation | undefined {
    return this.items.find(predicate);
  }
}

/** A mutation that publishes a tool part in `state`: its `part`, or its whole message (DESIGN §10.6). */
export function isToolState(mutation: SessionMutation, state: string): boolean {
  if (mutation.variant === "part") return mutation.part.type === "tool" && mutation.part.state === state;
  return (
    mutation.variant === "message" &&
    mutation.message.type === "assistant" &&
    mutation.message.parts.some((part) => part.type === "tool" && part.state === state)
  );
}

export function isTurnFinish(mutation: SessionMutation): boolean {
  return mutation.variant === "turn" && mutation.type === "finish";
}

/** 1, 2, …, n. */
export function consecutiveFromOne(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index + 1);
}

export interface ToolPartSnapshot {
  tool_call_id: string;
  tool_name: string;
  state: string;
  error?: string;
  interactions?: { interaction_id: string; status: string }[];
}

/** Every tool part of the session's committed assistant messages, in order. */
export function readToolParts(databaseUrl: string, session_id: string) {
  return withClient(databaseUrl, async (client) => {
    const result = await client.query<{ snapshot: { parts?: { type: string }[] } }>(
      `SELECT ${STORED_MESSAGE_SNAPSHOT} AS snapshot FROM messages m
        WHERE m.session_id = $1 AND m.type = 'assistant' ORDER BY m.sequence`,
      [session_id],
    );
    return result.rows.flatMap((row) =>
      (row.snapshot.parts ?? []).filter((part) => part.type === "tool"),
    ) as unknown as ToolPartSnapshot[];
  });
}
