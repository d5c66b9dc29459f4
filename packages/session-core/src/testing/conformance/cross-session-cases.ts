import { describe, expect, it } from "vitest";
import type { SessionCommit } from "../../ports/session-store.js";
import type { AssistantMessage } from "../../schema/messages.js";
import {
  buildInteraction,
  buildUserMessage,
  interactionRecordsOf,
  messageCommitOf,
  messageMutationOf,
  T0,
} from "../fixtures.js";
import {
  assistantWithTools,
  type ConformanceContext,
  commitMessage,
  createSession,
  expectConflict,
  rejectionCode,
  snapshotSession,
} from "./context.js";

const A = "session:a";
const B = "session:b";

/** Session A (owner user:1) holds a pending interaction, a message, an event and a queued prompt; B is empty. */
async function seedSessionA(context: ConformanceContext): Promise<AssistantMessage> {
  await createSession(context, A, { owner_id: "user:1", created_at: T0 + 1 });
  await createSession(context, B, { owner_id: "user:2", created_at: T0 + 2 });
  const message = assistantWithTools({
    session_id: A,
    message_id: "message:a",
    sequence: 1,
    tools: [
      {
        tool_call_id: "call_a",
        interactions: [
          buildInteraction({ interaction_id: "interaction:a", tool_call_id: "call_a", created_at: T0 + 1 }),
        ],
      },
    ],
  });
  await commitMessage(context, message);
  await context.store.enqueueCommand({
    session_id: A,
    command_id: "command:a",
    command: { kind: "prompt", input: { query: "hello" } },
    created_at: T0 + 3,
    new_turn_id: "turn:a",
  });
  return message;
}

/** Everything both sessions hold and the global lists, to assert that a refused commit wrote nothing. */
async function snapshotBoth(context: ConformanceContext) {
  return {
    a: await snapshotSession(context, A),
    b: await snapshotSession(context, B),
    commands: [await context.store.listQueuedCommands(A), await context.store.listQueuedCommands(B)],
    interaction: await context.store.getInteraction("interaction:a"),
  };
}

