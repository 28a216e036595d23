import { Suspense, useState } from 'react';
import { PageHeader } from '../components/ui/page-header';
import { Panel } from '../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../components/ui/state-message';
import { useBudgets, useDeleteBudget } from '../features/budgets/api/use-budgets';
import { BudgetForm } from '../features/budgets/components/budget-form';
import { BudgetTable } from '../features/budgets/components/budget-table';
import { EMPTY_FORM, formFromBudget, type BudgetFormState } from '../features/budgets/utils/budget-form';
import { lazyNow } from '../lib/lazy-now';

const BudgetChart = lazyNow(() => import('../features/budgets/components/budget-chart'));

/** Budgets: each one's spend and period-end forecast against its amount; create and edit those not declared in a file. */
export default function BudgetsPage() {
  const budgets = useBudgets();
  const remove = useDeleteBudget();
  const [editing, setEditing] = useState<{ name: string | null; form: BudgetFormState } | null>(null);
  const items = budgets.data?.items ?? [];
  return (
    <>
      <PageHeader
        title="Budgets"
        question="How much of each budget is spent, where will the period end at the current run-rate, and how many more nodes fit?"
      />
      <div className="panels">
        <Panel
          title="Spent and forecast"
          subtitle="Percent of each budget's amount: spent so far (final days from the bill, the rest estimated) and the period-end forecast with its spread."
          actions={
            <button type="button" className="button button-primary" onClick={() => setEditing({ name: null, form: EMPTY_FORM })}>
              New budget
            </button>
          }
        >
          {editing === null ? null : (
            <BudgetForm key={editing.name ?? '(new)'} editing={editing.name} initial={editing.form} onDone={() => setEditing(null)} />
          )}
          {budgets.isPending ? (
            <LoadingState label="Loading budgets…" />
          ) : budgets.isError ? (
            <ErrorState title="Budgets did not load" error={budgets.error} onRetry={() => void budgets.refetch()} />
          ) : items.length === 0 ? (
            <EmptyState title="No budget yet">
              Create one here, or declare them in a YAML file given to serve, collect or demo with --budgets FILE.
            </EmptyState>
          ) : (
            <>
              <Suspense fallback={<LoadingState label="Drawing…" />}>
                <BudgetChart items={items} />
              </Suspense>
              {remove.isError ? <ErrorState title="The budget was not deleted" error={remove.error} /> : null}
              <BudgetTable
                items={items}
                busy={remove.isPending}
                onEdit={(s) => setEditing({ name: s.budget.name, form: formFromBudget(s.budget) })}
                onDelete={(name) => remove.mutate(name)}
              />
            </>
          )}
        </Panel>
      </div>
    </>
  );
}
