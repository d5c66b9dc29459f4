import { describe, expect, it } from "vitest";
import { StoreConflictError } from "../../errors.js";
import type { SessionCommit } from "../../ports/session-store.js";
import type { AssistantMessage } from "../../schema/messages.js";
import {
  buildAssistantMessage,
  buildInteraction,
  buildTextPart,
  buildToolPart,
  buildUserMessage,
  messageCommitOf,
  T0,
} from "../fixtures.js";
import {
  assistantWithTools,
  type ConformanceContext,
  commitMessage,
  createSession,
  expectConflict,
  expectParleyCode,
  snapshotSession,
} from "./context.js";

const SESSION = "session:a";

/** A commit that touches everything a commit can touch, so that a rejection must undo it all. */
function fullCommit(message: AssistantMessage, expected_revision: number, epoch?: number): SessionCommit {
  const interaction = buildInteraction({ interaction_id: "interaction:new", tool_call_id: "call_new" });
  const snapshot: AssistantMessage = {
    ...message,
    revision: expected_revision + 1,
    parts: [
      ...message.parts,
      buildToolPart({
        sequence: 9,
        tool_call_id: "call_new",
        state: "waiting-user",
        interactions: [interaction],
      }),
    ],
  };
  return {
    ...messageCommitOf(snapshot),
    message: { snapshot, expected_revision },
    interaction_events: [{ kind: "created", session_id: message.session_id, interaction }],
    session_patch: { title: "patched", updated_at: T0 + 99 },
    ...(epoch === undefined ? {} : { epoch }),
  };
}

