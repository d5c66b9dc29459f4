import type { ParleyCode } from "@parley/session-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callRaw,
  type E2eEnvironment,
  type E2eUser,
  isToolState,
  isTurnFinish,
  latestInteractionIdOf,
  MutationRecorder,
  startE2eEnvironment,
} from "./testing/index.js";

/**
 * Each malformed answer to a pending approval, sent over plain HTTP, and the exact `parley_code`
 * DESIGN.md §4/§9 gives it (docs/behaviour.md#answering-an-interaction-respond). The property-based
 * variant is input-fuzz.e2e.test.ts.
 */
describe("session.respond: every malformed answer has its exact code and changes nothing", () => {
  let environment: E2eEnvironment;
  let alice: E2eUser;
  let session_id: string;
  let interaction_id: string;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    alice = await environment.createMember("alice");
    const session = await alice.client().sessions.create({ title: "malformed answers" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    await session.prompt("delete notes.txt");
    interaction_id = latestInteractionIdOf(await feed.waitFor(isToolState("waiting-user")));
    feed.stop();
    session_id = session.id;
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("the pending approval carries the tool's description and the model's explanation", async () => {
    const [request] = await alice.client().session(session_id).interactions();
    expect(request?.payload).toMatchObject({
      operation: "tool",
      tool_description:
        "Delete one file inside the workspace (not a directory). Asks the user for approval first.",
      model_explanation: "You asked me to delete notes.txt.",
    });
  });

  const approve = { type: "approval", outcome: "resolved" as const, payload: { decision: "approved" } };
  const cases: { name: string; input: () => unknown; code: ParleyCode }[] = [
    {
      name: "an outcome other than resolved/denied",
      input: () => ({ session_id, interaction_id, response: { ...approve, outcome: "maybe" } }),
      code: "interaction_invalid_response",
    },
    {
      name: "an outcome that is not a string",
      input: () => ({ session_id, interaction_id, response: { ...approve, outcome: 1 } }),
      code: "interaction_invalid_response",
    },
    {
      name: "no outcome",
      input: () => ({
        session_id,
        interaction_id,
        response: { type: "approval", payload: { decision: "approved" } },
      }),
      code: "interaction_invalid_response",
    },
    {
      name: "no payload",
      input: () => ({ session_id, interaction_id, response: { type: "approval", outcome: "resolved" } }),
      code: "interaction_invalid_response",
    },
    {
      name: "no decision",
      input: () => ({ session_id, interaction_id, response: { ...approve, payload: {} } }),
      code: "interaction_invalid_response",
    },
    {
      name: "a decision that disagrees with the outcome",
      input: () => ({
        session_id,
        interaction_id,
        response: { ...approve, payload: { decision: "denied" } },
      }),
      code: "interaction_invalid_response",
    },
    {
      name: "a decision outside approved/denied",
      input: () => ({ session_id, interaction_id, response: { ...approve, payload: { decision: "yes" } } }),
      code: "interaction_invalid_response",
    },
    {
      name: "a reason that is not a string",
      input: () => ({
        session_id,
        interaction_id,
        response: { type: "approval", outcome: "denied", payload: { decision: "denied", reason: 3 } },
      }),
      code: "interaction_invalid_response",
    },
    {
      name: "a response type other than the request's",
      input: () => ({ session_id, interaction_id, response: { ...approve, type: "question" } }),
      code: "interaction_type_mismatch",
    },
    {
      name: "an empty response type",
      input: () => ({ session_id, interaction_id, response: { ...approve, type: "" } }),
      code: "invalid_input",
    },
    {
      name: "an unknown key in the response",
      input: () => ({ session_id, interaction_id, response: { ...approve, extra: true } }),
      code: "invalid_input",
    },
    {
      name: "an unknown key beside the response",
      input: () => ({ session_id, interaction_id, response: approve, extra: true }),
      code: "invalid_input",
    },
    {
      name: "no response",
      input: () => ({ session_id, interaction_id }),
      code: "invalid_input",
    },
    {
      name: "an answer over 10,000 characters",
      input: () => ({
        session_id,
        interaction_id,
        response: { ...approve, payload: { decision: "approved", note: "x".repeat(10_001) } },
      }),
      code: "invalid_input",
    },
    {
      name: "an unknown interaction id",
      input: () => ({ session_id, interaction_id: "interaction:unknown", response: approve }),
      code: "interaction_not_found",
    },
    {
      name: "a session the caller cannot see",
      input: () => ({ session_id: "session:unknown", interaction_id, response: approve }),
      code: "session_not_found",
    },
  ];

  it.each(cases)("$name → $code", async ({ input, code }) => {
    const before = await alice.client().session(session_id).interactions();
    const result = await callRaw({
      url: environment.api.url,
      token: alice.token,
      path: "session.respond",
      kind: "mutation",
      input: input(),
    });
    expect(result.error?.parley_code).toBe(code);
    expect(await alice.client().session(session_id).interactions()).toEqual(before);
    expect(before.map((request) => request.interaction_id)).toEqual([interaction_id]);
  });

  // Each refused answer that reached the procedure asked for the session's lock while it read; each
  // gave it back, or this answer could not resume the parked Turn.
  it("then a valid answer resumes the Turn: no refused answer kept the session's lock", async () => {
    const session = alice.client().session(session_id);
    const feed = new MutationRecorder(session);
    await expect(session.respond({ interaction_id, response: approve })).resolves.toMatchObject({
      status: "resolved",
    });
    expect(await feed.waitFor(isTurnFinish)).toMatchObject({ status: "completed" });
    feed.stop();
  });
});