export function describeCrossSessionConformance(context: ConformanceContext): void {
  describe("sessions are isolated from each other", () => {
    it("reads of session B never return session A's messages, events, interactions or commands", async () => {
      await seedSessionA(context);
      expect(await context.store.getMessage(B, "message:a")).toBeNull();
      expect(await context.store.listMessages(B, { limit: 10 })).toStrictEqual({
        items: [],
        has_more: false,
        next_before_sequence: null,
      });
      expect(await context.store.lastSequence(B)).toBe(0);
      expect(await context.store.listEvents(B, 0, 10)).toEqual([]);
      expect(await context.store.listPendingInteractions(B)).toEqual([]);
      expect(await context.store.countPendingInteractions(B)).toBe(0);
      expect(await context.store.queryInteractions({ session_id: B, limit: 10 })).toStrictEqual({
        items: [],
        next_cursor: null,
      });
      expect(await context.store.getCommand(B, "command:a")).toBeNull();
      expect(await context.store.listQueuedCommands(B)).toEqual([]);
      expect(await context.store.getActiveTurnId(B)).toBeNull();
      expect(await context.store.listOpenAssistantMessages(B)).toEqual([]);
    });

    it("a sessions cursor of one owner's list pages another owner's list by position, with none of the first owner's rows", async () => {
      await createSession(context, "session:1-new", { owner_id: "user:1", created_at: T0 + 4 });
      await createSession(context, "session:2-mid", { owner_id: "user:2", created_at: T0 + 3 });
      await createSession(context, "session:1-old", { owner_id: "user:1", created_at: T0 + 2 });
      await createSession(context, "session:2-old", { owner_id: "user:2", created_at: T0 + 1 });
      const first = await context.store.listSessions({ owner_id: "user:1", limit: 1 });
      expect(first.items.map((item) => item.session_id)).toEqual(["session:1-new"]);
      const cursor = first.next_cursor ?? "";
      const other = await context.store.listSessions({ owner_id: "user:2", cursor, limit: 10 });
      expect(other).toStrictEqual({
        items: [
          await context.store.getSession("session:2-mid"),
          await context.store.getSession("session:2-old"),
        ],
        next_cursor: null,
      });
    });

    it("an interactions cursor of session A's list, used for session B, lists only B's interactions", async () => {
      await createSession(context, A);
      await createSession(context, B);
      for (const [session_id, suffix, sequence, created_at] of [
        [A, "a1", 1, T0 + 1],
        [A, "a2", 2, T0 + 2],
        [A, "a3", 3, T0 + 5],
        [B, "b1", 1, T0 + 3],
        [B, "b2", 2, T0 + 4],
      ] as const) {
        await commitMessage(
          context,
          assistantWithTools({
            session_id,
            message_id: `message:${suffix}`,
            sequence,
            tools: [
              {
                tool_call_id: `call_${suffix}`,
                interactions: [
                  buildInteraction({
                    interaction_id: `interaction:${suffix}`,
                    tool_call_id: `call_${suffix}`,
                    created_at,
                  }),
                ],
              },
            ],
          }),
        );
      }
      const first = await context.store.queryInteractions({ session_id: A, limit: 2 });
      expect(first.items.map((item) => item.interaction.interaction_id)).toEqual([
        "interaction:a1",
        "interaction:a2",
      ]);
      const other = await context.store.queryInteractions({
        session_id: B,
        cursor: first.next_cursor ?? "",
        limit: 10,
      });
      expect(other.items.map((item) => item.interaction.interaction_id)).toEqual([
        "interaction:b1",
        "interaction:b2",
      ]);
      expect(other.next_cursor).toBeNull();
    });

    it("refuses, as invalid_input and writing nothing, a commit to B that carries anything of session A", async () => {
      const message = await seedSessionA(context);
      const onB = buildUserMessage({ session_id: B, message_id: "message:b", sequence: 1 });
      const [record] = interactionRecordsOf(message);
      if (!record) throw new Error("Session A's message must hold an interaction");
      const interaction = record.interaction;
      const attempts: [string, SessionCommit][] = [
        ["A's message", { ...messageCommitOf({ ...message, revision: 2 }), session_id: B }],
        ["A's interaction record", { ...messageCommitOf(onB), interactions: [record] }],
        ["A's mutation", { ...messageCommitOf(onB), mutation: messageMutationOf(message) }],
        [
          "A's preceding mutation",
          { ...messageCommitOf(onB), preceding_mutation: messageMutationOf(message) },
        ],
        [
          "an interaction event of A",
          { ...messageCommitOf(onB), interaction_events: [{ kind: "created", session_id: A, interaction }] },
        ],
      ];
      const before = await snapshotBoth(context);
      for (const [what, commit] of attempts) {
        expect(await rejectionCode(context.store.commit(commit)), what).toBe("invalid_input");
      }
      expect(await snapshotBoth(context)).toStrictEqual(before);
    });

    it("refuses, as invalid_input, a commit to B that reuses the interaction id of session A's interaction", async () => {
      await seedSessionA(context);
      const intruder = assistantWithTools({
        session_id: B,
        message_id: "message:b",
        sequence: 1,
        tools: [
          {
            tool_call_id: "call_b",
            interactions: [buildInteraction({ interaction_id: "interaction:a", tool_call_id: "call_b" })],
          },
        ],
      });
      const before = await snapshotBoth(context);
      expect(await rejectionCode(commitMessage(context, intruder))).toBe("invalid_input");
      expect(await snapshotBoth(context)).toStrictEqual(before);
      expect((await context.store.getInteraction("interaction:a"))?.session_id).toBe(A);
    });

    it("settling session A's command in a commit to B is a revision conflict and settles nothing", async () => {
      await seedSessionA(context);
      const before = await snapshotBoth(context);
      await expectConflict(
        context.store.commit({
          session_id: B,
          settle_commands: [{ command_id: "command:a", status: "applied" }],
        }),
        "revision",
      );
      expect(await snapshotBoth(context)).toStrictEqual(before);
      expect((await context.store.getCommand(A, "command:a"))?.status).toBe("queued");
    });
  });
}
