import { loadAllMessages } from "../runtime-context.js";
import type { SessionSettings } from "../session/session-settings.js";
import { TurnFencedError } from "../session/session-writer.js";
import { lastStepText, startStep } from "../transitions/assistant-transitions.js";
import type { OpenSegment } from "./open-segment.js";
import { buildModelPrompt, toModelTools } from "./prompt-builder.js";
import { errorText, StepStreamConsumer } from "./step-stream-consumer.js";
import type { ToolCallHost } from "./tool-call-host.js";

/** What one model request of a Step works with. */
export interface ModelRequest {
  readonly host: ToolCallHost & { readonly settings: SessionSettings };
  readonly segment: OpenSegment;
  readonly abort_signal: AbortSignal;
  /** `work`, unless the Turn ends first (stopped or given up): then it throws and the loop unwinds. */
  raceEnded<T>(work: Promise<T>): Promise<T>;
  throwIfEnded(): void;
}

/** What the model answered: its last Step's text, and the tool calls it made (`ready`: to run). */
export interface ModelAnswer {
  text: string;
  tool_calls: number;
  /** Undefined when the model wrote nothing (no message was opened). */
  message_id: string | undefined;
  ready: string[];
}

/**
 * The Step's model request (docs/behaviour.md#turn-and-step): the whole session is the prompt (as
 * the Turn's start read it, for its first request: `StartingHistory`; else read now), and
 * the model's stream changes the open segment live as it arrives (DESIGN §10.6; a later Step of the
 * segment opens with its `step-start`), and the next checkpoint commits it. A provider error fails the Turn; a stop or
 * give-up ends the request at once.
 */
export async function requestModel(request: ModelRequest): Promise<ModelAnswer> {
  const { host, segment } = request;
  const { agent, context } = host;
  const messages =
    host.writer.startingHistory.take(segment.turn_id, segment.epoch) ??
    (await loadAllMessages(context.store, host.session_id));
  const prompt = buildModelPrompt(agent.system, messages);
  const consumer = new StepStreamConsumer(
    {
      ensureMessage: () => segment.ensureMessage(),
      live: (id, fn) => segment.live(id, fn),
      checkpoint: (id) => segment.checkpointLive(id),
      now: () => context.clock.now(),
    },
    agent.tools,
    context.ids,
    context.stream_checkpoint_ms,
  );
  if (segment.messageId) {
    const step_part_id = context.ids.part("step-start");
    consumer.opensWith((current) => startStep(current, step_part_id));
  }
  try {
    const result = await request.raceEnded(
      Promise.resolve(
        host.settings
          .stepModel()
          .doStream({ prompt, tools: toModelTools(agent.tools), abortSignal: request.abort_signal }),
      ),
    );
    await request.raceEnded(consumer.consume(result.stream));
  } catch (error) {
    request.throwIfEnded();
    if (error instanceof TurnFencedError) throw error;
    throw error instanceof Error ? error : new Error(errorText(error));
  }
  const message_id = segment.messageId;
  if (!message_id) return { text: "", tool_calls: 0, message_id: undefined, ready: [] };
  // The consumer recorded the end of the model stream live when the Step called tools (their next
  // checkpoint commits it); otherwise the close that comes next records it.
  const message = host.writer.cached(message_id);
  return {
    text: message ? lastStepText(message) : "",
    tool_calls: consumer.toolCalls.length,
    message_id,
    ready: consumer.toolCalls.filter((call) => call.ready).map((call) => call.tool_call_id),
  };
}
