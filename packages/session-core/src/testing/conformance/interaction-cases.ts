import { describe, expect, it } from "vitest";
import type { InteractionQuery } from "../../ports/session-store.js";
import type { Interaction } from "../../schema/interaction.js";
import type { AssistantMessage } from "../../schema/messages.js";
import { buildInteraction, buildToolPart, buildUserMessage, interactionRecordsOf, T0 } from "../fixtures.js";
import { assistantWithTools, type ConformanceContext, commitMessage, createSession } from "./context.js";

/** Commits one assistant message at `sequence` whose single tool part embeds `interaction`. */
async function seedInteraction(
  context: ConformanceContext,
  session_id: string,
  sequence: number,
  interaction: Interaction,
  tool_name = interaction.request.source.tool_name ?? "delete_file",
): Promise<void> {
  await commitMessage(
    context,
    assistantWithTools({
      session_id,
      message_id: `message:${session_id}:${sequence}`,
      sequence,
      tools: [
        { tool_call_id: interaction.request.source.tool_call_id, tool_name, interactions: [interaction] },
      ],
    }),
  );
}

/**
 * Seven interactions over two sessions; `ORDER` is their exact `queryInteractions` order: pending
 * oldest first (a created_at tie broken by id ascending), then answered newest first (a resolved_at
 * tie broken by id descending; r4 has no resolved_at and sorts by its created_at).
 */
async function seedInbox(context: ConformanceContext): Promise<void> {
  await createSession(context, "session:a", { owner_id: "user:1" });
  await createSession(context, "session:b", { owner_id: "user:2" });
  const { resolved_at: _dropped, ...r4 } = buildInteraction({
    interaction_id: "interaction:r4",
    tool_call_id: "call_r4",
    status: "cancelled",
    tool_name: "shell",
    created_at: T0 + 150,
  });
  const seeds: [string, Interaction][] = [
    [
      "session:a",
      buildInteraction({ interaction_id: "interaction:p1", tool_call_id: "call_p1", created_at: T0 + 30 }),
    ],
    [
      "session:b",
      buildInteraction({
        interaction_id: "interaction:p3",
        tool_call_id: "call_p3",
        type: "question",
        tool_name: "ask_question",
        created_at: T0 + 10,
      }),
    ],
    [
      "session:a",
      buildInteraction({
        interaction_id: "interaction:p2",
        tool_call_id: "call_p2",
        tool_name: "write_file",
        created_at: T0 + 10,
      }),
    ],
    [
      "session:a",
      buildInteraction({
        interaction_id: "interaction:r1",
        tool_call_id: "call_r1",
        status: "resolved",
        created_at: T0 + 1,
        resolved_at: T0 + 100,
      }),
    ],
    [
      "session:b",
      buildInteraction({
        interaction_id: "interaction:r2",
        tool_call_id: "call_r2",
        status: "denied",
        type: "question",
        tool_name: "ask_question",
        created_at: T0 + 2,
        resolved_at: T0 + 200,
      }),
    ],
    [
      "session:a",
      buildInteraction({
        interaction_id: "interaction:r3",
        tool_call_id: "call_r3",
        status: "cancelled",
        tool_name: "shell",
        created_at: T0 + 3,
        resolved_at: T0 + 100,
      }),
    ],
    ["session:a", r4],
  ];
  for (const [index, [session_id, interaction]] of seeds.entries()) {
    await seedInteraction(context, session_id, index + 1, interaction);
  }
}

const ORDER = ["p2", "p3", "p1", "r2", "r4", "r3", "r1"].map((suffix) => `interaction:${suffix}`);

async function queryIds(
  context: ConformanceContext,
  query: Omit<InteractionQuery, "limit">,
): Promise<string[]> {
  const page = await context.store.queryInteractions({ ...query, limit: 100 });
  expect(page.next_cursor).toBeNull();
  return page.items.map((record) => record.interaction.interaction_id);
}

