import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** Changing it clears a caught error (the page changed). */
  resetKey: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
  key: string;
}

/** A page that throws (or whose code cannot be loaded) shows what to do instead of a blank screen. */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, key: this.props.resetKey };

  static getDerivedStateFromError(error: Error): Partial<State> {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.key ? null : { error: null, key: props.resetKey };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('page failed', error, info.componentStack);
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (error === null) return this.props.children;
    // A chunk that no longer exists: the server was rebuilt while this page was open.
    const stale = /dynamically imported module|Importing a module script failed|Failed to fetch/i.test(error.message);
    return (
      <div className="state state-error" role="alert">
        <strong>{stale ? 'This page was updated on the server.' : 'This page failed to draw.'}</strong>
        <p>
          {stale
            ? 'Reload to get the new version.'
            : 'Reload it; if it happens again, report it with the message below and the browser console output.'}
        </p>
        {stale ? null : <code className="error-detail">{error.message}</code>}
        <button type="button" className="button" onClick={() => window.location.reload()}>
          Reload
        </button>
      </div>
    );
  }
}
