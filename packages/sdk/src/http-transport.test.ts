import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadHttpTransport } from "./http-transport.js";

describe("the SDK's HTTP transport on Node", () => {
  const connections: string[] = [];
  let release: (() => void) | null = null;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const reply = () => {
        if (request.url === "/html") {
          response.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad gateway</h1>");
          return;
        }
        response.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            method: request.method,
            body: Buffer.concat(chunks).toString("utf8"),
            length: request.headers["content-length"] ?? null,
            authorization: request.headers.authorization ?? null,
          }),
        );
      };
      if (request.url === "/held") release = reply;
      else reply();
    });
  });
  server.on("connection", (socket) => connections.push(`${socket.remotePort}`));
  let base = "";

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("sends the method, headers and body, and parses the JSON answer", async () => {
    const transport = await loadHttpTransport();
    const body = JSON.stringify({ 0: { text: "héllo" } });
    const reply = await transport.send({
      url: `${base}/echo`,
      method: "POST",
      headers: { authorization: "Bearer t", "content-type": "application/json" },
      body,
    });
    expect(reply).toEqual({
      status: 200,
      body: { method: "POST", body, length: String(Buffer.byteLength(body)), authorization: "Bearer t" },
    });
    transport.close();
  });

  it("keeps the connection alive: requests one after another share one", async () => {
    const transport = await loadHttpTransport();
    const before = connections.length;
    for (let round = 0; round < 3; round++) {
      expect((await transport.send({ url: `${base}/echo`, method: "GET", headers: {} })).status).toBe(200);
    }
    expect(connections.length - before).toBe(1);
    transport.close();
  });

  it("closes a connection idle for idle_connection_ms, before the server would; a longer request is not cut", async () => {
    const transport = await loadHttpTransport({ idle_connection_ms: 300 });
    const before = connections.length;
    expect((await transport.send({ url: `${base}/echo`, method: "GET", headers: {} })).status).toBe(200);
    // Answered after longer than the idle time: in flight, so not closed.
    const held = transport.send({ url: `${base}/held`, method: "GET", headers: {} });
    while (release === null) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 700));
    release();
    release = null;
    expect(await held).toMatchObject({ status: 200 });
    expect(connections.length - before).toBe(1);
    // Idle past it: the next request opens a new connection.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect((await transport.send({ url: `${base}/echo`, method: "GET", headers: {} })).status).toBe(200);
    expect(connections.length - before).toBe(2);
    transport.close();
  });

  it("rejects an answer that is not JSON", async () => {
    const transport = await loadHttpTransport();
    await expect(transport.send({ url: `${base}/html`, method: "GET", headers: {} })).rejects.toThrow(
      SyntaxError,
    );
    transport.close();
  });

  it("close() ends only idle connections: a request in flight still gets its answer", async () => {
    const transport = await loadHttpTransport();
    const held = transport.send({ url: `${base}/held`, method: "GET", headers: {} });
    while (release === null) await new Promise((resolve) => setTimeout(resolve, 5));
    transport.close();
    release();
    expect(await held).toMatchObject({ status: 200, body: { method: "GET" } });
    release = null;
    transport.close();
  });
});
