/** Where collect, cur import and demo keep the database when --db is not given (relative to the working directory). */
export const DEFAULT_DB_PATH = '.ledger/ledger.db';
