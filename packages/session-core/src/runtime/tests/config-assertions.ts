import { ParleyError } from "../../errors.js";
import type { SessionMutation } from "../../schema/mutation.js";
import type { RuntimeHarness } from "../../testing/runtime-harness.js";

/** What tests of `set()` (approval mode, model) look at: the Actions, their mutations, the errors. */
export function actionMutations(mutations: SessionMutation[]) {
  return mutations.filter((mutation) => mutation.variant === "message" && mutation.type === "action");
}

export function configMutations(mutations: SessionMutation[]) {
  return mutations.filter((mutation) => mutation.variant === "session" && mutation.type === "config");
}

export async function actions(harness: RuntimeHarness, session_id: string) {
  return (await harness.messages(session_id)).filter((message) => message.type === "action");
}

/** `[code, message]` of the `ParleyError` the call rejects with, or `["resolved", ""]`. */
export async function codeAndMessage(promise: Promise<unknown>): Promise<[string, string]> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ParleyError) return [error.code, error.message];
    throw error;
  }
  return ["resolved", ""];
}
