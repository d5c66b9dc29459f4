import { startPrivateNats } from "./private-nats.js";

/** The buses `PARLEY_BUS` can select; multi-instance tests run once per bus (`describe.each`). */
export const TEST_BUS_KINDS = ["notify", "nats"] as const;
export type TestBusKind = (typeof TEST_BUS_KINDS)[number];

export interface TestBus {
  kind: TestBusKind;
  /** `PARLEY_BUS` for this bus: undefined for NOTIFY (the default). */
  bus_url: string | undefined;
  /** Environment entries that select it in an API process. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** NOTIFY needs nothing; NATS gets a private `nats-server`, so tests never share subjects. */
export async function startTestBus(kind: TestBusKind): Promise<TestBus> {
  if (kind === "notify") return { kind, bus_url: undefined, env: {}, stop: async () => undefined };
  const nats = await startPrivateNats();
  return { kind, bus_url: nats.url, env: { PARLEY_BUS: nats.url }, stop: () => nats.stop() };
}
