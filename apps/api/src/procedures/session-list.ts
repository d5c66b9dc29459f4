import { ParleyError, sessionInfoSchema } from "@parley/session-core";
import { z } from "zod";
import { authedProcedure } from "../trpc.js";
import { cursorSchema } from "./common-schemas.js";
import { LIMITS } from "./limits.js";

export const sessionListInputSchema = z
  .strictObject({
    cursor: cursorSchema.nullish(),
    limit: z.number().int().min(1).max(LIMITS.session_page_max).optional(),
    /** `all`: every user's sessions (admins only; a member gets `forbidden`). Default `own`. */
    scope: z.enum(["own", "all"]).optional(),
    /** Only sessions whose title contains this text (case-insensitive); blank means no filter. */
    query: z.string().max(LIMITS.title_chars).optional(),
  })
  .optional();

export const sessionListOutputSchema = z.object({
  items: z.array(sessionInfoSchema),
  next_cursor: z.string().nullable(),
});

/** The caller's own sessions, newest first; an admin may ask for everyone's with `scope: "all"`. */
export const sessionList = authedProcedure
  .input(sessionListInputSchema)
  .output(sessionListOutputSchema)
  .query(async ({ ctx, input }) => {
    const { store, runtime } = ctx.services;
    const all = input?.scope === "all";
    if (all && ctx.user.role !== "admin") {
      throw new ParleyError("forbidden", "Only admins can list every user's sessions");
    }
    const title_contains = input?.query?.trim() ?? "";
    const page = await store.listSessions({
      ...(all ? {} : { owner_id: ctx.user.user_id }),
      ...(title_contains === "" ? {} : { title_contains }),
      cursor: input?.cursor ?? undefined,
      limit: input?.limit ?? LIMITS.session_page_default,
    });
    const items = await Promise.all(
      page.items.map(async (record) => {
        const session = await runtime.openSession(record.session_id);
        return session === null ? null : session.info();
      }),
    );
    return { items: items.filter((item) => item !== null), next_cursor: page.next_cursor };
  });
