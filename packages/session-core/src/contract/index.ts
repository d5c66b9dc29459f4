/**
 * The API contract: each procedure's input and output schema (and each subscription's event
 * schema), the input `LIMITS`, and the types inferred from them, written once.
 *
 * Why it lives in session-core: the API server (which builds its procedures from these schemas and
 * derives its OpenAPI document from them) and the SDK (which types its calls with them) both
 * depend on session-core already, and on nothing of each other. Putting the contract in either of
 * them would make the other import it: the server would depend on its client, or the client on the
 * server (a package cycle once the API's tests drive it through the SDK). The contract is zod
 * schemas only, no transport: tRPC, HTTP and sockets stay in the API and the SDK, and the SDK's
 * published bundle inlines this folder through `@parley/session-core/wire`.
 */
import type { z } from "zod";
import { interactionResultSchema } from "../schema/interaction.js";
import { sessionMutationSchema } from "../schema/mutation.js";
import { queuedPromptListSchema, withdrawPromptResultSchema } from "../schema/queued-prompt.js";
import { sessionInfoSchema, sessionStatusSchema, stopResultSchema } from "../schema/session.js";
import {
  authWhoamiOutputSchema,
  modelListOutputSchema,
  noInputSchema,
  usersNamesInputSchema,
  usersNamesOutputSchema,
  workspaceListOutputSchema,
} from "./account-procedures.js";
import {
  adminInteractionEventSchema,
  adminInteractionsInputSchema,
  adminInteractionsOutputSchema,
  adminOnInteractionInputSchema,
  adminUsersCreateInputSchema,
  adminUsersCreateOutputSchema,
  adminUsersRevokeInputSchema,
  adminUsersRevokeOutputSchema,
} from "./admin-procedures.js";
import { sessionTargetInputSchema } from "./common-inputs.js";
import { interactionFeedEventSchema, interactionFeedInputSchema } from "./interaction-feed.js";
import {
  sessionCloseOutputSchema,
  sessionCreateInputSchema,
  sessionInteractionsOutputSchema,
  sessionListInputSchema,
  sessionListOutputSchema,
  sessionMessagesInputSchema,
  sessionMessagesOutputSchema,
  sessionOnMutationInputSchema,
  sessionPromptInputSchema,
  sessionPromptOutputSchema,
  sessionRenameInputSchema,
  sessionRespondInputSchema,
  sessionSetOutputSchema,
  sessionSetProcedureInputSchema,
  sessionWithdrawPromptInputSchema,
} from "./session-procedures.js";

export * from "./account-procedures.js";
export * from "./admin-procedures.js";
export * from "./common-inputs.js";
export * from "./interaction-feed.js";
export * from "./limits.js";
export * from "./session-procedures.js";

interface CallContract {
  type: "query" | "mutation";
  input: z.ZodType;
  output: z.ZodType;
}
interface SubscriptionContract {
  type: "subscription";
  input: z.ZodType;
  /** Each event's data, delivered as `tracked(String(event_id), event)`. */
  event: z.ZodType;
}

/**
 * Every procedure by its path. The API's router must use exactly these schema objects (its
 * `router-contract.test.ts` checks identity, path by path); the SDK types its calls from it.
 */
export const PROCEDURES = {
  "session.create": { type: "mutation", input: sessionCreateInputSchema, output: sessionInfoSchema },
  "session.list": { type: "query", input: sessionListInputSchema, output: sessionListOutputSchema },
  "session.get": { type: "query", input: sessionTargetInputSchema, output: sessionInfoSchema },
  "session.prompt": { type: "mutation", input: sessionPromptInputSchema, output: sessionPromptOutputSchema },
  "session.stop": { type: "mutation", input: sessionTargetInputSchema, output: stopResultSchema },
  "session.rename": { type: "mutation", input: sessionRenameInputSchema, output: sessionInfoSchema },
  "session.close": { type: "mutation", input: sessionTargetInputSchema, output: sessionCloseOutputSchema },
  "session.messages": {
    type: "query",
    input: sessionMessagesInputSchema,
    output: sessionMessagesOutputSchema,
  },
  "session.interactions": {
    type: "query",
    input: sessionTargetInputSchema,
    output: sessionInteractionsOutputSchema,
  },
  "session.queuedPrompts": { type: "query", input: sessionTargetInputSchema, output: queuedPromptListSchema },
  "session.withdrawPrompt": {
    type: "mutation",
    input: sessionWithdrawPromptInputSchema,
    output: withdrawPromptResultSchema,
  },
  "session.respond": { type: "mutation", input: sessionRespondInputSchema, output: interactionResultSchema },
  "session.status": { type: "query", input: sessionTargetInputSchema, output: sessionStatusSchema },
  "session.set": { type: "mutation", input: sessionSetProcedureInputSchema, output: sessionSetOutputSchema },
  "session.onMutation": {
    type: "subscription",
    input: sessionOnMutationInputSchema,
    event: sessionMutationSchema,
  },
  "session.onInteraction": {
    type: "subscription",
    input: interactionFeedInputSchema,
    event: interactionFeedEventSchema,
  },
  "admin.interactions": {
    type: "query",
    input: adminInteractionsInputSchema,
    output: adminInteractionsOutputSchema,
  },
  "admin.onInteraction": {
    type: "subscription",
    input: adminOnInteractionInputSchema,
    event: adminInteractionEventSchema,
  },
  "admin.users.create": {
    type: "mutation",
    input: adminUsersCreateInputSchema,
    output: adminUsersCreateOutputSchema,
  },
  "admin.users.revoke": {
    type: "mutation",
    input: adminUsersRevokeInputSchema,
    output: adminUsersRevokeOutputSchema,
  },
  "auth.whoami": { type: "query", input: noInputSchema, output: authWhoamiOutputSchema },
  "workspace.list": { type: "query", input: noInputSchema, output: workspaceListOutputSchema },
  "model.list": { type: "query", input: noInputSchema, output: modelListOutputSchema },
  "users.names": { type: "query", input: usersNamesInputSchema, output: usersNamesOutputSchema },
} as const satisfies Record<string, CallContract | SubscriptionContract>;

export type ProcedureContracts = typeof PROCEDURES;
