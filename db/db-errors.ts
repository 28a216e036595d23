/**
 * SQLite's own messages ("attempt to write a readonly database", "database or disk is full") do not say which file
 * or what to do. These wrap them, keeping the SQLite code, for the CLI to print instead of a stack trace.
 */
export class DbAccessError extends Error {
  constructor(
    message: string,
    readonly sqliteCode: string,
    readonly path: string | undefined,
  ) {
    super(message);
    this.name = 'DbAccessError';
  }
}

const ADVICE: [RegExp, string][] = [
  [/^SQLITE_FULL/, "the disk (or the file's size limit) is full: free space and run again; what was written before is intact"],
  [/^SQLITE_READONLY/, 'the file or its folder is read-only for this user: fix the permissions, or pass --db with a writable path'],
  [/^SQLITE_CANTOPEN/, 'the file cannot be opened or created: check that its folder exists and is writable'],
  [/^SQLITE_PERM|^SQLITE_AUTH/, 'access to the file was refused'],
  [/^SQLITE_IOERR/, 'the disk reported an I/O error'],
  [/^SQLITE_(NOTADB|CORRUPT)/, 'the file is not a NodePool Ledger database or is damaged: move it aside and collect again'],
];

/** Creating the database's folder fails before SQLite is reached: the same advice, for the folder. */
const FS_ADVICE: Record<string, string> = {
  EACCES: 'permission denied: the folder is not writable (or not reachable) for this user',
  EPERM: 'permission denied: the folder is not writable for this user',
  EROFS: 'the folder is on a read-only filesystem',
  ENOSPC: 'the disk is full',
};

const codeOf = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
};

/** A DbAccessError naming the file and what to do for SQLite's access errors; any other error unchanged. */
export function explainDbError(err: unknown, path?: string): unknown {
  if (err instanceof DbAccessError) return err;
  const fsErr = err as { code?: unknown; syscall?: unknown; path?: unknown } | null;
  if (fsErr?.syscall === 'mkdir' && typeof fsErr.path === 'string' && typeof fsErr.code === 'string' && fsErr.code in FS_ADVICE) {
    return new DbAccessError(
      `cannot create the database folder ${fsErr.path}: ${FS_ADVICE[fsErr.code]} (pass --db with a writable path)`,
      fsErr.code,
      fsErr.path,
    );
  }
  const code = codeOf(err);
  if (code === undefined) return err;
  const advice = ADVICE.find(([re]) => re.test(code))?.[1];
  if (advice === undefined) return err;
  const where = path === undefined ? 'the database' : `the database ${path}`;
  return new DbAccessError(`cannot use ${where}: ${advice} (${code}: ${(err as Error).message})`, code, path);
}
