import { describe, expect, it } from "vitest";
import type { SessionCommit } from "../../ports/session-store.js";
import type { AssistantMessage } from "../../schema/messages.js";
import type { AssistantPart } from "../../schema/parts.js";
import { inJsonbKeyOrder } from "../../store/jsonb-key-order.js";
import {
  buildAssistantMessage,
  buildInteraction,
  buildTextPart,
  buildToolPart,
  interactionRecordsOf,
  messageCommitOf,
  messageMutationOf,
  partMutationOf,
} from "../fixtures.js";
import { type ConformanceContext, createSession, expectParleyCode, snapshotSession } from "./context.js";

const SESSION = "session:parts";
const MESSAGE = "message:parts";

/** The revision after `message` with `parts` replaced or added by id, naming exactly those changed. */
function revised(
  message: AssistantMessage,
  parts: AssistantPart[],
): { next: AssistantMessage; commit: SessionCommit } {
  const byId = new Map(parts.map((part) => [part.part_id, part]));
  const kept = message.parts.map((part) => byId.get(part.part_id) ?? part);
  const added = parts.filter((part) => !message.parts.some((old) => old.part_id === part.part_id));
  const next = {
    ...message,
    revision: message.revision + 1,
    updated_at: message.updated_at + 1,
    parts: [...kept, ...added],
  };
  const only = parts.length === 1 && added.length === 0 ? parts[0] : undefined;
  return {
    next,
    commit: {
      session_id: SESSION,
      message: {
        snapshot: next,
        expected_revision: message.revision,
        changed_part_ids: parts.map((part) => part.part_id),
      },
      mutation: only ? partMutationOf(next, only) : messageMutationOf(next),
    },
  };
}

/**
 * Parts as rows (DESIGN §10.6): a revision names the parts it changed and the store need write only
 * those; the replay log references stored parts, so a replayed part carries its newest durable state.
 */
