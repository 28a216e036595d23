import { useId, useState, type FormEvent } from 'react';
import { ApiError } from '../../../lib/api-client';
import { currencyCode } from '../../../lib/format';
import { useSaveBudget } from '../api/use-budgets';
import { declarationOf, type BudgetFormState } from '../utils/budget-form';

interface BudgetFormProps {
  /** The budget being edited (its name fixed), or null to create one. */
  editing: string | null;
  initial: BudgetFormState;
  onDone: () => void;
}

/** Create or edit a budget: what the form cannot check it says at once, the rest the server names (its 400). */
export function BudgetForm({ editing, initial, onDone }: BudgetFormProps) {
  const id = useId();
  const [form, setForm] = useState(initial);
  const [local, setLocal] = useState<string | null>(null);
  const save = useSaveBudget();
  const set = <K extends keyof BudgetFormState>(k: K, v: BudgetFormState[K]) => setForm((f) => ({ ...f, [k]: v }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const d = declarationOf(form);
    if ('field' in d) return setLocal(d.message);
    setLocal(null);
    save.mutate({ editing, body: d.body }, { onSuccess: onDone });
  };
  const serverError = save.error === null ? null : save.error instanceof ApiError ? save.error.message : 'The budget was not saved.';
  const error = local ?? serverError;
  const field = (name: string) => `${id}-${name}`;
  return (
    <form
      className="budget-form"
      data-testid="budget-form"
      onSubmit={submit}
      aria-label={editing === null ? 'New budget' : `Edit ${editing}`}
    >
      <div className="form-grid">
        <label htmlFor={field('name')}>Name</label>
        <input id={field('name')} name="name" value={form.name} disabled={editing !== null} onChange={(e) => set('name', e.target.value)} />
        <label htmlFor={field('kind')}>Scope</label>
        <select
          id={field('kind')}
          name="scopeKind"
          value={form.scopeKind}
          onChange={(e) => set('scopeKind', e.target.value as BudgetFormState['scopeKind'])}
        >
          <option value="nodepool">NodePool</option>
          <option value="team">team</option>
          <option value="namespace">namespace</option>
          <option value="cluster">the cluster</option>
        </select>
        {form.scopeKind === 'cluster' ? null : (
          <>
            <label htmlFor={field('scope')}>{form.scopeKind === 'nodepool' ? 'NodePool' : form.scopeKind}</label>
            <input id={field('scope')} name="scopeName" value={form.scopeName} onChange={(e) => set('scopeName', e.target.value)} />
          </>
        )}
        <label htmlFor={field('period')}>Period</label>
        <select
          id={field('period')}
          name="period"
          value={form.period}
          onChange={(e) => set('period', e.target.value as BudgetFormState['period'])}
        >
          <option value="monthly">monthly (UTC month)</option>
          <option value="weekly">weekly (Monday 00:00 UTC)</option>
        </select>
        <label htmlFor={field('amount')}>Amount ({currencyCode()})</label>
        <input id={field('amount')} name="amount" inputMode="decimal" value={form.amount} onChange={(e) => set('amount', e.target.value)} />
        <label htmlFor={field('metric')}>Cost metric</label>
        <select
          id={field('metric')}
          name="costMetric"
          value={form.costMetric}
          onChange={(e) => set('costMetric', e.target.value as BudgetFormState['costMetric'])}
        >
          <option value="unblended">unblended</option>
          <option value="amortized">amortized</option>
          <option value="net">net (where the bill has it)</option>
        </select>
        <label htmlFor={field('thresholds')}>Thresholds (% of amount)</label>
        <input id={field('thresholds')} name="thresholds" value={form.thresholds} onChange={(e) => set('thresholds', e.target.value)} />
        {form.scopeKind === 'nodepool' ? (
          <>
            <label htmlFor={field('limit')}>Dollar limit</label>
            <input
              id={field('limit')}
              name="dollarLimit"
              type="checkbox"
              checked={form.dollarLimit}
              onChange={(e) => set('dollarLimit', e.target.checked)}
            />
          </>
        ) : null}
      </div>
      {error === null ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {editing === null ? 'Create budget' : 'Save'}
        </button>
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
