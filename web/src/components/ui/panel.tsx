import type { ReactNode } from 'react';

interface PanelProps {
  title: string;
  /** One line under the title: what the figures are, in which unit. */
  subtitle?: ReactNode;
  /** Controls at the right of the title (toggles). */
  actions?: ReactNode;
  children: ReactNode;
}

export function Panel({ title, subtitle, actions, children }: PanelProps) {
  return (
    <section className="panel" aria-label={title}>
      <header className="panel-header">
        <div>
          <h2>{title}</h2>
          {subtitle === undefined ? null : <p className="panel-subtitle">{subtitle}</p>}
        </div>
        {actions === undefined ? null : <div className="panel-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}
