/**
 * The web's API calls are typed by path (server/schemas/api-routes.ts): this file compiles with `tsc -p web` (npm run
 * typecheck) only while each line marked @ts-expect-error is an error — a wrong parameter name, a wrong parameter type,
 * a wrong field, a path the API does not have. test/contract/web-api-contract.test.ts also compiles it with the marks
 * taken out and checks that each of those lines fails for the reason its comment gives. Not run, only compiled.
 */
import { apiUrl, getJson, postFile } from './api-client';
import { jsonQuery } from './json-query';

export async function contract(signal: AbortSignal, file: Blob): Promise<unknown[]> {
  // The right names and types compile, and the answer is typed by the path.
  const nodes = await getJson('/api/nodes', { at: '2026-11-09T10:00:00Z', sort: 'cpu', limit: 100, q: 'm5.' }, signal);
  const cpu: number | null = nodes.rows[0].cpu;
  const daily = await getJson('/api/cost/nodepools/daily', { from: '2026-11-01', nodepool: 'general' });
  const billUsd: number = daily.totals.billUsd;
  const href: string = apiUrl('/api/teams/cost', { method: 'aws-split', format: 'csv' });
  const imported = await postFile('/api/bill/import', { name: 'costs' }, file, 'costs.csv');
  const lines: number = imported.lines;

  // @ts-expect-error nodPool: a parameter /api/cost/nodepools/daily does not take (it is nodepool)
  await getJson('/api/cost/nodepools/daily', { nodPool: 'general' });
  // @ts-expect-error limit: a number, not a string
  await getJson('/api/nodes', { limit: '100' });
  // @ts-expect-error sort: not a column of the node table
  await getJson('/api/nodes', { sort: 'price' });
  // @ts-expect-error format: getJson always asks for JSON (CSV is a link: apiUrl)
  await getJson('/api/nodes', { format: 'csv' });
  // @ts-expect-error costUsdd: a field /api/efficiency/summary does not answer (it is costUsd)
  const wrongField: number = (await getJson('/api/efficiency/summary')).rows[0].costUsdd;
  // @ts-expect-error /api/node: a path the API does not have
  await getJson('/api/node');
  // @ts-expect-error /api/bill/import is a POST
  await getJson('/api/bill/import');
  // @ts-expect-error granularity: not a value the import takes
  await postFile('/api/bill/import', { granularity: 'WEEKLY' }, file, 'costs.csv');
  // @ts-expect-error methd: a parameter /api/teams/cost does not take (it is method)
  apiUrl('/api/teams/cost', { methd: 'aws-split' });
  // @ts-expect-error the query key of /api/status holds no range
  jsonQuery('/api/status', { from: '2026-11-01' });

  return [cpu, billUsd, href, lines, wrongField];
}
