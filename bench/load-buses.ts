import { createEventBus, PrismaSessionStore } from "@parley/db";
import { type PrivateNats, startPrivateNats } from "@parley/db/testing";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import type { SessionEvent } from "@parley/session-core";
import { buildSessionRecord, buildUserMessage, messageCommitOf } from "@parley/session-core/testing";
import pg from "pg";
import {
  type BenchServerInfo,
  type BenchServerProcess,
  startBenchServer,
} from "./lib/bench-server-process.js";
import { runLoadSession } from "./lib/load-session.js";
import { describeMachine } from "./lib/machine.js";
import { startBenchPostgresServer } from "./lib/postgres-server.js";
import { type Figure, latencyFigure, renderTable, valueFigure, writeReport } from "./lib/report.js";
import { resolveScale } from "./lib/scale.js";
import { now, summarize } from "./lib/stats.js";

const PRIVATE_POSTGRES_PORT = 4512;
const FIRST_SERVER_PORT = 4600;
/** How often the bus probe sends one event while the load runs. */
const PROBE_EVERY_MS = 50;

type BusKind = "notify" | "nats";
interface Configuration {
  bus: BusKind;
  instances: 1 | 2;
}

const CONFIGURATIONS: Configuration[] = [
  { bus: "notify", instances: 1 },
  { bus: "nats", instances: 1 },
  { bus: "notify", instances: 2 },
  { bus: "nats", instances: 2 },
];

/**
 * `npm run bench -- load buses`: the load cycle of `bench/load.ts` (prompt → approval pending →
 * respond → Turn finished) on each bus (`PARLEY_BUS` unset = NOTIFY, `nats://…` = NATS) with 1 and 2
 * API instances, side by side. With 2 instances calls go round-robin: each session subscribes and
 * prompts on one instance and responds on the other, so every cycle wakes the Turn's owner through
 * the bus. Per configuration: throughput, cycle p50/p99, and the bus's latency under that load from
 * a probe (two buses in this process, one commits an event and publishes it, the other receives it:
 * commit done → delivered), with its share of the cycle (bus p50 × bus hops per cycle / cycle p50;
 * one hop with 2 instances, none with 1). Every configuration gets a fresh database.
 */
async function main(): Promise<void> {
  const scale = resolveScale(process.env);
  const started_at = new Date().toISOString();
  const postgres = await startBenchPostgresServer({ port: PRIVATE_POSTGRES_PORT });
  const serverUrl = postgres.url;
  // Read now: the private cluster is gone by the time the report is written.
  const machine = await describeMachine(serverUrl);
  const nats = await startPrivateNats();
  const figures: Figure[] = [];
  const errors: string[] = [];
  try {
    for (const configuration of CONFIGURATIONS) {
      const label = `${configuration.bus}_${configuration.instances}i`;
      console.log(`[bench] load on ${label}`);
      const result = await runConfiguration(configuration, serverUrl, nats, scale);
      errors.push(...result.errors.map((error) => `${label}: ${error}`));
      const cycle = summarize(result.latencies.length > 0 ? result.latencies : [Number.NaN]);
      const bus = summarize(result.busLatencies.length > 0 ? result.busLatencies : [Number.NaN]);
      const hops = configuration.instances === 2 ? 1 : 0;
      figures.push(
        valueFigure(
          `load_${label}_cycles_per_s`,
          "1/s",
          result.latencies.length / result.seconds,
          result.latencies.length,
          {
            note: `${scale.load_sessions} sessions × ${scale.load_cycles_per_session} cycles, ${configuration.instances} instance(s)`,
          },
        ),
        latencyFigure(`load_${label}_cycle_ms`, cycle, {
          note: "prompt → approval pending → respond → finished",
        }),
        latencyFigure(`load_${label}_bus_ms`, bus, {
          note: "probe under load: commit done → delivered in another bus",
        }),
        valueFigure(
          `load_${label}_bus_share_pct`,
          "%",
          (100 * bus.p50 * hops) / cycle.p50,
          result.latencies.length,
          {
            note: `${hops} bus hop(s) per cycle × bus p50 / cycle p50, in percent`,
          },
        ),
      );
    }
  } finally {
    await nats.stop();
    await postgres.destroy();
  }
  console.log(renderTable(figures));
  const path = writeReport(
    {
      started_at,
      finished_at: new Date().toISOString(),
      scale: scale.name,
      machine,
      figures,
      details: { errors: [...new Set(errors)].slice(0, 50) },
      failures: [],
    },
    "-load-buses",
  );
  console.log(`written: ${path}`);
  if (errors.length > 0) {
    console.log(`ERRORS (${errors.length}):\n${[...new Set(errors)].slice(0, 20).join("\n")}`);
    process.exitCode = 1;
  }
}

