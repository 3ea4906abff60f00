import { ConfigValidationError } from './env-parsers';

/** Runs a config loader at process start; a bad variable ends the process with one clear line. */
export function loadOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
