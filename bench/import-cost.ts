import { execFile } from 'node:child_process';
import { registerHooks } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

/*
 * npx tsx bench/import-cost.ts: what importing the server costs before it does anything (about a minute).
 * A fresh process imports the runtime, the HTTP app and the MCP server through tsx (as the tests load them) and
 * reports the wall time and every node_modules package that was loaded; then each package the server's own files
 * import is imported alone in a fresh process, to show what it costs. Each figure is the best of RUNS.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = ['domain/deployed.ts', 'gateway/app.ts', 'mcp/server.ts'];
const RUNS = Number(process.env.IMPORT_COST_RUNS ?? 3);
/** Under this a package is not worth loading lazily. */
const CHEAP_MS = 20;

export interface Probe {
  ms: number;
  /** Every node_modules package loaded, by name. */
  packages: string[];
  /** The packages the server's own files import: by which specifiers, from which files. */
  direct: Record<string, { specifiers: string[]; by: string[] }>;
}

const packageOf = (url: string) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];

/** In the child: record each resolution while the entries load. */
async function probe(): Promise<Probe> {
  const packages = new Set<string>();
  const direct: Record<string, { specifiers: Set<string>; by: Set<string> }> = {};
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      const name = packageOf(resolved.url);
      if (name) {
        packages.add(name);
        if (context.parentURL?.startsWith('file:') && !packageOf(context.parentURL)) {
          const d = (direct[name] ??= { specifiers: new Set(), by: new Set() });
          d.specifiers.add(specifier);
          d.by.add(path.relative(ROOT, fileURLToPath(context.parentURL)));
        }
      }
      return resolved;
    },
  });
  const start = performance.now();
  for (const entry of ENTRIES) await import(pathToFileURL(path.join(ROOT, entry)).href);
  const ms = performance.now() - start;
  const listed = Object.entries(direct).map(([name, d]) => [name, { specifiers: [...d.specifiers], by: [...d.by] }]);
  return { ms, packages: [...packages].sort(), direct: Object.fromEntries(listed) };
}

const run = promisify(execFile);

async function best(measure: () => Promise<number>): Promise<number> {
  let min = Infinity;
  for (let i = 0; i < RUNS; i++) min = Math.min(min, await measure());
  return min;
}

/** What importing the entries loads, measured in a fresh process (the tests use it too). */
export async function probeInChild(): Promise<Probe> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--probe'], { cwd: ROOT });
  return JSON.parse(stdout) as Probe;
}

/** A package's own cost: its specifiers imported in a fresh plain Node process (no tsx). */
async function packageCost(specifiers: string[]): Promise<number> {
  const code = `const t = performance.now(); for (const s of ${JSON.stringify(specifiers)}) await import(s); process.stdout.write(String(performance.now() - t));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT });
  return Number(stdout);
}

async function main(): Promise<void> {
  let last: Probe | undefined;
  const ms = await best(async () => (last = await probeInChild()).ms);
  const { packages, direct } = last!;
  const costs: [string, number][] = [];
  for (const [name, { specifiers }] of Object.entries(direct)) costs.push([name, await best(() => packageCost(specifiers))]);
  costs.sort((a, b) => b[1] - a[1]);

  console.log(`importing ${ENTRIES.join(', ')}: ${ms.toFixed(0)} ms (best of ${RUNS}), ${packages.length} node_modules packages loaded`);
  console.log(`\nimported by the server's own files, each alone in a fresh process (>= ${CHEAP_MS} ms marked *):`);
  for (const [name, cost] of costs) {
    const { by } = direct[name];
    const files = by.length > 3 ? `${by.slice(0, 3).join(', ')} and ${by.length - 3} more` : by.join(', ');
    console.log(`  ${cost >= CHEAP_MS ? '*' : ' '} ${cost.toFixed(0).padStart(6)} ms  ${name}  (${files})`);
  }
  console.log(`\nall packages loaded: ${packages.join(' ')}`);
}

const asScript = process.argv[1] === fileURLToPath(import.meta.url);
if (asScript && process.argv.includes('--probe')) process.stdout.write(JSON.stringify(await probe()));
else if (asScript) await main();
