"use client";

import type { Interaction, Question } from "@parley/sdk";
import { Ban, Send } from "lucide-react";
import { type FormEvent, useId, useState } from "react";
import { buildQuestionDecline, formatJson } from "@/lib/interaction-view";
import {
  type AnswerDraft,
  buildQuestionResponse,
  isDraftComplete,
  isQuestionAnswered,
  readQuestions,
  toggleMultiValue,
} from "@/lib/question-answers";
import { useConnection } from "./connection-provider";
import { AnswerError, AnswerProgress, ChoiceFieldset } from "./form-fields";
import { type InteractionBodyProps, useRespond } from "./use-respond";

/** The answers held in a terminal Interaction's response, as a draft to show them read-only. */
function draftFromResponse(interaction: Interaction): AnswerDraft {
  const payload = interaction.response?.payload;
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) return {};
  const answers = (payload as { answers?: unknown }).answers;
  if (!Array.isArray(answers)) return {};
  const draft: Record<string, string | string[]> = {};
  for (const answer of answers) {
    if (
      answer &&
      typeof answer === "object" &&
      "question_id" in answer &&
      typeof answer.question_id === "string"
    ) {
      const value = (answer as { value?: unknown }).value;
      if (typeof value === "string") draft[answer.question_id] = value;
      else if (Array.isArray(value)) draft[answer.question_id] = value.map(String);
    }
  }
  return draft;
}

function noteFromResponse(interaction: Interaction): string {
  const payload = interaction.response?.payload;
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) return "";
  const note = (payload as { note?: unknown }).note;
  return typeof note === "string" ? note : "";
}

export function QuestionForm({ interaction, onRespond, outcome, expanded }: InteractionBodyProps) {
  const questions = readQuestions(interaction.request.payload);
  const [draft, setDraft] = useState<AnswerDraft>({});
  const [note, setNote] = useState("");
  const { submit, busy, sent, error, locked: answerLocked } = useRespond(interaction, onRespond);
  const { online } = useConnection();
  const locked = answerLocked || !online;
  const formId = useId();

  if (!questions) {
    return (
      <div>
        <p className="muted">This question request is malformed and can't be answered here.</p>
        <pre className="code-block">{formatJson(interaction.request.payload)}</pre>
      </div>
    );
  }

  if (!expanded) {
    return <AnswerError error={error} />;
  }
  const shown = interaction.status === "pending" ? draft : draftFromResponse(interaction);
  const answered = questions.filter((question) => isQuestionAnswered(question, shown)).length;
  const complete = isDraftComplete(questions, shown);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!complete || !questions) return;
    void submit(buildQuestionResponse(questions, draft, note));
  }
  const shownNote = interaction.status === "pending" ? note : noteFromResponse(interaction);

  return (
    <form className="question-form" onSubmit={onSubmit} aria-describedby={`${formId}-progress`}>
      {questions.map((question, index) => (
        <QuestionField
          key={question.question_id}
          id={`${formId}-${index}`}
          question={question}
          value={shown[question.question_id]}
          disabled={locked}
          onChange={(value) => setDraft((current) => ({ ...current, [question.question_id]: value }))}
        />
      ))}
      {interaction.status === "pending" || shownNote ? (
        <div className="question-field">
          <label htmlFor={`${formId}-note`} className="question-text">
            Other <span className="muted small question-hint">(anything else the agent should know)</span>
          </label>
          <textarea
            id={`${formId}-note`}
            rows={2}
            value={shownNote}
            disabled={locked}
            maxLength={10_000}
            onChange={(event) => setNote(event.target.value)}
            data-testid="question-note"
          />
        </div>
      ) : null}
      <div className="card-actions">
        <button type="submit" className="button primary icon-text" disabled={locked || !complete}>
          <Send size={15} aria-hidden />
          <span>Submit answers</span>
        </button>
        {interaction.status === "pending" ? (
          <button
            type="button"
            className="button ghost icon-text"
            disabled={locked}
            onClick={() => void submit(buildQuestionDecline())}
          >
            <Ban size={15} aria-hidden />
            <span>Decline</span>
          </button>
        ) : null}
        <AnswerProgress
          outcome={outcome}
          id={`${formId}-progress`}
          progress={
            busy
              ? "Sending…"
              : sent
                ? "Answers sent — waiting for the agent"
                : `${answered} of ${questions.length} answered`
          }
        />
      </div>
      <AnswerError error={error} />
    </form>
  );
}

function QuestionField({
  id,
  question,
  value,
  disabled,
  onChange,
}: {
  id: string;
  question: Question;
  value: string | readonly string[] | undefined;
  disabled: boolean;
  onChange: (value: string | string[]) => void;
}) {
  if (question.type === "text") {
    return (
      <div className="question-field">
        <label htmlFor={id} className="question-text">
          {question.question}
        </label>
        <textarea
          id={id}
          rows={2}
          value={typeof value === "string" ? value : ""}
          disabled={disabled}
          onChange={(event) => onChange(event.target.value)}
        />
      </div>
    );
  }
  const multi = question.type === "multi_select";
  const picked = multi ? (Array.isArray(value) ? value : []) : typeof value === "string" ? [value] : [];
  return (
    <ChoiceFieldset
      id={id}
      legend={question.question}
      hint={multi ? "(choose any)" : "(choose one)"}
      multi={multi}
      choices={question.options ?? []}
      picked={picked}
      disabled={disabled}
      onPick={(option) => onChange(multi ? toggleMultiValue(picked, option) : option)}
    />
  );
}
