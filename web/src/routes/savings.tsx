import { PageHeader } from '../components/ui/page-header';
import { useSearchParams } from '../lib/router';
import { HeadroomPanel } from '../features/savings/components/headroom-panel';
import { KarpenterTryPanel } from '../features/savings/components/KarpenterTry';
import { PredictBox } from '../features/savings/components/predict-box';
import { WhyNotPanel } from '../features/savings/components/why-not-panel';

/** Savings: what each lever would save, why nodes are not consolidated, and where a new workload would go. Composes only. */
export default function SavingsPage() {
  const [params] = useSearchParams();
  const at = params.get('at') ?? undefined;
  return (
    <>
      <PageHeader
        title="Savings"
        question="What should I change, and what would it save? Why did Karpenter not consolidate that node? Every figure here is a simulation over one stored snapshot."
      />
      <div className="panels">
        <HeadroomPanel at={at} />
        <WhyNotPanel at={at} />
        <KarpenterTryPanel at={at} />
        <PredictBox at={at} />
      </div>
    </>
  );
}
