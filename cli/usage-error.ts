/** A command-line mistake: printed with the command's help and exit code 2, never with a stack trace. */
export class UsageError extends Error {}
