import type { OrgQueryInfo } from '../api/org-api';
import { formatQueryUsd, formatScanBytes } from '../utils/org-view';

/** What the view's Athena query read and cost: scanned bytes, the bytes billed (10 MB minimum), USD at $5/TB. */
export function QueryCost({ query, testId }: { query: OrgQueryInfo; testId: string }) {
  return (
    <p className="panel-subtitle" data-testid={testId}>
      Athena ({query.engine}): scanned <strong data-testid={`${testId}-scanned`}>{formatScanBytes(query.scannedBytes)}</strong>, billed{' '}
      {formatScanBytes(query.billedBytes)} at USD 5/TB: <strong data-testid={`${testId}-cost`}>{formatQueryUsd(query.costUsd)}</strong>
      {query.cached ? ' (answered from the cache: paid once, when it ran)' : ` in ${(query.engineMs / 1000).toFixed(1)} s`} · query{' '}
      <code>{query.queryExecutionId}</code>
    </p>
  );
}
