import { describe, expect, it } from "vitest";
import type { ActionMessage, SessionMessage } from "../../schema/messages.js";
import type { UnsequencedMutation } from "../../schema/mutation.js";
import { inJsonbKeyOrder } from "../../store/jsonb-key-order.js";
import {
  buildAssistantMessage,
  buildToolPart,
  buildUserMessage,
  messageCommitOf,
  messageMutationOf,
  partMutationOf,
  sequenced,
} from "../fixtures.js";
import { type ConformanceContext, commitMessage, createSession } from "./context.js";
import { everyMessageKind, richAssistantMessage } from "./rich-messages.js";

const SESSION = "session:a";

export function describeMessageConformance(context: ConformanceContext): void {
  describe("messages", () => {
    it("pages messages: the newest `limit` before before_sequence, listed ascending", async () => {
      await createSession(context, SESSION);
      for (const sequence of [3, 1, 5, 2, 4]) {
        await commitMessage(
          context,
          buildUserMessage({ session_id: SESSION, message_id: `message:${sequence}`, sequence }),
        );
      }
      const page = async (query: { before_sequence?: number; limit: number }) => {
        const result = await context.store.listMessages(SESSION, query);
        return { ...result, items: result.items.map((message) => message.sequence) };
      };
      expect(await page({ limit: 2 })).toEqual({ items: [4, 5], has_more: true, next_before_sequence: 4 });
      expect(await page({ limit: 2, before_sequence: 4 })).toEqual({
        items: [2, 3],
        has_more: true,
        next_before_sequence: 2,
      });
      expect(await page({ limit: 2, before_sequence: 2 })).toEqual({
        items: [1],
        has_more: false,
        next_before_sequence: null,
      });
      expect(await page({ limit: 5 })).toEqual({
        items: [1, 2, 3, 4, 5],
        has_more: false,
        next_before_sequence: null,
      });
      expect(await page({ limit: 3, before_sequence: 1 })).toEqual({
        items: [],
        has_more: false,
        next_before_sequence: null,
      });
      const full = await context.store.listMessages(SESSION, { limit: 1, before_sequence: 3 });
      expect(full.items).toStrictEqual([
        buildUserMessage({ session_id: SESSION, message_id: "message:2", sequence: 2 }),
      ]);
    });

    it("a message reads back with its objects' keys in jsonb's order (shorter first, then bytewise), however written", async () => {
      await createSession(context, SESSION);
      const written = buildAssistantMessage({
        session_id: SESSION,
        message_id: "message:1",
        sequence: 1,
        parts: [
          buildToolPart({
            sequence: 1,
            tool_call_id: "call:1",
            state: "completed",
            input: { zeta: 1, b: { yy: [{ bb: 1, a: 2 }], x: null }, aa: "x" },
            output: { result: "ok", id: 7, é: true, z: 0 },
          }),
        ],
      });
      await commitMessage(context, written);
      const read = await context.store.getMessage(SESSION, "message:1");
      expect(read).toStrictEqual(written);
      expect(JSON.stringify(read)).toBe(JSON.stringify(inJsonbKeyOrder(written)));
      expect(JSON.stringify(read)).toContain(
        '"input":{"b":{"x":null,"yy":[{"a":2,"bb":1}]},"aa":"x","zeta":1}',
      );
      expect(JSON.stringify(read)).toContain('"output":{"z":0,"id":7,"é":true,"result":"ok"}');
    });

    it("G71: an Action updated from running to completed is one message at its latest revision, with both revisions published", async () => {
      await createSession(context, SESSION);
      const running: ActionMessage = {
        message_id: "action:1",
        session_id: SESSION,
        sequence: 1,
        revision: 1,
        created_at: 1,
        updated_at: 1,
        type: "action",
        action_type: "session_config",
        status: "running",
        title: "Applying settings",
      };
      const completed: ActionMessage = {
        ...running,
        revision: 2,
        updated_at: 2,
        status: "completed",
        title: "Settings applied",
      };
      await commitMessage(context, running);
      await commitMessage(context, completed);
      expect((await context.store.listMessages(SESSION, { limit: 10 })).items).toStrictEqual([completed]);
      // The log holds both revisions; each entry references the stored message (DESIGN §10.6).
      const logged = (await context.store.listEvents(SESSION, 0, 10)).map(({ mutation }) =>
        mutation.variant === "message" ? [mutation.revision, mutation.message] : null,
      );
      expect(logged).toStrictEqual([
        [1, completed],
        [2, completed],
      ]);
    });

    it("pages an empty or unknown session as empty", async () => {
      await createSession(context, SESSION);
      const empty = { items: [], has_more: false, next_before_sequence: null };
      expect(await context.store.listMessages(SESSION, { limit: 10 })).toStrictEqual(empty);
      expect(await context.store.listMessages("session:missing", { limit: 10 })).toStrictEqual(empty);
    });

    it("reports the highest sequence, 0 for an empty session", async () => {
      await createSession(context, SESSION);
      expect(await context.store.lastSequence(SESSION)).toBe(0);
      await commitMessage(
        context,
        buildUserMessage({ session_id: SESSION, message_id: "message:7", sequence: 7 }),
      );
      await commitMessage(
        context,
        buildUserMessage({ session_id: SESSION, message_id: "message:3", sequence: 3 }),
      );
      expect(await context.store.lastSequence(SESSION)).toBe(7);
      expect(await context.store.lastSequence("session:missing")).toBe(0);
    });

    it("lists open (streaming) assistant messages of one session or of all", async () => {
      await createSession(context, "session:a");
      await createSession(context, "session:b");
      const open_a2 = buildAssistantMessage({
        session_id: "session:a",
        message_id: "message:a2",
        sequence: 2,
      });
      const open_a4 = buildAssistantMessage({
        session_id: "session:a",
        message_id: "message:a4",
        sequence: 4,
      });
      const open_b1 = buildAssistantMessage({
        session_id: "session:b",
        message_id: "message:b1",
        sequence: 1,
      });
      await commitMessage(context, open_a4);
      await commitMessage(
        context,
        buildUserMessage({ session_id: "session:a", message_id: "message:a1", sequence: 1 }),
      );
      await commitMessage(context, open_a2);
      await commitMessage(
        context,
        buildAssistantMessage({
          session_id: "session:a",
          message_id: "message:a3",
          sequence: 3,
          status: "completed",
        }),
      );
      await commitMessage(context, open_b1);
      await commitMessage(
        context,
        buildAssistantMessage({
          session_id: "session:b",
          message_id: "message:b2",
          sequence: 2,
          status: "failed",
        }),
      );

      expect(await context.store.listOpenAssistantMessages("session:a")).toStrictEqual([open_a2, open_a4]);
      const everywhere = await context.store.listOpenAssistantMessages();
      expect(everywhere).toHaveLength(3);
      expect(everywhere.filter((message) => message.session_id === "session:a")).toStrictEqual([
        open_a2,
        open_a4,
      ]);
      expect(everywhere.filter((message) => message.session_id === "session:b")).toStrictEqual([open_b1]);

      await commitMessage(context, { ...open_a2, revision: 2, status: "stopped", model_stream: "finished" });
      expect(await context.store.listOpenAssistantMessages("session:a")).toStrictEqual([open_a4]);
      expect(await context.store.listOpenAssistantMessages("session:missing")).toEqual([]);
    });
  });

  describe("round trips and isolation", () => {
    it("returns every message kind and part exactly as written, embedded interactions included", async () => {
      await createSession(context, SESSION);
      const messages = everyMessageKind(SESSION);
      for (const message of messages) await commitMessage(context, message);
      for (const message of messages) {
        expect(await context.store.getMessage(SESSION, message.message_id)).toStrictEqual(message);
      }
      expect((await context.store.listMessages(SESSION, { limit: 10 })).items).toStrictEqual(messages);
      const events = await context.store.listEvents(SESSION, 0, 10);
      expect(events.map((event) => event.mutation)).toStrictEqual(
        messages.map((message, index) => sequenced(messageMutationOf(message), index + 1)),
      );
    });

    it("returns every mutation variant exactly as written", async () => {
      await createSession(context, SESSION);
      const assistant = richAssistantMessage(SESSION, "message:1", 1);
      const tool_part = assistant.parts.find((part) => part.type === "tool");
      if (!tool_part) throw new Error("the rich message has a tool part");
      const base = { session_id: SESSION, created_at: assistant.updated_at };
      const mutations: UnsequencedMutation[] = [
        partMutationOf(assistant, tool_part),
        {
          ...base,
          variant: "delta",
          type: "text",
          message_id: "message:1",
          turn_id: "turn:1",
          revision: 3,
          part_id: "text:3",
          delta: " – ünïcödé ✓",
        },
        {
          ...base,
          variant: "turn",
          type: "start",
          turn_id: "turn:1",
          status: "running",
        },
        {
          ...base,
          variant: "turn",
          type: "finish",
          turn_id: "turn:1",
          status: "failed",
          text: "partial",
          error: "Turn interrupted",
        },
        {
          ...base,
          variant: "session",
          type: "config",
          approval_mode: "always-allow",
          effective_approval_mode: "ask",
          model_id: "model:b",
          effective_model_id: "model:a",
        },
        { ...base, variant: "session", type: "title", title: "新标题" },
        {
          ...base,
          variant: "session",
          type: "closed",
          closed_at: base.created_at + 1,
        },
      ];
      for (const mutation of mutations) await context.store.commit({ session_id: SESSION, mutation });
      const events = await context.store.listEvents(SESSION, 0, 20);
      expect(events.map((event) => event.mutation)).toStrictEqual(
        mutations.map((mutation, index) => sequenced(mutation, index + 1)),
      );
    });

    it("keeps stored state apart from every object passed in or handed out", async () => {
      const record = await createSession(context, SESSION);
      const message = richAssistantMessage(SESSION, "message:1", 1);
      const pristine = structuredClone(message);
      const commit = messageCommitOf(message);
      const result = await context.store.commit(commit);

      record.title = "changed after create";
      message.parts.length = 0;
      commit.interactions?.forEach((row) => {
        row.interaction.status = "failed";
      });
      if (result.event) result.event.mutation.session_id = "changed";

      const read = await context.store.getMessage(SESSION, "message:1");
      expect(read).toStrictEqual(pristine);
      if (read?.type === "assistant") read.parts.length = 0;
      const listed = await context.store.listMessages(SESSION, { limit: 5 });
      (listed.items[0] as SessionMessage).updated_at = -1;
      const session = await context.store.getSession(SESSION);
      if (session) session.title = "changed after read";
      const row = await context.store.getInteraction("interaction:pending");
      if (row) row.interaction.status = "denied";
      const events = await context.store.listEvents(SESSION, 0, 5);
      if (events[0]) events[0].event_id = 99;

      expect(await context.store.getMessage(SESSION, "message:1")).toStrictEqual(pristine);
      expect((await context.store.getSession(SESSION))?.title).toBe(`Session ${SESSION}`);
      expect((await context.store.getInteraction("interaction:pending"))?.interaction.status).toBe("pending");
      const logged = await context.store.listEvents(SESSION, 0, 5);
      expect(logged.map((event) => [event.event_id, event.mutation.session_id])).toEqual([[1, SESSION]]);
    });
  });
}
