import type { AddressInfo } from "node:net";
import pg from "pg";
import { WebSocket, WebSocketServer } from "ws";
import { measureAnswerFloor } from "./floor-answer.js";
import { type Figure, latencyFigure, valueFigure } from "./lib/report.js";
import { now, timeRuns } from "./lib/stats.js";

/**
 * The raw floor every figure is compared with, measured in the same run on the same machine: what
 * the hardware, Postgres and the network stack cost before Parley adds anything.
 *
 * - `floor_pg_txn_notify_ms`: one connection runs BEGIN; INSERT; NOTIFY; COMMIT, and the time is
 *   taken when a second, LISTENing connection receives the notification (the least a "commit, then
 *   tell another client" can cost).
 * - `floor_ws_echo_ms`: a message to a local `ws` server and back.
 * - `floor_pg_txn_notify_per_s`: the same transaction from `concurrency` connections at once.
 * - the floor of an exactly-once answer (`measureAnswerFloor`).
 */
export async function measureFloor(
  databaseUrl: string,
  options: { runs: number; concurrency: number; concurrentRuns: number },
): Promise<Figure[]> {
  const figures: Figure[] = [];
  const listener = new pg.Client({ connectionString: databaseUrl });
  const writer = new pg.Client({ connectionString: databaseUrl });
  await Promise.all([listener.connect(), writer.connect()]);
  try {
    await writer.query(
      "CREATE TABLE IF NOT EXISTS bench_floor (id bigserial PRIMARY KEY, payload jsonb NOT NULL)",
    );
    await listener.query("LISTEN bench_floor");
    const waiters = new Map<string, () => void>();
    listener.on("notification", (message) => {
      const waiter = waiters.get(message.payload ?? "");
      if (waiter) {
        waiters.delete(message.payload ?? "");
        waiter();
      }
    });
    const transaction = async (client: pg.ClientBase, key: string) => {
      await client.query("BEGIN");
      await client.query("INSERT INTO bench_floor (payload) VALUES ($1)", [
        JSON.stringify({ key, text: "x".repeat(200) }),
      ]);
      await client.query("SELECT pg_notify('bench_floor', $1)", [key]);
      await client.query("COMMIT");
    };
    const roundTrip = async (client: pg.ClientBase, key: string) => {
      const delivered = new Promise<void>((resolve) => waiters.set(key, resolve));
      await transaction(client, key);
      await delivered;
    };

    const roundTrips = await timeRuns({ runs: options.runs, warmups: 20 }, (index) =>
      roundTrip(writer, `round-${index}`),
    );
    figures.push(latencyFigure("floor_pg_txn_notify_ms", roundTrips));

    const pool = new pg.Pool({ connectionString: databaseUrl, max: options.concurrency });
    try {
      const started = now();
      let next = 0;
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          while (next < options.concurrentRuns) {
            const key = `concurrent-${next++}`;
            const client = await pool.connect();
            try {
              await roundTrip(client, key);
            } finally {
              client.release();
            }
          }
        }),
      );
      const seconds = (now() - started) / 1000;
      figures.push(
        valueFigure(
          "floor_pg_txn_notify_per_s",
          "1/s",
          options.concurrentRuns / seconds,
          options.concurrentRuns,
          {
            note: `${options.concurrency} connections`,
          },
        ),
      );
    } finally {
      await pool.end();
    }
  } finally {
    await writer.query("DROP TABLE IF EXISTS bench_floor").catch(() => undefined);
    await Promise.all([listener.end(), writer.end()]);
  }

  figures.push(latencyFigure("floor_ws_echo_ms", await measureWebSocketEcho(options.runs * 2)));
  figures.push(...(await measureAnswerFloor(databaseUrl, options.runs)));
  return figures;
}

async function measureWebSocketEcho(runs: number) {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  server.on("connection", (socket) => socket.on("message", (data) => socket.send(data)));
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const client = new WebSocket(`ws://127.0.0.1:${port}`);
  await new Promise<void>((resolve, reject) => {
    client.once("open", () => resolve());
    client.once("error", reject);
  });
  try {
    const payload = JSON.stringify({ id: 1, result: { type: "data", data: { text: "x".repeat(400) } } });
    const echo = () =>
      new Promise<void>((resolve) => {
        client.once("message", () => resolve());
        client.send(payload);
      });
    return await timeRuns({ runs, warmups: 50 }, echo);
  } finally {
    client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