export function describeInteractionConformance(context: ConformanceContext): void {
  describe("interaction index", () => {
    it("reads a session with an Interaction of it and the message that holds it in one call", async () => {
      await createSession(context, "session:a");
      await createSession(context, "session:b");
      const pending = buildInteraction({ interaction_id: "interaction:1", tool_call_id: "call_1" });
      const message = assistantWithTools({
        session_id: "session:a",
        message_id: "message:1",
        sequence: 1,
        tools: [{ tool_call_id: "call_1", interactions: [pending] }],
      });
      await commitMessage(context, message);
      expect(await context.store.getAnswerContext("session:a", "interaction:1")).toStrictEqual({
        session: await context.store.getSession("session:a"),
        interaction: {
          record: await context.store.getInteraction("interaction:1"),
          message: await context.store.getMessage("session:a", "message:1"),
        },
      });
      // Another session's Interaction, or none: the session alone.
      for (const [session_id, interaction_id] of [
        ["session:b", "interaction:1"],
        ["session:a", "interaction:unknown"],
      ] as const) {
        expect(await context.store.getAnswerContext(session_id, interaction_id)).toStrictEqual({
          session: await context.store.getSession(session_id),
          interaction: null,
        });
      }
      expect(await context.store.getAnswerContext("session:unknown", "interaction:1")).toBeNull();
    });

    it("upserts an interaction record by interaction_id", async () => {
      await createSession(context, "session:a");
      const pending = buildInteraction({ interaction_id: "interaction:1", tool_call_id: "call_1" });
      const first = assistantWithTools({
        session_id: "session:a",
        message_id: "message:1",
        sequence: 1,
        tools: [{ tool_call_id: "call_1", interactions: [pending] }],
      });
      await commitMessage(context, first);
      expect(await context.store.getInteraction("interaction:1")).toStrictEqual(
        interactionRecordsOf(first)[0],
      );

      const resolved = buildInteraction({
        interaction_id: "interaction:1",
        tool_call_id: "call_1",
        status: "resolved",
      });
      const second: AssistantMessage = {
        ...first,
        revision: 2,
        parts: [
          buildToolPart({ sequence: 1, tool_call_id: "call_1", state: "running", interactions: [resolved] }),
        ],
      };
      await commitMessage(context, second);
      expect(await context.store.getInteraction("interaction:1")).toStrictEqual(
        interactionRecordsOf(second)[0],
      );
      expect(await queryIds(context, { session_id: "session:a" })).toEqual(["interaction:1"]);
      expect(await context.store.countPendingInteractions("session:a")).toBe(0);
      expect(await context.store.getInteraction("interaction:unknown")).toBeNull();

      // The owner's hand-over marker (an unpublished revision) reaches the index row too.
      const resumed: Interaction = { ...resolved, resumed_at: T0 + 2000 };
      const third: AssistantMessage = {
        ...second,
        revision: 3,
        parts: [
          buildToolPart({ sequence: 1, tool_call_id: "call_1", state: "running", interactions: [resumed] }),
        ],
      };
      await commitMessage(context, third);
      expect(await context.store.getInteraction("interaction:1")).toStrictEqual(
        interactionRecordsOf(third)[0],
      );
    });

    it("lists a session's pending interactions in occurrence order: message, part, ordinal", async () => {
      await createSession(context, "session:a");
      await createSession(context, "session:b");
      const pending = (id: string, call: string, created_at: number) =>
        buildInteraction({ interaction_id: id, tool_call_id: call, created_at });
      const later = assistantWithTools({
        session_id: "session:a",
        message_id: "message:4",
        sequence: 4,
        tools: [{ tool_call_id: "call_c", interactions: [pending("interaction:a1", "call_c", T0 + 1)] }],
      });
      const earlier = assistantWithTools({
        session_id: "session:a",
        message_id: "message:2",
        sequence: 2,
        tools: [
          {
            tool_call_id: "call_b",
            part_sequence: 1,
            interactions: [pending("interaction:z1", "call_b", T0 + 9)],
          },
          {
            tool_call_id: "call_a",
            part_sequence: 3,
            interactions: [
              pending("interaction:y2", "call_a", T0 + 7),
              buildInteraction({
                interaction_id: "interaction:x0",
                tool_call_id: "call_a",
                status: "resolved",
              }),
              pending("interaction:y1", "call_a", T0 + 8),
            ],
          },
        ],
      });
      await commitMessage(context, later);
      await commitMessage(
        context,
        buildUserMessage({ session_id: "session:a", message_id: "message:1", sequence: 1 }),
      );
      await commitMessage(context, earlier);
      await seedInteraction(context, "session:b", 1, pending("interaction:b1", "call_x", T0));

      const listed = await context.store.listPendingInteractions("session:a");
      expect(listed.map((record) => [record.interaction.interaction_id, record.ordinal])).toEqual([
        ["interaction:z1", 0],
        ["interaction:y2", 0],
        ["interaction:y1", 2],
        ["interaction:a1", 0],
      ]);
      expect(listed[2]).toStrictEqual(interactionRecordsOf(earlier)[3]);
      expect(await context.store.countPendingInteractions("session:a")).toBe(4);
      expect(await context.store.countPendingInteractions("session:b")).toBe(1);
      expect(await context.store.listPendingInteractions("session:missing")).toEqual([]);
      expect(await context.store.countPendingInteractions("session:missing")).toBe(0);
    });

    it("orders queried interactions: pending oldest first, then answered newest first", async () => {
      await seedInbox(context);
      expect(await queryIds(context, {})).toEqual(ORDER);
      expect(await queryIds(context, { status: "pending" })).toEqual(ORDER.slice(0, 3));
    });

    it("filters queried interactions by status, type, tool_name, session_id and owner_id", async () => {
      await seedInbox(context);
      expect(await queryIds(context, { status: "resolved" })).toEqual(["interaction:r1"]);
      expect(await queryIds(context, { status: "cancelled" })).toEqual(["interaction:r4", "interaction:r3"]);
      expect(await queryIds(context, { status: "failed" })).toEqual([]);
      expect(await queryIds(context, { type: "question" })).toEqual(["interaction:p3", "interaction:r2"]);
      expect(await queryIds(context, { tool_name: "delete_file" })).toEqual([
        "interaction:p1",
        "interaction:r1",
      ]);
      expect(await queryIds(context, { session_id: "session:b" })).toEqual([
        "interaction:p3",
        "interaction:r2",
      ]);
      expect(await queryIds(context, { owner_id: "user:2" })).toEqual(["interaction:p3", "interaction:r2"]);
      expect(await queryIds(context, { owner_id: "user:1", status: "pending" })).toEqual([
        "interaction:p2",
        "interaction:p1",
      ]);
      expect(
        await queryIds(context, { owner_id: "user:1", tool_name: "shell", status: "cancelled" }),
      ).toEqual(["interaction:r4", "interaction:r3"]);
      expect(await queryIds(context, { owner_id: "user:none" })).toEqual([]);
    });

    it("pages queried interactions with a cursor in exact pages", async () => {
      await seedInbox(context);
      const pages = async (query: InteractionQuery) => {
        const collected: string[][] = [];
        let cursor: string | undefined;
        for (;;) {
          const page = await context.store.queryInteractions({ ...query, ...(cursor ? { cursor } : {}) });
          collected.push(page.items.map((record) => record.interaction.interaction_id));
          if (page.next_cursor === null) return collected;
          cursor = page.next_cursor;
        }
      };
      expect(await pages({ limit: 3 })).toEqual([ORDER.slice(0, 3), ORDER.slice(3, 6), ORDER.slice(6)]);
      expect(await pages({ limit: 2, status: "pending" })).toEqual([ORDER.slice(0, 2), ORDER.slice(2, 3)]);
      expect(await pages({ limit: 7 })).toEqual([ORDER]);
      expect(await pages({ limit: 2, session_id: "session:b" })).toEqual([
        ["interaction:p3", "interaction:r2"],
      ]);
    });

    it("returns the index rows with every field of the record", async () => {
      await seedInbox(context);
      const page = await context.store.queryInteractions({ status: "pending", limit: 1 });
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toStrictEqual({
        session_id: "session:a",
        message_id: "message:session:a:3",
        tool_call_id: "call_p2",
        tool_name: "write_file",
        ordinal: 0,
        interaction: buildInteraction({
          interaction_id: "interaction:p2",
          tool_call_id: "call_p2",
          tool_name: "write_file",
          created_at: T0 + 10,
        }),
      });
    });
  });
}
