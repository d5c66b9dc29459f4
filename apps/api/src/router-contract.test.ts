import { PROCEDURES } from "@parley/session-core/contract";
import { describe, expect, it } from "vitest";
import { appRouter } from "./router.js";

interface ProcedureDefinition {
  type: "query" | "mutation" | "subscription";
  inputs: unknown[];
  output?: unknown;
}

const routed = (appRouter._def as unknown as { procedures: Record<string, { _def: ProcedureDefinition }> })
  .procedures;

describe("the router serves the contract (session-core's PROCEDURES), schema object for schema object", () => {
  it("has exactly the contract's procedure paths", () => {
    expect(Object.keys(routed).sort()).toStrictEqual(Object.keys(PROCEDURES).sort());
  });

  it.each(Object.entries(PROCEDURES))("%s uses the contract's type, input and output", (path, contract) => {
    const definition = routed[path]?._def;
    expect(definition?.type).toBe(contract.type);
    expect(definition?.inputs).toHaveLength(1);
    expect(definition?.inputs[0]).toBe(contract.input);
    if ("output" in contract) expect(definition?.output).toBe(contract.output);
    else expect(definition?.output).toBeUndefined();
  });
});
