import type { CommandHost } from "./command-host.js";
import { stopSession } from "./stop.js";

/**
 * `close()` (docs/behaviour.md#close): stop the Turn (pending → `session_disposed`), then mark the
 * session closed. A session closed by another process is seen by the host (`observeClosed`).
 */
export async function closeSession(host: CommandHost): Promise<void> {
  await host.markClosing();
  await stopSession(host, "session_disposed");
  const now = host.context.clock.now();
  await host.writer.commitSessionChange({
    session_patch: { closed_at: now, updated_at: now },
    mutation: { ...host.writer.newMutationBase(now), variant: "session", type: "closed", closed_at: now },
  });
}
