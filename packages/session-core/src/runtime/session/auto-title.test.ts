import { describe, expect, it } from "vitest";
import { AUTO_TITLE_MAX_CHARS, titleFromPrompt } from "./auto-title.js";

describe("titleFromPrompt", () => {
  it("keeps a short one-line prompt as it is, trimmed and with whitespace collapsed", () => {
    expect(titleFromPrompt("  write   notes.md with a summary  ")).toBe("write notes.md with a summary");
  });

  it("takes the first non-blank line and marks that more followed", () => {
    expect(titleFromPrompt("\n\n  Fix the login bug\nIt fails on Safari.\n")).toBe("Fix the login bug…");
  });

  it("cuts a long line at the last word boundary within the limit", () => {
    const prompt =
      "Please read every file in the repository and write a summary of the architecture for new people";
    const title = titleFromPrompt(prompt);
    expect(title).toBe("Please read every file in the repository and write a summary…");
    expect(title.length - 1).toBeLessThanOrEqual(AUTO_TITLE_MAX_CHARS);
  });

  it("keeps a word that ends exactly at the limit", () => {
    const prompt = `${"a".repeat(55)} bcde fgh`;
    expect(titleFromPrompt(prompt)).toBe(`${"a".repeat(55)} bcde…`);
  });

  it("cuts inside a single word longer than the limit", () => {
    expect(titleFromPrompt("x".repeat(100))).toBe(`${"x".repeat(AUTO_TITLE_MAX_CHARS)}…`);
  });

  it("drops punctuation left dangling before the ellipsis", () => {
    const prompt = `${"word ".repeat(11)}end, and then more words follow here`;
    expect(titleFromPrompt(prompt)).toBe(`${"word ".repeat(11)}end…`);
  });

  it("is empty for a prompt without visible text", () => {
    expect(titleFromPrompt(" \n\t\n")).toBe("");
  });
});