export function describePartConformance(context: ConformanceContext): void {
  describe("parts as rows: the log and the feed reference what they name", () => {
    const first = buildAssistantMessage({
      session_id: SESSION,
      message_id: MESSAGE,
      sequence: 1,
      parts: [
        buildTextPart({ sequence: 1, text: "Let me look.", state: "done" }),
        buildToolPart({ sequence: 2, tool_call_id: "call:1", state: "running" }),
      ],
    });

    /** Revision 1 (a text and a running tool), then revision 2, which completes the tool alone. */
    async function commitFirstTwoRevisions() {
      await createSession(context, SESSION);
      await context.store.commit({
        session_id: SESSION,
        message: { snapshot: first, expected_revision: 0 },
        mutation: messageMutationOf(first),
      });
      const completed = buildToolPart({
        sequence: 2,
        tool_call_id: "call:1",
        state: "completed",
        output: { ok: true },
      });
      const second = revised(first, [completed]);
      await context.store.commit(second.commit);
      return second;
    }

    it("a revision that names the parts it changed reads back whole, on every read", async () => {
      const second = await commitFirstTwoRevisions();
      const text = buildTextPart({ sequence: 3, text: "Done.", state: "done" });
      const third = revised(second.next, [text]);
      await context.store.commit(third.commit);

      const whole = inJsonbKeyOrder(third.next);
      expect(whole.parts.map((part) => part.part_id)).toEqual(["text:1", "tool:call:1", "text:3"]);
      expect(await context.store.getMessage(SESSION, MESSAGE)).toStrictEqual(whole);
      expect((await context.store.listMessages(SESSION, { limit: 10 })).items).toStrictEqual([whole]);
      expect(await context.store.listOpenAssistantMessages(SESSION)).toStrictEqual([whole]);
    });

    it("the replay log gives each part and message back as stored now, at the revision it was logged with", async () => {
      const second = await commitFirstTwoRevisions();
      const failed = buildToolPart({ sequence: 2, tool_call_id: "call:1", state: "failed", error: "gone" });
      const text = buildTextPart({ sequence: 3, text: "Sorry.", state: "done" });
      const third = revised(second.next, [failed, text]);
      await context.store.commit(third.commit);

      const events = await context.store.listEvents(SESSION, 0, 10);
      expect(
        events.map((event) => [
          event.event_id,
          event.mutation.variant,
          "revision" in event.mutation ? event.mutation.revision : null,
        ]),
      ).toEqual([
        [1, "message", 1],
        [2, "part", 2],
        [3, "message", 3],
      ]);
      const stored = inJsonbKeyOrder(third.next);
      const [created, partChanged, closed] = events.map((event) => event.mutation);
      // Revision 1's message and revision 2's part, as revision 3 left them.
      expect(created?.variant === "message" && created.message).toStrictEqual(stored);
      expect(partChanged?.variant === "part" && partChanged.part).toStrictEqual(stored.parts[1]);
      expect(closed?.variant === "message" && closed.message).toStrictEqual(stored);
    });

    it("the admin feed gives each entry back with its Interaction as its row holds it now", async () => {
      await createSession(context, SESSION);
      const pending = buildInteraction({ interaction_id: "interaction:feed", tool_call_id: "call:1" });
      const asking = buildToolPart({
        sequence: 2,
        tool_call_id: "call:1",
        state: "waiting-user",
        interactions: [pending],
      });
      const asked = { ...first, parts: [first.parts[0], asking] as AssistantPart[] };
      await context.store.commit(
        messageCommitOf(asked, {
          interaction_events: [{ kind: "created", session_id: SESSION, interaction: pending }],
        }),
      );
      const resolved = buildInteraction({
        interaction_id: "interaction:feed",
        tool_call_id: "call:1",
        status: "resolved",
        resolved_at: 7,
      });
      const running = { ...asking, state: "running" as const, interactions: [resolved] };
      const answered = revised(asked, [running]);
      await context.store.commit({
        ...answered.commit,
        interactions: interactionRecordsOf(answered.next),
        interaction_events: [{ kind: "resolved", session_id: SESSION, interaction: resolved }],
      });

      const feed = await context.store.listInteractionEvents(0, 10);
      expect(feed.map((event) => [event.kind, event.interaction])).toStrictEqual([
        ["created", inJsonbKeyOrder(resolved)],
        ["resolved", inJsonbKeyOrder(resolved)],
      ]);
    });

    it("a tool part with an empty list of Interactions reads back with it", async () => {
      await createSession(context, SESSION);
      const tool = buildToolPart({ sequence: 2, tool_call_id: "call:1", state: "running", interactions: [] });
      const message = { ...first, parts: [first.parts[0], tool] as AssistantPart[] };
      await context.store.commit({
        session_id: SESSION,
        message: { snapshot: message, expected_revision: 0 },
      });
      expect(await context.store.getMessage(SESSION, MESSAGE)).toStrictEqual(inJsonbKeyOrder(message));
    });

    it("refuses changed_part_ids naming a part the snapshot does not hold, or on an insert, as invalid_input", async () => {
      await createSession(context, SESSION);
      const inserting: SessionCommit = {
        session_id: SESSION,
        message: { snapshot: first, expected_revision: 0, changed_part_ids: ["text:1"] },
      };
      await expectParleyCode(context.store.commit(inserting), "invalid_input");
      await context.store.commit({ session_id: SESSION, message: { snapshot: first, expected_revision: 0 } });
      const before = await snapshotSession(context, SESSION);
      const { next, commit } = revised(first, [
        buildTextPart({ sequence: 1, text: "Let me see.", state: "done" }),
      ]);
      const naming: SessionCommit = {
        ...commit,
        message: { snapshot: next, expected_revision: 1, changed_part_ids: ["text:9"] },
      };
      await expectParleyCode(context.store.commit(naming), "invalid_input");
      expect(await snapshotSession(context, SESSION)).toStrictEqual(before);
    });
  });
}
