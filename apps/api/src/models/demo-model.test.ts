import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
} from "@ai-sdk/provider";
import { askQuestionInputSchema } from "@parley/session-core";
import { describe, expect, it } from "vitest";
import { parseDemoIntent } from "./demo-intent.js";
import { createDemoModel } from "./demo-model.js";
import { DEMO_HELP_TEXT } from "./demo-replies.js";

const TOOL_NAMES = ["read_file", "list_files", "write_file", "delete_file", "shell", "ask_question"];
const TOOLS: LanguageModelV3FunctionTool[] = TOOL_NAMES.map((name) => ({
  type: "function",
  name,
  inputSchema: { type: "object" },
}));

async function streamStep(
  prompt: LanguageModelV3Prompt,
  tools = TOOLS,
  model = createDemoModel(),
): Promise<LanguageModelV3StreamPart[]> {
  const { stream } = await model.doStream({ prompt, tools });
  const parts: LanguageModelV3StreamPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

function user(text: string): LanguageModelV3Prompt[number] {
  return { role: "user", content: [{ type: "text", text }] };
}

function textOf(parts: LanguageModelV3StreamPart[]): string {
  return parts.map((part) => (part.type === "text-delta" ? part.delta : "")).join("");
}

/** A prompt in which the demo called `tool_name` with `input` and got `output` back. */
function afterToolResult(
  request: string,
  tool_name: string,
  input: unknown,
  output: LanguageModelV3ToolResultOutput,
): LanguageModelV3Prompt {
  return [
    { role: "system", content: "system prompt" },
    user(request),
    {
      role: "assistant",
      content: [
        { type: "text", text: "preface" },
        { type: "tool-call", toolCallId: "call_demo_1", toolName: tool_name, input },
      ],
    },
    {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "call_demo_1", toolName: tool_name, output }],
    },
  ];
}

describe("parseDemoIntent", () => {
  it.each([
    [
      "delete notes.txt",
      "delete_file",
      { path: "notes.txt", explanation: "You asked me to delete notes.txt." },
    ],
    ["Please delete the file notes.txt.", "delete_file", { path: "notes.txt" }],
    [
      "write todo.md: buy milk",
      "write_file",
      { path: "todo.md", content: "buy milk", explanation: "You asked me to write todo.md." },
    ],
    [
      "create file a/b.txt:line one\nline two",
      "write_file",
      { path: "a/b.txt", content: "line one\nline two" },
    ],
    ["run ls -la", "shell", { command: "ls -la", explanation: "You asked me to run this command." }],
    ["run `echo hi`", "shell", { command: "echo hi" }],
    ["read notes.txt", "read_file", { path: "notes.txt" }],
    ["list files", "list_files", {}],
    ["list files in docs", "list_files", { path: "docs" }],
  ])("%j → %s", (text, tool_name, input) => {
    expect(parseDemoIntent(text)).toMatchObject({ kind: "tool", tool_name, input });
  });

  it("asks a region choice, a multi-select of checks and a text question for deployment", () => {
    const intent = parseDemoIntent("ask me where to deploy");
    if (intent.kind !== "tool") throw new Error("expected a tool intent");
    expect(intent.tool_name).toBe("ask_question");
    const input = askQuestionInputSchema.parse(intent.input);
    expect(input).toEqual({
      title: "Where to deploy",
      questions: [
        {
          question: "Which region should I deploy to?",
          type: "single_select",
          options: [
            { value: "eu", label: "Europe" },
            { value: "us", label: "United States" },
            { value: "cn", label: "China" },
          ],
        },
        {
          question: "Which checks should run before going live?",
          type: "multi_select",
          options: [
            { value: "tests", label: "Unit and integration tests" },
            { value: "migrations", label: "Database migrations" },
            { value: "smoke", label: "Smoke test after deploy" },
          ],
        },
        { question: "Anything the deployment should take care of?", type: "text" },
      ],
    });
  });

  it("asks valid questions about any other topic", () => {
    const intent = parseDemoIntent("ask me about the launch");
    if (intent.kind !== "tool") throw new Error("expected a tool intent");
    const input = askQuestionInputSchema.parse(intent.input);
    expect(input.title).toBe("About the launch");
    expect(input.questions[0]).toEqual({ question: "What should I know about the launch?", type: "text" });
  });

  it.each(["hello", "what can you do?", "delete", ""])("%j → help", (text) => {
    expect(parseDemoIntent(text)).toEqual({ kind: "help" });
  });
});

