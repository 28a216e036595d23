/** Seeding lost the collector lock to another writer and stopped; its own module so catching it loads no collector. */
export class SeedLockLostError extends Error {}
