import type http from "node:http";
import { type AnyTRPCRouter, TRPCError } from "@trpc/server";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import type { TRPCRequestInfo } from "@trpc/server/http";
import {
  type AnyProcedure,
  getErrorShape,
  getHTTPStatusCode,
  getProcedureAtPath,
  getTRPCErrorFromUnknown,
  isAsyncIterable,
  isObject,
  isPromise,
  transformTRPCResponse,
} from "@trpc/server/unstable-core-do-not-import";

/** What `createHTTPHandler` takes, narrowed to what this server uses. */
export interface TrpcNodeHandlerOptions<TRouter extends AnyTRPCRouter, TContext> {
  router: TRouter;
  basePath: string;
  maxBodySize: number;
  createContext(input: {
    req: http.IncomingMessage;
    res: http.ServerResponse;
    info: TRPCRequestInfo;
  }): Promise<TContext>;
  onError(input: {
    error: TRPCError;
    path: string | undefined;
    ctx?: TContext;
    input: unknown;
    type: string;
    req: http.IncomingMessage;
  }): void;
}

type CallType = "query" | "mutation";

/** A request the direct path serves: every call a known procedure of the request's method. */
interface DirectRequest {
  type: CallType;
  isBatchCall: boolean;
  calls: Array<{ path: string; procedure: AnyProcedure }>;
  url: URL;
}

/** As tRPC decides it: a result that would need a streaming response. */
function isDataStream(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (isAsyncIterable(value)) return true;
  return Object.values(value).some((item) => isPromise(item) || isAsyncIterable(item));
}

/**
 * tRPC over Node's HTTP server. tRPC's own adapter turns every request into a Fetch `Request`
 * (headers copied, the body a `ReadableStream`, an `AbortSignal` joined with `AbortSignal.any`)
 * and every answer into a Fetch `Response` written through a `WritableStream`: measured here, about
 * 360 µs of CPU per call beyond the procedure, more than a database round trip. So the calls every
 * client makes all the time — queries over GET and mutations over POST with a JSON body, one or a
 * batch — are run here from Node's request, with tRPC's own procedure calls, error shapes, status
 * codes and response transform, and written at once. Everything else goes to tRPC's adapter, whose
 * answer stays the reference: subscriptions (SSE), streaming (`jsonl`) and HEAD requests, an unknown
 * path or a procedure of the other method, a body without a `content-length` within the limit, and
 * an input that is not JSON (its body handed over as read).
 */
