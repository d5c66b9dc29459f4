import { describe, expect, it } from "vitest";
import { StoreConflictError } from "../../errors.js";
import { buildUserMessage, messageCommitOf, T0 } from "../fixtures.js";
import { type ConformanceContext, createSession, expectConflict, snapshotSession } from "./context.js";

const SESSION = "session:q";

/** A session whose Turn `turn:q` was started by prompt `a`, with `b` and `c` queued behind it. */
async function sessionWithQueue(context: ConformanceContext) {
  await createSession(context, SESSION);
  const enqueue = (n: number, request_id: string) =>
    context.store.enqueueCommand({
      session_id: SESSION,
      command_id: `command:${n}`,
      command: { kind: "prompt", input: { query: `prompt ${request_id}` }, request_id },
      created_at: T0 + n,
      new_turn_id: `turn:${n === 1 ? "q" : "other"}`,
    });
  const a = await enqueue(1, "a");
  const b = await enqueue(2, "b");
  const c = await enqueue(3, "c");
  return { a: a.command, b: b.command, c: c.command };
}

/** The commit a Turn makes when it takes a queued prompt: its user message, settling the command. */
function applyPrompt(command_id: string, sequence: number) {
  return messageCommitOf(
    buildUserMessage({ session_id: SESSION, message_id: `message:${sequence}`, sequence }),
    {
      settle_commands: [{ command_id, status: "applied" }],
    },
  );
}

const withdraw = (context: ConformanceContext, request_id: string) =>
  context.store.withdrawPrompt({ session_id: SESSION, request_id, settled_at: T0 + 100 });

/** Queued prompts (docs/behaviour.md#commands): listed, withdrawn, and never both withdrawn and applied. */
export function describeQueuedPromptConformance(context: ConformanceContext): void {
  describe("queued prompts", () => {
    it("lists the prompts that joined a Turn, not the one that starts it, in commit order", async () => {
      const { b, c } = await sessionWithQueue(context);
      expect(await context.store.listQueuedPrompts(SESSION)).toEqual([b, c]);
      expect(await context.store.listQueuedPrompts("session:missing")).toEqual([]);
    });

    it("withdraws a queued prompt once; a retry says withdrawn again; the starting prompt and unknown ids are refused", async () => {
      const { b } = await sessionWithQueue(context);
      expect(await withdraw(context, "c")).toBe("withdrawn");
      expect(await withdraw(context, "c")).toBe("withdrawn");
      expect(await context.store.listQueuedPrompts(SESSION)).toEqual([b]);
      expect(await context.store.getCommand(SESSION, "command:3")).toMatchObject({ status: "cancelled" });
      expect(await withdraw(context, "a")).toBe("starts_turn");
      expect(await context.store.getCommand(SESSION, "command:1")).toMatchObject({ status: "queued" });
      expect(await withdraw(context, "missing")).toBe("not_found");
    });

    it("a prompt its Turn applied first cannot be withdrawn", async () => {
      await sessionWithQueue(context);
      await context.store.commit(applyPrompt("command:2", 1));
      expect(await withdraw(context, "b")).toBe("applied");
      expect(await context.store.getCommand(SESSION, "command:2")).toMatchObject({ status: "applied" });
    });

    it("a withdrawn prompt cannot be applied: the Turn's commit fails and writes nothing", async () => {
      await sessionWithQueue(context);
      expect(await withdraw(context, "b")).toBe("withdrawn");
      const before = await snapshotSession(context, SESSION);
      await expectConflict(context.store.commit(applyPrompt("command:2", 1)), "revision");
      expect(await snapshotSession(context, SESSION)).toEqual(before);
    });

    it("a withdrawal racing the Turn that applies the prompt: exactly one of them wins", async () => {
      await sessionWithQueue(context);
      const [withdrawal, applied] = await Promise.allSettled([
        withdraw(context, "b"),
        context.store.commit(applyPrompt("command:2", 1)),
      ]);
      const command = await context.store.getCommand(SESSION, "command:2");
      const messages = (await context.store.listMessages(SESSION, { limit: 10 })).items;
      if (applied.status === "fulfilled") {
        expect(withdrawal).toEqual({ status: "fulfilled", value: "applied" });
        expect(command?.status).toBe("applied");
        expect(messages).toHaveLength(1);
      } else {
        expect(applied.reason).toBeInstanceOf(StoreConflictError);
        expect(withdrawal).toEqual({ status: "fulfilled", value: "withdrawn" });
        expect(command?.status).toBe("cancelled");
        expect(messages).toEqual([]);
      }
    });
  });
}
