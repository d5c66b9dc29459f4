import type { AddressInfo } from "node:net";
import { createTRPCUntypedClient, TRPCClientError } from "@trpc/client";
import { initTRPC, TRPCError } from "@trpc/server";
import { createHTTPServer } from "@trpc/server/adapters/standalone";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { fetchTransport, type HttpTransport, lazyHttpTransport } from "./http-transport.js";
import { tickBatchLink } from "./tick-batch-link.js";

const t = initTRPC.create();
const router = t.router({
  echo: t.procedure.input(z.object({ text: z.string() })).query(({ input }) => input.text),
  add: t.procedure
    .input(z.object({ a: z.number(), b: z.number() }))
    .mutation(({ input }) => input.a + input.b),
  refuse: t.procedure.mutation(() => {
    throw new TRPCError({ code: "FORBIDDEN", message: "not yours" });
  }),
});

describe.each<{ name: string; transport: HttpTransport }>([
  { name: "Node's http (the SDK's transport on Node)", transport: lazyHttpTransport() },
  { name: "fetch (the SDK's transport in browsers)", transport: fetchTransport },
])("tickBatchLink over $name", ({ transport }) => {
  const requests: { method: string; url: string; authorization: string | undefined }[] = [];
  const server = createHTTPServer({
    router,
    createContext: ({ req }) => {
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        authorization: req.headers.authorization,
      });
      return {};
    },
  });
  let url = "";

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    transport.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  afterEach(() => {
    requests.length = 0;
    vi.restoreAllMocks();
  });

  const client = (maxItems = 20) =>
    createTRPCUntypedClient({
      links: [tickBatchLink({ url, headers: { authorization: "Bearer t" }, maxItems, transport })],
    });

  it("sends the calls of one tick as one request per type, with the headers, and answers each", async () => {
    const trpc = client();
    const results = await Promise.all([
      trpc.query("echo", { text: "a" }),
      trpc.query("echo", { text: "b" }),
      trpc.mutation("add", { a: 1, b: 2 }),
      trpc.mutation("add", { a: 3, b: 4 }),
    ]);
    expect(results).toEqual(["a", "b", 3, 7]);
    expect(requests.map((request) => [request.method, request.url.split("?")[0]])).toEqual([
      ["GET", "/echo,echo"],
      ["POST", "/add,add"],
    ]);
    expect(requests.every((request) => request.authorization === "Bearer t")).toBe(true);
  });

  it("sends a lone call without waiting for a timer", async () => {
    const trpc = client();
    const timers = vi.spyOn(globalThis, "setTimeout");
    const sum = trpc.mutation("add", { a: 2, b: 2 });
    // tRPC's own batch link arms `setTimeout` here, before anything is sent.
    expect(timers).not.toHaveBeenCalled();
    await expect(sum).resolves.toBe(4);
    expect(requests).toHaveLength(1);
  });

  it("calls of later ticks go in later requests", async () => {
    const trpc = client();
    expect(await trpc.query("echo", { text: "first" })).toBe("first");
    expect(await trpc.query("echo", { text: "second" })).toBe("second");
    expect(requests).toHaveLength(2);
  });

  it("splits a tick's calls into requests of at most maxItems", async () => {
    const trpc = client(2);
    const texts = ["1", "2", "3", "4", "5"];
    expect(await Promise.all(texts.map((text) => trpc.query("echo", { text })))).toEqual(texts);
    expect(requests.map((request) => request.url.split("?")[0])).toEqual([
      "/echo,echo",
      "/echo,echo",
      "/echo",
    ]);
  });

  it("a failing call rejects with the server's TRPCClientError; the others of its batch still resolve", async () => {
    const trpc = client();
    const [refused, sum] = await Promise.allSettled([
      trpc.mutation("refuse", undefined),
      trpc.mutation("add", { a: 1, b: 1 }),
    ]);
    expect(sum).toEqual({ status: "fulfilled", value: 2 });
    expect(refused.status).toBe("rejected");
    const error = (refused as PromiseRejectedResult).reason;
    expect(error).toBeInstanceOf(TRPCClientError);
    expect(error).toMatchObject({ message: "not yours", data: { code: "FORBIDDEN", httpStatus: 403 } });
    expect(requests).toHaveLength(1);
  });

  it("an unreachable server rejects every call of the batch with a TRPCClientError", async () => {
    const trpc = createTRPCUntypedClient({
      links: [tickBatchLink({ url: "http://127.0.0.1:9/trpc", headers: {}, maxItems: 20, transport })],
    });
    const outcomes = await Promise.allSettled([
      trpc.query("echo", { text: "x" }),
      trpc.query("echo", { text: "y" }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);
    for (const outcome of outcomes)
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(TRPCClientError);
  });
});
