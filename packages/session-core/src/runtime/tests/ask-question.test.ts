import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../schema/json.js";
import type { Question } from "../../schema/question.js";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";
import { AskQuestionsTool } from "../../tools/ask-question-tool.js";
import { rejection as rejectionOf } from "./respond-fixtures.js";

const REGION = {
  question: "需要部署到哪个区域？",
  type: "single_select",
  options: [
    { value: "cn", label: "中国" },
    { value: "us", label: "美国" },
  ],
};
const FEATURES = {
  question: "Which features?",
  type: "multi_select",
  options: [
    { value: "search", label: "Search" },
    { value: "files", label: "Files" },
  ],
};
const CITY = { question: "Which city?", type: "text" };

async function asking(questions: JsonValue[], next: "text" | "none" = "text") {
  const model = createScriptedModel([
    [
      {
        tool_call: {
          id: "call_ask_question",
          name: "ask_question",
          input: { title: "选择部署区域", questions },
        },
      },
    ],
    ...(next === "text" ? [[{ text: "continuing" }]] : []),
  ]);
  const harness = new RuntimeHarness({ model, tools: { ask_question: AskQuestionsTool } });
  const session = await harness.createSession();
  const turn = await session.prompt({ query: "deploy" });
  return { harness, model, session, turn };
}

async function pendingQuestions(questions: JsonValue[]) {
  const context = await asking(questions);
  const interaction_id = await context.harness.pendingInteraction("call_ask_question");
  const [request] = await context.session.interactions();
  const asked = ((request?.payload ?? { questions: [] }) as { questions: Question[] }).questions;
  return { ...context, interaction_id, asked };
}

const answer = (interaction_id: string, answers: JsonValue, note?: string) => ({
  interaction_id,
  response: {
    type: "question",
    outcome: "resolved" as const,
    payload: { answers, ...(note === undefined ? {} : { note }) },
  },
});

async function expectSchemaFailure(questions: JsonValue[]) {
  const { harness, session, turn } = await asking(questions);
  expect(await turn.finished).toMatchObject({ success: true, text: "continuing" });
  const tool = await harness.tool(session.id, "call_ask_question");
  expect(tool.state).toBe("failed");
  expect(tool.error).toMatch(/^Invalid input for tool ask_question/);
  expect(harness.toolStates(session.id, "call_ask_question")).not.toContain("waiting-user");
  expect(await harness.store.queryInteractions({ limit: 10 })).toEqual({ items: [], next_cursor: null });
}

