/** The server's bound on a session title (after trimming). */
export const TITLE_MAX_CHARS = 200;

/**
 * What a session is called on screen. A session created without a title is untitled (`""`) until
 * its first prompt names it.
 */
export function displayTitle(title: string): string {
  return title.trim() === "" ? "Untitled session" : title;
}
