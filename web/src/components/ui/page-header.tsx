import type { ReactNode } from 'react';

interface PageHeaderProps {
  title: string;
  /** The question the page answers, in one sentence. */
  question: string;
  /** Filters. */
  children?: ReactNode;
}

export function PageHeader({ title, question, children }: PageHeaderProps) {
  return (
    <header className="page-header">
      <div className="page-title">
        <h1>{title}</h1>
        <p className="page-question">{question}</p>
      </div>
      {children}
    </header>
  );
}
