import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One streamed tool call: its arguments arrive in the given pieces. */
export interface StubToolCall {
  id: string;
  name: string;
  argument_chunks: string[];
}

/**
 * What the stub answers one request with: reasoning deltas (`reasoning_content`, as DeepSeek, vLLM
 * and Ollama send them), text deltas, then tool calls, then the finish reason. `http_error` answers
 * with that status and an OpenAI-style error body instead. `stall` keeps the stream open after the
 * deltas, with no finish, until the client goes away.
 */
export interface StubReply {
  reasoning_chunks?: string[];
  text_chunks?: string[];
  tool_calls?: StubToolCall[];
  http_error?: { status: number; message: string };
  stall?: boolean;
  /** Nothing is answered (not even the headers) until this settles: a request held in flight. */
  hold?: Promise<void>;
}

/**
 * What `StubReply.hold` waits on: open until `close()`; from then on a reply given `held` is held in
 * flight until `release()`. Closing again makes a new gate, so an earlier release never lets a
 * later held request through.
 */
export class HoldGate {
  #held: Promise<void> = Promise.resolve();
  #release: () => void = () => undefined;

  get held(): Promise<void> {
    return this.#held;
  }

  close(): void {
    this.#held = new Promise<void>((resolve) => {
      this.#release = resolve;
    });
  }

  release(): void {
    this.#release();
  }
}

/** A request the stub received: the parsed chat-completions body. */
export interface StubRequest {
  path: string;
  authorization: string | undefined;
  body: {
    model: string;
    stream?: boolean;
    messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
    tools?: Array<{ type: string; function: { name: string; parameters: unknown } }>;
  };
}

export interface ChatCompletionsStub {
  /** `http://127.0.0.1:<port>/v1`, for `OPENAI_BASE_URL`. */
  base_url: string;
  requests: StubRequest[];
  /** Resolves once the client closed the connection of request `index` (0-based) before its end. */
  disconnected(index: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A local OpenAI-compatible chat-completions server for tests: request N gets `replies[N]` (or what
 * the function returns), streamed as real SSE chunks the way OpenAI sends them — role, content deltas,
 * tool-call deltas with streamed arguments, the finish reason, a usage chunk and `[DONE]`. A request
 * beyond the script is answered 500, so an extra model call fails the test.
 */
export async function startChatCompletionsStub(
  replies: StubReply[] | ((request: StubRequest, index: number) => StubReply),
): Promise<ChatCompletionsStub> {
  const requests: StubRequest[] = [];
  const disconnections = new Map<number, { promise: Promise<void>; resolve: () => void }>();
  const disconnection = (index: number) => {
    let entry = disconnections.get(index);
    if (entry === undefined) {
      let resolve = () => {};
      const promise = new Promise<void>((settle) => {
        resolve = settle;
      });
      entry = { promise, resolve };
      disconnections.set(index, entry);
    }
    return entry;
  };
  const server: Server = createServer((request, response) => {
    void handle(request, response);
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
      response.writeHead(404).end();
      return;
    }
    const received: StubRequest = {
      path: request.url,
      authorization: request.headers.authorization,
      body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as StubRequest["body"],
    };
    const index = requests.length;
    requests.push(received);
    const reply = typeof replies === "function" ? replies(received, index) : replies[index];
    if (reply === undefined) {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `stub has no reply for request ${index + 1}` } }));
      return;
    }
    if (reply.http_error !== undefined) {
      response.writeHead(reply.http_error.status, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: reply.http_error.message, type: "server_error" } }));
      return;
    }
    response.on("close", () => {
      if (!response.writableEnded) disconnection(index).resolve();
    });
    if (reply.hold !== undefined) await reply.hold;
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const events = replyEvents(reply, index);
    if (reply.stall === true) {
      for (const event of events.slice(0, -2)) response.write(`data: ${JSON.stringify(event)}\n\n`);
      return;
    }
    for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
    response.end("data: [DONE]\n\n");
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base_url: `http://127.0.0.1:${port}/v1`,
    requests,
    disconnected: (index) => disconnection(index).promise,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function replyEvents(reply: StubReply, index: number): object[] {
  const base = {
    id: `chatcmpl-stub-${index + 1}`,
    object: "chat.completion.chunk",
    created: 1_764_000_000,
    model: "stub",
  };
  const chunk = (delta: object, finish_reason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason }],
  });
  const events: object[] = [chunk({ role: "assistant", content: "" })];
  for (const reasoning of reply.reasoning_chunks ?? []) events.push(chunk({ reasoning_content: reasoning }));
  for (const text of reply.text_chunks ?? []) events.push(chunk({ content: text }));
  for (const [position, call] of (reply.tool_calls ?? []).entries()) {
    events.push(
      chunk({
        tool_calls: [
          { index: position, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
        ],
      }),
    );
    for (const piece of call.argument_chunks) {
      events.push(chunk({ tool_calls: [{ index: position, function: { arguments: piece } }] }));
    }
  }
  events.push(chunk({}, (reply.tool_calls ?? []).length > 0 ? "tool_calls" : "stop"));
  events.push({ ...base, choices: [], usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 } });
  return events;
}
