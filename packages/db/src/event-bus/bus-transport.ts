import type { NotifyPayload } from "./notify-payload.js";

/** What a transport reports to its bus. */
export interface TransportHandlers {
  /** A notice from any process (this one's own may come back too). */
  onNotice(notice: NotifyPayload): void;
  /** The connection was lost and is back: notices sent meanwhile may be gone. */
  onReconnected(): void;
}

/**
 * How notices (ids, and live mutations: ADR 0007) travel between processes: PostgreSQL LISTEN/NOTIFY or NATS. A transport
 * carries notices and says when it reconnected; ordering, gap filling and the listeners are the
 * bus's (`NoticeEventBus`), so every transport behaves the same.
 */
export interface BusTransport {
  /** Resolves once notices are being received (the first connection must succeed). */
  start(handlers: TransportHandlers): Promise<void>;
  /** Sends after commit; never throws (the events are committed whatever happens here). */
  send(notices: NotifyPayload[]): Promise<void>;
  /**
   * The largest encoded notice (UTF-8 bytes) this transport carries. Id-only notices are far below
   * it; a live notice above it is not sent (the bus delivers it locally only and counts it).
   */
  readonly maxNoticeBytes: number;
  close(): Promise<void>;
  /** Cuts the connection as a network failure would (tests of the reconnection path). */
  simulateConnectionLoss(): Promise<void>;
}

/** Wraps the transport a bus builds (a test's fault adapter, `withBusFaults` of `@parley/db/testing`). */
export type TransportWrapper = (transport: BusTransport) => BusTransport;

/** The bus's server could not be reached at startup (the message names it and `PARLEY_BUS`). */
export class BusUnreachableError extends Error {
  override readonly name = "BusUnreachableError";
}
