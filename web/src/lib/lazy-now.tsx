import { lazy, useState, type ComponentProps, type ComponentType } from 'react';

/**
 * A component kept in a chunk of its own (Recharts comes with the charts, not with the pages), whose chunk is asked
 * for as soon as the module using it is loaded rather than when the component is first drawn.
 *
 * With `lazy` alone a panel asks for its chart only once its data has arrived, so the chart's download and parse
 * follow the API's answer; asked with the page's code, they overlap it. And a chart whose code is already here when
 * its data arrives is drawn straight away: through `lazy` it would still suspend once and wait for React to reveal
 * it. Each drawn instance keeps the path it started on, so a chart is never mounted twice.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the loaded component's props are its own
export function lazyNow<T extends ComponentType<any>>(load: () => Promise<{ default: T }>): ComponentType<ComponentProps<T>> {
  let loaded: T | null = null;
  const loading = load().then((m) => {
    loaded = m.default;
    return m;
  });
  // A chunk that fails to load is reported where the component is drawn (by `lazy`, to the error boundary).
  loading.catch(() => undefined);
  const Deferred = lazy(() => loading);
  function LazyNow(props: ComponentProps<T>) {
    const [Now] = useState(() => loaded);
    const Component = (Now ?? Deferred) as ComponentType<ComponentProps<T>>;
    return <Component {...props} />;
  }
  return LazyNow;
}
