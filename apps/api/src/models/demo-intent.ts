import type { JsonValue } from "@parley/session-core";

/** What the demo model makes of a user's message: one tool call, or a plain answer. */
export type DemoIntent =
  | { kind: "tool"; tool_name: string; input: { [key: string]: JsonValue }; preface: string }
  | { kind: "help" };

const POLITE_PREFIX = /^(?:please\s+|can you\s+|could you\s+)/i;

/**
 * Reads one plain request ("delete notes.txt", "write todo.md: buy milk", "run ls -la",
 * "read notes.txt", "list files", "ask me where to deploy"). Pure and deterministic: the same text
 * always gives the same intent. Anything else is `help`.
 */
export function parseDemoIntent(message: string): DemoIntent {
  const text = message.trim().replace(POLITE_PREFIX, "").trim();

  const write = /^(?:write|create)\s+(?:(?:the|a)\s+)?(?:file\s+)?([^\s:]+)\s*:\s?([\s\S]*)$/i.exec(text);
  if (write?.[1] !== undefined && write[2] !== undefined) {
    const path = write[1];
    return {
      kind: "tool",
      tool_name: "write_file",
      input: { path, content: write[2], explanation: `You asked me to write ${path}.` },
      preface: `I'll write ${path}. Writing a file needs your approval.`,
    };
  }

  const remove = /^(?:delete|remove|rm)\s+(?:(?:the)\s+)?(?:file\s+)?(\S+?)[.!]?$/i.exec(text);
  if (remove?.[1] !== undefined) {
    const path = remove[1];
    return {
      kind: "tool",
      tool_name: "delete_file",
      input: { path, explanation: `You asked me to delete ${path}.` },
      preface: `I'll delete ${path}. Deleting a file needs your approval.`,
    };
  }

  const run = /^(?:run|exec|execute)\s+([\s\S]+)$/i.exec(text);
  if (run?.[1] !== undefined) {
    const command = stripCodeQuotes(run[1].trim());
    return {
      kind: "tool",
      tool_name: "shell",
      input: { command, explanation: "You asked me to run this command." },
      preface: `I'll run \`${command}\` in the workspace. Shell commands need your approval unless the session allows them.`,
    };
  }

  const list = /^(?:list|ls)(?:\s+(?:the\s+|all\s+)?files)?(?:\s+(?:in|under)\s+(\S+?))?[.!]?$/i.exec(text);
  if (list !== null) {
    const directory = list[1];
    return {
      kind: "tool",
      tool_name: "list_files",
      input: directory === undefined ? {} : { path: directory },
      preface: `Let me list the files${directory === undefined ? " in the workspace" : ` in ${directory}`}.`,
    };
  }

  const read = /^(?:read|show|cat|open)\s+(?:(?:the)\s+)?(?:file\s+)?(\S+?)[.!]?$/i.exec(text);
  if (read?.[1] !== undefined) {
    const path = read[1];
    return { kind: "tool", tool_name: "read_file", input: { path }, preface: `Let me read ${path}.` };
  }

  const form = /^(?:fill\s+in|show\s+me)\s+(?:the\s+|a\s+)?(?:deploy(?:ment)?\s+)?form[.!]?$/i.exec(text);
  if (form !== null) {
    return {
      kind: "tool",
      tool_name: "request_form",
      input: DEPLOY_FORM,
      preface: "Please fill in this form; its answer is checked against its schema.",
    };
  }

  const ask = /^ask\s+me\b\s*([\s\S]*)$/i.exec(text);
  if (ask !== null) {
    const questions = questionsAbout((ask[1] ?? "").trim().replace(/[?.!]+$/, ""));
    return {
      kind: "tool",
      tool_name: "ask_question",
      input: questions,
      preface: "I need a few answers from you before I go on.",
    };
  }

  return { kind: "help" };
}

/** A choice question of the demo's forms; its options are given as value → label, in the order shown. */
function choiceQuestion(
  question: string,
  type: "single_select" | "multi_select",
  labels: { [value: string]: string },
): JsonValue {
  return { question, type, options: Object.entries(labels).map(([value, label]) => ({ value, label })) };
}

/**
 * The `ask_question` input the demo sends (it must pass `askQuestionInputSchema`): deployment gets a
 * region choice, a multi-select of pre-launch checks and a text question, so one form shows every
 * question type; any other topic a text question and a choice on how to go on.
 */
export function questionsAbout(topic: string): { [key: string]: JsonValue } {
  if (/\bdeploy/i.test(topic)) {
    return {
      title: "Where to deploy",
      questions: [
        choiceQuestion("Which region should I deploy to?", "single_select", {
          eu: "Europe",
          us: "United States",
          cn: "China",
        }),
        choiceQuestion("Which checks should run before going live?", "multi_select", {
          tests: "Unit and integration tests",
          migrations: "Database migrations",
          smoke: "Smoke test after deploy",
        }),
        { question: "Anything the deployment should take care of?", type: "text" },
      ],
    };
  }
  const subject = topic.replace(/^(?:about|for|regarding)\s+/i, "").trim();
  return {
    title: subject === "" ? "A question for you" : `About ${subject}`,
    questions: [
      {
        question: subject === "" ? "What should I know?" : `What should I know about ${subject}?`,
        type: "text",
      },
      choiceQuestion("How should I go on?", "single_select", { proceed: "Go ahead", wait: "Wait for me" }),
    ],
  };
}

/**
 * The demo's custom interaction ("fill in the form"): a `request_form` call whose JSON Schema uses
 * every field type the web form renders.
 */
export const DEPLOY_FORM: { [key: string]: JsonValue } = {
  title: "Deployment settings",
  response_schema: {
    type: "object",
    required: ["environment", "replicas"],
    additionalProperties: false,
    properties: {
      environment: { type: "string", title: "Environment", enum: ["staging", "production"] },
      replicas: { type: "integer", title: "Replicas", minimum: 1, maximum: 10 },
      notify: { type: "boolean", title: "Notify the team" },
      checks: {
        type: "array",
        title: "Checks",
        items: { type: "string", enum: ["tests", "migrations", "smoke"] },
        uniqueItems: true,
      },
      note: { type: "string", title: "Note", maxLength: 200 },
    },
  },
};

function stripCodeQuotes(command: string): string {
  const quoted = /^`([^`]+)`$/.exec(command);
  return quoted?.[1] ?? command;
}
