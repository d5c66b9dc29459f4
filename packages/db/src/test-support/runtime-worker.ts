// A Parley process for the multi-process tests: a SessionRuntime over the Postgres adapters, driven
// by its parent over IPC. Its agent asks for approval before appending a line to a file (the side
// effect whose count the tests check; each line names the process that ran it), or, for a prompt
// "direct-…", appends without asking (checkpoint 4). Run with `node --conditions=parley-source --import tsx`.
import { appendFileSync } from "node:fs";
import {
  composeRuntime,
  define_agent_tool,
  isParleyError,
  type Session,
  type SessionMutation,
} from "@parley/session-core";
import { createScriptedModel } from "@parley/session-core/testing";
import { z } from "zod";
import { createDatabase } from "../create-database.js";
import type { WorkerCommand, WorkerMessage } from "./runtime-worker-protocol.js";

export const NOTES_AGENT_ID = "agent:notes";

/** The API's default recovery interval (`PARLEY_RECOVER_INTERVAL_MS`), in ms. */
const PRODUCTION_RECOVER_INTERVAL_MS = 1_000;

function send(message: WorkerMessage): void {
  process.send?.(message);
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}

async function main(): Promise<void> {
  const effectsFile = required("PARLEY_WORKER_EFFECTS_FILE");
  const name = required("PARLEY_WORKER_NAME");
  const database = await createDatabase({
    url: required("PARLEY_WORKER_DATABASE_URL"),
    migrate: false,
    holder_id: `worker:${required("PARLEY_WORKER_NAME")}`,
    bus_url: process.env.PARLEY_WORKER_BUS_URL || undefined,
  });

  const writeNote = define_agent_tool({
    description: "Append a line to the notes file, after approval.",
    input_schema: z.object({ line: z.string(), hang_after_approval: z.boolean().optional() }),
    // It appends only after its approval returned: that approval is its checkpoint.
    side_effects: "after_asking",
    async execute({ line, hang_after_approval }, context) {
      const decision = await context.interactions.approval.request({
        turn_id: context.turn_id,
        tool_call_id: context.tool_call_id,
        tool_name: "write_note",
        payload: { operation: "write", validated_input: { line } },
      });
      if (!decision.approved) return { written: false };
      if (hang_after_approval) {
        send({ type: "tool-running", tool_call_id: context.tool_call_id });
        await new Promise(() => undefined);
      }
      appendFileSync(effectsFile, `${line} by ${name}\n`);
      return { written: true };
    },
  });
  // Side effects anywhere (the default): committed `running` before `execute` (checkpoint 4).
  const appendNote = define_agent_tool({
    description: "Append a line to the notes file, without asking.",
    input_schema: z.object({ line: z.string(), hang_after_effect: z.boolean() }),
    async execute({ line, hang_after_effect }, context) {
      appendFileSync(effectsFile, `${line} by ${name}\n`);
      if (hang_after_effect) {
        send({ type: "tool-running", tool_call_id: context.tool_call_id });
        await new Promise(() => undefined);
      }
      return { written: true };
    },
  });
  // Stateless script (each process has its own model): a prompt "note-X" calls write_note once, a
  // prompt "direct-X" append_note;
  // once the prompt ends with a tool result, the model answers with text.
  const model = createScriptedModel((call) => {
    const last = call.prompt.at(-1);
    if (last?.role === "tool") return [{ text: `done ${call.last_user_text ?? ""}` }];
    const query = call.last_user_text ?? "note";
    if (query.startsWith("direct-")) {
      const input = { line: query, hang_after_effect: query.includes("hang") };
      return [{ tool_call: { id: `call_${query}`, name: "append_note", input } }];
    }
    return [
      {
        tool_call: {
          id: `call_${query}`,
          name: "write_note",
          input: { line: query, hang_after_approval: query.startsWith("hang") },
        },
      },
    ];
  });
  // As the API runs (DESIGN §10.7): a startup recovery pass, then the loop every
  // PARLEY_WORKER_RECOVER_MS (default: the API's PARLEY_RECOVER_INTERVAL_MS default). 0 is the
  // opt-out for a test that runs each pass itself (the `recover` command).
  const recoverEvery = Number(process.env.PARLEY_WORKER_RECOVER_MS ?? PRODUCTION_RECOVER_INTERVAL_MS);
  const { runtime, start, close } = composeRuntime({
    adapters: database,
    agent: { agent_id: NOTES_AGENT_ID, model, tools: { write_note: writeNote, append_note: appendNote } },
    // Production parks waiting Turns (DESIGN §10.7); PARLEY_WORKER_PARKING=off is the live-waiter
    // variant, tested as such.
    park_waiting_turns: process.env.PARLEY_WORKER_PARKING !== "off",
    ...(recoverEvery > 0 ? { recover_interval_ms: recoverEvery } : {}),
  });
  if (recoverEvery > 0) await start();

  const sessions = new Map<string, Session>();
  const open = async (session_id: string): Promise<Session> => {
    const known = sessions.get(session_id);
    if (known) return known;
    const session = await runtime.openSession(session_id);
    if (!session) throw new Error(`No session ${session_id}`);
    sessions.set(session_id, session);
    return session;
  };

  const handle = async (command: WorkerCommand): Promise<unknown> => {
    switch (command.command) {
      case "create": {
        const session = await runtime.createSession({ owner_id: "user:owner", agent_id: NOTES_AGENT_ID });
        sessions.set(session.id, session);
        return session.id;
      }
      case "prompt": {
        const session = await open(command.session_id);
        const turn = await session.prompt({ query: command.query });
        void turn.finished.then((result) =>
          send({ type: "turn-finished", session_id: command.session_id, turn_id: turn.id, result }),
        );
        return turn.id;
      }
      case "respond": {
        const session = await open(command.session_id);
        return session.respond({
          interaction_id: command.interaction_id,
          response: {
            type: "approval",
            outcome: command.decision === "approved" ? "resolved" : "denied",
            payload: { decision: command.decision },
          },
        });
      }
      case "respond-many": {
        const session = await open(command.session_id);
        const outcomes = await Promise.allSettled(
          Array.from({ length: command.count }, () =>
            session.respond({
              interaction_id: command.interaction_id,
              response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
            }),
          ),
        );
        return outcomes.map((outcome) =>
          outcome.status === "fulfilled"
            ? { ok: true, status: outcome.value.status }
            : {
                ok: false,
                code: isParleyError(outcome.reason) ? outcome.reason.code : String(outcome.reason),
              },
        );
      }
      case "subscribe": {
        const session = await open(command.session_id);
        session.subscribe((mutation: SessionMutation) =>
          send({ type: "mutation", session_id: command.session_id, mutation }),
        );
        return null;
      }
      case "recover":
        return (await runtime.recover()).resumed_session_ids;
      case "shutdown":
        await close();
        await database.close();
        setImmediate(() => process.exit(0));
        return null;
    }
  };

  process.on("message", (raw) => {
    const command = raw as WorkerCommand;
    handle(command).then(
      (value) => send({ type: "reply", id: command.id, ok: true, value }),
      (error: unknown) =>
        send({
          type: "reply",
          id: command.id,
          ok: false,
          error: {
            message: error instanceof Error ? error.message : String(error),
            ...(isParleyError(error) ? { code: error.code } : {}),
          },
        }),
    );
  });
  send({ type: "ready", pid: process.pid });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
