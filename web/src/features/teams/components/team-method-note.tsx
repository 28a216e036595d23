import { useTeamCost, type TeamCostParams } from '../api/use-team-cost';

/**
 * The chosen attribution method in words: what it does, whose definition it follows (linked where published), and
 * what fed it over the range ("fed by requests only (no usage collected)" until usage is collected). Reads the same
 * query as the table, so it costs no request of its own.
 */
export function TeamMethodNote({ params }: { params: TeamCostParams | undefined }) {
  const cost = useTeamCost(params);
  const data = cost.data;
  if (data === undefined) return null;
  const { methodInfo: m, feed } = data;
  return (
    <aside className="method-note" aria-label="Attribution method" data-testid="team-method-note">
      <p>
        <strong>{m.name}.</strong> {m.definition}
      </p>
      <p className="method-source">
        Definition:{' '}
        {m.url === null ? (
          m.source
        ) : (
          <a href={m.url} target="_blank" rel="noreferrer noopener">
            {m.source}
          </a>
        )}
        {feed.usage === 'not-applicable' ? null : (
          <span className={feed.usage === 'none' ? 'method-feed is-requests-only' : 'method-feed'} data-testid="team-method-feed">
            {' '}
            · {feed.note}
          </span>
        )}
      </p>
    </aside>
  );
}
