/** Longest title a prompt gives its session, before the ellipsis. */
export const AUTO_TITLE_MAX_CHARS = 60;

/**
 * The title an untitled session takes from its first prompt: the prompt's first non-blank line,
 * whitespace collapsed, cut at a word boundary to at most `AUTO_TITLE_MAX_CHARS` characters (a
 * single word longer than that is cut inside it) with an ellipsis when anything was left out.
 * Empty when the prompt has no visible text.
 */
export function titleFromPrompt(query: string): string {
  const firstLine = query.split(/\r?\n/).find((line) => line.trim().length > 0) ?? "";
  const line = firstLine.replace(/\s+/g, " ").trim();
  const more = query.trim().length > firstLine.trim().length;
  if (line.length <= AUTO_TITLE_MAX_CHARS) return more ? `${line}…` : line;
  const cut = line.slice(0, AUTO_TITLE_MAX_CHARS + 1);
  const boundary = cut.lastIndexOf(" ");
  const head = boundary > 0 ? cut.slice(0, boundary) : line.slice(0, AUTO_TITLE_MAX_CHARS);
  return `${head.replace(/[\s.,;:!?-]+$/, "")}…`;
}
