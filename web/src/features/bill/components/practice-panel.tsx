import { useState } from 'react';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { ApiError } from '../../../lib/api-client';
import type { NodePoolColors } from '../../../lib/colors';
import { formatUsd } from '../../../lib/format';
import { usePracticeAnswers, usePracticeQuestion } from '../api/use-bill';
import { BillLinesTable } from './bill-lines-table';
import { ExplanationView } from './explanation-view';

interface PracticePanelProps {
  seed: number;
  onSeed: (seed: number) => void;
  colors: NodePoolColors;
}

/**
 * A hypothetical bill the sandbox made for one day, perhaps with something changed. The answers (what
 * changed, each line explained) are not fetched until the user asks for them.
 */
export function PracticePanel({ seed, onSeed, colors }: PracticePanelProps) {
  // Keyed by seed so a new question starts hidden again.
  return <Practice key={seed} seed={seed} onSeed={onSeed} colors={colors} />;
}

function Practice({ seed, onSeed, colors }: PracticePanelProps) {
  const [revealed, setRevealed] = useState(false);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const question = usePracticeQuestion(seed);
  const answers = usePracticeAnswers(seed, revealed);

  const body = (() => {
    if (question.isPending) return <LoadingState label="The sandbox is writing a bill…" />;
    // 501: a server started with `serve` has no simulator to make practice bills; say how to get one, not "retry".
    if (question.error instanceof ApiError && question.error.status === 501)
      return (
        <EmptyState title="Practice bills need the demo.">
          {question.error.message} Run <code>npm start</code> to practise on the sandbox; your bill is under “Your bill”.
        </EmptyState>
      );
    if (question.isError)
      return <ErrorState title="Could not make a practice bill." error={question.error} onRetry={() => void question.refetch()} />;
    const q = question.data;
    const total = q.lines.reduce((s, l) => s + l.unblendedUsd, 0);
    return (
      <>
        <div className="question" data-testid="practice-question">
          <p className="question-meta">
            Question {q.seed} · scenario {q.scenario} · {q.day} (UTC) · {q.lines.length} lines, {formatUsd(total)}
          </p>
          <p className="question-prompt">{q.prompt}</p>
        </div>
        <BillLinesTable
          lines={q.lines}
          keyOf={(_l, i) => String(i)}
          expanded={expanded}
          onToggle={(_l, i) =>
            setExpanded((s) => {
              const next = new Set(s);
              if (!next.delete(String(i))) next.add(String(i));
              return next;
            })
          }
          detail={(_l, i) => {
            if (!revealed) return <p className="hidden-answer">The explanation is part of the answer: reveal the answers to see it.</p>;
            if (answers.isPending) return <LoadingState label="Loading the answers…" />;
            const e = answers.data?.explanations[i];
            return e === undefined ? null : <ExplanationView e={e} />;
          }}
          colors={colors}
          focus={q.focusLine}
          caption={`Hypothetical bill for ${q.day}`}
        />
        <div className="practice-actions">
          <button
            type="button"
            className="button button-primary"
            aria-expanded={revealed}
            aria-controls="practice-answers"
            onClick={() => {
              // Revealing opens the line in question, so its explanation sits beside it.
              if (!revealed) setExpanded((s) => new Set([...s, String(q.focusLine)]));
              setRevealed(!revealed);
            }}
          >
            {revealed ? 'Hide the answers' : 'Reveal the answers'}
          </button>
          <button type="button" className="button" onClick={() => onSeed(seed + 1)}>
            Next question
          </button>
          <a className="button" href={`data:text/csv;charset=utf-8,${encodeURIComponent(q.csv)}`} download={`practice-${seed}.csv`}>
            Download as a Cost Explorer CSV
          </a>
        </div>
        <div id="practice-answers" data-testid="practice-answers" hidden={!revealed}>
          {!revealed ? null : answers.isPending ? (
            <LoadingState label="Loading the answers…" />
          ) : answers.isError ? (
            <ErrorState title="Could not load the answers." error={answers.error} onRetry={() => void answers.refetch()} />
          ) : (
            <div className="answers">
              <h3>What the sandbox changed</h3>
              <p>{answers.data.whatChanged}</p>
              <p className="hint">The line in question is opened above with its NodeClaims; expand any other line to see it explained.</p>
            </div>
          )}
        </div>
      </>
    );
  })();

  return (
    <Panel
      title="Practice: explain a hypothetical bill"
      subtitle="The sandbox bills one day of its cluster, sometimes with a twist (an untagged node, spot billed at hour-start prices, tags not active). Work out the answer from the lines, then reveal it."
    >
      <div className="panel-body">{body}</div>
    </Panel>
  );
}
