/**
 * An error that ends the CLI with a known exit code and a one-line message instead of a stack.
 * The CLI recognises it by shape, not by class, so it never has to import the module a command
 * threw from (commands load lazily; `--help` loads none of them).
 */
export interface ExitingError extends Error {
  readonly exitCode: number;
}

export function isExitingError(err: unknown): err is ExitingError {
  return err instanceof Error && typeof (err as Partial<ExitingError>).exitCode === 'number';
}
