import type { INestApplication } from '@nestjs/common';

/**
 * Listens on host:port; a port already taken ends the process with one line naming the variable
 * that sets it, instead of a stack trace.
 */
export async function listenOrExit(
  app: INestApplication,
  port: number,
  host: string,
  portVariable: string,
): Promise<void> {
  try {
    await app.listen(port, host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES') {
      const why =
        code === 'EADDRINUSE'
          ? `${portVariable} ${port} is in use; set ${portVariable}=... to another port`
          : `cannot listen on ${host}:${port} (${code}); check HOST and ${portVariable}`;
      process.stderr.write(`${why}\n`);
      process.exit(1);
    }
    throw error;
  }
}
