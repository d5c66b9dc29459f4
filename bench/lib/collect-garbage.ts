/**
 * Runs a full garbage collection (twice: the first may only finalise) before a memory figure is
 * read, so heap differences are live objects, not garbage not yet collected.
 */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("memory figures need node --expose-gc (scripts/bench.mjs passes it)");
  gc();
  gc();
}
