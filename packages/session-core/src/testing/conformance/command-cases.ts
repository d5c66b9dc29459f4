import { describe, expect, it } from "vitest";
import { ParleyError } from "../../errors.js";
import type { EnqueueCommandInput } from "../../ports/session-store.js";
import type { NewSessionCommand } from "../../schema/session-command.js";
import { T0 } from "../fixtures.js";
import { type ConformanceContext, createSession, expectConflict } from "./context.js";

let counter = 0;

function enqueue(
  context: ConformanceContext,
  session_id: string,
  command: NewSessionCommand,
  extra: Partial<EnqueueCommandInput> = {},
) {
  counter += 1;
  return context.store.enqueueCommand({
    session_id,
    command_id: `command:${counter}`,
    command,
    created_at: T0 + counter,
    new_turn_id: `turn:${counter}`,
    ...extra,
  });
}

const prompt = (query: string, request_id?: string): NewSessionCommand => ({
  kind: "prompt",
  input: { query },
  ...(request_id === undefined ? {} : { request_id }),
});

const set: NewSessionCommand = {
  kind: "set",
  input: {
    input: { security: { approval_mode: "always-allow" } },
    persist_action: true,
    publish_mutation: true,
  },
};

/** Durable session commands (docs/behaviour.md#commands). */
export function describeCommandConformance(context: ConformanceContext): void {
  describe("session commands", () => {
    it("a first prompt starts a new Turn; later prompts join it until that Turn's finish", async () => {
      await createSession(context, "session:a");
      expect(await context.store.getActiveTurnId("session:a")).toBeNull();
      const first = await enqueue(context, "session:a", prompt("one"), { new_turn_id: "turn:first" });
      expect(first).toMatchObject({
        created: true,
        command: { kind: "prompt", turn_id: "turn:first", status: "queued" },
      });
      const second = await enqueue(context, "session:a", prompt("two"), { new_turn_id: "turn:other" });
      expect(second.command.turn_id).toBe("turn:first");
      expect(await context.store.getActiveTurnId("session:a")).toBe("turn:first");
      await context.store.commit({
        session_id: "session:a",
        settle_commands: [
          { command_id: first.command.command_id, status: "applied" },
          { command_id: second.command.command_id, status: "applied" },
        ],
        ends_turn: { turn_id: "turn:first", cancel_queued_prompts: false },
      });
      expect(await context.store.getActiveTurnId("session:a")).toBeNull();
      const third = await enqueue(context, "session:a", prompt("three"), { new_turn_id: "turn:next" });
      expect(third.command.turn_id).toBe("turn:next");
    });

    it("a commit that reports the queued commands returns them as of that commit, in queue order; others report none", async () => {
      await createSession(context, "session:a");
      const a = await enqueue(context, "session:a", set);
      const b = await enqueue(context, "session:a", prompt("go"));
      const reported = await context.store.commit({ session_id: "session:a", report_queued_commands: true });
      expect(reported.queued_commands?.map((command) => command.command_id)).toEqual([
        a.command.command_id,
        b.command.command_id,
      ]);
      expect(reported.queued_commands).toEqual(await context.store.listQueuedCommands("session:a"));
      expect((await context.store.commit({ session_id: "session:a" })).queued_commands).toBeUndefined();
      const settled = await context.store.commit({
        session_id: "session:a",
        report_queued_commands: true,
        settle_commands: [{ command_id: a.command.command_id, status: "applied" }],
      });
      expect(settled.queued_commands).toBeUndefined();
      const after = await context.store.commit({ session_id: "session:a", report_queued_commands: true });
      expect(after.queued_commands?.map((command) => command.command_id)).toEqual([b.command.command_id]);
    });

    it("lists queued commands in commit order and keeps settled ones out", async () => {
      await createSession(context, "session:a");
      const a = await enqueue(context, "session:a", set);
      const b = await enqueue(context, "session:a", prompt("go"));
      const c = await enqueue(context, "session:a", { kind: "stop", input: { reason: "turn_stopped" } });
      expect(
        (await context.store.listQueuedCommands("session:a")).map((command) => command.command_id),
      ).toEqual([a.command.command_id, b.command.command_id, c.command.command_id]);
      const result = { stopped: false, cancelled_queued_prompts: 0, reason: "idle" as const };
      await context.store.commit({
        session_id: "session:a",
        settle_commands: [{ command_id: c.command.command_id, status: "applied", result }],
      });
      expect((await context.store.listQueuedCommands("session:a")).map((command) => command.kind)).toEqual([
        "set",
        "prompt",
      ]);
      expect(await context.store.getCommand("session:a", c.command.command_id)).toMatchObject({
        kind: "stop",
        status: "applied",
        result,
      });
      expect(await context.store.getCommand("session:a", a.command.command_id)).toStrictEqual(a.command);
    });

    it("the same request_id returns the first command and writes nothing, per session", async () => {
      await createSession(context, "session:a");
      await createSession(context, "session:b");
      const first = await enqueue(context, "session:a", prompt("hi", "request:1"));
      const again = await enqueue(context, "session:a", prompt("other", "request:1"));
      expect(again).toStrictEqual({ created: false, auto_titled: false, command: first.command });
      const elsewhere = await enqueue(context, "session:b", prompt("hi", "request:1"));
      expect(elsewhere.created).toBe(true);
      expect(await context.store.listQueuedCommands("session:a")).toHaveLength(1);
      const concurrent = await Promise.all(
        Array.from({ length: 5 }, () => enqueue(context, "session:a", prompt("x", "request:2"))),
      );
      expect(concurrent.filter((result) => result.created)).toHaveLength(1);
      expect(new Set(concurrent.map((result) => result.command.command_id)).size).toBe(1);
    });

    it("a Turn's finish fails while a prompt queued for it is not applied, unless it cancels them", async () => {
      await createSession(context, "session:a");
      const queued = await enqueue(context, "session:a", prompt("go"), { new_turn_id: "turn:t" });
      await expectConflict(
        context.store.commit({
          session_id: "session:a",
          ends_turn: { turn_id: "turn:t", cancel_queued_prompts: false },
        }),
        "queued",
      );
      expect(await context.store.getActiveTurnId("session:a")).toBe("turn:t");
      await context.store.commit({
        session_id: "session:a",
        ends_turn: { turn_id: "turn:t", cancel_queued_prompts: true },
      });
      expect(await context.store.getCommand("session:a", queued.command.command_id)).toMatchObject({
        status: "cancelled",
      });
      expect(await context.store.getActiveTurnId("session:a")).toBeNull();
    });

    it("a Turn's finish that applies one queued prompt and cancels the rest settles each once", async () => {
      await createSession(context, "session:a");
      const applied = await enqueue(context, "session:a", prompt("one"), { new_turn_id: "turn:t" });
      const dropped = await enqueue(context, "session:a", prompt("two"));
      await context.store.commit({
        session_id: "session:a",
        settle_commands: [{ command_id: applied.command.command_id, status: "applied" }],
        ends_turn: { turn_id: "turn:t", cancel_queued_prompts: true },
      });
      expect(await context.store.getCommand("session:a", applied.command.command_id)).toMatchObject({
        status: "applied",
      });
      expect(await context.store.getCommand("session:a", dropped.command.command_id)).toMatchObject({
        status: "cancelled",
      });
      expect(await context.store.listQueuedCommands("session:a")).toEqual([]);
      expect(await context.store.getActiveTurnId("session:a")).toBeNull();
    });

    it("settling a command that is no longer queued fails the whole commit", async () => {
      await createSession(context, "session:a");
      const queued = await enqueue(context, "session:a", set);
      const settle = { command_id: queued.command.command_id, status: "applied" as const };
      await context.store.commit({ session_id: "session:a", settle_commands: [settle] });
      await expectConflict(
        context.store.commit({
          session_id: "session:a",
          settle_commands: [settle],
          session_patch: { title: "changed" },
        }),
        "revision",
      );
      expect((await context.store.getSession("session:a"))?.title).not.toBe("changed");
    });

    it("a set commits its session patch with the command", async () => {
      await createSession(context, "session:a", { approval_mode: "ask" });
      await enqueue(context, "session:a", set, { session_patch: { approval_mode: "always-allow" } });
      expect((await context.store.getSession("session:a"))?.approval_mode).toBe("always-allow");
    });

    it("a model set commits the configured model_id with the command and leaves the effective one", async () => {
      await createSession(context, "session:a", { model_id: "model:a", effective_model_id: "model:a" });
      await enqueue(
        context,
        "session:a",
        {
          kind: "set",
          input: { input: { model_id: "model:b" }, persist_action: true, publish_mutation: true },
        },
        { session_patch: { model_id: "model:b" } },
      );
      expect(await context.store.getSession("session:a")).toMatchObject({
        model_id: "model:b",
        effective_model_id: "model:a",
      });
      const [queued] = await context.store.listQueuedCommands("session:a");
      expect(queued?.kind === "set" ? queued.input.input : undefined).toEqual({ model_id: "model:b" });
    });

    it("lists the open sessions with a queued prompt or stop, by session id, page after page", async () => {
      await createSession(context, "session:a");
      await createSession(context, "session:b");
      await createSession(context, "session:c");
      await enqueue(context, "session:b", prompt("b"));
      await enqueue(context, "session:a", { kind: "stop", input: { reason: "turn_stopped" } });
      await enqueue(context, "session:c", set);
      expect(await context.store.listSessionsWithQueuedCommands({ limit: 10 })).toEqual([
        "session:a",
        "session:b",
      ]);
      expect(await context.store.listSessionsWithQueuedCommands({ limit: 1 })).toEqual(["session:a"]);
      expect(await context.store.listSessionsWithQueuedCommands({ after: "session:a", limit: 1 })).toEqual([
        "session:b",
      ]);
      expect(await context.store.listSessionsWithQueuedCommands({ after: "session:b", limit: 1 })).toEqual(
        [],
      );
    });

    it("a closed session refuses commands and every later write", async () => {
      await createSession(context, "session:a");
      await context.store.commit({ session_id: "session:a", session_patch: { closed_at: T0 + 1 } });
      await expect(enqueue(context, "session:a", prompt("late"))).rejects.toSatisfy(
        (error) => error instanceof ParleyError && error.code === "session_closed",
      );
      await expect(
        context.store.commit({ session_id: "session:a", session_patch: { title: "late" } }),
      ).rejects.toSatisfy((error) => error instanceof ParleyError && error.code === "session_closed");
      expect(await context.store.listSessionsWithQueuedCommands({ limit: 10 })).toEqual([]);
    });

    it("a prompt's auto_title names an untitled session, only while it is untitled", async () => {
      await createSession(context, "session:a", { title: "" });
      const first = await enqueue(context, "session:a", prompt("one"), { auto_title: "one" });
      expect(first.auto_titled).toBe(true);
      expect((await context.store.getSession("session:a"))?.title).toBe("one");
      const second = await enqueue(context, "session:a", prompt("two"), { auto_title: "two" });
      expect(second.auto_titled).toBe(false);
      expect((await context.store.getSession("session:a"))?.title).toBe("one");

      await createSession(context, "session:b", { title: "" });
      await context.store.commit({ session_id: "session:b", session_patch: { title: "renamed" } });
      const renamed = await enqueue(context, "session:b", prompt("three"), { auto_title: "three" });
      expect(renamed.auto_titled).toBe(false);
      expect((await context.store.getSession("session:b"))?.title).toBe("renamed");

      await createSession(context, "session:c", { title: "" });
      const plain = await enqueue(context, "session:c", prompt("four"));
      expect(plain.auto_titled).toBe(false);
      expect((await context.store.getSession("session:c"))?.title).toBe("");
    });
  });
}
