import { type DestinationStream, type Logger, pino } from "pino";
import type { Env } from "./env.js";

/**
 * The process logger: JSON lines. The server logs to stdout; the CLI passes stderr so that its
 * stdout carries only what a script reads (the token on the last line).
 */
export function createLogger(level: Env["LOG_LEVEL"], destination?: DestinationStream): Logger {
  return destination === undefined
    ? pino({ level, base: { service: "parley-api" } })
    : pino({ level, base: { service: "parley-api" } }, destination);
}
