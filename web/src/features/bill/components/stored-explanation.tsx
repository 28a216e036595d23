import { ErrorState, LoadingState } from '../../../components/ui/state-message';
import { useExplanation } from '../api/use-bill';
import { ExplanationView } from './explanation-view';

/** The explanation of a stored line, fetched when it is expanded. */
export function StoredExplanation({ lineId }: { lineId: number }) {
  const e = useExplanation(lineId);
  if (e.isPending) return <LoadingState label="Taking the line apart…" />;
  if (e.isError) return <ErrorState title="Could not explain this line." error={e.error} onRetry={() => void e.refetch()} />;
  return <ExplanationView e={e.data} />;
}
