import { z } from "zod";

/** `ask` creates an approval Interaction; `always-allow` auto-approves without one. Default `ask`. */
export const approvalModeSchema = z.enum(["ask", "always-allow"]);
export type ApprovalMode = z.infer<typeof approvalModeSchema>;
