import { useEffect, useEffectEvent, useId, useRef, useState, type KeyboardEvent } from 'react';
import { MAX_SEARCH_LENGTH } from '../utils/node-table';

/** How long typing must pause before the search goes into the URL (and so to the server). */
export const SEARCH_DEBOUNCE_MS = 250;

interface NodeSearchProps {
  /** The search in the URL. */
  q: string | undefined;
  onSearch: (q: string | undefined) => void;
}

/** A search box over the node table: typed text reaches the URL after a pause; Esc clears it at once. */
export function NodeSearch({ q, onSearch }: NodeSearchProps) {
  const id = useId();
  const [value, setValue] = useState(q ?? '');
  // What this box last put in the URL: a different q came from elsewhere (back/forward, a link) and replaces the text.
  const sent = useRef(q);
  const [seenQ, setSeenQ] = useState(q);
  if (q !== seenQ) {
    setSeenQ(q);
    if (q !== sent.current) {
      sent.current = q;
      setValue(q ?? '');
    }
  }

  const send = (text: string): void => {
    const next = text === '' ? undefined : text;
    if (next === sent.current) return;
    sent.current = next;
    onSearch(next);
  };
  // Only a change of the text re-arms the timer: onSearch is a new function each render, and depending on it would
  // restart the pause; an effect event sees the latest one without being a dependency.
  const sendLater = useEffectEvent(send);
  useEffect(() => {
    const timer = setTimeout(() => sendLater(value), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [value]);

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>): void => {
    if (e.key !== 'Escape') return;
    e.preventDefault();
    setValue('');
    send('');
  };
  return (
    <div className="node-search">
      <label htmlFor={id}>Search</label>
      <input
        id={id}
        type="search"
        value={value}
        maxLength={MAX_SEARCH_LENGTH}
        placeholder="name, type, zone…"
        aria-describedby={`${id}-hint`}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <span id={`${id}-hint`} className="visually-hidden">
        Matches node name, NodeClaim, instance type, NodePool and zone. Esc clears.
      </span>
    </div>
  );
}