describe("demo model stream", () => {
  it("streams a preface in small text deltas, then the tool call with streamed JSON input", async () => {
    const parts = await streamStep([{ role: "system", content: "s" }, user("delete notes.txt")]);
    expect(parts.map((part) => part.type)).toEqual([
      "stream-start",
      "response-metadata",
      "text-start",
      ...parts.filter((part) => part.type === "text-delta").map(() => "text-delta"),
      "text-end",
      "tool-input-start",
      ...parts.filter((part) => part.type === "tool-input-delta").map(() => "tool-input-delta"),
      "tool-input-end",
      "tool-call",
      "finish",
    ]);
    expect(parts.filter((part) => part.type === "text-delta").length).toBeGreaterThan(2);
    expect(textOf(parts)).toBe("I'll delete notes.txt. Deleting a file needs your approval.");
    const deltas = parts.flatMap((part) => (part.type === "tool-input-delta" ? [part.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    const call = parts.find((part) => part.type === "tool-call");
    expect(call).toEqual({
      type: "tool-call",
      toolCallId: "call_demo_1",
      toolName: "delete_file",
      input: '{"path":"notes.txt","explanation":"You asked me to delete notes.txt."}',
    });
    expect(deltas.join("")).toBe('{"path":"notes.txt","explanation":"You asked me to delete notes.txt."}');
    expect(parts.at(-1)).toMatchObject({
      type: "finish",
      finishReason: { unified: "tool-calls", raw: "tool_calls" },
    });
    const finish = parts.at(-1);
    if (finish?.type !== "finish") throw new Error("no finish");
    expect(finish.usage.inputTokens.total).toBeGreaterThan(0);
    expect(finish.usage.outputTokens.total).toBeGreaterThan(0);
  });

  it("numbers tool call ids after the calls already in the conversation", async () => {
    const earlier = afterToolResult(
      "list files",
      "list_files",
      {},
      {
        type: "json",
        value: { path: ".", entries: [], truncated: false },
      },
    );
    const parts = await streamStep([
      ...earlier,
      { role: "assistant", content: [{ type: "text", text: "The directory . is empty." }] },
      user("run ls -la"),
    ]);
    expect(parts.find((part) => part.type === "tool-call")).toMatchObject({
      toolCallId: "call_demo_2",
      toolName: "shell",
      input: '{"command":"ls -la","explanation":"You asked me to run this command."}',
    });
  });

  it("answers with what it can do for anything else", async () => {
    const parts = await streamStep([user("hello there")]);
    expect(textOf(parts)).toBe(DEMO_HELP_TEXT);
    expect(parts.some((part) => part.type === "tool-call")).toBe(false);
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "stop" } });
  });

  it("a variant marks every text it writes and names itself, and otherwise acts the same", async () => {
    const alt = createDemoModel({ variant: "alt" });
    expect(alt.modelId).toBe("demo:alt");
    expect(textOf(await streamStep([user("hello there")], TOOLS, alt))).toBe(`[alt] ${DEMO_HELP_TEXT}`);
    const parts = await streamStep([user("delete notes.txt")], TOOLS, alt);
    expect(parts.find((part) => part.type === "response-metadata")).toMatchObject({ modelId: "demo:alt" });
    expect(textOf(parts)).toBe("[alt] I'll delete notes.txt. Deleting a file needs your approval.");
    expect(parts.find((part) => part.type === "tool-call")).toMatchObject({
      toolName: "delete_file",
      input: '{"path":"notes.txt","explanation":"You asked me to delete notes.txt."}',
    });
    const summary = await streamStep(
      afterToolResult(
        "list files",
        "list_files",
        {},
        {
          type: "json",
          value: { path: ".", entries: [], truncated: false },
        },
      ),
      TOOLS,
      alt,
    );
    expect(textOf(summary).startsWith("[alt] ")).toBe(true);
  });

  it("ends its help with the real-model hint as a paragraph of its own, after the list", () => {
    expect(
      DEMO_HELP_TEXT.endsWith(
        '- "ask me where to deploy" to get a question form\n\n' +
          "Set `PARLEY_MODEL` to use a real model (`openai:<id>`, `anthropic:<id>` or `openai-compatible:<id>`).",
      ),
    ).toBe(true);
  });

  it("does not call a tool the agent lacks", async () => {
    const parts = await streamStep(
      [user("run ls")],
      TOOLS.filter((tool) => tool.name !== "shell"),
    );
    expect(textOf(parts)).toBe("I would use the shell tool for that, but this agent does not have it.");
    expect(parts.some((part) => part.type === "tool-call")).toBe(false);
  });

  it("doGenerate returns the same Step as one result", async () => {
    const result = await createDemoModel().doGenerate({ prompt: [user("write a.txt: hi")], tools: TOOLS });
    expect(result.content).toEqual([
      { type: "text", text: "I'll write a.txt. Writing a file needs your approval." },
      {
        type: "tool-call",
        toolCallId: "call_demo_1",
        toolName: "write_file",
        input: '{"path":"a.txt","content":"hi","explanation":"You asked me to write a.txt."}',
      },
    ]);
    expect(result.finishReason).toEqual({ unified: "tool-calls", raw: "tool_calls" });
  });

  it("errors the stream when the call is aborted", async () => {
    const abort = new AbortController();
    const { stream } = await createDemoModel().doStream({
      prompt: [user("hello")],
      abortSignal: abort.signal,
    });
    const reader = stream.getReader();
    await reader.read();
    abort.abort(new Error("stopped"));
    await expect(reader.read()).rejects.toThrow("stopped");
  });
});

