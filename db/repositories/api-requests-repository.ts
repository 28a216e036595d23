import type { Db } from '../open-db.js';

/** All SQL for api_requests: every call to a paid or rate-limited API (Cost Explorer costs USD 0.01 each). */

export interface ApiRequest {
  runId?: number | null;
  at: number;
  /** 'ce' | 'pricing' | 'ec2' */
  service: string;
  operation: string;
  detail?: string | null;
}

export function createApiRequestsRepository(db: Db) {
  const insert = db.prepare(`
    INSERT INTO api_requests (run_id, at, service, operation, detail) VALUES (@runId, @at, @service, @operation, @detail)`);
  const count = db
    .prepare(
      `
    SELECT COUNT(*) FROM api_requests
    WHERE (@service IS NULL OR service = @service) AND (@operation IS NULL OR operation = @operation)
      AND at >= @sinceMs`,
    )
    .pluck();

  return {
    recordApiRequest(r: ApiRequest): void {
      insert.run({ runId: r.runId ?? null, at: r.at, service: r.service, operation: r.operation, detail: r.detail ?? null });
    },
    countApiRequests(q: { service?: string; operation?: string; sinceMs?: number } = {}): number {
      return count.get({
        service: q.service ?? null,
        operation: q.operation ?? null,
        sinceMs: q.sinceMs ?? Number.MIN_SAFE_INTEGER,
      }) as number;
    },
  };
}

export type ApiRequestsRepository = ReturnType<typeof createApiRequestsRepository>;
