import { z } from "zod";
import { userRoleSchema } from "../schema/user-role.js";
import { LIMITS } from "./limits.js";

export { type UserRole, userRoleSchema } from "../schema/user-role.js";

export const userNameSchema = z
  .string()
  .max(LIMITS.user_name_chars)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.@-]*$/, "name may hold letters, digits and _ . @ - only");

/** Inputs of procedures that take no argument: nothing, or an empty object. */
export const noInputSchema = z.strictObject({}).optional();

/** `auth.whoami`: who the bearer token belongs to. */
export const authWhoamiOutputSchema = z.object({
  user_id: z.string(),
  name: z.string(),
  role: userRoleSchema,
});
export type WhoAmI = z.infer<typeof authWhoamiOutputSchema>;

/** `workspace.list`: the configured workspaces the caller may use. */
export const workspaceListOutputSchema = z.object({ items: z.array(z.object({ workspace_id: z.string() })) });
export type WorkspaceList = z.infer<typeof workspaceListOutputSchema>;

/** `model.list`: the models sessions may use, the server's default first. */
export const modelListOutputSchema = z.object({
  items: z.array(z.object({ model_id: z.string(), label: z.string() })),
});
export type ModelList = z.infer<typeof modelListOutputSchema>;
export type ModelChoice = ModelList["items"][number];

/** Most ids one `users.names` call resolves (a screen shows a handful of responders). */
export const USER_NAMES_MAX_IDS = 100;

export const usersNamesInputSchema = z.strictObject({
  user_ids: z.array(z.string().min(1).max(LIMITS.id_chars)).max(USER_NAMES_MAX_IDS),
});
export type UserNamesInput = z.input<typeof usersNamesInputSchema>;

export const usersNamesOutputSchema = z.object({
  items: z.array(z.object({ user_id: z.string(), name: z.string() })),
});
export type UserNames = z.infer<typeof usersNamesOutputSchema>;
