import { randomBytes } from "node:crypto";
import { chmod, open, readFile } from "node:fs/promises";

/** The embedded server's passwords: generated once, kept in a file only its owner can read. */
export interface EmbeddedCredentials {
  superuser_password: string;
  app_password: string;
}

function isPassword(value: unknown): value is string {
  return typeof value === "string" && value.length >= 16;
}

export function generateCredentials(): EmbeddedCredentials {
  return {
    superuser_password: randomBytes(24).toString("base64url"),
    app_password: randomBytes(24).toString("base64url"),
  };
}

/** The credentials stored in `file`, or null when there is no such file. */
export async function readCredentials(file: string): Promise<EmbeddedCredentials | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  // Tightened again in case someone loosened it: the file holds the database superuser's password.
  await chmod(file, 0o600);
  const parsed = JSON.parse(text) as Partial<Record<keyof EmbeddedCredentials, unknown>>;
  if (!isPassword(parsed.superuser_password) || !isPassword(parsed.app_password)) {
    throw new Error(`${file} is damaged: delete it only together with the database it belongs to`);
  }
  return { superuser_password: parsed.superuser_password, app_password: parsed.app_password };
}

/**
 * Writes new credentials to `file` with mode 0600, created exclusively: when another process
 * created it first, its credentials win and are returned.
 */
export async function writeCredentials(
  file: string,
  credentials: EmbeddedCredentials,
): Promise<EmbeddedCredentials> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const existing = await readCredentials(file);
    if (existing === null) throw error;
    return existing;
  }
  try {
    await handle.writeFile(`${JSON.stringify(credentials, null, 2)}\n`, "utf8");
  } finally {
    await handle.close();
  }
  return credentials;
}
