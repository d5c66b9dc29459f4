import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A request body the stub received. */
export type ResponsesBody = { model: string; stream: boolean; input: Array<Record<string, unknown>> };

/**
 * A minimal OpenAI Responses API server for tests (`POST /v1/responses`, SSE): request 1 streams a
 * `delete_file` function call with its arguments in two deltas, every later request the text
 * "Deleted notes.txt.". It records every request body.
 */
export async function startResponsesApiStub(): Promise<{
  base_url: string;
  bodies: ResponsesBody[];
  close(): Promise<void>;
}> {
  const bodies: ResponsesBody[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ResponsesBody;
      bodies.push(body);
      const index = bodies.length;
      const events: object[] = [
        {
          type: "response.created",
          response: { id: `resp_${index}`, created_at: 1_764_000_000, model: body.model },
        },
      ];
      if (index === 1) {
        const call = { type: "function_call", id: "fc_1", call_id: "call_resp_delete", name: "delete_file" };
        events.push(
          { type: "response.output_item.added", output_index: 0, item: { ...call, arguments: "" } },
          {
            type: "response.function_call_arguments.delta",
            item_id: "fc_1",
            output_index: 0,
            delta: '{"path":',
          },
          {
            type: "response.function_call_arguments.delta",
            item_id: "fc_1",
            output_index: 0,
            delta: '"notes.txt"}',
          },
          {
            type: "response.output_item.done",
            output_index: 0,
            item: { ...call, arguments: '{"path":"notes.txt"}', status: "completed" },
          },
        );
      } else {
        events.push(
          { type: "response.output_item.added", output_index: 0, item: { type: "message", id: "msg_2" } },
          { type: "response.output_text.delta", item_id: "msg_2", delta: "Deleted " },
          { type: "response.output_text.delta", item_id: "msg_2", delta: "notes.txt." },
          { type: "response.output_item.done", output_index: 0, item: { type: "message", id: "msg_2" } },
        );
      }
      events.push({
        type: "response.completed",
        response: { usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } },
      });
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base_url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
