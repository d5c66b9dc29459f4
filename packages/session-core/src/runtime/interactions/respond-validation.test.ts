import { describe, expect, it } from "vitest";
import { ParleyError } from "../../errors.js";
import type { Interaction, InteractionResponse } from "../../schema/interaction.js";
import { assertRespondable } from "./respond-validation.js";

function interaction(
  type: string,
  payload: Interaction["request"]["payload"],
  status: Interaction["status"] = "pending",
): Interaction {
  return {
    interaction_id: "interaction:1",
    interaction_type: type,
    status,
    request: {
      interaction_id: "interaction:1",
      turn_id: "t",
      type,
      source: { type: "tool", tool_call_id: "c" },
      payload,
      created_at: 1,
    },
  };
}

function failure(target: Interaction, response: InteractionResponse): [string, string] | null {
  try {
    assertRespondable(target, response);
    return null;
  } catch (error) {
    if (error instanceof ParleyError) return [error.code, error.message];
    throw error;
  }
}

const QUESTIONS = {
  questions: [
    { question_id: "q1", question: "One?", type: "single_select", options: [{ value: "a", label: "A" }] },
    {
      question_id: "q2",
      question: "Many?",
      type: "multi_select",
      options: [
        { value: "x", label: "X" },
        { value: "y", label: "Y" },
      ],
    },
    { question_id: "q3", question: "Text?", type: "text" },
  ],
};
const question = interaction("question", QUESTIONS as unknown as Interaction["request"]["payload"]);
const answers = (list: unknown[], extra: Record<string, unknown> = {}): InteractionResponse => ({
  type: "question",
  outcome: "resolved",
  payload: { answers: list, ...extra } as InteractionResponse["payload"],
});
const good = [
  { question_id: "q1", value: "a" },
  { question_id: "q2", value: ["y", "x"] },
  { question_id: "q3", value: "free text" },
];

describe("respond validation", () => {
  it("status and type come first", () => {
    expect(
      failure(interaction("approval", {}, "denied"), {
        type: "approval",
        outcome: "resolved",
        payload: { decision: "approved" },
      }),
    ).toEqual(["interaction_not_pending", "Session Interaction is already denied: interaction:1"]);
    expect(failure(question, { type: "approval", outcome: "resolved", payload: {} })).toEqual([
      "interaction_type_mismatch",
      "Session Interaction response type mismatch",
    ]);
  });

  it("an approval decision is required and must agree with the outcome", () => {
    const approval = interaction("approval", {});
    expect(
      failure(approval, { type: "approval", outcome: "resolved", payload: { decision: "approved" } }),
    ).toBeNull();
    expect(
      failure(approval, {
        type: "approval",
        outcome: "denied",
        payload: { decision: "denied", reason: "no" },
      }),
    ).toBeNull();
    expect(
      failure(approval, { type: "approval", outcome: "resolved", payload: { decision: "denied" } })?.[0],
    ).toBe("interaction_invalid_response");
    expect(
      failure(approval, { type: "approval", outcome: "denied", payload: { decision: "approved" } })?.[0],
    ).toBe("interaction_invalid_response");
    expect(failure(approval, { type: "approval", outcome: "resolved", payload: {} })?.[0]).toBe(
      "interaction_invalid_response",
    );
    expect(
      failure(approval, { type: "approval", outcome: "resolved", payload: { decision: "yes" } })?.[0],
    ).toBe("interaction_invalid_response");
  });

  it("strict answers — every question once, right shapes, valid options, nothing normalised", () => {
    expect(failure(question, answers(good))).toBeNull();
    expect(failure(question, answers(good, { note: "fine" }))).toBeNull();
    expect(failure(question, { type: "question", outcome: "denied", payload: {} })).toBeNull();
    const cases: [unknown[], Record<string, unknown>, string][] = [
      [good.slice(0, 2), {}, "ask_question expected 3 answers but received 2"],
      [[good[0], good[0], good[2]], {}, "Duplicate ask_question answer: q1"],
      [[good[0], { question_id: "q9", value: "x" }, good[2]], {}, "ask_question answer is missing: q2"],
      [
        [{ question_id: "q1", value: ["a"] }, good[1], good[2]],
        {},
        "ask_question answer must be a string: q1",
      ],
      [
        [{ question_id: "q1", value: "b" }, good[1], good[2]],
        {},
        "ask_question answer is not a valid option: q1 -> b",
      ],
      [
        [good[0], { question_id: "q2", value: "x" }, good[2]],
        {},
        "ask_question answer must be an array of strings: q2",
      ],
      [
        [good[0], { question_id: "q2", value: ["x", "x"] }, good[2]],
        {},
        "Duplicate ask_question option: q2 -> x",
      ],
      [
        [good[0], { question_id: "q2", value: ["z"] }, good[2]],
        {},
        "ask_question answer is not a valid option: q2 -> z",
      ],
      [
        [good[0], good[1], { question_id: "q3", value: { text: "x" } }],
        {},
        "ask_question answer must be a string: q3",
      ],
      [[good[0], good[1], { value: "x" }], {}, "ask_question answer requires question_id"],
      [good, { extra: true }, "ask_question response has an unknown field: extra"],
      [
        [good[0], good[1], { question_id: "q3", value: "x".repeat(10_001) }],
        {},
        "ask_question answer is longer than 10000 characters: q3",
      ],
    ];
    for (const [list, extra, message] of cases) {
      expect(failure(question, answers(list, extra))).toEqual(["interaction_invalid_response", message]);
    }
    expect(failure(question, { type: "question", outcome: "resolved", payload: "nope" })).toEqual([
      "interaction_invalid_response",
      "ask_question expected 3 answers but received 0",
    ]);
  });
});
