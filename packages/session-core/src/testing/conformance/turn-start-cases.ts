import { describe, expect, it } from "vitest";
import type { StartsTurn } from "../../ports/session-store.js";
import { buildUserMessage, messageCommitOf, T0 } from "../fixtures.js";
import { type ConformanceContext, createSession, enqueuePrompt, expectConflict } from "./context.js";

/** The commit of a prompt that starts `turn_id` on an idle session (checkpoint 1 in one commit). */
function startTurn(
  context: ConformanceContext,
  session_id: string,
  turn_id: string,
  start: Partial<StartsTurn> = {},
) {
  const message = buildUserMessage({ session_id, message_id: `message:${turn_id}`, sequence: 1, turn_id });
  return context.store.commit(
    messageCommitOf(message, {
      claim: { holder: "holder:a", turn_id },
      starts_turn: { turn_id, command_id: `command:${turn_id}`, query: "hi", created_at: T0, ...start },
    }),
  );
}

/** `SessionCommit.starts_turn` (DESIGN §10.6 checkpoint 1): the prompt's acknowledgement and its Turn's start. */
export function describeTurnStartConformance(context: ConformanceContext): void {
  describe("a prompt that starts its Turn in one commit", () => {
    it("records the prompt applied, makes its Turn the active one, running and claimed, and titles an untitled session", async () => {
      await createSession(context, "session:a", { title: "" });
      const result = await startTurn(context, "session:a", "turn:a", { auto_title: "hi there" });
      expect(result.epoch).toBe(1);
      expect(result.auto_titled).toBe(true);
      expect(await context.store.getActiveTurnId("session:a")).toBe("turn:a");
      expect(await context.store.getActiveTurn("session:a")).toMatchObject({
        turn_id: "turn:a",
        state: "running",
        holder: "holder:a",
        epoch: 1,
      });
      expect(await context.store.getCommand("session:a", "command:turn:a")).toMatchObject({
        kind: "prompt",
        status: "applied",
        turn_id: "turn:a",
        input: { query: "hi" },
      });
      expect(await context.store.listQueuedCommands("session:a")).toEqual([]);
      expect((await context.store.getSession("session:a"))?.title).toBe("hi there");
      expect((await context.store.getMessage("session:a", "message:turn:a"))?.revision).toBe(1);
    });

    it("is refused as queued while a Turn is active or a command waits, and writes nothing", async () => {
      await createSession(context, "session:a");
      await startTurn(context, "session:a", "turn:a");
      await expectConflict(startTurn(context, "session:a", "turn:b"), "queued");
      await createSession(context, "session:b");
      await context.store.enqueueCommand({
        session_id: "session:b",
        command_id: "command:set-b",
        command: {
          kind: "set",
          input: {
            input: { security: { approval_mode: "always-allow" } },
            persist_action: true,
            publish_mutation: true,
          },
        },
        created_at: T0,
      });
      await expectConflict(startTurn(context, "session:b", "turn:b"), "queued");
      expect(await context.store.getActiveTurnId("session:b")).toBeNull();
      expect(await context.store.getMessage("session:b", "message:turn:b")).toBeNull();
      expect(await context.store.getActiveTurn("session:b")).toBeNull();
    });

    it("is refused as a revision conflict when its request_id was used before", async () => {
      await createSession(context, "session:a");
      await context.store.enqueueCommand({
        session_id: "session:a",
        command_id: "command:first",
        command: { kind: "prompt", input: { query: "hi" }, request_id: "request:1" },
        created_at: T0,
        new_turn_id: "turn:first",
      });
      await context.store.commit({
        session_id: "session:a",
        ends_turn: { turn_id: "turn:first", cancel_queued_prompts: true },
      });
      await expectConflict(
        startTurn(context, "session:a", "turn:a", { request_id: "request:1" }),
        "revision",
      );
      expect(await context.store.getMessage("session:a", "message:turn:a")).toBeNull();
    });

    it("a queued prompt still starts its Turn the old way: queued first", async () => {
      await createSession(context, "session:a");
      await enqueuePrompt(context, "session:a", "turn:a");
      expect((await context.store.getActiveTurn("session:a"))?.state).toBe("queued");
    });
  });
}
