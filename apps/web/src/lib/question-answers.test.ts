import type { Question } from "@parley/sdk";
import { describe, expect, it } from "vitest";
import {
  buildQuestionResponse,
  describeAnswer,
  isDraftComplete,
  readQuestions,
  toggleMultiValue,
} from "./question-answers";

const questions: Question[] = [
  { question_id: "question:name", question: "Your name?", type: "text" },
  {
    question_id: "question:region",
    question: "Region?",
    type: "single_select",
    options: [
      { value: "cn", label: "China" },
      { value: "eu", label: "Europe" },
    ],
  },
  {
    question_id: "question:days",
    question: "Days?",
    type: "multi_select",
    options: [
      { value: "mon", label: "Monday" },
      { value: "tue", label: "Tuesday" },
      { value: "wed", label: "Wednesday" },
    ],
  },
];

describe("question answers", () => {
  it("enables submit only when every question has an answer", () => {
    expect(isDraftComplete(questions, {})).toBe(false);
    expect(isDraftComplete(questions, { "question:name": "Ada", "question:region": "eu" })).toBe(false);
    expect(
      isDraftComplete(questions, {
        "question:name": "  ",
        "question:region": "eu",
        "question:days": ["mon"],
      }),
    ).toBe(false);
    expect(
      isDraftComplete(questions, { "question:name": "Ada", "question:region": "eu", "question:days": [] }),
    ).toBe(false);
    expect(
      isDraftComplete(questions, {
        "question:name": "Ada",
        "question:region": "eu",
        "question:days": ["tue"],
      }),
    ).toBe(true);
  });

  it("submits option values in question order, multi-select as an ordered array", () => {
    const draft = { "question:days": ["wed", "mon"], "question:region": "cn", "question:name": "Ada" };
    expect(buildQuestionResponse(questions, draft)).toEqual({
      type: "question",
      outcome: "resolved",
      payload: {
        answers: [
          { question_id: "question:name", value: "Ada" },
          { question_id: "question:region", value: "cn" },
          { question_id: "question:days", value: ["mon", "wed"] },
        ],
      },
    });
  });

  it("toggles multi-select values", () => {
    expect(toggleMultiValue(undefined, "a")).toEqual(["a"]);
    expect(toggleMultiValue(["a", "b"], "a")).toEqual(["b"]);
  });

  it("reads well-formed payloads and rejects malformed ones", () => {
    expect(readQuestions({ questions })).toEqual(questions);
    expect(readQuestions({ questions: [] })).toBeNull();
    expect(
      readQuestions({ questions: [{ question_id: "q", question: "?", type: "single_select" }] }),
    ).toBeNull();
    expect(readQuestions({ questions: [{ question_id: "q", question: "?", type: "date" }] })).toBeNull();
    expect(readQuestions("nope")).toBeNull();
  });

  it("describes answers with the labels the person saw", () => {
    expect(describeAnswer(questions[1] as Question, "cn")).toBe("China");
    expect(describeAnswer(questions[2] as Question, ["mon", "wed"])).toBe("Monday, Wednesday");
    expect(describeAnswer(questions[0] as Question, "Ada")).toBe("Ada");
  });
});
