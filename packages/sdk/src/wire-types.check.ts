// Compile-time only (never imported): the SDK's written-out wire types must equal the router's.
import type { AppRouter } from "@parley/api";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type * as Sdk from "./types.js";

type RouterInputs = inferRouterInputs<AppRouter>;
type RouterOutputs = inferRouterOutputs<AppRouter>;

/** Each assignable to the other (the router's inferred optionals carry `| undefined`). */
type Equal<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** What the router sends fits the declared type (its outputs are JSON-serialised views). */
type Fits<Router, Declared> = [Router] extends [Declared] ? true : false;
type Assert<T extends true> = T;
type Input<T> = Exclude<T, void>;

export type WireTypesMatchTheRouter = [
  Assert<Equal<Input<Sdk.CreateSessionInput>, Input<RouterInputs["session"]["create"]>>>,
  Assert<Equal<Input<Sdk.SessionListQuery>, Input<RouterInputs["session"]["list"]>>>,
  Assert<Fits<RouterOutputs["session"]["list"], Sdk.SessionListPage>>,
  Assert<Equal<Sdk.PromptResult, RouterOutputs["session"]["prompt"]>>,
  Assert<Equal<Input<Sdk.AdminInteractionsQuery>, Input<RouterInputs["admin"]["interactions"]>>>,
  Assert<Fits<RouterOutputs["admin"]["interactions"], Sdk.AdminInteractionsPage>>,
  Assert<Equal<Sdk.AdminInteractionEvent, import("@parley/api").AdminInteractionEvent>>,
  Assert<Equal<Sdk.CreateUserInput, RouterInputs["admin"]["users"]["create"]>>,
  Assert<Equal<Sdk.CreatedUser, RouterOutputs["admin"]["users"]["create"]>>,
  Assert<Equal<Sdk.RevokeUserInput, RouterInputs["admin"]["users"]["revoke"]>>,
  Assert<Equal<Sdk.RevokedTokens, RouterOutputs["admin"]["users"]["revoke"]>>,
  Assert<Equal<Sdk.UserNamesInput, RouterInputs["users"]["names"]>>,
  Assert<Equal<Sdk.UserNames, RouterOutputs["users"]["names"]>>,
  Assert<Equal<Sdk.WhoAmI, RouterOutputs["auth"]["whoami"]>>,
  Assert<Equal<Sdk.WorkspaceList, RouterOutputs["workspace"]["list"]>>,
  Assert<Equal<Sdk.ModelList, RouterOutputs["model"]["list"]>>,
];
