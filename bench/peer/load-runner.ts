// The peer's side of the load test, in a Node process of its own so that its CPU is its own (as
// each Parley API instance is one process):
//   node --import tsx bench/peer/load-runner.ts <database url> <threads> <cycles per thread> <time limit s>
// Sets up PostgresSaver in the (empty, scratch) database, prints `{"ready":true}`, waits for one
// line on stdin, then runs every thread's cycles at once — invoke → interrupt, then
// Command({ resume }) → tool ran — and prints one JSON result line (`LoadRunnerResult`). It stays
// alive (so its CPU can still be read) until stdin ends.
import { createInterface } from "node:readline";
import { HumanMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { buildApprovalGraph, PEER_POOL_MAX, sideEffects } from "./approval-graph.js";

/** What the runner prints when its load is done. */
export interface LoadRunnerResult {
  /** Each finished cycle's ms, prompt → tool ran after the resume. */
  latencies: number[];
  seconds: number;
  errors: string[];
  timed_out: boolean;
}

const configOf = (thread_id: string) => ({ configurable: { thread_id } });

async function main(): Promise<void> {
  const [databaseUrl, threadsArg, cyclesArg, limitArg] = process.argv.slice(2);
  if (!databaseUrl || !threadsArg || !cyclesArg || !limitArg)
    throw new Error("usage: load-runner.ts <database url> <threads> <cycles> <time limit s>");
  const threads = Number(threadsArg);
  const cycles = Number(cyclesArg);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: PEER_POOL_MAX });
  const saver = new PostgresSaver(pool);
  await saver.setup();
  const graph = buildApprovalGraph(saver);
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  await lines.next();

  const latencies: number[] = [];
  const errors: string[] = [];
  let timed_out = false;
  const startedAt = performance.now();
  const deadline = startedAt + Number(limitArg) * 1000;
  const runThread = async (index: number) => {
    const thread_id = `load${index}`;
    for (let cycle = 0; cycle < cycles; cycle++) {
      if (performance.now() > deadline) {
        timed_out = true;
        return;
      }
      try {
        const started = performance.now();
        const interrupted = (await graph.invoke(
          { messages: [new HumanMessage(`Please increment the counter (${cycle}).`)] },
          configOf(thread_id),
        )) as { __interrupt__?: { value?: { type?: string } }[] };
        if (interrupted.__interrupt__?.[0]?.value?.type !== "approval_request")
          throw new Error(`thread ${thread_id} cycle ${cycle} did not interrupt`);
        await graph.invoke(new Command({ resume: { decision: "approved" } }), configOf(thread_id));
        const ran = sideEffects.get(thread_id)?.count ?? 0;
        if (ran !== cycle + 1)
          throw new Error(`thread ${thread_id}: tool ran ${ran} times in ${cycle + 1} cycles`);
        latencies.push(performance.now() - started);
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: threads }, (_, index) => runThread(index)));
  const result: LoadRunnerResult = {
    latencies,
    seconds: (performance.now() - startedAt) / 1000,
    errors,
    timed_out,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // Wait for the parent to have read this process's CPU: it ends stdin when done.
  while (!(await lines.next()).done) {}
  await saver.end();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
