import { LIMITS } from "@parley/sdk";

/** The server's bound on a session title (after trimming), from the one contract. */
export const TITLE_MAX_CHARS = LIMITS.title_chars;

/**
 * What a session is called on screen. A session created without a title is untitled (`""`) until
 * its first prompt names it.
 */
export function displayTitle(title: string): string {
  return title.trim() === "" ? "Untitled session" : title;
}
