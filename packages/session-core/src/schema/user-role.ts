import { z } from "zod";

/** Roles: a `member` reaches only the sessions they own; an `admin` reaches all and the inbox. */
export const userRoleSchema = z.enum(["member", "admin"]);
export type UserRole = z.infer<typeof userRoleSchema>;
