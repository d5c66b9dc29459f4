import { PARLEY_CODES, type ParleyCode } from "@parley/session-core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callRaw,
  type E2eEnvironment,
  type E2eUser,
  exceedsAnswerLimits,
  expectedRespondRefusal,
  isToolState,
  latestInteractionIdOf,
  MutationRecorder,
  startE2eEnvironment,
  toolPartsOfMutation,
} from "./testing/index.js";

const typedCodes: readonly string[] = PARLEY_CODES;
const RUNS = 60;

/** JSON of any shape, biased towards the field names the procedures know. */
const knownKeys = fc.constantFrom(
  "session_id",
  "interaction_id",
  "response",
  "type",
  "outcome",
  "payload",
  "decision",
  "answers",
  "question_id",
  "value",
  "input",
  "options",
  "security",
  "approval_mode",
  "persist_action",
  "publish_mutation",
  "query",
  "request_id",
  "extra",
);
const anyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string({ maxLength: 20 }),
    fc.constantFrom("approval", "question", "resolved", "denied", "approved", "ask", "always-allow", ""),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(knownKeys, fc.string({ maxLength: 8 })), tie("value"), { maxKeys: 4 }),
  ),
})).value;

describe("property-based fuzz of respond, set and prompt inputs", () => {
  let environment: E2eEnvironment;
  let alice: E2eUser;
  let session_id: string;
  let interaction_id: string;

  async function observableState() {
    const session = alice.client().session(session_id);
    const info = await session.info();
    return {
      interactions: await session.interactions(),
      status: await session.status(),
      messages: (await session.messages()).items.length,
      approval_mode: info.approval_mode,
      closed_at: info.closed_at,
    };
  }

  async function expectTypedRefusal(path: string, input: unknown, expected?: ParleyCode): Promise<void> {
    const result = await callRaw({
      url: environment.api.url,
      token: alice.token,
      path,
      kind: "mutation",
      input,
    });
    const context = JSON.stringify({ path, input, result });
    expect(result.status, context).not.toBe(500);
    expect(result.error, context).toBeDefined();
    expect(typedCodes).toContain(result.error?.parley_code);
    if (expected !== undefined) expect(result.error?.parley_code, context).toBe(expected);
  }

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    alice = await environment.createMember("alice");
    const session = await alice.client().sessions.create({ title: "fuzz" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    await session.prompt("delete notes.txt");
    const waiting = await feed.waitFor(isToolState("waiting-user"));
    feed.stop();
    session_id = session.id;
    interaction_id = latestInteractionIdOf(waiting);
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("respond: any malformed or mismatched answer gets its exact code (DESIGN.md §4/§9) and the interaction stays pending", async () => {
    const before = await observableState();
    const isValidApproval = (response: unknown): boolean => {
      if (typeof response !== "object" || response === null) return false;
      const { type, outcome, payload } = response as Record<string, unknown>;
      const decision = (payload as Record<string, unknown> | null)?.decision;
      return (
        type === "approval" &&
        ((outcome === "resolved" && decision === "approved") ||
          (outcome === "denied" && decision === "denied"))
      );
    };
    const response = fc.oneof(
      anyJson,
      fc.record(
        {
          type: fc.oneof(fc.constantFrom("approval", "question"), fc.string({ maxLength: 12 })),
          outcome: fc.oneof(fc.constantFrom("resolved", "denied"), anyJson),
          payload: fc.oneof(
            anyJson,
            fc.record(
              { decision: fc.oneof(fc.constantFrom("approved", "denied"), anyJson), reason: anyJson },
              {
                requiredKeys: [],
              },
            ),
            fc.record({ answers: fc.array(anyJson, { maxLength: 60 }) }),
            fc.record({
              decision: fc.constantFrom("approved"),
              note: fc.string({ minLength: 10_001, maxLength: 10_050 }),
            }),
          ),
          extra: anyJson,
        },
        { requiredKeys: ["type", "outcome"] },
      ),
    );
    const input = fc.oneof(
      anyJson,
      fc.record(
        {
          session_id: fc.oneof(fc.constant(session_id), fc.string({ maxLength: 30 }), anyJson),
          interaction_id: fc.oneof(fc.constant(interaction_id), fc.string({ maxLength: 30 }), anyJson),
          response,
          unexpected: anyJson,
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        input.filter(
          (candidate) =>
            !(
              typeof candidate === "object" &&
              candidate !== null &&
              !Array.isArray(candidate) &&
              (candidate as Record<string, unknown>).session_id === session_id &&
              (candidate as Record<string, unknown>).interaction_id === interaction_id &&
              !("unexpected" in candidate) &&
              isValidApproval((candidate as Record<string, unknown>).response) &&
              Object.keys((candidate as Record<string, unknown>).response as object).every((key) =>
                ["type", "outcome", "payload"].includes(key),
              )
            ),
        ),
        async (candidate) => {
          const target = { session_id, interaction_id, type: "approval" };
          await expectTypedRefusal("session.respond", candidate, expectedRespondRefusal(candidate, target));
        },
      ),
      { numRuns: RUNS },
    );
    expect(await observableState()).toEqual(before);
  });

  it("respond to a question: incomplete, duplicate, unknown or mistyped answers are typed errors and it stays pending", async () => {
    const session = await alice.client().sessions.create({ title: "fuzz questions" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    await session.prompt("ask me about deploy");
    const waiting = await feed.waitFor(isToolState("waiting-user"));
    feed.stop();
    const request = toolPartsOfMutation(waiting).at(-1)?.interactions?.[0]?.request;
    if (request === undefined) throw new Error("no question was asked");
    const questions = (
      request.payload as { questions: { question_id: string; type: string; options?: { value: string }[] }[] }
    ).questions;
    const questionIds = questions.map((question) => question.question_id);
    const optionValues = questions.flatMap((question) =>
      (question.options ?? []).map((option) => option.value),
    );
    const pendingBefore = await session.interactions();

    const isExactlyValid = (answers: unknown, extraPayloadKeys: boolean): boolean => {
      if (extraPayloadKeys || !Array.isArray(answers) || answers.length !== questions.length) return false;
      const seen = new Set<string>();
      for (const answer of answers) {
        if (typeof answer !== "object" || answer === null || Array.isArray(answer)) return false;
        const keys = Object.keys(answer);
        if (keys.length !== 2 || !keys.includes("question_id") || !keys.includes("value")) return false;
        const { question_id, value } = answer as { question_id: unknown; value: unknown };
        const question = questions.find((candidate) => candidate.question_id === question_id);
        if (question === undefined || seen.has(question.question_id)) return false;
        seen.add(question.question_id);
        const isOption = (item: unknown) => (question.options ?? []).some((option) => option.value === item);
        if (question.type === "multi_select") {
          // An array of distinct option values, possibly empty.
          if (!Array.isArray(value) || !value.every(isOption) || new Set(value).size !== value.length)
            return false;
        } else if (typeof value !== "string") {
          return false;
        } else if (question.type === "single_select" && !isOption(value)) {
          return false;
        }
      }
      return true;
    };
    const answerValue = fc.oneof(
      fc.constantFrom(...optionValues, "", "mars"),
      fc.string({ maxLength: 12 }),
      fc.array(fc.constantFrom(...optionValues), { maxLength: 3 }),
      fc.string({ minLength: 10_001, maxLength: 10_010 }),
      anyJson,
    );
    const answer = fc.oneof(
      fc.record({
        question_id: fc.oneof(fc.constantFrom(...questionIds), fc.string({ maxLength: 10 })),
        value: answerValue,
      }),
      fc.record(
        { question_id: fc.constantFrom(...questionIds), value: answerValue, extra: anyJson },
        { requiredKeys: ["question_id"] },
      ),
      anyJson,
    );
    const candidate = fc.record({
      answers: fc.oneof(
        fc.array(answer, { maxLength: 4 }),
        fc.array(answer, { minLength: 51, maxLength: 55 }),
        anyJson,
      ),
      extra: fc.option(anyJson, { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(
        candidate.filter(({ answers, extra }) => !isExactlyValid(answers, extra !== undefined)),
        async ({ answers, extra }) => {
          const payload = extra === undefined ? { answers } : { answers, extra };
          await expectTypedRefusal(
            "session.respond",
            {
              session_id: session.id,
              interaction_id: request.interaction_id,
              response: { type: "question", outcome: "resolved", payload },
            },
            exceedsAnswerLimits(payload) ? "invalid_input" : "interaction_invalid_response",
          );
        },
      ),
      { numRuns: RUNS },
    );
    expect(await session.interactions()).toEqual(pendingBefore);
  });

  it("set: malformed configuration changes are typed errors and change nothing", async () => {
    const before = await observableState();
    const input = fc.oneof(
      anyJson,
      fc.record(
        {
          session_id: fc.oneof(fc.constant(session_id), anyJson),
          input: fc.oneof(
            anyJson,
            fc.constant({}),
            fc.record({ security: fc.oneof(anyJson, fc.record({ approval_mode: anyJson })) }),
            fc.record({ model: anyJson, security: fc.constant({ approval_mode: "always-allow" }) }),
          ),
          options: fc.oneof(
            anyJson,
            fc.constant({ persist_action: false, publish_mutation: true }),
            fc.record({ persist_action: anyJson, publish_mutation: anyJson }),
          ),
        },
        { requiredKeys: [] },
      ),
    );
    const wouldChangeMode = (candidate: unknown): boolean => {
      if (typeof candidate !== "object" || candidate === null || Array.isArray(candidate)) return false;
      const record = candidate as Record<string, unknown>;
      const setInput = record.input as Record<string, unknown> | null | undefined;
      const security = setInput?.security as Record<string, unknown> | null | undefined;
      const options = record.options as Record<string, unknown> | null | undefined;
      const optionsValid =
        options === undefined ||
        (typeof options === "object" &&
          options !== null &&
          !Array.isArray(options) &&
          Object.keys(options).every((key) => ["persist_action", "publish_mutation"].includes(key)) &&
          Object.values(options).every((value) => value === undefined || typeof value === "boolean") &&
          !(options.persist_action === false && options.publish_mutation === true));
      return (
        record.session_id === session_id &&
        Object.keys(record).every((key) => ["session_id", "input", "options"].includes(key)) &&
        typeof setInput === "object" &&
        setInput !== null &&
        Object.keys(setInput).length === 1 &&
        typeof security === "object" &&
        security !== null &&
        Object.keys(security).length === 1 &&
        (security.approval_mode === "ask" || security.approval_mode === "always-allow") &&
        optionsValid
      );
    };
    await fc.assert(
      fc.asyncProperty(
        input.filter((candidate) => !wouldChangeMode(candidate)),
        async (candidate) => {
          await expectTypedRefusal("session.set", candidate);
        },
      ),
      { numRuns: RUNS },
    );
    expect(await observableState()).toEqual(before);
  });

  it("prompt: empty, oversized or malformed prompts are typed errors and start nothing", async () => {
    const before = await observableState();
    const badQuery = fc.oneof(
      fc.constantFrom("", "   ", "\n\t"),
      fc.string({ minLength: 32_001, maxLength: 32_010 }),
      fc.integer(),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.constant(null),
    );
    const input = fc.oneof(
      fc.record({ session_id: fc.constant(session_id), query: badQuery }),
      fc.record({ session_id: fc.constant(session_id), query: fc.constant("list files"), extra: anyJson }),
      fc.record({
        session_id: fc.constant(session_id),
        query: fc.constant("list files"),
        request_id: fc.oneof(fc.integer(), fc.constant(""), fc.constant(null)),
      }),
      fc.record({
        session_id: fc.string({ maxLength: 30 }).filter((id) => id !== session_id),
        query: fc.constant("list files"),
      }),
      anyJson.filter(
        (candidate) => !(typeof candidate === "object" && candidate !== null && "query" in candidate),
      ),
    );
    await fc.assert(
      fc.asyncProperty(input, async (candidate) => {
        await expectTypedRefusal("session.prompt", candidate);
      }),
      { numRuns: RUNS },
    );
    expect(await observableState()).toEqual(before);
  });
});
