import type { ParamUpdates } from '../../../lib/url-params';

/**
 * The disruptions table's page in the URL (beside the range, NodePool and reason):
 *   &page=2&size=200      1-based page, rows per page
 * A month of a large cluster holds thousands of disruptions, so the server answers one page at a time.
 */
export interface EventsPage {
  /** 1-based. */
  page: number;
  pageSize: number;
}

/** The server takes 1..1000 rows per page. */
export const EVENT_PAGE_SIZES = [25, 50, 100, 200, 500, 1000] as const;
export const DEFAULT_EVENT_PAGE_SIZE = 200;

export function parseEventsPage(params: URLSearchParams): EventsPage {
  const page = Number(params.get('page'));
  const size = Number(params.get('size'));
  return {
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    pageSize: EVENT_PAGE_SIZES.find((s) => s === size) ?? DEFAULT_EVENT_PAGE_SIZE,
  };
}

/** limit and offset of /api/consolidation/events for this page. */
export const eventsPageQuery = (p: EventsPage): { limit: number; offset: number } => ({
  limit: p.pageSize,
  offset: (p.page - 1) * p.pageSize,
});

export const eventPageCount = (total: number, pageSize: number): number => Math.max(1, Math.ceil(total / pageSize));

/** Another page: page 1 leaves the URL. */
export const pageUpdates = (page: number): ParamUpdates => ({ page: page <= 1 ? undefined : String(page) });

/** Another page size starts again at page 1; the default size leaves the URL. */
export const pageSizeUpdates = (size: number): ParamUpdates => ({
  size: size === DEFAULT_EVENT_PAGE_SIZE ? undefined : String(size),
  page: undefined,
});

/** Filters that change which rows match send the table back to its first page. */
export const firstPage = (updates: ParamUpdates): ParamUpdates => ({ ...updates, page: undefined });
