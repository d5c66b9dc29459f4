import { z } from "zod";

/**
 * Shell control operators (and newlines): a command containing any of them is several commands, or
 * redirects, or substitutes one, so it never matches an allowed prefix, and a prefix may not hold one.
 */
const CONTROL_OPERATOR = /[;&|`<>\n\r]|\$\(/;

export function hasShellControlOperator(text: string): boolean {
  return CONTROL_OPERATOR.test(text);
}

/** A command's words: split on whitespace, empty ones dropped. */
export function commandWords(command: string): string[] {
  return command.split(/\s+/).filter((word) => word.length > 0);
}

/**
 * An allowed command prefix: one or more whole words without control operators, stored with single
 * spaces (`"  npm   test "` is `"npm test"`).
 */
export const commandPrefixSchema = z
  .string()
  .max(200)
  .refine(
    (prefix) => !hasShellControlOperator(prefix),
    "command_prefix must not contain shell control operators",
  )
  .transform((prefix) => commandWords(prefix).join(" "))
  .refine((prefix) => prefix.length > 0, "command_prefix must hold a word");

/**
 * "Allow <tool> for this session" (docs/behaviour.md#allow-for-this-session): later calls of
 * `tool_name` run without asking. For a tool that asks about a command (`shell`), only commands
 * starting with `command_prefix` as whole words do, and an allowance without a prefix allows none.
 */
export const toolAllowanceSchema = z.strictObject({
  tool_name: z.string().min(1).max(200),
  command_prefix: commandPrefixSchema.optional(),
});
export type ToolAllowance = z.infer<typeof toolAllowanceSchema>;

export const MAX_TOOL_ALLOWANCES = 50;

export const toolAllowancesSchema = z.array(toolAllowanceSchema).max(MAX_TOOL_ALLOWANCES);

function keyOf(allowance: ToolAllowance): string {
  return JSON.stringify([allowance.tool_name, allowance.command_prefix ?? null]);
}

/** One order and no duplicates, so two lists that allow the same are equal. */
export function canonicalAllowances(allowances: readonly ToolAllowance[]): ToolAllowance[] {
  const byKey = new Map(allowances.map((allowance) => [keyOf(allowance), allowance] as const));
  return [...byKey.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, allowance]) => allowance);
}

export function sameAllowances(a: readonly ToolAllowance[], b: readonly ToolAllowance[]): boolean {
  const left = canonicalAllowances(a).map(keyOf);
  const right = canonicalAllowances(b).map(keyOf);
  return left.length === right.length && left.every((key, index) => key === right[index]);
}

/** `command` starts with `prefix` word for word, and holds no control operator. */
export function commandMatchesPrefix(command: string, prefix: string): boolean {
  if (hasShellControlOperator(command)) return false;
  const words = commandWords(command);
  const prefixWords = commandWords(prefix);
  return prefixWords.length > 0 && prefixWords.every((word, index) => words[index] === word);
}

/**
 * Whether a call of `tool_name` may run unasked. `command` is the command the call asks about (an
 * `exec` approval's `payload.command`); such a call needs an allowance whose prefix matches it.
 */
export function allowanceCovers(
  allowances: readonly ToolAllowance[],
  tool_name: string,
  command: string | undefined,
): boolean {
  return allowances.some((allowance) => {
    if (allowance.tool_name !== tool_name) return false;
    if (command === undefined) return allowance.command_prefix === undefined;
    return allowance.command_prefix !== undefined && commandMatchesPrefix(command, allowance.command_prefix);
  });
}

/** How an Action and a log name an allowance: `shell "npm test"`, `write_file`. */
export function describeAllowance(allowance: ToolAllowance): string {
  return allowance.command_prefix === undefined
    ? allowance.tool_name
    : `${allowance.tool_name} ${JSON.stringify(allowance.command_prefix)}`;
}
