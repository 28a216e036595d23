import { describe, expect, it } from 'vitest';
import { eventPageCount, eventsPageQuery, firstPage, pageSizeUpdates, pageUpdates, parseEventsPage } from './events-page';

describe('parseEventsPage', () => {
  it.each([
    ['', { page: 1, pageSize: 200 }],
    ['page=3&size=50', { page: 3, pageSize: 50 }],
    ['page=0&size=7', { page: 1, pageSize: 200 }],
    ['page=2.5&size=1000', { page: 1, pageSize: 1000 }],
    ['page=-1&size=abc', { page: 1, pageSize: 200 }],
  ])('%s', (qs, want) => expect(parseEventsPage(new URLSearchParams(qs))).toEqual(want));
});

describe('eventsPageQuery', () => {
  it.each([
    [
      { page: 1, pageSize: 200 },
      { limit: 200, offset: 0 },
    ],
    // page 3 of 50: rows 101..150 -> skip 2 × 50 = 100
    [
      { page: 3, pageSize: 50 },
      { limit: 50, offset: 100 },
    ],
  ])('%o', (p, want) => expect(eventsPageQuery(p)).toEqual(want));
});

describe('eventPageCount', () => {
  it.each([
    [0, 200, 1],
    [200, 200, 1],
    [201, 200, 2],
    // 5,894 disruptions at 200 a page: 29 full pages (5,800) and one of 94
    [5894, 200, 30],
  ])('%d rows at %d a page: %d pages', (total, size, want) => expect(eventPageCount(total, size)).toBe(want));
});

describe('URL updates', () => {
  it('page 1 leaves the URL, others are written', () => {
    expect(pageUpdates(1)).toEqual({ page: undefined });
    expect(pageUpdates(4)).toEqual({ page: '4' });
  });
  it('a new size starts at page 1; the default size leaves the URL', () => {
    expect(pageSizeUpdates(50)).toEqual({ size: '50', page: undefined });
    expect(pageSizeUpdates(200)).toEqual({ size: undefined, page: undefined });
  });
  it('a filter change goes back to page 1', () => expect(firstPage({ reason: 'Empty' })).toEqual({ reason: 'Empty', page: undefined }));
});