export function createTrpcNodeHandler<TRouter extends AnyTRPCRouter, TContext>(
  options: TrpcNodeHandlerOptions<TRouter, TContext>,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  const standard = createHTTPHandler({
    router: options.router,
    basePath: options.basePath,
    maxBodySize: options.maxBodySize,
    createContext: ({ req, res, info }) => options.createContext({ req, res, info }),
    onError: ({ error, path, ctx, input, type, req }) =>
      options.onError({ error, path, ctx: ctx as TContext | undefined, input, type, req }),
  });
  const config = options.router._def._config;

  const planOf = async (req: http.IncomingMessage): Promise<DirectRequest | null> => {
    const type: CallType | null = req.method === "GET" ? "query" : req.method === "POST" ? "mutation" : null;
    if (type === null || !req.url?.startsWith(options.basePath)) return null;
    const accept = `${req.headers["trpc-accept"] ?? ""} ${req.headers.accept ?? ""}`;
    if (accept.includes("text/event-stream") || accept.includes("application/jsonl")) return null;
    if (type === "mutation") {
      const length = Number(req.headers["content-length"]);
      const contentType = req.headers["content-type"]?.split(";", 1)[0]?.trim().toLowerCase();
      if (contentType !== "application/json" || !(length >= 0 && length <= options.maxBodySize)) return null;
    }
    const url = new URL(req.url, "http://localhost");
    const batch = url.searchParams.get("batch");
    if ((batch !== null && batch !== "1") || url.searchParams.has("connectionParams")) return null;
    const isBatchCall = batch === "1";
    let route: string;
    try {
      route = decodeURIComponent(url.pathname.slice(options.basePath.length));
    } catch {
      return null;
    }
    const calls: DirectRequest["calls"] = [];
    for (const path of isBatchCall ? route.split(",") : [route]) {
      const procedure = (await getProcedureAtPath(options.router, path)) as AnyProcedure | null;
      if (procedure?._def.type !== type) return null;
      calls.push({ path, procedure });
    }
    return { type, isBatchCall, calls, url };
  };

  /** The input of each call, or null when the raw input is not what tRPC would read without error. */
  const inputsOf = (plan: DirectRequest, raw: string | null): unknown[] | null => {
    let parsed: unknown;
    try {
      parsed = raw === null || raw === "" ? undefined : JSON.parse(raw);
    } catch {
      return null;
    }
    const deserialize = (value: unknown) =>
      value === undefined ? undefined : config.transformer.input.deserialize(value);
    if (!plan.isBatchCall) return [deserialize(parsed)];
    if (parsed === undefined) return plan.calls.map(() => undefined);
    if (!isObject(parsed)) return null;
    return plan.calls.map((_, index) => deserialize((parsed as Record<number, unknown>)[index]));
  };

  const serve = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    plan: DirectRequest,
    inputs: unknown[],
  ): Promise<void> => {
    const calls = plan.calls.map((call, index) => ({
      batchIndex: index,
      path: call.path,
      procedure: call.procedure,
      getRawInput: async () => inputs[index],
      result: () => inputs[index],
    }));
    let controller: AbortController | undefined;
    const info: TRPCRequestInfo = {
      accept: null,
      type: plan.type,
      isBatchCall: plan.isBatchCall,
      calls,
      connectionParams: null,
      url: plan.url,
      // Made only if something asks for it: no procedure served here does.
      get signal() {
        if (controller === undefined) {
          const made = new AbortController();
          res.once("close", () => made.abort());
          controller = made;
        }
        return controller.signal;
      },
    };
    let context: { ok: true; ctx: TContext } | { ok: false; error: unknown };
    try {
      context = { ok: true, ctx: await options.createContext({ req, res, info }) };
    } catch (error) {
      context = { ok: false, error };
    }
    const ctx = context.ok ? context.ctx : undefined;
    const outcomes = await Promise.all(
      calls.map(async (call) => {
        try {
          if (!context.ok) throw context.error;
          const data: unknown = await call.procedure({
            path: call.path,
            getRawInput: call.getRawInput,
            ctx: context.ctx,
            type: plan.type,
            signal: undefined,
            batchIndex: call.batchIndex,
          });
          if (isDataStream(data)) {
            throw new TRPCError({
              code: "UNSUPPORTED_MEDIA_TYPE",
              message: "Cannot use stream-like response in non-streaming request - use httpBatchStreamLink",
            });
          }
          return { result: { data } };
        } catch (cause) {
          const error = getTRPCErrorFromUnknown(cause);
          const input = call.result();
          options.onError({ error, path: call.path, ctx, input, type: plan.type, req });
          return { error: getErrorShape({ config, ctx, error, input, path: call.path, type: plan.type }) };
        }
      }),
    );
    const untransformed = plan.isBatchCall ? outcomes : outcomes[0];
    if (untransformed === undefined) throw new Error("A tRPC request without calls");
    const body = JSON.stringify(transformTRPCResponse(config, untransformed as never));
    res.statusCode = getHTTPStatusCode(untransformed as never);
    res.setHeader("vary", "trpc-accept, accept");
    res.setHeader("content-type", "application/json");
    res.end(body);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const plan = await planOf(req);
    if (plan === null) {
      standard(req, res);
      return;
    }
    const raw = plan.type === "query" ? plan.url.searchParams.get("input") : await readBody(req);
    const inputs = inputsOf(plan, raw);
    if (inputs === null) {
      // tRPC's adapter reads a body it finds on `req.body` as it is, and answers for it.
      if (raw !== null && plan.type === "mutation") Object.assign(req, { body: raw });
      standard(req, res);
      return;
    }
    await serve(req, res, plan, inputs);
  };

  return (req, res) => {
    handle(req, res).catch((cause: unknown) => {
      const error = getTRPCErrorFromUnknown(cause);
      options.onError({ error, path: undefined, input: undefined, type: "unknown", req });
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const shape = getErrorShape({
        config,
        error,
        type: "unknown",
        path: undefined,
        input: undefined,
        ctx: undefined,
      });
      res.statusCode = shape.data.httpStatus;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(transformTRPCResponse(config, { error: shape })));
    });
  };
}

/** The whole body as text (its size is bounded by the `content-length` checked before). */
function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