export function describeCommitConformance(context: ConformanceContext): void {
  describe("commit: revisions and atomicity", () => {
    it("writes a new message at expected_revision 0 and each later revision on top", async () => {
      await createSession(context, SESSION);
      const first = buildAssistantMessage({ session_id: SESSION, message_id: "message:1", sequence: 1 });
      await commitMessage(context, first);
      expect(await context.store.getMessage(SESSION, "message:1")).toStrictEqual(first);
      const second: AssistantMessage = {
        ...first,
        revision: 2,
        updated_at: T0 + 50,
        parts: [buildTextPart({ sequence: 1, text: "hello", state: "streaming" })],
      };
      await commitMessage(context, second);
      expect(await context.store.getMessage(SESSION, "message:1")).toStrictEqual(second);
      expect(await context.store.getMessage(SESSION, "message:unknown")).toBeNull();
      expect(await context.store.getMessage("session:other", "message:1")).toBeNull();
    });

    it("rejects a stale expected_revision as a revision conflict and writes nothing of the commit", async () => {
      await createSession(context, SESSION);
      const base = buildAssistantMessage({ session_id: SESSION, message_id: "message:1", sequence: 1 });
      await commitMessage(context, base);
      await commitMessage(context, { ...base, revision: 2, status: "completed" });
      const before = await snapshotSession(context, SESSION);

      await expectConflict(context.store.commit(fullCommit(base, 1)), "revision");

      expect(await snapshotSession(context, SESSION)).toStrictEqual(before);
      expect(await context.store.getInteraction("interaction:new")).toBeNull();
      expect(await context.store.getSession(SESSION)).toMatchObject({ title: `Session ${SESSION}` });

      const next = await context.store.commit(fullCommit(base, 2));
      expect(next.event?.event_id).toBe(3);
    });

    it("rejects a new message whose message_id already exists as a revision conflict", async () => {
      await createSession(context, SESSION);
      const message = buildUserMessage({ session_id: SESSION, message_id: "message:1", sequence: 1 });
      await commitMessage(context, message);
      const before = await snapshotSession(context, SESSION);
      await expectConflict(commitMessage(context, { ...message, sequence: 2, parts: [] }), "revision");
      expect(await snapshotSession(context, SESSION)).toStrictEqual(before);
    });

    it("rejects a new message on a taken sequence as a sequence conflict and writes nothing", async () => {
      await createSession(context, SESSION);
      await commitMessage(
        context,
        buildUserMessage({ session_id: SESSION, message_id: "message:1", sequence: 1 }),
      );
      const before = await snapshotSession(context, SESSION);
      const intruder = buildAssistantMessage({ session_id: SESSION, message_id: "message:2", sequence: 1 });
      await expectConflict(context.store.commit(fullCommit(intruder, 0)), "sequence");
      expect(await snapshotSession(context, SESSION)).toStrictEqual(before);
      expect(await context.store.getMessage(SESSION, "message:2")).toBeNull();
      const next = await commitMessage(
        context,
        buildUserMessage({ session_id: SESSION, message_id: "message:2", sequence: 2 }),
      );
      expect(next.event?.event_id).toBe(2);
    });

    it("rejects a snapshot whose revision is not expected_revision + 1 as invalid_input and writes nothing", async () => {
      await createSession(context, SESSION);
      const message = buildAssistantMessage({ session_id: SESSION, message_id: "message:1", sequence: 1 });
      await commitMessage(context, message);
      const before = await snapshotSession(context, SESSION);
      const commit = fullCommit(message, 1);
      const skipping = {
        ...commit,
        message: { snapshot: { ...message, revision: 3 }, expected_revision: 1 },
      };
      await expectParleyCode(context.store.commit(skipping), "invalid_input");
      expect(await snapshotSession(context, SESSION)).toStrictEqual(before);
    });

    it("rejects a commit to an unknown session as session_not_found", async () => {
      const message = buildUserMessage({
        session_id: "session:missing",
        message_id: "message:1",
        sequence: 1,
      });
      await expectParleyCode(commitMessage(context, message), "session_not_found");
      expect(await context.store.getMessage("session:missing", "message:1")).toBeNull();
      expect(await context.store.listEvents("session:missing", 0, 10)).toEqual([]);
    });

    it("lets exactly one of ten concurrent writers of the same revision win", async () => {
      await createSession(context, SESSION);
      const base = buildAssistantMessage({ session_id: SESSION, message_id: "message:1", sequence: 1 });
      await commitMessage(context, base);
      const candidates = Array.from({ length: 10 }, (_, index) => ({
        ...base,
        revision: 2,
        parts: [buildTextPart({ sequence: 1, text: `writer ${index}` })],
      }));
      const results = await Promise.allSettled(
        candidates.map((candidate) => commitMessage(context, candidate)),
      );
      const winners = results.flatMap((result, index) => (result.status === "fulfilled" ? [index] : []));
      expect(winners).toHaveLength(1);
      for (const result of results) {
        if (result.status === "rejected") {
          expect(result.reason).toBeInstanceOf(StoreConflictError);
          expect((result.reason as StoreConflictError).kind).toBe("revision");
        }
      }
      expect(await context.store.getMessage(SESSION, "message:1")).toStrictEqual(
        candidates[winners[0] ?? -1],
      );
      expect((await context.store.listEvents(SESSION, 0, 100)).map((event) => event.event_id)).toEqual([
        1, 2,
      ]);
    });

    it("lets exactly one of concurrent new messages claim a sequence; the rest get sequence conflicts", async () => {
      await createSession(context, SESSION);
      const candidates = Array.from({ length: 5 }, (_, index) =>
        buildUserMessage({ session_id: SESSION, message_id: `message:claim-${index}`, sequence: 1 }),
      );
      const results = await Promise.allSettled(
        candidates.map((candidate) => commitMessage(context, candidate)),
      );
      const winners = results.flatMap((result, index) => (result.status === "fulfilled" ? [index] : []));
      expect(winners).toHaveLength(1);
      for (const result of results) {
        if (result.status === "rejected") {
          expect(result.reason).toBeInstanceOf(StoreConflictError);
          expect((result.reason as StoreConflictError).kind).toBe("sequence");
        }
      }
      const page = await context.store.listMessages(SESSION, { limit: 10 });
      expect(page.items).toStrictEqual([candidates[winners[0] ?? -1]]);
      expect((await context.store.listEvents(SESSION, 0, 10)).map((event) => event.event_id)).toEqual([1]);
    });
  });

  describe("commit: fencing", () => {
    it("accepts the current epoch and fences every other epoch without writing", async () => {
      await createSession(context, SESSION);
      await context.setLeaseEpoch(SESSION, 3);
      const message = buildAssistantMessage({ session_id: SESSION, message_id: "message:1", sequence: 1 });
      await context.store.commit({ ...messageCommitOf(message), epoch: 3 });
      const before = await snapshotSession(context, SESSION);
      await expectConflict(context.store.commit(fullCommit(message, 1, 2)), "fenced");
      await expectConflict(context.store.commit(fullCommit(message, 1, 4)), "fenced");
      expect(await snapshotSession(context, SESSION)).toStrictEqual(before);
      await context.store.commit(fullCommit(message, 1, 3));
      expect(await context.store.getInteraction("interaction:new")).not.toBeNull();
    });

    it("fences the former holder once a takeover moved the epoch on", async () => {
      await createSession(context, SESSION);
      await context.setLeaseEpoch(SESSION, 1);
      const message = assistantWithTools({
        session_id: SESSION,
        message_id: "message:1",
        sequence: 1,
        tools: [],
      });
      await context.store.commit({ ...messageCommitOf(message), epoch: 1 });
      await context.setLeaseEpoch(SESSION, 2);
      const before = await snapshotSession(context, SESSION);
      await expectConflict(context.store.commit(fullCommit(message, 1, 1)), "fenced");
      expect(await snapshotSession(context, SESSION)).toStrictEqual(before);
      const taken_over = await context.store.commit(fullCommit(message, 1, 2));
      expect(taken_over.event?.event_id).toBe(2);
    });

    it("does not check the epoch of a commit that carries none", async () => {
      await createSession(context, SESSION);
      await context.setLeaseEpoch(SESSION, 5);
      const message = buildUserMessage({ session_id: SESSION, message_id: "message:1", sequence: 1 });
      const result = await commitMessage(context, message);
      expect(result.event?.event_id).toBe(1);
    });

    it("keeps fencing epochs per session", async () => {
      await createSession(context, "session:a");
      await createSession(context, "session:b");
      await context.setLeaseEpoch("session:a", 1);
      await context.setLeaseEpoch("session:b", 7);
      const onA = buildUserMessage({ session_id: "session:a", message_id: "message:a1", sequence: 1 });
      const onB = buildUserMessage({ session_id: "session:b", message_id: "message:b1", sequence: 1 });
      await context.store.commit({ ...messageCommitOf(onA), epoch: 1 });
      await expectConflict(context.store.commit({ ...messageCommitOf(onB), epoch: 1 }), "fenced");
      await context.store.commit({ ...messageCommitOf(onB), epoch: 7 });
      expect(await context.store.lastSequence("session:b")).toBe(1);
    });
  });
}