describe("ask_question", () => {
  it("G32: an agent gets no ask_question unless it lists it", async () => {
    const model = createScriptedModel([[{ text: "hi" }]]);
    const harness = new RuntimeHarness({ model });
    const session = await harness.createSession();
    await (await session.prompt({ query: "hi" })).finished;
    expect(model.calls[0]?.tool_names).toEqual([]);
  });

  it("G33: answered questions continue the same Turn with the answers as the tool result", async () => {
    const { harness, model, session, turn, interaction_id, asked } = await pendingQuestions([REGION]);
    await session.respond(
      answer(interaction_id, [{ question_id: asked[0]?.question_id ?? "", value: "cn" }]),
    );
    expect(await turn.finished).toEqual({ turn_id: turn.id, text: "continuing", success: true });
    expect(model.calls).toHaveLength(2);
    expect(model.calls[0]?.tool_names).toEqual(["ask_question"]);
    const tool = await harness.tool(session.id, "call_ask_question");
    expect(tool.state).toBe("completed");
    expect(tool.output).toEqual({
      status: "resolved",
      answers: [{ question_id: asked[0]?.question_id, value: "cn" }],
    });
    const interaction = tool.interactions?.[0];
    expect(interaction?.status).toBe("resolved");
    expect(interaction?.request.source).toEqual({
      type: "tool",
      tool_call_id: "call_ask_question",
      tool_name: "ask_question",
    });
    expect(interaction?.request.turn_id).toBe(turn.id);
    expect(interaction?.request.title).toBe("选择部署区域");
    expect(model.calls[1]?.tool_results[0]?.output).toEqual({ type: "json", value: tool.output });
  });

  it("G34: a question without type fails the tool before any Interaction", async () => {
    await expectSchemaFailure([{ question: "Where?" }]);
  });

  it("G35: select options need value and label, and at least one option", async () => {
    await expectSchemaFailure([{ ...REGION, options: [{ value: "cn" }] }]);
    await expectSchemaFailure([{ ...REGION, options: [{ label: "中国" }] }]);
    await expectSchemaFailure([{ ...REGION, options: [] }]);
  });

  it("G35: two options with the same value are refused (an answer could not tell them apart)", async () => {
    await expectSchemaFailure([
      {
        ...REGION,
        options: [
          { value: "cn", label: "中国" },
          { value: "cn", label: "China" },
        ],
      },
    ]);
  });

  it("G36: a text question with options is refused (strict)", async () => {
    await expectSchemaFailure([{ ...CITY, options: [{ value: "a", label: "A" }] }]);
  });

  it("G37: generated question ids are unique and the rest is stored exactly as sent", async () => {
    const { asked } = await pendingQuestions([REGION, FEATURES, CITY]);
    expect(asked.map((question) => question.question_id).every((id) => /^question:/.test(id))).toBe(true);
    expect(new Set(asked.map((question) => question.question_id)).size).toBe(3);
    expect(asked.map(({ question_id: _id, ...rest }) => rest)).toEqual([REGION, FEATURES, CITY]);
  });

  it("G38: answers are taken as sent (strict): wrong shapes are refused, right ones unchanged", async () => {
    const { session, turn, harness, interaction_id, asked } = await pendingQuestions([
      REGION,
      FEATURES,
      CITY,
    ]);
    const [region, features, city] = asked.map((question) => question.question_id) as [
      string,
      string,
      string,
    ];
    const wrongSingle = await rejectionOf(
      session.respond(
        answer(interaction_id, [
          { question_id: region, value: ["cn"] },
          { question_id: features, value: ["search"] },
          { question_id: city, value: "x" },
        ]),
      ),
    );
    expect(wrongSingle.code).toBe("interaction_invalid_response");
    expect(wrongSingle.message).toBe(`ask_question answer must be a string: ${region}`);
    const wrongMulti = await rejectionOf(
      session.respond(
        answer(interaction_id, [
          { question_id: region, value: "cn" },
          { question_id: features, value: "search" },
          { question_id: city, value: "x" },
        ]),
      ),
    );
    expect(wrongMulti.message).toBe(`ask_question answer must be an array of strings: ${features}`);
    await session.respond(
      answer(interaction_id, [
        { question_id: region, value: "cn" },
        { question_id: features, value: ["search", "files"] },
        { question_id: city, value: "在上海部署" },
      ]),
    );
    await turn.finished;
    expect((await harness.tool(session.id, "call_ask_question")).output).toEqual({
      status: "resolved",
      answers: [
        { question_id: region, value: "cn" },
        { question_id: features, value: ["search", "files"] },
        { question_id: city, value: "在上海部署" },
      ],
    });
  });

  it("G39: the result follows question order, not submission order", async () => {
    const { session, turn, harness, interaction_id, asked } = await pendingQuestions([REGION, CITY]);
    const [region, city] = asked.map((question) => question.question_id) as [string, string];
    await session.respond(
      answer(interaction_id, [
        { question_id: city, value: "Paris" },
        { question_id: region, value: "us" },
      ]),
    );
    await turn.finished;
    expect((await harness.tool(session.id, "call_ask_question")).output).toEqual({
      status: "resolved",
      answers: [
        { question_id: region, value: "us" },
        { question_id: city, value: "Paris" },
      ],
    });
  });

  it("G40: incomplete, duplicate, invalid-option and object answers are refused in respond and stay pending", async () => {
    const { session, interaction_id, asked } = await pendingQuestions([REGION, CITY]);
    const [region, city] = asked.map((question) => question.question_id) as [string, string];
    const cases: [JsonValue, string][] = [
      [[{ question_id: region, value: "cn" }], "ask_question expected 2 answers but received 1"],
      [
        [
          { question_id: region, value: "cn" },
          { question_id: region, value: "us" },
        ],
        `Duplicate ask_question answer: ${region}`,
      ],
      [
        [
          { question_id: region, value: "cn" },
          { question_id: "question:other", value: "x" },
        ],
        `ask_question answer is missing: ${city}`,
      ],
      [
        [
          { question_id: region, value: "jp" },
          { question_id: city, value: "x" },
        ],
        `ask_question answer is not a valid option: ${region} -> jp`,
      ],
      [
        [
          { question_id: region, value: "cn" },
          { question_id: city, value: { text: "x" } },
        ],
        `ask_question answer must be a string: ${city}`,
      ],
    ];
    for (const [answers, message] of cases) {
      const error = await rejectionOf(session.respond(answer(interaction_id, answers)));
      expect([error.code, error.message]).toEqual(["interaction_invalid_response", message]);
    }
    expect((await session.interactions()).map((request) => request.interaction_id)).toEqual([interaction_id]);
  });

  it("G41: a note is passed through; a blank note is omitted", async () => {
    for (const [note, expected] of [
      ["已确认", "已确认"],
      ["   ", undefined],
    ] as const) {
      const { session, turn, harness, interaction_id, asked } = await pendingQuestions([CITY]);
      await session.respond(
        answer(interaction_id, [{ question_id: asked[0]?.question_id ?? "", value: "x" }], note),
      );
      await turn.finished;
      const output = (await harness.tool(session.id, "call_ask_question")).output as Record<
        string,
        JsonValue
      >;
      expect(output.note).toBe(expected);
      expect("note" in output).toBe(expected !== undefined);
    }
  });

  it("G42: a denied question fails the tool, the model sees the error and the Turn completes", async () => {
    const { session, turn, harness, model, interaction_id } = await pendingQuestions([CITY]);
    await session.respond({ interaction_id, response: { type: "question", outcome: "denied", payload: {} } });
    expect(await turn.finished).toMatchObject({ success: true, text: "continuing" });
    expect((await harness.tool(session.id, "call_ask_question")).error).toBe("Interaction denied");
    expect(model.calls[1]?.tool_results[0]?.output).toEqual({
      type: "error-text",
      value: "Interaction denied",
    });
  });

  it("G43: a question in plain text ends the Turn; the next prompt starts a new Turn", async () => {
    const model = createScriptedModel([[{ text: "Which region?" }], [{ text: "ok" }]]);
    const harness = new RuntimeHarness({ model, tools: { ask_question: AskQuestionsTool } });
    const session = await harness.createSession();
    const first = await session.prompt({ query: "deploy" });
    expect(await first.finished).toMatchObject({ success: true, text: "Which region?" });
    expect(await harness.store.queryInteractions({ limit: 10 })).toEqual({ items: [], next_cursor: null });
    const second = await session.prompt({ query: "cn" });
    expect(second.id).not.toBe(first.id);
    expect(await second.finished).toMatchObject({ success: true, text: "ok" });
  });
});

describe("ask_question outside a Session", () => {
  it("G30: without a Session's interaction port the tool fails at once instead of waiting", async () => {
    const input = { title: "t", questions: [{ question: "q?", type: "text" as const }] };
    await expect(
      Promise.resolve(AskQuestionsTool.execute(input, {} as Parameters<typeof AskQuestionsTool.execute>[1])),
    ).rejects.toThrow("ask_question requires an active Session tool execution context");
  });
});
