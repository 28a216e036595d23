import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { pageFor } from './app/pages';
import { ApiError } from './lib/api-client';
import { jsonQuery } from './lib/json-query';
import { applyStoredTheme } from './lib/theme';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      // A 4xx (or a 501: a feature this server was started without) fails the same way again; retry only an
      // unreachable or failing server.
      retry: (failures, err) =>
        failures < 2 && (!(err instanceof ApiError) || err.status === 0 || (err.status >= 500 && err.status !== 501)),
    },
  },
});

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element');

applyStoredTheme();
// Every page waits on these two (the data's range and the clusters) before it asks for its own data: asked now, they
// are answered while the page's code is still loading, instead of after it.
const status = queryClient.fetchQuery(jsonQuery('/api/status'));
void queryClient.prefetchQuery(jsonQuery('/api/clusters'));
// The page's code asked for now, not at React's first render; and its first data once the status says where the data
// ends, while that code is still on its way (pages.ts). Not if the viewer has gone to another page meanwhile.
const opened = pageFor(window.location.pathname);
opened?.load();
status.then(
  (s) => {
    if (opened?.prefetch !== undefined && pageFor(window.location.pathname) === opened)
      opened.prefetch(queryClient, new URLSearchParams(window.location.search), s);
  },
  // A failed status is the page's to show (useStatus asks again); nothing is asked ahead.
  () => undefined,
);
createRoot(root).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
