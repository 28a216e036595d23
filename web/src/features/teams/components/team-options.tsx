import { Segmented } from '../../../components/ui/segmented';
import type { ParamUpdates } from '../../../lib/url-params';
import type { TeamsState } from '../utils/team-series';

/** How to attribute: by team or namespace, idle as a band or spread, the split method. */
export function TeamOptions({ state, onChange }: { state: TeamsState; onChange: (updates: ParamUpdates) => void }) {
  return (
    <div className="filters" role="group" aria-label="Attribution">
      <Segmented
        label="Group by"
        value={state.groupBy}
        options={[
          { value: 'team', label: 'Team' },
          { value: 'namespace', label: 'Namespace' },
        ]}
        onChange={(v) => onChange({ by: v === 'team' ? undefined : v, team: undefined })}
      />
      <Segmented
        label="Idle cost"
        value={state.idle}
        options={[
          { value: 'line', label: 'Idle as a band' },
          { value: 'spread', label: 'Spread idle' },
        ]}
        onChange={(v) => onChange({ idle: v === 'line' ? undefined : v })}
      />
      <Segmented
        label="Split method"
        value={state.method}
        options={[
          { value: 'request-share', label: 'Request share' },
          // AWS split and OpenCost charge max(request, usage) where usage is collected (requests alone otherwise).
          { value: 'aws-split', label: 'AWS split · max(request, usage)' },
          { value: 'opencost', label: 'OpenCost · max(request, usage)' },
        ]}
        onChange={(v) => onChange({ method: v === 'request-share' ? undefined : v })}
      />
    </div>
  );
}
