import type { ProcedureContracts } from "@parley/session-core/wire";
import type { TRPCUntypedClient } from "@trpc/client";
import type { AnyRouter } from "@trpc/server";
import type { Unsubscribable } from "@trpc/server/observable";
import type { z } from "zod";

type PathOfType<T extends ProcedureContracts[keyof ProcedureContracts]["type"]> = {
  [P in keyof ProcedureContracts]: ProcedureContracts[P]["type"] extends T ? P : never;
}[keyof ProcedureContracts];

type CallPath = PathOfType<"query" | "mutation">;
type SubscriptionPath = PathOfType<"subscription">;
type InputOf<P extends keyof ProcedureContracts> = z.input<ProcedureContracts[P]["input"]>;
type OutputOf<P extends CallPath> = z.output<ProcedureContracts[P]["output"]>;

/**
 * tRPC calls typed by the contract (`PROCEDURES` of `@parley/session-core/wire`) instead of by the
 * API's router type, so the SDK depends on the contract only, never on the server package. The
 * server's router is checked to use exactly the contract's schemas (the API's router-contract test).
 */
export interface ContractClient {
  query<P extends PathOfType<"query">>(path: P, input: InputOf<P>): Promise<OutputOf<P>>;
  mutate<P extends PathOfType<"mutation">>(path: P, input: InputOf<P>): Promise<OutputOf<P>>;
  /** `onData` receives each item as sent: `{ id, data }` for tracked events. */
  subscribe<P extends SubscriptionPath>(
    path: P,
    input: InputOf<P>,
    handlers: { onData: (item: unknown) => void; onError: (error: unknown) => void },
  ): Unsubscribable;
}

/** The untyped tRPC client, behind the contract's types (the output is the server's JSON). */
export function contractClient(client: TRPCUntypedClient<AnyRouter>): ContractClient {
  return {
    query: (path, input) => client.query(path, input) as Promise<never>,
    mutate: (path, input) => client.mutation(path, input) as Promise<never>,
    subscribe: (path, input, handlers) =>
      client.subscription(path, input, { onData: handlers.onData, onError: handlers.onError }),
  };
}
