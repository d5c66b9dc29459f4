import { SESSION_APPROVAL_RESPONSE_SCHEMA } from "../../schema/approval.js";
import type { Interaction } from "../../schema/interaction.js";
import type { ActionMessage, AssistantMessage, ErrorMessage, SessionMessage } from "../../schema/messages.js";
import { buildInteraction, buildUserMessage, T0 } from "../fixtures.js";

/**
 * An assistant message with every part type and every interaction status, optional fields set,
 * non-ASCII text and nested JSON, so that a store that drops, renames or re-types anything fails
 * a deep-equality round trip. Its pending interaction is `interaction:pending`.
 */
export function richAssistantMessage(
  session_id: string,
  message_id: string,
  sequence: number,
): AssistantMessage {
  const pending: Interaction = {
    ...buildInteraction({
      interaction_id: "interaction:pending",
      tool_call_id: "call_wait",
      tool_name: "shell",
      payload: { operation: "exec", command: "rm -rf build", cwd: "/srv/app" },
      created_at: T0 + 7,
    }),
  };
  pending.request.title = "Run a command";
  pending.request.description = "Needs approval — 需要批准";
  pending.request.response_schema = JSON.parse(JSON.stringify(SESSION_APPROVAL_RESPONSE_SCHEMA));
  pending.request.source.type = "shell";
  const question: Interaction = buildInteraction({
    interaction_id: "interaction:question",
    tool_call_id: "call_done",
    type: "question",
    tool_name: "ask_question",
    status: "resolved",
    payload: {
      questions: [
        {
          question_id: "question:1",
          question: "Where?",
          type: "single_select",
          options: [
            { value: "cn", label: "China", description: "在上海部署" },
            { value: "us", label: "US" },
          ],
        },
      ],
    },
  });
  question.response = {
    type: "question",
    outcome: "resolved",
    payload: {
      answers: [{ question_id: "question:1", value: "cn" }],
      note: "已确认",
      nested: [1.5, -2, true, null],
    },
  };
  const denied = buildInteraction({
    interaction_id: "interaction:denied",
    tool_call_id: "call_fail",
    status: "denied",
  });
  const cancelled = buildInteraction({
    interaction_id: "interaction:cancelled",
    tool_call_id: "call_fail",
    status: "cancelled",
  });
  return {
    message_id,
    session_id,
    turn_id: "turn:1",
    sequence,
    revision: 1,
    created_at: T0 + sequence,
    updated_at: T0 + sequence + 60_000,
    type: "assistant",
    segment_index: 2,
    status: "streaming",
    model_stream: "finished",
    parts: [
      { part_id: "step-start:1", sequence: 1, type: "step-start" },
      { part_id: "reasoning:2", sequence: 2, type: "reasoning", text: "thinking… 🤔", state: "done" },
      { part_id: "text:3", sequence: 3, type: "text", text: 'partial\nline "quoted"', state: "streaming" },
      {
        part_id: "tool:call_stream",
        sequence: 4,
        type: "tool",
        tool_call_id: "call_stream",
        tool_name: "write_file",
        state: "input-streaming",
        input_text: '{"path":"a.t',
      },
      {
        part_id: "tool:call_done",
        sequence: 5,
        type: "tool",
        tool_call_id: "call_done",
        tool_name: "ask_question",
        state: "completed",
        title: "Asked where to deploy",
        input: { title: "Deploy", questions: [{ question: "Where?", type: "single_select" }] },
        output: { status: "resolved", answers: [{ question_id: "question:1", value: "cn" }], note: "已确认" },
        interactions: [question],
      },
      {
        part_id: "tool:call_fail",
        sequence: 6,
        type: "tool",
        tool_call_id: "call_fail",
        tool_name: "delete_file",
        state: "failed",
        input: { path: "notes.txt" },
        error: "Interaction denied",
        interactions: [denied, cancelled],
      },
      {
        part_id: "tool:call_wait",
        sequence: 7,
        type: "tool",
        tool_call_id: "call_wait",
        tool_name: "shell",
        state: "waiting-user",
        input: { command: "rm -rf build", timeout_ms: 5000 },
        interactions: [pending],
      },
    ],
  };
}

/** One message of every kind in sequence order 1…5, every optional field set. */
export function everyMessageKind(session_id: string): SessionMessage[] {
  const action: ActionMessage = {
    message_id: "message:3",
    session_id,
    turn_id: "turn:1",
    sequence: 3,
    revision: 1,
    created_at: T0 + 3,
    updated_at: T0 + 3,
    type: "action",
    action_type: "session_config",
    status: "completed",
    title: "Session configuration updated",
    description: "security.approval_mode: always-allow",
    data: { security: { approval_mode: "always-allow" }, list: [], empty: {} },
  };
  const error: ErrorMessage = {
    message_id: "message:5",
    session_id,
    turn_id: "turn:1",
    sequence: 5,
    revision: 1,
    created_at: T0 + 5,
    updated_at: T0 + 5,
    type: "error",
    scope: "turn",
    code: "turn_interrupted",
    message: "Turn interrupted by server restart",
    recoverable: true,
  };
  return [
    buildUserMessage({ session_id, message_id: "message:1", sequence: 1, text: "delete notes.txt ✓" }),
    richAssistantMessage(session_id, "message:2", 2),
    action,
    buildUserMessage({
      session_id,
      message_id: "message:4",
      sequence: 4,
      turn_id: "turn:1",
      input_type: "steer",
      text: "also 在上海部署",
    }),
    error,
  ];
}
