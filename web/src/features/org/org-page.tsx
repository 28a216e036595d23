import { PageHeader } from '../../components/ui/page-header';
import { EmptyState } from '../../components/ui/state-message';
import { useSearchParams } from '../../lib/router';
import { notAnOrgServer, useOrgOverview } from './api/org-api';
import { OrgOverviewPanel } from './components/org-overview-panel';
import { OrgTeamsPanel } from './components/org-teams-panel';
import { orgMethodOf, orgRangeOf } from './utils/org-view';

/**
 * The organisation (`serve --org athena://WORKGROUP/DATABASE`): every exported cluster's Overview and Teams, answered
 * by Athena over the Parquet the clusters' ledgers export, each query's scanned bytes and price shown; a cluster's
 * name opens it in this server's own ledger. Without --org the server has no org routes, and the page says so.
 */
export default function OrgPage() {
  const [params, setParams] = useSearchParams();
  const range = orgRangeOf(params);
  const method = orgMethodOf(params);
  const probe = useOrgOverview(range);
  return (
    <>
      <PageHeader title="Organisation" question="What does every cluster of the organisation cost, and each team across them?" />
      {probe.isError && notAnOrgServer(probe.error) ? (
        <EmptyState title="This server answers one ledger.">
          Start it with <code>serve --org athena://WORKGROUP/DATABASE</code> to see every cluster the ledgers export to S3
          (docs/org-athena.md).
        </EmptyState>
      ) : (
        <>
          <OrgOverviewPanel range={range} />
          <OrgTeamsPanel range={range} method={method} onMethod={(m) => setParams({ method: m })} />
        </>
      )}
    </>
  );
}
