import pg from "pg";
import { startParleyStack } from "./lib/parley-stack.js";
import { inBatches } from "./lib/waiting-sessions.js";

const stack = await startParleyStack({
  serverUrl: "postgresql://postgres@127.0.0.1:5432/postgres",
  port: 4597,
});
const client = stack.client();
let created = 0,
  prompted = 0;
const keys = Array.from({ length: 100 }, (_, i) => `diag${i}`);
const timer = setInterval(async () => {
  const c = new pg.Client({ connectionString: stack.scratch.url });
  await c.connect();
  const r = await c.query("select status, count(*) from interactions group by status");
  const a = await c.query(
    "select state, wait_event_type, wait_event, left(query,80) q, count(*) from pg_stat_activity where datname = current_database() group by 1,2,3,4",
  );
  console.log(new Date().toISOString().slice(11, 19), { created, prompted }, r.rows, a.rows);
  await c.end();
}, 5000);
await inBatches(keys, 20, async (key) => {
  const session = await client.sessions.create({ title: key });
  created++;
  await session.prompt(`approve ${key}`);
  prompted++;
});
console.log("all prompted");
await new Promise((r) => setTimeout(r, 3000));
clearInterval(timer);
const t0 = Date.now();
const w = setInterval(() => console.log("closing...", Date.now() - t0), 5000);
await client.close();
console.log("client closed", Date.now() - t0);
await stack.server.close();
console.log("server closed", Date.now() - t0);
await stack.runtime.shutdown();
console.log("runtime shut down", Date.now() - t0);
await stack.database.close();
console.log("db closed", Date.now() - t0);
clearInterval(w);
const { startParleyRuntime } = await import("./lib/parley-stack.js");
const second = await startParleyRuntime(stack.scratch.url);
console.log("second started", Date.now() - t0);
const w2 = setInterval(() => console.log("recovering...", Date.now() - t0, second.probe.times.size), 3000);
const rec = await second.runtime.recover();
console.log("recover returned", Date.now() - t0, rec.resumed_session_ids.length, second.probe.times.size);
await new Promise((r) => setTimeout(r, 5000));
console.log("after 5s", second.probe.times.size);
clearInterval(w2);
await second.close();
await stack.scratch.drop();
