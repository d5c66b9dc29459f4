import http from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { type Figure, latencyFigure, valueFigure } from "./lib/report.js";
import { type Distribution, now, summarize, timeRuns } from "./lib/stats.js";

/**
 * How long the machine idles before each idle sample. Back to back, a round trip finds the database
 * backend and this process still running; after a pause it wakes them first. Measured on the 2-core
 * virtual machines the bench runs on, a one-row read took 0.09 ms back to back and 0.62–0.72 ms after
 * 5 ms or more of idling (0.49 ms after 1 ms), a durable commit 0.20 against 1.1–1.2 ms. An answer
 * comes after such a pause (the machine waited for the person, or for the client to see the
 * request), so its floor is taken the same way.
 */
const IDLE_GAP_MS = 5;

/**
 * The least an answer that runs its tool exactly once can wait, measured in the same run as Parley
 * and the peer: the answer must be durable before the tool goes on, so respond → resumed holds at
 * least one durable commit; Parley also reads the Interaction it answers before that commit (the
 * answer is checked against the stored request), and over HTTP the request must arrive first.
 *
 * - `floor_pg_commit_ms`: one autocommit UPDATE of one row (a durable commit: the WAL flushed).
 * - `floor_pg_read_commit_ms`: a read of that row, then the same commit, on one connection.
 * - `floor_pg_read_commit_idle_ms`: the same, each time after the machine idled `IDLE_GAP_MS`, as
 *   an answer meets it (see `IDLE_GAP_MS`).
 * - `floor_http_request_ms`: a 300-byte JSON POST over a kept-alive loopback connection (Node's
 *   `http`, as the SDK sends on Node), until the server has read its body.
 * - `floor_respond_resumed_ms`: the floor of `respond_resumed_ms`: the request's p50 plus the idle
 *   read and commit's.
 */
export async function measureAnswerFloor(databaseUrl: string, runs: number): Promise<Figure[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const payload = JSON.stringify({ status: "resolved", response: { decision: "approved" } });
  let commit: Distribution;
  let readCommit: Distribution;
  let readCommitIdle: Distribution;
  try {
    await client.query(
      "CREATE TABLE IF NOT EXISTS bench_floor_answer (id int PRIMARY KEY, body jsonb NOT NULL)",
    );
    await client.query("INSERT INTO bench_floor_answer VALUES (1, '{}') ON CONFLICT (id) DO NOTHING");
    const read = () =>
      client.query({ name: "floor_read", text: "SELECT body FROM bench_floor_answer WHERE id = 1" });
    const write = () =>
      client.query({
        name: "floor_commit",
        text: "UPDATE bench_floor_answer SET body = $1::jsonb WHERE id = 1",
        values: [payload],
      });
    const readThenWrite = async () => {
      await read();
      await write();
    };
    commit = await timeRuns({ runs, warmups: 20 }, write);
    readCommit = await timeRuns({ runs, warmups: 20 }, readThenWrite);
    readCommitIdle = await timeRuns({ runs, warmups: 5 }, readThenWrite, IDLE_GAP_MS);
  } finally {
    await client.query("DROP TABLE IF EXISTS bench_floor_answer").catch(() => undefined);
    await client.end();
  }
  const request = await measureHttpRequest(runs);
  return [
    latencyFigure("floor_pg_commit_ms", commit),
    latencyFigure("floor_pg_read_commit_ms", readCommit),
    latencyFigure("floor_pg_read_commit_idle_ms", readCommitIdle, {
      note: `the same read and commit, each after ${IDLE_GAP_MS} ms of idling, as an answer meets the database`,
    }),
    latencyFigure("floor_http_request_ms", request),
    valueFigure("floor_respond_resumed_ms", "ms", request.p50 + readCommitIdle.p50, runs, {
      p50: request.p50 + readCommitIdle.p50,
      note: "floor_http_request_ms p50 + floor_pg_read_commit_idle_ms p50: an answer over HTTP, read, then committed before the tool goes on, with no code of its own",
    }),
  ];
}

/** `floor_http_request_ms`: POST sent → the server's handler has read the body. */
async function measureHttpRequest(runs: number) {
  let arrived: (() => void) | undefined;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      arrived?.();
      response.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true });
  // About the size of a batched `session.respond` approving a call.
  const answer = { type: "approval", outcome: "resolved", payload: { decision: "approved" } };
  const body = JSON.stringify({
    0: { json: { session_id: "s".repeat(24), interaction_id: "i".repeat(24), response: answer } },
    pad: "x".repeat(120),
  });
  const post = () =>
    new Promise<number>((resolve, reject) => {
      let arrivedAt = 0;
      arrived = () => {
        arrivedAt = now();
      };
      const request = http.request(
        {
          host: "127.0.0.1",
          port,
          path: "/trpc/session.respond",
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (response) => {
          response.resume();
          response.on("end", () => resolve(arrivedAt));
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  try {
    const samples: number[] = [];
    for (let index = 0; index < runs + 20; index++) {
      const sentAt = now();
      const arrivedAt = await post();
      if (index >= 20) samples.push(arrivedAt - sentAt);
    }
    return summarize(samples);
  } finally {
    agent.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