async function runConfiguration(
  configuration: Configuration,
  serverUrl: string,
  nats: PrivateNats,
  scale: ReturnType<typeof resolveScale>,
): Promise<{ latencies: number[]; busLatencies: number[]; errors: string[]; seconds: number }> {
  const busEnv: Record<string, string> = configuration.bus === "nats" ? { BENCH_BUS: nats.url } : {};
  const servers: BenchServerProcess[] = [];
  const clients: ParleyClient[] = [];
  try {
    // The first instance makes (and at the end drops) the database; the second joins it.
    const first = await startBenchServer({ serverUrl, port: FIRST_SERVER_PORT, env: busEnv });
    servers.push(first);
    const infos = [first.info];
    if (configuration.instances === 2) {
      const second = await startBenchServer({
        serverUrl,
        port: FIRST_SERVER_PORT + 1,
        databaseUrl: first.info.database_url,
        env: busEnv,
      });
      servers.push(second);
      infos.push(second.info);
    }
    const probe = await startBusProbe(
      first.info.database_url,
      configuration.bus === "nats" ? nats.url : undefined,
    );
    const deadline = now() + scale.load_time_limit_s * 1000;
    const latencies: number[] = [];
    const errors: string[] = [];

    const runSession = async (index: number) => {
      // Round-robin: session i lives on instance i mod n; its answers go to the next instance.
      const home = infos[index % infos.length] as BenchServerInfo;
      const other = infos[(index + 1) % infos.length] as BenchServerInfo;
      const client = createParleyClient({ url: home.url, token: home.token });
      const responder = other === home ? client : createParleyClient({ url: other.url, token: other.token });
      clients.push(client);
      if (responder !== client) clients.push(responder);
      const session = await client.sessions.create({ title: `load${index}` });
      const options = { name: `load${index}`, cycles: scale.load_cycles_per_session, deadline };
      await runLoadSession(session, responder.session(session.id), options, { latencies, errors });
    };

    const startedAt = now();
    probe.run();
    await Promise.all(Array.from({ length: scale.load_sessions }, (_, index) => runSession(index)));
    const seconds = (now() - startedAt) / 1000;
    const busLatencies = await probe.stop();
    return { latencies, busLatencies, errors, seconds };
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    // The second instance first: the first one drops the database when it stops.
    for (const server of servers.reverse()) await server.stop();
  }
}

/**
 * Two buses of the configuration's kind in this process (one clock), on the load's database: one
 * commits a user message of a probe session and publishes it, the other times its delivery.
 */
async function startBusProbe(database_url: string, bus_url: string | undefined) {
  const pools = [0, 1, 2].map(() => new pg.Pool({ connectionString: database_url, max: 2 }));
  const [storePool, senderPool, receiverPool] = pools as [pg.Pool, pg.Pool, pg.Pool];
  const store = new PrismaSessionStore(storePool);
  const sender = createEventBus({ bus_url, pool: senderPool, database_url });
  const receiver = createEventBus({ bus_url, pool: receiverPool, database_url });
  await sender.start();
  await receiver.start();
  const session_id = `session:bus-probe:${Date.now()}`;
  await store.createSession(buildSessionRecord({ session_id }));
  const committedAt = new Map<number, number>();
  const latencies: number[] = [];
  receiver.subscribe({
    session_id,
    onSessionEvent: (event: SessionEvent) => {
      const at = committedAt.get(event.event_id);
      if (at !== undefined) latencies.push(now() - at);
    },
  });
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  let sequence = 0;
  return {
    run() {
      running = true;
      loop = (async () => {
        while (running) {
          sequence += 1;
          const result = await store.commit(
            messageCommitOf(buildUserMessage({ session_id, message_id: `message:${sequence}`, sequence })),
          );
          if (result.event) {
            committedAt.set(result.event.event_id, now());
            await sender.publish({ session_events: [result.event], interaction_events: [] });
          }
          await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
        }
      })();
    },
    async stop(): Promise<number[]> {
      running = false;
      await loop;
      await sender.close();
      await receiver.close();
      await Promise.all(pools.map((pool) => pool.end()));
      return latencies;
    },
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
