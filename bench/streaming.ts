import type { ParleyClient } from "./lib/parley-stack.js";
import { startParleyStack } from "./lib/parley-stack.js";
import { type Figure, latencyFigure, valueFigure } from "./lib/report.js";
import { SessionWatch } from "./lib/session-watch.js";
import { now, summarize } from "./lib/stats.js";
import type { SuiteContext } from "./lib/suite.js";

interface StreamRun {
  elapsed_ms: number;
  characters: number;
  delta_mutations: number;
}

/**
 * One client prompts `stream <characters> <chunks>`: the zero-latency model emits that text in
 * `chunks` deltas as fast as it can; the runtime coalesces deltas into revisions (persisted, then
 * published). Timed from prompt to the Turn's finish at the client; the text the client assembled
 * from `delta` mutations must equal the persisted message's text.
 */
async function streamOnce(client: ParleyClient, label: string, characters: number, chunks: number) {
  const session = await client.sessions.create({ title: label });
  const watch = new SessionWatch();
  const unsubscribe = session.subscribe(watch.onMutation, { after_event_id: 0 });
  const finished = watch.waitForTurnFinish();
  const startedAt = now();
  await session.prompt(`stream ${characters} ${chunks}`);
  const finish = await finished;
  unsubscribe();
  const deltas = watch.mutations.filter((mutation) => mutation.variant === "delta");
  const page = await session.messages();
  const assistant = page.items.find((message) => message.type === "assistant");
  const persisted =
    assistant?.type === "assistant"
      ? assistant.parts.map((part) => (part.type === "text" ? part.text : "")).join("")
      : "";
  if (persisted.length !== characters) {
    throw new Error(`${label}: persisted ${persisted.length} characters, expected ${characters}`);
  }
  if (!watch.isGapFree()) throw new Error(`${label}: event id gap or duplicate`);
  return {
    elapsed_ms: finish.at - startedAt,
    characters,
    delta_mutations: deltas.length,
  } satisfies StreamRun;
}

export async function measureStreaming(context: SuiteContext): Promise<Figure[]> {
  const { scale } = context;
  const stack = await startParleyStack({ serverUrl: context.serverUrl, port: context.nextPort() });
  try {
    const client = stack.client();
    await streamOnce(client, "warmup", 1000, 100);
    const single: StreamRun[] = [];
    for (let run = 0; run < scale.stream_runs; run++) {
      single.push(await streamOnce(client, `single${run}`, scale.stream_characters, scale.stream_chunks));
    }
    const singleTimes = summarize(single.map((run) => run.elapsed_ms));
    const figures: Figure[] = [
      valueFigure(
        "stream_chars_per_s",
        "chars/s",
        (scale.stream_characters * single.length) /
          (single.reduce((sum, run) => sum + run.elapsed_ms, 0) / 1000),
        single.length,
        {
          note: `${scale.stream_characters} chars in ${scale.stream_chunks} deltas per Turn, persisted and delivered; median ${summarize(single.map((run) => run.delta_mutations)).p50} delta mutations per Turn`,
        },
      ),
      latencyFigure("stream_turn_ms", singleTimes, {
        note: "prompt → Turn finished at the client, one stream",
      }),
    ];

    const clients = Array.from({ length: scale.streaming_clients }, () => stack.client());
    const startedAt = now();
    const parallel = await Promise.all(
      clients.map((parallelClient, index) =>
        streamOnce(parallelClient, `parallel${index}`, scale.stream_characters, scale.stream_chunks),
      ),
    );
    const wall = (now() - startedAt) / 1000;
    figures.push(
      valueFigure(
        "stream_parallel_chars_per_s",
        "chars/s",
        (scale.stream_characters * parallel.length) / wall,
        parallel.length,
        {
          note: `${parallel.length} API clients streaming at once, each its own session and WebSocket: total characters per second`,
        },
      ),
      latencyFigure("stream_parallel_turn_ms", summarize(parallel.map((run) => run.elapsed_ms)), {
        note: `${parallel.length} streams at once: prompt → Turn finished, per client`,
      }),
    );
    return figures;
  } finally {
    await stack.close();
  }
}
