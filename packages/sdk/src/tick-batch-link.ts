import { type Operation, TRPCClientError, type TRPCLink } from "@trpc/client";
import type { AnyRouter } from "@trpc/server";
import { observable } from "@trpc/server/observable";
import type { HttpReply, HttpTransport } from "./http-transport.js";

export interface TickBatchLinkOptions {
  /** The tRPC endpoint, e.g. `http://localhost:4000/trpc`. */
  url: string;
  /** Sent with every request. */
  headers: Record<string, string>;
  /** At most this many calls in one request; more are split (the server refuses big batches). */
  maxItems: number;
  /** How each request is sent (see `http-transport.ts`). */
  transport: HttpTransport;
}

type HttpOperation = Operation & { type: "query" | "mutation" };

interface QueuedCall {
  op: HttpOperation;
  settle(
    outcome: { ok: true; data: unknown; reply: HttpReply } | { ok: false; error: TRPCClientError<AnyRouter> },
  ): void;
}

/** One entry of a tRPC batch response. */
type BatchResponseItem = { result: { data?: unknown } } | { error: unknown };

/**
 * Batches the queries and mutations issued in the same tick into one HTTP request each, sent at the
 * end of that tick (a microtask), where tRPC's `httpBatchLink` waits for a timer (`setTimeout`, at
 * least a millisecond in Node) before every request — also before a lone one, which is the common
 * case of an answer or a prompt. The wire is tRPC's batch format (`?batch=1`), so the server is
 * unchanged.
 */
export function tickBatchLink(options: TickBatchLinkOptions): TRPCLink<AnyRouter> {
  const queues: Record<HttpOperation["type"], QueuedCall[]> = { query: [], mutation: [] };
  let flushQueued = false;

  const flush = () => {
    flushQueued = false;
    for (const type of ["query", "mutation"] as const) {
      const calls = queues[type];
      queues[type] = [];
      for (let start = 0; start < calls.length; start += options.maxItems) {
        void send(type, calls.slice(start, start + options.maxItems));
      }
    }
  };

  const send = async (type: HttpOperation["type"], calls: QueuedCall[]): Promise<void> => {
    const path = calls.map((call) => encodeURIComponent(call.op.path)).join(",");
    // tRPC's batch input is an object keyed by position ("0", "1", …).
    const inputs = JSON.stringify(Object.fromEntries(calls.map((call, index) => [index, call.op.input])));
    const url = `${options.url}/${path}?batch=1${type === "query" ? `&input=${encodeURIComponent(inputs)}` : ""}`;
    let reply: HttpReply;
    try {
      reply = await options.transport.send(
        type === "query"
          ? { url, method: "GET", headers: options.headers }
          : {
              url,
              method: "POST",
              headers: { ...options.headers, "content-type": "application/json" },
              body: inputs,
            },
      );
    } catch (cause) {
      const error = TRPCClientError.from<AnyRouter>(
        cause instanceof Error ? cause : new Error(String(cause)),
      );
      for (const call of calls) call.settle({ ok: false, error });
      return;
    }
    const items = reply.body;
    calls.forEach((call, index) => {
      // A batch answer is an array; a request refused as a whole (e.g. too many calls) is one error.
      const item = (Array.isArray(items) ? items[index] : items) as BatchResponseItem | undefined;
      if (item !== undefined && "result" in item) {
        call.settle({ ok: true, data: item.result.data, reply });
        return;
      }
      const error =
        item !== undefined && "error" in item
          ? TRPCClientError.from<AnyRouter>(item as { error: never }, { meta: { status: reply.status } })
          : TRPCClientError.from<AnyRouter>(new Error(`Missing result (HTTP ${reply.status})`));
      call.settle({ ok: false, error });
    });
  };

  return () =>
    ({ op }) =>
      observable((observer) => {
        if (op.type === "subscription") throw new Error("tickBatchLink carries no subscriptions");
        let done = false;
        queues[op.type].push({
          op: op as HttpOperation,
          settle(outcome) {
            if (done) return;
            done = true;
            if (!outcome.ok) {
              observer.error(outcome.error);
              return;
            }
            observer.next({
              result: { type: "data", data: outcome.data },
              context: { status: outcome.reply.status },
            });
            observer.complete();
          },
        });
        if (!flushQueued) {
          flushQueued = true;
          queueMicrotask(flush);
        }
        // Unsubscribing (or an aborted call) only drops the answer: the request may be shared.
        return () => {
          done = true;
        };
      });
}
