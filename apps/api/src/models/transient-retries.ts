import { APICallError, type LanguageModelV3 } from "@ai-sdk/provider";
import pRetry from "p-retry";

export interface ModelRetries {
  retries: number;
  first_delay_ms: number;
  factor: number;
}

/**
 * How a provider call that failed before it answered is tried again: the AI SDK's own defaults for
 * `streamText` (two retries, 2 s then 4 s), which the runtime does not get because it drives
 * `doStream` itself.
 */
export const MODEL_RETRIES: ModelRetries = { retries: 2, first_delay_ms: 2_000, factor: 2 };

/**
 * `model`, whose calls are tried again when the provider says the failure is transient
 * (`APICallError.isRetryable`: the connection failed or was reset — e.g. a kept-alive connection
 * the server closed as the request went out — or HTTP 408, 409, 429 or 5xx). Only the call is
 * retried, up to the moment the provider answers with a stream: nothing of a Step has been streamed
 * then, so a retry cannot repeat output. Any other error, and a call aborted (a stopped Turn), fail
 * at once; after the last retry the call fails with the last error.
 */
export function withTransientRetries(
  model: LanguageModelV3,
  options: ModelRetries = MODEL_RETRIES,
): LanguageModelV3 {
  const retried = <T>(call: () => PromiseLike<T>, signal: AbortSignal | undefined): Promise<T> =>
    pRetry(async () => call(), {
      retries: options.retries,
      minTimeout: options.first_delay_ms,
      factor: options.factor,
      randomize: false,
      ...(signal === undefined ? {} : { signal }),
      shouldRetry: ({ error }) => APICallError.isInstance(error) && error.isRetryable,
    });
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: (callOptions) => retried(() => model.doGenerate(callOptions), callOptions.abortSignal),
    doStream: (callOptions) => retried(() => model.doStream(callOptions), callOptions.abortSignal),
  };
}
