import type { JSONValue, LanguageModelV3ToolResultOutput } from "@ai-sdk/provider";

/** A tool result as the demo model finds it in its prompt, with the input of the matching call. */
export interface ObservedToolResult {
  tool_name: string;
  input: unknown;
  output: LanguageModelV3ToolResultOutput;
}

/** Longest excerpt of file content or command output the demo repeats back. */
const EXCERPT_CHARS = 2000;

export const DEMO_HELP_TEXT = [
  "I'm Parley's built-in demo model: I run offline and understand a few plain requests.",
  "Try one of these:",
  '- "list files" or "read notes.txt" to look around the workspace',
  '- "write todo.md: buy milk" to create a file (asks for your approval)',
  '- "delete notes.txt" to delete a file (asks for your approval)',
  '- "run ls -la" to run a shell command (asks for approval unless the session is set to always-allow)',
  '- "ask me where to deploy" to get a question form',
  // A blank line ends the list: rendered as markdown, the next line is a paragraph of its own.
  "",
  // Code spans: the web app renders markdown with raw HTML off, which would drop a bare `<id>`.
  "Set `PARLEY_MODEL` to use a real model (`openai:<id>`, `anthropic:<id>` or `openai-compatible:<id>`).",
].join("\n");

/** The demo's answer after a tool result: what happened, in one short message. */
export function summarizeToolResult(result: ObservedToolResult): string {
  const { output } = result;
  switch (output.type) {
    case "execution-denied":
      return deniedText(result, output.reason);
    case "error-text":
      return failureText(result, output.value);
    case "error-json":
      return failureText(result, JSON.stringify(output.value));
    case "text":
      return `${result.tool_name} returned:\n${excerpt(output.value)}`;
    case "json":
      return successText(result, output.value);
    case "content":
      return `${result.tool_name} finished.`;
  }
}

function deniedText(result: ObservedToolResult, reason: string | undefined): string {
  if (result.tool_name === "ask_question")
    return "You declined the questions, so I'll leave it there for now.";
  const denied = `You denied the approval, so I did not ${describeAction(result)}. Nothing was changed.`;
  // The reason a person typed reaches the model (docs/behaviour.md#approvals); the demo says it
  // back, as a real model would act on it.
  return reason === undefined || reason.trim() === ""
    ? denied
    : `${denied} Your reason: "${reason.trim()}" — I'll take that into account.`;
}

function failureText(result: ObservedToolResult, error: string): string {
  if (/\bdenied\b/i.test(error)) return deniedText(result, undefined);
  if (/\bcancelled\b/i.test(error))
    return `The request was cancelled, so I did not ${describeAction(result)}.`;
  return `I could not ${describeAction(result)}: ${error}`;
}

function successText(result: ObservedToolResult, value: JSONValue): string {
  const output = asRecord(value);
  if (output.success === false && output.error === "denied") return deniedText(result, undefined);
  const input = asRecord(result.input as JSONValue);
  switch (result.tool_name) {
    case "delete_file":
      return `Done: I deleted ${String(output.deleted ?? input.path)}.`;
    case "write_file":
      return `Done: I wrote ${String(output.bytes_written ?? "the")} bytes to ${String(output.path ?? input.path)}${output.created === true ? " (a new file)" : ""}.`;
    case "read_file":
      return `Here is ${String(output.path ?? input.path)}${output.truncated === true ? " (cut, the file is large)" : ""}:\n\n\`\`\`\n${excerpt(String(output.content ?? ""))}\n\`\`\``;
    case "list_files":
      return listText(output);
    case "shell":
      return shellText(String(input.command ?? ""), output);
    case "ask_question":
      return answersText(input, output);
    default:
      return `${result.tool_name} finished: ${excerpt(JSON.stringify(value))}`;
  }
}

function listText(output: Record<string, JSONValue | undefined>): string {
  const where = String(output.path ?? ".");
  const entries = Array.isArray(output.entries) ? output.entries.map((entry) => asRecord(entry)) : [];
  if (entries.length === 0) return `The directory ${where} is empty.`;
  const names = entries.map((entry) => `${String(entry.name)}${entry.type === "directory" ? "/" : ""}`);
  return `Files in ${where}: ${names.join(", ")}${output.truncated === true ? " (and more)" : ""}.`;
}

function shellText(command: string, output: Record<string, JSONValue | undefined>): string {
  const status =
    output.timed_out === true
      ? "was stopped at its timeout"
      : output.exit_code === null
        ? `was ended by ${String(output.signal)}`
        : `exited with code ${String(output.exit_code)}`;
  const streams = [output.stdout, output.stderr]
    .map((stream) => (typeof stream === "string" ? stream.trimEnd() : ""))
    .filter((stream) => stream !== "")
    .join("\n");
  const shown = streams === "" ? " It printed nothing." : `\n\n\`\`\`\n${excerpt(streams)}\n\`\`\``;
  return `\`${command}\` ${status}.${output.truncated === true ? " (Output was cut.)" : ""}${shown}`;
}

function answersText(
  input: Record<string, JSONValue | undefined>,
  output: Record<string, JSONValue | undefined>,
): string {
  const questions = Array.isArray(input.questions)
    ? input.questions.map((question) => asRecord(question))
    : [];
  const answers = Array.isArray(output.answers) ? output.answers.map((answer) => asRecord(answer)) : [];
  const lines = answers.map((answer, index) => {
    const question = questions[index];
    const options = Array.isArray(question?.options)
      ? question.options.map((option) => asRecord(option))
      : [];
    const labelOf = (value: JSONValue | undefined) =>
      String(options.find((option) => option.value === value)?.label ?? value);
    const shown = Array.isArray(answer.value)
      ? answer.value.length === 0
        ? "(none)"
        : answer.value.map(labelOf).join(", ")
      : answer.value === ""
        ? "(no answer)"
        : labelOf(answer.value);
    return `- ${String(question?.question ?? answer.question_id)} → ${shown}`;
  });
  const note = typeof output.note === "string" ? `\nYour note: ${output.note}` : "";
  return `Thanks! Your answers:\n${lines.join("\n")}${note}\nThis is where a real model would go on with them.`;
}

function describeAction(result: ObservedToolResult): string {
  const input = asRecord(result.input as JSONValue);
  switch (result.tool_name) {
    case "delete_file":
      return `delete ${String(input.path)}`;
    case "write_file":
      return `write ${String(input.path)}`;
    case "read_file":
      return `read ${String(input.path)}`;
    case "list_files":
      return `list ${String(input.path ?? "the workspace")}`;
    case "shell":
      return `run \`${String(input.command)}\``;
    case "ask_question":
      return "get your answers";
    default:
      return `run ${result.tool_name}`;
  }
}

function asRecord(value: JSONValue | undefined): Record<string, JSONValue | undefined> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}

function excerpt(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}\n…` : text;
}
