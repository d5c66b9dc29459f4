import type { RuntimeLogger, SessionRuntimeApi } from "./session-runtime-options.js";

export interface RecoveryLoop {
  /** Waits for a running pass to finish, then stops. */
  stop(): Promise<void>;
}

/**
 * Runs `runtime.recover()`, the liveness pass, now and then every `interval_ms` (never two passes at
 * once), so that Turns whose owning process died are taken over, and queued commands whose notice
 * was lost are driven, within ~2 s (docs/behaviour.md#durability). At rest a pass is one read.
 */
export function startRecoveryLoop(options: {
  runtime: SessionRuntimeApi;
  interval_ms: number;
  logger?: RuntimeLogger;
}): RecoveryLoop {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> = Promise.resolve();

  const pass = async () => {
    try {
      const { resumed_session_ids } = await options.runtime.recover();
      if (resumed_session_ids.length > 0) {
        options.logger?.info({ resumed_session_ids }, "resumed Turns of sessions without a live owner");
      }
    } catch (error) {
      options.logger?.error({ err: error }, "recovery pass failed");
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass().then(schedule);
    }, options.interval_ms);
  };

  running = pass().then(schedule);

  return {
    async stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
      await running;
    },
  };
}
