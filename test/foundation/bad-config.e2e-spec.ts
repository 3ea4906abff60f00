import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function startApi(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', 'apps/api/src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('configuration at start', () => {
  it('a malformed variable stops the api with exactly one line naming it', async () => {
    const { code, stderr } = await startApi({ PORT: 'abc' });
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/\bPORT\b/);
    expect(lines[0]).toContain('"abc"');
  });

  it('a retention setting out of range stops the api with one line naming it', async () => {
    const { code, stderr } = await startApi({ RETENTION_NOTIFICATIONS_DAYS: '-3' });
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/\bRETENTION_NOTIFICATIONS_DAYS\b/);
  });

  it('a port already taken stops the api with one line naming PORT', async () => {
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', () => resolve()));
    const port = (squatter.address() as { port: number }).port;
    try {
      const { code, stderr } = await startApi({ PORT: String(port), HOST: '127.0.0.1' });
      expect(code).toBe(1);
      const lines = stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines).toEqual([`PORT ${port} is in use; set PORT=... to another port`]);
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  }, 30_000);
});
