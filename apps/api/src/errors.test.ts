import { PARLEY_CODES, ParleyError } from "@parley/session-core";
import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formatError, PARLEY_TO_TRPC_CODE, parleyCodeOf, toTRPCError } from "./errors.js";

function shapeOf(error: TRPCError) {
  return formatError({
    shape: { message: error.message, code: -32000, data: { code: error.code, stack: "secret stack" } },
    error,
  });
}

describe("error mapping", () => {
  it("maps every domain code to a tRPC error carrying it as parley_code", () => {
    for (const code of PARLEY_CODES) {
      const mapped = toTRPCError(new ParleyError(code, `failed: ${code}`));
      expect(mapped).toBeInstanceOf(TRPCError);
      const error = mapped as TRPCError;
      expect(error.code).toBe(PARLEY_TO_TRPC_CODE[code]);
      const shape = shapeOf(error);
      expect(shape.data.parley_code).toBe(code);
      expect(shape.message).toBe(`failed: ${code}`);
      expect(shape.data).not.toHaveProperty("stack");
    }
  });

  it("recognises a ParleyError from another copy of the package by name and code", () => {
    const foreign = Object.assign(new Error("gone"), { name: "ParleyError", code: "session_closed" });
    expect((toTRPCError(foreign) as TRPCError).code).toBe("PRECONDITION_FAILED");
  });

  it("treats zod failures and tRPC's own request errors as invalid_input", () => {
    const zodError = z.object({ a: z.string() }).safeParse({ a: 1 }).error;
    const inputError = new TRPCError({ code: "BAD_REQUEST", cause: zodError });
    const shape = shapeOf(inputError);
    expect(shape.data.parley_code).toBe("invalid_input");
    expect(shape.message).toMatch(/^Invalid input: /);
    for (const code of ["PARSE_ERROR", "PAYLOAD_TOO_LARGE", "METHOD_NOT_SUPPORTED", "NOT_FOUND"] as const) {
      expect(parleyCodeOf(new TRPCError({ code }))).toBe("invalid_input");
    }
  });

  it("treats a failed output validation as an internal error, not as bad input", () => {
    const zodError = z.object({ a: z.string() }).safeParse({ a: 1 }).error;
    const outputError = new TRPCError({
      code: "INTERNAL_SERVER_ERROR",
      message: "Output validation failed",
      cause: zodError,
    });
    expect(parleyCodeOf(outputError)).toBeNull();
    expect(shapeOf(outputError).message).toBe("Internal server error");
  });

  it("hides the message of an unexpected error and gives it no parley_code", () => {
    const error = new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause: new Error("password=hunter2") });
    const shape = shapeOf(error);
    expect(shape.data.parley_code).toBeNull();
    expect(shape.message).toBe("Internal server error");
  });
});
