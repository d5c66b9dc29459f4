import { runEventBusConformance } from "@parley/session-core/testing";
import pg from "pg";
import { createPrismaClient } from "../prisma-client.js";
import { PrismaSessionStore } from "../session-store/prisma-session-store.js";
import { type BusFaults, withBusFaults } from "../testing/faulty-bus-transport.js";
import { startPrivateNats } from "../testing/private-nats.js";
import { createTestDatabase } from "../testing/test-database.js";
import { NatsEventBus } from "./nats-event-bus.js";
import type { NoticeEventBus } from "./notice-event-bus.js";
import { PostgresEventBus } from "./postgres-event-bus.js";

/** A scratch database and its store; each bus gets a pool of its own, as another process would. */
async function scratchDatabase() {
  const database = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  const prisma = createPrismaClient(pool);
  const pools: pg.Pool[] = [];
  return {
    url: database.url,
    store: new PrismaSessionStore(pool),
    async startBus(create: (pool: pg.Pool) => NoticeEventBus) {
      const busPool = new pg.Pool({ connectionString: database.url, max: 2 });
      pools.push(busPool);
      const bus = create(busPool);
      await bus.start();
      return bus;
    },
    async cleanup() {
      await Promise.all(pools.map((busPool) => busPool.end()));
      await prisma.$disconnect();
      await pool.end();
      await database.drop();
    },
  };
}

runEventBusConformance(
  "Postgres LISTEN/NOTIFY",
  async () => {
    const database = await scratchDatabase();
    return {
      store: database.store,
      startBus: (options?: BusFaults) =>
        database.startBus(
          (pool) =>
            new PostgresEventBus({
              pool,
              url: database.url,
              wrapTransport: (transport) => withBusFaults(transport, options ?? {}),
            }),
        ),
      cleanup: () => database.cleanup(),
    };
  },
  { restartsBroker: false },
);

runEventBusConformance(
  "NATS",
  async () => {
    const database = await scratchDatabase();
    const nats = await startPrivateNats();
    return {
      store: database.store,
      startBus: (options?: BusFaults) =>
        database.startBus(
          (pool) =>
            new NatsEventBus({
              pool,
              url: nats.url,
              wrapTransport: (transport) => withBusFaults(transport, options ?? {}),
            }),
        ),
      async restartBroker(whileDown) {
        await nats.stop();
        await whileDown();
        await nats.start();
      },
      async cleanup() {
        await database.cleanup();
        await nats.stop();
      },
    };
  },
  { restartsBroker: true },
);