describe("demo model after a tool result", () => {
  it.each<[string, string, unknown, LanguageModelV3ToolResultOutput, string]>([
    [
      "delete notes.txt",
      "delete_file",
      { path: "notes.txt" },
      { type: "json", value: { success: true, deleted: "notes.txt" } },
      "Done: I deleted notes.txt.",
    ],
    [
      "delete notes.txt",
      "delete_file",
      { path: "notes.txt" },
      { type: "error-text", value: "Interaction denied" },
      "You denied the approval, so I did not delete notes.txt. Nothing was changed.",
    ],
    [
      "write todo.md: buy milk",
      "write_file",
      { path: "todo.md", content: "buy milk" },
      { type: "execution-denied", reason: "use notes/ instead" },
      'You denied the approval, so I did not write todo.md. Nothing was changed. Your reason: "use notes/ instead" — I\'ll take that into account.',
    ],
    [
      "delete notes.txt",
      "delete_file",
      { path: "notes.txt" },
      { type: "json", value: { success: false, error: "denied" } },
      "You denied the approval, so I did not delete notes.txt. Nothing was changed.",
    ],
    [
      "delete ../x",
      "delete_file",
      { path: "../x" },
      { type: "error-text", value: "Path escapes the workspace: ../x" },
      "I could not delete ../x: Path escapes the workspace: ../x",
    ],
    [
      "ask me where to deploy",
      "ask_question",
      {},
      { type: "error-text", value: "Interaction denied" },
      "You declined the questions, so I'll leave it there for now.",
    ],
    [
      "write todo.md: buy milk",
      "write_file",
      { path: "todo.md", content: "buy milk" },
      { type: "json", value: { success: true, path: "todo.md", bytes_written: 8, created: true } },
      "Done: I wrote 8 bytes to todo.md (a new file).",
    ],
    [
      "run ls",
      "shell",
      { command: "ls" },
      {
        type: "json",
        value: {
          exit_code: 0,
          signal: null,
          stdout: "a.txt\n",
          stderr: "",
          timed_out: false,
          truncated: false,
        },
      },
      "`ls` exited with code 0.\n\n```\na.txt\n```",
    ],
    [
      "run sleep 100",
      "shell",
      { command: "sleep 100" },
      {
        type: "json",
        value: {
          exit_code: null,
          signal: "SIGKILL",
          stdout: "",
          stderr: "",
          timed_out: true,
          truncated: false,
        },
      },
      "`sleep 100` was stopped at its timeout. It printed nothing.",
    ],
    [
      "list files",
      "list_files",
      {},
      {
        type: "json",
        value: {
          path: ".",
          entries: [
            { name: "docs", type: "directory" },
            { name: "a.txt", type: "file" },
          ],
          truncated: false,
        },
      },
      "Files in .: docs/, a.txt.",
    ],
    [
      "read a.txt",
      "read_file",
      { path: "a.txt" },
      { type: "json", value: { path: "a.txt", content: "hi", size: 2, truncated: false } },
      "Here is a.txt:\n\n```\nhi\n```",
    ],
  ])("%s with %s → a summary", async (request, tool_name, input, output, expected) => {
    const parts = await streamStep(afterToolResult(request, tool_name, input, output));
    expect(textOf(parts)).toBe(expected);
    expect(parts.some((part) => part.type === "tool-call")).toBe(false);
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "stop" } });
  });

  it("repeats the answers to its questions, with option labels (the chosen checks in option order)", async () => {
    const intent = parseDemoIntent("ask me where to deploy");
    if (intent.kind !== "tool") throw new Error("expected a tool intent");
    const parts = await streamStep(
      afterToolResult("ask me where to deploy", "ask_question", intent.input, {
        type: "json",
        value: {
          status: "resolved",
          answers: [
            { question_id: "question:1", value: "us" },
            { question_id: "question:2", value: ["tests", "smoke"] },
            { question_id: "question:3", value: "blue-green please" },
          ],
        },
      }),
    );
    expect(textOf(parts)).toBe(
      "Thanks! Your answers:\n- Which region should I deploy to? → United States\n- Which checks should run before going live? → Unit and integration tests, Smoke test after deploy\n- Anything the deployment should take care of? → blue-green please\nThis is where a real model would go on with them.",
    );
  });

  it("says (none) when no check was chosen and (no answer) for an empty text", async () => {
    const intent = parseDemoIntent("ask me where to deploy");
    if (intent.kind !== "tool") throw new Error("expected a tool intent");
    const parts = await streamStep(
      afterToolResult("ask me where to deploy", "ask_question", intent.input, {
        type: "json",
        value: {
          status: "resolved",
          answers: [
            { question_id: "question:1", value: "cn" },
            { question_id: "question:2", value: [] },
            { question_id: "question:3", value: "" },
          ],
        },
      }),
    );
    expect(textOf(parts)).toBe(
      "Thanks! Your answers:\n- Which region should I deploy to? → China\n- Which checks should run before going live? → (none)\n- Anything the deployment should take care of? → (no answer)\nThis is where a real model would go on with them.",
    );
  });
});
