/**
 * Lengths of time in milliseconds for the dashboard. The same values as core/time.ts, declared again because web/
 * imports nothing from the server side but the API's type declarations (and this bundle ships to browsers).
 */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
