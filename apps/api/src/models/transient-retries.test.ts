import { APICallError, type LanguageModelV3, type LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { MODEL_RETRIES, withTransientRetries } from "./transient-retries.js";

const CALL: LanguageModelV3CallOptions = {
  prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
};
const FAST = { retries: 2, first_delay_ms: 5, factor: 2 };

function apiError(statusCode: number | undefined, message: string): APICallError {
  return new APICallError({ message, url: "http://model.test/v1", requestBodyValues: {}, statusCode });
}

/** A model whose `doStream` calls fail with `failures` in order, then answer; the calls are counted. */
function flakyModel(failures: Error[]): { model: LanguageModelV3; calls: () => number } {
  let calls = 0;
  const stream = new ReadableStream({ start: (controller) => controller.close() });
  const model: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: "test",
    modelId: "flaky",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: async () => {
      const failure = failures[calls];
      calls += 1;
      if (failure !== undefined) throw failure;
      return { stream };
    },
  };
  return { model, calls: () => calls };
}

describe("withTransientRetries", () => {
  it("keeps the model's identity", () => {
    const { model } = flakyModel([]);
    const wrapped = withTransientRetries(model);
    expect([wrapped.specificationVersion, wrapped.provider, wrapped.modelId, wrapped.supportedUrls]).toEqual([
      "v3",
      "test",
      "flaky",
      {},
    ]);
  });

  it("tries a connection failure and a 503 again, and answers with the third call", async () => {
    const { model, calls } = flakyModel([
      new APICallError({
        message: "Cannot connect to API: other side closed",
        url: "http://model.test/v1",
        requestBodyValues: {},
        isRetryable: true,
      }),
      apiError(503, "overloaded"),
    ]);
    const result = await withTransientRetries(model, FAST).doStream(CALL);
    expect(result.stream).toBeInstanceOf(ReadableStream);
    expect(calls()).toBe(3);
  });

  it("fails with the last error after the last retry", async () => {
    const { model, calls } = flakyModel([
      apiError(500, "first"),
      apiError(502, "second"),
      apiError(503, "third"),
    ]);
    await expect(withTransientRetries(model, FAST).doStream(CALL)).rejects.toThrow("third");
    expect(calls()).toBe(3);
  });

  it.each([
    ["a 400", apiError(400, "the prompt is malformed")],
    ["a 401", apiError(401, "bad key")],
    ["an error that is not the provider's", new Error("a bug")],
  ])("fails at once on %s", async (_name, failure) => {
    const { model, calls } = flakyModel([failure]);
    await expect(withTransientRetries(model, FAST).doStream(CALL)).rejects.toBe(failure);
    expect(calls()).toBe(1);
  });

  it("stops waiting when the call is aborted during the delay (a stopped Turn)", async () => {
    const { model, calls } = flakyModel([apiError(503, "overloaded")]);
    const abort = new AbortController();
    const call = withTransientRetries(model, MODEL_RETRIES).doStream({ ...CALL, abortSignal: abort.signal });
    const stopped = new Error("Turn stopped");
    abort.abort(stopped);
    await expect(call).rejects.toBe(stopped);
    expect(calls()).toBe(1);
  });
});
