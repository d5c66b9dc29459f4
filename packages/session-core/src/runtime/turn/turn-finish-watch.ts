import type { EventBus } from "../../ports/event-bus.js";
import type { SessionEvent, SessionStore } from "../../ports/session-store.js";
import type { TurnResult } from "../../schema/session.js";
import type { TurnHandle } from "../session/session-facade.js";

const PAGE = 500;
/** How often the log is read again while no notice arrived (a lost notice costs at most this). */
const RESCAN_MS = 1_000;

/** The Turn's result, when `event` is its committed `turn` finish. */
export function turnResultOf(event: SessionEvent, turn_id: string): TurnResult | undefined {
  const { mutation } = event;
  if (mutation.variant !== "turn" || mutation.type !== "finish" || mutation.turn_id !== turn_id)
    return undefined;
  return {
    turn_id,
    text: mutation.text ?? "",
    success: mutation.status === "completed",
    ...(mutation.status === "completed" ? {} : { error: mutation.error ?? "" }),
  };
}

/** What a handle of a runtime that shut down resolves with (the Turn itself may go on elsewhere). */
export const RUNTIME_SHUT_DOWN = "SessionRuntime was shut down";

/**
 * Resolves with the Turn's result once its `turn` finish is committed, whichever instance ran it
 * (a prompt's handle is given before its Turn runs). Reads the replay log, then reads on from where
 * it stopped whenever the bus shows a gap or a notice of the session, and at least every second, so
 * a lost notice only delays it. Never rejects.
 */
export function waitForTurnFinish(options: {
  store: SessionStore;
  bus: EventBus;
  session_id: string;
  turn_id: string;
  /** Aborted when the runtime shuts down: the wait ends unsuccessfully. */
  closing: AbortSignal;
}): Promise<TurnResult> {
  const { store, bus, session_id, turn_id, closing } = options;
  return new Promise((resolve) => {
    let cursor = 0;
    let done = false;
    let scanning: Promise<void> | undefined;
    let again = false;
    const finish = (result: TurnResult) => {
      if (done) return;
      done = true;
      closing.removeEventListener("abort", onClosing);
      unsubscribe();
      clearInterval(timer);
      resolve(result);
    };
    const scan = (): void => {
      if (done) return;
      if (scanning) {
        again = true;
        return;
      }
      scanning = (async () => {
        try {
          for (;;) {
            const page = await store.listEvents(session_id, cursor, PAGE);
            for (const event of page) {
              cursor = event.event_id;
              const result = turnResultOf(event, turn_id);
              if (result) {
                finish(result);
                return;
              }
            }
            if (page.length < PAGE || done) return;
          }
        } catch {
          // Read again at the next notice or tick.
        }
      })().finally(() => {
        scanning = undefined;
        if (again) {
          again = false;
          scan();
        }
      });
    };
    const unsubscribe = bus.subscribe({
      onSessionEvent(event) {
        if (event.session_id !== session_id || done) return;
        const result = turnResultOf(event, turn_id);
        if (result) finish(result);
        else if (!scanning && event.event_id === cursor + 1) cursor = event.event_id;
        else scan();
      },
    });
    const timer = setInterval(scan, RESCAN_MS);
    // A process must not stay alive only because a caller dropped a handle it never awaited.
    (timer as { unref?: () => void }).unref?.();
    const onClosing = () => finish({ turn_id, text: "", success: false, error: RUNTIME_SHUT_DOWN });
    if (closing.aborted) onClosing();
    else closing.addEventListener("abort", onClosing, { once: true });
    scan();
  });
}

/** A handle whose `finished` follows the Turn's committed finish (read only when asked for). */
export function turnHandleOf(options: Parameters<typeof waitForTurnFinish>[0]): TurnHandle {
  let finished: TurnHandle["finished"] | undefined;
  return {
    id: options.turn_id,
    get finished() {
      finished ??= waitForTurnFinish(options);
      return finished;
    },
  };
}
