import type { BusTransport } from "../event-bus/bus-transport.js";
import type { NotifyPayload } from "../event-bus/notify-payload.js";

/**
 * Deliberate faults, for tests of what survives them (the bus conformance suite). Generic: the same
 * hook works on every transport.
 */
export interface BusFaults {
  /**
   * Return true to lose `notice`: on `"send"` before it leaves this process (no other process
   * hears it; local listeners still do), on `"receive"` as it arrives from another process.
   */
  dropNotice?(notice: NotifyPayload, direction: "send" | "receive"): boolean;
}

/**
 * `transport` with `faults` applied, for a bus's `wrapTransport`: fault injection as an adapter
 * around the transport, so the bus itself holds no fault code.
 */
export function withBusFaults(transport: BusTransport, faults: BusFaults): BusTransport {
  const { dropNotice } = faults;
  if (!dropNotice) return transport;
  return {
    start: (handlers) =>
      transport.start({
        onNotice: (notice) => {
          if (!dropNotice(notice, "receive")) handlers.onNotice(notice);
        },
        onReconnected: () => handlers.onReconnected(),
      }),
    send: async (notices) => {
      const kept = notices.filter((notice) => !dropNotice(notice, "send"));
      // The bus never sends an empty batch; neither does its wrapper.
      if (kept.length > 0) await transport.send(kept);
    },
    get maxNoticeBytes() {
      return transport.maxNoticeBytes;
    },
    close: () => transport.close(),
    simulateConnectionLoss: () => transport.simulateConnectionLoss(),
  };
}
