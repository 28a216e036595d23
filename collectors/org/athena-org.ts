import type { AthenaClient } from '@aws-sdk/client-athena';
import type { OrgEngine, OrgQueryResult, OrgValue } from '../../core/org-query.js';
import { readAthenaResultPages, runAthenaQuery, type AthenaRecord } from '../cur/athena-query.js';

/**
 * `serve --org athena://WORKGROUP/DATABASE`: each statement run in the workgroup on the database with the real Athena
 * client (collectors/cur/athena-query.ts: start, poll with backoff, a FAILED query an error naming its id), its few
 * rows read back through GetQueryResults (the organisation's answers are per cluster, day and NodePool or team:
 * hundreds of rows, not the CUR's millions), with the bytes it scanned.
 */

export interface AthenaOrgTarget {
  workGroup: string;
  database: string;
}

/** Athena's workgroup names: 1-128 of letters, digits, `.`, `_`, `-`; Glue database names: lower case, digits, `_`. */
const WORKGROUP = /^[A-Za-z0-9._-]{1,128}$/;
const DATABASE = /^[a-z0-9_]{1,255}$/;

export function parseAthenaOrgUrl(url: string): AthenaOrgTarget {
  const m = /^athena:\/\/([^/]+)\/([^/]+)\/?$/.exec(url);
  if (!m || !WORKGROUP.test(m[1]) || !DATABASE.test(m[2]))
    throw new Error(`--org must be athena://WORKGROUP/DATABASE (a workgroup name, a lower-case Glue database), not ${url}`);
  return { workGroup: m[1], database: m[2] };
}

export function createAthenaOrgEngine(
  client: AthenaClient,
  target: AthenaOrgTarget & { outputLocation?: string; poll?: { firstMs: number; factor: number; maxMs: number } },
): OrgEngine {
  return {
    kind: 'athena',
    workGroup: target.workGroup,
    database: target.database,
    run: async (statement: string): Promise<OrgQueryResult> => {
      const done = await runAthenaQuery(client, {
        query: statement,
        database: target.database,
        workGroup: target.workGroup,
        ...(target.outputLocation !== undefined ? { outputLocation: target.outputLocation } : {}),
        ...(target.poll !== undefined ? { poll: target.poll } : {}),
      });
      const rows: Record<string, OrgValue>[] = [];
      await readAthenaResultPages(client, done.queryExecutionId, (records: AthenaRecord[]) => rows.push(...records));
      return { rows, queryExecutionId: done.queryExecutionId, scannedBytes: done.dataScannedBytes, engineMs: done.engineMs };
    },
  };
}
