import http from "node:http";
import type { AddressInfo } from "node:net";
import { initTRPC, TRPCError } from "@trpc/server";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createTrpcNodeHandler } from "./trpc-node-handler.js";

interface Context {
  user: string | null;
  calls: number;
}

const t = initTRPC.context<Context>().create({
  // As the API runs it: no stack in an error shape (a stack names whichever adapter ran).
  isDev: false,
  errorFormatter: ({ shape, error }) => ({
    ...shape,
    data: { ...shape.data, cause_name: error.cause?.name ?? null },
  }),
});
const authed = t.procedure.use(({ ctx, next }) => {
  if (ctx.user === null) throw new TRPCError({ code: "UNAUTHORIZED", message: "who are you" });
  return next({ ctx: { ...ctx, user: ctx.user } });
});
const router = t.router({
  whoami: authed.query(({ ctx }) => ({ user: ctx.user })),
  echo: authed.input(z.object({ text: z.string().max(5) })).query(({ input }) => input.text),
  add: authed.input(z.object({ a: z.number(), b: z.number() })).mutation(({ input }) => input.a + input.b),
  refuse: authed.mutation(() => {
    throw new TRPCError({ code: "FORBIDDEN", message: "not yours" });
  }),
  crash: authed.mutation(() => {
    throw new RangeError("boom");
  }),
  count: authed.output(z.number()).query(({ ctx }) => ctx.calls),
  ticks: authed.subscription(async function* () {
    yield 1;
  }),
});

/** Two servers of one router: tRPC's own adapter, and the handler under test. */
/** Which path made each context: the direct path's `info.signal` is made only when read. */
const contextsMadeBy: string[] = [];

function serverOf(kind: "standard" | "direct", errors: string[]): http.Server {
  const options = {
    router,
    basePath: "/trpc/",
    maxBodySize: 1024,
    createContext: async ({ req, info }: { req: http.IncomingMessage; info: { calls: unknown[] } }) => {
      contextsMadeBy.push(Object.getOwnPropertyDescriptor(info, "signal")?.get ? "direct" : "tRPC's adapter");
      if (req.headers["x-fail-context"])
        throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: "slow down" });
      return { user: req.headers.authorization ?? null, calls: info.calls.length };
    },
    onError: ({ error, path }: { error: TRPCError; path: string | undefined }) => {
      errors.push(`${path}:${error.code}`);
    },
  };
  const handler =
    kind === "standard" ? createHTTPHandler(options) : createTrpcNodeHandler<typeof router, Context>(options);
  return http.createServer((req, res) => handler(req, res));
}

interface Exchange {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

async function send(base: string, { method, path, headers = {}, body }: Exchange) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return {
    status: response.status,
    content_type: response.headers.get("content-type"),
    vary: response.headers.get("vary"),
    body: await response.text(),
  };
}

const json = { "content-type": "application/json" };
const user = { authorization: "alice" };
const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));

const EXCHANGES: Array<[string, Exchange]> = [
  ["a query", { method: "GET", path: "/trpc/whoami", headers: user }],
  ["a query with input", { method: "GET", path: `/trpc/echo?input=${input({ text: "hi" })}`, headers: user }],
  [
    "a batch of queries",
    {
      method: "GET",
      path: `/trpc/echo,whoami,count?batch=1&input=${input({ 0: { text: "a" } })}`,
      headers: user,
    },
  ],
  [
    "a batch with an invalid input",
    {
      method: "GET",
      path: `/trpc/echo,echo?batch=1&input=${input({ 0: { text: "a" }, 1: { text: "toolong" } })}`,
      headers: user,
    },
  ],
  ["no token", { method: "GET", path: "/trpc/whoami" }],
  [
    "a context that fails",
    { method: "GET", path: "/trpc/whoami,count?batch=1", headers: { ...user, "x-fail-context": "1" } },
  ],
  [
    "a mutation",
    {
      method: "POST",
      path: "/trpc/add",
      headers: { ...user, ...json },
      body: JSON.stringify({ a: 1, b: 2 }),
    },
  ],
  [
    "a batch of mutations, one refused",
    {
      method: "POST",
      path: "/trpc/add,refuse?batch=1",
      headers: { ...user, ...json },
      body: JSON.stringify({ 0: { a: 2, b: 3 } }),
    },
  ],
  [
    "a mutation that crashes",
    { method: "POST", path: "/trpc/crash", headers: { ...user, ...json }, body: "" },
  ],
  ["malformed JSON", { method: "POST", path: "/trpc/add", headers: { ...user, ...json }, body: "{nope" }],
  [
    "a batch input that is not an object",
    { method: "POST", path: "/trpc/add?batch=1", headers: { ...user, ...json }, body: "[1]" },
  ],
  [
    "a body over the limit",
    {
      method: "POST",
      path: "/trpc/add",
      headers: { ...user, ...json },
      body: JSON.stringify({ a: 1, b: 2, pad: "x".repeat(2000) }),
    },
  ],
  [
    "no content type",
    { method: "POST", path: "/trpc/add", headers: user, body: JSON.stringify({ a: 1, b: 2 }) },
  ],
  ["an unknown procedure", { method: "GET", path: "/trpc/nothing", headers: user }],
  ["a query over POST", { method: "POST", path: "/trpc/whoami", headers: { ...user, ...json }, body: "{}" }],
  ["a mutation over GET", { method: "GET", path: "/trpc/add", headers: user }],
  ["a query input that is not JSON", { method: "GET", path: "/trpc/echo?input=%7Bnope", headers: user }],
  [
    "a subscription over GET (SSE)",
    { method: "GET", path: "/trpc/ticks", headers: { ...user, accept: "text/event-stream" } },
  ],
];

describe("the direct tRPC handler answers as tRPC's own adapter does", () => {
  const errors = { standard: [] as string[], direct: [] as string[] };
  const servers = {
    standard: serverOf("standard", errors.standard),
    direct: serverOf("direct", errors.direct),
  };
  const bases = { standard: "", direct: "" };

  beforeAll(async () => {
    for (const kind of ["standard", "direct"] as const) {
      const server = servers[kind];
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      bases[kind] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
  });
  afterAll(async () => {
    for (const server of Object.values(servers)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.each(EXCHANGES)("%s: same status, headers, body and reported errors", async (_, exchange) => {
    errors.standard.length = 0;
    errors.direct.length = 0;
    const expected = await send(bases.standard, exchange);
    const actual = await send(bases.direct, exchange);
    if (exchange.headers?.accept === "text/event-stream") {
      // A stream's body never ends; its start is what both must agree on.
      expect(actual.status).toBe(expected.status);
      expect(actual.content_type).toBe(expected.content_type);
      return;
    }
    expect(actual).toEqual(expected);
    expect(errors.direct).toEqual(errors.standard);
  });

  it("serves queries and mutations itself, and hands subscriptions and what it does not read to tRPC's adapter", async () => {
    const made = async (exchange: Exchange) => {
      contextsMadeBy.length = 0;
      await send(bases.direct, exchange);
      return contextsMadeBy.join();
    };
    expect(await made({ method: "GET", path: "/trpc/whoami", headers: user })).toBe("direct");
    expect(
      await made({ method: "POST", path: "/trpc/add", headers: { ...user, ...json }, body: '{"a":1,"b":1}' }),
    ).toBe("direct");
    expect(
      await made({ method: "POST", path: "/trpc/add", headers: { ...user, ...json }, body: "{nope" }),
    ).toBe("tRPC's adapter");
    expect(await made({ method: "GET", path: "/trpc/add", headers: user })).toBe("tRPC's adapter");
  });
});
