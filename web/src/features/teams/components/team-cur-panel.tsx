import { Suspense } from 'react';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { apiUrl } from '../../../lib/api-client';
import { currencyCode, formatUsd } from '../../../lib/format';
import { useTeamCur, type TeamCurParams } from '../api/use-team-cur';
import { Segmented } from '../../../components/ui/segmented';
import { toCurDiffChart, type CurBasis } from '../utils/team-cur';
import { idleRowLabel, type TeamMethod } from '../utils/team-series';
import { lazyNow } from '../../../lib/lazy-now';

// Recharts is loaded with the chart, not with the page.
const TeamCurChart = lazyNow(() => import('./team-cur-chart'));

const METHOD_NAMES: Record<TeamMethod, string> = { 'request-share': 'Request share', 'aws-split': 'AWS split', opencost: 'OpenCost' };
const METHODS: readonly TeamMethod[] = ['request-share', 'aws-split', 'opencost'];

const signed = (v: number): string => (v > 0 ? `+${formatUsd(v)}` : formatUsd(v));

/**
 * AWS's own split from the Cost and Usage Report beside our three methods: per team over the days the CUR covers,
 * and per day where our estimate and AWS's bill disagree (CUR − the chosen method), unused cost as idle.
 */
interface TeamCurPanelProps {
  params: TeamCurParams | undefined;
  method: TeamMethod;
  groupBy: 'team' | 'namespace';
  /** What AWS's split is of: what was billed, or the instances' public on-demand cost (our methods' basis). */
  basis: CurBasis;
  onBasis: (basis: CurBasis) => void;
}

export function TeamCurPanel({ params, method, groupBy, basis, onBasis }: TeamCurPanelProps) {
  const cur = useTeamCur(params);
  const data = cur.data;
  const who = groupBy === 'team' ? 'Team' : 'Namespace';
  const body = (() => {
    if (params === undefined || cur.isPending) return <LoadingState label="Reading AWS's split from the CUR…" />;
    if (cur.isError) return <ErrorState title="Could not compare with the CUR." error={cur.error} onRetry={() => void cur.refetch()} />;
    if (data === undefined || !data.available) {
      return (
        <EmptyState title="No split cost allocation data from the CUR in this range.">
          {data?.source.text ?? ''} Turn on split cost allocation data for Amazon EKS in the Data Export, then import it with{' '}
          <code>nodepool-ledger cur import PATH|s3://bucket/prefix</code>.
        </EmptyState>
      );
    }
    const chart = toCurDiffChart(data, method);
    const curTotal = data.totals.reduce((t, r) => t + r.curUsd, 0);
    const ourTotal = data.totals.reduce((t, r) => t + r.ours[method], 0);
    return (
      <>
        <div className="filters" role="group" aria-label="AWS split basis">
          <Segmented
            label="AWS's split of"
            value={basis}
            options={[
              { value: 'billed', label: 'What was billed' },
              { value: 'public-on-demand', label: 'Public on-demand prices' },
            ]}
            onChange={(v) => onBasis(v)}
          />
        </div>
        <dl className="summary">
          <div>
            <dt>AWS split (CUR)</dt>
            <dd data-testid="team-cur-total">{formatUsd(curTotal)}</dd>
          </div>
          <div>
            <dt>{METHOD_NAMES[method]} (ours)</dt>
            <dd>{formatUsd(ourTotal)}</dd>
          </div>
          <div>
            <dt>CUR − ours</dt>
            <dd>{signed(curTotal - ourTotal)}</dd>
          </div>
          <div>
            <dt>Days compared</dt>
            <dd>{data.curDays.length}</dd>
          </div>
        </dl>
        <Suspense fallback={<LoadingState label="Loading chart…" />}>
          <TeamCurChart chart={chart} groupBy={groupBy} method={method} />
        </Suspense>
        <div className="table-scroll">
          <table className="data-table" data-testid="team-cur-table">
            <caption className="visually-hidden">
              AWS split from the CUR per {groupBy} beside our three methods, over the days the CUR covers
            </caption>
            <thead>
              <tr>
                <th scope="col">{who}</th>
                <th scope="col" className="num">
                  AWS split (CUR)
                </th>
                {METHODS.map((m) => (
                  <th key={m} scope="col" className="num">
                    {METHOD_NAMES[m]}
                  </th>
                ))}
                <th scope="col" className="num">
                  CUR − {METHOD_NAMES[method]}
                </th>
              </tr>
            </thead>
            <tbody>
              {data.totals.map((t) => (
                <tr key={`${t.kind}|${t.team ?? ''}`} className={t.kind === 'idle' ? 'is-idle' : undefined}>
                  <th scope="row">
                    {t.kind === 'idle' ? idleRowLabel('aws-split') : (t.team ?? `(no ${groupBy === 'team' ? 'team label' : 'namespace'})`)}
                  </th>
                  <td className="num">{formatUsd(t.curUsd)}</td>
                  {METHODS.map((m) => (
                    <td key={m} className="num">
                      {formatUsd(t.ours[m])}
                    </td>
                  ))}
                  <td className="num" data-testid="team-cur-difference">
                    {signed(t.differenceUsd[method])}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <ul className="notes">
          <li>Source: {data.source.text}</li>
          {data.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      </>
    );
  })();
  return (
    <Panel
      title={`AWS split (CUR) beside our estimate, by ${groupBy}`}
      subtitle={`${currencyCode()}: AWS's own split cost allocation for EKS from the Cost and Usage Report, each of our three methods over the same days, and where they disagree (CUR − ${METHOD_NAMES[method]} per day).`}
      actions={
        // Only with something to download; named apart from the team table's "Download CSV" on the same page.
        params === undefined || data?.available !== true ? undefined : (
          <a className="button" href={apiUrl('/api/teams/cur', { ...params, format: 'csv' })} download>
            Download comparison CSV
          </a>
        )
      }
    >
      <div className={cur.isFetching && !cur.isPending ? 'panel-body is-refreshing' : 'panel-body'} data-testid="team-cur-panel">
        {body}
      </div>
    </Panel>
  );
}
