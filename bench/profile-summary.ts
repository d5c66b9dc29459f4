import { readFileSync } from "node:fs";

/** The parts of a V8 `.cpuprofile` this summary reads. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Which layer a function belongs to, from its script URL. */
function areaOf(url: string): string {
  if (url === "") return "(native / idle / gc)";
  const workspace = /\/(packages|apps)\/([^/]+)\/src\//.exec(url);
  if (workspace) return `@parley/${workspace[2]}`;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\//g;
  let last: RegExpExecArray | null = null;
  for (let match = dependency.exec(url); match; match = dependency.exec(url)) last = match;
  if (last?.[1]) return last[1];
  if (url.startsWith("node:")) return "node core";
  if (url.includes("/bench/")) return "bench harness";
  return url;
}

/**
 * `node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]`: self time by layer
 * (workspace package, dependency, Node core) and the hottest functions, from a profile taken with
 * `BENCH_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=<dir>" npm run bench -- <suite>`.
 */
function main(): void {
  const [file, topArgument] = process.argv.slice(2);
  if (!file) throw new Error("usage: profile-summary.ts <file.cpuprofile> [top]");
  const top = Number(topArgument ?? 15);
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByNode = new Map<number, number>();
  for (const [index, nodeId] of profile.samples.entries()) {
    selfByNode.set(nodeId, (selfByNode.get(nodeId) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const total = [...selfByNode.values()].reduce((sum, value) => sum + value, 0);
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [nodeId, micros] of selfByNode) {
    const frame = nodes.get(nodeId)?.callFrame;
    if (!frame) continue;
    const area = frame.functionName === "(idle)" ? "(idle)" : areaOf(frame.url);
    byArea.set(area, (byArea.get(area) ?? 0) + micros);
    const name = `${frame.functionName || "(anonymous)"}  ${area}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
  }
  const print = (title: string, entries: Map<string, number>) => {
    console.log(`\n${title}`);
    for (const [name, micros] of [...entries].sort((left, right) => right[1] - left[1]).slice(0, top)) {
      console.log(
        `${((micros / total) * 100).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`,
      );
    }
  };
  console.log(`profile ${file}: ${(total / 1e6).toFixed(1)} s sampled`);
  print("self time by layer", byArea);
  print("hottest functions (self time)", byFunction);
}

main();
