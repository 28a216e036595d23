import { readFileSync } from 'node:fs';

/**
 * Sums a V8 heap snapshot (.heapsnapshot, as bench/watch-process.ts writes with LEDGER_BENCH_HEAP_SNAPSHOT) by node
 * type and constructor name: count and self size, the largest first. `tsx bench/watch-heap-summary.ts FILE [TOP]`.
 */
interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const [file, top = '30'] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: watch-heap-summary.ts FILE [TOP]');
const h = JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot;
const fields = h.snapshot.meta.node_fields;
const types = h.snapshot.meta.node_types[0];
const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
const sums = new Map<string, { count: number; bytes: number }>();
let total = 0;
for (let i = 0; i < h.nodes.length; i += fields.length) {
  const type = types[h.nodes[i + typeAt]];
  const name = type === 'object' || type === 'closure' || type === 'native' ? h.strings[h.nodes[i + nameAt]] : '';
  const key = `${type} ${name}`.trim();
  const s = sums.get(key) ?? { count: 0, bytes: 0 };
  s.count += 1;
  s.bytes += h.nodes[i + sizeAt];
  total += h.nodes[i + sizeAt];
  sums.set(key, s);
}
console.log(`total self size ${(total / 1048576).toFixed(1)} MB`);
for (const [key, s] of [...sums].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(top)))
  console.log(`${(s.bytes / 1048576).toFixed(1).padStart(8)} MB ${String(s.count).padStart(9)}  ${key}`);
